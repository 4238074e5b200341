package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// DefaultSortMemory is the in-memory sort's limit when Options leave it 0.
const DefaultSortMemory = 2 << 30

// Options tune a compiled query.
type Options struct {
	// Mem allocates every result. Defaults to memory.DefaultAllocator.
	Mem memory.Allocator
	// Now is current_timestamp(). Defaults to the time Compile is called.
	Now time.Time
	// SortMemory bounds the bytes a full ORDER BY (without LIMIT) holds.
	// Defaults to DefaultSortMemory.
	SortMemory int64
}

// Plan is a compiled query, ready to run (more than once).
type Plan struct {
	root *node
	opts Options
}

// Schema is the result's schema.
func (p *Plan) Schema() *arrow.Schema { return p.root.schema }

// Explain is the physical plan, one operator a line, inputs indented.
func (p *Plan) Explain() string {
	var b strings.Builder
	p.root.explain(&b, 0)
	return b.String()
}

// Run executes the plan and returns its result as a stream.
func (p *Plan) Run(ctx context.Context) (array.RecordReader, error) {
	e := &env{ctx: ctx, mem: p.opts.Mem, sortLimit: p.opts.SortMemory}
	e.ec = &ectx{mem: e.mem, fctx: &fn.Ctx{Mem: e.mem, Now: p.opts.Now}}
	o, err := p.root.start(e)
	if err != nil {
		return nil, err
	}
	return &opReader{o: o, schema: p.root.schema, refs: 1}, nil
}

// Frame executes the plan and collects its result.
func (p *Plan) Frame(ctx context.Context) (*dataframe.Frame, error) {
	r, err := p.Run(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var recs []arrow.Record
	for r.Next() {
		rec := r.Record()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		for _, rec := range recs {
			rec.Release()
		}
		return nil, err
	}
	f, err := dataframe.New(p.root.schema, recs...)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(p.opts.Mem)
	return f, nil
}

// opReader is an operator seen as an array.RecordReader.
type opReader struct {
	o      op
	schema *arrow.Schema
	cur    arrow.Record
	err    error
	refs   int
	closed bool
}

func (r *opReader) Schema() *arrow.Schema { return r.schema }
func (r *opReader) Retain()               { r.refs++ }
func (r *opReader) Release() {
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if !r.closed {
		r.closed = true
		r.o.close()
	}
}
func (r *opReader) Record() arrow.Record { return r.cur }
func (r *opReader) Err() error           { return r.err }
func (r *opReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.closed {
		return false
	}
	rec, err := r.o.next()
	if err != nil {
		r.err = err
		return false
	}
	if rec == nil {
		return false
	}
	r.cur = rec
	return true
}

// Compile plans q over the tables r resolves.
func Compile(ctx context.Context, q Query, r Resolver, opts Options) (*Plan, error) {
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now().UTC()
	}
	if opts.SortMemory == 0 {
		opts.SortMemory = DefaultSortMemory
	}
	// Plan with every pruning first: the tables' unused columns are not
	// read, the joins' not copied. If that fails, plan again over whole
	// tables: the error then names (and suggests) what they really have.
	first := r
	if cr, ok := r.(ColumnsResolver); ok {
		if need := neededColumns(q); need != nil {
			first = pruning{cr, need}
		}
	}
	p := &planner{ctx: ctx, r: first, now: opts.Now, root: q}
	if root, err := p.query(q, nil); err == nil {
		return &Plan{root: root, opts: opts}, nil
	}
	p = &planner{ctx: ctx, r: r, now: opts.Now}
	root, err := p.query(q, nil)
	if err != nil {
		return nil, err
	}
	return &Plan{root: root, opts: opts}, nil
}

type cteScope struct {
	name  string
	query Query
	outer *cteScope // the CTEs visible to it
	next  *cteScope
}

type planner struct {
	ctx  context.Context
	r    Resolver
	now  time.Time
	root Query // the whole query, for what a join must keep; nil: keep all
}

