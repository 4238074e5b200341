package fileio

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
)

// columnWriterSchemas cover every node the level builder knows: nullable
// and required fields, structs in lists and lists in structs, lists of
// lists, maps, and the leaf types of Spark's inference.
var columnWriterSchemas = map[string]*arrow.Schema{
	"flat": arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "z", Type: arrow.Null, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 21, Scale: 0}, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil),
	"structs": arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.StructOf(
				arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
				arrow.Field{Name: "r", Type: arrow.BinaryTypes.String},
				arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
			), Nullable: true},
		), Nullable: true},
		{Name: "req", Type: arrow.StructOf(
			arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		)},
	}, nil),
	"lists": arrow.NewSchema([]arrow.Field{
		{Name: "ls", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
		)), Nullable: true},
		{Name: "ll", Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), Nullable: true},
		{Name: "lreq", Type: arrow.ListOfNonNullable(arrow.PrimitiveTypes.Int64)},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(
			arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		)), Nullable: true},
	}, nil),
}

func init() {
	// 70 nested nullable structs: deeper than any fixed-size table of
	// levels would hold.
	dt := arrow.DataType(arrow.PrimitiveTypes.Int64)
	for range 70 {
		dt = arrow.StructOf(arrow.Field{Name: "s", Type: dt, Nullable: true}, arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	columnWriterSchemas["deep"] = arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
}

// TestColumnWriterMatchesPqarrow writes random batches (nulls at every
// level, empty lists, a sliced batch) with the column-parallel writer and
// with pqarrow's FileWriter: the files are byte for byte the same, with
// one goroutine or several, and read back to the batches.
func TestColumnWriterMatchesPqarrow(t *testing.T) {
	t.Parallel()
	for name, schema := range columnWriterSchemas {
		t.Run(name, func(t *testing.T) {
			mem := frametest.CheckedAlloc(t)
			r := rand.New(rand.NewPCG(7, uint64(len(name))))
			var recs []arrow.Record
			for _, n := range []int{1, 300, 0, 2000, 57} {
				recs = append(recs, randomRecord(r, mem, schema, n))
			}
			whole := randomRecord(r, mem, schema, 400)
			recs = append(recs, whole.NewSlice(13, 350))
			whole.Release()
			defer func() {
				for _, rec := range recs {
					rec.Release()
				}
			}()
			want := pqarrowBytes(t, schema, recs)
			plans, ok := planLeaves(schema)
			require.True(t, ok)
			for _, workers := range []int{1, 3} {
				got := columnWriterBytes(t, schema, plans, recs, workers)
				require.True(t, bytes.Equal(want, got), "workers=%d: %d bytes, pqarrow wrote %d", workers, len(got), len(want))
			}
			path := filepath.Join(t.TempDir(), "out.parquet")
			require.NoError(t, os.WriteFile(path, want, 0o644))
			back, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
			require.NoError(t, err)
			defer back.Release()
			src, err := dataframe.New(schema, recs...)
			require.NoError(t, err)
			defer src.Release()
			require.Equal(t, frametest.RowsJSON(t, src), frametest.RowsJSON(t, back))
		})
	}
}

// TestColumnWriterRandomSchemas: 40 random schemas (structs, lists and
// maps nested up to four deep, nullable or not) with random batches give
// the same bytes as pqarrow's writer.
func TestColumnWriterRandomSchemas(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 99))
		var fields []arrow.Field
		for i := range 1 + r.IntN(4) {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: randomType(r, 4), Nullable: r.IntN(4) > 0})
		}
		schema := arrow.NewSchema(fields, nil)
		plans, ok := planLeaves(schema)
		require.True(t, ok, "seed %d: %s", seed, schema)
		var recs []arrow.Record
		for _, n := range []int{40, 0, 170} {
			recs = append(recs, randomRecord(r, memory.DefaultAllocator, schema, n))
		}
		want := pqarrowBytes(t, schema, recs)
		got := columnWriterBytes(t, schema, plans, recs, 2)
		require.True(t, bytes.Equal(want, got), "seed %d: %s", seed, schema)
		for _, rec := range recs {
			rec.Release()
		}
	}
}

