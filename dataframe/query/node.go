package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// node is a plan node: its output columns (with the qualifiers names may
// use), a line for EXPLAIN, its inputs, and how to open it as an operator.
type node struct {
	sc       *scope
	schema   *arrow.Schema
	label    string
	children []*node
	open     func(e *env, ins []op) (op, error)
	// join is set on an inner equi-join node: an aggregate right above it
	// whose keys are build-side columns groups the build rows once.
	join *joinInfo
	// scan is set on a table scan, project on a projection: a top-N over
	// them may read its sort keys first (see lateTopNOp).
	scan    Table
	project []*cexpr
}

// joinInfo is what an aggregate over a join needs to know of it.
type joinInfo struct {
	rcols []int // per output column: its build column, -1 for a probe column
}

func newNode(label string, sc *scope, children []*node, open func(e *env, ins []op) (op, error)) *node {
	fields := make([]arrow.Field, len(sc.cols))
	for i, c := range sc.cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	return &node{sc: sc, schema: arrow.NewSchema(fields, nil), label: label, children: children, open: open}
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

func exprList(xs []*cexpr) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = srcText(x)
	}
	return strings.Join(s, ", ")
}

// srcText is the SQL text a compiled expression came from.
func srcText(x *cexpr) string {
	if x.src == nil {
		return "?"
	}
	return x.src.String()
}
