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
