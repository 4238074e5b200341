package functions

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// ntzType is Spark's timestamp_ntz: a wall-clock time without a zone, in
// microseconds.
var ntzType = sparktype.TimestampNTZType

const (
	usPerSecond = 1_000_000
	usPerDay    = 86_400 * usPerSecond
)

func dayTime(days int32) time.Time { return time.Unix(int64(days)*86400, 0).UTC() }

func timeDays(t time.Time) int32 {
	return int32(floorDivInt(t.Unix(), 86400))
}

func defDatetime() {
	def(fn.Scalar{Name: "current_date", Group: gDatetime, Signature: "current_date()", Returns: "date", Bind: bindNow(dateType),
		Doc: "The date the statement started, in the session time zone. `current_date` without parentheses is the same."},
		aliases("curdate"), pretty(namedAs("current_date")))
	def(fn.Scalar{Name: "localtimestamp", Group: gDatetime, Signature: "localtimestamp()", Returns: "timestamp_ntz", Bind: bindNow(ntzType),
		Doc: "The wall-clock time the statement started, in the session time zone, without a zone."})
	def(fn.Scalar{Name: "current_timezone", Group: gDatetime, Signature: "current_timezone()", Returns: "string",
		Bind: func(args []fn.Arg) (fn.Bound, error) {
			if err := arity(args, 0, 0); err != nil {
				return fn.Bound{}, err
			}
			return fn.Bound{Type: stringType, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
				b := array.NewStringBuilder(ctx.Mem)
				defer b.Release()
				for i := 0; i < n; i++ {
					b.Append(zoneID(ctx.Loc()))
				}
				return b.NewArray(), nil
			}}, nil
		},
		Doc:      "The session time zone (`spark.sql.session.timeZone`, UTC unless set).",
		Examples: ex("current_timezone()", "UTC")})
	def(fn.Scalar{Name: "date_add", Group: gDatetime, Signature: "date_add(start_date, num_days)", Returns: "date",
		Bind: bindDateAddDays(1),
		Doc: "The date `num_days` after `start_date` (strings and timestamps convert to a date). `num_days` is an int, smallint " +
			"or tinyint, or a string literal holding a whole number (`'1.2'` is an error; a column of strings is refused). With three arguments it is " +
			"`timestampadd`.",
		Examples: ex("date_add('2016-07-30', 1)", "2016-07-31", "date_add(DATE '2016-07-30', -31)", "2016-06-29")},
		aliases("dateadd"), pretty(namedAs("date_add")))
	def(fn.Scalar{Name: "date_sub", Group: gDatetime, Signature: "date_sub(start_date, num_days)", Returns: "date",
		Bind:     bindDateAddDays(-1),
		Doc:      "The date `num_days` before `start_date`; `num_days` as for `date_add`.",
		Examples: ex("date_sub('2016-07-30', 1)", "2016-07-29")})
	def(fn.Scalar{Name: "datediff", Group: gDatetime, Signature: "datediff(endDate, startDate)", Returns: "int",
		Bind: func(args []fn.Arg) (fn.Bound, error) {
			if len(args) == 3 {
				return bindTimestampDiff(args)
			}
			return rows("DD", int32Type, always(func(r row) int32 { return r.days(0) - r.days(1) }))(args)
		},
		Doc:      "The number of days from `startDate` to `endDate`. With three arguments it is `timestampdiff`.",
		Examples: ex("datediff('2009-07-31', '2009-07-30')", "1", "datediff('2009-07-30', '2009-07-31')", "-1")},
		aliases("date_diff"))
	def(fn.Scalar{Name: "add_months", Group: gDatetime, Signature: "add_months(start_date, num_months)", Returns: "date",
		Bind: rows("Di", dateType, func(r row) (int32, bool) {
			return addMonths(r.days(0), r.int(1, 0))
		}),
		Doc:      "The date `num_months` after `start_date`; a day past the end of the target month becomes its last day.",
		Examples: ex("add_months('2016-08-31', 1)", "2016-09-30", "add_months('2016-08-31', -6)", "2016-02-29")})
	def(fn.Scalar{Name: "months_between", Group: gDatetime, Signature: "months_between(timestamp1, timestamp2[, roundOff])", Returns: "double",
		Bind: rows("TT|b", float64Type, always(func(r row) float64 {
			return monthsBetween(r.wall(0), r.wall(1), r.boolean(2, true))
		})),
		Doc: "The months from `timestamp2` to `timestamp1`: whole months when the days of month match or both are month ends, " +
			"otherwise with a fraction of a 31-day month, rounded to 8 digits unless `roundOff` is false.",
		Examples: ex("months_between('1997-02-28 10:30:00', '1996-10-30')", "3.94959677",
			"months_between('1997-02-28 10:30:00', '1996-10-30', false)", "3.9495967741935485")},
		pretty(withDefaults(3, "true")))
	def(fn.Scalar{Name: "next_day", Group: gDatetime, Signature: "next_day(start_date, day_of_week)", Returns: "date",
		Bind: rows("Ds", dateType, func(r row) (int32, bool) {
			wd, ok := weekdayNames[strings.ToUpper(strings.TrimSpace(r.str(1, "")))]
			if !ok {
				return 0, false
			}
			d := r.days(0)
			cur := int(dayTime(d).Weekday())
			ahead := (int(wd) - cur + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			return d + int32(ahead), true
		}),
		Doc:      "The first date after `start_date` that falls on `day_of_week` (`MO`, `MON`, `MONDAY`, … any case); NULL for another name.",
		Examples: ex("next_day('2015-01-14', 'TU')", "2015-01-20", "next_day('2015-01-14', 'xx')", "NULL")})
	def(fn.Scalar{Name: "last_day", Group: gDatetime, Signature: "last_day(date)", Returns: "date",
		Bind: rows("D", dateType, always(func(r row) int32 {
			t := dayTime(r.days(0))
			return timeDays(time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC))
		})),
		Doc:      "The last day of the month `date` is in.",
		Examples: ex("last_day('2009-01-12')", "2009-01-31")})
	def(fn.Scalar{Name: "make_date", Group: gDatetime, Signature: "make_date(year, month, day)", Returns: "date",
		Bind: rows("iii", dateType, func(r row) (int32, bool) {
			return fn.CivilDays(int(r.int(0, 0)), int(r.int(1, 0)), int(r.int(2, 0)))
		}),
		Doc:      "The date of the given fields; NULL when they are not a valid date.",
		Examples: ex("make_date(2013, 7, 15)", "2013-07-15", "make_date(2019, 7, NULL)", "NULL", "make_date(2019, 13, 1)", "NULL")})
	def(fn.Scalar{Name: "make_timestamp", Group: gDatetime, Signature: "make_timestamp(year, month, day, hour, min, sec[, timezone])",
		Returns: "timestamp", Bind: bindMakeTimestamp(timestampType),
		Doc: "The timestamp of the given fields (`sec` may have a fraction; 60 means the next minute when the fraction is 0) " +
			"read in `timezone` (the session time zone by default); NULL when they are not valid.",
		Examples: ex("make_timestamp(2014, 12, 28, 6, 30, 45.887)", "2014-12-28 06:30:45.887",
			"make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET')", "2014-12-28 05:30:45.887",
			"make_timestamp(2019, 6, 30, 23, 59, 60)", "2019-07-01 00:00:00", "make_timestamp(2019, 6, 30, 23, 59, 1)", "2019-06-30 23:59:01",
			"make_timestamp(null, 7, 22, 15, 30, 0)", "NULL")},
		aliases("make_timestamp_ltz"))
	def(fn.Scalar{Name: "make_timestamp_ntz", Group: gDatetime, Signature: "make_timestamp_ntz(year, month, day, hour, min, sec)",
		Returns: "timestamp_ntz", Bind: bindMakeTimestamp(ntzType),
		Doc:      "`make_timestamp` without a time zone.",
		Examples: ex("make_timestamp_ntz(2014, 12, 28, 6, 30, 45.887)", "2014-12-28 06:30:45.887")})
	def(fn.Scalar{Name: "to_timestamp_ntz", Group: gDatetime, Signature: "to_timestamp_ntz(expr[, fmt])", Returns: "timestamp_ntz",
		Bind: func(args []fn.Arg) (fn.Bound, error) {
			b, err := bindToTimestamp(false)(args)
			if err != nil {
				return b, err
			}
			eval := b.Eval
			b.Type = ntzType
			zoned := false
			if t, ok := args[0].Type.(*arrow.TimestampType); ok && t.TimeZone != "" {
				zoned = true
			}
			b.Eval = func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				if zoned { // an instant's wall-clock time in the session time zone
					return ctx.Cast(a[0], ntzType)
				}
				// Text and dates are wall-clock times: read them in UTC
				// so the instant's digits are theirs.
				ts, err := eval(&fn.Ctx{Mem: ctx.Mem, Now: ctx.Now}, a, n)
				if err != nil {
					return nil, err
				}
				defer ts.Release()
				return retype(ts, ntzType), nil
			}
			return b, nil
		},
		Doc:      "`to_timestamp` giving a timestamp without a time zone.",
		Examples: ex("to_timestamp_ntz('2016-12-31 00:12:00')", "2016-12-31 00:12:00")})
	def(fn.Scalar{Name: "from_utc_timestamp", Group: gDatetime, Signature: "from_utc_timestamp(timestamp, timezone)", Returns: "timestamp",
		Bind: bindShiftZone(false),
		Doc:  "The wall-clock time in `timezone` of `timestamp` read as UTC, as a timestamp.",
		Examples: ex("from_utc_timestamp('2016-08-31', 'Asia/Seoul')", "2016-08-31 09:00:00",
			"from_utc_timestamp(TIMESTAMP '2016-08-31 00:00:00', 'America/New_York')", "2016-08-30 20:00:00")})
	def(fn.Scalar{Name: "to_utc_timestamp", Group: gDatetime, Signature: "to_utc_timestamp(timestamp, timezone)", Returns: "timestamp",
		Bind:     bindShiftZone(true),
		Doc:      "The UTC time of the wall-clock time `timestamp` in `timezone`.",
		Examples: ex("to_utc_timestamp('2016-08-31', 'Asia/Seoul')", "2016-08-30 15:00:00")})
	def(fn.Scalar{Name: "convert_timezone", Group: gDatetime, Signature: "convert_timezone([sourceTz, ]targetTz, sourceTs)", Returns: "timestamp_ntz",
		Bind: bindConvertTimezone,
		Doc:  "The wall-clock time in `targetTz` of the wall-clock time `sourceTs` in `sourceTz` (the session time zone by default).",
		Examples: ex("convert_timezone('Europe/Brussels', 'America/Los_Angeles', timestamp_ntz'2021-12-06 00:00:00')", "2021-12-05 15:00:00",
			"convert_timezone('Europe/Brussels', 'America/Los_Angeles', '2021-12-06 00:00:00')", "2021-12-05 15:00:00",
			"convert_timezone('Europe/Brussels', '2021-12-05 15:00:00')", "2021-12-05 16:00:00")},
		pretty(func(name string, args []string) string {
			if len(args) == 2 {
				args = append([]string{"current_timezone()"}, args...)
			}
			return callName(name, args)
		}))
	def(fn.Scalar{Name: "timestamp_seconds", Group: gDatetime, Signature: "timestamp_seconds(seconds)", Returns: "timestamp",
		Bind: bindEpochTimestamp(usPerSecond),
		Doc: "The instant `seconds` (an integer, or a fraction) after 1970-01-01 00:00:00 UTC. As in Spark, an integer " +
			"beyond the timestamp range and a decimal with digits finer than a microsecond are errors; a double beyond the " +
			"range stops at its end, and NaN or an infinity gives NULL.",
		Examples: ex("timestamp_seconds(1230219000)", "2008-12-25 15:30:00", "timestamp_seconds(1230219000.123)", "2008-12-25 15:30:00.123")})
	def(fn.Scalar{Name: "timestamp_millis", Group: gDatetime, Signature: "timestamp_millis(milliseconds)", Returns: "timestamp",
		Bind:     bindEpochTimestamp(1000),
		Doc:      "The instant `milliseconds` after 1970-01-01 00:00:00 UTC; beyond the timestamp range it is an error.",
		Examples: ex("timestamp_millis(1230219000123)", "2008-12-25 15:30:00.123")})
	def(fn.Scalar{Name: "timestamp_micros", Group: gDatetime, Signature: "timestamp_micros(microseconds)", Returns: "timestamp",
		Bind:     bindEpochTimestamp(1),
		Doc:      "The instant `microseconds` after 1970-01-01 00:00:00 UTC.",
		Examples: ex("timestamp_micros(1230219000123123)", "2008-12-25 15:30:00.123123")})
	for _, u := range []struct {
		name string
		per  int64
		ex   string
	}{{"unix_seconds", usPerSecond, "1"}, {"unix_millis", 1000, "1000"}, {"unix_micros", 1, "1000000"}} {
		per := u.per
		def(fn.Scalar{Name: u.name, Group: gDatetime, Signature: u.name + "(timestamp)", Returns: "bigint",
			Bind:     rows("T", int64Type, always(func(r row) int64 { return floorDivInt(r.micros(0), per) })),
			Doc:      "The " + strings.TrimPrefix(u.name, "unix_") + " since 1970-01-01 00:00:00 UTC, rounded down.",
			Examples: ex(u.name+"(TIMESTAMP('1970-01-01 00:00:01Z'))", u.ex)})
	}
	def(fn.Scalar{Name: "unix_date", Group: gDatetime, Signature: "unix_date(date)", Returns: "int",
		Bind: rows("D", int32Type, always(func(r row) int32 { return r.days(0) })),
		Doc:  "The days since 1970-01-01.", Examples: ex(`unix_date(DATE("1970-01-02"))`, "1")})
	def(fn.Scalar{Name: "date_from_unix_date", Group: gDatetime, Signature: "date_from_unix_date(days)", Returns: "date",
		Bind: rows("i", dateType, always(func(r row) int32 { return int32(r.int(0, 0)) })),
		Doc:  "The date `days` after 1970-01-01.", Examples: ex("date_from_unix_date(1)", "1970-01-02")})
	def(fn.Scalar{Name: "dayofweek", Group: gDatetime, Signature: "dayofweek(date)", Returns: "int",
		Bind: bindDatePart(func(t time.Time) int { return int(t.Weekday()) + 1 }, false),
		Doc:  "The day of the week, 1 (Sunday) to 7 (Saturday).", Examples: ex("dayofweek('2009-07-30')", "5")})
	def(fn.Scalar{Name: "weekday", Group: gDatetime, Signature: "weekday(date)", Returns: "int",
		Bind: bindDatePart(func(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }, false),
		Doc:  "The day of the week, 0 (Monday) to 6 (Sunday).", Examples: ex("weekday('2009-07-30')", "3")})
	def(fn.Scalar{Name: "dayofyear", Group: gDatetime, Signature: "dayofyear(date)", Returns: "int",
		Bind: bindDatePart(func(t time.Time) int { return t.YearDay() }, false),
		Doc:  "The day of the year, 1 to 366.", Examples: ex("dayofyear('2016-04-09')", "100")})
	def(fn.Scalar{Name: "weekofyear", Group: gDatetime, Signature: "weekofyear(date)", Returns: "int",
		Bind: bindDatePart(func(t time.Time) int { _, w := t.ISOWeek(); return w }, false),
		Doc:  "The ISO 8601 week of the year (weeks start on Monday; week 1 has more than 3 days).", Examples: ex("weekofyear('2008-02-20')", "8")})
	def(fn.Scalar{Name: "quarter", Group: gDatetime, Signature: "quarter(date)", Returns: "int",
		Bind: bindDatePart(func(t time.Time) int { return (int(t.Month())-1)/3 + 1 }, false),
		Doc:  "The quarter of the year, 1 to 4.", Examples: ex("quarter('2016-08-31')", "3")})
	def(fn.Scalar{Name: "trunc", Group: gDatetime, Signature: "trunc(date, fmt)", Returns: "date",
		Bind: rows("Ds", dateType, func(r row) (int32, bool) {
			u, ok := truncUnits[lowerName(r.str(1, ""))]
			switch u {
			case "year", "quarter", "month", "week":
			default:
				ok = false
			}
			return int32(truncate(int64(r.days(0))*usPerDay, u) / usPerDay), ok
		}),
		Doc: "`date` truncated to the unit `fmt`: `YEAR`, `YYYY`, `YY`, `QUARTER`, `MONTH`, `MM`, `MON` or `WEEK` (to Monday); " +
			"NULL for another unit.",
		Examples: ex("trunc('2019-08-04', 'week')", "2019-07-29", "trunc('2019-08-04', 'quarter')", "2019-07-01",
			"trunc('2009-02-12', 'MM')", "2009-02-01", "trunc('2015-10-27', 'YEAR')", "2015-01-01", "trunc('2015-10-27', 'DD')", "NULL")})
	def(fn.Scalar{Name: "timestampadd", Group: gDatetime, Signature: "timestampadd(unit, quantity, timestamp)", Returns: "timestamp",
		Bind: bindTimestampAdd,
		Doc: "`timestamp` plus `quantity` units: `YEAR`, `QUARTER`, `MONTH`, `WEEK`, `DAY`, `DAYOFYEAR`, `HOUR`, `MINUTE`, " +
			"`SECOND`, `MILLISECOND`, `MICROSECOND`; months keep the day or take the month's last. The unit is a literal " +
			"(`timestampadd(HOUR, 1, ts)` in SQL syntax).",
		Examples: ex("timestampadd('HOUR', 8, timestamp'2022-02-14 01:02:03')", "2022-02-14 09:02:03",
			"timestampadd('MONTH', 1, timestamp'2022-01-31 00:00:00')", "2022-02-28 00:00:00", "timestampadd(HOUR, 8, timestamp'2022-02-14 01:02:03')", "2022-02-14 09:02:03")})
	def(fn.Scalar{Name: "timestampdiff", Group: gDatetime, Signature: "timestampdiff(unit, startTimestamp, endTimestamp)", Returns: "bigint",
		Bind: bindTimestampDiff,
		Doc:  "The whole `unit`s (as `timestampadd`) from `startTimestamp` to `endTimestamp`, truncated toward zero.",
		Examples: ex("timestampdiff('HOUR', timestamp'2022-02-14 01:02:03', timestamp'2022-02-15 01:02:03')", "24",
			"timestampdiff('MONTH', timestamp'2022-01-31 00:00:00', timestamp'2022-02-28 00:00:00')", "0",
			"timestampdiff('YEAR', date'2021-01-01', date'2022-12-31')", "1")})
	def(fn.Scalar{Name: "date_part", Group: gDatetime, Signature: "date_part(field, source)", Returns: "int; decimal(8,6) for SECOND; tinyint for an interval's MONTH, HOUR, MINUTE",
		Bind: bindDatePartField,
		Doc: "Part `field` of an interval (`YEAR`, `MONTH`, `DAY`, `HOUR`, `MINUTE`, `SECOND` within its fields; docs/sql.md#intervals) " +
			"or of a date or timestamp: `YEAR` (`Y`, `YEARS`, `YR`, `YRS`), `YEAROFWEEK`, `QUARTER` (`QTR`), " +
			"`MONTH` (`MON`, `MONS`, `MONTHS`), `WEEK` (`W`, `WEEKS`), `DAY` (`D`, `DAYS`), `DAYOFWEEK` (`DOW`, 1 = Sunday), " +
			"`DAYOFWEEK_ISO` (`DOW_ISO`, 1 = Monday), `DOY`, `HOUR` (`H`, `HOURS`, `HR`, `HRS`), `MINUTE` (`M`, `MIN`, `MINS`, " +
			"`MINUTES`), `SECOND` (`S`, `SEC`, `SECONDS`, `SECS`, with its fraction), any case. `field` is a literal. " +
			"`extract(field FROM source)` is the same in SQL syntax.",
		Examples: ex("date_part('YEAR', TIMESTAMP '2019-08-12 01:00:00.123456')", "2019", "date_part('week', timestamp'2019-08-12 01:00:00.123456')", "33",
			"date_part('doy', DATE'2019-08-12')", "224", "date_part('SECONDS', timestamp'2019-10-01 00:00:01.000001')", "1.000001",
			"date_part('SECONDS', timestamp'2019-10-01 00:00:01.5')", "1.500000",
			"extract(YEAR FROM TIMESTAMP '2019-08-12 01:00:00.123456')", "2019",
			"extract(HOUR FROM INTERVAL '1 02:03:04.5' DAY TO SECOND)", "2", "date_part('SECOND', INTERVAL '1 02:03:04.5' DAY TO SECOND)", "4.500000",
			"extract(MONTH FROM INTERVAL '-2-3' YEAR TO MONTH)", "-3")},
		aliases("datepart", "extract"), pretty(func(name string, args []string) string {
			if name != "date_part" && len(args) == 2 {
				return name + "(" + args[0] + " FROM " + args[1] + ")"
			}
			return callName(name, args)
		}))
}

