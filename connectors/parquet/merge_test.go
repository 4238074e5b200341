package parquet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func mergeDS(path string, extra ...string) *connectors.Dataset {
	p := connectors.Props{PropPath: path, PropMode: "merge", PropMergeKey: "id"}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	return &connectors.Dataset{Name: "lake.t", Props: p}
}

func rowsOf(t *testing.T, cols []string, rows ...[]any) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.FromValues(cols, rows)
	require.NoError(t, err)
	return f
}

// readJSON reads the dataset back as sorted JSON rows.
func readJSON(t *testing.T, ds *connectors.Dataset) []string {
	t.Helper()
	f, err := Connector{}.Read(context.Background(), ds)
	require.NoError(t, err)
	defer f.Release()
	var out []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		out = append(out, string(obj))
		return nil
	}))
	sort.Strings(out)
	return out
}

func writeMerge(t *testing.T, ds *connectors.Dataset, f *dataframe.Frame) error {
	t.Helper()
	defer f.Release()
	_, err := Connector{}.Write(context.Background(), ds, f)
	return err
}

func TestMergeFileAndDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, ds := range []*connectors.Dataset{
		mergeDS(filepath.Join(root, "one.parquet")),
		mergeDS(filepath.Join(root, "dir") + "/"),
		mergeDS(filepath.Join(root, "parts")+"/", PropPartitionBy, "day"),
	} {
		cols := []string{"id", "v", "day"}
		require.NoError(t, writeMerge(t, ds, rowsOf(t, cols, []any{int64(1), "a", "d1"}, []any{int64(2), "b", "d1"})))
		// 2 is replaced (the last of its two incoming rows wins), 3 is new.
		require.NoError(t, writeMerge(t, ds, rowsOf(t, cols,
			[]any{int64(2), "b-old", "d2"}, []any{int64(3), "c", "d2"}, []any{int64(2), "b2", "d2"})))
		got := readJSON(t, ds)
		require.Len(t, got, 3, ds.Props[PropPath])
		require.Contains(t, got[1], `"id":2`)
		require.Contains(t, got[1], `"v":"b2"`)
		// Running the same merge again changes nothing: no duplicates.
		require.NoError(t, writeMerge(t, ds, rowsOf(t, cols, []any{int64(3), "c", "d2"})))
		require.Equal(t, got, readJSON(t, ds))
		// An empty frame (a quiet day, no columns at all) changes nothing.
		empty, err := jsonframe.FromValues(nil, nil)
		require.NoError(t, err)
		require.NoError(t, writeMerge(t, ds, empty))
		require.Equal(t, got, readJSON(t, ds))
		noTempLeft(t, root)
	}
}

func noTempLeft(t *testing.T, root string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		require.False(t, strings.HasPrefix(d.Name(), "."), "temporary file left: %s", p)
		return nil
	}))
}

func TestMergeNewColumnsWiden(t *testing.T) {
	t.Parallel()
	ds := mergeDS(filepath.Join(t.TempDir(), "w.parquet"))
	require.NoError(t, writeMerge(t, ds, rowsOf(t, []string{"id", "v"}, []any{int64(1), "a"})))
	require.NoError(t, writeMerge(t, ds, rowsOf(t, []string{"id", "w"}, []any{int64(2), int64(7)})))
	require.Equal(t, []string{`{"id":1,"v":"a","w":null}`, `{"id":2,"v":null,"w":7}`}, readJSON(t, ds))
}

func TestMergeErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "k.parquet")
	ds := mergeDS(path)
	err := writeMerge(t, ds, rowsOf(t, []string{"key", "v"}, []any{int64(1), "a"}))
	require.ErrorContains(t, err, `merge key column "id" is not in the incoming rows (columns: key, v)`)
	require.NoFileExists(t, path)

	// The stored data lacks the key.
	ds.Props[PropMode] = "overwrite"
	delete(ds.Props, PropMergeKey)
	require.NoError(t, writeMerge(t, ds, rowsOf(t, []string{"key", "v"}, []any{int64(1), "a"})))
	ds = mergeDS(path)
	err = writeMerge(t, ds, rowsOf(t, []string{"id", "v"}, []any{int64(1), "a"}))
	require.ErrorContains(t, err, `merge key column "id" is not in the stored rows`)

	v := Connector{}
	require.ErrorContains(t, v.Validate(nil, connectors.Props{PropPath: path, PropMode: "merge"}), "svc.parquet.merge.key")
	require.ErrorContains(t, v.Validate(nil, connectors.Props{PropPath: path, PropMergeKey: "id"}), "applies to merge")
	require.ErrorContains(t, v.Validate([]connectors.Field{{Name: "x", Type: "long"}}, connectors.Props{PropPath: path, PropMode: "merge", PropMergeKey: "id"}), `"id" is not a column`)
	require.ErrorContains(t, v.Validate(nil, connectors.Props{PropPath: path, PropMode: "upsert"}), "merge")
}

// A merge that fails after writing the new data leaves the old files.
func TestMergeFailureLeavesOldFiles(t *testing.T) {
	// Not parallel: the hook is package state.
	root := t.TempDir()
	for _, ds := range []*connectors.Dataset{mergeDS(filepath.Join(root, "f.parquet")), mergeDS(filepath.Join(root, "d") + "/")} {
		require.NoError(t, writeMerge(t, ds, rowsOf(t, []string{"id", "v"}, []any{int64(1), "a"})))
		before := readJSON(t, ds)
		boom := errors.New("disk full")
		testHookBeforeSwap = func() error { return boom }
		err := writeMerge(t, ds, rowsOf(t, []string{"id", "v"}, []any{int64(1), "z"}, []any{int64(2), "b"}))
		testHookBeforeSwap = nil
		require.ErrorIs(t, err, boom)
		require.Equal(t, before, readJSON(t, ds))
		noTempLeft(t, root)
	}
}
