package dataframe_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// arrayPathDoc covers what a path through arrays meets: full, null and
// empty lists, null elements, a missing field, and a second list level.
const arrayPathDoc = `[
 {"n":1,"items":[{"id":"a","sub":[{"x":1},{"x":2}]},{"id":"b"}],"tags":["t"]},
 {"n":2,"items":null,"tags":null},
 {"n":3,"items":[],"tags":[]},
 {"n":4,"items":[{"id":"c","sub":null},null,{"id":null,"sub":[]}],"tags":null},
 {"n":5,"items":[{"id":"d","sub":[{"x":3},null,{"x":null}]}],"tags":["u"]}
]`

func TestProjectThroughArrays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		path  string
		frame func(t *testing.T, f *dataframe.Frame) *dataframe.Frame // nil: the whole document
		typ   string
		rows  []string
	}{
		{
			name: "field of every element",
			path: "items.id",
			typ:  "array<string>",
			rows: []string{`{"id":["a","b"]}`, `{"id":null}`, `{"id":[]}`, `{"id":["c",null,null]}`, `{"id":["d"]}`},
		},
		{
			name: "case-insensitive field",
			path: "Items.ID",
			typ:  "array<string>",
			rows: []string{`{"id":["a","b"]}`, `{"id":null}`, `{"id":[]}`, `{"id":["c",null,null]}`, `{"id":["d"]}`},
		},
		{
			name: "two list levels",
			path: "items.sub.x",
			typ:  "array<array<long>>",
			rows: []string{`{"x":[[1,2],null]}`, `{"x":null}`, `{"x":[]}`, `{"x":[null,null,[]]}`, `{"x":[[3,null,null]]}`},
		},
		{
			name: "struct elements of the inner level",
			path: "items.sub",
			typ:  "array<array<struct<x:long>>>",
			rows: []string{`{"sub":[[{"x":1},{"x":2}],null]}`, `{"sub":null}`, `{"sub":[]}`, `{"sub":[null,null,[]]}`, `{"sub":[[{"x":3},null,{"x":null}]]}`},
		},
		{
			name: "sliced batches",
			path: "items.id",
			frame: func(t *testing.T, f *dataframe.Frame) *dataframe.Frame {
				rec := f.Records()[0]
				out, err := dataframe.New(f.Schema(), rec.NewSlice(1, 4), rec.NewSlice(4, 5))
				require.NoError(t, err)
				out.SetAllocator(f.Allocator())
				return out
			},
			typ:  "array<string>",
			rows: []string{`{"id":null}`, `{"id":[]}`, `{"id":["c",null,null]}`, `{"id":["d"]}`},
		},
		{
			name: "sliced two levels",
			path: "items.sub.x",
			frame: func(t *testing.T, f *dataframe.Frame) *dataframe.Frame {
				rec := f.Records()[0]
				out, err := dataframe.New(f.Schema(), rec.NewSlice(3, 5))
				require.NoError(t, err)
				out.SetAllocator(f.Allocator())
				return out
			},
			typ:  "array<array<long>>",
			rows: []string{`{"x":[null,null,[]]}`, `{"x":[[3,null,null]]}`},
		},
		{
			name:  "after limit",
			path:  "items.id",
			frame: func(_ *testing.T, f *dataframe.Frame) *dataframe.Frame { return dataframe.Limit(f, 1) },
			typ:   "array<string>",
			rows:  []string{`{"id":["a","b"]}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			f := mustJSON(t, mem, arrayPathDoc)
			defer f.Release()
			in := f
			if tc.frame != nil {
				in = tc.frame(t, f)
				defer in.Release()
			}
			p, err := dataframe.Project(in, []dataframe.Projection{{Path: tc.path}, {Path: "n"}})
			require.NoError(t, err)
			defer p.Release()
			require.Equal(t, tc.typ, sparktype.Name(p.Schema().Field(0).Type))
			only, err := dataframe.Project(p, []dataframe.Projection{{Path: p.Schema().Field(0).Name}})
			require.NoError(t, err)
			defer only.Release()
			require.Equal(t, tc.rows, frametest.RowsJSON(t, only))
		})
	}
}

func TestProjectThroughArraysZeroCopy(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, `[{"items":[{"id":"a"},{"id":"b"}]},{"items":null}]`)
	defer f.Release()
	p, err := dataframe.Project(f, []dataframe.Projection{{Path: "items.id", Alias: "ids"}})
	require.NoError(t, err)
	defer p.Release()
	require.Equal(t, "ids", p.Schema().Field(0).Name)

	src := f.Records()[0].Column(0).(*array.List)
	got := p.Records()[0].Column(0).(*array.List)
	require.Same(t, src.Data().Buffers()[1], got.Data().Buffers()[1], "offsets shared")
	require.Same(t, src.Data().Buffers()[0], got.Data().Buffers()[0], "validity shared")
	srcIDs := src.ListValues().(*array.Struct).Field(0)
	require.Same(t, srcIDs.Data().Buffers()[2], got.ListValues().Data().Buffers()[2], "string data shared")
}

// TestProjectThroughArraysMasksNullElements builds a null struct element
// whose field still holds a value, as other writers may leave it: the
// extracted value must be null there.
func TestProjectThroughArraysMasksNullElements(t *testing.T) {
	t.Parallel()
	for _, large := range []bool{false, true} {
		name := "list"
		if large {
			name = "large list"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)

			elem := arrow.StructOf(arrow.Field{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true})
			listType := arrow.DataType(arrow.ListOf(elem))
			if large {
				listType = arrow.LargeListOf(elem)
			}
			ids, _, err := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["a","hidden","c","d"]`))
			require.NoError(t, err)
			defer ids.Release()
			structValid := memory.NewBufferBytes([]byte{0b1101}) // element 1 is null
			structData := array.NewData(elem, 4, []*memory.Buffer{structValid}, []arrow.ArrayData{ids.Data()}, 1, 0)
			structs := array.NewStructData(structData)
			structData.Release()
			defer structs.Release()
			var offsets *memory.Buffer
			if large {
				offsets = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes([]int64{0, 3, 3, 4}))
			} else {
				offsets = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 3, 3, 4}))
			}
			listValid := memory.NewBufferBytes([]byte{0b101}) // row 1 is a null list
			listData := array.NewData(listType, 3, []*memory.Buffer{listValid, offsets}, []arrow.ArrayData{structs.Data()}, 1, 0)
			list := array.MakeFromData(listData)
			listData.Release()
			schema := arrow.NewSchema([]arrow.Field{{Name: "items", Type: listType, Nullable: true}}, nil)
			rec := array.NewRecord(schema, []arrow.Array{list}, 3)
			list.Release()
			f, err := dataframe.New(schema, rec)
			require.NoError(t, err)
			f.SetAllocator(mem)
			defer f.Release()

			p, err := dataframe.Project(f, []dataframe.Projection{{Path: "items.id"}})
			require.NoError(t, err)
			defer p.Release()
			want := arrow.DataType(arrow.ListOf(arrow.BinaryTypes.String))
			if large {
				want = arrow.LargeListOf(arrow.BinaryTypes.String)
			}
			require.True(t, arrow.TypeEqual(want, p.Schema().Field(0).Type), "type %s", p.Schema().Field(0).Type)
			require.Equal(t, []string{`{"id":["a",null,"c"]}`, `{"id":null}`, `{"id":["d"]}`}, frametest.RowsJSON(t, p))

			// The rows after the first, as a slice: offsets past 0.
			part, err := dataframe.New(schema, f.Records()[0].NewSlice(1, 3))
			require.NoError(t, err)
			part.SetAllocator(mem)
			defer part.Release()
			pp, err := dataframe.Project(part, []dataframe.Projection{{Path: "items.id"}})
			require.NoError(t, err)
			defer pp.Release()
			require.Equal(t, []string{`{"id":null}`, `{"id":["d"]}`}, frametest.RowsJSON(t, pp))

			var got []any
			out, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
				v, err := r.Get("items.id")
				got = append(got, v)
				return v != nil, err
			})
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, []any{[]any{"a", nil, "c"}, nil, []any{"d"}}, got)
			require.Equal(t, int64(2), out.NumRows())
		})
	}
}

