package dataframe

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

// takeCase is one column type: 8 values, null at 0, 4 and 7.
type takeCase struct {
	name string
	dt   arrow.DataType
	json string
}

var tsZone = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"}

var takeCases = []takeCase{
	{"string", arrow.BinaryTypes.String, `[null,"a","","ccc","",null,"é\u0000x","ggg",null]`},
	{"large_string", arrow.BinaryTypes.LargeString, `[null,"a","bb","ccc",null,"eeeee","","ggg"]`},
	{"binary", arrow.BinaryTypes.Binary, `[null,"AA==","AQI=","","","AwQF","BgcICQ==",null]`},
	{"large_binary", arrow.BinaryTypes.LargeBinary, `[null,"AA==","AQI=","",null,"AwQF","BgcICQ==",null]`},
	{"int8", arrow.PrimitiveTypes.Int8, `[null,1,-2,3,null,5,-128,null]`},
	{"int16", arrow.PrimitiveTypes.Int16, `[null,1,-2,3,null,5,-32768,null]`},
	{"int32", arrow.PrimitiveTypes.Int32, `[null,1,-2,3,null,5,7,null]`},
	{"int64", arrow.PrimitiveTypes.Int64, `[null,1,-2,3,null,5,9007199254740993,null]`},
	{"uint8", arrow.PrimitiveTypes.Uint8, `[null,1,2,3,null,5,255,null]`},
	{"uint16", arrow.PrimitiveTypes.Uint16, `[null,1,2,3,null,5,65535,null]`},
	{"uint32", arrow.PrimitiveTypes.Uint32, `[null,1,2,3,null,5,4294967295,null]`},
	{"uint64", arrow.PrimitiveTypes.Uint64, `[null,1,2,3,null,5,6,null]`},
	{"float32", arrow.PrimitiveTypes.Float32, `[null,1.5,-2,3,null,5,6.25,null]`},
	{"float64", arrow.PrimitiveTypes.Float64, `[null,1.5,-2,3e300,null,5,6.25,null]`},
	{"boolean", arrow.FixedWidthTypes.Boolean, `[null,true,false,true,null,true,true,null]`},
	{"timestamp_tz", tsZone, `["2020-01-01T00:00:00Z",null,"2021-02-03T04:05:06.123456Z","1970-01-01T00:00:00Z",null,"2030-12-31T23:59:59Z","1999-09-09T09:09:09Z",null]`},
	{"timestamp_s", arrow.FixedWidthTypes.Timestamp_s, `[null,"2020-01-01T00:00:00Z","2021-02-03T04:05:06Z",null,null,"2030-12-31T23:59:59Z","1999-09-09T09:09:09Z",null]`},
	{"date32", arrow.FixedWidthTypes.Date32, `[null,"2020-01-01","2021-02-03","1970-01-01",null,"2030-12-31","1999-09-09",null]`},
	{"date64", arrow.FixedWidthTypes.Date64, `[null,"2020-01-01","2021-02-03","1970-01-01",null,"2030-12-31","1999-09-09",null]`},
	{"decimal128", &arrow.Decimal128Type{Precision: 10, Scale: 2}, `[null,"1.25","-2.50","3.00",null,"5.01","6.99",null]`},
	{"fixed_size_binary", &arrow.FixedSizeBinaryType{ByteWidth: 3}, `[null,"AAEC","AwQF","BgcI",null,"CQoL","DA0O",null]`},
	{"null", arrow.Null, `[null,null,null,null,null,null,null,null]`},
	{"struct", arrow.StructOf(
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	), `[null,{"s":"a","i":1},{"s":null,"i":2},{"s":"c","i":null},null,{"s":"eee","i":5},{"s":"","i":6},null]`},
	{"list_string", arrow.ListOf(arrow.BinaryTypes.String),
		`[null,["a","b"],[],["c",null,"d"],null,["e"],["f","g","h"],null]`},
	{"large_list_int", arrow.LargeListOf(arrow.PrimitiveTypes.Int64),
		`[null,[1,2],[],[3,null,4],null,[5],[6,7,8],null]`},
	{"fixed_size_list", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32),
		`[null,[1,2],[3,null],[5,6],null,[9,10],[11,12],null]`},
	{"map", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64),
		`[null,[{"key":"a","value":1}],[],[{"key":"b","value":null},{"key":"c","value":3}],null,[{"key":"d","value":4}],[],null]`},
	{"struct_of_list_of_struct", arrow.StructOf(
		arrow.Field{Name: "items", Type: arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true},
		)), Nullable: true},
		arrow.Field{Name: "tag", Type: arrow.BinaryTypes.String, Nullable: true},
	), `[null,
		{"items":[{"x":1,"y":"a"},null,{"x":null,"y":"b"}],"tag":"t1"},
		{"items":[],"tag":null},
		{"items":null,"tag":"t3"},
		null,
		{"items":[{"x":5,"y":"e"}],"tag":"t5"},
		{"items":[{"x":6,"y":null},{"x":7,"y":"g"}],"tag":""},
		null]`},
}

