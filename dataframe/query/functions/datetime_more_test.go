package functions_test

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
)

func TestMoreDatetimeFunctions(t *testing.T) {
	t.Parallel()
	d := func(s string) any { return tm(s + " 00:00:00") }
	ntz := &arrow.TimestampType{Unit: arrow.Microsecond}
	dec86 := &arrow.Decimal128Type{Precision: 8, Scale: 6}
	maxTS := time.UnixMicro(math.MaxInt64).UTC() // the last microsecond of Spark's timestamp range
	runCases(t, []fcase{
		{name: "strings and timestamps", fn: "date_add", args: []in{col(str, "2016-07-30", "x", nil), lit(i32, 1)}, typ: date, want: []any{"2016-07-31", nil, nil}},
		{name: "from timestamp", fn: "date_add", args: []in{lit(ts, tm("2016-07-30 23:00:00")), lit(i32, -31)}, want: []any{"2016-06-29"}},
		{name: "days not a number", fn: "date_add", args: []in{lit(str, "2016-07-30"), lit(f64, 1.5)}, err: "argument 2 must be an int, smallint or tinyint number of days, got double"},
		// date.sql: a bigint is refused, not narrowed; a literal string must be a whole int.
		{name: "days bigint", fn: "date_add", args: []in{lit(str, "2011-11-11"), lit(i64, 1)}, err: "argument 2 must be an int, smallint or tinyint number of days, got long"},
		{name: "days string", fn: "date_add", args: []in{lit(str, "2011-11-11"), lit(str, " 1 ")}, want: []any{"2011-11-12"}},
		{name: "days string fraction", fn: "date_add", args: []in{lit(str, "2011-11-11"), lit(str, "1.2")}, err: "argument 2 must be a whole number of days, got '1.2'"},
		{name: "days string fraction", fn: "date_sub", args: []in{lit(date, d("2011-11-11")), lit(str, "1.2")}, err: "argument 2 must be a whole number of days, got '1.2'"},
		// Spark (date.sql): a column of strings is refused, a literal taken.
		{name: "days string column", fn: "date_sub", args: []in{lit(date, d("2011-11-11")), col(str, "1", "1.2", "x")}, err: "a string only as a literal"},
		{name: "alias", fn: "dateadd", args: []in{lit(date, d("2020-02-28")), lit(i32, 2)}, want: []any{"2020-03-01"}},
		{name: "back", fn: "date_sub", args: []in{lit(date, d("2020-03-01")), col(i32, 1, nil)}, want: []any{"2020-02-29", nil}},
		{name: "signs", fn: "datediff", args: []in{col(str, "2009-07-31", "2009-07-30"), lit(str, "2009-07-30 23:59:59")}, typ: i32, want: []any{int32(1), int32(0)}},
		{name: "month ends", fn: "add_months", args: []in{col(str, "2016-08-31", "2016-01-31", "2016-02-29"), col(i32, 1, 1, 12)}, typ: date, want: []any{"2016-09-30", "2016-02-29", "2017-02-28"}},
		{name: "whole months", fn: "months_between", args: []in{col(str, "2017-03-31", "1997-02-28 10:30:00"), col(str, "2017-02-28", "1996-10-30")}, typ: f64, want: []any{1.0, 3.94959677}},
		{name: "unrounded", fn: "months_between", args: []in{lit(str, "1997-02-28 10:30:00"), lit(str, "1996-10-30"), lit(boolT, false)}, want: []any{3.9495967741935485}},
		{name: "names", fn: "next_day", args: []in{lit(str, "2015-01-14"), col(str, "TU", "wednesday", "Wed", "x")}, typ: date, want: []any{"2015-01-20", "2015-01-21", "2015-01-21", nil}},
		{name: "leap", fn: "last_day", args: []in{col(str, "2020-02-10", "2019-12-31", nil)}, typ: date, want: []any{"2020-02-29", "2019-12-31", nil}},
		{name: "invalid", fn: "make_date", args: []in{col(i32, 2019, 2019, 2019), col(i32, 2, 2, 13), col(i32, 28, 29, 1)}, typ: date, want: []any{"2019-02-28", nil, nil}},
		{name: "second 60", fn: "make_timestamp", args: []in{lit(i32, 2019), lit(i32, 6), lit(i32, 30), lit(i32, 23), lit(i32, 59), col(dec86, "60.000000", "60.5", "59.999")},
			typ: ts, want: []any{tm("2019-07-01 00:00:00"), nil, tm("2019-06-30 23:59:59.999")}},
		{name: "zone", fn: "make_timestamp", args: []in{lit(i32, 2014), lit(i32, 12), lit(i32, 28), lit(i32, 6), lit(i32, 30), lit(f64, 45.887), col(str, "CET", "UTC", "Nowhere/Zone")},
			want: []any{tm("2014-12-28 05:30:45.887"), tm("2014-12-28 06:30:45.887"), nil}},
		{name: "dst", fn: "from_utc_timestamp", args: []in{col(ts, tm("2021-07-01 12:00:00"), tm("2021-01-01 12:00:00")), lit(str, "Europe/Paris")}, typ: ts,
			want: []any{tm("2021-07-01 14:00:00"), tm("2021-01-01 13:00:00")}},
		{name: "dst", fn: "to_utc_timestamp", args: []in{col(ts, tm("2021-07-01 14:00:00"), tm("2021-01-01 13:00:00")), lit(str, "Europe/Paris")},
			want: []any{tm("2021-07-01 12:00:00"), tm("2021-01-01 12:00:00")}},
		{name: "bad zone", fn: "to_utc_timestamp", args: []in{lit(str, "2021-01-01"), lit(str, "Mars/Base")}, err: `unknown time zone "Mars/Base"`},
		{name: "from session zone", fn: "convert_timezone", args: []in{lit(str, "Asia/Tokyo"), lit(str, "2021-12-06 00:00:00")}, typ: ntz,
			want: []any{tm("2021-12-06 09:00:00")}},
		{name: "fractions", fn: "timestamp_seconds", args: []in{col(f64, 1.5, -0.5)}, typ: ts, want: []any{tm("1970-01-01 00:00:01.5"), tm("1969-12-31 23:59:59.5")}},
		{name: "decimal", fn: "timestamp_seconds", args: []in{lit(dec51, "1.5")}, want: []any{tm("1970-01-01 00:00:01.5")}},
		// timestamp.sql: overflows and sub-microsecond digits are errors even without ANSI mode.
		{name: "overflow", fn: "timestamp_millis", args: []in{lit(i64, 92233720368547758)}, err: "long overflow: 92233720368547758 milliseconds is beyond the timestamp range"},
		{name: "negative overflow", fn: "timestamp_millis", args: []in{lit(i64, -92233720368547758)}, err: "long overflow"},
		{name: "overflow", fn: "timestamp_seconds", args: []in{col(i64, 1, 1230219000123123)}, err: "long overflow: 1230219000123123 seconds"},
		{name: "rounding", fn: "timestamp_seconds", args: []in{lit(&arrow.Decimal128Type{Precision: 7, Scale: 7}, "0.1234567")}, err: "rounding necessary: 0.1234567 seconds"},
		{name: "exact digits", fn: "timestamp_seconds", args: []in{lit(&arrow.Decimal128Type{Precision: 8, Scale: 7}, "1.2345670")}, typ: ts, want: []any{tm("1970-01-01 00:00:01.234567")}},
		{name: "double saturates", fn: "timestamp_seconds", args: []in{col(f64, 1e300, math.NaN(), math.Inf(-1))}, want: []any{maxTS, nil, nil}},
		{name: "micros", fn: "timestamp_micros", args: []in{col(i64, math.MaxInt64)}, want: []any{maxTS}},
		{name: "floors", fn: "unix_seconds", args: []in{col(ts, tm("1969-12-31 23:59:59.5"))}, typ: i64, want: []any{int64(-1)}},
		{name: "millis", fn: "unix_millis", args: []in{col(ts, tm("1970-01-01 00:00:01.25"))}, want: []any{int64(1250)}},
		{name: "days", fn: "unix_date", args: []in{col(date, d("1970-01-02"), d("1969-12-31"))}, typ: i32, want: []any{int32(1), int32(-1)}},
		{name: "back", fn: "date_from_unix_date", args: []in{col(i32, 1, -1)}, typ: date, want: []any{"1970-01-02", "1969-12-31"}},
		{name: "sunday one", fn: "dayofweek", args: []in{col(str, "2009-07-26", "2009-07-30")}, want: []any{int32(1), int32(5)}},
		{name: "monday zero", fn: "weekday", args: []in{col(str, "2009-07-27", "2009-07-26")}, want: []any{int32(0), int32(6)}},
		{name: "iso year boundary", fn: "weekofyear", args: []in{col(str, "2021-01-03", "2020-12-31", "2021-01-04")}, want: []any{int32(53), int32(53), int32(1)}},
		{name: "day of year", fn: "dayofyear", args: []in{col(str, "2016-12-31")}, want: []any{int32(366)}},
		{name: "quarters", fn: "quarter", args: []in{col(str, "2016-01-01", "2016-12-31")}, want: []any{int32(1), int32(4)}},
		{name: "units", fn: "trunc", args: []in{lit(str, "2019-08-04"), col(str, "week", "QUARTER", "mon", "yy", "dd", nil)}, typ: date,
			want: []any{"2019-07-29", "2019-07-01", "2019-08-01", "2019-01-01", nil, nil}},
		{name: "fields", fn: "date_part", args: []in{col(str, "YEAROFWEEK", "dow", "DOW_ISO", "doy", "hours", "MINS"), lit(ts, tm("2021-01-03 04:05:06"))},
			err: "argument 1 must be a field name literal"},
		{name: "iso year", fn: "date_part", args: []in{lit(str, "YEAROFWEEK"), lit(str, "2021-01-03")}, typ: i32, want: []any{int32(2020)}},
		{name: "iso dow", fn: "extract", args: []in{lit(str, "dow_iso"), lit(str, "2021-01-03")}, want: []any{int32(7)}},
		{name: "seconds", fn: "date_part", args: []in{lit(str, "s"), col(ts, tm("2021-01-03 04:05:06.25"), nil)}, typ: dec86, want: []any{"6.250000", nil}},
		{name: "hour of date", fn: "datepart", args: []in{lit(str, "HOUR"), lit(date, d("2021-01-03"))}, want: []any{int32(0)}},
		{name: "unknown field", fn: "date_part", args: []in{lit(str, "EPOCH"), lit(str, "2021-01-03")}, err: `unknown field "EPOCH"`},
		{name: "months", fn: "timestampadd", args: []in{lit(str, "month"), col(i64, 1, -1, 12), lit(ts, tm("2020-01-31 10:00:00"))}, typ: ts,
			want: []any{tm("2020-02-29 10:00:00"), tm("2019-12-31 10:00:00"), tm("2021-01-31 10:00:00")}},
		{name: "quarters", fn: "timestampadd", args: []in{lit(str, "QUARTER"), lit(i32, 1), lit(date, d("2020-01-31"))}, want: []any{tm("2020-04-30 00:00:00")}},
		{name: "bad unit", fn: "timestampadd", args: []in{lit(str, "fortnight"), lit(i32, 1), lit(date, d("2020-01-31"))}, err: "argument 1 must be a unit"},
		{name: "three-argument date_add", fn: "date_add", args: []in{lit(str, "DAY"), lit(i32, 1), lit(ts, tm("2020-01-31 10:00:00"))}, typ: ts, want: []any{tm("2020-02-01 10:00:00")}},
		{name: "truncation", fn: "timestampdiff", args: []in{lit(str, "MONTH"), col(ts, tm("2022-01-31 00:00:00"), tm("2022-03-31 00:00:00"), tm("2022-01-15 12:00:00")),
			col(ts, tm("2022-02-28 00:00:00"), tm("2022-01-31 00:00:00"), tm("2022-02-15 11:59:59"))}, typ: i64, want: []any{int64(0), int64(-2), int64(0)}},
		{name: "seconds", fn: "timestampdiff", args: []in{lit(str, "SECOND"), lit(ts, tm("2022-01-01 00:00:00")), lit(ts, tm("2021-12-31 23:59:58.5"))}, want: []any{int64(-1)}},
		{name: "three-argument datediff", fn: "datediff", args: []in{lit(str, "YEAR"), lit(str, "2020-02-29"), lit(str, "2021-02-28")}, typ: i64, want: []any{int64(0)}},
		{name: "session date", fn: "current_date", args: nil, typ: date, want: []any{"2024-05-06"}},
		{name: "session zone", fn: "current_timezone", args: nil, want: []any{"UTC"}},
		{name: "wall clock", fn: "localtimestamp", args: nil, typ: ntz, want: []any{tm("2024-05-06 07:08:09")}},
	})
}