// bindNow is current_date / localtimestamp: ctx.Now's wall-clock time in
// the session time zone as type t.
func bindNow(t arrow.DataType) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 0, 0); err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: t, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			us := sparktype.WallMicros(ctx.Now.UnixMicro(), ctx.Loc())
			if t.ID() == arrow.DATE32 {
				return rowsOf(ctx, t, nil, n, func(row) (int32, bool) { return int32(floorDivInt(us, usPerDay)), true }), nil
			}
			return rowsOf(ctx, t, nil, n, func(row) (int64, bool) { return us, true }), nil
		}}, nil
	}
}

// bindDateAddDays is date_add (sign 1) and date_sub (-1). As Spark's
// DateAdd/DateSub, the days are an int, smallint or tinyint (a bigint,
// decimal or double is refused, not narrowed) or a string: a literal one
// must be a whole int (Spark's SECOND_FUNCTION_ARGUMENT_NOT_INTEGER); a
// column of strings is refused, as Spark refuses it.
func bindDateAddDays(sign int64) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if len(args) == 3 && sign > 0 {
			return bindTimestampAdd(args)
		}
		if len(args) == 2 {
			switch dt := args[1].Type; dt.ID() {
			case arrow.INT8, arrow.INT16, arrow.INT32, arrow.NULL:
			case arrow.STRING, arrow.LARGE_STRING:
				// Only a literal: Spark refuses a column of strings.
				s, null, ok := constString(args[1])
				if !ok {
					return fn.Bound{}, argErr(1, args[1], "an int, smallint or tinyint number of days (a string only as a literal)")
				}
				if _, ok := parseIntExact(s); !null && !ok {
					return fn.Bound{}, fmt.Errorf("argument 2 must be a whole number of days, got '%s'", s)
				}
			default:
				return fn.Bound{}, argErr(1, args[1], "an int, smallint or tinyint number of days")
			}
		}
		return rows("Di", dateType, always(func(r row) int32 { return int32(int64(r.days(0)) + sign*r.int(1, 0)) }))(args)
	}
}

