package fileio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	parquetgo "github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

func TestParquetRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		opts  ParquetOptions
		batch int
	}{
		{"snappy", ParquetOptions{}, 0},
		{"zstd", ParquetOptions{Compression: "zstd"}, 0},
		{"gzip small row groups", ParquetOptions{Compression: "GZIP", RowGroupRows: 1}, 2},
		{"none", ParquetOptions{Compression: "none"}, 1},
		{"brotli", ParquetOptions{Compression: "brotli"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := frametest.CheckedAlloc(t)
			f := fixtures.NestedFrame(t, mem, tc.batch)
			defer f.Release()
			path := filepath.Join(t.TempDir(), "x.parquet")
			var buf bytes.Buffer
			require.NoError(t, WriteParquet(&buf, f, tc.opts))
			require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			got, err := ReadParquet(t.Context(), path, mem)
			require.NoError(t, err)
			defer got.Release()
			require.Equal(t, f.ColumnNames(), got.ColumnNames())
			require.Equal(t, f.NumRows(), got.NumRows())
			frametest.RequireFramesEqual(t, f, got)
		})
	}
}

func TestParquetOptionsValidate(t *testing.T) {
	t.Parallel()
	err := ParquetOptions{Compression: "lzo"}.validate()
	require.ErrorContains(t, err, `compression "lzo"`)
	require.ErrorContains(t, ParquetOptions{RowGroupRows: -1}.validate(), "RowGroupRows")
	require.NoError(t, ParquetOptions{Compression: "ZSTD"}.validate())
}

func TestReadParquetCorrupt(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.NestedFrame(t, mem, 0)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteParquet(&buf, f, ParquetOptions{}))
	good := buf.Bytes()
	dir := t.TempDir()
	mustFail := map[string][]byte{
		"empty":     nil,
		"garbage":   []byte("definitely not parquet at all, not even close"),
		"truncated": good[:len(good)/2],
		"no footer": good[:len(good)-8],
	}
	for name, data := range mustFail {
		path := filepath.Join(dir, "bad.parquet")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		_, err := ReadParquet(t.Context(), path, mem)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "parquet", name)
	}
	// Bytes flipped throughout the body: each variant must either fail
	// with an error or read, never panic (the test process would die).
	for off := 4; off < len(good)-8; off += max(1, len(good)/80) {
		bad := bytes.Clone(good)
		bad[off] ^= 0xff
		path := filepath.Join(dir, "flip.parquet")
		require.NoError(t, os.WriteFile(path, bad, 0o644))
		// Default allocator: a recovered panic leaves Arrow's own
		// half-built buffers to the garbage collector, not to Release.
		got, err := ReadParquet(t.Context(), path, nil)
		if err != nil {
			require.Contains(t, err.Error(), "parquet", "flip at %d", off)
			continue
		}
		got.Release()
	}
}

// TestParquetReadByParquetGo checks that a second, independent Parquet
// implementation reads what we write: row count, column names, values.
func TestParquetReadByParquetGo(t *testing.T) {
	t.Parallel()
	f := fixtures.NestedFrame(t, memory.DefaultAllocator, 0)
	defer f.Release()
	for _, codec := range []string{"snappy", "zstd", "gzip", "none"} {
		var buf bytes.Buffer
		require.NoError(t, WriteParquet(&buf, f, ParquetOptions{Compression: codec}))
		pf, err := parquetgo.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		require.NoError(t, err, codec)
		require.Equal(t, int64(3), pf.NumRows())
		var names []string
		for _, fd := range pf.Schema().Fields() {
			names = append(names, fd.Name())
		}
		require.Equal(t, f.ColumnNames(), names)

		rows := make([]parquetgo.Row, 5)
		n, _ := pf.RowGroups()[0].Rows().ReadRows(rows)
		require.Equal(t, 3, n)
		// Leaf columns: 0 id, 1 name, 2 score, 3 ok, 4 at, 5 tags.element,
		// 6 info.a, 7 info.b.c, 8 items.element.id, 9 items.element.n.
		leaf := func(row parquetgo.Row, col int) []parquetgo.Value {
			var vs []parquetgo.Value
			for _, v := range row {
				if v.Column() == col {
					vs = append(vs, v)
				}
			}
			return vs
		}
		require.Equal(t, int64(1), leaf(rows[0], 0)[0].Int64())
		require.Equal(t, int64(3000000000), leaf(rows[1], 0)[0].Int64())
		require.True(t, leaf(rows[2], 0)[0].IsNull())
		require.Equal(t, "alice", string(leaf(rows[0], 1)[0].ByteArray()))
		require.Equal(t, 1.5, leaf(rows[0], 2)[0].Double())
		tags := leaf(rows[0], 5)
		require.Len(t, tags, 2)
		require.Equal(t, "y", string(tags[1].ByteArray()))
		require.Equal(t, int64(9007199254740993), leaf(rows[0], 6)[0].Int64())
		require.Equal(t, "deep", string(leaf(rows[0], 7)[0].ByteArray()))
		require.Equal(t, "i2", string(leaf(rows[0], 8)[1].ByteArray()))
	}
}

