package catalog_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// TestSelectPathThroughArray is Spark's items.id over array<struct<id,…>>:
// the field of every element, as an array, read back from a PARQUET table.
func TestSelectPathThroughArray(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newSession(t)
	path := filepath.Join(t.TempDir(), "orders.parquet")
	exec(t, s, "CREATE TABLE arr.orders (n bigint, items array<struct<id:string>>) LOCATION '"+path+"' TBLPROPERTIES ('svc.storage.type'='PARQUET')")

	in, err := jsonframe.ReadDocument([]byte(`[{"n":1,"items":[{"id":"a"},{"id":"b"}]}]`), jsonframe.Options{})
	require.NoError(t, err)
	defer in.Release()
	res, err := s.Write(ctx, "arr.orders", in, nil)
	require.NoError(t, err)
	require.Equal(t, int64(1), res.Written)

	require.Equal(t, []string{`{"id":["a","b"]}`}, exec(t, s, "SELECT items.id FROM arr.orders"))
	require.Equal(t, []string{`{"ids":["a","b"],"n":1}`}, exec(t, s, "SELECT items.id AS ids, n FROM arr.orders"))

	// WHERE reads the same path; an array is not comparable with a string,
	// which is an error naming the column rather than a crash.
	_, err = s.ExecuteBatch(ctx, "SELECT n FROM arr.orders WHERE items.id = 'a'")
	require.ErrorContains(t, err, "(items.id = 'a'): cannot compare array<string> with string")
	require.Equal(t, []string{`{"n":1}`}, exec(t, s, "SELECT n FROM arr.orders WHERE items.id IS NOT NULL"))

	_, err = s.ExecuteBatch(ctx, "SELECT items.nope FROM arr.orders")
	require.ErrorContains(t, err, "line 1, column 8: items has no field nope")
}
