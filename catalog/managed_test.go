package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestManagedTables: CREATE TABLE … USING parquet (and the formats Spark's
// tests name, stored as Parquet), INSERT and DROP.
func TestManagedTables(t *testing.T) {
	t.Parallel()
	s, cat := newSession(t)
	ctx := context.Background()
	for _, using := range []string{"parquet", "json", "CSV"} {
		exec(t, s, "CREATE TABLE t_"+using+" (c int, s string) USING "+using)
		exec(t, s, "INSERT INTO t_"+using+" VALUES (1, 'a'), (null, 'b')")
		require.Equal(t, []string{`{"n":2,"c":1}`}, exec(t, s, "SELECT count(*) AS n, sum(c) AS c FROM t_"+using), using)
		entries, err := os.ReadDir(filepath.Join(cat.Dir(), "default", "t_"+strings.ToLower(using)+".parquet"))
		require.NoError(t, err)
		require.NotEmpty(t, entries)
		for _, e := range entries {
			require.Equal(t, ".parquet", filepath.Ext(e.Name()))
		}
	}
	require.Equal(t, []string{`{"c":null}`}, exec(t, s, "SELECT c FROM t_json WHERE s = 'b'"))
	exec(t, s, "DROP TABLE t_json")
	_, err := os.Stat(filepath.Join(cat.Dir(), "default", "t_json.parquet"))
	require.True(t, os.IsNotExist(err))

	_, err = s.ExecuteBatch(ctx, "CREATE TABLE x (c int) USING json LOCATION '"+t.TempDir()+"'")
	require.ErrorContains(t, err, "USING json with LOCATION is not supported")
	_, err = s.ExecuteBatch(ctx, "CREATE TABLE y (c int) USING kafka")
	require.ErrorContains(t, err, "USING kafka is not supported")
}

// INSERT … VALUES into typed columns assigns as Spark's ANSI store
// assignment does: a value beyond the column's range or precision, or text
// that is not a value of its type, is an error naming row and column —
// never a wrapped number or a NULL. Nothing is written.
func TestInsertValuesOutOfRange(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	ctx := context.Background()
	exec(t, s, "CREATE TABLE v (id int, n int, amt decimal(10,2)) USING parquet")
	for _, c := range []struct{ sql, want string }{
		{"INSERT INTO v VALUES (1, 3000000000, 1)", "row 1, column n: 3000000000 is out of the integer range"},
		{"INSERT INTO v (id, n) VALUES (1, 1), (2, -3000000000)", "row 2, column n: -3000000000 is out of the integer range"},
		{"INSERT INTO v VALUES (1, 1, 123456789012.5)", "row 1, column amt: 123456789012.5 does not fit decimal(10,2)"},
		{"INSERT INTO v VALUES (1, 1, 99999999.995)", "row 1, column amt: 99999999.995 does not fit decimal(10,2)"},
		{"INSERT INTO v VALUES (1, 'abc', 1)", "row 1, column n: 'abc' is not a integer"},
		{"INSERT INTO v (id, amt) VALUES (1, 'x')", "row 1, column amt: 'x' is not a decimal(10,2)"},
	} {
		_, err := s.ExecuteBatch(ctx, c.sql)
		require.ErrorContains(t, err, c.want, c.sql)
	}
	require.Equal(t, []string{`{"n":0}`}, exec(t, s, "SELECT count(*) AS n FROM v"))
	// What fits goes in, rounded to the column's scale as Spark does.
	exec(t, s, "INSERT INTO v VALUES (1, 2147483647, 99999999.994), (2, NULL, 1.005), (3, 1.9, NULL)")
	require.Equal(t, []string{`{"id":1,"n":2147483647,"amt":99999999.99}`, `{"id":2,"n":null,"amt":1.01}`, `{"id":3,"n":1,"amt":null}`},
		exec(t, s, "SELECT * FROM v ORDER BY id"))
}