// parseIntExact is Spark's ANSI cast of a string to int
// (UTF8String.toIntExact): blanks and control characters around an
// optional sign and decimal digits, no fraction, within the int range.
func parseIntExact(s string) (int32, bool) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "" {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > math.MaxInt32+1 {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		return 0, false
	}
	return int32(v), true
}

// addMonths is java.time.LocalDate.plusMonths: the day is kept, or made
// the last of the month when that month is shorter.
func addMonths(days int32, months int64) (int32, bool) {
	t := dayTime(days)
	total := int64(t.Year())*12 + int64(t.Month()) - 1 + months
	y, m := int(floorDivInt(total, 12)), int(total-floorDivInt(total, 12)*12)+1
	last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return fn.CivilDays(y, m, min(t.Day(), last))
}

// monthsBetween is Spark's DateTimeUtils.monthsBetween of two wall-clock
// times (read as UTC).
func monthsBetween(t1, t2 int64, roundOff bool) float64 {
	d1, d2 := floorDivInt(t1, usPerDay), floorDivInt(t2, usPerDay)
	a, b := dayTime(int32(d1)), dayTime(int32(d2))
	monthDiff := float64((a.Year()*12 + int(a.Month())) - (b.Year()*12 + int(b.Month())))
	endA := a.AddDate(0, 0, 1).Month() != a.Month()
	endB := b.AddDate(0, 0, 1).Month() != b.Month()
	if a.Day() == b.Day() || endA && endB {
		return monthDiff
	}
	sec1 := (t1 - d1*usPerDay) / usPerSecond
	sec2 := (t2 - d2*usPerDay) / usPerSecond
	secondsDiff := int64(a.Day()-b.Day())*86400 + sec1 - sec2
	diff := monthDiff + float64(secondsDiff)/(31*86400)
	if roundOff {
		return math.Floor(diff*1e8+0.5) / 1e8
	}
	return diff
}

