package functions

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// The functions that make intervals (docs/sql.md#intervals).

// secondsType is the type seconds arguments take: Spark's decimal(18,6).
var secondsType = &arrow.Decimal128Type{Precision: 18, Scale: 6}

func defIntervals() {
	def(fn.Scalar{Name: "make_ym_interval", Group: gDatetime, Signature: "make_ym_interval([years[, months]])", Returns: "interval year to month",
		Bind: bindMakeInterval("ii", sparktype.DefaultYearMonthInterval),
		Doc:  "The year-month interval of `years` and `months` (0 when left out); one beyond the int range of months is an error.",
		Examples: ex("make_ym_interval(1, 2)", "1-2", "make_ym_interval(1, 0)", "1-0", "make_ym_interval(-1, 1)", "-0-11",
			"make_ym_interval(2)", "2-0")},
		pretty(withDefaults(2, "0", "0")))
	def(fn.Scalar{Name: "make_dt_interval", Group: gDatetime, Signature: "make_dt_interval([days[, hours[, mins[, secs]]]])",
		Returns: "interval day to second", Bind: bindMakeInterval("llls", sparktype.DefaultDayTimeInterval),
		Doc: "The day-time interval of `days`, `hours`, `mins` and `secs` (a fraction to the microsecond; 0 when left out); " +
			"one beyond the bigint range of microseconds is an error.",
		Examples: ex("make_dt_interval(1, 12, 30, 01.001001)", "1 12:30:01.001001000", "make_dt_interval(2)", "2 00:00:00.000000000",
			"make_dt_interval(100, null, 3)", "NULL")},
		pretty(withDefaults(4, "0", "0", "0", "0.000000")))
	def(fn.Scalar{Name: "make_interval", Group: gDatetime, Signature: "make_interval([years[, months[, weeks[, days[, hours[, mins[, secs]]]]]]])",
		Returns: "interval", Bind: bindMakeInterval("iiiills", sparktype.CalendarIntervalType),
		Doc: "The calendar interval of the given fields (0 when left out; `secs` to the microsecond); NULL when it does not fit " +
			"(months and days in an int, the rest in a bigint of microseconds).",
		Examples: ex("make_interval(100, 11, 1, 1, 12, 30, 01.001001)", "100 years 11 months 8 days 12 hours 30 minutes 1.001001 seconds",
			"make_interval(100, null, 3)", "NULL", "make_interval(0, 1, 0, 1, 0, 0, 100.000001)", "1 months 1 days 1 minutes 40.000001 seconds")},
		pretty(withDefaults(7, "0", "0", "0", "0", "0", "0", "0.000000")))
}

// bindMakeInterval binds a make_*_interval function whose arguments, all
// optional, have the kinds in kinds ('i' int, 'l' bigint, 's' seconds as
// decimal(18,6)), with result type out.
func bindMakeInterval(kinds string, out arrow.DataType) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 0, len(kinds)); err != nil {
			return fn.Bound{}, err
		}
		in := make([]arrow.DataType, len(args))
		for i := range args {
			var err error
			switch kinds[i] {
			case 'i':
				in[i], err = intArg(args, i, int32Type)
			case 'l':
				in[i], err = intArg(args, i, int64Type)
			case 's':
				if !isNumeric(args[i].Type) && !isStringType(args[i].Type) && !isNull(args[i].Type) {
					err = argErr(i, args[i], "a number of seconds")
				}
				in[i] = secondsType
			}
			if err != nil {
				return fn.Bound{}, err
			}
		}
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			switch out.ID() {
			case arrow.INTERVAL_MONTHS:
				return makeYM(ctx, out, a, n)
			case arrow.DURATION:
				return makeDT(ctx, out, a, n)
			}
			return makeCalendar(ctx, a, n)
		}}, nil
	}
}

// argValue is argument k of row i as a big integer (seconds as
// microseconds), 0 when the call left it out.
func argValue(a []arrow.Array, k, i int) *big.Int {
	if k >= len(a) {
		return new(big.Int)
	}
	if d, ok := a[k].(*array.Decimal128); ok {
		return d.Value(i).BigInt()
	}
	return big.NewInt(fn.IntValue(a[k], i))
}

// weighted is Σ argument k × weights[k] for row i.
func weighted(a []arrow.Array, i int, weights ...int64) *big.Int {
	sum := new(big.Int)
	for k, w := range weights {
		sum.Add(sum, new(big.Int).Mul(argValue(a, k, i), big.NewInt(w)))
	}
	return sum
}

func makeYM(ctx *fn.Ctx, out arrow.DataType, a []arrow.Array, n int) (arrow.Array, error) {
	b := array.NewMonthIntervalBuilder(ctx.Mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		if anyNull(a, i) {
			b.AppendNull()
			continue
		}
		m := weighted(a, i, 12, 1)
		if !m.IsInt64() || m.Int64() != int64(int32(m.Int64())) {
			return nil, fmt.Errorf("make_ym_interval: %s months is beyond the int range", m)
		}
		b.Append(arrow.MonthInterval(m.Int64()))
	}
	arr := b.NewArray()
	defer arr.Release()
	return retype(arr, out), nil
}

