package csvframe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
)

func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.FrameFromJSON(t, mem, fixtures.FlatSchema, fixtures.FlatRows, 3)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, f))
	got, err := Read(&buf, Options{Allocator: mem})
	require.NoError(t, err)
	defer got.Release()
	frametest.RequireFramesEqual(t, f, got)
}

func TestReadInference(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	in := "\ufeffi,d,b,s,e,mixed,,i\n" +
		"1,1,true,x,,1,a,5\n" +
		"2,2.5,FALSE,,,true,b,6\n" +
		",1e3,,0x10,,2,c,7\n"
	f, err := Read(strings.NewReader(in), Options{Allocator: mem})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, "root\n"+
		" |-- i0: long (nullable = true)\n"+
		" |-- d: double (nullable = true)\n"+
		" |-- b: boolean (nullable = true)\n"+
		" |-- s: string (nullable = true)\n"+
		" |-- e: string (nullable = true)\n"+
		" |-- mixed: string (nullable = true)\n"+
		" |-- _c6: string (nullable = true)\n"+
		" |-- i7: long (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	require.Equal(t, []string{
		`{"i0":1,"d":1.0,"b":true,"s":"x","e":null,"mixed":"1","_c6":"a","i7":5}`,
		`{"i0":2,"d":2.5,"b":false,"s":null,"e":null,"mixed":"true","_c6":"b","i7":6}`,
		`{"i0":null,"d":1000.0,"b":null,"s":"0x10","e":null,"mixed":"2","_c6":"c","i7":7}`,
	}, frametest.RowsJSON(t, f))
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, want string }{
		"empty":      {"", "no header row"},
		"ragged":     {"a,b\n1,2\n3\n", "line 3"},
		"bare quote": {"a\nx\"y\n", "line 2"},
		"open quote": {"a\n\"abc\n", "extraneous or missing"},
	} {
		_, err := Read(strings.NewReader(tc.in), Options{})
		require.Error(t, err, name)
		require.Contains(t, err.Error(), tc.want, name)
	}
}

func TestReadHeaderOnly(t *testing.T) {
	t.Parallel()
	f, err := Read(strings.NewReader("a;b\n"), Options{Delimiter: ';'})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, f.ColumnNames())
	require.Zero(t, f.NumRows())
}

// A decimal is written with its type's scale, as Spark's CSV writer does:
// decimal(10,2) 19.9 is 19.90.
func TestWriteDecimalScale(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "rate", Type: &arrow.Decimal128Type{Precision: 38, Scale: 18}, Nullable: true},
	}, nil)
	f := fixtures.FrameFromJSON(t, mem, schema, `[{"price": "19.9", "rate": "0"}, {"price": "-0.05", "rate": null}, {"price": "20", "rate": "1.5"}]`, 3)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, f))
	require.Equal(t, "price,rate\n19.90,0.000000000000000000\n-0.05,\n20.00,1.500000000000000000\n", buf.String())
}
