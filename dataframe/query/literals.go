package query

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Literals typed as Spark types them; the parser in catalog/sqlparse builds
// them with these (it does not import Arrow).

// NumberLiteral is a number as written (sign and type suffix included): an
// integer is int when it fits, else bigint, else decimal(p,0); a number
// with a point is decimal(p,s); one with an exponent double; a suffix says
// the type (1Y tinyint, 1S smallint, 1L bigint, 1.5F float, 1.5D double,
// 1.5BD decimal). A value outside its type is an error.
func NumberLiteral(text string) (*Literal, error) {
	num, suffix := text, ""
	for _, sfx := range []string{"BD", "Y", "S", "L", "D", "F"} {
		if len(num) > len(sfx) && strings.EqualFold(num[len(num)-len(sfx):], sfx) {
			suffix, num = sfx, num[:len(num)-len(sfx)]
			break
		}
	}
	lit := func(v any, dt arrow.DataType) (*Literal, error) {
		return &Literal{Value: v, Type: dt, Raw: text}, nil
	}
	outOfRange := func(typ string) error { return fmt.Errorf("the %s literal %s is out of range", typ, text) }
	exp := strings.ContainsAny(num, "eE")
	switch suffix {
	case "Y", "S", "L":
		if exp || strings.Contains(num, ".") {
			return nil, fmt.Errorf("%s: a %s literal is a whole number", text, map[string]string{"Y": "tinyint", "S": "smallint", "L": "bigint"}[suffix])
		}
		n, err := strconv.ParseInt(num, 10, 64)
		switch {
		case suffix == "Y" && (err != nil || n < math.MinInt8 || n > math.MaxInt8):
			return nil, outOfRange("tinyint")
		case suffix == "S" && (err != nil || n < math.MinInt16 || n > math.MaxInt16):
			return nil, outOfRange("smallint")
		case err != nil:
			return nil, outOfRange("bigint")
		}
		switch suffix {
		case "Y":
			return lit(int8(n), tByte)
		case "S":
			return lit(int16(n), tShort)
		}
		return lit(n, tLong)
	case "F":
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.Abs(f) > math.MaxFloat32 {
			return nil, outOfRange("float")
		}
		return lit(float32(f), tFloat)
	case "D":
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, outOfRange("double")
		}
		return lit(f, tDouble)
	case "":
		if exp {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || math.IsInf(f, 0) {
				return nil, outOfRange("double")
			}
			return lit(f, tDouble)
		}
		if !strings.Contains(num, ".") {
			if n, err := strconv.ParseInt(num, 10, 64); err == nil {
				if n >= math.MinInt32 && n <= math.MaxInt32 {
					return lit(int32(n), tInt)
				}
				return lit(n, tLong)
			}
		}
	}
	v, dt, err := decimalLiteral(num)
	if err != nil {
		return nil, fmt.Errorf("the decimal literal %s: %w", text, err)
	}
	return lit(v, dt)
}

// decimalLiteral is the exact decimal of a number's text (digits, a point,
// an exponent): decimal(p,s) with p its significant digits and s its
// fractional ones, as Java's BigDecimal types it.
func decimalLiteral(num string) (decimal128.Num, *arrow.Decimal128Type, error) {
	mant, exp := num, 0
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		e, err := strconv.Atoi(num[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return decimal128.Num{}, nil, fmt.Errorf("the exponent is out of range")
		}
		mant, exp = num[:i], e
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(strings.TrimPrefix(mant, "-"), "+")
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	scale -= exp
	digits := strings.TrimLeft(mant, "0")
	if scale < 0 {
		// Spark does not keep negative scales: 1E+2BD is 100.
		if digits != "" {
			digits += strings.Repeat("0", -scale)
		}
		scale = 0
	}
	prec := max(len(digits), 1, scale)
	if prec > maxPrecision {
		return decimal128.Num{}, nil, fmt.Errorf("decimal can only support precision up to 38")
	}
	bi, ok := new(big.Int).SetString("0"+digits, 10)
	if !ok {
		return decimal128.Num{}, nil, fmt.Errorf("not a number")
	}
	if neg {
		bi.Neg(bi)
	}
	return decimal128.FromBigInt(bi), decimalType(int32(prec), int32(scale)), nil
}

// DateLiteral is DATE 'text'; text Spark cannot read as a date is an error.
func DateLiteral(text string) (*Literal, error) {
	days, ok := sparktype.ParseDateDays(text)
	if !ok {
		return nil, fmt.Errorf("is not a valid DATE literal")
	}
	return &Literal{Value: time.Unix(int64(days)*86400, 0).UTC(), Type: tDate}, nil
}

// TimestampLiteral is TIMESTAMP 'text'; text Spark cannot read as a
// timestamp is an error. Its Value reads text without a zone in UTC; the
// analyser reads Text again in the session time zone.
func TimestampLiteral(text string) (*Literal, error) {
	us, ok := sparktype.ParseTimestampMicros(text)
	if !ok {
		return nil, fmt.Errorf("is not a valid TIMESTAMP literal")
	}
	return &Literal{Value: time.UnixMicro(us).UTC(), Type: tTime, Text: text}, nil
}

// BinaryLiteral is X'digits': an odd number of hex digits has a leading 0
// (X'1' is X'01').
func BinaryLiteral(digits string) (*Literal, error) {
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return nil, fmt.Errorf("is not a valid binary literal (hex digits)")
	}
	return &Literal{Value: b, Type: tBinary}, nil
}