var takeIndexCases = []struct {
	name string
	idx  []int64
}{
	{"empty", []int64{}},
	{"all", []int64{0, 1, 2, 3, 4, 5, 6, 7}},
	{"one", []int64{3}},
	{"run", []int64{2, 3, 4}},
	{"first_last", []int64{0, 7}},
	{"repeated", []int64{1, 1, 4, 4, 4, 6, 1}},
	{"out_of_order", []int64{7, 5, 0, 3, 2, 6, 1, 4}},
	{"two_runs", []int64{5, 6, 7, 0, 1, 2}},
	{"sparse", []int64{1, 3, 5, 7}},
}

func takeSource(t testing.TB, mem memory.Allocator, tc takeCase) arrow.Array {
	t.Helper()
	arr, _, err := array.FromJSON(mem, tc.dt, strings.NewReader(tc.json))
	require.NoError(t, err, tc.name)
	return arr
}

// requireTaken checks out against src at idx, cell by cell.
func requireTaken(t *testing.T, src, out arrow.Array, idx []int64) {
	t.Helper()
	require.True(t, arrow.TypeEqual(src.DataType(), out.DataType()), "type %s became %s", src.DataType(), out.DataType())
	require.Equal(t, len(idx), out.Len())
	// arrow's Null arrays have no bitmap, so IsNull says false for them.
	isNull := func(a arrow.Array, i int) bool { return a.DataType().ID() == arrow.NULL || a.IsNull(i) }
	nulls := 0
	for k, i := range idx {
		require.Equal(t, isNull(src, int(i)), isNull(out, k), "null at %d (source %d)", k, i)
		require.Equal(t, ValueAt(src, int(i)), ValueAt(out, k), "value at %d (source %d)", k, i)
		if isNull(src, int(i)) {
			nulls++
		}
	}
	require.Equal(t, nulls, out.NullN())
}

func TestTakeArray(t *testing.T) {
	t.Parallel()
	for _, tc := range takeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			full := takeSource(t, mem, tc)
			defer full.Release()
			// The whole array, and slices with an offset that cut nulls
			// and values off both ends.
			sources := map[string]arrow.Array{"whole": full}
			for _, r := range [][2]int64{{1, 8}, {2, 7}, {3, 5}} {
				s := array.NewSlice(full, r[0], r[1])
				defer s.Release()
				sources[fmt.Sprintf("slice_%d_%d", r[0], r[1])] = s
			}
			for sname, src := range sources {
				for _, ic := range takeIndexCases {
					var idx []int64
					for _, i := range ic.idx {
						if i < int64(src.Len()) {
							idx = append(idx, i)
						}
					}
					t.Run(sname+"/"+ic.name, func(t *testing.T) {
						out, err := takeArray(mem, src, idx)
						require.NoError(t, err)
						defer out.Release()
						requireTaken(t, src, out, idx)
					})
				}
			}
		})
	}
}

