package query_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Interval literals: their type (Spark 3.5's: year-month, day-time with
// its fields, or calendar when units mix) and their generated names.
func TestIntervalLiterals(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT INTERVAL '2' DAY, INTERVAL '2-2' YEAR TO MONTH, INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '2' SECOND",
			schema: "struct<INTERVAL '2' DAY:interval day,INTERVAL '2-2' YEAR TO MONTH:interval year to month," +
				"INTERVAL '1 02:03:04.5' DAY TO SECOND:interval day to second,INTERVAL '02' SECOND:interval second>",
			rows: []string{"INTERVAL '2' DAY\tINTERVAL '2-2' YEAR TO MONTH\tINTERVAL '1 02:03:04.5' DAY TO SECOND\tINTERVAL '02' SECOND"}},
		{q: "SELECT INTERVAL 1 DAY, INTERVAL 23 days 4 hours, INTERVAL 1 day 2 hours, INTERVAL '10' MONTH, INTERVAL 2 YEARS",
			schema: "struct<INTERVAL '1' DAY:interval day,INTERVAL '23 04' DAY TO HOUR:interval day to hour,INTERVAL '1 02' DAY TO HOUR:interval day to hour," +
				"INTERVAL '10' MONTH:interval month,INTERVAL '2' YEAR:interval year>",
			rows: []string{"INTERVAL '1' DAY\tINTERVAL '23 04' DAY TO HOUR\tINTERVAL '1 02' DAY TO HOUR\tINTERVAL '10' MONTH\tINTERVAL '2' YEAR"}},
		{q: "SELECT INTERVAL '-2' DAY, INTERVAL -'2' DAY, INTERVAL -'-2' DAY, INTERVAL '-1-2' YEAR TO MONTH, INTERVAL -'1 2:03' DAY TO MINUTE",
			schema: "struct<INTERVAL '-2' DAY:interval day,INTERVAL '-2' DAY:interval day,INTERVAL '2' DAY:interval day," +
				"INTERVAL '-1-2' YEAR TO MONTH:interval year to month,INTERVAL '-1 02:03' DAY TO MINUTE:interval day to minute>",
			rows: []string{"INTERVAL '-2' DAY\tINTERVAL '-2' DAY\tINTERVAL '2' DAY\tINTERVAL '-1-2' YEAR TO MONTH\tINTERVAL '-1 02:03' DAY TO MINUTE"}},
		{q: "SELECT INTERVAL '1 day', INTERVAL '1 year 2 months', INTERVAL 1 year 2 days, INTERVAL 1 week",
			schema: "struct<INTERVAL '1' DAY:interval day,INTERVAL '1-2' YEAR TO MONTH:interval year to month," +
				"INTERVAL '1 years 2 days':interval,INTERVAL '7 days':interval>",
			rows: []string{"INTERVAL '1' DAY\tINTERVAL '1-2' YEAR TO MONTH\t1 years 2 days\t7 days"}},
		{q: "SELECT INTERVAL '1.5' SECOND, INTERVAL '90' MINUTE, INTERVAL '12:30' HOUR TO MINUTE, CAST(INTERVAL '100' HOUR AS STRING)",
			schema: "struct<INTERVAL '01.5' SECOND:interval second,INTERVAL '90' MINUTE:interval minute,INTERVAL '12:30' HOUR TO MINUTE:interval hour to minute," +
				"CAST(INTERVAL '100' HOUR AS STRING):string>",
			rows: []string{"INTERVAL '01.5' SECOND\tINTERVAL '90' MINUTE\tINTERVAL '12:30' HOUR TO MINUTE\tINTERVAL '100' HOUR"}},
	})
}

