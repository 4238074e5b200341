package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Lambda functions, as arguments of higher-order functions (hof.go): each
// parameter is an rLambdaVar, a regular resolved expression whose values
// are the array elements (or map keys and values, or the accumulator) the
// function binds it to. A lambda's body is a regular rex too: it is
// compiled once and evaluated once per batch over all the bound values at
// once (see docs/sql.md#higher-order-functions).

// rLambdaVar is a lambda parameter (Spark's NamedLambdaVariable).
type rLambdaVar struct {
	name string
	t    arrow.DataType
	id   int64
	// src and i are the lambda as written and the parameter's place: two
	// analyses of one lambda compute the same (GROUP BY 1 and its item).
	src *Lambda
	i   int
}

// rLambda is `(x, y) -> body` bound to its parameters' types.
type rLambda struct {
	params []*rLambdaVar
	body   rex
}

func (e *rLambdaVar) Type() arrow.DataType { return e.t }

// sql is Spark's pretty name of a lambda variable.
func (e *rLambdaVar) sql() string    { return "namedlambdavariable()" }
func (e *rLambdaVar) kids() []rex    { return nil }
func (e *rLambdaVar) with([]rex) rex { return e }
func (e *rLambdaVar) key() string {
	if e.src != nil {
		return fmt.Sprintf("lambda<%p,%d>", e.src, e.i)
	}
	return fmt.Sprintf("lambda#%d", e.id)
}

func (e *rLambda) Type() arrow.DataType { return e.body.Type() }
func (e *rLambda) sql() string {
	s := "lambdafunction(" + e.body.sql()
	for _, p := range e.params {
		s += ", " + p.sql()
	}
	return s + ")"
}
func (e *rLambda) kids() []rex { return []rex{e.body} }
func (e *rLambda) with(k []rex) rex {
	c := *e
	c.body = k[0]
	return &c
}
func (e *rLambda) key() string {
	s := "lambda("
	for _, p := range e.params {
		s += p.key() + ","
	}
	return s + ")"
}

// lambdaScope is the lambda variables visible in a body, innermost first.
type lambdaScope struct {
	v    *rLambdaVar
	next *lambdaScope
}

// lambdaVar resolves a name that is a lambda variable (they shadow
// columns), with the struct fields after it.
func (r *exprResolver) lambdaVar(x *Column) (rex, bool, error) {
	for s := r.lambdas; s != nil; s = s.next {
		if !strings.EqualFold(s.v.name, x.Path[0]) {
			continue
		}
		var e rex = s.v
		for k, f := range x.Path[1:] {
			var err error
			if e, err = r.field(e, f, x.Pos, &Column{Path: x.Path[:k+1], Pos: x.Pos}); err != nil {
				return nil, true, err
			}
		}
		return e, true, nil
	}
	return nil, false, nil
}
