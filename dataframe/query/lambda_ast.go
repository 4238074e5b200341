package query

import "strings"

// Lambda is `x -> body` or `(x, y) -> body`, an argument of a higher-order
// function (transform, filter, aggregate, …; see docs/sql.md#higher-order-functions).
// Inside body its parameters shadow columns of the same name.
type Lambda struct {
	Params []string
	Body   Expr
	Pos    Pos
}

func (e *Lambda) Position() Pos { return e.Pos }
func (*Lambda) expr()           {}
func (e *Lambda) String() string {
	p := strings.Join(e.Params, ", ")
	if len(e.Params) != 1 {
		p = "(" + p + ")"
	}
	return p + " -> " + e.Body.String()
}
