package query

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Interval arithmetic as Spark 3.5's ResolveBinaryArithmetic rewrites it
// (docs/sql.md#intervals): date ± year-month interval is a date (months
// added, the day clamped to the month's end), date ± a day interval is
// date_add of its days, date ± another day-time interval a timestamp;
// timestamp ± interval keeps the timestamp's type; date − date is an
// `interval day`, a difference involving a timestamp an `interval day to
// second` (between the wall-clock times in the session time zone);
// intervals of one kind add and subtract, multiply and divide by numbers.
// Each becomes one bound call named as Spark names the rewritten
// expression.

func isDayTime(dt arrow.DataType) bool   { return dt.ID() == arrow.DURATION }
func isYearMonth(dt arrow.DataType) bool { return dt.ID() == arrow.INTERVAL_MONTHS }
func isCalendar(dt arrow.DataType) bool  { return dt.ID() == arrow.INTERVAL_MONTH_DAY_NANO }
func isInterval(dt arrow.DataType) bool  { return sparktype.IsInterval(dt) }

// isAnsiInterval is a year-month or day-time interval (not a calendar one).
func isAnsiInterval(dt arrow.DataType) bool { return isYearMonth(dt) || isDayTime(dt) }
func isDate(dt arrow.DataType) bool         { return dt.ID() == arrow.DATE32 }
func isTimestamp(dt arrow.DataType) bool    { return dt.ID() == arrow.TIMESTAMP }

// isDayInterval is `interval day`, whose date arithmetic is date_add.
func isDayInterval(dt arrow.DataType) bool {
	s, e, ok := sparktype.DayTimeFields(dt)
	return ok && s == sparktype.FieldDay && e == sparktype.FieldDay
}

// widerDayTime is the day-time type covering both operands' fields.
func widerDayTime(a, b arrow.DataType) arrow.DataType {
	s1, e1, ok1 := sparktype.DayTimeFields(a)
	s2, e2, ok2 := sparktype.DayTimeFields(b)
	switch {
	case !ok1:
		return b
	case !ok2:
		return a
	}
	return sparktype.DayTimeIntervalType(min(s1, s2), max(e1, e2))
}

// sameArrowType is arrow.TypeEqual that also tells intervals of different
// Spark fields apart (Arrow's types are equal).
func sameArrowType(a, b arrow.DataType) bool {
	if isInterval(a) && isInterval(b) {
		return a == b
	}
	return arrow.TypeEqual(a, b)
}

// widerYearMonth is the year-month type covering both operands' fields.
func widerYearMonth(a, b arrow.DataType) arrow.DataType {
	s1, e1, ok1 := sparktype.YearMonthFields(a)
	s2, e2, ok2 := sparktype.YearMonthFields(b)
	switch {
	case !ok1:
		return b
	case !ok2:
		return a
	}
	return sparktype.YearMonthIntervalType(min(s1, s2), max(e1, e2))
}

// withType is a (released) as an array of type t, an Arrow type equal to
// a's that names other Spark fields (an Arrow builder's month interval as
// `interval month`).
func withType(a arrow.Array, t arrow.DataType) arrow.Array {
	if a.DataType() == t {
		return a
	}
	defer a.Release()
	d := array.NewData(t, a.Len(), a.Data().Buffers(), nil, a.NullN(), a.Data().Offset())
	defer d.Release()
	return array.MakeFromData(d)
}

// kernelCall is a call of eval over args (cast first to argTypes, nil
// entries as they are), of result type t, named pretty. name must tell
// apart every computation over the same arguments (it keys equal
// expressions: rexKey).
func (r *exprResolver) kernelCall(name, pretty string, t arrow.DataType, args []rex, argTypes []arrow.DataType, x Expr,
	eval func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error)) (rex, error) {
	s := fn.Scalar{Name: name, Bind: func([]fn.Arg) (fn.Bound, error) {
		return fn.Bound{Type: t, Args: argTypes, Eval: eval}, nil
	}}
	return r.bindCall(s, args, x.Position(), x.String(), pretty)
}

