package sql

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Row is what a WHERE predicate reads: a column or dotted nested path's
// value as a Go value (nil, string, int64, int32, float64, bool, time.Time,
// []byte, []any, map[string]any). *dataframe.Row implements it.
type Row interface {
	Get(path string) (any, error)
}

// Predicate decides whether a row passes a WHERE clause: only TRUE passes;
// FALSE and UNKNOWN (NULL) do not.
type Predicate func(r Row) (bool, error)

// truth is SQL's three-valued logic value.
type truth int8

const (
	unknown truth = iota
	isFalse
	isTrue
)

// not is three-valued NOT: unknown stays unknown.
func (t truth) not() truth {
	switch t {
	case isTrue:
		return isFalse
	case isFalse:
		return isTrue
	}
	return unknown
}

// value is t as a SQL value: true, false or NULL (nil).
func (t truth) value() any {
	switch t {
	case isTrue:
		return true
	case isFalse:
		return false
	}
	return nil
}

func truthOf(b bool) truth {
	if b {
		return isTrue
	}
	return isFalse
}

// valueFn yields an operand's value; ref names the column for errors
// ("" for a literal).
type valueFn func(r Row) (any, error)

type boolFn func(r Row) (truth, error)

// CompilePredicate turns a WHERE expression into a predicate. Literal-only
// mistakes (`WHERE 1`, `'a' AND x`) are found here; a column's type is
// only known per row, so mismatches there are reported when evaluated.
func CompilePredicate(e Expr) (Predicate, error) {
	if e == nil {
		return func(Row) (bool, error) { return true, nil }, nil
	}
	return compiler{}.predicate(e)
}

// compiler turns expressions into closures; qualify maps a column path as
// written to the path in the frame (dropping a table qualifier).
type compiler struct {
	qualify func(path []string) []string
}

func (c compiler) predicate(e Expr) (Predicate, error) {
	if e == nil {
		return func(Row) (bool, error) { return true, nil }, nil
	}
	f, err := c.compileBool(e)
	if err != nil {
		return nil, err
	}
	return func(r Row) (bool, error) {
		t, err := f(r)
		return t == isTrue, err
	}, nil
}

func (c compiler) compileBool(e Expr) (boolFn, error) {
	switch x := e.(type) {
	case *Binary:
		switch x.Op {
		case "AND", "OR":
			l, err := c.compileBool(x.L)
			if err != nil {
				return nil, err
			}
			r, err := c.compileBool(x.R)
			if err != nil {
				return nil, err
			}
			// Three-valued AND and OR are duals: the absorbing value (false
			// for AND, true for OR) on either side decides, both sides the
			// other value give that value, anything else is unknown.
			absorb, other := isFalse, isTrue
			if x.Op == "OR" {
				absorb, other = isTrue, isFalse
			}
			return func(row Row) (truth, error) {
				a, err := l(row)
				if err != nil || a == absorb {
					return a, err
				}
				b, err := r(row)
				if err != nil {
					return unknown, err
				}
				if b == absorb {
					return absorb, nil
				}
				if a == other && b == other {
					return other, nil
				}
				return unknown, nil
			}, nil
		default:
			return c.compileComparison(x)
		}
	case *Not:
		inner, err := c.compileBool(x.X)
		if err != nil {
			return nil, err
		}
		return func(row Row) (truth, error) {
			t, err := inner(row)
			return t.not(), err
		}, nil
	case *IsNull:
		v, err := c.compileValue(x.X)
		if err != nil {
			return nil, err
		}
		return func(row Row) (truth, error) {
			val, err := v(row)
			if err != nil {
				return unknown, err
			}
			return truthOf((val == nil) != x.Not), nil
		}, nil
	case *Literal:
		switch b := x.Value.(type) {
		case bool:
			t := truthOf(b)
			return func(Row) (truth, error) { return t, nil }, nil
		case nil:
			return func(Row) (truth, error) { return unknown, nil }, nil
		}
		return nil, &exprError{pos: x.Pos, msg: fmt.Sprintf("WHERE: %s is %s, not a condition", x.Raw, typeName(x.Value))}
	case *ColumnRef:
		name := x.String()
		v, err := c.compileValue(x)
		if err != nil {
			return nil, err
		}
		return func(row Row) (truth, error) {
			val, err := v(row)
			if err != nil {
				return unknown, err
			}
			switch b := val.(type) {
			case nil:
				return unknown, nil
			case bool:
				return truthOf(b), nil
			}
			return unknown, fmt.Errorf("WHERE: column %s is %s, not boolean", name, typeName(val))
		}, nil
	}
	return nil, &exprError{pos: e.Position(), msg: fmt.Sprintf("WHERE: unsupported expression %s", e)}
}

// exprError is a mistake found when compiling an expression, before any
// row is read; Plan turns it into a positioned error.
type exprError struct {
	pos Pos
	msg string
}

func (e *exprError) Error() string { return e.msg }

func (c compiler) compileValue(e Expr) (valueFn, error) {
	switch x := e.(type) {
	case *Literal:
		v := x.Value
		return func(Row) (any, error) { return v, nil }, nil
	case *ColumnRef:
		name := x.String()
		path := name
		if c.qualify != nil {
			path = strings.Join(c.qualify(x.Path), ".")
		}
		return func(r Row) (any, error) {
			v, err := r.Get(path)
			if err != nil {
				return nil, fmt.Errorf("WHERE: column %s: %w", name, err)
			}
			return v, nil
		}, nil
	}
	// A condition used as a value: (a = 1) = true.
	b, err := c.compileBool(e)
	if err != nil {
		return nil, err
	}
	return func(r Row) (any, error) {
		t, err := b(r)
		return t.value(), err
	}, nil
}

