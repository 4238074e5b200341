package functions

import (
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Date-time functions: see docs/sql-functions.md#date-time-functions. A
// timestamp is an instant; its wall-clock time — the fields hour() or
// date_format see, the time text without a zone stands for — is in the
// session time zone, fn.Ctx.Loc (docs/sql.md#time-zone).

func init() {
	def(fn.Scalar{Name: "to_timestamp", Group: gDatetime, Signature: "to_timestamp(expr[, fmt])", Returns: "timestamp",
		Bind: bindToTimestamp(false),
		Doc: "`expr` as a timestamp: a string is parsed with the datetime pattern `fmt`, or by CAST's rules without one; " +
			"dates and timestamps convert. Text that does not parse gives NULL.",
		Examples: ex("to_timestamp('2016-12-31 00:12:00')", "2016-12-31 00:12:00", "to_timestamp('2016-12-31', 'yyyy-MM-dd')", "2016-12-31 00:00:00",
			"to_timestamp('foo', 'yyyy-MM-dd')", "NULL")},
		aliases("to_timestamp_ltz", "try_to_timestamp"))
	def(fn.Scalar{Name: "to_date", Group: gDatetime, Signature: "to_date(expr[, fmt])", Returns: "date", Bind: bindToTimestamp(true),
		Doc:      "`expr` as a date, parsed like `to_timestamp`; NULL when it does not parse.",
		Examples: ex("to_date('2009-07-30 04:17:52')", "2009-07-30", "to_date('2016-12-31', 'yyyy-MM-dd')", "2016-12-31")})
	def(fn.Scalar{Name: "date_trunc", Group: gDatetime, Signature: "date_trunc(fmt, ts)", Returns: "timestamp", Bind: bindDateTrunc,
		Doc: "`ts` truncated to the unit `fmt`: `YEAR`, `YYYY`, `YY`, `QUARTER`, `MONTH`, `MM`, `MON`, `WEEK` (weeks start on Monday), " +
			"`DAY`, `DD`, `HOUR`, `MINUTE`, `SECOND`, `MILLISECOND`, `MICROSECOND`, any case; NULL for another unit.",
		Examples: ex("date_trunc('YEAR', '2015-03-05T09:32:05.359')", "2015-01-01 00:00:00", "date_trunc('MM', '2015-03-05T09:32:05.359')", "2015-03-01 00:00:00",
			"date_trunc('DD', '2015-03-05T09:32:05.359')", "2015-03-05 00:00:00", "date_trunc('HOUR', '2015-03-05T09:32:05.359')", "2015-03-05 09:00:00",
			"date_trunc('MILLISECOND', '2015-03-05T09:32:05.123456')", "2015-03-05 09:32:05.123")})
	def(fn.Scalar{Name: "year", Group: gDatetime, Signature: "year(date)", Returns: "int", Bind: bindDatePart(func(t time.Time) int { return t.Year() }, false),
		Doc: "The year of a date (strings and timestamps convert).", Examples: ex("year('2016-07-30')", "2016")})
	def(fn.Scalar{Name: "month", Group: gDatetime, Signature: "month(date)", Returns: "int", Bind: bindDatePart(func(t time.Time) int { return int(t.Month()) }, false),
		Doc: "The month (1–12) of a date.", Examples: ex("month('2016-07-30')", "7")})
	def(fn.Scalar{Name: "day", Group: gDatetime, Signature: "day(date)", Returns: "int", Bind: bindDatePart(func(t time.Time) int { return t.Day() }, false),
		Doc: "The day of the month of a date.", Examples: ex("day('2009-07-30')", "30")}, aliases("dayofmonth"))
	def(fn.Scalar{Name: "hour", Group: gDatetime, Signature: "hour(timestamp)", Returns: "int", Bind: bindDatePart(func(t time.Time) int { return t.Hour() }, true),
		Doc: "The hour (0–23) of a timestamp.", Examples: ex("hour('2009-07-30 12:58:59')", "12")})
	def(fn.Scalar{Name: "minute", Group: gDatetime, Signature: "minute(timestamp)", Returns: "int", Bind: bindDatePart(func(t time.Time) int { return t.Minute() }, true),
		Doc: "The minute (0–59) of a timestamp.", Examples: ex("minute('2009-07-30 12:58:59')", "58")})
	def(fn.Scalar{Name: "second", Group: gDatetime, Signature: "second(timestamp)", Returns: "int", Bind: bindDatePart(func(t time.Time) int { return t.Second() }, true),
		Doc: "The second (0–59) of a timestamp.", Examples: ex("second('2009-07-30 12:58:59')", "59")})
	def(fn.Scalar{Name: "current_timestamp", Group: gDatetime, Signature: "current_timestamp()", Returns: "timestamp", Bind: bindCurrentTimestamp,
		Doc: "The time the statement started, the same for every row. `current_timestamp` without parentheses is the same."},
		aliases("now"))
	def(fn.Scalar{Name: "unix_timestamp", Group: gDatetime, Signature: "unix_timestamp([timeExp[, fmt]])", Returns: "bigint", Bind: bindUnixTimestamp(true),
		Doc: "Seconds since 1970-01-01 00:00:00 UTC of `timeExp` (a string is parsed with `fmt`, default `yyyy-MM-dd HH:mm:ss`), " +
			"or of now; NULL when the text does not parse.",
		Examples: ex("unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "1460073600")},
		pretty(func(name string, args []string) string {
			if len(args) == 0 {
				args = []string{"current_timestamp()"}
			}
			return withDefaults(2, DefaultPattern)(name, args)
		}))
	def(fn.Scalar{Name: "to_unix_timestamp", Group: gDatetime, Signature: "to_unix_timestamp(timeExp[, fmt])", Returns: "bigint", Bind: bindUnixTimestamp(false),
		Doc:      "`unix_timestamp` with a required first argument.",
		Examples: ex("to_unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "1460073600")},
		pretty(withDefaults(2, DefaultPattern)))
	def(fn.Scalar{Name: "from_unixtime", Group: gDatetime, Signature: "from_unixtime(unix_time[, fmt])", Returns: "string", Bind: bindFromUnixtime,
		Doc:      "The instant `unix_time` seconds after the epoch, formatted with `fmt` (default `yyyy-MM-dd HH:mm:ss`).",
		Examples: ex("from_unixtime(0, 'yyyy-MM-dd HH:mm:ss')", "1970-01-01 00:00:00", "from_unixtime(0)", "1970-01-01 00:00:00")},
		pretty(withDefaults(2, DefaultPattern)))
	def(fn.Scalar{Name: "date_format", Group: gDatetime, Signature: "date_format(timestamp, fmt)", Returns: "string", Bind: bindDateFormat,
		Doc:      "`timestamp` (strings and dates convert) formatted with the datetime pattern `fmt`.",
		Examples: ex("date_format('2016-04-08', 'y')", "2016", "date_format(TIMESTAMP '2016-04-08 13:05:09', 'EEE, d MMM yyyy HH:mm')", "Fri, 8 Apr 2016 13:05")})
	defDatetime()
	defIntervals()
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
			ts, err := ctx.Cast(x, tsMicros)
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
			us[i], valid[i] = p.parse(x.Value(i), ctx.Loc())
		}
	case *array.Timestamp:
		for i := 0; i < n; i++ {
			if valid[i] = !nullAt(x, i); valid[i] {
				us[i] = fn.TimestampMicros(x, i)
			}
		}
	case *array.Date32: // midnight in the session time zone
		for i := 0; i < n; i++ {
			if valid[i] = !nullAt(x, i); valid[i] {
				us[i] = sparktype.FromWallMicros(int64(x.Value(i))*usPerDay, ctx.Loc())
			}
		}
	}
	return us, valid, nil
}

// tsMicros is timestamp at microseconds: Sluice's timestamp (docs/frames.md#arrow).
var tsMicros = timestampType

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
	return ctx.Cast(micros, timestampType)
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
				return ctx.Cast(a[0], out)
			}}, nil
		}
		in, err := signature(args, "ts")
		if err != nil {
			return fn.Bound{}, err
		}
		pc, err := newCache(args, 1, "", compileParsePattern)
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
			return ctx.Cast(ts, dateType)
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

