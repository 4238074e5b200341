package dataframe_test

import (
	"errors"
	"math"
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

const opsDoc = `[
 {"id":1,"name":"a","page":{"total":10,"info":{"x":"p"}},"tags":["t1","t2"],"items":[{"k":"i1","v":1},{"k":"i2","v":2}]},
 {"id":2,"name":null,"page":null,"tags":[],"items":null},
 {"id":3,"name":"c","page":{"total":null,"info":null},"tags":null,"items":[{"k":"i3","v":3},null]}
]`

func TestProject(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, opsDoc)
	defer f.Release()
	p, err := dataframe.Project(f, []dataframe.Projection{{Path: "name"}, {Path: "page.total"}, {Path: "page.info.x", Alias: "px"}, {Path: "ID", Alias: "ident"}, {Path: "page.info"}})
	require.NoError(t, err)
	defer p.Release()
	require.Equal(t, "root\n |-- name: string (nullable = true)\n |-- total: long (nullable = true)\n |-- px: string (nullable = true)\n |-- ident: long (nullable = true)\n |-- info: struct (nullable = true)\n |    |-- x: string (nullable = true)\n", dataframe.SchemaString(p.Schema()))
	require.Equal(t, []string{
		`{"name":"a","total":10,"px":"p","ident":1,"info":{"x":"p"}}`,
		`{"name":null,"total":null,"px":null,"ident":2,"info":null}`,
		`{"name":"c","total":null,"px":null,"ident":3,"info":null}`,
	}, frametest.RowsJSON(t, p))

	for path, msg := range map[string]string{
		"nope":         `unknown column "nope"`,
		"page.nope":    `column path "page.nope": struct "page" has no field "nope"`,
		"name.x":       `column path "name.x": "name" is string, not a struct`,
		"page.total.y": `"total" is long, not a struct`,
	} {
		_, err := dataframe.Project(f, []dataframe.Projection{{Path: path}})
		require.ErrorContains(t, err, msg)
	}
}

func TestFilterWithNulls(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, opsDoc)
	defer f.Release()
	out, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
		v, err := r.Get("page.info.x")
		if err != nil {
			return false, err
		}
		name, err := r.Get("name")
		return v == nil && name != nil, err
	})
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, f.Schema(), out.Schema())
	require.Equal(t, []string{`{"id":3,"items":[{"k":"i3","v":3},null],"name":"c","page":{"info":null,"total":null},"tags":null}`}, frametest.RowsJSON(t, out))

	all, err := dataframe.Filter(f, func(*dataframe.Row) (bool, error) { return true, nil })
	require.NoError(t, err)
	defer all.Release()
	require.Equal(t, int64(3), all.NumRows())

	_, err = dataframe.Filter(f, func(r *dataframe.Row) (bool, error) { _, err := r.Get("missing"); return false, err })
	require.ErrorContains(t, err, `row 0: dataframe: unknown column "missing"`)
	boom := errors.New("boom")
	_, err = dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
		if r.Index() == 2 {
			return false, boom
		}
		return true, nil
	})
	require.ErrorIs(t, err, boom)
}

func TestLimitAcrossBatches(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := mustJSON(t, mem, `[{"n":1},{"n":2}]`)
	defer a.Release()
	b := mustJSON(t, mem, `[{"n":3},{"n":4},{"n":5}]`)
	defer b.Release()
	f, err := dataframe.Concat(a, b)
	require.NoError(t, err)
	defer f.Release()
	require.Len(t, f.Records(), 2)
	for n, want := range map[int64][]string{
		-1: {}, 0: {}, 1: {`{"n":1}`}, 2: {`{"n":1}`, `{"n":2}`}, 4: {`{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`},
		9: {`{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`, `{"n":5}`},
	} {
		l := dataframe.Limit(f, n)
		require.Equal(t, want, frametest.RowsJSON(t, l), "limit %d", n)
		require.Equal(t, int64(len(want)), l.NumRows())
		l.Release()
	}
}