func TestRowGetThroughArrays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want []any
	}{
		{"items.id", []any{[]any{"a", "b"}, nil, []any{}, []any{"c", nil, nil}, []any{"d"}}},
		{"items.sub.x", []any{
			[]any{[]any{int64(1), int64(2)}, nil},
			nil,
			[]any{},
			[]any{nil, nil, []any{}},
			[]any{[]any{int64(3), nil, nil}},
		}},
		{"tags", []any{[]any{"t"}, nil, []any{}, nil, []any{"u"}}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			f := mustJSON(t, mem, arrayPathDoc)
			defer f.Release()
			var got []any
			out, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
				v, err := r.Get(tc.path)
				got = append(got, v)
				return false, err
			})
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, tc.want, got)
		})
	}
}

func TestArrayPathErrors(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, arrayPathDoc)
	defer f.Release()
	m := dataframe.Empty(arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true}}, nil))
	defer m.Release()
	tests := []struct {
		frame *dataframe.Frame
		path  string
		msg   string
	}{
		{f, "tags.x", `column path "tags.x": "tags" is array<string>, not a struct or an array of structs`},
		{f, "items.nope", `column path "items.nope": the elements of array "items" have no field "nope"`},
		{f, "items.id.x", `column path "items.id.x": "id" is string, not a struct or an array of structs`},
		{f, "items.sub.x.y", `column path "items.sub.x.y": "x" is long, not a struct or an array of structs`},
		{f, "items.sub.nope", `column path "items.sub.nope": the elements of array "sub" have no field "nope"`},
		{m, "m.key", `column path "m.key": "m" is map<string,long>, not a struct or an array of structs`},
	}
	for _, tc := range tests {
		_, err := dataframe.Project(tc.frame, []dataframe.Projection{{Path: tc.path}})
		require.EqualError(t, err, "dataframe: "+tc.msg, tc.path)
		_, err = dataframe.Filter(tc.frame, func(r *dataframe.Row) (bool, error) { _, err := r.Get(tc.path); return false, err })
		if tc.frame.NumRows() > 0 {
			require.ErrorContains(t, err, tc.msg, tc.path)
		}
	}
}

func TestExplodeThroughArrays(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := mustJSON(t, mem, arrayPathDoc)
	defer f.Release()
	p, err := dataframe.Project(f, []dataframe.Projection{{Path: "n"}, {Path: "items.id", Alias: "ids"}})
	require.NoError(t, err)
	defer p.Release()
	e, err := dataframe.Explode(p, "ids")
	require.NoError(t, err)
	defer e.Release()
	require.Equal(t, []string{
		`{"n":1,"ids":"a"}`, `{"n":1,"ids":"b"}`,
		`{"n":4,"ids":"c"}`, `{"n":4,"ids":null}`, `{"n":4,"ids":null}`,
		`{"n":5,"ids":"d"}`,
	}, frametest.RowsJSON(t, e))
}