// Date and timestamp arithmetic with intervals, and differences, named and
// typed as Spark 3.5 rewrites them.
func TestIntervalDatetimeArithmetic(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT DATE '2001-10-01' - DATE '2001-09-28', '2001-10-01' - DATE '2001-09-28', NULL - DATE '2019-10-06', 'a' - DATE '2020-01-01'",
			schema: "struct<(DATE '2001-10-01' - DATE '2001-09-28'):interval day,(2001-10-01 - DATE '2001-09-28'):interval day," +
				"(NULL - DATE '2019-10-06'):interval day,(a - DATE '2020-01-01'):interval day>",
			rows: []string{"INTERVAL '3' DAY\tINTERVAL '3' DAY\tNULL\tNULL"}},
		{q: "SELECT DATE '2012-01-01' - INTERVAL '2-2' YEAR TO MONTH, DATE '2011-11-11' - INTERVAL '2' DAY, INTERVAL '-2' DAY + DATE '2011-11-11'",
			schema: "struct<DATE '2012-01-01' - INTERVAL '2-2' YEAR TO MONTH:date,date_add(DATE '2011-11-11', (- extractansiintervaldays(INTERVAL '2' DAY))):date," +
				"date_add(DATE '2011-11-11', extractansiintervaldays(INTERVAL '-2' DAY)):date>",
			rows: []string{"2009-11-01\t2011-11-09\t2011-11-09"}},
		// Month arithmetic clamps to the month's end.
		{q: "SELECT DATE '2020-01-31' + INTERVAL 1 MONTH, DATE '2020-03-31' - INTERVAL '1' MONTH, - INTERVAL '2-2' YEAR TO MONTH + DATE '2012-01-01'",
			schema: "struct<DATE '2020-01-31' + INTERVAL '1' MONTH:date,DATE '2020-03-31' - INTERVAL '1' MONTH:date,DATE '2012-01-01' + (- INTERVAL '2-2' YEAR TO MONTH):date>",
			rows:   []string{"2020-02-29\t2020-02-29\t2009-11-01"}},
		// A date plus a day-time interval finer than days is a timestamp.
		{q: "SELECT DATE '2020-01-31' + INTERVAL '1 2' DAY TO HOUR, TIMESTAMP '2011-11-11 11:11:11' + INTERVAL '2' DAY, TIMESTAMP '2011-11-11 11:11:11' - INTERVAL '2' SECOND",
			schema: "struct<DATE '2020-01-31' + INTERVAL '1 02' DAY TO HOUR:timestamp,TIMESTAMP '2011-11-11 11:11:11' + INTERVAL '2' DAY:timestamp," +
				"TIMESTAMP '2011-11-11 11:11:11' - INTERVAL '02' SECOND:timestamp>",
			rows: []string{"2020-02-01 02:00:00\t2011-11-13 11:11:11\t2011-11-11 11:11:09"}},
		{q: "SELECT TIMESTAMP '2020-01-31 10:00:00' + INTERVAL '1-1' YEAR TO MONTH, TIMESTAMP_NTZ '2020-01-31 10:00:00' + INTERVAL 1 MONTH, DATE '2020-01-01' + INTERVAL 1 year 2 days",
			schema: "struct<TIMESTAMP '2020-01-31 10:00:00' + INTERVAL '1-1' YEAR TO MONTH:timestamp,TIMESTAMP_NTZ '2020-01-31 10:00:00' + INTERVAL '1' MONTH:timestamp_ntz," +
				"DATE '2020-01-01' + INTERVAL '1 years 2 days':date>",
			rows: []string{"2021-02-28 10:00:00\t2020-02-29 10:00:00\t2021-01-03"}},
		// A string operand is read as a timestamp and the answer is text.
		{q: "SELECT '2011-11-11 11:11:11' - INTERVAL '2' SECOND, '1' - INTERVAL '2' SECOND",
			schema: "struct<2011-11-11 11:11:11 - INTERVAL '02' SECOND:string,1 - INTERVAL '02' SECOND:string>",
			rows:   []string{"2011-11-11 11:11:09\tNULL"}},
		{q: "SELECT TIMESTAMP '2019-10-06 10:11:12' - DATE '2020-01-01', DATE '2020-01-01' - TIMESTAMP '2019-10-06 10:11:12', TIMESTAMP '2019-10-06 10:11:12' - NULL",
			schema: "struct<(TIMESTAMP '2019-10-06 10:11:12' - DATE '2020-01-01'):interval day to second,(DATE '2020-01-01' - TIMESTAMP '2019-10-06 10:11:12'):interval day to second," +
				"(TIMESTAMP '2019-10-06 10:11:12' - NULL):interval day to second>",
			rows: []string{"INTERVAL '-86 13:48:48' DAY TO SECOND\tINTERVAL '86 13:48:48' DAY TO SECOND\tNULL"}},
	})
}

