package functions

import (
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Date-time functions: see docs/sql-functions.md#date-time-functions. The
// session time zone is UTC.

func init() {
	register(bindToTimestamp(false), "to_timestamp")
	register(bindToTimestamp(true), "to_date")
	register(bindDateTrunc, "date_trunc")
	register(bindDatePart(func(t time.Time) int { return t.Year() }, false), "year")
	register(bindDatePart(func(t time.Time) int { return int(t.Month()) }, false), "month")
	register(bindDatePart(func(t time.Time) int { return t.Day() }, false), "day", "dayofmonth")
	register(bindDatePart(func(t time.Time) int { return t.Hour() }, true), "hour")
	register(bindDatePart(func(t time.Time) int { return t.Minute() }, true), "minute")
	register(bindDatePart(func(t time.Time) int { return t.Second() }, true), "second")
	register(bindCurrentTimestamp, "current_timestamp", "now")
	register(bindUnixTimestamp, "unix_timestamp")
	register(bindFromUnixtime, "from_unixtime")
	register(bindDateFormat, "date_format")
}

// isTimeLike reports whether dt is a date or a timestamp.
func isTimeLike(dt arrow.DataType) bool {
	return dt.ID() == arrow.TIMESTAMP || dt.ID() == arrow.DATE32
}

// timeArg accepts what Spark casts implicitly to a timestamp: strings,
// dates and timestamps (and NULL).
func timeArg(args []fn.Arg, i int) error {
	dt := args[i].Type
	if isStringType(dt) || isTimeLike(dt) || isNull(dt) {
		return nil
	}
	return argErr(i, args[i], "a timestamp, a date or a string")
}

// instants turns a string (parsed with the row's pattern), date or
// timestamp argument into microseconds per row; valid[i] is false for NULL
// or unparseable input.
func instants(ctx *fn.Ctx, a []arrow.Array, n int, pc *cache[*dtPattern]) ([]int64, []bool, error) {
	us := make([]int64, n)
	valid := make([]bool, n)
	switch x := a[0].(type) {
	case *array.String:
		if pc == nil {
			ts, err := fn.Cast(ctx.Mem, x, tsMicros)
			if err != nil {
				return nil, nil, err
			}
			defer ts.Release()
			return instants(ctx, []arrow.Array{ts}, n, nil)
		}
		pcs := pc.forEval()
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				continue
			}
			p, err := pcs.at(a, i)
			if err != nil {
				return nil, nil, err
			}
			us[i], valid[i] = p.parse(x.Value(i))
		}
	case *array.Timestamp:
		for i := 0; i < n; i++ {
			if valid[i] = x.IsValid(i); valid[i] {
				us[i] = fn.TimestampMicros(x, i)
			}
		}
	case *array.Date32:
		for i := 0; i < n; i++ {
			if valid[i] = x.IsValid(i); valid[i] {
				us[i] = int64(x.Value(i)) * 86_400_000_000
			}
		}
	}
	return us, valid, nil
}

var tsMicros = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// timestampsOut builds a timestamp array of timestampType from micros.
func timestampsOut(ctx *fn.Ctx, us []int64, valid []bool) (arrow.Array, error) {
	b := array.NewInt64Builder(ctx.Mem)
	defer b.Release()
	b.AppendValues(us, valid)
	raw := b.NewArray()
	defer raw.Release()
	data := array.NewData(tsMicros, raw.Len(), raw.Data().Buffers(), nil, raw.NullN(), 0)
	defer data.Release()
	micros := array.MakeFromData(data)
	defer micros.Release()
	return fn.Cast(ctx.Mem, micros, timestampType)
}

// bindToTimestamp is to_timestamp(x[, fmt]) and, with toDate, to_date: a
// string parses with fmt (Spark's CAST rules without one); dates and
// timestamps convert; anything unparseable is NULL.
func bindToTimestamp(toDate bool) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 2); err != nil {
			return fn.Bound{}, err
		}
		out := arrow.DataType(timestampType)
		if toDate {
			out = dateType
		}
		if len(args) == 1 {
			if !fn.CanCast(args[0].Type, out) || isNumeric(args[0].Type) && toDate {
				return fn.Bound{}, argErr(0, args[0], "a string, a date or a timestamp")
			}
			return fn.Bound{Type: out, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return fn.Cast(ctx.Mem, a[0], out)
			}}, nil
		}
		in, err := signature(args, "ts")
		if err != nil {
			return fn.Bound{}, err
		}
		pc, err := newCache(args, 1, "", compilePattern)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			us, valid, err := instants(ctx, a, n, pc)
			if err != nil {
				return nil, err
			}
			ts, err := timestampsOut(ctx, us, valid)
			if err != nil || !toDate {
				return ts, err
			}
			defer ts.Release()
			return fn.Cast(ctx.Mem, ts, dateType)
		}}, nil
	}
}

// truncUnits maps date_trunc's unit names to the unit they truncate to.
var truncUnits = map[string]string{
	"year": "year", "yyyy": "year", "yy": "year",
	"quarter": "quarter",
	"month":   "month", "mm": "month", "mon": "month",
	"week": "week",
	"day":  "day", "dd": "day",
	"hour":        "hour",
	"minute":      "minute",
	"second":      "second",
	"millisecond": "millisecond",
	"microsecond": "microsecond",
}

