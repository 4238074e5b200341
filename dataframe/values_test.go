package dataframe_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// buildValuesFrame makes a two-row frame with one column of each kind the
// JSON builder produces, built directly with Arrow builders.
func buildValuesFrame(t *testing.T, mem memory.Allocator) *dataframe.Frame {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		nf("s", arrow.BinaryTypes.String),
		nf("l", arrow.PrimitiveTypes.Int64),
		nf("d", arrow.PrimitiveTypes.Float64),
		nf("b", arrow.FixedWidthTypes.Boolean),
		nf("ts", sparktype.TimestampType),
		nf("bin", arrow.BinaryTypes.Binary),
		nf("st", arrow.StructOf(nf("x", arrow.PrimitiveTypes.Int64), nf("y", arrow.BinaryTypes.String))),
		nf("arr", arrow.ListOf(arrow.PrimitiveTypes.Int64)),
	}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.StringBuilder).AppendValues([]string{"é \"q\"\n\x01", ""}, []bool{true, false})
	rb.Field(1).(*array.Int64Builder).AppendValues([]int64{math.MaxInt64, 0}, []bool{true, false})
	rb.Field(2).(*array.Float64Builder).AppendValues([]float64{4, math.NaN()}, nil)
	rb.Field(3).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
	ts := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC).UnixMicro()
	rb.Field(4).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(ts), 0}, []bool{true, false})
	rb.Field(5).(*array.BinaryBuilder).AppendValues([][]byte{[]byte("hi"), nil}, []bool{true, false})
	sb := rb.Field(6).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int64Builder).Append(1)
	sb.FieldBuilder(1).(*array.StringBuilder).AppendNull()
	sb.AppendNull()
	lb := rb.Field(7).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	lb.Append(true)
	rec := rb.NewRecord()
	f, err := dataframe.New(schema, rec)
	require.NoError(t, err)
	return f
}

func TestEachRowJSON(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := buildValuesFrame(t, mem)
	defer f.Release()
	var rows []string
	require.NoError(t, f.EachRowJSON(func(row int64, obj []byte) error {
		require.Equal(t, int64(len(rows)), row)
		rows = append(rows, string(obj))
		return nil
	}))
	require.Equal(t, []string{
		`{"s":"é \"q\"\n\u0001","l":9223372036854775807,"d":4.0,"b":true,"ts":"2024-05-01T10:00:00.000Z","bin":"aGk=","st":{"x":1,"y":null},"arr":[1,2]}`,
		`{"s":null,"l":null,"d":"NaN","b":false,"ts":null,"bin":null,"st":null,"arr":[]}`,
	}, rows)

	stop := fmt.Errorf("stop")
	n := 0
	require.ErrorIs(t, f.EachRowJSON(func(int64, []byte) error { n++; return stop }), stop)
	require.Equal(t, 1, n)
}

func TestValueAt(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := buildValuesFrame(t, mem)
	defer f.Release()
	rec := f.Records()[0]
	got := make([]any, rec.NumCols())
	for c := range got {
		got[c] = dataframe.ValueAt(rec.Column(c), 0)
	}
	require.Equal(t, []any{
		"é \"q\"\n\x01", int64(math.MaxInt64), 4.0, true,
		time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), []byte("hi"),
		map[string]any{"x": int64(1), "y": nil}, []any{int64(1), int64(2)},
	}, got)
	for c := 0; c < int(rec.NumCols()); c++ {
		if c == 2 || c == 3 || c == 7 {
			continue
		}
		require.Nil(t, dataframe.ValueAt(rec.Column(c), 1), "column %d", c)
	}
}

func TestStringValues(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := buildValuesFrame(t, mem)
	defer f.Release()
	vals, valid, err := f.StringValues("s")
	require.NoError(t, err)
	require.Equal(t, []string{"é \"q\"\n\x01", ""}, vals)
	require.Equal(t, []bool{true, false}, valid)
	_, _, err = f.StringValues("l")
	require.ErrorContains(t, err, `column "l" is long, not string`)
	_, _, err = f.StringValues("nope")
	require.ErrorContains(t, err, `no column "nope"`)
}

func TestAppendJSONFloat(t *testing.T) {
	t.Parallel()
	for f, want := range map[float64]string{
		4: "4.0", -0.5: "-0.5", 1e21: "1e+21", 1e-7: "1e-07", 123456789012: "123456789012.0", math.Inf(1): `"Infinity"`,
	} {
		require.Equal(t, want, string(jsontext.AppendFloat(nil, f, 64)))
	}
}

// Intervals are their SQL text in Go values, JSON and show() output.
func TestIntervalValues(t *testing.T) {
	b := array.NewDurationBuilder(memory.DefaultAllocator, sparktype.DayTimeIntervalType(sparktype.FieldDay, sparktype.FieldDay).(*arrow.DurationType))
	b.Append(arrow.Duration(3 * sparktype.MicrosPerDay))
	b.AppendNull()
	d := b.NewArray()
	b.Release()
	defer d.Release()
	require.Equal(t, "INTERVAL '3' DAY", dataframe.ValueAt(d, 0))
	require.Nil(t, dataframe.ValueAt(d, 1))
	require.Equal(t, `"INTERVAL '3' DAY"`, string(dataframe.AppendJSONValue(nil, d, 0)))

	m := array.NewMonthIntervalBuilder(memory.DefaultAllocator)
	m.Append(arrow.MonthInterval(-26))
	ma := m.NewArray()
	m.Release()
	defer ma.Release()
	require.Equal(t, "INTERVAL '-2-2' YEAR TO MONTH", dataframe.ValueAt(ma, 0))

	schema := arrow.NewSchema([]arrow.Field{nf("d", d.DataType())}, nil)
	f, err := dataframe.New(schema, array.NewRecord(schema, []arrow.Array{d}, 2)) // the record retains d
	require.NoError(t, err)
	defer f.Release()
	var out strings.Builder
	require.NoError(t, dataframe.WriteTable(&out, f, dataframe.TableOptions{}))
	require.Contains(t, out.String(), "|INTERVAL '3' DAY|")
	require.Contains(t, out.String(), "|d               |")
}