func TestRowGroupSlices(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.NestedFrame(t, mem, 1) // three one-row batches
	defer f.Release()
	for _, tc := range []struct {
		max  int64
		want []int64
	}{
		{1, []int64{1, 1, 1}},
		{2, []int64{2, 1}},
		{3, []int64{3}},
		{100, []int64{3}},
	} {
		groups := rowGroupSlices(f, tc.max)
		var got []int64
		for _, g := range groups {
			var n int64
			for _, r := range g {
				n += r.NumRows()
			}
			got = append(got, n)
		}
		releaseGroups(groups)
		require.Equal(t, tc.want, got, "max %d", tc.max)
	}
	require.Nil(t, rowGroupSlices(dataframe.Empty(fixtures.NestedSchema), 10))
}

// TestParquetParallelMatchesSerial writes many row groups on several
// goroutines (the spliced file) and on one, and checks that both read back
// the same with our reader and with parquet-go.
func TestParquetParallelMatchesSerial(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	// 3 rows × 20 copies in batches of 7 rows: row groups cut across batches.
	rows := strings.Repeat(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(fixtures.NestedRows), "["), "]")+",", 20)
	f := fixtures.FrameFromJSON(t, mem, fixtures.NestedSchema, "["+strings.TrimSuffix(rows, ",")+"]", 7)
	defer f.Release()
	require.Equal(t, int64(60), f.NumRows())
	dir := t.TempDir()
	var files []string
	for _, tc := range []struct {
		workers int
		codec   string
	}{{1, "snappy"}, {2, "snappy"}, {5, "zstd"}} {
		workers, codec := tc.workers, tc.codec
		var buf bytes.Buffer
		require.NoError(t, writeParquet(t.Context(), &buf, f, ParquetOptions{Compression: codec, RowGroupRows: 9}, workers))
		path := filepath.Join(dir, fmt.Sprintf("w%d-%s.parquet", workers, codec))
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		files = append(files, path)

		pf, err := parquetgo.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		require.NoError(t, err)
		require.Equal(t, int64(60), pf.NumRows())
		require.Len(t, pf.RowGroups(), 7) // ceil(60/9) groups of ≤ 9 rows
		var n int
		for _, rg := range pf.RowGroups() {
			rr := rg.Rows()
			buf := make([]parquetgo.Row, 16)
			for {
				k, err := rr.ReadRows(buf)
				n += k
				if err != nil {
					break
				}
			}
			require.NoError(t, rr.Close())
		}
		require.Equal(t, 60, n)
	}
	for _, path := range files {
		got, err := ReadParquet(t.Context(), path, mem)
		require.NoError(t, err)
		frametest.RequireFramesEqual(t, f, got)
		got.Release()
	}
}

func TestParquetEmptyFrame(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	path := filepath.Join(t.TempDir(), "empty.parquet")
	require.NoError(t, WriteFile(t.Context(), path, dataframe.Empty(fixtures.NestedSchema), FileOptions{}))
	got, err := ReadParquet(t.Context(), path, mem)
	require.NoError(t, err)
	defer got.Release()
	require.Zero(t, got.NumRows())
	require.Equal(t, dataframe.SchemaString(fixtures.NestedSchema), dataframe.SchemaString(got.Schema()))
}

