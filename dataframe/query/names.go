package query

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// prettyLiteral is a constant as Spark prints it in a generated column
// name (usePrettyExpression): a string as its value, a number as Java
// prints it (1.0E10, 0.10), NULL, true, DATE '2020-01-01',
// TIMESTAMP '2020-01-01 10:00:00', X'0A'.
func prettyLiteral(v any, t arrow.DataType) string { return prettyLiteralIn(v, t, nil) }

// prettyLiteralIn is prettyLiteral with a timestamp shown in the session
// time zone loc (nil is UTC).
func prettyLiteralIn(v any, t arrow.DataType, loc *time.Location) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []byte:
		return fmt.Sprintf("X'%X'", x)
	case arrow.MonthDayNanoInterval:
		return "INTERVAL '" + sparkText(v, t, loc) + "'"
	}
	if d, ok := v.(decimal128.Num); ok {
		if dt, isDec := t.(*arrow.Decimal128Type); isDec {
			return javaBigDecimal(d.BigInt().String(), int(dt.Scale))
		}
	}
	s := sparkText(v, t, loc)
	switch t.ID() {
	case arrow.DATE32:
		return "DATE '" + s + "'"
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).TimeZone == "" {
			return "TIMESTAMP_NTZ '" + s + "'"
		}
		return "TIMESTAMP '" + s + "'"
	}
	return s
}

// sparkText is CAST(v AS STRING) of a constant of type t.
func sparkText(v any, t arrow.DataType, loc *time.Location) string {
	a, err := broadcast(memory.DefaultAllocator, v, t, 1)
	if err != nil {
		return fmt.Sprint(v)
	}
	defer a.Release()
	return strings.Clone(string(fn.AppendSparkString(nil, a, 0, loc)))
}

// javaBigDecimal is Java's BigDecimal.toString of unscaled·10^-scale: plain
// digits, or scientific notation when the exponent is below -6
// (123.0E-28BD prints 1.230E-26).
func javaBigDecimal(unscaled string, scale int) string {
	neg := strings.HasPrefix(unscaled, "-")
	digits := strings.TrimPrefix(unscaled, "-")
	adjusted := -scale + len(digits) - 1
	sign := ""
	if neg {
		sign = "-"
	}
	if scale >= 0 && adjusted >= -6 {
		if scale == 0 {
			return sign + digits
		}
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	out := digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	exp := "E"
	if adjusted >= 0 {
		exp += "+"
	}
	return sign + out + exp + strconv.Itoa(adjusted)
}
