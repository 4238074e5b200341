package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// The logical plan: what a query computes, as a tree of relational
// operators over resolved expressions (rex). The analyser builds it, the
// rewrites (rewrite.go) reshape it, the physical planner (physical.go)
// turns each node into an operator.
//
// A new operator (a window, an expand for grouping sets, a semi join for
// IN (subquery)) is a new lnode type: the analyser creates it, the rewrites
// treat an unknown node as a barrier (nothing is pushed through it, every
// column it reads is kept), and the physical planner needs one case for
// it.
type lnode interface {
	// fields are the output columns.
	fields() []field
	// inputs are the child plans.
	inputs() []lnode
	// withInputs is a copy over new children (same number and order).
	withInputs(ins []lnode) lnode
	// describe is the node's line in EXPLAIN.
	describe() string
}

// field is an output column of a plan node.
type field struct {
	name string
	typ  arrow.DataType
}

// lScan reads a table. cols picks and orders the table's columns the scan
// outputs (nil: all, as the table gives them).
type lScan struct {
	name  string // as the query names it, for EXPLAIN and errors
	path  []string
	table Table
	out   []field // the table's schema
	cols  []int
	// Set by the pushdown rewrite for a ScanResolver: the request the
	// table was read with and what it applied of it.
	req     *scan.Request
	applied scan.Applied
}

// lValues is rows of constant expressions (an inline table; one row
// without columns for a SELECT without FROM), evaluated when it runs.
type lValues struct {
	out  []field
	rows [][]rex
}

// lRange is range(start, end, step): the bigints from start (inclusive)
// to end (exclusive) by step, as a column id.
type lRange struct {
	start, end, step int64
	name             string
}

func (n *lRange) fields() []field          { return []field{{n.name, tLong}} }
func (n *lRange) inputs() []lnode          { return nil }
func (n *lRange) withInputs([]lnode) lnode { c := *n; return &c }
func (n *lRange) describe() string {
	return fmt.Sprintf("Range (%d, %d, step %d)", n.start, n.end, n.step)
}
func (n *lRange) rows() int64 {
	if n.step > 0 && n.end > n.start {
		return (n.end - n.start + n.step - 1) / n.step
	}
	if n.step < 0 && n.end < n.start {
		return (n.start - n.end - n.step - 1) / -n.step
	}
	return 0
}

// lFilter keeps the rows where pred is true.
type lFilter struct {
	in   lnode
	pred rex
}

// lProject computes one column per expression.
type lProject struct {
	in    lnode
	exprs []rex
	names []string
}

// lAggregate groups its input by keys and computes aggs per group: its
// output is the keys, then one column per aggregate. Without keys it is
// one group, also over no rows.
type lAggregate struct {
	in    lnode
	keys  []rex
	names []string // the keys' names
	aggs  []*aggCall
}

// lJoin pairs the rows of l and r whose keys are equal (never on NULL) and
// for which cond, when set (over l's columns then r's), is true. Its output
// is l's columns then r's (a semi or anti join: l's only); lkeep and rkeep,
// when not nil, keep only those columns of each side (pruning).
type lJoin struct {
	l, r         lnode
	kind         JoinKind
	lkeys, rkeys []rex
	cond         rex
	lkeep, rkeep []int
}

// lGenerate adds one row per element of the array list (explode), with
// the element (and, for posexplode, its position) after the input's
// columns.
type lGenerate struct {
	in    lnode
	list  rex
	outer bool
	pos   bool
	split bool    // the elements are structs (a map's entries, inline's rows): a column per field
	out   []field // the added columns
	label string
}

// lSort orders its input by columns of it.
type lSort struct {
	in   lnode
	keys []sortSpec
}

// sortSpec is one ORDER BY key: a column of the sort's input.
type sortSpec struct {
	col        int
	desc       bool
	nullsFirst bool
}

// lLimit skips offset rows then keeps n (n < 0: all).
type lLimit struct {
	in        lnode
	n, offset int64
}

// lDistinct removes duplicate rows (NULLs equal).
type lDistinct struct{ in lnode }

// lUnion is UNION ALL of inputs whose columns have the same types.
type lUnion struct {
	ins   []lnode
	names []string
}

