package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// node is a physical plan node: its output schema, a line for EXPLAIN, its
// inputs, and how to open it as an operator. The physical planner makes one
// (sometimes a fused one) per logical node.
type node struct {
	schema   *arrow.Schema
	label    string
	children []*node
	open     func(e *env, ins []op) (op, error)
	// join is set on an inner equi-join node: an aggregate right above it
	// whose keys are build-side columns groups the build rows once.
	join *joinInfo
	// scan is set on a table scan: a top-N over a projection of it may read
	// its sort keys first (see lateTopNOp); pick maps a batch of the
	// table to the scan's columns.
	scan Table
	pick func(e *env, rec arrow.Record) arrow.Record
	// project and projectSrc are set on a projection.
	project    []*cexpr
	projectSrc []rex
}

// joinInfo is what an aggregate over a join needs to know of it.
type joinInfo struct {
	rcols []int // per output column: its build column, -1 for a probe column
}

// start opens n and, first, its inputs.
func (n *node) start(e *env) (op, error) {
	ins := make([]op, 0, len(n.children))
	for _, c := range n.children {
		o, err := c.start(e)
		if err != nil {
			for _, in := range ins {
				in.close()
			}
			return nil, err
		}
		ins = append(ins, o)
	}
	o, err := n.open(e, ins)
	if err != nil {
		for _, in := range ins {
			in.close()
		}
		return nil, err
	}
	return o, nil
}

func (n *node) explain(b *strings.Builder, depth int) {
	fmt.Fprintf(b, "%s%s\n", strings.Repeat("  ", depth), n.label)
	for _, c := range n.children {
		c.explain(b, depth+1)
	}
}

func schemaOf(fs []field) *arrow.Schema {
	out := make([]arrow.Field, len(fs))
	for i, f := range fs {
		out[i] = arrow.Field{Name: f.name, Type: f.typ, Nullable: true}
	}
	return arrow.NewSchema(out, nil)
}

// physPlanner builds the operators of a logical plan. plain turns the
// fused operators off (top-N reading its keys first, the aggregate grouping
// a join's build rows): the tests compare both.
type physPlanner struct{ plain bool }

// physical builds the operators of a logical plan.
func physical(n lnode) (*node, error) { return (&physPlanner{}).build(n) }