var weekdayNames = map[string]time.Weekday{}

func init() {
	for d := time.Sunday; d <= time.Saturday; d++ {
		full := strings.ToUpper(d.String())
		weekdayNames[full] = d
		weekdayNames[full[:2]] = d
		weekdayNames[full[:3]] = d
	}
}

// bindMakeTimestamp: sec is decimal(8,6), as Spark casts it.
func bindMakeTimestamp(out arrow.DataType) bindFunc {
	secType := &arrow.Decimal128Type{Precision: 8, Scale: 6}
	return func(args []fn.Arg) (fn.Bound, error) {
		maxArgs := 7
		if out == ntzType {
			maxArgs = 6
		}
		if err := arity(args, 6, maxArgs); err != nil {
			return fn.Bound{}, err
		}
		in, err := signature(args, "iiiii"+"a"+strings.Repeat("s", len(args)-6))
		if err != nil {
			return fn.Bound{}, err
		}
		if !isNumeric(args[5].Type) && !isStringType(args[5].Type) && !isNull(args[5].Type) {
			return fn.Bound{}, argErr(5, args[5], "a number of seconds")
		}
		in[5] = secType
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return rowsOf(ctx, out, a, n, func(r row) (int64, bool) {
				loc := r.loc
				if out == ntzType {
					loc = time.UTC
				}
				if len(a) == 7 {
					var ok bool
					if loc, ok = fn.ParseZone(r.str(6, "")); !ok {
						return 0, false
					}
				}
				micros := a[5].(*array.Decimal128).Value(r.i).LowBits()
				sec, frac := int(micros/usPerSecond), int(micros%usPerSecond)
				if int64(micros) < 0 || sec > 60 || sec == 60 && frac != 0 {
					return 0, false
				}
				y, mo, d, h, mi := int(r.int(0, 0)), int(r.int(1, 0)), int(r.int(2, 0)), int(r.int(3, 0)), int(r.int(4, 0))
				if _, ok := fn.CivilDays(y, mo, d); !ok || h < 0 || h > 23 || mi < 0 || mi > 59 {
					return 0, false
				}
				wall := time.Date(y, time.Month(mo), d, h, mi, sec, frac*1000, time.UTC).UnixMicro()
				return sparktype.FromWallMicros(wall, loc), true
			}), nil
		}}, nil
	}
}

