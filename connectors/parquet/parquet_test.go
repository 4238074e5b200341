package parquet_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func fixture(t *testing.T) *dataframe.Frame {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("testdata", "youtube_subscriptions_by_channel_p1.json"))
	require.NoError(t, err)
	f, err := jsonframe.ReadDocument(doc, jsonframe.Options{RecordsPath: "items"})
	require.NoError(t, err)
	return f
}

func frameOf(t *testing.T, cols []string, rows ...[]any) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.FromValues(cols, rows)
	require.NoError(t, err)
	return f
}

func jsonRows(t *testing.T, f *dataframe.Frame) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		out = append(out, string(obj))
		return nil
	}))
	return out
}

func ds(props connectors.Props, fields ...connectors.Field) *connectors.Dataset {
	return &connectors.Dataset{Name: "lake.t", Props: props, Fields: fields}
}

var conn = parquet.Connector{}

// listFiles lists every file under dir, relative, hidden ones included.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	}))
	sort.Strings(out)
	return out
}

func TestRegistered(t *testing.T) {
	t.Parallel()
	c, err := connectors.Lookup("parquet")
	require.NoError(t, err)
	require.IsType(t, parquet.Connector{}, c)
}

func TestSingleFileNestedRoundTrip(t *testing.T) {
	t.Parallel()
	f := fixture(t)
	defer f.Release()
	path := filepath.Join(t.TempDir(), "subs.parquet")
	res, err := conn.Write(context.Background(), ds(connectors.Props{parquet.PropPath: path}), f)
	require.NoError(t, err)
	require.Equal(t, int64(5), res.Written)

	got, err := conn.Read(context.Background(), ds(connectors.Props{parquet.PropPath: path}))
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, dataframe.SchemaString(f.Schema()), dataframe.SchemaString(got.Schema()))
	require.Equal(t, jsonRows(t, f), jsonRows(t, got))
	require.Equal(t, []string{"subs.parquet"}, listFiles(t, filepath.Dir(path)), "no temporary file is left")

	// A second write replaces the file.
	small := frameOf(t, []string{"a"}, []any{int64(1)})
	defer small.Release()
	_, err = conn.Write(context.Background(), ds(connectors.Props{parquet.PropPath: path}), small)
	require.NoError(t, err)
	again, err := conn.Read(context.Background(), ds(connectors.Props{parquet.PropPath: path}))
	require.NoError(t, err)
	defer again.Release()
	require.Equal(t, []string{`{"a":1}`}, jsonRows(t, again))
}

func TestDirectoryReplaceAndAppend(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data") + "/" // a trailing slash: a directory, even before it exists
	ctx := context.Background()
	a := frameOf(t, []string{"n", "s"}, []any{int64(1), "a"}, []any{int64(2), "b"})
	defer a.Release()
	b := frameOf(t, []string{"n", "s"}, []any{int64(3), "c"})
	defer b.Release()

	_, err := conn.Write(ctx, ds(connectors.Props{parquet.PropPath: dir}), a)
	require.NoError(t, err)
	_, err = conn.Write(ctx, ds(connectors.Props{parquet.PropPath: dir, parquet.PropMode: "append"}), b)
	require.NoError(t, err)
	files := listFiles(t, dir)
	require.Len(t, files, 2)
	for _, f := range files {
		require.True(t, strings.HasPrefix(f, "part-") && strings.HasSuffix(f, ".snappy.parquet"), f)
	}
	got, err := conn.Read(ctx, ds(connectors.Props{parquet.PropPath: strings.TrimSuffix(dir, "/")})) // existing directory
	require.NoError(t, err)
	require.ElementsMatch(t, []string{`{"n":1,"s":"a"}`, `{"n":2,"s":"b"}`, `{"n":3,"s":"c"}`}, jsonRows(t, got))
	got.Release()

	// Overwrite keeps only the new data; compression is honoured.
	_, err = conn.Write(ctx, ds(connectors.Props{parquet.PropPath: dir, parquet.PropCompression: "zstd"}), b)
	require.NoError(t, err)
	files = listFiles(t, dir)
	require.Len(t, files, 1)
	require.Contains(t, files[0], ".zstd.parquet")
	got, err = conn.Read(ctx, ds(connectors.Props{parquet.PropPath: dir}))
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, []string{`{"n":3,"s":"c"}`}, jsonRows(t, got))
}

func TestReadSkipsHiddenAndOrdersByName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	for name, v := range map[string]int64{"b.parquet": 2, "a.parquet": 1, "c.parquet": 3} {
		f := frameOf(t, []string{"n"}, []any{v})
		require.NoError(t, parquet.WriteFileAtomic(filepath.Join(dir, name), f, ""))
		f.Release()
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".x.parquet.tmp"), []byte("half"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not data"), 0o644))
	got, err := conn.Read(ctx, ds(connectors.Props{parquet.PropPath: dir}))
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, jsonRows(t, got))
}