// randomType is a type nested at most depth deep.
func randomType(r *rand.Rand, depth int) arrow.DataType {
	k := r.IntN(7)
	if depth == 0 {
		k = r.IntN(3)
	}
	switch k {
	case 0:
		return arrow.PrimitiveTypes.Int64
	case 1:
		return arrow.BinaryTypes.String
	case 2:
		return arrow.FixedWidthTypes.Boolean
	case 3, 4:
		var fs []arrow.Field
		for i := range 1 + r.IntN(3) {
			fs = append(fs, arrow.Field{Name: fmt.Sprintf("f%d", i), Type: randomType(r, depth-1), Nullable: r.IntN(3) > 0})
		}
		return arrow.StructOf(fs...)
	case 5:
		if r.IntN(2) == 0 {
			return arrow.ListOfNonNullable(randomType(r, depth-1))
		}
		return arrow.ListOf(randomType(r, depth-1))
	}
	return arrow.MapOf(arrow.BinaryTypes.String, randomType(r, depth-1))
}

// TestColumnWriterRejectsNonEmptyNullList: a null list whose offsets still
// span values cannot be written as Parquet levels; both writers say so
// instead of writing the wrong values.
func TestColumnWriterRejectsNonEmptyNullList(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	vb := array.NewInt64Builder(mem)
	vb.AppendValues([]int64{1, 2, 3, 4}, nil)
	values := vb.NewArray()
	defer values.Release()
	vb.Release()
	offsets := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 1, 3, 4}))
	valid := memory.NewBufferBytes([]byte{0b101}) // row 1 is null but spans [1, 3)
	dt := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	data := array.NewData(dt, 3, []*memory.Buffer{valid, offsets}, []arrow.ArrayData{values.Data()}, 1, 0)
	defer data.Release()
	list := array.MakeFromData(data)
	defer list.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{list}, 3)
	defer rec.Release()
	plans, ok := planLeaves(schema)
	require.True(t, ok)
	props, arrProps, err := ParquetOptions{}.writerProps(mem, schema, nil)
	require.NoError(t, err)
	cw, err := newColumnWriter(&bytes.Buffer{}, schema, plans, props, arrProps, 2)
	require.NoError(t, err)
	err = cw.write(rec)
	require.ErrorContains(t, err, "non-zero length null")
}

// TestPlanLeavesFallsBack: types the level builder does not know leave
// the file to pqarrow's writer, which still writes them.
func TestPlanLeavesFallsBack(t *testing.T) {
	t.Parallel()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64)},
	}, nil)
	_, ok := planLeaves(schema)
	require.False(t, ok)
	mem := frametest.CheckedAlloc(t)
	r := rand.New(rand.NewPCG(1, 2))
	rec := randomRecord(r, mem, schema, 100)
	defer rec.Release()
	var out bytes.Buffer
	pw, err := newParquetWriter(ParquetOptions{})(&out, schema)
	require.NoError(t, err)
	require.NoError(t, pw.write(rec))
	require.NoError(t, pw.close())
	_, columns := pw.(*parquetWriter).enc.(*columnWriter)
	require.False(t, columns, "written by pqarrow's writer")
	path := filepath.Join(t.TempDir(), "out.parquet")
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	back, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
	require.NoError(t, err)
	defer back.Release()
	require.Equal(t, int64(100), back.NumRows())
}