func TestExplode(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, opsDoc)
	defer f.Release()

	items, err := dataframe.Explode(f, "items")
	require.NoError(t, err)
	defer items.Release()
	// Siblings are kept and struct elements stay one struct column, as
	// Spark's explode (this replaced "the elements become the rows";
	// dataframe.Flatten after dataframe.Explode gives their fields as columns).
	require.Equal(t, "root\n |-- id: long (nullable = true)\n |-- items: struct (nullable = true)\n |    |-- k: string (nullable = true)\n |    |-- v: long (nullable = true)\n |-- name: string (nullable = true)\n |-- page: struct (nullable = true)\n |    |-- info: struct (nullable = true)\n |    |    |-- x: string (nullable = true)\n |    |-- total: long (nullable = true)\n |-- tags: array (nullable = true)\n |    |-- element: string (containsNull = true)\n", dataframe.SchemaString(items.Schema()))
	ik, err := dataframe.Project(items, []dataframe.Projection{{Path: "items.k"}, {Path: "items.v"}})
	require.NoError(t, err)
	defer ik.Release()
	require.Equal(t, []string{`{"k":"i1","v":1}`, `{"k":"i2","v":2}`, `{"k":"i3","v":3}`, `{"k":null,"v":null}`}, frametest.RowsJSON(t, ik))

	tags, err := dataframe.Explode(f, "tags")
	require.NoError(t, err)
	defer tags.Release()
	require.Equal(t, "root\n |-- id: long (nullable = true)\n |-- items: array (nullable = true)\n |    |-- element: struct (containsNull = true)\n |    |    |-- k: string (nullable = true)\n |    |    |-- v: long (nullable = true)\n |-- name: string (nullable = true)\n |-- page: struct (nullable = true)\n |    |-- info: struct (nullable = true)\n |    |    |-- x: string (nullable = true)\n |    |-- total: long (nullable = true)\n |-- tags: string (nullable = true)\n", dataframe.SchemaString(tags.Schema()))
	p, err := dataframe.Project(tags, []dataframe.Projection{{Path: "id"}, {Path: "tags"}})
	require.NoError(t, err)
	defer p.Release()
	require.Equal(t, []string{`{"id":1,"tags":"t1"}`, `{"id":1,"tags":"t2"}`}, frametest.RowsJSON(t, p))

	nested := mustJSON(t, mem, `[{"id":1,"s":{"l":[10,20]}},{"id":2,"s":null},{"id":3,"s":{"l":[30]}}]`)
	defer nested.Release()
	ne, err := dataframe.Explode(nested, "s.l")
	require.NoError(t, err)
	defer ne.Release()
	require.Equal(t, []string{`{"id":1,"s":{"l":[10,20]},"l":10}`, `{"id":1,"s":{"l":[10,20]},"l":20}`, `{"id":3,"s":{"l":[30]},"l":30}`}, frametest.RowsJSON(t, ne))

	_, err = dataframe.Explode(f, "name")
	require.ErrorContains(t, err, `explode "name": it is string, not an array`)
	_, err = dataframe.Explode(f, "nope")
	require.ErrorContains(t, err, `unknown column "nope"`)
}

func TestFlatten(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, opsDoc)
	defer f.Release()
	flat, err := dataframe.Flatten(f)
	require.NoError(t, err)
	defer flat.Release()
	require.Equal(t, []string{"id", "items", "name", "page.info.x", "page.total", "tags"}, flat.ColumnNames())
	require.Equal(t, []string{
		`{"id":1,"items":[{"k":"i1","v":1},{"k":"i2","v":2}],"name":"a","page.info.x":"p","page.total":10,"tags":["t1","t2"]}`,
		`{"id":2,"items":null,"name":null,"page.info.x":null,"page.total":null,"tags":[]}`,
		`{"id":3,"items":[{"k":"i3","v":3},null],"name":"c","page.info.x":null,"page.total":null,"tags":null}`,
	}, frametest.RowsJSON(t, flat))
	// A flattened dotted name resolves as a column.
	p, err := dataframe.Project(flat, []dataframe.Projection{{Path: "page.total"}})
	require.NoError(t, err)
	defer p.Release()
	require.Equal(t, []string{"page.total"}, p.ColumnNames())
}