// TestParquetDictionaryOnlyWhereValuesRepeat checks the per-column choice:
// mostly-distinct columns are written plain, repetitive ones with a
// dictionary, and both read back.
func TestParquetDictionaryOnlyWhereValuesRepeat(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "kind", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	var sb strings.Builder
	sb.WriteString("[")
	for i := 0; i < 3000; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"id":"id-%d","kind":"k%d","n":%d,"tags":["t%d","u%d"]}`, i, i%3, i*7919, i%5, i)
	}
	sb.WriteString("]")
	f := fixtures.FrameFromJSON(t, mem, schema, sb.String(), 1000)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteParquet(&buf, f, ParquetOptions{}))
	pf, err := parquetgo.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	dict := map[string]bool{}
	for _, cc := range pf.Metadata().RowGroups[0].Columns {
		d := false
		for _, e := range cc.MetaData.Encoding {
			d = d || e == pqformat.RLEDictionary || e == pqformat.PlainDictionary
		}
		dict[strings.Join(cc.MetaData.PathInSchema, ".")] = d
	}
	require.Equal(t, map[string]bool{"id": false, "kind": true, "n": false, "tags.list.element": false}, dict)

	path := filepath.Join(t.TempDir(), "d.parquet")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	got, err := ReadParquet(t.Context(), path, mem)
	require.NoError(t, err)
	defer got.Release()
	frametest.RequireFramesEqual(t, f, got)
}

// TestParquetRoundTripFromJSON: JSON → frame → Parquet → frame gives the same
// schema (nested structs and lists, column order) and rows, for each codec.
func TestParquetRoundTripFromJSON(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	subs := ioSubscriptionsFrame(t, mem)
	defer subs.Release()
	listing := new(bytes.Buffer)
	require.NoError(t, datagen.GenListing(listing, 300, 7))
	gen, err := jsonframe.ReadDocument(listing.Bytes(), jsonframe.Options{RecordsPath: "items", Allocator: mem})
	require.NoError(t, err)
	defer gen.Release()
	for _, f := range []*dataframe.Frame{subs, gen} {
		for _, codec := range []string{"snappy", "zstd"} {
			path := filepath.Join(t.TempDir(), "x.parquet")
			require.NoError(t, WriteFile(t.Context(), path, f, FileOptions{Parquet: ParquetOptions{Compression: codec, RowGroupRows: 128}}))
			got, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
			require.NoError(t, err)
			require.Equal(t, dataframe.SchemaString(f.Schema()), dataframe.SchemaString(got.Schema()))
			frametest.RequireFramesEqual(t, f, got)
			got.Release()
		}
	}
}

// A Parquet file with timestamps of another unit (TIMESTAMP_MILLIS,
// TIMESTAMP_NANOS, seconds in the stored Arrow schema), nested ones too,
// reads as Spark's timestamp: microseconds, nanoseconds floored.
func TestParquetTimestampsReadAsMicros(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	ms := &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	ns := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	sec := &arrow.TimestampType{Unit: arrow.Second}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ms", Type: ms, Nullable: true},
		{Name: "ns", Type: ns, Nullable: true},
		{Name: "s", Type: sec, Nullable: true},
		{Name: "list", Type: arrow.ListOf(ms), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "at", Type: ms, Nullable: true}), Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1230219000123, 0}, []bool{true, false})
	rb.Field(1).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1230219000123123999, -1}, nil)
	rb.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1230219000, -1}, nil)
	lb := rb.Field(3).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1, 2}, nil)
	lb.AppendNull()
	sb := rb.Field(4).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.TimestampBuilder).Append(-1)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.TimestampBuilder).AppendNull()
	rec := rb.NewRecord()
	f, err := dataframe.New(schema, rec)
	require.NoError(t, err)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteParquet(&buf, f, ParquetOptions{}))
	path := filepath.Join(t.TempDir(), "units.parquet")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	want := []string{
		`{"ms":"2008-12-25T15:30:00.123Z","ns":"2008-12-25T15:30:00.123123Z","s":"2008-12-25T15:30:00.000Z","list":["1970-01-01T00:00:00.001Z","1970-01-01T00:00:00.002Z"],"st":{"at":"1969-12-31T23:59:59.999Z"}}`,
		`{"ms":null,"ns":"1969-12-31T23:59:59.999999Z","s":"1969-12-31T23:59:59.000Z","list":null,"st":{"at":null}}`,
	}
	micros := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	wantSchema := arrow.NewSchema([]arrow.Field{
		{Name: "ms", Type: micros, Nullable: true},
		{Name: "ns", Type: micros, Nullable: true},
		{Name: "s", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "list", Type: arrow.ListOf(micros), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "at", Type: micros, Nullable: true}), Nullable: true},
	}, nil)
	got, err := ReadParquet(t.Context(), path, mem)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, dataframe.SchemaString(wantSchema), dataframe.SchemaString(got.Schema()))
	for i, fld := range got.Schema().Fields() {
		require.True(t, arrow.TypeEqual(wantSchema.Field(i).Type, fld.Type), "%s: %s", fld.Name, fld.Type)
	}
	require.Equal(t, want, frametest.RowsJSON(t, got))
	s, err := OpenParquet(t.Context(), path, mem)
	require.NoError(t, err)
	streamed, err := dataframe.Collect(s)
	require.NoError(t, err)
	defer streamed.Release()
	require.True(t, arrow.TypeEqual(micros, streamed.Schema().Field(0).Type))
	require.Equal(t, want, frametest.RowsJSON(t, streamed))
}