// retype shares arr's buffers under another timestamp type.
func retype(arr arrow.Array, t arrow.DataType) arrow.Array {
	data := array.NewData(t, arr.Len(), arr.Data().Buffers(), nil, arr.NullN(), arr.Data().Offset())
	defer data.Release()
	return array.MakeFromData(data)
}

// zoneCache resolves time zone names, remembering the last one.
type zoneCache struct {
	name string
	loc  *time.Location
}

func (z *zoneCache) get(name string) (*time.Location, bool) {
	if z.loc != nil && z.name == name {
		return z.loc, true
	}
	loc, ok := fn.ParseZone(name)
	if ok {
		z.name, z.loc = name, loc
	}
	return loc, ok
}

// zoneOption reads the timeZone option of the JSON and CSV functions.
func zoneOption(v string) (*time.Location, error) {
	loc, ok := fn.ParseZone(v)
	if !ok {
		return nil, fmt.Errorf("unknown time zone %q", v)
	}
	return loc, nil
}

// wallToUTC is the instant whose wall-clock time in loc is the wall-clock
// time us (read as UTC), as java.time resolves gaps and overlaps.
func wallToUTC(us int64, loc *time.Location) int64 { return sparktype.FromWallMicros(us, loc) }

// utcToWall is the wall-clock time in loc of the instant us, as micros
// read as UTC.
func utcToWall(us int64, loc *time.Location) int64 { return sparktype.WallMicros(us, loc) }