func (pp *physPlanner) build(n lnode) (*node, error) {
	switch x := n.(type) {
	case *lScan:
		return pp.physScan(x)
	case *lValues:
		return pp.physValues(x)
	case *lRange:
		schema := schemaOf(x.fields())
		return &node{schema: schema, label: x.describe(), open: func(e *env, _ []op) (op, error) {
			return &rangeOp{next_: x.start, step: x.step, left: x.rows(), schema: schema, e: e}, nil
		}}, nil
	case *lFilter:
		return pp.unary(x.in, []rex{x.pred}, func(in *node, c []*cexpr) *node {
			return &node{schema: in.schema, label: x.describe(), children: []*node{in}, open: func(e *env, ins []op) (op, error) {
				return &filterOp{in: ins[0], pred: c[0], e: e}, nil
			}}
		})
	case *lProject:
		return pp.unary(x.in, x.exprs, func(in *node, exprs []*cexpr) *node {
			out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: []*node{in}, project: exprs, projectSrc: x.exprs}
			out.open = func(e *env, ins []op) (op, error) {
				return &projectOp{in: ins[0], exprs: exprs, schema: out.schema, e: e}, nil
			}
			return out
		})
	case *lAggregate:
		return pp.physAggregate(x)
	case *lJoin:
		return pp.physJoin(x)
	case *lWindow:
		return pp.physWindow(x)
	case *lExpand:
		return pp.physExpand(x)
	case *lTopOne:
		return pp.physTopOne(x)
	case *lShared:
		return pp.physShared(x)
	case *lGenerate:
		return pp.unary(x.in, []rex{x.list}, func(in *node, c []*cexpr) *node {
			out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: []*node{in}}
			out.open = func(e *env, ins []op) (op, error) {
				return &explodeOp{in: ins[0], list: c[0], outer: x.outer, pos: x.pos, split: x.split, schema: out.schema, e: e}, nil
			}
			return out
		})
	case *lSort:
		in, err := pp.build(x.in)
		if err != nil {
			return nil, err
		}
		keys := sortKeys(x.keys, in.schema)
		return &node{schema: in.schema, label: x.describe(), children: []*node{in}, open: func(e *env, ins []op) (op, error) {
			return &sortOp{in: ins[0], keys: keys, schema: in.schema, e: e}, nil
		}}, nil
	case *lLimit:
		return pp.physLimit(x)
	case *lDistinct:
		in, err := pp.build(x.in)
		if err != nil {
			return nil, err
		}
		keys := make([]*cexpr, in.schema.NumFields())
		for i, f := range in.schema.Fields() {
			keys[i] = columnExpr(i, f.Type)
		}
		out := &node{schema: in.schema, label: "Distinct", children: []*node{in}}
		out.open = func(e *env, ins []op) (op, error) {
			return &aggOp{in: ins[0], keys: keys, schema: out.schema, e: e}, nil
		}
		return out, nil
	case *lUnion:
		var ins []*node
		for _, c := range x.ins {
			p, err := pp.build(c)
			if err != nil {
				return nil, err
			}
			ins = append(ins, p)
		}
		out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: ins}
		out.open = func(e *env, ins []op) (op, error) {
			return &unionOp{ins: ins, schema: out.schema, e: e}, nil
		}
		return out, nil
	case *lSetOp:
		l, err := pp.build(x.l)
		if err != nil {
			return nil, err
		}
		r, err := pp.build(x.r)
		if err != nil {
			return nil, err
		}
		out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: []*node{l, r}}
		out.open = func(e *env, ins []op) (op, error) {
			return &setOpOp{left: ins[0], right: ins[1], intersect: x.op == "INTERSECT", all: x.all, schema: out.schema, e: e}, nil
		}
		return out, nil
	}
	return nil, fmt.Errorf("query: no operator for %T (a planner bug)", n)
}

// unary builds a node over one input: the input's operators, then the
// node mk makes with exprs compiled over the input.
func (pp *physPlanner) unary(child lnode, exprs []rex, mk func(in *node, compiled []*cexpr) *node) (*node, error) {
	in, err := pp.build(child)
	if err != nil {
		return nil, err
	}
	c, err := compileAll(exprs)
	if err != nil {
		return nil, err
	}
	return mk(in, c), nil
}

func sortKeys(specs []sortSpec, schema *arrow.Schema) []sortKey {
	keys := make([]sortKey, len(specs))
	for i, k := range specs {
		keys[i] = sortKey{x: columnExpr(k.col, schema.Field(k.col).Type), desc: k.desc, nullsFirst: k.nullsFirst}
	}
	return keys
}

// physScan reads a table and picks the scan's columns by name (a table
// read under a scan.Request may give more columns than asked, in its own
// order).
func (pp *physPlanner) physScan(x *lScan) (*node, error) {
	t := x.table
	ts := t.Schema()
	want := x.fields()
	sel := make([]int, len(want))
	identity := len(want) == ts.NumFields()
	fields := make([]arrow.Field, len(want))
	for i, f := range want {
		sel[i] = -1
		for j, tf := range ts.Fields() {
			if tf.Name == f.name {
				sel[i] = j
				break
			}
		}
		if sel[i] < 0 {
			for j, tf := range ts.Fields() {
				if strings.EqualFold(tf.Name, f.name) {
					sel[i] = j
					break
				}
			}
		}
		if sel[i] < 0 {
			return nil, fmt.Errorf("table %s: the read has no column %s (it has %s)", x.name, f.name, strings.Join(fieldNamesOf(ts), ", "))
		}
		fields[i] = ts.Field(sel[i])
		identity = identity && sel[i] == i
	}
	schema := ts
	var pick func(e *env, rec arrow.Record) arrow.Record
	if !identity {
		schema = arrow.NewSchema(fields, nil)
		pick = func(_ *env, rec arrow.Record) arrow.Record {
			cols := make([]arrow.Array, len(sel))
			for i, j := range sel {
				cols[i] = rec.Column(j)
			}
			return array.NewRecord(schema, cols, rec.NumRows())
		}
	}
	name := x.name
	n := &node{schema: schema, label: x.describe(), scan: t, pick: pick}
	n.open = func(e *env, _ []op) (op, error) {
		r, err := t.Open(e.ctx)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		return &readerOp{r: r, ctx: e.ctx, schema: ts, name: name, pick: pick, e: e}, nil
	}
	return n, nil
}