// truncate cuts the instant us down to the start of unit (UTC).
func truncate(us int64, unit string) int64 {
	const sec = 1_000_000
	switch unit {
	case "microsecond":
		return us
	case "millisecond":
		return floorDivInt(us, 1000) * 1000
	case "second":
		return floorDivInt(us, sec) * sec
	case "minute":
		return floorDivInt(us, 60*sec) * 60 * sec
	case "hour":
		return floorDivInt(us, 3600*sec) * 3600 * sec
	}
	day := floorDivInt(us, 86400*sec)
	t := time.Unix(day*86400, 0).UTC()
	switch unit {
	case "week":
		back := (int(t.Weekday()) + 6) % 7 // weeks start on Monday
		t = t.AddDate(0, 0, -back)
	case "month":
		t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		t = time.Date(t.Year(), time.Month((int(t.Month())-1)/3*3+1), 1, 0, 0, 0, 0, time.UTC)
	case "year":
		t = time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t.Unix() * sec
}

func bindDateTrunc(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "sT")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: timestampType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		unit, ts := a[0].(*array.String), a[1].(*array.Timestamp)
		us := make([]int64, n)
		valid := make([]bool, n)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				continue
			}
			// An unknown unit is NULL, as in Spark.
			u, ok := truncUnits[lowerName(unit.Value(i))]
			if valid[i] = ok; ok {
				us[i] = truncate(ts.Value(i).ToTime(arrow.Microsecond).UnixMicro(), u)
			}
		}
		return timestampsOut(ctx, us, valid)
	}}, nil
}

// bindDatePart is year/month/day (of a date; strings and timestamps cast)
// and hour/minute/second (of a timestamp), as int.
func bindDatePart(part func(time.Time) int, ofTime bool) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		kind := "D"
		if ofTime {
			kind = "T"
		}
		in, err := signature(args, kind)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: int32Type, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return mapValues(ctx.Mem, int32Type, a[0], n, func(b array.Builder, i int) {
				var t time.Time
				if ofTime {
					t = a[0].(*array.Timestamp).Value(i).ToTime(arrow.Microsecond)
				} else {
					t = a[0].(*array.Date32).Value(i).ToTime()
				}
				b.(*array.Int32Builder).UnsafeAppend(int32(part(t.UTC())))
			}), nil
		}}, nil
	}
}

func bindCurrentTimestamp(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 0, 0); err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: timestampType, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		us := make([]int64, n)
		valid := make([]bool, n)
		now := ctx.Now.UnixMicro()
		for i := range us {
			us[i], valid[i] = now, true
		}
		return timestampsOut(ctx, us, valid)
	}}, nil
}

// bindUnixTimestamp: unix_timestamp() is now; unix_timestamp(x[, fmt])
// parses strings with fmt (default yyyy-MM-dd HH:mm:ss) and gives seconds.
func bindUnixTimestamp(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 0, 2); err != nil {
		return fn.Bound{}, err
	}
	if len(args) == 0 {
		return fn.Bound{Type: int64Type, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			b := array.NewInt64Builder(ctx.Mem)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				b.UnsafeAppend(ctx.Now.Unix())
			}
			return b.NewArray(), nil
		}}, nil
	}
	in, err := signature(args, "t|s")
	if err != nil {
		return fn.Bound{}, err
	}
	pc, err := newCache(args, 1, DefaultPattern, compilePattern)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: int64Type, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		us, valid, err := instants(ctx, a, n, pc)
		if err != nil {
			return nil, err
		}
		for i := range us {
			us[i] = floorDivInt(us[i], 1_000_000)
		}
		b := array.NewInt64Builder(ctx.Mem)
		defer b.Release()
		b.AppendValues(us, valid)
		return b.NewArray(), nil
	}}, nil
}

// bindFromUnixtime: from_unixtime(seconds[, fmt]) formats in UTC.
func bindFromUnixtime(args []fn.Arg) (fn.Bound, error) {
	if len(args) > 0 {
		if dt := args[0].Type; !isNumeric(dt) && !isStringType(dt) && !isNull(dt) {
			return fn.Bound{}, argErr(0, args[0], "a number of seconds")
		}
	}
	return bindFormat(args, "l|s", func(a arrow.Array, i int) int64 {
		return a.(*array.Int64).Value(i) * 1_000_000
	})
}

// bindDateFormat: date_format(ts, fmt) formats a timestamp (strings and
// dates cast) in UTC.
func bindDateFormat(args []fn.Arg) (fn.Bound, error) {
	return bindFormat(args, "Ts", func(a arrow.Array, i int) int64 {
		return int64(a.(*array.Timestamp).Value(i))
	})
}

// bindFormat formats the instant micros(a[0], i) with the pattern of the
// second argument (yyyy-MM-dd HH:mm:ss when absent).
func bindFormat(args []fn.Arg, kinds string, micros func(arrow.Array, int) int64) (fn.Bound, error) {
	in, err := signature(args, kinds)
	if err != nil {
		return fn.Bound{}, err
	}
	pc, err := newCache(args, 1, DefaultPattern, compilePattern)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		pcs := pc.forEval()
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			p, err := pcs.at(a, i)
			if err != nil {
				return nil, false, err
			}
			return p.format(dst, micros(a[0], i)), true, nil
		})
	}}, nil
}
