package query

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
)

// rHOF is a higher-order function call: transform, filter, aggregate, …
// over arrays or maps, with lambda arguments (see hof.go's hofs).
type rHOF struct {
	name string
	args []rex
	t    arrow.DataType
}

func (e *rHOF) Type() arrow.DataType { return e.t }
func (e *rHOF) sql() string          { return e.name + "(" + sqlList(e.args) + ")" }
func (e *rHOF) kids() []rex          { return e.args }
func (e *rHOF) with(k []rex) rex {
	c := *e
	c.args = append([]rex(nil), k...)
	return &c
}

func compileHOF(x *rHOF) (*cexpr, error) {
	return nil, fmt.Errorf("query: %s is not implemented", x.name)
}
