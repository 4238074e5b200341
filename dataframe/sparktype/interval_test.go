package sparktype

import (
	"math"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/require"
)

// Every interval type names itself as Spark's simpleString and reads back
// from that name as the same Spark type.
func TestIntervalTypeNames(t *testing.T) {
	for _, name := range []string{
		"interval day", "interval day to hour", "interval day to minute", "interval day to second",
		"interval hour", "interval hour to minute", "interval hour to second",
		"interval minute", "interval minute to second", "interval second",
		"interval year", "interval year to month", "interval month", "interval",
	} {
		dt, err := ParseType(name)
		require.NoError(t, err, name)
		require.Equal(t, name, Name(dt))
		require.True(t, IsInterval(dt), name)
	}
	for _, bad := range []string{"interval month to year", "interval second to day", "interval day to month", "interval week"} {
		_, err := ParseType(bad)
		require.ErrorContains(t, err, "is not a type", bad)
	}
	// Types made elsewhere are Spark's defaults.
	require.Equal(t, "interval day to second", Name(&arrow.DurationType{Unit: arrow.Microsecond}))
	require.Equal(t, "interval year to month", Name(arrow.FixedWidthTypes.MonthInterval))
	// Arrow sees one type per kind.
	require.True(t, arrow.TypeEqual(YearMonthIntervalType(FieldYear, FieldYear), YearMonthIntervalType(FieldMonth, FieldMonth)))
	require.NotSame(t, YearMonthIntervalType(FieldYear, FieldYear), YearMonthIntervalType(FieldMonth, FieldMonth))
}

// The ANSI text (CAST to string, literal names) and the text of result
// rows, as Spark's IntervalUtils prints them.
func TestFormatInterval(t *testing.T) {
	us := 1*MicrosPerDay + 2*MicrosPerHour + 3*MicrosPerMinute + 4*MicrosPerSecond + 500000
	for _, c := range []struct {
		us         int64
		start, end byte
		want       string
	}{
		{us, FieldDay, FieldSecond, "INTERVAL '1 02:03:04.5' DAY TO SECOND"},
		{-us, FieldDay, FieldSecond, "INTERVAL '-1 02:03:04.5' DAY TO SECOND"},
		{us, FieldDay, FieldDay, "INTERVAL '1' DAY"},
		{us, FieldHour, FieldMinute, "INTERVAL '26:03' HOUR TO MINUTE"},
		{2 * MicrosPerSecond, FieldSecond, FieldSecond, "INTERVAL '02' SECOND"},
		{90 * MicrosPerMinute, FieldMinute, FieldMinute, "INTERVAL '90' MINUTE"},
		{23*MicrosPerDay + 4*MicrosPerHour, FieldDay, FieldHour, "INTERVAL '23 04' DAY TO HOUR"},
		{math.MinInt64, FieldSecond, FieldSecond, "INTERVAL '-9223372036854.775808' SECOND"},
	} {
		require.Equal(t, c.want, FormatDayTimeInterval(c.us, c.start, c.end))
	}
	require.Equal(t, "3 00:00:00.000000000", HiveDayTimeInterval(3*MicrosPerDay))
	require.Equal(t, "-86 13:48:47.654322000", HiveDayTimeInterval(-(86*MicrosPerDay + 13*MicrosPerHour + 48*MicrosPerMinute + 47654322)))
	require.Equal(t, "-106751991 04:00:54.775808000", HiveDayTimeInterval(math.MinInt64))
	require.Equal(t, "INTERVAL '-2-2' YEAR TO MONTH", FormatYearMonthInterval(-26, FieldYear, FieldMonth))
	require.Equal(t, "INTERVAL '10' MONTH", FormatYearMonthInterval(10, FieldMonth, FieldMonth))
	require.Equal(t, "INTERVAL '2' YEAR", FormatYearMonthInterval(24, FieldYear, FieldYear))
	require.Equal(t, "1-8", HiveYearMonthInterval(20))
	require.Equal(t, "-0-10", HiveYearMonthInterval(-10))
	require.Equal(t, "1 years 2 months 3 days 4 hours 5.5 seconds", FormatCalendarInterval(14, 3, 4*MicrosPerHour+5500000))
	require.Equal(t, "0 seconds", FormatCalendarInterval(0, 0, 0))
}

func TestParseInterval(t *testing.T) {
	us, err := ParseDayTimeInterval(" 1 2:3:4.0000019 ", FieldDay, FieldSecond)
	require.NoError(t, err)
	require.Equal(t, MicrosPerDay+2*MicrosPerHour+3*MicrosPerMinute+4*MicrosPerSecond+1, us) // beyond µs dropped
	us, err = ParseDayTimeInterval("-100", FieldHour, FieldHour)
	require.NoError(t, err)
	require.Equal(t, -100*MicrosPerHour, us)
	_, err = ParseDayTimeInterval("1 24:00", FieldDay, FieldMinute)
	require.EqualError(t, err, "interval 1 24:00: hour 24 outside range [0, 23]")
	_, err = ParseDayTimeInterval("1 2", FieldDay, FieldSecond)
	require.ErrorContains(t, err, "does not match day-time format of `[+|-]d h:m:s.n`")
	_, err = ParseDayTimeInterval("106751992", FieldDay, FieldDay)
	require.ErrorContains(t, err, "out of range")

	m, err := ParseYearMonthInterval("-2-2")
	require.NoError(t, err)
	require.Equal(t, int32(-26), m)
	_, err = ParseYearMonthInterval("2")
	require.ErrorContains(t, err, "does not match year-month format of 'y-m'")

	v, units, err := ParseMultiUnitInterval("interval 1 year -2 months 3 weeks 1day 2 hours 1.5 seconds 7 milliseconds")
	require.NoError(t, err)
	require.Equal(t, Calendar{Months: 10, Days: 22, Micros: 2*MicrosPerHour + 1507000}, v)
	require.Equal(t, []string{"year", "month", "week", "day", "hour", "second", "millisecond"}, units)
	for in, want := range map[string]string{
		"":            "it is empty",
		"1":           "1 has no unit",
		"1 fortnight": "fortnight is not an interval unit",
		"1.5 days":    "only seconds take a fraction",
		"x days":      "x is not a number",
	} {
		_, _, err := ParseMultiUnitInterval(in)
		require.ErrorContains(t, err, want, in)
	}
}

// Month arithmetic clamps the day to the end of the month it lands in.
func TestAddMonthsToDays(t *testing.T) {
	day := func(y, m, d int) int32 {
		v, ok := CivilDays(y, m, d)
		require.True(t, ok)
		return v
	}
	for _, c := range []struct {
		from   int32
		months int64
		want   int32
	}{
		{day(2020, 1, 31), 1, day(2020, 2, 29)},
		{day(2021, 1, 31), 1, day(2021, 2, 28)},
		{day(2012, 1, 1), -26, day(2009, 11, 1)},
		{day(2020, 3, 31), -1, day(2020, 2, 29)},
		{day(1969, 12, 31), 2, day(1970, 2, 28)},
	} {
		got, ok := AddMonthsToDays(c.from, c.months)
		require.True(t, ok)
		require.Equal(t, c.want, got)
	}
	_, ok := AddMonthsToDays(0, math.MaxInt64/2)
	require.False(t, ok)
}