func bindShiftZone(toUTC bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, "Ts")
		if err != nil {
			return fn.Bound{}, err
		}
		if z, null, ok := constString(args[1]); ok && !null {
			if _, found := fn.ParseZone(z); !found {
				return fn.Bound{}, fmt.Errorf("argument 2: unknown time zone %q", z)
			}
		}
		return fn.Bound{Type: timestampType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			var zc zoneCache
			return rowsOf(ctx, timestampType, a, n, func(r row) (int64, bool) {
				loc, ok := zc.get(r.str(1, ""))
				if !ok {
					return 0, false
				}
				if toUTC {
					return wallToUTC(r.micros(0), loc), true
				}
				return utcToWall(r.micros(0), loc), true
			}), nil
		}}, nil
	}
}

func bindConvertTimezone(args []fn.Arg) (fn.Bound, error) {
	kinds := "ssT"
	if len(args) == 2 {
		kinds = "sT"
	}
	in, err := signature(args, kinds)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: ntzType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var from, to zoneCache
		return rowsOf(ctx, ntzType, a, n, func(r row) (int64, bool) {
			src := r.loc
			k := 0
			if len(a) == 3 {
				var ok bool
				if src, ok = from.get(r.str(0, "")); !ok {
					return 0, false
				}
				k = 1
			}
			dst, ok := to.get(r.str(k, ""))
			if !ok {
				return 0, false
			}
			return utcToWall(wallToUTC(r.wall(k+1), src), dst), true
		}), nil
	}}, nil
}