func fieldNamesOf(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

// physValues builds an inline table's one batch when it runs.
func (pp *physPlanner) physValues(x *lValues) (*node, error) {
	schema := schemaOf(x.fields())
	rows := make([][]*cexpr, len(x.rows))
	for i, row := range x.rows {
		var err error
		if rows[i], err = compileAll(row); err != nil {
			return nil, err
		}
	}
	return &node{schema: schema, label: x.describe(), open: func(e *env, _ []op) (op, error) {
		if len(x.out) == 0 {
			return &valuesOp{rec: array.NewRecord(schema, nil, int64(len(rows)))}, nil
		}
		one := array.NewRecord(oneRow, nil, 1)
		defer one.Release()
		cols := make([]arrow.Array, len(x.out))
		defer func() { releaseAll(nonNil(cols)) }()
		for j, f := range x.out {
			parts := make([]arrow.Array, 0, len(rows))
			for _, row := range rows {
				a, err := row[j].eval(e.ec, one)
				if err != nil {
					releaseAll(parts)
					return nil, err
				}
				parts = append(parts, a)
			}
			c, err := concatArrays(e.mem, f.typ, parts)
			releaseAll(parts)
			if err != nil {
				return nil, err
			}
			cols[j] = c
		}
		return &valuesOp{rec: array.NewRecord(schema, cols, int64(len(rows)))}, nil
	}}, nil
}

func nonNil(as []arrow.Array) []arrow.Array {
	out := as[:0:0]
	for _, a := range as {
		if a != nil {
			out = append(out, a)
		}
	}
	return out
}

func (pp *physPlanner) physAggregate(x *lAggregate) (*node, error) {
	in, err := pp.build(x.in)
	if err != nil {
		return nil, err
	}
	keys, err := compileAll(x.keys)
	if err != nil {
		return nil, err
	}
	args := make([][]*cexpr, len(x.aggs))
	for i, a := range x.aggs {
		if args[i], err = compileAll(a.args); err != nil {
			return nil, err
		}
	}
	label := x.describe()
	var buildKeys []int
	var read []bool // the input columns the aggregates read
	if !pp.plain {
		buildKeys = buildKeyColumns(in, keys)
		read = make([]bool, in.schema.NumFields())
		for _, a := range x.aggs {
			for _, e := range a.args {
				walkRex(e, func(r rex) bool {
					if c, ok := r.(*rCol); ok && c.idx < len(read) {
						read[c.idx] = true
					}
					return true
				})
			}
		}
	}
	if buildKeys != nil {
		label += " (grouped by build row)"
	}
	out := &node{schema: schemaOf(x.fields()), label: label, children: []*node{in}}
	out.open = func(e *env, ins []op) (op, error) {
		o := &aggOp{in: ins[0], keys: keys, aggs: x.aggs, args: args, schema: out.schema, e: e}
		if j, ok := ins[0].(*joinOp); ok && buildKeys != nil {
			o.join, o.buildKeys = j, buildKeys
			j.keepRows = true
			if j.residual == nil {
				// The join's columns nothing above reads (the group keys,
				// grouped by build row) need not be copied per row.
				j.unread = make([]bool, len(read))
				for c, r := range read {
					j.unread[c] = !r
				}
			}
		}
		return o, nil
	}
	return out, nil
}

// buildKeyColumns returns the build-side columns of the inner join in that
// the group keys are, each a column as is, or nil when they are not: the
// aggregate then groups the build rows once, and every joined row by its
// build row (see docs/sql.md#performance).
func buildKeyColumns(in *node, keys []*cexpr) []int {
	if in.join == nil || len(keys) == 0 {
		return nil
	}
	out := make([]int, len(keys))
	for i, k := range keys {
		if k.col == 0 || in.join.rcols[k.col-1] < 0 {
			return nil
		}
		out[i] = in.join.rcols[k.col-1]
	}
	return out
}

func keepOrAll(keep []int, n int) []int {
	if keep != nil {
		return keep
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (pp *physPlanner) physJoin(x *lJoin) (*node, error) {
	l, err := pp.build(x.l)
	if err != nil {
		return nil, err
	}
	r, err := pp.build(x.r)
	if err != nil {
		return nil, err
	}
	lkeys, err := compileAll(x.lkeys)
	if err != nil {
		return nil, err
	}
	rkeys, err := compileAll(x.rkeys)
	if err != nil {
		return nil, err
	}
	lcols := keepOrAll(x.lkeep, l.schema.NumFields())
	rcols := keepOrAll(x.rkeep, r.schema.NumFields())
	// The pairs a join forms are l's kept columns then r's; cond is over
	// them.
	schema := schemaOf(x.fields())
	pairSchema := schema
	if x.kind == SemiJoin || x.kind == AntiJoin {
		var pf []field
		lf, rf := x.l.fields(), x.r.fields()
		for _, c := range lcols {
			pf = append(pf, lf[c])
		}
		for _, c := range rcols {
			pf = append(pf, rf[c])
		}
		pairSchema = schemaOf(pf)
	}
	var cond *cexpr
	if x.cond != nil {
		if cond, err = compile(x.cond); err != nil {
			return nil, err
		}
	}
	out := &node{schema: schema, label: x.describe(), children: []*node{l, r}}
	if x.kind == InnerJoin && len(rkeys) > 0 {
		ji := &joinInfo{}
		for range lcols {
			ji.rcols = append(ji.rcols, -1)
		}
		ji.rcols = append(ji.rcols, rcols...)
		out.join = ji
	}
	out.open = func(e *env, ins []op) (op, error) {
		return &joinOp{left: ins[0], right: ins[1], kind: x.kind, lkeys: lkeys, rkeys: rkeys, residual: cond,
			schema: schema, pairSchema: pairSchema, rschema: r.schema, lcols: lcols, rcols: rcols, e: e}, nil
	}
	return out, nil
}

// physLimit is LIMIT, or a top-N over a sort (reading the sort keys first
// when the sort is over a projection of a LateTable).
func (pp *physPlanner) physLimit(x *lLimit) (*node, error) {
	lim, off := x.n, x.offset
	label := x.describe()
	sortNode, isSort := x.in.(*lSort)
	if !isSort || lim < 0 {
		in, err := pp.build(x.in)
		if err != nil {
			return nil, err
		}
		return &node{schema: in.schema, label: label, children: []*node{in}, open: func(e *env, ins []op) (op, error) {
			return &limitOp{in: ins[0], n: lim, offset: off}, nil
		}}, nil
	}
	in, err := pp.build(sortNode.in)
	if err != nil {
		return nil, err
	}
	keys := sortKeys(sortNode.keys, in.schema)
	top := lim + off
	topNode := &node{schema: in.schema, label: fmt.Sprintf("TopN %d by %s", top, sortText(sortNode.keys, sortNode.in.fields())), children: []*node{in}}
	var late []string
	if !pp.plain {
		late = lateColumns(in, keys)
	}
	if late != nil {
		topNode.label += " (sort keys first)"
	}
	topNode.open = func(e *env, ins []op) (op, error) {
		t := &topNOp{in: ins[0], keys: keys, n: top, schema: in.schema, e: e}
		if late != nil {
			scan, exprs, _ := lateInput(in)
			return &lateTopNOp{in: ins[0], topN: t, scan: scan, exprs: exprs, need: late}, nil
		}
		return t, nil
	}
	return &node{schema: in.schema, label: label, children: []*node{topNode}, open: func(e *env, ins []op) (op, error) {
		return &limitOp{in: ins[0], n: lim, offset: off}, nil
	}}, nil
}
