package sqlparse

import (
	"fmt"
	"strconv"

	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// param binds the ? at t to the next value passed with the text: a copy of
// that literal, placed at the ?.
func (p *parser) param(t Token) (*query.Literal, error) {
	p.nparams++
	if p.nparams > len(p.params) {
		return nil, p.errorf(t.Pos, "parameter %d (?) has no value: %s given", p.nparams, plural(len(p.params), "argument"))
	}
	lit := *p.params[p.nparams-1]
	lit.Pos = t.Pos
	return &lit, nil
}

// valuesParam is a ? in a VALUES row.
func (p *parser) valuesParam(t Token) (*Literal, error) {
	ql, err := p.param(t)
	if err != nil {
		return nil, err
	}
	v := ql.Value
	switch x := v.(type) {
	case int8:
		v = int64(x)
	case int16:
		v = int64(x)
	case int32:
		v = int64(x)
	case float32:
		v = float64(x)
	}
	return &Literal{Value: v, Raw: ql.Raw, Pos: t.Pos, Param: ql}, nil
}

// textParam is a ? whose value is text (a property value, LOCATION): a
// string, or a boolean or integer in its SQL spelling.
func (p *parser) textParam(t Token, what string) (string, error) {
	ql, err := p.param(t)
	if err != nil {
		return "", err
	}
	switch v := ql.Value.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case int8, int16, int32, int64:
		return fmt.Sprint(v), nil
	}
	return "", p.errorf(t.Pos, "parameter %d (?) for %s: want a string, a boolean or an integer, found a %s value", p.nparams, what, typeName(ql))
}

func typeName(l *query.Literal) string {
	if l.Type == nil || l.Value == nil {
		return "NULL"
	}
	return sparktype.Name(l.Type)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
