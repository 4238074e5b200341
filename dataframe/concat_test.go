package dataframe_test

import (
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func mustJSON(t *testing.T, mem memory.Allocator, doc string) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.ReadDocument([]byte(doc), jsonframe.Options{Allocator: mem})
	require.NoError(t, err)
	return f
}

func TestMergeSchemas(t *testing.T) {
	t.Parallel()
	s := func(fs ...arrow.Field) *arrow.Schema { return arrow.NewSchema(fs, nil) }
	a := s(nf("a", arrow.PrimitiveTypes.Int64), nf("s", arrow.StructOf(nf("x", arrow.PrimitiveTypes.Int64))), nf("z", arrow.ListOf(arrow.PrimitiveTypes.Int64)))
	b := s(nf("a", arrow.PrimitiveTypes.Float64), nf("b", arrow.FixedWidthTypes.Boolean), nf("s", arrow.StructOf(nf("w", arrow.BinaryTypes.String))), nf("z", arrow.BinaryTypes.String))
	require.Equal(t, "root\n |-- a: double (nullable = true)\n |-- b: boolean (nullable = true)\n |-- s: struct (nullable = true)\n |    |-- w: string (nullable = true)\n |    |-- x: long (nullable = true)\n |-- z: string (nullable = true)\n",
		dataframe.SchemaString(dataframe.MergeSchemas(a, b)))

	// Unsorted inputs keep a's order, then b's new fields.
	c := s(nf("z", arrow.PrimitiveTypes.Int32), nf("a", arrow.Null))
	d := s(nf("m", arrow.PrimitiveTypes.Int64), nf("a", arrow.ListOf(arrow.PrimitiveTypes.Int64)), nf("z", arrow.PrimitiveTypes.Int64))
	require.Equal(t, "root\n |-- z: long (nullable = true)\n |-- a: array (nullable = true)\n |    |-- element: long (containsNull = true)\n |-- m: long (nullable = true)\n",
		dataframe.SchemaString(dataframe.MergeSchemas(c, d)))
	require.Equal(t, a, dataframe.MergeSchemas(a, nil))
	require.Equal(t, 0, dataframe.MergeSchemas(nil, nil).NumFields())
}

func TestConcat(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f1 := mustJSON(t, mem, `[{"a":1,"s":{"x":1},"t":"x"},{"a":2,"s":null,"t":"y"}]`)
	defer f1.Release()
	f2 := mustJSON(t, mem, `[{"a":2.5,"b":true,"s":{"y":"q"},"t":{"k":[1,2]}}]`)
	defer f2.Release()
	f3 := mustJSON(t, mem, `[{"a":3,"s":{"x":3},"t":"z"}]`)
	defer f3.Release()
	empty := dataframe.Empty(arrow.NewSchema(nil, nil))

	got, err := dataframe.ConcatWithAllocator(mem, f1, empty, f2, f3)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, "root\n |-- a: double (nullable = true)\n |-- b: boolean (nullable = true)\n |-- s: struct (nullable = true)\n |    |-- x: long (nullable = true)\n |    |-- y: string (nullable = true)\n |-- t: string (nullable = true)\n",
		dataframe.SchemaString(got.Schema()))
	require.Equal(t, []string{
		`{"a":1.0,"b":null,"s":{"x":1,"y":null},"t":"x"}`,
		`{"a":2.0,"b":null,"s":null,"t":"y"}`,
		`{"a":2.5,"b":true,"s":{"x":null,"y":"q"},"t":"{\"k\":[1,2]}"}`,
		`{"a":3.0,"b":null,"s":{"x":3,"y":null},"t":"z"}`,
	}, frametest.RowsJSON(t, got))
	require.Len(t, got.Records(), 3)

	// Frames with one schema share their batches.
	same, err := dataframe.ConcatWithAllocator(mem, f1, f1)
	require.NoError(t, err)
	defer same.Release()
	require.Equal(t, int64(4), same.NumRows())
	require.Same(t, f1.Records()[0], same.Records()[1])

	none, err := dataframe.Concat()
	require.NoError(t, err)
	require.Equal(t, int64(0), none.NumRows())
}

func TestConcatTimestamps(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts := time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC)
	a, err := jsonframe.FromValuesWithAllocator(mem, []string{"t", "u"}, [][]any{{ts, ts}})
	require.NoError(t, err)
	defer a.Release()
	sch := arrow.NewSchema([]arrow.Field{nf("t", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}), nf("u", arrow.BinaryTypes.String)}, nil)
	rb := array.NewRecordBuilder(mem, sch)
	defer rb.Release()
	rb.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
	rb.Field(1).(*array.StringBuilder).Append("text")
	b, err := dataframe.New(sch, rb.NewRecord())
	require.NoError(t, err)
	defer b.Release()
	got, err := dataframe.ConcatWithAllocator(mem, a, b)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, "root\n |-- t: timestamp (nullable = true)\n |-- u: string (nullable = true)\n", dataframe.SchemaString(got.Schema()))
	require.Equal(t, []string{
		`{"t":"2024-05-01T10:00:00.123456Z","u":"2024-05-01T10:00:00.123456Z"}`,
		`{"t":"2024-05-01T10:00:00.123456Z","u":"text"}`,
	}, frametest.RowsJSON(t, got))
}

func TestConcatDecimals(t *testing.T) {
	t.Parallel()
	a, err := jsonframe.ReadNDJSON([]byte(`{"a":1,"b":2.5}`+"\n"), jsonframe.Options{})
	require.NoError(t, err)
	defer a.Release()
	b, err := jsonframe.ReadNDJSON([]byte(`{"a":92233720368547758070,"b":12345678901234567890123}`+"\n"), jsonframe.Options{})
	require.NoError(t, err)
	defer b.Release()
	c, err := dataframe.Concat(a, b)
	require.NoError(t, err)
	defer c.Release()
	// long + decimal(20,0) → decimal(20,0); double + decimal → double.
	require.Equal(t, "root\n |-- a: decimal(20,0) (nullable = true)\n |-- b: double (nullable = true)\n", dataframe.SchemaString(c.Schema()))
	require.Equal(t, []string{`{"a":1,"b":2.5}`, `{"a":92233720368547758070,"b":1.2345678901234568e+22}`}, frametest.RowsJSON(t, c))
}
