package fileio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func TestWriteReadFileFormats(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x.parquet", "x.arrow", "x.ndjson", "x.jsonl", "x.json", "X.PARQUET"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mem := frametest.CheckedAlloc(t)
			f := fixtures.NestedFrame(t, mem, 2)
			defer f.Release()
			if ext := filepath.Ext(name); ext == ".json" || ext == ".jsonl" || ext == ".ndjson" {
				// JSON re-infers types and sorts fields: start from a frame
				// that already has the inferred shape, so it must survive
				// exactly.
				var buf bytes.Buffer
				require.NoError(t, WriteNDJSON(&buf, f))
				inferred, err := jsonframe.ReadNDJSON(buf.Bytes(), jsonframe.Options{Allocator: mem})
				require.NoError(t, err)
				defer inferred.Release()
				f = inferred
			}
			path := filepath.Join(t.TempDir(), name)
			require.NoError(t, WriteFile(t.Context(), path, f, FileOptions{Parquet: ParquetOptions{Compression: "zstd"}}))
			got, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
			require.NoError(t, err)
			defer got.Release()
			require.Equal(t, f.NumRows(), got.NumRows())
			require.Equal(t, f.ColumnNames(), got.ColumnNames())
			frametest.RequireFramesEqual(t, f, got)
			entries, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temporary file left behind")
			st, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
		})
	}
}

func TestWriteReadFileCSV(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.FrameFromJSON(t, mem, fixtures.FlatSchema, fixtures.FlatRows, 0)
	defer f.Release()
	path := filepath.Join(t.TempDir(), "flat.csv")
	require.NoError(t, WriteFile(t.Context(), path, f, FileOptions{}))
	got, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
	require.NoError(t, err)
	defer got.Release()
	frametest.RequireFramesEqual(t, f, got)
}

func TestReadFileRecordsPath(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f, err := ReadFile(t.Context(), filepath.Join("testdata", "io", "youtube_subscriptions_by_channel_p1.json"), FileOptions{RecordsPath: "items", Allocator: mem})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, int64(5), f.NumRows())
	require.Equal(t, []string{"etag", "id", "kind", "snippet"}, f.ColumnNames())
}

func TestFileUnknownFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := ReadFile(t.Context(), filepath.Join(dir, "data.xlsx"), FileOptions{})
	require.ErrorIs(t, err, ErrUnknownFormat)
	require.ErrorContains(t, err, `".xlsx"`)
	_, err = ReadFile(t.Context(), filepath.Join(dir, "noext"), FileOptions{})
	require.ErrorContains(t, err, "no file extension")

	f := fixtures.NestedFrame(t, frametest.CheckedAlloc(t), 0)
	defer f.Release()
	err = WriteFile(t.Context(), filepath.Join(dir, "out.txt"), f, FileOptions{})
	require.ErrorIs(t, err, ErrUnknownFormat)
	require.ErrorContains(t, err, `".txt"`)
	err = WriteFile(t.Context(), filepath.Join(dir, "out.parquet"), f, FileOptions{Parquet: ParquetOptions{Compression: "lzo"}})
	require.ErrorContains(t, err, `compression "lzo"`)
	entries, _ := os.ReadDir(dir)
	require.Empty(t, entries)
}

func TestWriteFileMissingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var err error
	// A directory that does not exist: error, nothing created.
	err = WriteFile(t.Context(), filepath.Join(dir, "missing", "x.csv"), dataframe.Empty(fixtures.FlatSchema), FileOptions{})
	require.Error(t, err)
	require.ErrorContains(t, err, "missing")
}

func TestReadFileMissing(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a.json", "a.ndjson", "a.csv", "a.parquet", "a.arrow"} {
		_, err := ReadFile(t.Context(), filepath.Join(t.TempDir(), name), FileOptions{})
		require.ErrorIs(t, err, os.ErrNotExist, name)
	}
}

// TestCancelledContext: every call that opens a file stops at a cancelled
// context with its error, and a cancelled write leaves no file behind.
func TestCancelledContext(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.NestedFrame(t, mem, 2)
	defer f.Release()
	dir := t.TempDir()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, name := range []string{"x.parquet", "x.arrow", "x.csv", "x.ndjson", "x.json"} {
		src := f
		if name == "x.csv" {
			src = fixtures.FrameFromJSON(t, mem, fixtures.FlatSchema, fixtures.FlatRows, 0)
			defer src.Release()
		}
		path := filepath.Join(dir, name)
		require.NoError(t, WriteFile(t.Context(), path, src, FileOptions{}), name)
		_, err := ReadFile(cancelled, path, FileOptions{Allocator: mem})
		require.ErrorIs(t, err, context.Canceled, name)
		other := filepath.Join(dir, "cancelled-"+name)
		require.ErrorIs(t, WriteFile(cancelled, other, src, FileOptions{}), context.Canceled, name)
		require.NoFileExists(t, other, name)
	}
	pq := filepath.Join(dir, "x.parquet")
	_, err := ReadParquet(cancelled, pq, mem)
	require.ErrorIs(t, err, context.Canceled)
	_, err = ReadParquetColumns(cancelled, pq, mem, []string{"id"})
	require.ErrorIs(t, err, context.Canceled)
	_, err = ParquetSchema(cancelled, pq, nil)
	require.ErrorIs(t, err, context.Canceled)
	_, err = ReadArrowIPC(cancelled, filepath.Join(dir, "x.arrow"), mem)
	require.ErrorIs(t, err, context.Canceled)
	// The parallel frame writer stops between row groups.
	var buf bytes.Buffer
	err = writeParquet(cancelled, &buf, f, ParquetOptions{RowGroupRows: 1}, 4)
	require.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 5, "no temporary file left behind")
}
