package functions_test

import (
	"testing"
)

// Spark's examples, with the session time zone UTC.
func TestDateTimeFunctions(t *testing.T) {
	t.Parallel()
	const ref = "2015-03-05T09:32:05.359"
	runCases(t, []fcase{
		{name: "doc", fn: "to_timestamp", args: []in{col(str, "2016-12-31 00:12:00", "x", nil)}, typ: ts, want: []any{tm("2016-12-31 00:12:00"), nil, nil}},
		{name: "doc format", fn: "to_timestamp", args: []in{lit(str, "2016-12-31"), lit(str, "yyyy-MM-dd")}, want: []any{tm("2016-12-31 00:00:00")}},
		{name: "format misses", fn: "to_timestamp", args: []in{col(str, "2016-12-31", "31/12/2016 10:11", "2016-2-3"), lit(str, "dd/MM/yyyy HH:mm")}, want: []any{nil, tm("2016-12-31 10:11:00"), nil}},
		{name: "fraction, zone, text month", fn: "to_timestamp", args: []in{col(str, "05 Mar 2015 09:32:05.359 +0100"), lit(str, "dd MMM yyyy HH:mm:ss.SSS Z")}, want: []any{tm("2015-03-05 08:32:05.359")}},
		{name: "12-hour clock", fn: "to_timestamp", args: []in{col(str, "2015-03-05 09:32 PM", "2015-03-05 12:00 AM"), lit(str, "yyyy-MM-dd hh:mm a")}, want: []any{tm("2015-03-05 21:32:00"), tm("2015-03-05 00:00:00")}},
		{name: "format column", fn: "to_timestamp", args: []in{lit(str, "20150305"), col(str, "yyyyMMdd", "yyyy")}, want: []any{tm("2015-03-05 00:00:00"), nil}},
		{name: "bad pattern", fn: "to_timestamp", args: []in{lit(str, "2015"), lit(str, "YYYY")}, err: "argument 2: datetime pattern \"YYYY\": week-based letter 'Y' is not supported"},
		// timestamp.sql, date.sql: Spark refuses narrow text forms, and day-of-week letters where a pattern parses.
		{name: "narrow month", fn: "to_date", args: []in{lit(str, "26/October/2015"), lit(str, "dd/MMMMM/yyyy")}, err: "too many pattern letters: MMMMM"},
		{name: "narrow era", fn: "to_timestamp", args: []in{lit(str, "2019-10-06 A"), lit(str, "yyyy-MM-dd GGGGG")}, err: "too many pattern letters: GGGGG"},
		{name: "day of week parses", fn: "to_timestamp", args: []in{lit(str, "22 05 2020 Friday"), lit(str, "dd MM yyyy EEEE")}, err: "pattern letter 'E' cannot be used to parse"},
		{name: "bad pattern column", fn: "to_timestamp", args: []in{lit(str, "2015"), col(str, "yyyy", "QQQ yyyy")}, err: "pattern letter 'Q' cannot be used to parse"},
		{name: "timestamp in", fn: "to_timestamp", args: []in{lit(tsUS, tm("2015-03-05 09:32:05.359"))}, want: []any{tm("2015-03-05 09:32:05.359")}},
		{name: "type", fn: "to_timestamp", args: []in{lit(arrowList(str), []any{"a"})}, err: "argument 1 must be a string, a date or a timestamp, got array<string>"},
		{name: "doc", fn: "to_date", args: []in{col(str, "2009-07-30 04:17:52", nil)}, typ: date, want: []any{"2009-07-30", nil}},
		{name: "doc format", fn: "to_date", args: []in{lit(str, "2016-12-31"), lit(str, "yyyy-MM-dd")}, typ: date, want: []any{"2016-12-31"}},
		{name: "timestamp in", fn: "to_date", args: []in{lit(ts, tm("2016-12-31 23:59:59"))}, want: []any{"2016-12-31"}},
		{name: "doc units", fn: "date_trunc", args: []in{col(str, "YEAR", "MM", "DD", "HOUR", "quarter", "week", "minute", "second", "MILLISECOND", "bogus", nil), lit(str, ref)}, typ: ts,
			want: []any{tm("2015-01-01 00:00:00"), tm("2015-03-01 00:00:00"), tm("2015-03-05 00:00:00"), tm("2015-03-05 09:00:00"), tm("2015-01-01 00:00:00"),
				tm("2015-03-02 00:00:00"), tm("2015-03-05 09:32:00"), tm("2015-03-05 09:32:05"), tm("2015-03-05 09:32:05.359"), nil, nil}},
		{name: "doc", fn: "year", args: []in{col(str, "2016-07-30", nil)}, typ: i32, want: []any{int32(2016), nil}},
		{name: "timestamp", fn: "year", args: []in{lit(ts, tm("1969-12-31 23:59:59"))}, want: []any{int32(1969)}},
		{name: "doc", fn: "month", args: []in{lit(str, "2016-07-30")}, want: []any{int32(7)}},
		{name: "doc", fn: "day", args: []in{lit(str, "2009-07-30")}, want: []any{int32(30)}},
		{name: "date", fn: "dayofmonth", args: []in{lit(date, tm("2009-07-30 00:00:00"))}, want: []any{int32(30)}},
		{name: "doc", fn: "hour", args: []in{col(str, "2009-07-30 12:58:59", "bad")}, typ: i32, want: []any{int32(12), nil}},
		{name: "type", fn: "hour", args: []in{lit(i64, 1)}, err: "argument 1 must be a timestamp, a date or a string, got long"},
		{name: "statement time", fn: "current_timestamp", args: nil, typ: ts, want: []any{tm("2024-05-06 07:08:09")}},
		{name: "arity", fn: "current_timestamp", args: []in{lit(i64, 1)}, err: "takes 0 arguments, got 1"},
		{name: "doc", fn: "unix_timestamp", args: []in{lit(str, "2016-04-08"), lit(str, "yyyy-MM-dd")}, typ: i64, want: []any{int64(1460073600)}},
		{name: "default format", fn: "unix_timestamp", args: []in{col(str, "1970-01-01 00:01:40", "1970-01-01", nil)}, want: []any{int64(100), nil, nil}},
		{name: "timestamp", fn: "unix_timestamp", args: []in{lit(ts, tm("1969-12-31 23:59:59.5"))}, want: []any{int64(-1)}},
		{name: "now", fn: "unix_timestamp", args: nil, want: []any{int64(1714979289)}},
		{name: "narrow day of week", fn: "unix_timestamp", args: []in{lit(str, "22 05 2020 Friday"), lit(str, "dd MM yyyy EEEEE")}, err: "too many pattern letters: EEEEE"},
		{name: "doc", fn: "from_unixtime", args: []in{lit(i64, 0), lit(str, "yyyy-MM-dd HH:mm:ss")}, typ: str, want: []any{"1970-01-01 00:00:00"}},
		{name: "default format", fn: "from_unixtime", args: []in{col(i64, 1460073600, nil)}, want: []any{"2016-04-08 00:00:00", nil}},
		{name: "letters", fn: "from_unixtime", args: []in{lit(i64, 1460114130), lit(str, "EEE, d MMMM yy h:mm a 'Q'Q z XXX")}, want: []any{"Fri, 8 April 16 11:15 AM Q2 UTC Z"}},
		{name: "doc", fn: "date_format", args: []in{lit(str, "2016-04-08"), lit(str, "y")}, typ: str, want: []any{"2016"}},
		{name: "fraction", fn: "date_format", args: []in{lit(ts, tm("2016-04-08 01:02:03.045")), lit(str, "HH:mm:ss.SSS[ 'opt']")}, want: []any{"01:02:03.045 opt"}},
	})
}

func TestDateTimeArity(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "none", fn: "from_unixtime", args: nil, err: "takes 1 to 2 arguments, got 0"},
		{name: "type", fn: "from_unixtime", args: []in{lit(boolT, true)}, err: "argument 1 must be a number of seconds, got boolean"},
		{name: "none", fn: "date_format", args: []in{lit(str, "2016-04-08")}, err: "takes 2 arguments, got 1"},
	})
}