// Intervals with each other and with numbers: sums, negation, scaling
// (half up), comparison, sorting and grouping.
func TestIntervalArithmetic(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT INTERVAL 1 DAY + INTERVAL 2 HOURS, INTERVAL '1-1' YEAR TO MONTH - INTERVAL '2' MONTH, -INTERVAL '1 2:3:4.5' DAY TO SECOND, +INTERVAL '1' DAY",
			schema: "struct<(INTERVAL '1' DAY + INTERVAL '02' HOUR):interval day to hour,(INTERVAL '1-1' YEAR TO MONTH - INTERVAL '2' MONTH):interval year to month," +
				"(- INTERVAL '1 02:03:04.5' DAY TO SECOND):interval day to second,(+ INTERVAL '1' DAY):interval day>",
			rows: []string{"INTERVAL '1 02' DAY TO HOUR\tINTERVAL '0-11' YEAR TO MONTH\tINTERVAL '-1 02:03:04.5' DAY TO SECOND\tINTERVAL '1' DAY"}},
		{q: "SELECT INTERVAL '1' DAY * 2, 3 * INTERVAL '1' HOUR, INTERVAL '1' DAY / 3, INTERVAL '3' MONTH * 1.5, INTERVAL '1' MONTH / 2",
			schema: "struct<(INTERVAL '1' DAY * 2):interval day to second,(3 * INTERVAL '01' HOUR):interval day to second,(INTERVAL '1' DAY / 3):interval day to second," +
				"(INTERVAL '3' MONTH * 1.5):interval year to month,(INTERVAL '1' MONTH / 2):interval year to month>",
			rows: []string{"INTERVAL '2 00:00:00' DAY TO SECOND\tINTERVAL '0 03:00:00' DAY TO SECOND\tINTERVAL '0 08:00:00' DAY TO SECOND\tINTERVAL '0-5' YEAR TO MONTH\tINTERVAL '0-1' YEAR TO MONTH"}},
		{q: "SELECT INTERVAL '1' DAY < INTERVAL '25' HOUR, INTERVAL '1-1' YEAR TO MONTH = INTERVAL '13' MONTH, INTERVAL '2' DAY > INTERVAL '1' DAY",
			rows: []string{"true\ttrue\ttrue"}},
		{q: "SELECT d FROM VALUES (INTERVAL '3' DAY), (INTERVAL '1' HOUR), (NULL), (INTERVAL '-1' MINUTE) AS t(d) ORDER BY d",
			schema: "struct<d:interval day to minute>",
			rows:   []string{"NULL", "INTERVAL '-0 00:01' DAY TO MINUTE", "INTERVAL '0 01:00' DAY TO MINUTE", "INTERVAL '3 00:00' DAY TO MINUTE"}},
		{q: "SELECT m, count(*), min(d), max(d) FROM VALUES (INTERVAL '3' MONTH, INTERVAL '3' DAY), (INTERVAL '1' YEAR, INTERVAL '1' DAY), (INTERVAL '3' MONTH, INTERVAL '-1' DAY) AS t(m, d) GROUP BY m ORDER BY m DESC",
			schema: "struct<m:interval year to month,count(1):bigint,min(d):interval day,max(d):interval day>",
			rows:   []string{"INTERVAL '1-0' YEAR TO MONTH\t1\tINTERVAL '1' DAY\tINTERVAL '1' DAY", "INTERVAL '0-3' YEAR TO MONTH\t2\tINTERVAL '-1' DAY\tINTERVAL '3' DAY"}},
		// d + i and d - i are different group keys.
		{q: "SELECT d + INTERVAL '1' DAY, d - INTERVAL '1' DAY, ts + INTERVAL '1' HOUR, ts - INTERVAL '1' HOUR FROM VALUES (DATE '2020-01-10', TIMESTAMP '2020-01-10 10:00:00') AS t(d, ts) " +
			"GROUP BY d + INTERVAL '1' DAY, d - INTERVAL '1' DAY, ts + INTERVAL '1' HOUR, ts - INTERVAL '1' HOUR",
			rows: []string{"2020-01-11\t2020-01-09\t2020-01-10 11:00:00\t2020-01-10 09:00:00"}},
		{q: "SELECT CAST('1 02:03:04' AS INTERVAL DAY TO SECOND), CAST('INTERVAL -''1-2'' YEAR TO MONTH' AS INTERVAL YEAR TO MONTH), CAST('x' AS INTERVAL DAY)",
			rows: []string{"INTERVAL '1 02:03:04' DAY TO SECOND\tINTERVAL '-1-2' YEAR TO MONTH\tNULL"}},
	})
}