func TestTakeArraySlicedChildren(t *testing.T) {
	t.Parallel()
	// A struct whose own offset is zero but whose children are slices,
	// and a list whose values are a slice: every level's offset counts.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	strs := takeSource(t, mem, takeCases[0])
	defer strs.Release()
	ints := takeSource(t, mem, takeCase{"i", arrow.PrimitiveTypes.Int64, `[0,1,2,3,4,5,6,7,8]`})
	defer ints.Release()
	s1 := array.NewSlice(strs, 3, 9)
	defer s1.Release()
	s2 := array.NewSlice(ints, 1, 7)
	defer s2.Release()
	st, err := array.NewStructArray([]arrow.Array{s1, s2}, []string{"s", "i"})
	require.NoError(t, err)
	defer st.Release()
	idx := []int64{5, 0, 1, 3, 4, 4}
	out, err := takeArray(mem, st, idx)
	require.NoError(t, err)
	defer out.Release()
	requireTaken(t, st, out, idx)

	offs := takeSource(t, mem, takeCase{"o", arrow.PrimitiveTypes.Int32, `[0,2,2,5,6]`})
	defer offs.Release()
	ld := array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 4, []*memory.Buffer{nil, offs.Data().Buffers()[1]}, []arrow.ArrayData{s1.Data()}, 0, 0)
	defer ld.Release()
	list := array.NewListData(ld)
	defer list.Release()
	idx = []int64{3, 2, 0, 1, 2}
	out2, err := takeArray(mem, list, idx)
	require.NoError(t, err)
	defer out2.Release()
	requireTaken(t, list, out2, idx)
}

func TestTakeArrayDictionary(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for _, s := range []string{"x", "y", "", "x", "zz"} {
		require.NoError(t, b.AppendString(s))
	}
	b.AppendNull()
	require.NoError(t, b.AppendString("y"))
	arr := b.NewArray()
	defer arr.Release()
	idx := []int64{6, 5, 0, 3, 4, 1}
	out, err := takeArray(mem, arr, idx)
	require.NoError(t, err)
	defer out.Release()
	requireTaken(t, arr, out, idx)
}

func TestTakeArrayErrors(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := takeSource(t, mem, takeCases[0])
	defer arr.Release()
	for _, idx := range [][]int64{{0, 9}, {-1}, {3, 100, 4}} {
		_, err := takeArray(mem, arr, idx)
		require.ErrorContains(t, err, "out of range [0, 9)")
	}

	ub := array.NewSparseUnionBuilder(mem, arrow.SparseUnionOf(
		[]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, []arrow.UnionTypeCode{0}))
	defer ub.Release()
	ub.Append(0)
	ub.Child(0).(*array.Int64Builder).Append(1)
	ub.Append(0)
	ub.Child(0).(*array.Int64Builder).Append(2)
	un := ub.NewArray()
	defer un.Release()
	_, err := takeArray(mem, un, []int64{1, 0})
	require.ErrorContains(t, err, "cannot select rows of a sparse_union")
}

func TestTakeRecord(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var cols []arrow.Array
	var fields []arrow.Field
	for _, tc := range takeCases {
		a := takeSource(t, mem, tc)
		defer a.Release()
		s := array.NewSlice(a, 0, 8)
		defer s.Release()
		cols = append(cols, s)
		fields = append(fields, arrow.Field{Name: tc.name, Type: tc.dt, Nullable: true})
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, 8)
	defer rec.Release()
	sliced := rec.NewSlice(2, 8)
	defer sliced.Release()
	idx := []int64{5, 0, 1, 2, 2, 4}
	out, err := takeRecord(mem, sliced, idx)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, int64(len(idx)), out.NumRows())
	require.True(t, out.Schema().Equal(rec.Schema()))
	for k := range out.Columns() {
		requireTaken(t, sliced.Column(k), out.Column(k), idx)
	}
	_, err = takeRecord(mem, sliced, []int64{6})
	require.ErrorContains(t, err, "out of range [0, 6)")
}