// timestampOperand is the timestamp type an operand of a datetime-interval
// sum is taken as: its own, timestamp for a date, a string or NULL
// (Spark's implicit cast to AnyTimestampType); an error for other types.
func timestampOperand(e rex, x *Binary) (arrow.DataType, error) {
	t := plainType(e.Type())
	switch {
	case isTimestamp(t):
		return t, nil
	case isDate(t), isString(t), isNull(t):
		return tTime, nil
	}
	return nil, errorf(x.Pos, "%s: %s is %s, and a day-time or calendar interval adds only to a date, a timestamp or a string", x, e.sql(), typeName(e.Type()))
}

// intervalArith is + or - where an operand is an interval, or a difference
// of dates or timestamps; ok is false for other operands.
func (r *exprResolver) intervalArith(op string, l, rr rex, x *Binary) (rex, bool, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	if !isInterval(lt) && !isInterval(rt) {
		if op == "-" && (isTimestamp(lt) || isTimestamp(rt)) && (isTimestamp(lt) || isDate(lt) || isString(lt) || isNull(lt)) &&
			(isTimestamp(rt) || isDate(rt) || isString(rt) || isNull(rt)) {
			e, err := r.subtractTimestamps(l, rr, x)
			return e, true, err
		}
		if op == "-" && isDate(rt) && (isDate(lt) || isString(lt) || isNull(lt)) {
			e, err := r.subtractDates(l, rr, x)
			return e, true, err
		}
		return nil, false, nil
	}
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	verb := map[string]string{"+": "add", "-": "sub"}[op]
	// interval + datetime is datetime + interval, named so.
	date, itv := l, rr
	if op == "+" && isInterval(lt) && !isInterval(rt) {
		date, itv = rr, l
	}
	dt, it := plainType(date.Type()), plainType(itv.Type())
	plain := date.sql() + " " + op + " " + itv.sql()
	switch {
	case isInterval(lt) && isInterval(rt), isAnsiInterval(lt) && isNull(rt), isAnsiInterval(rt) && isNull(lt):
		// Spark's Add/Subtract of intervals, a NULL beside a year-month
		// or day-time interval taking its type (beside a calendar
		// interval it is a timestamp sum below, void).
		e, err := r.intervalSum(op, l, rr, x)
		return e, true, err
	case !isInterval(it):
		// An interval on the left of "-" from a non-interval.
		return nil, true, errorf(x.Pos, "%s: cannot subtract %s from %s", x, typeName(rr.Type()), typeName(l.Type()))
	case isDate(dt) && isDayInterval(it):
		days := "extractansiintervaldays(" + itv.sql() + ")"
		if sign < 0 {
			days = "(- " + days + ")"
		}
		e, err := r.kernelCall("date_"+verb+"_days", "date_add("+date.sql()+", "+days+")", tDate, []rex{date, itv}, nil, x,
			func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				d, v := a[0].(*array.Date32), a[1].(*array.Duration)
				return dates(ctx.Mem, n, func(i int) (int32, bool, error) {
					if d.IsNull(i) || v.IsNull(i) {
						return 0, false, nil
					}
					return int32(int64(d.Value(i)) + sign*(int64(v.Value(i))/sparktype.MicrosPerDay)), true, nil
				})
			})
		return e, true, err
	case isDate(dt) && isYearMonth(it):
		e, err := r.kernelCall("date_"+verb+"_months", plain, tDate, []rex{date, itv}, nil, x,
			func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				d, v := a[0].(*array.Date32), a[1].(*array.MonthInterval)
				return dates(ctx.Mem, n, func(i int) (int32, bool, error) {
					if d.IsNull(i) || v.IsNull(i) {
						return 0, false, nil
					}
					out, ok := sparktype.AddMonthsToDays(int32(d.Value(i)), sign*int64(v.Value(i)))
					if !ok {
						return 0, false, fmt.Errorf("the date is out of range")
					}
					return out, true, nil
				})
			})
		return e, true, err
	case isDate(dt) && isCalendar(it):
		e, err := r.kernelCall("date_"+verb+"_interval", plain, tDate, []rex{date, itv}, nil, x,
			func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				d, v := a[0].(*array.Date32), a[1].(*array.MonthDayNanoInterval)
				return dates(ctx.Mem, n, func(i int) (int32, bool, error) {
					if d.IsNull(i) || v.IsNull(i) {
						return 0, false, nil
					}
					// Months and days as dates; a time part through the
					// day's start in the session time zone (Spark's
					// DateAddInterval with ANSI off).
					c := v.Value(i)
					loc := ctx.Loc()
					us := sparktype.FromWallMicros(int64(d.Value(i))*sparktype.MicrosPerDay, loc)
					out, err := addCalendar(us, sign, c, loc)
					if err != nil {
						return 0, false, err
					}
					return int32(floorDivInt64(sparktype.WallMicros(out, loc), sparktype.MicrosPerDay)), true, nil
				})
			})
		return e, true, err
	}
	// A timestamp (or what casts to one) ± an interval.
	tt, err := timestampOperand(date, x)
	if err != nil {
		if isYearMonth(it) {
			return nil, true, errorf(x.Pos, "%s: a year-month interval adds only to a date or a timestamp, not %s", x, typeName(date.Type()))
		}
		return nil, true, err
	}
	resT := tt
	switch {
	case isDate(dt) && isDayTime(it):
	case isYearMonth(it) && !isTimestamp(dt):
		return nil, true, errorf(x.Pos, "%s: a year-month interval adds only to a date or a timestamp, not %s", x, typeName(date.Type()))
	case isString(dt):
		resT = tString
	case isNull(dt):
		resT = tNull
	}
	ntz := tt.(*arrow.TimestampType).TimeZone == ""
	e, err := r.kernelCall("time_"+verb, plain, resT, []rex{date, itv}, []arrow.DataType{tt, nil}, x,
		func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			if resT.ID() == arrow.NULL {
				return array.NewNull(n), nil
			}
			ts, iv := a[0].(*array.Timestamp), a[1]
			loc := ctx.Loc()
			if ntz {
				loc = time.UTC
			}
			out, err := timestamps(ctx.Mem, ts.DataType().(*arrow.TimestampType), n, func(i int) (int64, bool, error) {
				if ts.IsNull(i) || iv.IsNull(i) {
					return 0, false, nil
				}
				return addInterval(fn.TimestampMicros(ts, i), sign, iv, i, loc)
			})
			if err != nil || resT.ID() != arrow.STRING {
				return out, err
			}
			defer out.Release()
			return ctx.Cast(out, tString)
		})
	return e, true, err
}