func pqarrowBytes(t *testing.T, schema *arrow.Schema, recs []arrow.Record) []byte {
	t.Helper()
	props, arrProps, err := ParquetOptions{}.writerProps(memory.DefaultAllocator, schema, nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(schema, &buf, props, arrProps)
	require.NoError(t, err)
	for _, rec := range recs {
		require.NoError(t, fw.WriteBuffered(rec))
	}
	require.NoError(t, fw.Close())
	return buf.Bytes()
}

func columnWriterBytes(t *testing.T, schema *arrow.Schema, plans []leafPlan, recs []arrow.Record, workers int) []byte {
	t.Helper()
	props, arrProps, err := ParquetOptions{}.writerProps(memory.DefaultAllocator, schema, nil)
	require.NoError(t, err)
	var buf bytes.Buffer
	cw, err := newColumnWriter(&buf, schema, plans, props, arrProps, workers)
	require.NoError(t, err)
	for _, rec := range recs {
		require.NoError(t, cw.write(rec))
	}
	require.NoError(t, cw.close())
	return buf.Bytes()
}

// randomRecord is n rows of schema: about a fifth of the values of each
// nullable node are null, a fifth of the lists empty.
func randomRecord(r *rand.Rand, mem memory.Allocator, schema *arrow.Schema, n int) arrow.Record {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, f := range schema.Fields() {
		for range n {
			appendRandom(r, b.Field(i), f.Type, f.Nullable)
		}
	}
	return b.NewRecord()
}

func appendRandom(r *rand.Rand, b array.Builder, dt arrow.DataType, nullable bool) {
	if dt.ID() == arrow.NULL || (nullable && r.IntN(5) == 0) {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(r.Int64N(1000) - 500)
	case *array.Float64Builder:
		b.Append(r.Float64() * 100)
	case *array.BooleanBuilder:
		b.Append(r.IntN(2) == 0)
	case *array.StringBuilder:
		b.Append(fmt.Sprintf("v%d", r.IntN(50)))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(r.Int64N(1e15)).Mul(decimal128.FromI64(1e6)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro() + r.Int64N(1e12)))
	case *array.StructBuilder:
		b.Append(true)
		for k, f := range dt.(*arrow.StructType).Fields() {
			appendRandom(r, b.FieldBuilder(k), f.Type, f.Nullable)
		}
	case *array.MapBuilder:
		b.Append(true)
		mt := dt.(*arrow.MapType)
		for k := range r.IntN(4) {
			b.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", k))
			appendRandom(r, b.ItemBuilder(), mt.ItemType(), true)
		}
	case *array.ListBuilder:
		b.Append(true)
		elem := dt.(*arrow.ListType).ElemField()
		for range r.IntN(4) {
			appendRandom(r, b.ValueBuilder(), elem.Type, elem.Nullable)
		}
	case *array.FixedSizeListBuilder:
		b.Append(true)
		for range dt.(*arrow.FixedSizeListType).Len() {
			appendRandom(r, b.ValueBuilder(), arrow.PrimitiveTypes.Int64, false)
		}
	default:
		panic(fmt.Sprintf("appendRandom: %T", b))
	}
}

// BenchmarkColumnWriterNested writes 50,000 rows of each test schema (lists
// of structs, lists of lists, maps) with pqarrow's writer and with the
// column-parallel one: the per-element level builder of list paths against
// pqarrow's.
func BenchmarkColumnWriterNested(b *testing.B) {
	for _, name := range []string{"structs", "lists"} {
		schema := columnWriterSchemas[name]
		r := rand.New(rand.NewPCG(3, 4))
		var recs []arrow.Record
		for range 10 {
			recs = append(recs, randomRecord(r, memory.DefaultAllocator, schema, 5000))
		}
		plans, _ := planLeaves(schema)
		props, arrProps, err := ParquetOptions{}.writerProps(memory.DefaultAllocator, schema, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/pqarrow", func(b *testing.B) {
			for b.Loop() {
				fw, _ := pqarrow.NewFileWriter(schema, io.Discard, props, arrProps)
				for _, rec := range recs {
					if err := fw.WriteBuffered(rec); err != nil {
						b.Fatal(err)
					}
				}
				fw.Close()
			}
			b.ReportMetric(float64(50000*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/columns-%d", name, workers), func(b *testing.B) {
				for b.Loop() {
					cw, _ := newColumnWriter(io.Discard, schema, plans, props, arrProps, workers)
					for _, rec := range recs {
						if err := cw.write(rec); err != nil {
							b.Fatal(err)
						}
					}
					cw.close()
				}
				b.ReportMetric(float64(50000*b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
		for _, rec := range recs {
			rec.Release()
		}
	}
}
