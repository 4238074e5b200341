package query

import "strings"

// The syntax of window functions and grouping analytics (docs/sql.md#window-functions,
// docs/sql.md#grouping-sets).

// WindowSpec is the window of `f(…) OVER (…)` or of `WINDOW w AS (…)`.
// Ref names a window of the WINDOW clause that this one is (`OVER w`) or
// extends (`OVER (w ORDER BY x)`: Ref's partitioning, this ordering).
type WindowSpec struct {
	Ref         string
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       *WindowFrame // nil: the function's default frame
	Pos         Pos
}

// WindowFrame is `ROWS|RANGE BETWEEN start AND end` (or `ROWS|RANGE start`,
// whose end is CURRENT ROW).
type WindowFrame struct {
	Rows       bool // ROWS; false: RANGE
	Start, End FrameBound
	Pos        Pos
}

// Frame bound kinds.
const (
	UnboundedPreceding = "UNBOUNDED PRECEDING"
	Preceding          = "PRECEDING"
	CurrentRow         = "CURRENT ROW"
	Following          = "FOLLOWING"
	UnboundedFollowing = "UNBOUNDED FOLLOWING"
)

// FrameBound is one end of a window frame: a Kind, with an Offset (a
// constant) for PRECEDING and FOLLOWING.
type FrameBound struct {
	Kind   string
	Offset Expr
	Pos    Pos
}

// NamedWindow is one `name AS (spec)` of a WINDOW clause.
type NamedWindow struct {
	Name string
	Spec *WindowSpec
	Pos  Pos
}

// GroupingSets is ROLLUP (…), CUBE (…) or GROUPING SETS (…) among the GROUP
// BY items (also `GROUP BY a, b WITH ROLLUP`). Each set is a list of
// expressions (a parenthesised list, or one expression); inside GROUPING
// SETS a set may also be one nested ROLLUP or CUBE. Exprs is the expression
// list of the Hive form `GROUP BY a, b GROUPING SETS ((a), (b))`, which
// fixes the order of grouping_id()'s bits.
type GroupingSets struct {
	Kind  string // ROLLUP, CUBE or GROUPING SETS
	Sets  [][]Expr
	Exprs []Expr
	Pos   Pos
}

func (e *GroupingSets) Position() Pos { return e.Pos }
func (*GroupingSets) expr()           {}
func (e *GroupingSets) String() string {
	sets := make([]string, len(e.Sets))
	for i, s := range e.Sets {
		parts := make([]string, len(s))
		for k, x := range s {
			parts[k] = x.String()
		}
		sets[i] = "(" + strings.Join(parts, ", ") + ")"
	}
	return e.Kind + "(" + strings.Join(sets, ", ") + ")"
}

func (w *WindowSpec) String() string {
	var parts []string
	if w.Ref != "" {
		parts = append(parts, w.Ref)
	}
	if len(w.PartitionBy) > 0 {
		ps := make([]string, len(w.PartitionBy))
		for i, p := range w.PartitionBy {
			ps[i] = p.String()
		}
		parts = append(parts, "PARTITION BY "+strings.Join(ps, ", "))
	}
	if len(w.OrderBy) > 0 {
		parts = append(parts, "ORDER BY "+orderItemsText(w.OrderBy))
	}
	if f := w.Frame; f != nil {
		kind := "RANGE"
		if f.Rows {
			kind = "ROWS"
		}
		parts = append(parts, kind+" BETWEEN "+f.Start.String()+" AND "+f.End.String())
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func (b FrameBound) String() string {
	if b.Offset != nil {
		return b.Offset.String() + " " + b.Kind
	}
	return b.Kind
}

// orderItemsText is ORDER BY keys as written.
func orderItemsText(items []OrderItem) string {
	os := make([]string, len(items))
	for i, o := range items {
		os[i] = o.Expr.String()
		if o.Desc {
			os[i] += " DESC"
		}
	}
	return strings.Join(os, ", ")
}

// callSuffix is what follows a call's argument list as written.
func callSuffix(e *Call) string {
	s := ""
	if len(e.WithinGroup) > 0 {
		s += " WITHIN GROUP (ORDER BY " + orderItemsText(e.WithinGroup) + ")"
	}
	if e.Filter != nil {
		s += " FILTER (WHERE " + e.Filter.String() + ")"
	}
	if e.Nulls != "" {
		s += " " + e.Nulls + " NULLS"
	}
	if e.Over != nil {
		s += " OVER " + e.Over.String()
	}
	return s
}

// visitCallParts visits what a call has besides its arguments.
func visitCallParts(x *Call, f func(Expr) bool) {
	for _, o := range x.WithinGroup {
		visit(o.Expr, f)
	}
	visit(x.Filter, f)
	if x.Over != nil {
		visitWindow(x.Over, f)
	}
}

func visitWindow(w *WindowSpec, f func(Expr) bool) {
	for _, p := range w.PartitionBy {
		visit(p, f)
	}
	for _, o := range w.OrderBy {
		visit(o.Expr, f)
	}
}

func visitGroupingSets(g *GroupingSets, f func(Expr) bool) {
	for _, s := range g.Sets {
		for _, x := range s {
			visit(x, f)
		}
	}
	for _, x := range g.Exprs {
		visit(x, f)
	}
}