// sequence steps dates and timestamps by an interval.
func TestIntervalSequence(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT sequence(TIMESTAMP '2018-01-01 00:00:00', TIMESTAMP '2018-01-02 00:00:00', INTERVAL 12 HOURS), sequence(DATE '2018-01-05', DATE '2018-01-01', INTERVAL -2 DAYS)",
			rows: []string{"[2018-01-01 00:00:00, 2018-01-01 12:00:00, 2018-01-02 00:00:00]\t[2018-01-05, 2018-01-03, 2018-01-01]"}},
		{q: "SELECT sequence(DATE '2018-01-31', DATE '2018-04-30', INTERVAL 1 MONTH)",
			rows: []string{"[2018-01-31, 2018-02-28, 2018-03-31, 2018-04-30]"}},
	})
	for q, want := range map[string]string{
		"SELECT sequence(DATE '2018-01-01', DATE '2018-01-02', INTERVAL 1 HOUR)": "sequence step must be a day interval",
		"SELECT sequence(DATE '2018-01-01', DATE '2018-01-02', INTERVAL -1 DAY)": "illegal sequence boundaries: 2018-01-01 to 2018-01-02 by INTERVAL '-1' DAY",
		"SELECT sequence(DATE '2018-01-01', DATE '2018-01-02', 1)":               "argument 3 must be an interval",
	} {
		_, err := run(t, q, testTables(t))
		require.ErrorContains(t, err, want, q)
	}
}

// Mistakes are refused with what was wrong.
func TestIntervalErrors(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"SELECT 1 - INTERVAL '2' SECOND":               "adds only to a date, a timestamp or a string",
		"SELECT 1 + INTERVAL '2' MONTH":                "a year-month interval adds only to a date or a timestamp, not integer",
		"SELECT INTERVAL '1' DAY - DATE '2020-01-01'":  "cannot subtract date from interval day",
		"SELECT INTERVAL '1' DAY + INTERVAL '1' MONTH": "cannot add interval day and interval month",
		"SELECT INTERVAL '1' DAY * INTERVAL '1' DAY":   "cannot multiply interval day by interval day",
		"SELECT INTERVAL '1' DAY / 0":                  "division by zero",
		"SELECT INTERVAL '1' YEAR < INTERVAL '1' DAY":  "cannot compare interval year with interval day",
		"SELECT INTERVAL '106751991' DAY * 2 FROM emp": "interval overflow",
	} {
		_, err := run(t, q, testTables(t))
		require.ErrorContains(t, err, want, q)
	}
}