func (p *planner) compiler(sc *scope) *compiler { return &compiler{sc: sc, now: p.now} }

func (p *planner) query(q Query, ctes *cteScope) (*node, error) {
	switch x := q.(type) {
	case *Select:
		return p.selectBlock(x, withCTEs(x.With, ctes))
	case *SetOp:
		ctes = withCTEs(x.With, ctes)
		l, err := p.query(x.L, ctes)
		if err != nil {
			return nil, err
		}
		r, err := p.query(x.R, ctes)
		if err != nil {
			return nil, err
		}
		n, err := p.union(x, l, r)
		if err != nil {
			return nil, err
		}
		return p.orderLimit(n, n.sc, x.OrderBy, x.Limit, x.Offset, nil, false)
	}
	return nil, errorf(q.Position(), "unknown query %T", q)
}

func withCTEs(with []CTE, outer *cteScope) *cteScope {
	cur := outer
	for _, c := range with {
		cur = &cteScope{name: c.Name, query: c.Query, outer: cur, next: cur}
	}
	return cur
}

func (p *planner) union(x *SetOp, l, r *node) (*node, error) {
	if len(l.sc.cols) != len(r.sc.cols) {
		return nil, errorf(x.Pos, "UNION: the two sides have %d and %d columns", len(l.sc.cols), len(r.sc.cols))
	}
	sc := &scope{}
	for i, c := range l.sc.cols {
		t := commonType([]arrow.DataType{c.typ, r.sc.cols[i].typ})
		if t == nil {
			return nil, errorf(x.Pos, "UNION: column %d is %s on one side and %s on the other", i+1, typeName(c.typ), typeName(r.sc.cols[i].typ))
		}
		sc.cols = append(sc.cols, scol{name: c.name, typ: t})
	}
	label := "Union"
	if x.All {
		label = "UnionAll"
	}
	n := newNode(label, sc, []*node{l, r}, nil)
	n.open = func(e *env, ins []op) (op, error) {
		return &unionOp{ins: ins, schema: n.schema, e: e}, nil
	}
	if x.All {
		return n, nil
	}
	return p.distinct(n), nil
}

// distinct is DISTINCT over every column of n.
func (p *planner) distinct(n *node) *node {
	keys := make([]*cexpr, len(n.sc.cols))
	c := p.compiler(n.sc)
	for i := range n.sc.cols {
		keys[i] = c.column(i, &Column{Path: []string{n.sc.cols[i].name}})
	}
	sc := &scope{cols: append([]scol(nil), n.sc.cols...)}
	out := newNode("Distinct", sc, []*node{n}, nil)
	out.open = func(e *env, ins []op) (op, error) {
		return &aggOp{in: ins[0], keys: keys, schema: out.schema, e: e}, nil
	}
	return out
}

func (p *planner) source(s Source, ctes *cteScope) (*node, error) {
	switch x := s.(type) {
	case *TableRef:
		if len(x.Name) == 1 {
			for c := ctes; c != nil; c = c.next {
				if strings.EqualFold(c.name, x.Name[0]) {
					n, err := p.query(c.query, c.outer)
					if err != nil {
						return nil, err
					}
					return requalify(n, qualsOf(x)), nil
				}
			}
		}
		t, err := p.r.Table(p.ctx, x.Name)
		if err != nil {
			var qe *Error
			if errors.As(err, &qe) && qe.Pos.Line == 0 {
				qe.Pos = x.Pos
			}
			return nil, err
		}
		sc := &scope{}
		quals := qualsOf(x)
		for _, f := range t.Schema().Fields() {
			sc.cols = append(sc.cols, scol{quals: quals, name: f.Name, typ: f.Type})
		}
		name := strings.Join(x.Name, ".")
		n := newNode("Scan "+name, sc, nil, nil)
		schema := t.Schema()
		n.schema = schema
		n.scan = t
		n.open = func(e *env, _ []op) (op, error) {
			r, err := t.Open(e.ctx)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", name, err)
			}
			return &readerOp{r: r, ctx: e.ctx, schema: schema, name: name}, nil
		}
		return n, nil
	case *SubqueryRef:
		n, err := p.query(x.Query, ctes)
		if err != nil {
			return nil, err
		}
		var quals []string
		if x.Alias != "" {
			quals = []string{x.Alias}
		}
		return requalify(n, quals), nil
	case *JoinRef:
		return p.join(x, ctes)
	case *LateralView:
		in, err := p.source(x.Input, ctes)
		if err != nil {
			return nil, err
		}
		return p.lateral(in, x.Gen, x.Outer, x.Alias, x.Columns, x.Pos)
	}
	return nil, errorf(s.Position(), "unknown source %T", s)
}