func describeOperand(e Expr) string {
	switch x := e.(type) {
	case *ColumnRef:
		return "column " + x.String()
	case *Literal:
		return x.Raw
	}
	return e.String()
}

func (c compiler) compileComparison(x *Binary) (boolFn, error) {
	l, err := c.compileValue(x.L)
	if err != nil {
		return nil, err
	}
	r, err := c.compileValue(x.R)
	if err != nil {
		return nil, err
	}
	op := x.Op
	ld, rd := describeOperand(x.L), describeOperand(x.R)
	if ll, ok := x.L.(*Literal); ok {
		if rl, ok := x.R.(*Literal); ok && ll.Value != nil && rl.Value != nil {
			if _, err := compare(ll.Value, rl.Value); err != nil {
				return nil, &exprError{pos: x.Pos, msg: fmt.Sprintf("WHERE: cannot compare %s (%s) with %s (%s)", ld, typeName(ll.Value), rd, typeName(rl.Value))}
			}
		}
	}
	return func(row Row) (truth, error) {
		a, err := l(row)
		if err != nil {
			return unknown, err
		}
		b, err := r(row)
		if err != nil {
			return unknown, err
		}
		if a == nil || b == nil {
			return unknown, nil
		}
		c, err := compare(a, b)
		if err != nil {
			return unknown, fmt.Errorf("WHERE: cannot compare %s (%s) with %s (%s)", ld, typeName(a), rd, typeName(b))
		}
		if c == incomparable {
			if op == "=" || op == "!=" {
				return truthOf(op == "!="), nil
			}
			return unknown, fmt.Errorf("WHERE: %s and %s can only be compared with = or !=", ld, rd)
		}
		switch op {
		case "=":
			return truthOf(c == 0), nil
		case "!=":
			return truthOf(c != 0), nil
		case "<":
			return truthOf(c < 0), nil
		case "<=":
			return truthOf(c <= 0), nil
		case ">":
			return truthOf(c > 0), nil
		case ">=":
			return truthOf(c >= 0), nil
		}
		return unknown, fmt.Errorf("WHERE: unknown operator %s", op)
	}, nil
}

// incomparable is compare's answer for values that are equal or not but
// have no order (NaN against a number).
const incomparable = 2

// compare orders two non-null values: numbers with numbers (long and double
// mix), strings with strings, booleans with booleans, timestamps with
// timestamps or with a string holding a date-time, binary with binary, and
// a string with a number or a boolean when it converts (castString).
// Anything else is an error.
func compare(a, b any) (int, error) {
	a, b = castString(a, b), castString(b, a)
	if ai, ok := asInt(a); ok {
		if bi, ok := asInt(b); ok {
			return cmpOrdered(ai, bi), nil
		}
	}
	if af, ok := asFloat(a); ok {
		if bf, ok := asFloat(b); ok {
			if af != af || bf != bf { // NaN
				if af != af && bf != bf {
					return 0, nil
				}
				return incomparable, nil
			}
			return cmpOrdered(af, bf), nil
		}
		return 0, errMismatch
	}
	switch x := a.(type) {
	case string:
		switch y := b.(type) {
		case string:
			return strings.Compare(x, y), nil
		case time.Time:
			t, err := parseTime(x)
			if err != nil {
				return 0, err
			}
			return t.Compare(y), nil
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmpOrdered(boolInt(x), boolInt(y)), nil
		}
	case time.Time:
		switch y := b.(type) {
		case time.Time:
			return x.Compare(y), nil
		case string:
			t, err := parseTime(y)
			if err != nil {
				return 0, err
			}
			return x.Compare(t), nil
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), nil
		}
	}
	return 0, errMismatch
}

var errMismatch = fmt.Errorf("type mismatch")

// castString converts v, when it is a string compared with a number or a
// boolean, to that type, as Spark casts the string side of such a
// comparison (a JSON API's "12345" count against 1000). A string that does
// not convert stays a string, and the comparison is a type error, as in
// Spark's ANSI mode: a typo must not silently match nothing.
func castString(v, other any) any {
	sv, ok := v.(string)
	if !ok {
		return v
	}
	t := strings.TrimSpace(sv)
	if _, isBool := other.(bool); isBool {
		switch strings.ToLower(t) {
		case "true", "t", "yes", "y", "1":
			return true
		case "false", "f", "no", "n", "0":
			return false
		}
		return v
	}
	if _, isInt := asInt(other); !isInt {
		if _, isFloat := asFloat(other); !isFloat {
			return v
		}
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(strings.ToLower(t), "inx_") {
		// ParseFloat also takes "Inf", "NaN", hex and "1_000": not numbers
		// as a string column holds them.
		return f
	}
	return v
}

func parseTime(s string) (time.Time, error) {
	t, err := sparktype.ParseTimestamp(s)
	if err != nil {
		return time.Time{}, errMismatch
	}
	return t, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpOrdered[T int64 | float64 | int](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int:
		return int64(n), true
	case int16:
		return int64(n), true
	case int8:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint8:
		return int64(n), true
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	if i, ok := asInt(v); ok {
		return float64(i), true
	}
	return 0, false
}

// typeName is the Spark name of a Go value's type, for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case int64, int, uint32:
		return "long"
	case int32, int16, int8, uint16, uint8:
		return "integer"
	case float64, float32, uint64:
		return "double"
	case bool:
		return "boolean"
	case time.Time:
		return "timestamp"
	case []byte:
		return "binary"
	case []any:
		return "array"
	case map[string]any:
		return "struct"
	}
	return fmt.Sprintf("%T", v)
}
