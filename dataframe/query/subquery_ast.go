package query

import "strings"

// Subquery expressions and row constructors as written (see
// docs/sql.md#subqueries).

// ScalarSubquery is `(SELECT …)` used as a value: its one column, NULL
// when it gives no row, an error when it gives more than one.
type ScalarSubquery struct {
	Query Query
	Pos   Pos
}

// Exists is `EXISTS (SELECT …)`: whether the query gives a row (`NOT
// EXISTS` is a Unary NOT over it).
type Exists struct {
	Query Query
	Pos   Pos
}

// InSubquery is `x [NOT] IN (SELECT …)`, or `(a, b) [NOT] IN (SELECT …)`
// with as many values as the query has columns.
type InSubquery struct {
	X     []Expr
	Query Query
	Not   bool
	Pos   Pos
}

// Tuple is a parenthesised list of two or more values, `(a, b AS y)`: the
// left side of a multi-column IN, elsewhere a struct (Spark's
// CreateStruct). Names holds each item's alias ("" for none).
type Tuple struct {
	Items []Expr
	Names []string
	Pos   Pos
}

func (e *ScalarSubquery) Position() Pos { return e.Pos }
func (e *Exists) Position() Pos         { return e.Pos }
func (e *InSubquery) Position() Pos     { return e.Pos }
func (e *Tuple) Position() Pos          { return e.Pos }

func (*ScalarSubquery) expr() {}
func (*Exists) expr()         {}
func (*InSubquery) expr()     {}
func (*Tuple) expr()          {}

func (e *ScalarSubquery) String() string { return "(SELECT …)" }
func (e *Exists) String() string         { return "EXISTS (SELECT …)" }
func (e *InSubquery) String() string {
	x := exprList(e.X)
	if len(e.X) != 1 {
		x = "(" + x + ")"
	}
	return "(" + x + not(e.Not) + " IN (SELECT …))"
}
func (e *Tuple) String() string {
	s := make([]string, len(e.Items))
	for i, x := range e.Items {
		s[i] = x.String()
		if i < len(e.Names) && e.Names[i] != "" {
			s[i] += " AS " + e.Names[i]
		}
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func exprList(xs []Expr) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = x.String()
	}
	return strings.Join(s, ", ")
}

// subqueriesOf lists the queries of the subquery expressions in e (not
// those nested in them).
func subqueriesOf(e Expr) []Query {
	var out []Query
	visit(e, func(x Expr) bool {
		switch s := x.(type) {
		case *ScalarSubquery:
			out = append(out, s.Query)
		case *Exists:
			out = append(out, s.Query)
		case *InSubquery:
			out = append(out, s.Query)
		}
		return true
	})
	return out
}

// exprsOf lists the expressions a query block holds directly (not those of
// its FROM clause's subqueries).
func exprsOf(q Query) []Expr {
	s, ok := q.(*Select)
	if !ok {
		return nil
	}
	var out []Expr
	for _, it := range s.Items {
		out = append(out, it.Expr)
	}
	out = append(out, s.Where, s.Having)
	out = append(out, s.GroupBy...)
	for _, o := range s.OrderBy {
		out = append(out, o.Expr)
	}
	return out
}