func makeDT(ctx *fn.Ctx, out arrow.DataType, a []arrow.Array, n int) (arrow.Array, error) {
	b := array.NewDurationBuilder(ctx.Mem, out.(*arrow.DurationType))
	defer b.Release()
	for i := 0; i < n; i++ {
		if anyNull(a, i) {
			b.AppendNull()
			continue
		}
		us := weighted(a, i, sparktype.MicrosPerDay, sparktype.MicrosPerHour, sparktype.MicrosPerMinute, 1)
		if !us.IsInt64() {
			return nil, fmt.Errorf("make_dt_interval: %s microseconds is beyond the bigint range", us)
		}
		b.Append(arrow.Duration(us.Int64()))
	}
	return b.NewArray(), nil
}

func makeCalendar(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
	b := array.NewMonthDayNanoIntervalBuilder(ctx.Mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		if anyNull(a, i) {
			b.AppendNull()
			continue
		}
		months := weighted(a, i, 12, 1)
		days := new(big.Int).Add(new(big.Int).Mul(argValue(a, 2, i), big.NewInt(7)), argValue(a, 3, i))
		us := weighted(a[min(4, len(a)):], i, sparktype.MicrosPerHour, sparktype.MicrosPerMinute, 1)
		fits := func(v *big.Int) bool { return v.IsInt64() && v.Int64() >= math.MinInt32 && v.Int64() <= math.MaxInt32 }
		if !fits(months) || !fits(days) || !us.IsInt64() || us.Int64() > math.MaxInt64/1000 || us.Int64() < math.MinInt64/1000 {
			b.AppendNull() // ANSI off: an overflow is NULL
			continue
		}
		b.Append(arrow.MonthDayNanoInterval{Months: int32(months.Int64()), Days: int32(days.Int64()), Nanoseconds: us.Int64() * 1000})
	}
	return b.NewArray(), nil
}

// bindIntervalPart is date_part/extract of an interval: YEAR (int) and
// MONTH (tinyint) of a year-month interval, DAY (int), HOUR, MINUTE
// (tinyint) and SECOND (decimal(8,6)) of a day-time one, each within the
// type's fields; all of them of a calendar interval (HOUR a bigint there).
// Parts take the interval's sign, as Spark's.
func bindIntervalPart(part string, t arrow.DataType) (fn.Bound, error) {
	var out arrow.DataType
	refuse := func() (fn.Bound, error) {
		return fn.Bound{}, fmt.Errorf("cannot extract %s from %s", strings.ToUpper(part), sparktype.Name(t))
	}
	in := func(f byte, s, e byte, ok bool) bool { return ok && s <= f && f <= e }
	switch t.ID() {
	case arrow.INTERVAL_MONTHS:
		s, e, _ := sparktype.YearMonthFields(t)
		f, ok := map[string]byte{"year": sparktype.FieldYear, "month": sparktype.FieldMonth}[part]
		if !in(f, s, e, ok) {
			return refuse()
		}
	case arrow.DURATION:
		s, e, _ := sparktype.DayTimeFields(t)
		f, ok := map[string]byte{"day": sparktype.FieldDay, "hour": sparktype.FieldHour, "minute": sparktype.FieldMinute, "second": sparktype.FieldSecond}[part]
		if !in(f, s, e, ok) {
			return refuse()
		}
	default:
		switch part {
		case "year", "month", "day", "hour", "minute", "second":
		default:
			return refuse()
		}
	}
	switch part {
	case "year", "day":
		out = int32Type
	case "month", "minute":
		out = arrow.PrimitiveTypes.Int8
	case "hour":
		out = arrow.PrimitiveTypes.Int8
		if t.ID() == arrow.INTERVAL_MONTH_DAY_NANO {
			out = int64Type
		}
	case "second":
		out = &arrow.Decimal128Type{Precision: 8, Scale: 6}
	}
	return fn.Bound{Type: out, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewBuilder(ctx.Mem, out)
		defer b.Release()
		src := a[1]
		for i := 0; i < n; i++ {
			if src.IsNull(i) {
				b.AppendNull()
				continue
			}
			var months, days, us int64
			switch v := src.(type) {
			case *array.MonthInterval:
				months = int64(v.Value(i))
			case *array.Duration:
				us = int64(v.Value(i))
				days, us = us/sparktype.MicrosPerDay, us%sparktype.MicrosPerDay
			case *array.MonthDayNanoInterval:
				c := v.Value(i)
				months, days, us = int64(c.Months), int64(c.Days), c.Nanoseconds/1000
			}
			var x int64
			switch part {
			case "year":
				x = months / 12
			case "month":
				x = months % 12
			case "day":
				x = days
			case "hour":
				x = us / sparktype.MicrosPerHour
			case "minute":
				x = us % sparktype.MicrosPerHour / sparktype.MicrosPerMinute
			case "second":
				b.(*array.Decimal128Builder).Append(decimal128.FromI64(us % sparktype.MicrosPerMinute))
				continue
			}
			switch bb := b.(type) {
			case *array.Int8Builder:
				bb.Append(int8(x))
			case *array.Int32Builder:
				bb.Append(int32(x))
			case *array.Int64Builder:
				bb.Append(x)
			}
		}
		return b.NewArray(), nil
	}}, nil
}