// addInterval is the instant us plus sign × element i of the interval
// array iv as Spark's timestampAddDayTime and timestampAddInterval: whole
// months and days on the wall-clock time in loc, the rest exactly.
func addInterval(us, sign int64, iv arrow.Array, i int, loc *time.Location) (int64, bool, error) {
	switch v := iv.(type) {
	case *array.Duration:
		d := sign * int64(v.Value(i))
		days := d / sparktype.MicrosPerDay
		out, err := addCalendar(us, 1, arrow.MonthDayNanoInterval{Days: int32(days)}, loc)
		if err != nil || days != int64(int32(days)) {
			return 0, false, fmt.Errorf("the timestamp is out of range")
		}
		out, ok := addExact(out, d-days*sparktype.MicrosPerDay)
		if !ok {
			return 0, false, fmt.Errorf("the timestamp is out of range")
		}
		return out, true, nil
	case *array.MonthInterval:
		wall := sparktype.WallMicros(us, loc)
		out, ok := addMonthsMicros(wall, sign*int64(v.Value(i)))
		if !ok {
			return 0, false, fmt.Errorf("the timestamp is out of range")
		}
		return sparktype.FromWallMicros(out, loc), true, nil
	case *array.MonthDayNanoInterval:
		out, err := addCalendar(us, sign, v.Value(i), loc)
		return out, err == nil, err
	}
	return 0, false, fmt.Errorf("cannot add %s to a timestamp", sparktype.Name(iv.DataType()))
}