func TestFromValues(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ts := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	f, err := jsonframe.FromValuesWithAllocator(mem, []string{"s", "i", "d", "b", "t", "m", "l", "mixed", "nil", "big"}, [][]any{
		{"x", 1, 1.5, true, ts, map[string]any{"a": 1}, []any{1, 2}, "a", nil, int64(math.MaxInt64)},
		{nil, int32(2), math.NaN(), nil, nil, map[string]any{"b": "y"}, []int{}, 3, nil, nil},
		{"z", nil, 2, false, ts.Add(time.Millisecond), nil, nil, map[string]int{"k": 1}, nil, nil},
	})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, "root\n |-- s: string (nullable = true)\n |-- i: long (nullable = true)\n |-- d: double (nullable = true)\n |-- b: boolean (nullable = true)\n |-- t: timestamp (nullable = true)\n |-- m: struct (nullable = true)\n |    |-- a: long (nullable = true)\n |    |-- b: string (nullable = true)\n |-- l: array (nullable = true)\n |    |-- element: long (containsNull = true)\n |-- mixed: string (nullable = true)\n |-- nil: string (nullable = true)\n |-- big: long (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	require.Equal(t, []string{
		`{"s":"x","i":1,"d":1.5,"b":true,"t":"2024-05-01T10:00:00.000Z","m":{"a":1,"b":null},"l":[1,2],"mixed":"a","nil":null,"big":9223372036854775807}`,
		`{"s":null,"i":2,"d":"NaN","b":null,"t":null,"m":{"a":null,"b":"y"},"l":[],"mixed":"3","nil":null,"big":null}`,
		`{"s":"z","i":null,"d":2.0,"b":false,"t":"2024-05-01T10:00:00.001Z","m":null,"l":null,"mixed":"{\"k\":1}","nil":null,"big":null}`,
	}, frametest.RowsJSON(t, f))

	_, err = jsonframe.FromValues([]string{"a"}, [][]any{{1, 2}})
	require.ErrorContains(t, err, "row 0 has 2 values, want 1")
	_, err = jsonframe.FromValues([]string{"a"}, [][]any{{make(chan int)}})
	require.ErrorContains(t, err, `column "a": row 0: value of type chan int`)
	e, err := jsonframe.FromValues([]string{"a"}, nil)
	require.NoError(t, err)
	require.Equal(t, int64(0), e.NumRows())
}

func TestExplodeLargeList(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{nf("id", arrow.PrimitiveTypes.Int64), nf("l", arrow.LargeListOf(arrow.BinaryTypes.String))}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	lb := rb.Field(1).(*array.LargeListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	lb.AppendNull()
	f, err := dataframe.New(schema, rb.NewRecord())
	require.NoError(t, err)
	f.SetAllocator(mem)
	defer f.Release()
	out, err := dataframe.Explode(f, "l")
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, []string{`{"id":1,"l":"a"}`, `{"id":1,"l":"b"}`}, frametest.RowsJSON(t, out))
}

// Strings makes the same column from strings and from bytes, and keeps
// no reference to the bytes it was given.
func TestStringsFromStringsAndBytes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	body := []byte(`{"a":1}`)
	fromBytes := dataframe.Strings(mem, "payload", [][]byte{body, []byte(""), []byte("é")})
	defer fromBytes.Release()
	fromStrings := dataframe.Strings(mem, "payload", []string{`{"a":1}`, "", "é"})
	defer fromStrings.Release()
	body[2] = 'b'
	got, _, err := fromBytes.StringValues("payload")
	require.NoError(t, err)
	require.Equal(t, []string{`{"a":1}`, "", "é"}, got)
	want, _, err := fromStrings.StringValues("payload")
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Zero(t, dataframe.Strings[[]byte](mem, "payload", nil).NumRows())
}
