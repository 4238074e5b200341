package parquet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// writeGroups writes rows rows (id long, name string, score double) as a
// file of row groups of 100 rows.
func writeGroups(t *testing.T, path string, rows int) {
	t.Helper()
	vals := make([][]any, rows)
	for i := range vals {
		vals[i] = []any{int64(i), "n" + string(rune('a'+i%26)), float64(i) / 2}
	}
	f := frameOf(t, []string{"id", "name", "score"}, vals...)
	defer f.Release()
	out, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, fileio.WriteParquet(out, f, fileio.ParquetOptions{RowGroupRows: 100}))
	require.NoError(t, out.Close())
}

func collectStream(t *testing.T, s dataframe.Stream) (*dataframe.Frame, int) {
	t.Helper()
	var recs []arrow.Record
	for s.Next() {
		r := s.Record()
		r.Retain()
		recs = append(recs, r)
	}
	require.NoError(t, s.Err())
	f, err := dataframe.New(s.Schema(), recs...)
	require.NoError(t, err)
	return f, len(recs)
}

func TestReadStreamFileByRowGroupWithColumns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeGroups(t, path, 1000)
	ctx := context.Background()
	s, _, err := conn.ReadScan(ctx, ds(connectors.Props{parquet.PropPath: path}), scan.Request{Columns: []string{"SCORE", "nope"}})
	require.NoError(t, err)
	defer s.Release()
	require.Equal(t, "root\n |-- score: double (nullable = true)\n", dataframe.SchemaString(s.Schema()))
	f, batches := collectStream(t, s)
	defer f.Release()
	require.Equal(t, int64(1000), f.NumRows())
	require.GreaterOrEqual(t, batches, 10, "one batch per row group at least")
	rows := jsonRows(t, f)
	require.Equal(t, `{"score":0.0}`, rows[0])
	require.Equal(t, `{"score":499.5}`, rows[999])

	// Every column, and the same rows as Read.
	s2, err := conn.ReadStream(context.Background(), ds(connectors.Props{parquet.PropPath: path}))
	require.NoError(t, err)
	defer s2.Release()
	all, _ := collectStream(t, s2)
	defer all.Release()
	whole, err := conn.Read(context.Background(), ds(connectors.Props{parquet.PropPath: path}))
	require.NoError(t, err)
	defer whole.Release()
	require.Equal(t, jsonRows(t, whole), jsonRows(t, all))
}

func TestReadStreamNoLeaksAndEarlyRelease(t *testing.T) {
	// Not parallel: it sets the package's stream allocator.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer parquet.SetStreamAllocator(mem)()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeGroups(t, path, 2000)
	props := connectors.Props{parquet.PropPath: path}

	// Read to the end.
	s, err := conn.ReadStream(context.Background(), ds(props))
	require.NoError(t, err)
	var rows int64
	for s.Next() {
		rows += s.Record().NumRows()
	}
	require.NoError(t, s.Err())
	s.Release()
	require.Equal(t, int64(2000), rows)

	// Released after one batch: the read-ahead row groups are freed too.
	s, err = conn.ReadStream(context.Background(), ds(props))
	require.NoError(t, err)
	require.True(t, s.Next())
	kept := s.Record()
	kept.Retain()
	s.Release()
	require.Equal(t, int64(100), kept.NumRows())
	kept.Release()

	// Released before any Next: nothing was read.
	s, err = conn.ReadStream(context.Background(), ds(props))
	require.NoError(t, err)
	s.Release()

	// Cancelled mid-way: Err says so.
	ctx, cancel := context.WithCancel(context.Background())
	s, err = conn.ReadStream(ctx, ds(props))
	require.NoError(t, err)
	require.True(t, s.Next())
	cancel()
	for s.Next() {
	}
	require.ErrorIs(t, s.Err(), context.Canceled)
	s.Release()
}

func TestReadStreamOpensDataLazily(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeGroups(t, path, 10)
	s, err := conn.ReadStream(context.Background(), ds(connectors.Props{parquet.PropPath: path}))
	require.NoError(t, err)
	defer s.Release()
	require.Equal(t, 3, s.Schema().NumFields(), "the schema comes from the footer")
	// The data is opened on the first Next: a file gone by then is its error.
	require.NoError(t, os.Remove(path))
	require.False(t, s.Next())
	require.ErrorIs(t, s.Err(), os.ErrNotExist)
}

func TestReadStreamPartitionedDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "events") + "/"
	ctx := context.Background()
	f := frameOf(t, []string{"id", "region", "year"},
		[]any{int64(1), "eu", int64(2024)},
		[]any{int64(2), "us", int64(2024)},
		[]any{int64(3), "eu", int64(2023)},
		[]any{int64(4), nil, int64(2024)},
	)
	defer f.Release()
	_, err := conn.Write(ctx, ds(connectors.Props{parquet.PropPath: dir, parquet.PropPartitionBy: "region, year"}), f)
	require.NoError(t, err)
	typed := connectors.Field{Name: "year", Type: "integer"}
	props := connectors.Props{parquet.PropPath: dir}

	s, err := conn.ReadStream(ctx, ds(props, typed))
	require.NoError(t, err)
	defer s.Release()
	got, _ := collectStream(t, s)
	defer got.Release()
	whole, err := conn.Read(ctx, ds(props, typed))
	require.NoError(t, err)
	defer whole.Release()
	require.Equal(t, dataframe.SchemaString(whole.Schema()), dataframe.SchemaString(got.Schema()))
	require.ElementsMatch(t, jsonRows(t, whole), jsonRows(t, got))

	// Pruned: a partition column and a data column.
	s2, _, err := conn.ReadScan(ctx, ds(props, typed), scan.Request{Columns: []string{"year", "id"}})
	require.NoError(t, err)
	defer s2.Release()
	got2, _ := collectStream(t, s2)
	defer got2.Release()
	require.ElementsMatch(t, []string{`{"id":1,"year":2024}`, `{"id":2,"year":2024}`, `{"id":3,"year":2023}`, `{"id":4,"year":2024}`}, jsonRows(t, got2))
}

func TestReadStreamErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	garbage := filepath.Join(tmp, "garbage.parquet")
	require.NoError(t, os.WriteFile(garbage, []byte("PAR1 this is not parquet"), 0o644))
	for name, tc := range map[string]struct {
		props connectors.Props
		want  string
	}{
		"no path":   {connectors.Props{}, "property svc.parquet.path is required"},
		"missing":   {connectors.Props{parquet.PropPath: filepath.Join(tmp, "nope.parquet")}, "nope.parquet"},
		"garbage":   {connectors.Props{parquet.PropPath: garbage}, "garbage.parquet"},
		"empty dir": {connectors.Props{parquet.PropPath: t.TempDir()}, "no parquet files in"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := conn.ReadStream(context.Background(), ds(tc.props))
			if s != nil {
				s.Release()
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// failingStream yields f's batches, then fails.
func failingStream(f *dataframe.Frame, err error) dataframe.Stream {
	return dataframe.NewStream(context.Background(), f.Schema(), 1, func(ctx context.Context, emit func(arrow.Record) bool) error {
		for _, r := range f.Records() {
			r.Retain()
			if !emit(r) {
				return ctx.Err()
			}
		}
		return err
	})
}

func TestWriteStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tmp := t.TempDir()
	f1 := frameOf(t, []string{"k", "v"}, []any{"a", int64(1)}, []any{"b", int64(2)})
	defer f1.Release()
	f2 := frameOf(t, []string{"k", "v"}, []any{"c", int64(3)})
	defer f2.Release()
	write := func(props connectors.Props, s dataframe.Stream) (connectors.WriteResult, error) {
		defer s.Release()
		return conn.WriteStream(ctx, ds(props), s)
	}
	read := func(props connectors.Props) []string {
		got, err := conn.Read(ctx, ds(props))
		require.NoError(t, err)
		defer got.Release()
		// ReadStream reads the same rows.
		s, err := conn.ReadStream(ctx, ds(props))
		require.NoError(t, err)
		defer s.Release()
		streamed, _ := collectStream(t, s)
		defer streamed.Release()
		require.Equal(t, jsonRows(t, got), jsonRows(t, streamed))
		return jsonRows(t, got)
	}

	// One file, replaced.
	file := connectors.Props{parquet.PropPath: filepath.Join(tmp, "one.parquet"), parquet.PropCompression: "zstd"}
	res, err := write(file, f1.Stream())
	require.NoError(t, err)
	require.Equal(t, connectors.WriteResult{Rows: 2, Written: 2}, res)
	_, err = write(file, f2.Stream())
	require.NoError(t, err)
	require.Equal(t, []string{`{"k":"c","v":3}`}, read(file))

	// A stream that fails half-way leaves the old file whole, and no temporary.
	boom := errors.New("boom")
	_, err = write(file, failingStream(f1, boom))
	require.ErrorIs(t, err, boom)
	require.Equal(t, []string{`{"k":"c","v":3}`}, read(file))
	noTempFiles(t, tmp)

	// A panic inside the write (Arrow's writers can panic) is an error
	// naming the file; the old file stays whole, and no temporary is left.
	_, err = write(file, &panickyStream{RecordReader: f1.Stream()})
	require.ErrorContains(t, err, "writing "+file[parquet.PropPath]+": arrow: bad batch")
	require.NotContains(t, err.Error(), ".tmp")
	require.Equal(t, []string{`{"k":"c","v":3}`}, read(file))
	noTempFiles(t, tmp)

	// A directory: overwrite replaces the part files, append adds one.
	dir := connectors.Props{parquet.PropPath: filepath.Join(tmp, "d") + "/"}
	_, err = write(dir, f1.Stream())
	require.NoError(t, err)
	_, err = write(dir, f2.Stream())
	require.NoError(t, err)
	require.Equal(t, []string{`{"k":"c","v":3}`}, read(dir))
	app := connectors.Props{parquet.PropPath: dir[parquet.PropPath], parquet.PropMode: "append"}
	_, err = write(app, f1.Stream())
	require.NoError(t, err)
	require.ElementsMatch(t, []string{`{"k":"c","v":3}`, `{"k":"a","v":1}`, `{"k":"b","v":2}`}, read(dir))
	_, err = write(dir, failingStream(f1, boom))
	require.ErrorIs(t, err, boom)
	require.Len(t, read(dir), 3, "a failed overwrite keeps the old part files")
	noTempFiles(t, tmp)

	// Partitioned and merge writes collect the stream, then write as Write does.
	part := connectors.Props{parquet.PropPath: filepath.Join(tmp, "p") + "/", parquet.PropPartitionBy: "k"}
	res, err = write(part, f1.Stream())
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Written)
	require.Len(t, listFiles(t, part[parquet.PropPath]), 2)
	merge := connectors.Props{parquet.PropPath: file[parquet.PropPath], parquet.PropMode: "merge", parquet.PropMergeKey: "k"}
	_, err = write(merge, f1.Stream())
	require.NoError(t, err)
	require.ElementsMatch(t, []string{`{"k":"a","v":1}`, `{"k":"b","v":2}`, `{"k":"c","v":3}`}, read(file))

	// Errors name the property, as Write's do.
	_, err = write(connectors.Props{parquet.PropPath: file[parquet.PropPath], parquet.PropMode: "append"}, f1.Stream())
	require.ErrorContains(t, err, "svc.parquet.mode=append needs a directory")
	_, err = write(connectors.Props{}, f1.Stream())
	require.ErrorContains(t, err, "property svc.parquet.path is required")
}

// panickyStream panics on its second batch, as a broken Arrow writer might.
type panickyStream struct {
	array.RecordReader
	n int
}

func (s *panickyStream) Next() bool {
	if s.n++; s.n > 1 {
		panic("arrow: bad batch")
	}
	return s.RecordReader.Next()
}

func noTempFiles(t *testing.T, root string) {
	t.Helper()
	for _, f := range listFiles(t, root) {
		require.NotContains(t, "/"+f, "/.", "temporary file left: %s", f)
	}
}

func TestReadStreamRowsByPosition(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeGroups(t, path, 1000)
	props := connectors.Props{parquet.PropPath: path}
	ctx := context.Background()
	s, applied, err := conn.ReadScan(ctx, ds(props), scan.Request{Columns: []string{"id", "score"}, Rows: []int64{0, 99, 100, 555, 999}})
	require.NoError(t, err)
	defer s.Release()
	require.True(t, applied.Rows)
	got, _ := collectStream(t, s)
	defer got.Release()
	require.Equal(t, []string{`{"id":0,"score":0.0}`, `{"id":99,"score":49.5}`, `{"id":100,"score":50.0}`, `{"id":555,"score":277.5}`, `{"id":999,"score":499.5}`}, jsonRows(t, got))

	_, applied, err = conn.ReadScan(ctx, ds(props), scan.Request{Rows: []int64{5, 1000}})
	require.ErrorContains(t, err, "row 1000 is past its end (1000 rows)")
	require.False(t, applied.Rows)

	// A directory does not read by position: the request is left unapplied.
	dir := filepath.Dir(path) + "/"
	s2, applied, err := conn.ReadScan(ctx, ds(connectors.Props{parquet.PropPath: dir}), scan.Request{Rows: []int64{1}})
	require.NoError(t, err)
	s2.Release()
	require.False(t, applied.Rows)
}