// truncateIn cuts the instant us down to the start of unit in the time
// zone loc, as Spark's date_trunc does in the session time zone.
func truncateIn(us int64, unit string, loc *time.Location) int64 {
	if unit == "microsecond" {
		return us
	}
	return sparktype.FromWallMicros(truncate(sparktype.WallMicros(us, loc), unit), loc)
}

// truncate cuts the wall-clock time us (read as UTC) down to the start of
// unit.
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
				us[i] = truncateIn(ts.Value(i).ToTime(arrow.Microsecond).UnixMicro(), u, ctx.Loc())
			}
		}
		return timestampsOut(ctx, us, valid)
	}}, nil
}

// bindDatePart is year/month/day (of a date; strings and timestamps cast)
// and hour/minute/second (of a timestamp's wall-clock time in the session
// time zone), as int.
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
			loc := ctx.Loc()
			return mapValues(ctx.Mem, int32Type, a[0], n, func(b array.Builder, i int) {
				var t time.Time
				if ofTime {
					t = time.UnixMicro(sparktype.WallMicros(fn.TimestampMicros(a[0].(*array.Timestamp), i), loc))
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
func bindUnixTimestamp(nowWithoutArgs bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if !nowWithoutArgs && len(args) == 0 {
			return fn.Bound{}, arity(args, 1, 2)
		}
		return unixTimestamp(args)
	}
}

func unixTimestamp(args []fn.Arg) (fn.Bound, error) {
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
	pc, err := newCache(args, 1, DefaultPattern, compileParsePattern)
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

// bindFromUnixtime: from_unixtime(seconds[, fmt]) formats in the session
// time zone.
func bindFromUnixtime(args []fn.Arg) (fn.Bound, error) {
	if len(args) > 0 {
		if dt := args[0].Type; !isNumeric(dt) && !isStringType(dt) && !isNull(dt) {
			return fn.Bound{}, argErr(0, args[0], "a number of seconds")
		}
	}
	return bindFormat(args, "l|s", true, func(a arrow.Array, i int) int64 {
		return a.(*array.Int64).Value(i) * 1_000_000
	})
}

// bindDateFormat: date_format(ts, fmt) formats a timestamp (strings and
// dates cast) in the session time zone; a timestamp_ntz is its own
// wall-clock time.
func bindDateFormat(args []fn.Arg) (fn.Bound, error) {
	zoned := true
	if t, ok := args[0].Type.(*arrow.TimestampType); ok && t.TimeZone == "" {
		zoned = false
	}
	b, err := bindFormat(args, "Ts", zoned, func(a arrow.Array, i int) int64 {
		return fn.TimestampMicros(a.(*array.Timestamp), i)
	})
	if err == nil && args[0].Type.ID() == arrow.TIMESTAMP {
		b.Args[0] = nil // any unit: no cast to microseconds first
	}
	return b, err
}

// bindFormat formats the instant micros(a[0], i) with the pattern of the
// second argument (yyyy-MM-dd HH:mm:ss when absent), in the session time
// zone when zoned, else as the wall-clock time it is.
func bindFormat(args []fn.Arg, kinds string, zoned bool, micros func(arrow.Array, int) int64) (fn.Bound, error) {
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
		var loc *time.Location
		if zoned {
			loc = ctx.Loc()
		}
		size := 20 * n
		if pcs.hasFixed {
			size = (len(pcs.fixed.src) + 4) * n
		}
		return mapStringsSized(ctx, a, n, size, func(dst []byte, i int) ([]byte, bool, error) {
			p, err := pcs.at(a, i)
			if err != nil {
				return nil, false, err
			}
			return p.format(dst, micros(a[0], i), loc), true, nil
		})
	}}, nil
}