// bindEpochTimestamp is timestamp_seconds (per = 1e6 µs), _millis and
// _micros: integers, or for seconds also fractions. As Spark's
// SecondsToTimestamp and MillisToTimestamp (even without ANSI mode), an
// integer whose microseconds overflow a long and a decimal with digits
// finer than a microsecond are errors; a double beyond the range saturates
// as Java's (long) cast does, and NaN or an infinity is NULL.
func bindEpochTimestamp(per int64) bindFunc {
	unit := map[int64]string{usPerSecond: "seconds", 1000: "milliseconds", 1: "microseconds"}[per]
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 1); err != nil {
			return fn.Bound{}, err
		}
		dt := args[0].Type
		switch {
		case per == usPerSecond && (dt.ID() == arrow.FLOAT64 || dt.ID() == arrow.FLOAT32):
			return rows("d", timestampType, func(r row) (int64, bool) {
				v := r.f64(0) * usPerSecond
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return 0, false
				}
				return javaLong(v), true
			})(args)
		case per == usPerSecond && dt.ID() == arrow.DECIMAL128:
			s := dt.(*arrow.Decimal128Type).Scale
			return fn.Bound{Type: timestampType, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return rowsOfErr(ctx, timestampType, a, n, func(r row) (int64, bool, error) {
					num := a[0].(*array.Decimal128).Value(r.i)
					d := num.BigInt()
					us, _ := rescaleBig(d, s, 6, floorMode)
					if back, _ := rescaleBig(us, 6, s, floorMode); back.Cmp(d) != 0 {
						return 0, false, fmt.Errorf("rounding necessary: %s seconds has digits finer than a microsecond", num.ToString(s))
					}
					if !us.IsInt64() {
						return 0, false, fmt.Errorf("overflow: %s seconds is beyond the timestamp range", num.ToString(s))
					}
					return us.Int64(), true, nil
				})
			}}, nil
		case !isIntegral(dt) && !isNull(dt):
			return fn.Bound{}, argErr(0, args[0], "an integer")
		}
		in, err := signature(args, "l")
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: timestampType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return rowsOfErr(ctx, timestampType, a, n, func(r row) (int64, bool, error) {
				v := r.long(0, 0)
				us, ok := mulExact(v, per)
				if !ok {
					return 0, false, fmt.Errorf("long overflow: %d %s is beyond the timestamp range", v, unit)
				}
				return us, true, nil
			})
		}}, nil
	}
}