func TestPartitionedWriteAndRead(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "events")
	ctx := context.Background()
	f := frameOf(t, []string{"id", "region", "year"},
		[]any{int64(1), "eu", int64(2024)},
		[]any{int64(2), "us", int64(2024)},
		[]any{int64(3), "eu", int64(2023)},
		[]any{int64(4), nil, int64(2024)},
		[]any{int64(5), "a/b=c", int64(2024)},
	)
	defer f.Release()
	props := connectors.Props{parquet.PropPath: dir + "/", parquet.PropPartitionBy: "region, year"}
	_, err := conn.Write(ctx, ds(props), f)
	require.NoError(t, err)
	var dirs []string
	for _, p := range listFiles(t, dir) {
		dirs = append(dirs, filepath.Dir(p))
	}
	require.ElementsMatch(t, []string{"region=eu/year=2024", "region=us/year=2024", "region=eu/year=2023",
		"region=__HIVE_DEFAULT_PARTITION__/year=2024", "region=a%2Fb%3Dc/year=2024"}, dirs)

	// Untyped: partition values come back as strings, after the data columns.
	got, err := conn.Read(ctx, ds(connectors.Props{parquet.PropPath: dir}))
	require.NoError(t, err)
	require.Equal(t, "root\n |-- id: long (nullable = true)\n |-- region: string (nullable = true)\n |-- year: string (nullable = true)\n",
		dataframe.SchemaString(got.Schema()))
	require.ElementsMatch(t, []string{
		`{"id":1,"region":"eu","year":"2024"}`, `{"id":2,"region":"us","year":"2024"}`,
		`{"id":3,"region":"eu","year":"2023"}`, `{"id":4,"region":null,"year":"2024"}`,
		`{"id":5,"region":"a/b=c","year":"2024"}`,
	}, jsonRows(t, got))
	got.Release()

	// Typed by the dataset's fields.
	got, err = conn.Read(ctx, ds(connectors.Props{parquet.PropPath: dir}, connectors.Field{Name: "id", Type: "long"}, connectors.Field{Name: "year", Type: "integer"}))
	require.NoError(t, err)
	defer got.Release()
	require.Contains(t, dataframe.SchemaString(got.Schema()), "|-- year: integer")
	require.Contains(t, jsonRows(t, got), `{"id":3,"region":"eu","year":2023}`)

	// A bad typed value names the column.
	_, err = conn.Read(ctx, ds(connectors.Props{parquet.PropPath: dir}, connectors.Field{Name: "region", Type: "long"}))
	require.ErrorContains(t, err, `column "region": "a/b=c" is not a long`)
}

func TestPartitionedReplaceRemovesOldPartitions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "p") + "/"
	ctx := context.Background()
	props := connectors.Props{parquet.PropPath: dir, parquet.PropPartitionBy: "k"}
	f1 := frameOf(t, []string{"k", "v"}, []any{"old", int64(1)})
	defer f1.Release()
	f2 := frameOf(t, []string{"k", "v"}, []any{"new", int64(2)})
	defer f2.Release()
	_, err := conn.Write(ctx, ds(props), f1)
	require.NoError(t, err)
	_, err = conn.Write(ctx, ds(props), f2)
	require.NoError(t, err)
	files := listFiles(t, dir)
	require.Len(t, files, 1)
	require.True(t, strings.HasPrefix(files[0], "k=new/"), files[0])
	_, err = os.Stat(filepath.Join(dir, "k=old"))
	require.ErrorIs(t, err, os.ErrNotExist, "an emptied partition directory is removed")
}

func TestErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tmp := t.TempDir()
	f := frameOf(t, []string{"a"}, []any{int64(1)})
	defer f.Release()
	file := filepath.Join(tmp, "one.parquet")
	require.NoError(t, parquet.WriteFileAtomic(file, f, "snappy"))
	garbage := filepath.Join(tmp, "garbage.parquet")
	require.NoError(t, os.WriteFile(garbage, []byte("PAR1 this is not parquet"), 0o644))
	empty := t.TempDir()
	mixed := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(mixed, "k=1"), 0o755))
	require.NoError(t, parquet.WriteFileAtomic(filepath.Join(mixed, "k=1", "a.parquet"), f, ""))
	require.NoError(t, parquet.WriteFileAtomic(filepath.Join(mixed, "b.parquet"), f, ""))

	tests := []struct {
		name  string
		write bool
		props connectors.Props
		want  string
	}{
		{"no path", false, connectors.Props{}, "property svc.parquet.path is required"},
		{"missing file", false, connectors.Props{parquet.PropPath: filepath.Join(tmp, "nope.parquet")}, "nope.parquet"},
		{"garbage", false, connectors.Props{parquet.PropPath: garbage}, "garbage.parquet"},
		{"empty dir", false, connectors.Props{parquet.PropPath: empty}, "no parquet files in"},
		{"mixed partitions", false, connectors.Props{parquet.PropPath: mixed}, "inconsistent partition directories"},
		{"append to file", true, connectors.Props{parquet.PropPath: file, parquet.PropMode: "append"}, "svc.parquet.mode=append needs a directory"},
		{"partition to file", true, connectors.Props{parquet.PropPath: file, parquet.PropPartitionBy: "a"}, "svc.parquet.partition.by needs a directory"},
		{"bad mode", true, connectors.Props{parquet.PropPath: file, parquet.PropMode: "upsert"}, `svc.parquet.mode: "upsert" is not overwrite, append or merge`},
		{"merge without key", true, connectors.Props{parquet.PropPath: file, parquet.PropMode: "merge"}, `svc.parquet.mode=merge needs svc.parquet.merge.key`},
		{"bad codec", true, connectors.Props{parquet.PropPath: file, parquet.PropCompression: "lzo"}, `svc.parquet.compression: "lzo" is not one of`},
		{"unknown partition column", true, connectors.Props{parquet.PropPath: tmp + "/x/", parquet.PropPartitionBy: "zz"}, `partition column "zz" is not a column`},
		{"only partition columns", true, connectors.Props{parquet.PropPath: tmp + "/y/", parquet.PropPartitionBy: "a"}, "leaves no data columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.write {
				_, err = conn.Write(ctx, ds(tt.props), f)
			} else {
				var got *dataframe.Frame
				got, err = conn.Read(ctx, ds(tt.props))
				if got != nil {
					got.Release()
				}
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
	// A failed write leaves the old file whole.
	got, err := conn.Read(ctx, ds(connectors.Props{parquet.PropPath: file}))
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, []string{`{"a":1}`}, jsonRows(t, got))
}

func TestValidate(t *testing.T) {
	t.Parallel()
	require.ErrorContains(t, conn.Validate(nil, connectors.Props{}), "svc.parquet.path is required")
	require.NoError(t, conn.Validate(nil, connectors.Props{parquet.PropPath: "x/"}))
	require.ErrorContains(t, conn.Validate([]connectors.Field{{Name: "a", Type: "long"}}, connectors.Props{parquet.PropPath: "x/", parquet.PropPartitionBy: "b"}), `"b" is not a column of the table`)
	require.ErrorContains(t, conn.Validate(nil, connectors.Props{parquet.PropPath: "x", parquet.PropPartitionBy: "a/b"}), `"a/b" is not a column name`)
}

func TestNoLeaks(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f, err := jsonframe.FromValuesWithAllocator(mem, []string{"k", "v"}, [][]any{{"a", int64(1)}, {"b", int64(2)}, {"a", int64(3)}})
	require.NoError(t, err)
	defer f.Release()
	groups, err := parquet.Partition(f, []string{"k"})
	require.NoError(t, err)
	require.Len(t, groups, 2)
	require.Equal(t, []string{"a"}, groups[0].Values)
	require.Equal(t, []string{`{"v":1}`, `{"v":3}`}, jsonRows(t, groups[0].Frame))
	for _, g := range groups {
		g.Frame.Release()
	}
}

// A timestamp partition keeps its microseconds in the directory name (and
// whole milliseconds the name it always had), and reads back typed.
func TestPartitionedByTimestampKeepsMicros(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "events")
	ctx := context.Background()
	us := time.Date(2008, 12, 25, 7, 30, 0, 123123000, time.UTC)
	ms := time.Date(2008, 12, 25, 7, 30, 0, 123000000, time.UTC)
	f := frameOf(t, []string{"id", "at"}, []any{int64(1), us}, []any{int64(2), ms})
	defer f.Release()
	_, err := conn.Write(ctx, ds(connectors.Props{parquet.PropPath: dir + "/", parquet.PropPartitionBy: "at"}), f)
	require.NoError(t, err)
	var dirs []string
	for _, p := range listFiles(t, dir) {
		dirs = append(dirs, filepath.Dir(p))
	}
	require.ElementsMatch(t, []string{"at=2008-12-25 07%3A30%3A00.123123", "at=2008-12-25 07%3A30%3A00.123"}, dirs)
	got, err := conn.Read(ctx, ds(connectors.Props{parquet.PropPath: dir}, connectors.Field{Name: "id", Type: "long"}, connectors.Field{Name: "at", Type: "timestamp"}))
	require.NoError(t, err)
	defer got.Release()
	require.ElementsMatch(t, []string{`{"id":1,"at":"2008-12-25T07:30:00.123123Z"}`, `{"id":2,"at":"2008-12-25T07:30:00.123Z"}`}, jsonRows(t, got))
}
