package catalog_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// TestSessionTimeZone runs Spark's own documentation examples, which
// assume spark.sql.session.timeZone=America/Los_Angeles, and expects
// Spark's answers (docs/sql.md#time-zone).
func TestSessionTimeZone(t *testing.T) {
	t.Parallel()
	s := catalog.NewSession(nil)
	ctx := context.Background()
	_, err := s.ExecuteBatch(ctx, "SET TIME ZONE 'America/Los_Angeles'")
	require.NoError(t, err)
	for _, c := range []struct{ expr, want string }{
		{"current_timezone()", "America/Los_Angeles"},
		{"TIMESTAMP '2016-03-11 20:54:00'", "2016-03-11 20:54:00"},
		{"CAST(TIMESTAMP '2016-03-11 20:54:00Z' AS STRING)", "2016-03-11 12:54:00"},
		{"unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "1460098800"},
		{"to_unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "1460098800"},
		{"unix_timestamp(TIMESTAMP '2016-04-08 00:00:00')", "1460098800"},
		{"from_unixtime(0, 'yyyy-MM-dd HH:mm:ss')", "1969-12-31 16:00:00"},
		{"timestamp_seconds(1230219000)", "2008-12-25 07:30:00"},
		{"from_utc_timestamp('2016-08-31', 'Asia/Seoul')", "2016-08-31 09:00:00"},
		{"to_utc_timestamp('2016-08-31', 'Asia/Seoul')", "2016-08-30 15:00:00"},
		{"make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET')", "2014-12-27 21:30:45.887"},
		{"make_timestamp(2014, 12, 28, 6, 30, 45.887)", "2014-12-28 06:30:45.887"},
		{"convert_timezone('Europe/Brussels', '2021-12-05 15:00:00')", "2021-12-06 00:00:00"},
		{"date_trunc('HOUR', '2015-03-05T09:32:05.359')", "2015-03-05 09:00:00"},
		{"date_trunc('DD', TIMESTAMP '2015-03-05 23:32:05')", "2015-03-05 00:00:00"},
		{"hour(TIMESTAMP '2009-07-30 12:58:59')", "12"},
		{"hour('2009-07-30 12:58:59Z')", "5"},
		{"to_date(TIMESTAMP '2016-03-11 20:54:00')", "2016-03-11"},
		{"CAST(DATE '2016-03-11' AS TIMESTAMP) = TIMESTAMP '2016-03-11 08:00:00Z'", "true"},
		{"date_format(TIMESTAMP '2016-03-11 20:54:00', 'yyyy-MM-dd HH:mm XXX')", "2016-03-11 20:54 -08:00"},
		{"to_timestamp('2016-12-31 00:12:00') = TIMESTAMP '2016-12-31 08:12:00Z'", "true"},
		{"to_timestamp('2016-12-31', 'yyyy-MM-dd') = TIMESTAMP '2016-12-31 08:00:00Z'", "true"},
		{"to_timestamp_ntz('2016-12-31 00:12:00')", "2016-12-31 00:12:00"},
		{"CAST(TIMESTAMP '2016-12-31 00:12:00' AS TIMESTAMP_NTZ)", "2016-12-31 00:12:00"},
		{"timestampadd('DAY', 1, TIMESTAMP '2016-03-12 12:00:00')", "2016-03-13 12:00:00"},
		{"timestampadd('HOUR', 24, TIMESTAMP '2016-03-12 12:00:00')", "2016-03-13 13:00:00"},
		{"timestampdiff('HOUR', TIMESTAMP '2016-03-12 12:00:00', TIMESTAMP '2016-03-13 12:00:00')", "24"},
		{"to_json(named_struct('t', TIMESTAMP '2016-03-11 20:54:00'))", `{"t":"2016-03-11T20:54:00.000-08:00"}`},
		{"from_json('{\"t\":\"2016-03-11 20:54:00\"}', 't timestamp').t = TIMESTAMP '2016-03-12 04:54:00Z'", "true"},
		{"to_csv(named_struct('t', TIMESTAMP '2016-03-11 20:54:00'), map('timeZone', 'UTC'))", "2016-03-12T04:54:00.000Z"},
	} {
		f, err := s.ExecuteBatch(ctx, "SELECT CAST("+c.expr+" AS STRING)")
		require.NoError(t, err, c.expr)
		got := dataframe.ValueAt(f.Records()[0].Column(0), 0)
		f.Release()
		require.Equal(t, c.want, got, c.expr)
	}

	// A name Spark generates shows a literal in the session zone.
	f, err := s.ExecuteBatch(ctx, "SELECT unix_seconds(TIMESTAMP '2020-12-01 14:30:08Z')")
	require.NoError(t, err)
	require.Equal(t, []string{"unix_seconds(TIMESTAMP '2020-12-01 06:30:08')"}, f.ColumnNames())
	f.Release()

	// INSERT … VALUES reads text for a timestamp column in the zone too.
	_, err = s.ExecuteBatch(ctx, "SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE")
	require.NoError(t, err)
	v, _ := s.Get(query.TimeZoneSetting)
	require.Equal(t, "+05:30", v)
	f, err = s.ExecuteBatch(ctx, "SELECT CAST(TIMESTAMP '2020-01-01 00:00:00Z' AS STRING)")
	require.NoError(t, err)
	require.Equal(t, "2020-01-01 05:30:00", dataframe.ValueAt(f.Records()[0].Column(0), 0))
	f.Release()

	for _, bad := range []string{"SET TIME ZONE 'Nowhere/Else'", "SET spark.sql.session.timeZone=Mars", "SET TIME ZONE INTERVAL 19 HOURS", "SET TIME ZONE"} {
		_, err := s.ExecuteBatch(ctx, bad)
		require.Error(t, err, bad)
	}
	v, _ = s.Get(query.TimeZoneSetting)
	require.Equal(t, "+05:30", v, "a refused zone leaves the setting as it was")

	_, err = s.ExecuteBatch(ctx, "SET TIME ZONE INTERVAL 1 HOUR 30 MINUTES")
	require.NoError(t, err)
	v, _ = s.Get(query.TimeZoneSetting)
	require.Equal(t, "+01:30", v)
	_, err = s.ExecuteBatch(ctx, "SET TIME ZONE LOCAL")
	require.NoError(t, err)
	v, _ = s.Get(query.TimeZoneSetting)
	_, err = query.ParseTimeZone(v)
	require.NoError(t, err, "LOCAL gave %q", v)
}

// TestSessionTimeZoneDefault: without the setting timestamps are UTC.
func TestSessionTimeZoneDefault(t *testing.T) {
	t.Parallel()
	s := catalog.NewSession(nil)
	f, err := s.ExecuteBatch(context.Background(), "SELECT CAST(TIMESTAMP '2016-03-11 20:54:00' AS STRING) AS s, current_timezone() AS z, hour(TIMESTAMP '2016-03-11 20:54:00Z') AS h")
	require.NoError(t, err)
	defer f.Release()
	var b bytes.Buffer
	require.NoError(t, dataframe.WriteTable(&b, f, dataframe.TableOptions{}))
	require.True(t, strings.Contains(b.String(), "|2016-03-11 20:54:00|UTC|20 |"), b.String())
}
