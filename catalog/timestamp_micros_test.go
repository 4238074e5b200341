package catalog_test

import (
	"os"
	"path/filepath"
	"testing"

	parquetgo "github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"
)

// A timestamp keeps its microseconds from a SQL literal through a Parquet
// table and back (docs/frames.md#arrow), and the file holds TIMESTAMP_MICROS
// as Spark writes it.
func TestTimestampMicrosParquetRoundTrip(t *testing.T) {
	t.Parallel()
	s, cat := newSession(t)
	exec(t, s, "CREATE TABLE tsm (id int, ts timestamp) USING parquet")
	exec(t, s, "INSERT INTO tsm SELECT 1, TIMESTAMP '2008-12-25 07:30:00.123123' UNION ALL SELECT 2, timestamp_micros(-1) "+
		"UNION ALL SELECT 3, CAST('2024-05-01 10:00:00.000001' AS TIMESTAMP)")
	require.Equal(t, []string{
		`{"id":1,"s":"2008-12-25 07:30:00.123123","us":1230190200123123,"ts":"2008-12-25T07:30:00.123123Z"}`,
		`{"id":2,"s":"1969-12-31 23:59:59.999999","us":-1,"ts":"1969-12-31T23:59:59.999999Z"}`,
		`{"id":3,"s":"2024-05-01 10:00:00.000001","us":1714557600000001,"ts":"2024-05-01T10:00:00.000001Z"}`,
	}, exec(t, s, "SELECT id, CAST(ts AS STRING) AS s, unix_micros(ts) AS us, ts FROM tsm ORDER BY id"))
	require.Equal(t, []string{`{"n":1}`}, exec(t, s, "SELECT count(*) AS n FROM tsm WHERE ts = TIMESTAMP '2008-12-25 07:30:00.123123'"))

	dir := filepath.Join(cat.Dir(), "default", "tsm.parquet")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		fh, err := os.Open(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		st, err := fh.Stat()
		require.NoError(t, err)
		pf, err := parquetgo.OpenFile(fh, st.Size())
		require.NoError(t, err)
		var found bool
		for _, f := range pf.Schema().Fields() {
			if f.Name() == "ts" {
				found = true
				require.Equal(t, "TIMESTAMP(isAdjustedToUTC=true,unit=MICROS)", f.Type().LogicalType().Value.String())
			}
		}
		require.True(t, found, "no ts column in %s", e.Name())
		require.NoError(t, fh.Close())
	}
}
