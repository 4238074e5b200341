package dataframe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/internal/frametest"
)

// decimalFrame is one frame of decimal columns, flat and nested, with the
// values whose text loses its scale when trailing zeros are dropped.
func decimalFrame(t *testing.T, mem memory.Allocator) *Frame {
	t.Helper()
	d := func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "price", Type: d(10, 2), Nullable: true},
		{Name: "tiny", Type: d(38, 18), Nullable: true},
		{Name: "whole", Type: d(38, 0), Nullable: true},
		{Name: "wide", Type: &arrow.Decimal256Type{Precision: 76, Scale: 3}, Nullable: true},
		{Name: "list", Type: arrow.ListOf(d(4, 2)), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "d", Type: d(3, 1), Nullable: true}), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, d(3, 2)), Nullable: true},
	}, nil)
	rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(`[
		{"price": "19.9", "tiny": "0", "whole": "99999999999999999999999999999999999999", "wide": "1234567890123456789012345678901234567890123456789012345678901234567.8", "list": ["1.5", "-0.05"], "st": {"d": "2"}, "m": [{"key": "k", "value": "3"}]},
		{"price": "-0.05", "tiny": "0.000000000000000001", "whole": "-12", "wide": "-0.001", "list": [], "st": {"d": null}, "m": []},
		{"price": null, "tiny": "-123.45", "whole": "0", "wide": "0", "list": null, "st": null, "m": null}
	]`))
	require.NoError(t, err)
	f, err := New(schema, rec) // takes rec
	require.NoError(t, err)
	return f
}

// Spark's show() prints a decimal with its type's scale in plain digits
// (ToPrettyString: toPlainString): decimal(10,2) 19.9 is 19.90, a
// decimal(38,18) zero is 0.000000000000000000, inside lists, structs and
// maps too.
func TestWriteTableDecimalScale(t *testing.T) {
	t.Parallel()
	f := decimalFrame(t, frametest.CheckedAlloc(t))
	defer f.Release()
	var out bytes.Buffer
	require.NoError(t, WriteTable(&out, f, TableOptions{}))
	require.Equal(t, strings.Join([]string{
		"+-----+-----------------------+--------------------------------------+-----------------------------------------------------------------------+-------------+------+-----------+",
		"|price|tiny                   |whole                                 |wide                                                                   |list         |st    |m          |",
		"+-----+-----------------------+--------------------------------------+-----------------------------------------------------------------------+-------------+------+-----------+",
		"|19.90|0.000000000000000000   |99999999999999999999999999999999999999|1234567890123456789012345678901234567890123456789012345678901234567.800|[1.50, -0.05]|{2.0} |{k -> 3.00}|",
		"|-0.05|0.000000000000000001   |-12                                   |-0.001                                                                 |[]           |{null}|{}         |",
		"|null |-123.450000000000000000|0                                     |0.000                                                                  |null         |null  |null       |",
		"+-----+-----------------------+--------------------------------------+-----------------------------------------------------------------------+-------------+------+-----------+",
	}, "\n")+"\n", out.String())
}

// CSV and JSON text keep the scale too: 19.90 (a JSON number), as Spark's
// writers do.
func TestAppendJSONValueDecimalScale(t *testing.T) {
	t.Parallel()
	f := decimalFrame(t, frametest.CheckedAlloc(t))
	defer f.Release()
	require.Equal(t, []string{
		`{"price":19.90,"tiny":0.000000000000000000,"whole":99999999999999999999999999999999999999,"wide":1234567890123456789012345678901234567890123456789012345678901234567.800,"list":[1.50,-0.05],"st":{"d":2.0},"m":{"k":3.00}}`,
		`{"price":-0.05,"tiny":0.000000000000000001,"whole":-12,"wide":-0.001,"list":[],"st":{"d":null},"m":{}}`,
		`{"price":null,"tiny":-123.450000000000000000,"whole":0,"wide":0.000,"list":null,"st":null,"m":null}`,
	}, frametest.RowsJSON(t, f))
}