func qualsOf(x *TableRef) []string {
	if x.Alias != "" {
		return []string{x.Alias}
	}
	quals := []string{x.Name[len(x.Name)-1]}
	if len(x.Name) > 1 {
		quals = append(quals, strings.Join(x.Name, "."))
	}
	return quals
}

// requalify gives n's columns new qualifiers (a subquery's or CTE's alias).
func requalify(n *node, quals []string) *node {
	sc := &scope{}
	for _, c := range n.sc.cols {
		c.quals = quals
		sc.cols = append(sc.cols, c)
	}
	return &node{sc: sc, schema: n.schema, label: n.label, children: n.children, open: n.open}
}

// lateral appends a generator's columns to in's.
func (p *planner) lateral(in *node, gen *Call, outer bool, alias string, names []string, pos Pos) (*node, error) {
	name := strings.ToLower(gen.Name)
	if strings.HasSuffix(name, "_outer") {
		outer, name = true, strings.TrimSuffix(name, "_outer")
	}
	if name != "explode" && name != "posexplode" {
		return nil, unsupported(gen.Pos, "the generator "+gen.Name+" (explode and posexplode are)")
	}
	if len(gen.Args) != 1 {
		return nil, errorf(gen.Pos, "%s takes one argument, got %d", gen.Name, len(gen.Args))
	}
	list, err := p.compiler(in.sc).compile(gen.Args[0])
	if err != nil {
		return nil, err
	}
	lt, ok := list.typ.(*arrow.ListType)
	if !ok {
		if _, isMap := list.typ.(*arrow.MapType); isMap {
			return nil, unsupported(gen.Pos, "explode of a map")
		}
		return nil, errorf(gen.Pos, "%s: the argument is %s, not an array", gen, typeName(list.typ))
	}
	isPos := name == "posexplode"
	want := []string{"col"}
	if isPos {
		want = []string{"pos", "col"}
	}
	if len(names) == 0 {
		names = want
	}
	if len(names) != len(want) {
		return nil, errorf(pos, "%s gives %d column(s), the alias names %d", gen.Name, len(want), len(names))
	}
	sc := &scope{cols: append([]scol(nil), in.sc.cols...)}
	var quals []string
	if alias != "" {
		quals = []string{alias}
	}
	if isPos {
		sc.cols = append(sc.cols, scol{quals: quals, name: names[0], typ: tInt})
	}
	sc.cols = append(sc.cols, scol{quals: quals, name: names[len(names)-1], typ: lt.Elem()})
	label := "Generate " + gen.String()
	if outer {
		label += " OUTER"
	}
	n := newNode(label, sc, []*node{in}, nil)
	n.open = func(e *env, ins []op) (op, error) {
		return &explodeOp{in: ins[0], list: list, outer: outer, pos: isPos, schema: n.schema, e: e}, nil
	}
	return n, nil
}

