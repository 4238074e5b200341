package jdbc

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// decimalValue is a decimal cell: unscaled·10^-scale.
type decimalValue struct {
	unscaled *big.Int
	scale    int32
}

func (d decimalValue) String() string {
	s := d.unscaled.String()
	if d.scale <= 0 {
		return s + strings.Repeat("0", int(-d.scale))
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) <= int(d.scale) {
		s = "0" + s
	}
	s = s[:len(s)-int(d.scale)] + "." + s[len(s)-int(d.scale):]
	if neg {
		s = "-" + s
	}
	return s
}

// dateValue is a date cell, in days since 1970-01-01.
type dateValue int32

func (d dateValue) time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// converter turns the values of one frame column into the Go values a
// dialect's bulk load encodes: nil, bool, int64, float64, decimalValue,
// string, []byte, dateValue, time.Time (a timestamp, UTC) or []any (an
// array). It checks each value against the table's column: a number
// beyond its range is an error (docs/jdbc.md#errors).
type converter struct {
	src    cells.Kind
	target column
	// toText renders a non-string value into a string column (nested
	// values as JSON).
	toText bool
	// intMin, intMax bound an integer column.
	intMin, intMax int64
	intCheck       bool
	// decPrec, decScale bound a decimal column.
	decPrec, decScale int32
	decCheck          bool
	elem              *converter
}

func newConverter(src dataframe.DataType, target column) (*converter, error) {
	cv := &converter{src: cells.KindOf(src), target: target}
	tt, err := cells.ParseType(target.Spark)
	if err != nil {
		tt = nil // a database type Spark has no name for: text
	}
	tk := cells.KindString
	if tt != nil {
		tk = cells.KindOf(tt)
	}
	switch {
	case tk == cells.KindString && cv.src != cells.KindString:
		cv.toText = true
	case tk == cells.KindInt:
		cv.intCheck = true
		switch target.Spark {
		case "byte":
			cv.intMin, cv.intMax = math.MinInt8, math.MaxInt8
		case "short":
			cv.intMin, cv.intMax = math.MinInt16, math.MaxInt16
		case "integer":
			cv.intMin, cv.intMax = math.MinInt32, math.MaxInt32
		default:
			cv.intCheck = false
		}
	case tk == cells.KindDecimal:
		dt := tt.(interface {
			GetPrecision() int32
			GetScale() int32
		})
		cv.decCheck, cv.decPrec, cv.decScale = true, dt.GetPrecision(), dt.GetScale()
	case tk == cells.KindList && cv.src == cells.KindList:
		el, err := newConverter(listElem(src), column{Spark: strings.TrimSuffix(strings.TrimPrefix(target.Spark, "array<"), ">")})
		if err != nil {
			return nil, err
		}
		cv.elem = el
	}
	return cv, nil
}

func listElem(dt dataframe.DataType) dataframe.DataType {
	return dt.(interface{ Elem() dataframe.DataType }).Elem()
}

// value is cell i of col.
func (cv *converter) value(col cells.Column, i int) (any, error) {
	if col.IsNull(i) {
		return nil, nil
	}
	if cv.toText {
		if cv.src == cells.KindBinary {
			return nil, fmt.Errorf("binary into %s column", cv.target.DBType)
		}
		return string(col.AppendText(nil, i)), nil
	}
	switch cv.src {
	case cells.KindNull:
		return nil, nil
	case cells.KindBool:
		return col.Bool(i), nil
	case cells.KindInt:
		v := col.Int(i)
		if cv.intCheck && (v < cv.intMin || v > cv.intMax) {
			return nil, fmt.Errorf("%d is beyond %s (%s)", v, cv.target.Spark, cv.target.DBType)
		}
		if cv.decCheck {
			return cv.decimal(big.NewInt(v), 0)
		}
		return v, nil
	case cells.KindFloat:
		return col.Float(i), nil
	case cells.KindDecimal:
		u, s := col.Decimal(i)
		if cv.decCheck {
			return cv.decimal(u, s)
		}
		if cv.target.Spark == "double" || cv.target.Spark == "float" {
			f, _ := new(big.Float).SetInt(u).Float64()
			return f / math.Pow10(int(s)), nil
		}
		return decimalValue{u, s}, nil
	case cells.KindString:
		return string(col.Bytes(i)), nil
	case cells.KindBinary:
		return col.Bytes(i), nil
	case cells.KindDate:
		if cv.target.Spark == "timestamp" {
			return dateValue(col.Days(i)).time(), nil
		}
		return dateValue(col.Days(i)), nil
	case cells.KindTimestamp:
		return time.UnixMicro(col.Micros(i)).UTC(), nil
	case cells.KindList:
		elems, start, end := col.List(i)
		if cv.elem == nil {
			return string(col.AppendJSON(nil, i)), nil
		}
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := cv.elem.value(elems, j)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return string(col.AppendJSON(nil, i)), nil
}

func (cv *converter) decimal(u *big.Int, s int32) (any, error) {
	d := decimalValue{u, s}
	if s > cv.decScale {
		return nil, fmt.Errorf("%s has more than %d decimals (%s)", d, cv.decScale, cv.target.DBType)
	}
	digits := len(strings.TrimPrefix(u.String(), "-")) + int(cv.decScale-s)
	if u.Sign() != 0 && int32(digits) > cv.decPrec {
		return nil, fmt.Errorf("%s is beyond %s (%s)", d, cv.target.Spark, cv.target.DBType)
	}
	return d, nil
}

// assignable reports whether a frame column of Spark type from may be
// written into a table column read as Spark type to (docs/jdbc.md#types):
// the rules of Spark's store assignment, with integers and decimals also
// narrowing (each value is then checked).
func assignable(from, to string) bool {
	if from == to || from == "void" || to == "string" {
		return from != "binary" || to != "string"
	}
	if sparktype.AssignableNames(from, to) {
		return true
	}
	num := func(t string) bool {
		switch t {
		case "byte", "short", "integer", "long":
			return true
		}
		return strings.HasPrefix(t, "decimal")
	}
	switch {
	case num(from) && num(to):
		return true
	case strings.HasPrefix(from, "array<") && strings.HasPrefix(to, "array<"):
		return assignable(from[6:len(from)-1], to[6:len(to)-1])
	}
	return false
}

// sparkName is the Spark type name of a frame column.
func sparkName(dt dataframe.DataType) string { return sparktype.Name(dt) }

// cellsDecimal parses decimal text (for its scale).
func cellsDecimal(s string) (*big.Int, int, bool) {
	u, scale, ok := cells.ParseDecimalText([]byte(s))
	return u, int(scale), ok
}