// addCalendar adds sign × a calendar interval to the instant us: months
// and days on the wall-clock time in loc, then the microseconds.
func addCalendar(us, sign int64, c arrow.MonthDayNanoInterval, loc *time.Location) (int64, error) {
	wall := sparktype.WallMicros(us, loc)
	wall, ok := addMonthsMicros(wall, sign*int64(c.Months))
	if !ok {
		return 0, fmt.Errorf("the timestamp is out of range")
	}
	wall, ok = addExact(wall, sign*int64(c.Days)*sparktype.MicrosPerDay)
	if !ok {
		return 0, fmt.Errorf("the timestamp is out of range")
	}
	out, ok := addExact(sparktype.FromWallMicros(wall, loc), sign*(c.Nanoseconds/1000))
	if !ok {
		return 0, fmt.Errorf("the timestamp is out of range")
	}
	return out, nil
}

// addMonthsMicros adds months to a wall-clock time, keeping the time of
// day and clamping the day to the month's end.
func addMonthsMicros(wall, months int64) (int64, bool) {
	day := floorDivInt64(wall, sparktype.MicrosPerDay)
	d, ok := sparktype.AddMonthsToDays(int32(day), months)
	if !ok || day != int64(int32(day)) {
		return 0, false
	}
	return int64(d)*sparktype.MicrosPerDay + (wall - day*sparktype.MicrosPerDay), true
}

func floorDivInt64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func addExact(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// intervalSum is interval ± interval of one kind (a NULL takes the other's
// type): `(a + b)`, the day-time result covering both operands' fields.
func (r *exprResolver) intervalSum(op string, l, rr rex, x *Binary) (rex, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	if isNull(lt) {
		lt = rt
	}
	if isNull(rt) {
		rt = lt
	}
	var t arrow.DataType
	switch {
	case isDayTime(lt) && isDayTime(rt):
		t = widerDayTime(lt, rt)
	case isYearMonth(lt) && isYearMonth(rt):
		t = widerYearMonth(lt, rt)
	case lt.ID() == rt.ID():
		t = lt
	default:
		return nil, errorf(x.Pos, "%s: cannot %s %s and %s", x, map[string]string{"+": "add", "-": "subtract"}[op], typeName(l.Type()), typeName(rr.Type()))
	}
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	return r.kernelCall("interval_"+op, "("+l.sql()+" "+op+" "+rr.sql()+")", t, []rex{l, rr}, []arrow.DataType{t, t}, x,
		func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return intervalValues(ctx.Mem, t, n, func(i int) (intervalValue, bool, error) {
				if a[0].IsNull(i) || a[1].IsNull(i) {
					return intervalValue{}, false, nil
				}
				p, q := intervalAt(a[0], i), intervalAt(a[1], i)
				m, ok1 := addExact(p.months, sign*q.months)
				d, ok2 := addExact(p.days, sign*q.days)
				us, ok3 := addExact(p.micros, sign*q.micros)
				if !ok1 || !ok2 || !ok3 || t.ID() != arrow.DURATION && (m != int64(int32(m)) || d != int64(int32(d))) {
					return intervalValue{}, false, fmt.Errorf("interval overflow")
				}
				return intervalValue{m, d, us}, true, nil
			})
		})
}

// subtractDates is date − date, an `interval day`: `(a - b)`.
func (r *exprResolver) subtractDates(l, rr rex, x *Binary) (rex, error) {
	t := sparktype.DayTimeIntervalType(sparktype.FieldDay, sparktype.FieldDay)
	return r.kernelCall("subtract_dates", "("+l.sql()+" - "+rr.sql()+")", t, []rex{l, rr}, []arrow.DataType{tDate, tDate}, x,
		func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			p, q := a[0].(*array.Date32), a[1].(*array.Date32)
			return intervalValues(ctx.Mem, t, n, func(i int) (intervalValue, bool, error) {
				if p.IsNull(i) || q.IsNull(i) {
					return intervalValue{}, false, nil
				}
				return intervalValue{micros: (int64(p.Value(i)) - int64(q.Value(i))) * sparktype.MicrosPerDay}, true, nil
			})
		})
}