func (p *planner) join(x *JoinRef, ctes *cteScope) (*node, error) {
	l, err := p.source(x.L, ctes)
	if err != nil {
		return nil, err
	}
	r, err := p.source(x.R, ctes)
	if err != nil {
		return nil, err
	}
	sc := &scope{cols: append(append([]scol(nil), l.sc.cols...), r.sc.cols...)}
	nl := len(l.sc.cols)
	lcols, rcols := allColumns(len(l.sc.cols)), allColumns(len(r.sc.cols))
	var lkeys, rkeys []*cexpr
	var residual Expr
	lc, rc := p.compiler(l.sc), p.compiler(r.sc)
	addKey := func(le, re Expr, pos Pos) error {
		lk, err := lc.compile(le)
		if err != nil {
			return err
		}
		rk, err := rc.compile(re)
		if err != nil {
			return err
		}
		ct := comparisonType(lk.typ, rk.typ)
		if ct == nil {
			return errorf(pos, "join condition: cannot compare %s (%s) with %s (%s)", le, typeName(lk.typ), re, typeName(rk.typ))
		}
		if lk, err = lc.cast(lk, ct, pos, le); err != nil {
			return err
		}
		if rk, err = rc.cast(rk, ct, pos, re); err != nil {
			return err
		}
		lkeys, rkeys = append(lkeys, lk), append(rkeys, rk)
		return nil
	}
	switch {
	case len(x.Using) > 0:
		for _, u := range x.Using {
			col := &Column{Path: []string{u}, Pos: x.Pos}
			if err := addKey(col, col, x.Pos); err != nil {
				return nil, err
			}
			ri, _, _ := r.sc.resolve(col.Path, x.Pos)
			sc.cols[nl+ri].hidden = true
		}
	case x.On != nil:
		for _, conj := range conjuncts(x.On) {
			b, ok := conj.(*Binary)
			if ok && (b.Op == "=" || b.Op == "==") {
				switch {
				case refersOnly(b.L, l.sc) && refersOnly(b.R, r.sc):
					if err := addKey(b.L, b.R, b.Pos); err != nil {
						return nil, err
					}
					continue
				case refersOnly(b.R, l.sc) && refersOnly(b.L, r.sc):
					if err := addKey(b.R, b.L, b.Pos); err != nil {
						return nil, err
					}
					continue
				}
			}
			if residual == nil {
				residual = conj
			} else {
				residual = &Binary{Op: "AND", L: residual, R: conj, Pos: conj.Position()}
			}
		}
	case x.Kind != CrossJoin:
		return nil, errorf(x.Pos, "%s JOIN needs ON or USING", x.Kind)
	}
	if residual == nil && len(x.Using) == 0 {
		// Nothing above uses a column named only in ON (the keys, most
		// often): the join does not build it (see docs/sql.md#performance).
		if need := neededOutside(p.root, x); p.root != nil && need != nil {
			keep := map[string]bool{}
			for _, n := range need {
				keep[n] = true
			}
			sc, lcols, rcols = keepNamed(l.sc, r.sc, keep)
		}
	}
	var res *cexpr
	if residual != nil {
		c := p.compiler(sc)
		c.where = "ON"
		if res, err = c.boolOperand(residual); err != nil {
			return nil, err
		}
	}
	label := fmt.Sprintf("HashJoin %s", x.Kind)
	if len(lkeys) > 0 {
		label += " keys: " + exprList(lkeys) + " = " + exprList(rkeys)
	}
	if residual != nil {
		label += " filter: " + residual.String()
	}
	n := newNode(label, sc, []*node{l, r}, nil)
	if x.Kind == InnerJoin && len(rkeys) > 0 && len(x.Using) == 0 {
		ji := &joinInfo{}
		for range lcols {
			ji.rcols = append(ji.rcols, -1)
		}
		ji.rcols = append(ji.rcols, rcols...)
		n.join = ji
	}
	n.open = func(e *env, ins []op) (op, error) {
		return &joinOp{left: ins[0], right: ins[1], kind: x.Kind, lkeys: lkeys, rkeys: rkeys, residual: res,
			schema: n.schema, rschema: r.schema, lcols: lcols, rcols: rcols, e: e}, nil
	}
	if len(x.Using) == 0 {
		return n, nil
	}
	return p.usingProject(n, x, nl)
}