// lSetOp is INTERSECT or EXCEPT [ALL] of two inputs of the same types.
type lSetOp struct {
	l, r  lnode
	op    string // INTERSECT or EXCEPT
	all   bool
	names []string
}

func fieldsOf(names []string, exprs []rex) []field {
	out := make([]field, len(exprs))
	for i, x := range exprs {
		out[i] = field{names[i], x.Type()}
	}
	return out
}

func (n *lScan) fields() []field {
	if n.cols == nil {
		return n.out
	}
	out := make([]field, len(n.cols))
	for i, c := range n.cols {
		out[i] = n.out[c]
	}
	return out
}
func (n *lValues) fields() []field  { return n.out }
func (n *lFilter) fields() []field  { return n.in.fields() }
func (n *lProject) fields() []field { return fieldsOf(n.names, n.exprs) }
func (n *lAggregate) fields() []field {
	out := fieldsOf(n.names, n.keys)
	for _, a := range n.aggs {
		out = append(out, field{a.name, a.typ})
	}
	return out
}
func (n *lJoin) fields() []field {
	pick := func(fs []field, keep []int) []field {
		if keep == nil {
			return fs
		}
		out := make([]field, len(keep))
		for i, k := range keep {
			out[i] = fs[k]
		}
		return out
	}
	out := pick(n.l.fields(), n.lkeep)
	if n.kind == SemiJoin || n.kind == AntiJoin {
		return out
	}
	return append(append([]field(nil), out...), pick(n.r.fields(), n.rkeep)...)
}
func (n *lGenerate) fields() []field {
	return append(append([]field(nil), n.in.fields()...), n.out...)
}
func (n *lSort) fields() []field     { return n.in.fields() }
func (n *lLimit) fields() []field    { return n.in.fields() }
func (n *lDistinct) fields() []field { return n.in.fields() }
func (n *lUnion) fields() []field {
	in := n.ins[0].fields()
	out := make([]field, len(in))
	for i, f := range in {
		out[i] = field{n.names[i], f.typ}
	}
	return out
}
func (n *lSetOp) fields() []field {
	in := n.l.fields()
	out := make([]field, len(in))
	for i, f := range in {
		out[i] = field{n.names[i], f.typ}
	}
	return out
}

func (n *lScan) inputs() []lnode      { return nil }
func (n *lValues) inputs() []lnode    { return nil }
func (n *lFilter) inputs() []lnode    { return []lnode{n.in} }
func (n *lProject) inputs() []lnode   { return []lnode{n.in} }
func (n *lAggregate) inputs() []lnode { return []lnode{n.in} }
func (n *lJoin) inputs() []lnode      { return []lnode{n.l, n.r} }
func (n *lGenerate) inputs() []lnode  { return []lnode{n.in} }
func (n *lSort) inputs() []lnode      { return []lnode{n.in} }
func (n *lLimit) inputs() []lnode     { return []lnode{n.in} }
func (n *lDistinct) inputs() []lnode  { return []lnode{n.in} }
func (n *lUnion) inputs() []lnode     { return n.ins }
func (n *lSetOp) inputs() []lnode     { return []lnode{n.l, n.r} }

func (n *lScan) withInputs([]lnode) lnode { c := *n; return &c }
func (n *lValues) withInputs([]lnode) lnode {
	c := *n
	return &c
}
func (n *lFilter) withInputs(in []lnode) lnode { c := *n; c.in = in[0]; return &c }
func (n *lProject) withInputs(in []lnode) lnode {
	c := *n
	c.in = in[0]
	return &c
}
func (n *lAggregate) withInputs(in []lnode) lnode {
	c := *n
	c.in = in[0]
	return &c
}
func (n *lJoin) withInputs(in []lnode) lnode {
	c := *n
	c.l, c.r = in[0], in[1]
	return &c
}
func (n *lGenerate) withInputs(in []lnode) lnode {
	c := *n
	c.in = in[0]
	return &c
}
func (n *lSort) withInputs(in []lnode) lnode     { c := *n; c.in = in[0]; return &c }
func (n *lLimit) withInputs(in []lnode) lnode    { c := *n; c.in = in[0]; return &c }
func (n *lDistinct) withInputs(in []lnode) lnode { return &lDistinct{in: in[0]} }
func (n *lUnion) withInputs(in []lnode) lnode {
	c := *n
	c.ins = append([]lnode(nil), in...)
	return &c
}
func (n *lSetOp) withInputs(in []lnode) lnode {
	c := *n
	c.l, c.r = in[0], in[1]
	return &c
}

