package cells_test

import (
	"math/big"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

func schemaOf(t *testing.T, types ...string) *dataframe.Schema {
	fields := make([]dataframe.Field, len(types))
	for i, typ := range types {
		dt, err := cells.ParseType(typ)
		require.NoError(t, err)
		fields[i] = dataframe.Field{Name: string(rune('a' + i)), Type: dt, Nullable: true}
	}
	return dataframe.NewSchema(fields)
}

func TestBuilderAndColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := cells.NewBuilder(mem, schemaOf(t, "decimal(5,2)", "short", "array<long>", "timestamp", "string"), 2)
	defer b.Release()

	require.NoError(t, b.Col(0).Decimal(big.NewInt(123456), 4)) // 12.3456 → 12.35
	require.NoError(t, b.Col(1).Int(-32768))
	el := b.Col(2).BeginList()
	require.NoError(t, el.Int(7))
	el.Null()
	b.Col(3).Micros(1_704_164_645_123_456)
	b.Col(4).String([]byte("x"))
	require.False(t, b.EndRow())

	require.NoError(t, b.Col(0).DecimalText([]byte("-1.5E+1")))
	require.ErrorIs(t, b.Col(1).Int(40000), cells.ErrNotFit)
	b.Col(1).Null()
	b.Col(2).Null()
	b.Col(3).Null()
	b.Col(4).Null()
	require.True(t, b.EndRow())
	require.ErrorIs(t, b.Col(0).DecimalText([]byte("1234.5")), cells.ErrNotFit, "5 digits before the point do not fit decimal(5,2)")

	rec := b.NewRecord()
	defer rec.Release()
	f, err := dataframe.New(rec.Schema(), rec)
	require.NoError(t, err)
	rec.Retain()
	defer f.Release()
	var rows []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error { rows = append(rows, string(obj)); return nil }))
	require.Equal(t, []string{
		`{"a":12.35,"b":-32768,"c":[7,null],"d":"2024-01-02T03:04:05.123456Z","e":"x"}`,
		`{"a":-15.00,"b":null,"c":null,"d":null,"e":null}`,
	}, rows)

	cols := cells.Columns(rec)
	u, s := cols[0].Decimal(0)
	require.Equal(t, "1235", u.String())
	require.Equal(t, int32(2), s)
	require.Equal(t, int64(-32768), cols[1].Int(0))
	elems, start, end := cols[2].List(0)
	require.Equal(t, 2, end-start)
	require.Equal(t, int64(7), elems.Int(start))
	require.Equal(t, int64(1_704_164_645_123_456), cols[3].Micros(0))
	require.Equal(t, "x", string(cols[4].Bytes(0)))
	require.Equal(t, cells.KindJSON, cells.KindOf(schemaOf(t, "struct<a:long>").Field(0).Type))
}

func TestParseDecimalText(t *testing.T) {
	for _, tc := range []struct {
		in    string
		u     string
		scale int32
		ok    bool
	}{
		{"12.50", "1250", 2, true},
		{"-0.001", "-1", 3, true},
		{"1E+3", "1", -3, true},
		{"+7", "7", 0, true},
		{"1.2.3", "", 0, false},
		{"", "", 0, false},
		{"abc", "", 0, false},
	} {
		u, s, ok := cells.ParseDecimalText([]byte(tc.in))
		require.Equal(t, tc.ok, ok, tc.in)
		if ok {
			require.Equal(t, tc.u, u.String(), tc.in)
			require.Equal(t, tc.scale, s, tc.in)
		}
	}
}