// subtractTimestamps is a difference involving a timestamp, an `interval
// day to second`: `(a - b)`, between the wall-clock times in the session
// time zone (Spark's subtractTimestamps).
func (r *exprResolver) subtractTimestamps(l, rr rex, x *Binary) (rex, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	// Both sides as one timestamp type: a zoned one's if either is.
	ct := lt
	if !isTimestamp(lt) || lt.(*arrow.TimestampType).TimeZone == "" && isTimestamp(rt) && rt.(*arrow.TimestampType).TimeZone != "" {
		ct = rt
	}
	ntz := ct.(*arrow.TimestampType).TimeZone == ""
	t := sparktype.DefaultDayTimeInterval
	return r.kernelCall("subtract_timestamps", "("+l.sql()+" - "+rr.sql()+")", t, []rex{l, rr}, []arrow.DataType{ct, ct}, x,
		func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			p, q := a[0].(*array.Timestamp), a[1].(*array.Timestamp)
			loc := ctx.Loc()
			if ntz {
				loc = time.UTC
			}
			return intervalValues(ctx.Mem, t, n, func(i int) (intervalValue, bool, error) {
				if p.IsNull(i) || q.IsNull(i) {
					return intervalValue{}, false, nil
				}
				d, ok := addExact(sparktype.WallMicros(fn.TimestampMicros(p, i), loc), -sparktype.WallMicros(fn.TimestampMicros(q, i), loc))
				if !ok {
					return intervalValue{}, false, fmt.Errorf("interval overflow")
				}
				return intervalValue{micros: d}, true, nil
			})
		})
}

// intervalUnary is -x or +x of an interval: `(- x)`, `(+ x)`.
func (r *exprResolver) intervalUnary(in rex, x *Unary) (rex, error) {
	t := plainType(in.Type())
	pretty := "(" + x.Op + " " + in.sql() + ")"
	sign := int64(-1)
	if x.Op == "+" {
		sign = 1
	}
	return r.kernelCall("interval_unary"+x.Op, pretty, t, []rex{in}, nil, x,
		func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return intervalValues(ctx.Mem, t, n, func(i int) (intervalValue, bool, error) {
				if a[0].IsNull(i) {
					return intervalValue{}, false, nil
				}
				v := intervalAt(a[0], i)
				if sign < 0 && (v.micros == math.MinInt64 || t.ID() != arrow.DURATION && (v.months == math.MinInt32 || v.days == math.MinInt32)) {
					return intervalValue{}, false, fmt.Errorf("interval overflow")
				}
				return intervalValue{sign * v.months, sign * v.days, sign * v.micros}, true, nil
			})
		})
}