// mulExact is Java's Math.multiplyExact for longs: ok is false on
// overflow.
func mulExact(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// javaLong is Java's (long) cast of a double that is not NaN: toward zero,
// saturating at the long range.
func javaLong(v float64) int64 {
	switch {
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

// extractFields maps date_part's field names to the part they extract.
var extractFields = map[string]string{}

func init() {
	for part, names := range map[string][]string{
		"year": {"YEAR", "Y", "YEARS", "YR", "YRS"}, "yearofweek": {"YEAROFWEEK"}, "quarter": {"QUARTER", "QTR"},
		"month": {"MONTH", "MON", "MONS", "MONTHS"}, "week": {"WEEK", "W", "WEEKS"}, "day": {"DAY", "D", "DAYS"},
		"dow": {"DAYOFWEEK", "DOW"}, "dow_iso": {"DAYOFWEEK_ISO", "DOW_ISO"}, "doy": {"DOY"},
		"hour": {"HOUR", "H", "HOURS", "HR", "HRS"}, "minute": {"MINUTE", "M", "MIN", "MINS", "MINUTES"},
		"second": {"SECOND", "S", "SEC", "SECONDS", "SECS"},
	} {
		for _, n := range names {
			extractFields[n] = part
		}
	}
}

func bindDatePartField(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	name, null, ok := constString(args[0])
	if !ok || null {
		return fn.Bound{}, fmt.Errorf("argument 1 must be a field name literal")
	}
	part, ok := extractFields[strings.ToUpper(strings.TrimSpace(name))]
	if !ok {
		return fn.Bound{}, fmt.Errorf("argument 1: unknown field %q (YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFWEEK, DOY, HOUR, MINUTE, SECOND…)", name)
	}
	if sparktype.IsInterval(args[1].Type) {
		return bindIntervalPart(part, args[1].Type)
	}
	if err := timeArg(args, 1); err != nil {
		return fn.Bound{}, err
	}
	switch part {
	case "hour", "minute", "second":
		if part == "second" {
			out := &arrow.Decimal128Type{Precision: 8, Scale: 6}
			return fn.Bound{Type: out, Args: []arrow.DataType{nil, tsMicros}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return rowsOf(ctx, out, a[1:], n, func(r row) (decimal128.Num, bool) {
					us := r.wall(0)
					return decimal128.FromI64(us - floorDivInt(us, 60*usPerSecond)*60*usPerSecond), true
				}), nil
			}}, nil
		}
	}
	get := func(t time.Time) int {
		switch part {
		case "year":
			return t.Year()
		case "yearofweek":
			y, _ := t.ISOWeek()
			return y
		case "quarter":
			return (int(t.Month())-1)/3 + 1
		case "month":
			return int(t.Month())
		case "week":
			_, w := t.ISOWeek()
			return w
		case "day":
			return t.Day()
		case "dow":
			return int(t.Weekday()) + 1
		case "dow_iso":
			return (int(t.Weekday())+6)%7 + 1
		case "doy":
			return t.YearDay()
		case "hour":
			return t.Hour()
		}
		return t.Minute()
	}
	ofTime := part == "hour" || part == "minute"
	b, err := bindDatePart(get, ofTime)(args[1:])
	if err != nil {
		return b, err
	}
	return fn.Bound{Type: b.Type, Args: []arrow.DataType{nil, b.Args[0]}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return b.Eval(ctx, a[1:], n)
	}}, nil
}

// timeUnits maps timestampadd's units to microseconds, or 0 for the
// calendar units.
var timeUnits = map[string]int64{
	"YEAR": 0, "QUARTER": 0, "MONTH": 0, "WEEK": 7 * usPerDay, "DAY": usPerDay, "DAYOFYEAR": usPerDay,
	"HOUR": 3600 * usPerSecond, "MINUTE": 60 * usPerSecond, "SECOND": usPerSecond, "MILLISECOND": 1000, "MICROSECOND": 1,
}

var monthsPerUnit = map[string]int64{"YEAR": 12, "QUARTER": 3, "MONTH": 1}

func unitArg(args []fn.Arg) (string, error) {
	u, null, ok := constString(args[0])
	u = strings.ToUpper(strings.TrimSpace(u))
	if _, known := timeUnits[u]; !ok || null || !known {
		return "", fmt.Errorf("argument 1 must be a unit: YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFYEAR, HOUR, MINUTE, SECOND, MILLISECOND or MICROSECOND")
	}
	return u, nil
}

func bindTimestampAdd(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 3, 3); err != nil {
		return fn.Bound{}, err
	}
	unit, err := unitArg(args)
	if err != nil {
		return fn.Bound{}, err
	}
	in, err := signature(args, "alT")
	if err != nil {
		return fn.Bound{}, err
	}
	in[0] = nil
	return fn.Bound{Type: timestampType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return rowsOf(ctx, timestampType, a[1:], n, func(r row) (int64, bool) {
			q, us := r.long(0, 0), r.micros(1)
			// Months and days are calendar ones in the session time
			// zone; shorter units are exact durations (Spark's
			// timestampAdd).
			if m, ok := monthsPerUnit[unit]; ok {
				wall, ok := addMonthsMicros(sparktype.WallMicros(us, r.loc), q*m)
				return sparktype.FromWallMicros(wall, r.loc), ok
			}
			per := timeUnits[unit]
			if per%usPerDay == 0 {
				v := new(big.Int).Mul(big.NewInt(q), big.NewInt(per))
				v.Add(v, big.NewInt(sparktype.WallMicros(us, r.loc)))
				return sparktype.FromWallMicros(v.Int64(), r.loc), v.IsInt64()
			}
			v := new(big.Int).Mul(big.NewInt(q), big.NewInt(per))
			v.Add(v, big.NewInt(us))
			return v.Int64(), v.IsInt64()
		}), nil
	}}, nil
}

// addMonthsMicros adds months to the wall-clock time us (UTC), keeping the
// time of day.
func addMonthsMicros(us, months int64) (int64, bool) {
	day := floorDivInt(us, usPerDay)
	d, ok := addMonths(int32(day), months)
	return int64(d)*usPerDay + (us - day*usPerDay), ok
}

func bindTimestampDiff(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 3, 3); err != nil {
		return fn.Bound{}, err
	}
	unit, err := unitArg(args)
	if err != nil {
		return fn.Bound{}, err
	}
	in, err := signature(args, "aTT")
	if err != nil {
		return fn.Bound{}, err
	}
	in[0] = nil
	return fn.Bound{Type: int64Type, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return rowsOf(ctx, int64Type, a[1:], n, func(r row) (int64, bool) {
			// Between the wall-clock times in the session time zone, as
			// Spark's timestampDiff.
			start, end := r.wall(0), r.wall(1)
			if m, ok := monthsPerUnit[unit]; ok {
				return monthsDiff(start, end) / m, true
			}
			return (end - start) / timeUnits[unit], true
		}), nil
	}}, nil
}

// monthsDiff is java.time's ChronoUnit.MONTHS.between for wall-clock
// times: whole months, truncated toward zero.
func monthsDiff(start, end int64) int64 {
	sd, ed := floorDivInt(start, usPerDay), floorDivInt(end, usPerDay)
	s, e := dayTime(int32(sd)), dayTime(int32(ed))
	months := int64((e.Year()-s.Year())*12 + int(e.Month()) - int(s.Month()))
	// The rest of the end within its month versus the start's.
	sRest := int64(s.Day())*usPerDay + (start - sd*usPerDay)
	eRest := int64(e.Day())*usPerDay + (end - ed*usPerDay)
	if months > 0 && eRest < sRest {
		months--
	} else if months < 0 && eRest > sRest {
		months++
	}
	return months
}