func allColumns(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// keepNamed is the scope of a join's output with only the columns of l and
// r whose name keep holds (lower-case), and
// their indices on each side. A side keeps at least one column.
func keepNamed(l, r *scope, keep map[string]bool) (*scope, []int, []int) {
	sc := &scope{}
	pick := func(side *scope) []int {
		var idx []int
		for i, c := range side.cols {
			if keep[strings.ToLower(c.name)] {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 && len(side.cols) > 0 {
			idx = []int{0}
		}
		for _, i := range idx {
			sc.cols = append(sc.cols, side.cols[i])
		}
		return idx
	}
	lcols := pick(l)
	rcols := pick(r)
	return sc, lcols, rcols
}

// usingProject puts a USING join's key columns first, once, as Spark does
// (the left's value; the right's for RIGHT; the first non-NULL for FULL).
func (p *planner) usingProject(n *node, x *JoinRef, nl int) (*node, error) {
	c := p.compiler(n.sc)
	var exprs []*cexpr
	sc := &scope{}
	used := map[int]bool{}
	for _, u := range x.Using {
		var li, ri int = -1, -1
		for i, col := range n.sc.cols {
			if strings.EqualFold(col.name, u) {
				if i < nl && li < 0 {
					li = i
				} else if i >= nl && ri < 0 {
					ri = i
				}
			}
		}
		used[li], used[ri] = true, true
		var ce *cexpr
		switch x.Kind {
		case RightJoin:
			ce = c.column(ri, &Column{Path: []string{u}})
		case FullJoin:
			lce, rce := c.column(li, &Column{Path: []string{u}}), c.column(ri, &Column{Path: []string{u}})
			var err error
			if rce, err = c.cast(rce, lce.typ, x.Pos, &Column{Path: []string{u}}); err != nil {
				return nil, err
			}
			ce = &cexpr{typ: lce.typ, src: &Column{Path: []string{u}}, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
				return eval2(ec, rec, lce, rce, func(a, b arrow.Array) (arrow.Array, error) { return coalesce2(ec.mem, a, b) })
			}}
		default:
			ce = c.column(li, &Column{Path: []string{u}})
		}
		exprs = append(exprs, ce)
		quals := append(append([]string(nil), n.sc.cols[li].quals...), n.sc.cols[ri].quals...)
		sc.cols = append(sc.cols, scol{quals: quals, name: n.sc.cols[li].name, typ: ce.typ})
	}
	for i, col := range n.sc.cols {
		if !used[i] {
			exprs = append(exprs, c.column(i, &Column{Path: []string{col.name}}))
			sc.cols = append(sc.cols, col)
		}
	}
	out := newNode("Project (USING "+strings.Join(x.Using, ", ")+")", sc, []*node{n}, nil)
	out.open = func(e *env, ins []op) (op, error) {
		return &projectOp{in: ins[0], exprs: exprs, schema: out.schema, e: e}, nil
	}
	return out, nil
}

// coalesce2 is a where it is not NULL, else b.
func coalesce2(mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	n := a.Len()
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
		if a.IsNull(i) {
			idx[i] += int64(n)
		}
	}
	both, err := concatArrays(mem, a.DataType(), []arrow.Array{a, b})
	if err != nil {
		return nil, err
	}
	defer both.Release()
	return dataframe.Take(mem, both, idx)
}

func conjuncts(e Expr) []Expr {
	if b, ok := e.(*Binary); ok && strings.EqualFold(b.Op, "AND") {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	return []Expr{e}
}

// refersOnly says whether every column of e resolves in sc (and e has at
// least one column and no aggregate).
func refersOnly(e Expr, sc *scope) bool {
	ok, cols := true, 0
	visit(e, func(x Expr) bool {
		if col, isCol := x.(*Column); isCol {
			cols++
			if _, _, err := sc.resolve(col.Path, col.Pos); err != nil {
				ok = false
			}
		}
		return ok
	})
	return ok && cols > 0
}