func (n *lScan) describe() string {
	s := "Scan " + n.name
	if n.cols != nil && len(n.cols) < len(n.out) {
		names := make([]string, len(n.cols))
		for i, c := range n.cols {
			names[i] = n.out[c].name
		}
		s += " [" + strings.Join(names, ", ") + "]"
	}
	if n.req != nil {
		var parts []string
		for i, f := range n.req.Filters {
			mark := ""
			if i < len(n.applied.Filters) && n.applied.Filters[i] {
				mark = " (applied)"
			}
			parts = append(parts, f.String()+mark)
		}
		if len(parts) > 0 {
			s += " pushed: " + strings.Join(parts, " AND ")
		}
		if len(n.req.Order) > 0 {
			keys := make([]string, len(n.req.Order))
			for i, k := range n.req.Order {
				keys[i] = k.String()
			}
			s += " order: " + strings.Join(keys, ", ")
			if n.applied.Order {
				s += " (applied)"
			}
		}
		if n.req.Limit > 0 {
			s += fmt.Sprintf(" limit %d", n.req.Limit)
			if n.applied.Limit {
				s += " (applied)"
			}
		}
	}
	return s
}
func (n *lValues) describe() string {
	if len(n.out) == 0 && len(n.rows) == 1 {
		return "OneRow"
	}
	return fmt.Sprintf("Values %d rows", len(n.rows))
}
func (n *lFilter) describe() string  { return "Filter " + n.pred.sql() }
func (n *lProject) describe() string { return "Project " + sqlList(n.exprs) }
func (n *lAggregate) describe() string {
	s := "HashAggregate"
	if len(n.keys) > 0 {
		s += " keys: " + sqlList(n.keys)
	}
	if len(n.aggs) > 0 {
		names := make([]string, len(n.aggs))
		for i, a := range n.aggs {
			names[i] = a.name
		}
		s += " aggregates: " + strings.Join(names, ", ")
	}
	return s
}
func (n *lJoin) describe() string {
	s := "HashJoin " + string(n.kind)
	if len(n.lkeys) > 0 {
		s += " keys: " + sqlList(n.lkeys) + " = " + sqlList(n.rkeys)
	}
	if n.cond != nil {
		s += " filter: " + n.cond.sql()
	}
	return s
}
func (n *lGenerate) describe() string {
	s := "Generate " + n.label
	if n.outer {
		s += " OUTER"
	}
	return s
}
func (n *lSort) describe() string { return "Sort by " + sortText(n.keys, n.in.fields()) }
func (n *lLimit) describe() string {
	s := fmt.Sprintf("Limit %d", n.n)
	if n.offset > 0 {
		s += fmt.Sprintf(" offset %d", n.offset)
	}
	return s
}
func (n *lDistinct) describe() string { return "Distinct" }
func (n *lUnion) describe() string    { return "UnionAll" }
func (n *lSetOp) describe() string {
	s := strings.ToUpper(n.op[:1]) + strings.ToLower(n.op[1:])
	if n.all {
		s += "All"
	}
	return s
}

func sortText(keys []sortSpec, in []field) string {
	desc := make([]string, len(keys))
	for i, k := range keys {
		desc[i] = in[k.col].name
		if k.desc {
			desc[i] += " DESC"
		}
		if k.nullsFirst {
			desc[i] += " NULLS FIRST"
		} else {
			desc[i] += " NULLS LAST"
		}
	}
	return strings.Join(desc, ", ")
}

// explainLogical renders a plan, one node a line, inputs indented.
func explainLogical(n lnode, b *strings.Builder, depth int) {
	fmt.Fprintf(b, "%s%s\n", strings.Repeat("  ", depth), n.describe())
	for _, in := range n.inputs() {
		explainLogical(in, b, depth+1)
	}
}
