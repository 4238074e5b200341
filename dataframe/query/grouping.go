package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Grouping analytics (docs/sql.md#grouping-sets): GROUPING SETS, ROLLUP and
// CUBE group the rows once per grouping set. As in Spark, an expand node
// emits each input row once per set, with the group keys the set leaves
// out set to NULL and a grouping id (one bit per key, 1 for a key left
// out, the first key the highest bit); the aggregate then groups by the
// keys and the id. grouping(k) and grouping_id(…) read the id's bits.
// GROUP BY ALL groups by every select item without an aggregate function.

// groupingInfo is the grouping sets of a block.
type groupingInfo struct {
	keys  []rex    // the block's group keys, over its input
	names []string // their names
	sets  [][]bool // per grouping set: which keys it groups by
	// dup: a set is repeated (GROUPING SETS ((a), (a))); each copy is
	// its own group, told apart by the set's position.
	dup bool
}

// maxGroupingKeys bounds the keys of grouping sets (the id's bits).
const maxGroupingKeys = 63

func hasGroupingSets(items []Expr) bool {
	for _, g := range items {
		if _, ok := g.(*GroupingSets); ok {
			return true
		}
	}
	return false
}

// groupByAll says whether the block is `GROUP BY ALL` (and no input column
// is named all).
func (b *selectBlock) groupByAll() bool {
	g := b.s.GroupBy
	if len(g) != 1 {
		return false
	}
	c, ok := g[0].(*Column)
	return ok && len(c.Path) == 1 && strings.EqualFold(c.Path[0], "all") && !b.in.sc.has(c.Path)
}

// groupByAllKeys makes every select item without an aggregate function a
// group key; an item that mixes aggregates with columns outside them is an
// error, as in Spark.
func (b *selectBlock) groupByAllKeys() error {
	pos := b.s.GroupBy[0].Position()
	seen := map[string]bool{}
	for _, it := range b.items {
		if containsAgg(it.Expr) {
			if col := columnOutsideAgg(it.Expr); col != nil {
				return errorf(pos, "GROUP BY ALL cannot tell the group keys: the select item %s uses %s outside an aggregate function; list the keys instead", it.Expr, col)
			}
			continue
		}
		r := &exprResolver{a: b.a, sc: b.in.sc, clause: "GROUP BY ALL"}
		k, err := r.resolve(it.Expr)
		if err != nil {
			return err
		}
		if key := rexKey(k); !seen[key] {
			seen[key] = true
			b.keys = append(b.keys, k)
			b.keyName = append(b.keyName, itemName(it.Expr, k))
		}
	}
	return nil
}

// columnOutsideAgg is a column e reads outside its aggregate calls, or nil.
func columnOutsideAgg(e Expr) Expr {
	var found Expr
	visit(e, func(x Expr) bool {
		if found != nil || isAggregate(x) {
			return false
		}
		switch x.(type) {
		case *Column, *boundColumn:
			found = x
		}
		return true
	})
	return found
}

// groupingSets resolves GROUP BY items with ROLLUP, CUBE or GROUPING SETS:
// the distinct key expressions in order of appearance, and the sets (the
// cross product of the items' sets: GROUP BY a, ROLLUP(b, c) groups by
// (a, b, c), (a, b) and (a)).
func (b *selectBlock) groupingSets() error {
	sets := [][]Expr{{}}
	var all []Expr
	for _, g := range b.s.GroupBy {
		var its [][]Expr
		if gs, ok := g.(*GroupingSets); ok {
			var err error
			if its, err = expandGroupingSets(gs); err != nil {
				return err
			}
			if gs.Exprs != nil {
				all = append(all, gs.Exprs...)
			}
			for _, s := range its {
				all = append(all, s...)
			}
		} else {
			its = [][]Expr{{g}}
			all = append(all, g)
		}
		var cross [][]Expr
		for _, a := range sets {
			for _, s := range its {
				cross = append(cross, append(append([]Expr(nil), a...), s...))
			}
		}
		sets = cross
	}
	index := map[string]int{}
	keyOf := func(g Expr) (int, error) {
		k, name, err := b.groupKey(g)
		if err != nil {
			return 0, err
		}
		key := canonicalKey(k)
		if i, ok := index[key]; ok {
			return i, nil
		}
		index[key] = len(b.keys)
		b.keys = append(b.keys, k)
		b.keyName = append(b.keyName, name)
		return len(b.keys) - 1, nil
	}
	for _, g := range all {
		if _, err := keyOf(g); err != nil {
			return err
		}
	}
	if len(b.keys) > maxGroupingKeys {
		return errorf(b.s.GroupBy[0].Position(), "grouping sets have %d keys; at most %d are allowed", len(b.keys), maxGroupingKeys)
	}
	gi := &groupingInfo{keys: b.keys, names: b.keyName}
	seen := map[string]bool{}
	for _, s := range sets {
		mask := make([]bool, len(b.keys))
		for _, g := range s {
			i, err := keyOf(g)
			if err != nil {
				return err
			}
			mask[i] = true
		}
		k := fmt.Sprint(mask)
		gi.dup = gi.dup || seen[k]
		seen[k] = true
		gi.sets = append(gi.sets, mask)
	}
	b.aggs.grouping = gi
	return nil
}

// expandGroupingSets lists the sets of one ROLLUP, CUBE or GROUPING SETS,
// in Spark's order.
func expandGroupingSets(gs *GroupingSets) ([][]Expr, error) {
	flat := func(units [][]Expr) []Expr {
		var out []Expr
		for _, u := range units {
			out = append(out, u...)
		}
		return out
	}
	switch gs.Kind {
	case "ROLLUP":
		var out [][]Expr
		for i := len(gs.Sets); i >= 0; i-- {
			out = append(out, flat(gs.Sets[:i]))
		}
		return out, nil
	case "CUBE":
		if len(gs.Sets) > 12 {
			return nil, errorf(gs.Pos, "CUBE of %d elements makes %d grouping sets; at most 4096 are allowed", len(gs.Sets), 1<<len(gs.Sets))
		}
		var cube func(units [][]Expr) [][]Expr
		cube = func(units [][]Expr) [][]Expr {
			if len(units) == 0 {
				return [][]Expr{{}}
			}
			rest := cube(units[1:])
			var out [][]Expr
			for _, r := range rest {
				out = append(out, append(append([]Expr(nil), units[0]...), r...))
			}
			return append(out, rest...)
		}
		return cube(gs.Sets), nil
	}
	var out [][]Expr
	for _, s := range gs.Sets {
		if len(s) == 1 {
			if inner, ok := s[0].(*GroupingSets); ok {
				its, err := expandGroupingSets(inner)
				if err != nil {
					return nil, err
				}
				out = append(out, its...)
				continue
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// aggregate is the block's aggregation over n, and the keys its output
// starts with for groupedSpace.
func (b *selectBlock) aggregate(n lnode) (lnode, []rex) {
	gi := b.aggs.grouping
	if gi == nil {
		return &lAggregate{in: n, keys: b.keys, names: b.keyName, aggs: b.aggs.calls}, b.keys
	}
	nin := len(n.fields())
	x := &lExpand{in: n, keys: gi.keys, names: gi.names, sets: gi.sets, pos: gi.dup}
	fs := x.fields()
	agg := &lAggregate{in: x, aggs: b.aggs.calls}
	for k := range gi.keys {
		c := nin + k
		agg.keys = append(agg.keys, &rCol{idx: c, t: fs[c].typ, name: fs[c].name})
	}
	agg.names = append(agg.names, gi.names...)
	keys := append(append([]rex(nil), gi.keys...), &rGid{})
	gidCol := nin + len(gi.keys)
	agg.keys = append(agg.keys, &rCol{idx: gidCol, t: tLong, name: fs[gidCol].name})
	agg.names = append(agg.names, fs[gidCol].name)
	if gi.dup {
		agg.keys = append(agg.keys, &rCol{idx: gidCol + 1, t: tInt, name: fs[gidCol+1].name})
		agg.names = append(agg.names, fs[gidCol+1].name)
		keys = append(keys, &rGid{pos: true})
	}
	return agg, keys
}

// groupingCall resolves grouping(k) and grouping_id(k, …): bits of the
// grouping id, each argument a group key.
func (r *exprResolver) groupingCall(x *Call, name string) (rex, error) {
	if r.aggs == nil || r.aggs.grouping == nil {
		return nil, errorf(x.Pos, "%s: %s() can only be used with GROUPING SETS, ROLLUP or CUBE", x, name)
	}
	gi := r.aggs.grouping
	if name == "grouping" && len(x.Args) != 1 {
		return nil, errorf(x.Pos, "grouping takes 1 argument, got %d", len(x.Args))
	}
	g := &rGroupingBits{gid: &rGid{}, n: len(gi.keys), id: name == "grouping_id"}
	inner := &exprResolver{a: r.a, sc: r.sc, clause: name + "()"}
	var names []string
	for _, a := range x.Args {
		e, err := inner.resolve(a)
		if err != nil {
			return nil, err
		}
		k := -1
		for i, key := range gi.keys {
			if rexKey(key) == rexKey(e) {
				k = i
			}
		}
		if k < 0 {
			return nil, errorf(a.Position(), "%s: %s is not a group key (%s)", x, e.sql(), strings.Join(gi.names, ", "))
		}
		g.pos = append(g.pos, k)
		names = append(names, e.sql())
	}
	if g.id && len(x.Args) == 0 {
		for k := range gi.keys {
			g.pos = append(g.pos, k)
		}
	}
	g.name = name + "(" + strings.Join(names, ", ") + ")"
	return g, nil
}

// rGid is the grouping id of the aggregation being analysed (pos: the
// grouping set's position), until groupedSpace makes it the aggregate's
// column.
type rGid struct{ pos bool }

func (e *rGid) Type() arrow.DataType {
	if e.pos {
		return tInt
	}
	return tLong
}
func (e *rGid) sql() string    { return "spark_grouping_id" }
func (e *rGid) kids() []rex    { return nil }
func (e *rGid) with([]rex) rex { c := *e; return &c }
func (e *rGid) key() string    { return fmt.Sprintf("gid<%v>", e.pos) }
func (e *rGid) compile() (*cexpr, error) {
	return nil, fmt.Errorf("query: the grouping id outside its aggregation (a planner bug)")
}

// rGroupingBits is grouping(k) (tinyint: the bit of key k) or
// grouping_id(k, …) (bigint: the bits of the keys given, the first the
// highest) of the grouping id gid over n keys.
type rGroupingBits struct {
	gid  rex
	pos  []int
	n    int
	id   bool
	name string
}

func (e *rGroupingBits) Type() arrow.DataType {
	if e.id {
		return tLong
	}
	return tByte
}
func (e *rGroupingBits) sql() string { return e.name }
func (e *rGroupingBits) kids() []rex { return []rex{e.gid} }
func (e *rGroupingBits) with(k []rex) rex {
	c := *e
	c.gid = k[0]
	return &c
}
func (e *rGroupingBits) key() string { return fmt.Sprintf("grouping<%v,%d,%v>", e.id, e.n, e.pos) }

func (e *rGroupingBits) compile() (*cexpr, error) {
	gid, err := compile(e.gid)
	if err != nil {
		return nil, err
	}
	pos, n, id := e.pos, e.n, e.id
	return &cexpr{typ: e.Type(), eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return gid.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			v := fixedValues[int64](a)
			bits := func(i int) int64 {
				var out int64
				for _, p := range pos {
					out = out<<1 | v[i]>>(n-1-p)&1
				}
				return out
			}
			if id {
				buf, out := allocFixed[int64](ec.mem, a.Len())
				for i := range out {
					out[i] = bits(i)
				}
				return fixedArray(tLong, a.Len(), nil, buf), nil
			}
			buf, out := allocFixed[int8](ec.mem, a.Len())
			for i := range out {
				out[i] = int8(bits(i))
			}
			return fixedArray(tByte, a.Len(), nil, buf), nil
		})
	}}, nil
}

// lExpand emits each input row once per grouping set: the input's columns,
// the keys (NULL where the set leaves them out), the grouping id and, when
// sets repeat, the set's position.
type lExpand struct {
	in    lnode
	keys  []rex
	names []string
	sets  [][]bool
	pos   bool
}

func (n *lExpand) fields() []field {
	out := append([]field(nil), n.in.fields()...)
	for i, k := range n.keys {
		out = append(out, field{n.names[i], k.Type()})
	}
	out = append(out, field{"spark_grouping_id", tLong})
	if n.pos {
		out = append(out, field{"_gen_grouping_pos", tInt})
	}
	return out
}
func (n *lExpand) inputs() []lnode { return []lnode{n.in} }
func (n *lExpand) withInputs(in []lnode) lnode {
	c := *n
	c.in = in[0]
	return &c
}
func (n *lExpand) describe() string {
	sets := make([]string, len(n.sets))
	for i, s := range n.sets {
		var ks []string
		for k, in := range s {
			if in {
				ks = append(ks, n.keys[k].sql())
			}
		}
		sets[i] = "(" + strings.Join(ks, ", ") + ")"
	}
	return "Expand grouping sets " + strings.Join(sets, ", ")
}

// gid is set i's grouping id.
func (n *lExpand) gid(i int) int64 {
	var id int64
	for _, in := range n.sets[i] {
		id <<= 1
		if !in {
			id |= 1
		}
	}
	return id
}

// pruneExpand keeps the input columns needed above and by the keys.
func pruneExpand(x *lExpand, need []bool) (lnode, []int) {
	nin := len(x.in.fields())
	cneed := append([]bool(nil), need[:nin]...)
	for _, k := range x.keys {
		columnsOf(k, cneed)
	}
	in, cm := prune(x.in, cneed)
	c := *x
	c.in = in
	c.keys = make([]rex, len(x.keys))
	for i, k := range x.keys {
		c.keys[i] = rebind(k, cm)
	}
	m := append([]int(nil), cm...)
	kept := len(in.fields())
	for i := nin; i < len(need); i++ {
		m = append(m, kept+i-nin)
	}
	return &c, m
}

func (pp *physPlanner) physExpand(x *lExpand) (*node, error) {
	return pp.unary(x.in, x.keys, func(in *node, keys []*cexpr) *node {
		out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: []*node{in}}
		out.open = func(e *env, ins []op) (op, error) {
			return &expandOp{in: ins[0], x: x, keys: keys, schema: out.schema, e: e}, nil
		}
		return out
	})
}

type expandOp struct {
	in     op
	x      *lExpand
	keys   []*cexpr
	schema *arrow.Schema
	e      *env
	rec    arrow.Record  // the input batch being expanded
	vals   []arrow.Array // its keys
	set    int           // the next set to emit
}

func (o *expandOp) next() (arrow.Record, error) {
	for {
		if o.rec != nil && o.set < len(o.x.sets) {
			out, err := o.emit(o.set)
			o.set++
			return out, err
		}
		o.drop()
		rec, err := o.in.next()
		if rec == nil || err != nil {
			return nil, err
		}
		vals, err := evalAll(o.e, o.keys, rec)
		if err != nil {
			rec.Release()
			return nil, err
		}
		o.rec, o.vals, o.set = rec, vals, 0
	}
}

func (o *expandOp) emit(i int) (arrow.Record, error) {
	n := int(o.rec.NumRows())
	cols := append([]arrow.Array(nil), o.rec.Columns()...)
	var made []arrow.Array
	defer func() { releaseAll(made) }()
	for k, in := range o.x.sets[i] {
		if in {
			cols = append(cols, o.vals[k])
			continue
		}
		a := fn.NullArray(o.e.mem, o.x.keys[k].Type(), n)
		made = append(made, a)
		cols = append(cols, a)
	}
	gid, err := broadcast(o.e.mem, o.x.gid(i), tLong, n)
	if err != nil {
		return nil, err
	}
	made = append(made, gid)
	cols = append(cols, gid)
	if o.x.pos {
		p, err := broadcast(o.e.mem, int32(i), tInt, n)
		if err != nil {
			return nil, err
		}
		made = append(made, p)
		cols = append(cols, p)
	}
	return array.NewRecord(o.schema, cols, int64(n)), nil
}

func (o *expandOp) drop() {
	if o.rec != nil {
		o.rec.Release()
		releaseAll(o.vals)
		o.rec, o.vals = nil, nil
	}
}

func (o *expandOp) close() {
	o.drop()
	o.in.close()
}

// canonicalKey is rexKey with the operands of commutative operators in a
// fixed order, so that a + b and b + a are one grouping key (as Spark's
// semantic equality has it).
func canonicalKey(e rex) string {
	c, _ := mapRex(e, func(x rex) (rex, error) {
		switch y := x.(type) {
		case *rArith:
			if (y.op == "+" || y.op == "*") && rexKey(y.l) > rexKey(y.r) {
				z := *y
				z.l, z.r = y.r, y.l
				return &z, nil
			}
		case *rCmp:
			if (y.op == "=" || y.op == "<=>" || y.op == "!=") && rexKey(y.l) > rexKey(y.r) {
				z := *y
				z.l, z.r = y.r, y.l
				return &z, nil
			}
		case *rLogic:
			if rexKey(y.l) > rexKey(y.r) {
				z := *y
				z.l, z.r = y.r, y.l
				return &z, nil
			}
		}
		return x, nil
	})
	return rexKey(c)
}

// groupingIDColumn is Hive's grouping__id column (the grouping id) of a
// block with grouping sets, or nil.
func (r *exprResolver) groupingIDColumn(x *Column) rex {
	if len(x.Path) != 1 || !strings.EqualFold(x.Path[0], "grouping__id") || r.aggs == nil || r.aggs.grouping == nil {
		return nil
	}
	n := len(r.aggs.grouping.keys)
	g := &rGroupingBits{gid: &rGid{}, n: n, id: true, name: "grouping__id"}
	for k := 0; k < n; k++ {
		g.pos = append(g.pos, k)
	}
	return g
}