// TimestampNTZLiteral is TIMESTAMP_NTZ 'text': a wall-clock time without a
// zone.
func TimestampNTZLiteral(text string) (*Literal, error) {
	us, ok := sparktype.ParseTimestampMicros(text)
	if !ok {
		return nil, fmt.Errorf("is not a valid TIMESTAMP_NTZ literal")
	}
	return &Literal{Value: time.UnixMicro(us).UTC(), Type: sparktype.TimestampNTZType}, nil
}

// IntervalLiteral is INTERVAL 'text' unit TO unit (from, to: YEAR TO MONTH
// or two of DAY, HOUR, MINUTE, SECOND in order) or, with to empty,
// INTERVAL 'text' unit for one unit, as Spark 3.5 types them
// (docs/sql.md#intervals): a year-month or a day-time interval of those
// fields. Text that does not match the unit's form is an error naming the
// form.
func IntervalLiteral(text, from, to string) (*Literal, error) {
	if to == "" {
		return IntervalUnitsLiteral(text + " " + from)
	}
	if strings.EqualFold(from, "YEAR") && strings.EqualFold(to, "MONTH") {
		m, err := sparktype.ParseYearMonthInterval(text)
		if err != nil {
			return nil, err
		}
		return &Literal{Value: arrow.MonthInterval(m), Type: sparktype.DefaultYearMonthInterval,
			Raw: sparktype.FormatYearMonthInterval(m, sparktype.FieldYear, sparktype.FieldMonth)}, nil
	}
	s, ok1 := sparktype.DayTimeFieldByName(from)
	e, ok2 := sparktype.DayTimeFieldByName(to)
	if !ok1 || !ok2 || e <= s {
		return nil, fmt.Errorf("INTERVAL … %s TO %s is not an interval: the units are YEAR TO MONTH or two of DAY, HOUR, MINUTE, SECOND in that order", from, to)
	}
	us, err := sparktype.ParseDayTimeInterval(text, s, e)
	if err != nil {
		return nil, err
	}
	return &Literal{Value: arrow.Duration(us), Type: sparktype.DayTimeIntervalType(s, e), Raw: sparktype.FormatDayTimeInterval(us, s, e)}, nil
}

// IntervalUnitsLiteral is an interval written as value-unit pairs
// (INTERVAL 1 DAY 2 HOURS, INTERVAL '1 day'), typed as Spark 3.5 does:
// year and month units give a year-month interval, day to second units a
// day-time interval (from the first field to the last), a mix of the two
// (or weeks, milliseconds, microseconds) a calendar interval.
func IntervalUnitsLiteral(text string) (*Literal, error) {
	v, units, err := sparktype.ParseMultiUnitInterval(text)
	if err != nil {
		return nil, err
	}
	ym, dt := true, true
	var ymLo, ymHi, dtLo, dtHi byte = 255, 0, 255, 0
	for _, u := range units {
		if f, ok := sparktype.YearMonthFieldByName(u); ok {
			ymLo, ymHi = min(ymLo, f), max(ymHi, f)
		} else {
			ym = false
		}
		if f, ok := sparktype.DayTimeFieldByName(u); ok {
			dtLo, dtHi = min(dtLo, f), max(dtHi, f)
		} else {
			dt = false
		}
	}
	switch {
	case ym:
		return &Literal{Value: arrow.MonthInterval(v.Months), Type: sparktype.YearMonthIntervalType(ymLo, ymHi),
			Raw: sparktype.FormatYearMonthInterval(v.Months, ymLo, ymHi)}, nil
	case dt:
		us := new(big.Int).Mul(big.NewInt(int64(v.Days)), big.NewInt(sparktype.MicrosPerDay))
		us.Add(us, big.NewInt(v.Micros))
		if !us.IsInt64() {
			return nil, fmt.Errorf("the interval %q is out of range", text)
		}
		return &Literal{Value: arrow.Duration(us.Int64()), Type: sparktype.DayTimeIntervalType(dtLo, dtHi),
			Raw: sparktype.FormatDayTimeInterval(us.Int64(), dtLo, dtHi)}, nil
	}
	return &Literal{Value: calendarValue(v), Type: sparktype.CalendarIntervalType,
		Raw: "INTERVAL '" + sparktype.FormatCalendarInterval(v.Months, v.Days, v.Micros) + "'"}, nil
}

func calendarValue(v sparktype.Calendar) arrow.MonthDayNanoInterval {
	return arrow.MonthDayNanoInterval{Months: v.Months, Days: v.Days, Nanoseconds: v.Micros * 1000}
}
