package dataframe

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestTypedBuilder(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cols := []TypedColumn{
		{Name: "id", Kind: KindLong, Nullable: true},
		{Name: "name", Kind: KindString, Nullable: true},
		{Name: "n", Kind: KindInteger, Nullable: true},
		{Name: "x", Kind: KindDouble, Nullable: true},
		{Name: "ok", Kind: KindBoolean, Nullable: true},
		{Name: "at", Kind: KindTimestamp, Nullable: true},
	}
	b := NewTypedBuilder(mem, cols, 2) // small batches: cut twice
	defer b.Release()
	ts := time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.UTC)
	for i := 0; i < 5; i++ {
		b.AppendLong(0, int64(i))
		if i == 3 {
			b.AppendNull(1)
		} else {
			b.AppendString(1, fmt.Sprint("r", i))
		}
		b.AppendInteger(2, int32(i*10))
		b.AppendDouble(3, float64(i)/2)
		b.AppendBoolean(4, i%2 == 0)
		if i == 1 {
			b.AppendTimestampPtr(5, nil)
		} else {
			b.AppendTimestamp(5, ts)
		}
		require.NoError(t, b.EndRow())
	}
	require.Equal(t, int64(5), b.Rows())
	f, err := b.Frame()
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, int64(5), f.NumRows())
	require.Len(t, f.Records(), 3)
	require.Equal(t, "root\n |-- id: long (nullable = true)\n |-- name: string (nullable = true)\n |-- n: integer (nullable = true)\n |-- x: double (nullable = true)\n |-- ok: boolean (nullable = true)\n |-- at: timestamp (nullable = true)\n", SchemaString(f.Schema()))
	var rows []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	require.Equal(t, `{"id":0,"name":"r0","n":0,"x":0.0,"ok":true,"at":"2024-05-01T10:00:00.123456Z"}`, rows[0])
	require.Equal(t, `{"id":1,"name":"r1","n":10,"x":0.5,"ok":false,"at":null}`, rows[1])
	require.Equal(t, `{"id":3,"name":null,"n":30,"x":1.5,"ok":false,"at":"2024-05-01T10:00:00.123456Z"}`, rows[3])
}

func TestTypedBuilderMissingValue(t *testing.T) {
	t.Parallel()
	b := NewTypedBuilder(nil, []TypedColumn{{Name: "a", Kind: KindLong}, {Name: "b", Kind: KindString}}, 0)
	defer b.Release()
	b.AppendLong(0, 1)
	require.NoError(t, b.EndRow()) // checked lazily
	_, err := b.Frame()
	require.ErrorContains(t, err, `column "b" has 0 values for 1 rows`)
}

func TestWithConstants(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	base := Strings(mem, "v", []string{"a", "b"})
	defer base.Release()
	f, err := WithConstants(mem, base, []Constant{
		{Name: "region", Kind: KindString, Value: "eu"},
		{Name: "year", Kind: KindInteger, Value: "2024"},
		{Name: "day", Kind: KindTimestamp, Value: "2024-05-01 10:00:00.000"},
		{Name: "gone", Kind: KindLong, Null: true},
	})
	require.NoError(t, err)
	defer f.Release()
	var rows []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	require.Equal(t, []string{
		`{"v":"a","region":"eu","year":2024,"day":"2024-05-01T10:00:00.000Z","gone":null}`,
		`{"v":"b","region":"eu","year":2024,"day":"2024-05-01T10:00:00.000Z","gone":null}`,
	}, rows)

	_, err = WithConstants(mem, base, []Constant{{Name: "year", Kind: KindLong, Value: "twenty"}})
	require.ErrorContains(t, err, `column "year": "twenty" is not a long`)
	_, err = WithConstants(mem, base, []Constant{{Name: "v", Kind: KindString, Value: "x"}})
	require.ErrorContains(t, err, `column "v" is both a data column and a constant`)
}

func TestWithColumnNamesAndKeepColumns(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := NewTypedBuilder(mem, []TypedColumn{{Name: "a", Kind: KindLong, Nullable: true}, {Name: "b", Kind: KindString, Nullable: true}}, 0)
	b.AppendLong(0, 7)
	b.AppendString(1, "x")
	require.NoError(t, b.EndRow())
	f, err := b.Frame()
	b.Release()
	require.NoError(t, err)
	defer f.Release()

	r, err := WithColumnNames(f, []string{"A", "b.c"})
	require.NoError(t, err)
	defer r.Release()
	require.Equal(t, []string{"A", "b.c"}, r.ColumnNames())
	require.Equal(t, []string{"a", "b"}, f.ColumnNames())
	_, err = WithColumnNames(f, []string{"one"})
	require.ErrorContains(t, err, "1 names for 2 columns")

	k, err := KeepColumns(f, []int{1})
	require.NoError(t, err)
	defer k.Release()
	require.Equal(t, []string{"b"}, k.ColumnNames())
	require.Equal(t, int64(1), k.NumRows())
	_, err = KeepColumns(f, []int{2})
	require.ErrorContains(t, err, "out of range")
	require.Positive(t, ByteSize(f))
}

func TestParseColumnKind(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]ColumnKind{"STRING": KindString, "bigint": KindLong, "int": KindInteger, "double": KindDouble, "boolean": KindBoolean, "timestamp": KindTimestamp} {
		got, err := ParseColumnKind(s)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := ParseColumnKind("struct<a:long>")
	require.ErrorContains(t, err, "is not one of")
}

func BenchmarkTypedBuilder(b *testing.B) {
	cols := []TypedColumn{{Name: "id", Kind: KindLong}, {Name: "s", Kind: KindString}, {Name: "t", Kind: KindTimestamp}}
	now := time.Now()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tb := NewTypedBuilder(nil, cols, 0)
		for r := 0; r < 100_000; r++ {
			tb.AppendLong(0, int64(r))
			tb.AppendString(1, "wbh-0123456789")
			tb.AppendTimestamp(2, now)
			_ = tb.EndRow()
		}
		f, _ := tb.Frame()
		f.Release()
		tb.Release()
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "rows/s")
}
