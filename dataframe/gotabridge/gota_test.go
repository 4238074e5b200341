package gotabridge

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/go-gota/gota/series"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func TestToGota(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.NestedFrame(t, mem, 2)
	defer f.Release()
	df, err := ToGota(f)
	require.NoError(t, err)
	require.Equal(t, []string{"id", "name", "score", "ok", "at", "tags", "info.a", "info.b.c", "items"}, df.Names())
	require.Equal(t, []series.Type{series.Int, series.String, series.Float, series.Bool, series.String,
		series.String, series.Int, series.String, series.String}, df.Types())
	require.Equal(t, 3, df.Nrow())

	id := df.Col("id")
	v, err := id.Elem(1).Int()
	require.NoError(t, err)
	require.Equal(t, 3000000000, v) // beyond 2^31
	require.True(t, id.Elem(2).IsNA())
	a, err := df.Col("info.a").Elem(0).Int()
	require.NoError(t, err)
	require.Equal(t, 9007199254740993, a) // beyond 2^53: no float on the way
	require.True(t, df.Col("info.a").Elem(1).IsNA(), "null struct → NaN leaves")
	require.True(t, math.IsNaN(df.Col("score").Elem(1).Float()))
	require.True(t, df.Col("name").Elem(1).IsNA())
	require.True(t, df.Col("ok").Elem(2).IsNA())
	require.Equal(t, `["x","y"]`, df.Col("tags").Elem(0).String())
	require.Equal(t, `[{"id":"i1","n":1},{"id":"i2","n":null}]`, df.Col("items").Elem(0).String())
	require.Equal(t, "2024-05-01T10:00:00.000Z", df.Col("at").Elem(0).String())
	require.Equal(t, "deep", df.Col("info.b.c").Elem(0).String())
}

func TestGotaRoundTrip(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.NestedFrame(t, mem, 1)
	defer f.Release()
	df, err := ToGota(f)
	require.NoError(t, err)
	back, err := FromGota(df, f.Schema())
	require.NoError(t, err)
	defer back.Release()
	require.Equal(t, f.ColumnNames(), back.ColumnNames())
	// Row 3's info is {"a": null, "b": null}: all its gota cells are NaN,
	// so it comes back as a null struct — the one thing gota cannot hold.
	want := frametest.RowsJSON(t, f)
	want[2] = `{"id":null,"name":"comma, \"quote\"\nnewline","score":-0.25,"ok":null,"at":"1999-12-31T23:59:59.123Z","tags":null,"info":null,"items":[]}`
	require.Equal(t, want, frametest.RowsJSON(t, back))
	require.True(t, arrow.TypeEqual(arrow.StructOf(f.Schema().Fields()...), arrow.StructOf(back.Schema().Fields()...)))
}

func TestFromGotaWithoutSchema(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.FrameFromJSON(t, mem, fixtures.FlatSchema, fixtures.FlatRows, 0)
	defer f.Release()
	df, err := ToGota(f)
	require.NoError(t, err)
	back, err := FromGota(df, nil)
	require.NoError(t, err)
	defer back.Release()
	frametest.RequireFramesEqual(t, f, back)
}

func TestFromGotaErrors(t *testing.T) {
	t.Parallel()
	f := fixtures.NestedFrame(t, frametest.CheckedAlloc(t), 0)
	defer f.Release()
	df, err := ToGota(f)
	require.NoError(t, err)
	_, err = FromGota(df.Drop("info.b.c"), f.Schema())
	require.ErrorContains(t, err, `no column "info.b.c"`)

	bad := df.Mutate(series.New([]string{"[1,", "[]", "[]"}, series.String, "tags"))
	_, err = FromGota(bad, f.Schema())
	require.ErrorContains(t, err, `column "tags" row 0`)

	// Columns the schema does not name are kept, typed from gota.
	extra := df.Mutate(series.New([]int{7, 8, 9}, series.Int, "added"))
	back, err := FromGota(extra, f.Schema())
	require.NoError(t, err)
	defer back.Release()
	require.Equal(t, append(f.ColumnNames(), "added"), back.ColumnNames())
}

func ExampleToGota() {
	f, err := jsonframe.ReadDocument([]byte(`[{"id": 4294967296, "page": {"total": 7}, "tags": ["a"]}, {"id": null}]`), jsonframe.Options{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	df, err := ToGota(f)
	if err != nil {
		panic(err)
	}
	fmt.Println(df.Names(), df.Types())
	fmt.Println(df.Col("id").Records(), df.Col("tags").Records())

	back, err := FromGota(df, f.Schema()) // dotted columns become a struct again
	if err != nil {
		panic(err)
	}
	defer back.Release()
	fmt.Print(dataframe.SchemaString(back.Schema()))
	// Output:
	// [id page.total tags] [int int string]
	// [4294967296 NaN] [["a"] NaN]
	// root
	//  |-- id: long (nullable = true)
	//  |-- page: struct (nullable = true)
	//  |    |-- total: long (nullable = true)
	//  |-- tags: array (nullable = true)
	//  |    |-- element: string (containsNull = true)
}

func TestGotaRoundTripMaps(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean), Nullable: true}), Nullable: true},
	}, nil)
	f := fixtures.FrameFromJSON(t, mem, schema, `[
		{"m": [{"key": "z", "value": 9007199254740993}, {"key": "a", "value": null}], "l": [[{"key": "k", "value": "v"}], []], "s": {"m": [{"key": "t", "value": true}]}},
		{"m": null, "l": null, "s": null},
		{"m": [], "l": [null], "s": {"m": null}}
	]`, 0)
	defer f.Release()
	df, err := ToGota(f)
	require.NoError(t, err)
	require.Equal(t, `{"z":9007199254740993,"a":null}`, df.Col("m").Elem(0).String())
	back, err := FromGota(df, f.Schema())
	require.NoError(t, err)
	defer back.Release()
	// Row 3's struct holds only a null map: all its gota cells are NaN, so
	// it comes back as a null struct.
	want := frametest.RowsJSON(t, f)
	want[2] = `{"m":{},"l":[null],"s":null}`
	require.Equal(t, want, frametest.RowsJSON(t, back))
}