// intervalScale is interval * number, number * interval or interval /
// number (Spark's MultiplyYMInterval, MultiplyDTInterval, DivideYMInterval,
// DivideDTInterval): `(i * n)`, rounded half up; an `interval year to
// month` or `interval day to second`. Division by zero is an error, as in
// Spark.
func (r *exprResolver) intervalScale(op string, l, rr rex, x *Binary) (rex, bool, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	itv, num := l, rr
	switch {
	case (isYearMonth(lt) || isDayTime(lt)) && !isInterval(rt):
	case op == "*" && (isYearMonth(rt) || isDayTime(rt)) && !isInterval(lt):
		itv, num = rr, l
	case isCalendar(lt) || isCalendar(rt):
		return nil, true, unsupported(x.Pos, "multiplying or dividing a calendar interval")
	case isInterval(lt) || isInterval(rt):
		return nil, true, errorf(x.Pos, "%s: cannot %s %s by %s", x, map[string]string{"*": "multiply", "/": "divide", "%": "take the remainder of"}[op], typeName(l.Type()), typeName(rr.Type()))
	default:
		return nil, false, nil
	}
	if op == "%" {
		return nil, true, errorf(x.Pos, "%s: cannot take the remainder of %s", x, typeName(itv.Type()))
	}
	nt := plainType(num.Type())
	switch {
	case isNull(nt):
		nt = tLong
	case isString(nt):
		nt = tDouble
	case !isNumeric(nt):
		return nil, true, errorf(x.Pos, "%s: an interval is multiplied or divided by a number, not %s", x, typeName(num.Type()))
	}
	ym := isYearMonth(plainType(itv.Type()))
	var t arrow.DataType = sparktype.DefaultDayTimeInterval
	if ym {
		t = sparktype.DefaultYearMonthInterval
	}
	pretty := "(" + l.sql() + " " + op + " " + rr.sql() + ")"
	div := op == "/"
	e, err := r.kernelCall("interval_"+op, pretty, t, []rex{itv, num}, []arrow.DataType{nil, nt}, x,
		func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return intervalValues(ctx.Mem, t, n, func(i int) (intervalValue, bool, error) {
				if a[0].IsNull(i) || a[1].IsNull(i) {
					return intervalValue{}, false, nil
				}
				v := intervalAt(a[0], i)
				base := v.micros
				if ym {
					base = v.months
				}
				out, err := scaleHalfUp(base, a[1], i, div)
				if err != nil {
					return intervalValue{}, false, err
				}
				if ym {
					if out != int64(int32(out)) {
						return intervalValue{}, false, fmt.Errorf("interval overflow")
					}
					return intervalValue{months: out}, true, nil
				}
				return intervalValue{micros: out}, true, nil
			})
		})
	return e, true, err
}

// scaleHalfUp is v × or ÷ element i of the number array, rounded half up
// (away from zero on a tie).
func scaleHalfUp(v int64, nums arrow.Array, i int, div bool) (int64, error) {
	x := new(big.Rat).SetInt64(v)
	var f *big.Rat
	switch a := nums.(type) {
	case *array.Float64, *array.Float32:
		g := fn.FloatValue(a, i)
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return 0, fmt.Errorf("interval overflow: the factor is %v", g)
		}
		f = new(big.Rat).SetFloat64(g)
	case *array.Decimal128:
		f = new(big.Rat).SetFrac(a.Value(i).BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.DataType().(*arrow.Decimal128Type).Scale)), nil))
	default:
		f = new(big.Rat).SetInt64(fn.IntValue(a, i))
	}
	if div {
		if f.Sign() == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		x.Quo(x, f)
	} else {
		x.Mul(x, f)
	}
	// Half up: |x| + 1/2, truncated, with x's sign.
	neg := x.Sign() < 0
	x.Abs(x)
	x.Add(x, big.NewRat(1, 2))
	q := new(big.Int).Quo(x.Num(), x.Denom())
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("interval overflow")
	}
	return q.Int64(), nil
}

// intervalValue is an interval of any kind: months (year-month), micros
// (day-time), or all three (calendar).
type intervalValue struct{ months, days, micros int64 }

func intervalAt(a arrow.Array, i int) intervalValue {
	switch v := a.(type) {
	case *array.Duration:
		return intervalValue{micros: int64(v.Value(i))}
	case *array.MonthInterval:
		return intervalValue{months: int64(v.Value(i))}
	case *array.MonthDayNanoInterval:
		c := v.Value(i)
		return intervalValue{int64(c.Months), int64(c.Days), c.Nanoseconds / 1000}
	}
	return intervalValue{}
}