// FuzzTake selects rows of every column type, sliced at an offset the
// fuzzer picks, by indices it picks (one byte each), checking each cell.
func FuzzTake(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add([]byte{0, 1, 2, 3}, uint8(1))
	f.Add([]byte{7, 7, 0, 200, 3, 4, 5}, uint8(3))
	f.Fuzz(func(t *testing.T, sel []byte, off uint8) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		for _, tc := range takeCases {
			full := takeSource(t, mem, tc)
			o := int64(off) % 8
			src := array.NewSlice(full, o, int64(full.Len()))
			full.Release()
			idx := make([]int64, len(sel))
			for k, b := range sel {
				idx[k] = int64(b) % int64(src.Len())
			}
			out, err := takeArray(mem, src, idx)
			require.NoError(t, err)
			requireTaken(t, src, out, idx)
			out.Release()
			src.Release()
		}
	})
}

func benchStrings(mem memory.Allocator, n int) arrow.Array {
	r := rand.New(rand.NewSource(1))
	b := array.NewStringBuilder(mem)
	defer b.Release()
	buf := make([]byte, 0, 64)
	for i := 0; i < n; i++ {
		if i%97 == 0 {
			b.AppendNull()
			continue
		}
		buf = buf[:0]
		for k := 8 + r.Intn(40); k > 0; k-- {
			buf = append(buf, byte('a'+r.Intn(26)))
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

func BenchmarkTakeStrings(b *testing.B) {
	const n = 200_000
	mem := memory.NewGoAllocator()
	arr := benchStrings(mem, n)
	defer arr.Release()
	r := rand.New(rand.NewSource(2))
	random := make([]int64, n)
	for i := range random {
		random[i] = r.Int63n(n)
	}
	contiguous := make([]int64, n)
	for i := range contiguous {
		contiguous[i] = int64(i)
	}
	var half []int64
	for i := int64(0); i < n; i++ {
		if r.Intn(2) == 0 {
			half = append(half, i)
		}
	}
	for _, bc := range []struct {
		name string
		idx  []int64
	}{{"random", random}, {"contiguous", contiguous}, {"half_sorted", half}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := takeArray(mem, arr, bc.idx)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(len(bc.idx))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func BenchmarkFilterStrings(b *testing.B) {
	const n = 200_000
	mem := memory.NewGoAllocator()
	arr := benchStrings(mem, n)
	defer arr.Release()
	nb := array.NewInt64Builder(mem)
	for i := int64(0); i < n; i++ {
		nb.Append(i)
	}
	nums := nb.NewArray()
	nb.Release()
	defer nums.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arr.DataType(), Nullable: true},
		{Name: "n", Type: nums.DataType(), Nullable: true},
	}, nil)
	rec := array.NewRecord(schema, []arrow.Array{arr, nums}, n)
	f, err := New(schema, rec) // f owns rec
	if err != nil {
		b.Fatal(err)
	}
	defer f.Release()
	r := rand.New(rand.NewSource(3))
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = r.Intn(2) == 0
	}
	for _, bc := range []struct {
		name string
		fn   func(r *Row) (bool, error)
	}{
		{"random_half", func(r *Row) (bool, error) { return keep[r.Index()], nil }},
		{"first_half", func(r *Row) (bool, error) { return r.Index() < n/2, nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := Filter(f, bc.fn)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// frameCell is cell row of column col across f's batches.
func frameCell(f *Frame, col int, row int64) any {
	for _, rec := range f.Records() {
		if row < rec.NumRows() {
			return ValueAt(rec.Column(col), int(row))
		}
		row -= rec.NumRows()
	}
	return "past the end"
}

// everyTypeFrame has one column per takeCases entry (8 rows) in two
// batches, the second a slice with an offset.
func everyTypeFrame(t *testing.T, mem memory.Allocator, extra ...arrow.Array) *Frame {
	t.Helper()
	var cols []arrow.Array
	var fields []arrow.Field
	for _, tc := range takeCases {
		a := takeSource(t, mem, tc)
		defer a.Release()
		s := array.NewSlice(a, 0, 8)
		defer s.Release()
		cols = append(cols, s)
		fields = append(fields, arrow.Field{Name: tc.name, Type: tc.dt, Nullable: true})
	}
	for k, a := range extra {
		cols = append(cols, a)
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("extra%d", k), Type: a.DataType(), Nullable: true})
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, 8)
	defer rec.Release()
	r1, r2 := rec.NewSlice(0, 3), rec.NewSlice(3, 8)
	f, err := New(rec.Schema(), r1, r2)
	require.NoError(t, err)
	return f
}

func TestFilterEveryType(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f := everyTypeFrame(t, mem)
	f.SetAllocator(mem)
	defer f.Release()
	for _, keep := range [][]int64{
		{0, 2, 3, 5, 7}, // part of each batch
		{3, 4, 5, 6, 7}, // all of the second batch only
		{1, 2, 4},       // runs inside batches
		{0, 1, 2, 3, 4, 5, 6, 7},
		{},
	} {
		kept := map[int64]bool{}
		for _, i := range keep {
			kept[i] = true
		}
		out, err := Filter(f, func(r *Row) (bool, error) { return kept[r.Index()], nil })
		require.NoError(t, err)
		require.Equal(t, int64(len(keep)), out.NumRows())
		require.True(t, out.Schema().Equal(f.Schema()))
		for k, i := range keep {
			for c := range takeCases {
				require.Equal(t, frameCell(f, c, i), frameCell(out, c, int64(k)), "keep %v: column %s row %d", keep, takeCases[c].name, k)
			}
		}
		out.Release()
	}
}

func TestExplodeRepeatsEveryType(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// tags has null lists that still cover values (rows 1 and 5), so its
	// elements are several spans of the values, and an empty list.
	vals := takeSource(t, mem, takeCase{"v", arrow.BinaryTypes.String, `["a","b","x","c","d","e","y","z","f","g"]`})
	defer vals.Release()
	offs := takeSource(t, mem, takeCase{"o", arrow.PrimitiveTypes.Int32, `[0,2,3,5,5,6,8,9,10]`})
	defer offs.Release()
	valid := takeSource(t, mem, takeCase{"b", arrow.FixedWidthTypes.Boolean, `[true,false,true,true,true,false,true,true]`})
	defer valid.Release()
	ld := array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 8,
		[]*memory.Buffer{valid.Data().Buffers()[1], offs.Data().Buffers()[1]}, []arrow.ArrayData{vals.Data()}, 2, 0)
	defer ld.Release()
	tags := array.NewListData(ld)
	defer tags.Release()
	want := map[int64][]string{0: {"a", "b"}, 2: {"c", "d"}, 4: {"e"}, 6: {"f"}, 7: {"g"}}

	f := everyTypeFrame(t, mem, tags)
	f.SetAllocator(mem)
	defer f.Release()
	out, err := Explode(f, "extra0")
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, int64(7), out.NumRows())
	tagCol := len(takeCases)
	var row int64
	for i := int64(0); i < 8; i++ {
		for _, tag := range want[i] {
			require.Equal(t, tag, frameCell(out, tagCol, row), "row %d", row)
			for c := range takeCases {
				require.Equal(t, frameCell(f, c, i), frameCell(out, c, row), "column %s row %d", takeCases[c].name, row)
			}
			row++
		}
	}
}

// BenchmarkExplodeStrings explodes a list of strings while a string
// column repeats: 20,000 rows of 10 tags give 200,000 rows, so both the
// list values and the repeated column go through takeArray.
func BenchmarkExplodeStrings(b *testing.B) {
	const rows, tags = 20_000, 10
	mem := memory.NewGoAllocator()
	ids := benchStrings(mem, rows)
	defer ids.Release()
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for i := 0; i < rows; i++ {
		lb.Append(true)
		for k := 0; k < tags; k++ {
			vb.Append("tag-" + strconv.Itoa(i*tags+k))
		}
	}
	lists := lb.NewArray()
	defer lists.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: ids.DataType(), Nullable: true},
		{Name: "tags", Type: lists.DataType(), Nullable: true},
	}, nil)
	f, err := New(schema, array.NewRecord(schema, []arrow.Array{ids, lists}, rows))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Release()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := Explode(f, "tags")
		if err != nil {
			b.Fatal(err)
		}
		if out.NumRows() != rows*tags {
			b.Fatalf("%d rows, want %d", out.NumRows(), rows*tags)
		}
		out.Release()
	}
	b.ReportMetric(float64(rows*tags)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
