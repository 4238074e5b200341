package dataframe

import (
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

// ioNestedSchema is a schema with every kind of column the IO code handles.
var ioNestedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "at", Type: TimestampType, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	{Name: "info", Type: arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.StructOf(arrow.Field{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	), Nullable: true},
	{Name: "items", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	)), Nullable: true},
}, nil)

const ioNestedRows = `[
{"id": 1, "name": "alice", "score": 1.5, "ok": true, "at": "2024-05-01T10:00:00.000Z", "tags": ["x", "y"], "info": {"a": 9007199254740993, "b": {"c": "deep"}}, "items": [{"id": "i1", "n": 1}, {"id": "i2", "n": null}]},
{"id": 3000000000, "name": null, "score": null, "ok": false, "at": null, "tags": [], "info": null, "items": null},
{"id": null, "name": "comma, \"quote\"\nnewline", "score": -0.25, "ok": null, "at": "1999-12-31T23:59:59.123Z", "tags": null, "info": {"a": null, "b": null}, "items": []}
]`

// ioNestedFrame builds a frame of ioNestedSchema in batches of batch rows (all
// rows in one batch when batch is 0).
func ioNestedFrame(t testing.TB, mem memory.Allocator, batch int) *Frame {
	t.Helper()
	return ioFrameFromJSON(t, mem, ioNestedSchema, ioNestedRows, batch)
}

func ioFrameFromJSON(t testing.TB, mem memory.Allocator, schema *arrow.Schema, rows string, batch int) *Frame {
	t.Helper()
	rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(rows), array.WithUseNumber())
	require.NoError(t, err)
	if batch <= 0 || int64(batch) >= rec.NumRows() {
		f, err := New(schema, rec)
		require.NoError(t, err)
		return f
	}
	var recs []arrow.Record
	for off := int64(0); off < rec.NumRows(); off += int64(batch) {
		recs = append(recs, rec.NewSlice(off, min(off+int64(batch), rec.NumRows())))
	}
	rec.Release()
	f, err := New(schema, recs...)
	require.NoError(t, err)
	return f
}

// ioRequireFramesEqual compares schemas (ignoring metadata) and every row's
// JSON text.
func ioRequireFramesEqual(t testing.TB, want, got *Frame) {
	t.Helper()
	require.True(t, arrow.TypeEqual(arrow.StructOf(want.Schema().Fields()...), arrow.StructOf(got.Schema().Fields()...)),
		"schema:\nwant %s\ngot  %s", want.Schema(), got.Schema())
	require.Equal(t, ioFrameRowsJSON(t, want), ioFrameRowsJSON(t, got))
}

func ioFrameRowsJSON(t testing.TB, f *Frame) []string {
	t.Helper()
	var rows []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	return rows
}

func ioCheckedAlloc(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}