// intervalValues builds an array of interval type t from f over n rows
// (ok false: NULL).
func intervalValues(mem memory.Allocator, t arrow.DataType, n int, f func(i int) (intervalValue, bool, error)) (arrow.Array, error) {
	switch t.ID() {
	case arrow.DURATION:
		return fillIntervals(array.NewDurationBuilder(mem, t.(*arrow.DurationType)), n, f, func(v intervalValue) (arrow.Duration, error) {
			return arrow.Duration(v.micros), nil
		})
	case arrow.INTERVAL_MONTHS:
		a, err := fillIntervals(array.NewMonthIntervalBuilder(mem), n, f, func(v intervalValue) (arrow.MonthInterval, error) {
			return arrow.MonthInterval(v.months), nil
		})
		if err != nil {
			return nil, err
		}
		return withType(a, t), nil
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return fillIntervals(array.NewMonthDayNanoIntervalBuilder(mem), n, f, func(v intervalValue) (arrow.MonthDayNanoInterval, error) {
			if v.micros > math.MaxInt64/1000 || v.micros < math.MinInt64/1000 {
				return arrow.MonthDayNanoInterval{}, fmt.Errorf("interval overflow")
			}
			return arrow.MonthDayNanoInterval{Months: int32(v.months), Days: int32(v.days), Nanoseconds: v.micros * 1000}, nil
		})
	}
	return nil, fmt.Errorf("%s is not an interval type", sparktype.Name(t))
}

// fillIntervals appends f's n values to b, each as conv makes it, and
// returns the array (b is released).
func fillIntervals[T any](b interface {
	array.Builder
	Append(T)
}, n int, f func(i int) (intervalValue, bool, error), conv func(intervalValue) (T, error)) (arrow.Array, error) {
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		v, ok, err := f(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		x, err := conv(v)
		if err != nil {
			return nil, err
		}
		b.Append(x)
	}
	return b.NewArray(), nil
}

func dates(mem memory.Allocator, n int, f func(i int) (int32, bool, error)) (arrow.Array, error) {
	b := array.NewDate32Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		v, ok, err := f(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(arrow.Date32(v))
	}
	return b.NewArray(), nil
}

// timestamps builds a timestamp array of type t from microsecond values.
func timestamps(mem memory.Allocator, t *arrow.TimestampType, n int, f func(i int) (int64, bool, error)) (arrow.Array, error) {
	b := array.NewTimestampBuilder(mem, t)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		v, ok, err := f(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(arrow.Timestamp(fn.FromMicros(v, t.Unit)))
	}
	return b.NewArray(), nil
}

// intervalSumAcc is sum and avg of an interval column: an interval of the
// column's type; overflow is an error, as in Spark; the average is
// rounded half up (Spark's DivideDTInterval and DivideYMInterval of the
// sum by the count).
type intervalSumAcc struct {
	avg    bool
	typ    arrow.DataType
	sums   []int64
	counts []int64
}

func (a *intervalSumAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	arr := args[0]
	a.sums, a.counts = growTo(a.sums, groups), growTo(a.counts, groups)
	if arr.DataType().ID() == arrow.NULL {
		return nil
	}
	for i, g := range gids {
		if g < 0 || arr.IsNull(i) {
			continue
		}
		v := intervalAt(arr, i)
		s, ok := addExact(a.sums[g], v.months+v.micros)
		if !ok || isYearMonth(a.typ) && s != int64(int32(s)) {
			return fmt.Errorf("interval overflow in %s", map[bool]string{true: "avg", false: "sum"}[a.avg])
		}
		a.sums[g] = s
		a.counts[g]++
	}
	return nil
}

func (a *intervalSumAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.sums, a.counts = growTo(a.sums, groups), growTo(a.counts, groups)
	ym := isYearMonth(a.typ)
	return intervalValues(mem, a.typ, groups, func(g int) (intervalValue, bool, error) {
		if a.counts[g] == 0 {
			return intervalValue{}, false, nil
		}
		v := a.sums[g]
		if a.avg {
			q, r := v/a.counts[g], v%a.counts[g]
			if 2*abs64(r) >= a.counts[g] { // half up, away from zero
				if v < 0 {
					q--
				} else {
					q++
				}
			}
			v = q
		}
		if ym {
			return intervalValue{months: v}, true, nil
		}
		return intervalValue{micros: v}, true, nil
	})
}

func (a *intervalSumAcc) release() {}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