// Timestamp arithmetic reads the unit of the column's Arrow type: a
// microsecond column keeps its microseconds.
func TestIntervalTimestampUnits(t *testing.T) {
	t.Parallel()
	for _, unit := range []arrow.TimeUnit{arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond} {
		tt := &arrow.TimestampType{Unit: unit, TimeZone: "UTC"}
		b := array.NewTimestampBuilder(memory.DefaultAllocator, tt)
		// 2019-10-06 10:11:12.345 (and .345678 where the unit holds it).
		us := int64(1570356672345678)
		if unit == arrow.Millisecond {
			us = 1570356672345000
		}
		switch unit {
		case arrow.Millisecond:
			b.Append(arrow.Timestamp(us / 1000))
		case arrow.Microsecond:
			b.Append(arrow.Timestamp(us))
		case arrow.Nanosecond:
			b.Append(arrow.Timestamp(us * 1000))
		}
		col := b.NewArray()
		b.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: tt, Nullable: true}}, nil)
		rec := array.NewRecord(schema, []arrow.Array{col}, 1)
		col.Release()
		f, err := dataframe.New(schema, rec) // f owns rec
		require.NoError(t, err)
		tables := query.Tables{"t": query.FrameTable(f)}
		res := mustRun(t, "SELECT DATE '2020-01-01' - ts, ts + INTERVAL '0.000001' SECOND - ts FROM t", tables)
		want := map[arrow.TimeUnit]string{
			// A millisecond column cannot hold the added microsecond.
			arrow.Millisecond: "INTERVAL '86 13:48:47.655' DAY TO SECOND\tINTERVAL '0 00:00:00' DAY TO SECOND",
			arrow.Microsecond: "INTERVAL '86 13:48:47.654322' DAY TO SECOND\tINTERVAL '0 00:00:00.000001' DAY TO SECOND",
			arrow.Nanosecond:  "INTERVAL '86 13:48:47.654322' DAY TO SECOND\tINTERVAL '0 00:00:00.000001' DAY TO SECOND",
		}[unit]
		require.Equal(t, []string{want}, res.rows, unit.String())
		f.Release()
	}
}

// Across a daylight-saving change in the session time zone, the whole days
// of a day-time interval (24 hours is a day) keep the wall-clock time, the
// rest is exact (Spark's timestampAddDayTime), and a difference is between
// wall-clock times.
func TestIntervalDaylightSaving(t *testing.T) {
	t.Parallel()
	la, err := time.LoadLocation("America/Los_Angeles")
	require.NoError(t, err)
	// 2020-03-08 02:00 PST became 03:00 PDT.
	q := "SELECT TIMESTAMP '2020-03-07 12:00:00' + INTERVAL '1' DAY, TIMESTAMP '2020-03-07 12:00:00' + INTERVAL '24' HOUR, " +
		"TIMESTAMP '2020-03-07 12:00:00' + INTERVAL '1 01' DAY TO HOUR, TIMESTAMP '2020-03-08 12:00:00' - TIMESTAMP '2020-03-07 12:00:00', " +
		"CAST(DATE '2020-03-07' + INTERVAL 1 DAY 1 HOUR AS STRING)"
	plan, err := query.Compile(context.Background(), parse(t, q), testTables(t), query.Options{TimeZone: la})
	require.NoError(t, err)
	f, err := plan.Frame(context.Background())
	require.NoError(t, err)
	defer f.Release()
	var got []string
	for _, rec := range f.Records() {
		for c := 0; c < int(rec.NumCols()); c++ {
			got = append(got, string(fn.AppendSparkString(nil, rec.Column(c), 0, la)))
		}
	}
	require.Equal(t, []string{"2020-03-08 12:00:00", "2020-03-08 12:00:00", "2020-03-08 13:00:00", "INTERVAL '1 00:00:00' DAY TO SECOND", "2020-03-08 01:00:00"}, got)
}
