package dataframe

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// fieldPath is a resolved column path: a top-level column, then steps
// into struct fields and through lists of structs.
type fieldPath struct {
	col   int
	steps []pathStep
	typ   arrow.DataType // the result: the leaf type wrapped in one list per list step
	name  string         // last segment, Spark's default alias
}

// pathStep goes into struct field field, or, when list is set, into the
// elements of a list (the next step then picks their field), as Spark's
// items.id over array<struct<id,…>> does.
type pathStep struct {
	list  bool
	large bool // the list is a LargeList: the result keeps 64-bit offsets
	field int
}

// resolvePath finds a column or dotted nested path in schema. A top-level
// column whose name contains dots (as Flatten makes) wins over nesting;
// names match exactly, else case-insensitively when that is unambiguous.
// A segment after a list of structs picks that field of every element.
func resolvePath(schema *arrow.Schema, path string) (fieldPath, error) {
	if path == "" {
		return fieldPath{}, fmt.Errorf("dataframe: empty column path")
	}
	segs := strings.Split(path, ".")
	for k := len(segs); k >= 1; k-- {
		col, ok := fieldIndex(schema.Fields(), strings.Join(segs[:k], "."))
		if !ok {
			continue
		}
		fp := fieldPath{col: col, name: schema.Field(col).Name}
		typ := schema.Field(col).Type
		for _, seg := range segs[k:] {
			st, isStruct := typ.(*arrow.StructType)
			owner := fmt.Sprintf("struct %q has", fp.name)
			if !isStruct {
				elem, large, isList := listOfStructs(typ)
				if !isList {
					return fieldPath{}, fmt.Errorf("dataframe: column path %q: %q is %s, not a struct or an array of structs", path, fp.name, sparktype.Name(typ))
				}
				fp.steps = append(fp.steps, pathStep{list: true, large: large})
				st = elem
				owner = fmt.Sprintf("the elements of array %q have", fp.name)
			}
			j, ok := fieldIndex(st.Fields(), seg)
			if !ok {
				return fieldPath{}, fmt.Errorf("dataframe: column path %q: %s no field %q", path, owner, seg)
			}
			fp.steps = append(fp.steps, pathStep{field: j})
			typ = st.Field(j).Type
			fp.name = st.Field(j).Name
		}
		fp.typ = typePath(fp, typ)
		return fp, nil
	}
	return fieldPath{}, fmt.Errorf("dataframe: unknown column %q (columns: %s)", path, strings.Join(fieldNames(schema.Fields()), ", "))
}

// listOfStructs reports whether dt is a List or LargeList of structs (not a
// map, whose entries are structs too but are looked up by key).
func listOfStructs(dt arrow.DataType) (*arrow.StructType, bool, bool) {
	switch t := dt.(type) {
	case *arrow.ListType:
		st, ok := t.Elem().(*arrow.StructType)
		return st, false, ok
	case *arrow.LargeListType:
		st, ok := t.Elem().(*arrow.StructType)
		return st, true, ok
	}
	return nil, false, false
}

// typePath wraps leaf in one list per list step of fp, outermost first.
func typePath(fp fieldPath, leaf arrow.DataType) arrow.DataType {
	for i := len(fp.steps) - 1; i >= 0; i-- {
		switch {
		case !fp.steps[i].list:
		case fp.steps[i].large:
			leaf = arrow.LargeListOf(leaf)
		default:
			leaf = arrow.ListOf(leaf)
		}
	}
	return leaf
}

// topLevel reports whether fp is a whole column.
func (fp fieldPath) topLevel() bool { return len(fp.steps) == 0 }

func fieldNames(fs []arrow.Field) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return names
}

func fieldIndex(fs []arrow.Field, name string) (int, bool) {
	found := -1
	for i, f := range fs {
		if f.Name == name {
			return i, true
		}
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				found = -2
			} else if found == -1 {
				found = i
			}
		}
	}
	return found, found >= 0
}

// columnAt returns the array at fp in rec as a new reference, with the
// nulls of its parent structs applied (a null parent makes a null value).
func columnAt(mem memory.Allocator, rec arrow.Record, fp fieldPath) arrow.Array {
	return extractPath(mem, rec.Column(fp.col), fp.steps)
}

// extractPath returns the array at steps below arr as a new reference. A
// list step keeps the list's validity and offsets buffers and swaps its
// values for what the rest of the path extracts from them, so the result
// is zero copy unless a struct on the way has nulls.
func extractPath(mem memory.Allocator, arr arrow.Array, steps []pathStep) arrow.Array {
	if len(steps) == 0 {
		arr.Retain()
		return arr
	}
	st := steps[0]
	if st.list {
		list := arr.(array.ListLike)
		values := extractPath(mem, list.ListValues(), steps[1:])
		defer values.Release()
		data := list.Data()
		var dt arrow.DataType = arrow.ListOf(values.DataType())
		if st.large {
			dt = arrow.LargeListOf(values.DataType())
		}
		nd := array.NewData(dt, data.Len(), data.Buffers()[:2], []arrow.ArrayData{values.Data()}, data.NullN(), data.Offset())
		defer nd.Release()
		return array.MakeFromData(nd)
	}
	parent := arr.(*array.Struct)
	child := parent.Field(st.field)
	if parent.NullN() == 0 {
		return extractPath(mem, child, steps[1:])
	}
	masked := maskNulls(mem, child, parent)
	defer masked.Release()
	return extractPath(mem, masked, steps[1:])
}

// maskNulls returns child with the nulls of parent (same length) added,
// sharing child's value buffers.
func maskNulls(mem memory.Allocator, child, parent arrow.Array) arrow.Array {
	data := child.Data()
	off, n := data.Offset(), data.Len()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := buf.Bytes()
	clear(bits)
	nulls := 0
	for i := 0; i < n; i++ {
		if child.IsValid(i) && parent.IsValid(i) {
			bitutil.SetBit(bits, off+i)
		} else {
			nulls++
		}
	}
	buffers := append([]*memory.Buffer{buf}, data.Buffers()[1:]...)
	nd := array.NewData(data.DataType(), n, buffers, data.Children(), nulls, off)
	buf.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

// Projection selects a column or nested path, under Alias; an empty Alias
// is the path's last segment, as in Spark.
type Projection struct{ Path, Alias string }

// Project returns the selected columns in order. A path through an array
// of structs (items.id over array<struct<id,…>>) gives an array of that
// field per row, as in Spark: null elements give null entries and a null
// array gives null. Nested paths are zero copy unless a parent struct has
// nulls. An unknown path is an error naming it; "*" is not handled here.
func Project(f *Frame, cols []Projection) (*Frame, error) {
	paths := make([]fieldPath, len(cols))
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fp, err := resolvePath(f.schema, c.Path)
		if err != nil {
			return nil, err
		}
		paths[i] = fp
		name := c.Alias
		if name == "" {
			name = fp.name
		}
		fields[i] = arrow.Field{Name: name, Type: fp.typ, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	mem := f.Allocator()
	recs := make([]arrow.Record, 0, len(f.records))
	for _, rec := range f.records {
		arrs := make([]arrow.Array, len(paths))
		for i, fp := range paths {
			arrs[i] = columnAt(mem, rec, fp)
		}
		recs = append(recs, array.NewRecord(schema, arrs, rec.NumRows()))
		for _, a := range arrs {
			a.Release()
		}
	}
	return newFrom(f, schema, recs)
}

// newFrom is New for operation results, keeping f's allocator.
func newFrom(f *Frame, schema *arrow.Schema, recs []arrow.Record) (*Frame, error) {
	out, err := New(schema, recs...)
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, err
	}
	out.mem = f.mem
	return out, nil
}

// Row is the current row during Filter. Paths resolve once per frame.
type Row struct {
	schema *arrow.Schema
	rec    arrow.Record
	i      int
	index  int64
	cache  map[string]fieldPath
}

// Index is the row's 0-based position in the frame.
func (r *Row) Index() int64 { return r.index }

// Get is the value at a column or dotted nested path as ValueAt gives it:
// nil for null or a null parent. A path through an array of structs gives
// []any of the field's values (nil for a null element). An unknown path is
// an error naming it.
func (r *Row) Get(path string) (any, error) {
	fp, ok := r.cache[path]
	if !ok {
		var err error
		if fp, err = resolvePath(r.schema, path); err != nil {
			return nil, err
		}
		r.cache[path] = fp
	}
	return valueAtPath(r.rec.Column(fp.col), r.i, fp.steps), nil
}

// valueAtPath is ValueAt of row i at steps below arr: a list step gives
// []any of the elements' values (nil for a null element), and a null
// struct or list on the way gives nil.
func valueAtPath(arr arrow.Array, i int, steps []pathStep) any {
	for len(steps) > 0 {
		if arr.IsNull(i) {
			return nil
		}
		if steps[0].list {
			list := arr.(array.ListLike)
			start, end := list.ValueOffsets(i)
			values := list.ListValues()
			out := make([]any, 0, end-start)
			for k := start; k < end; k++ {
				out = append(out, valueAtPath(values, int(k), steps[1:]))
			}
			return out
		}
		arr = arr.(*array.Struct).Field(steps[0].field)
		steps = steps[1:]
	}
	return ValueAt(arr, i)
}

// Filter keeps the rows for which keep returns true; its first error stops
// the filter and is returned. A batch whose rows are all kept is shared,
// not copied.
func Filter(f *Frame, keep func(r *Row) (bool, error)) (*Frame, error) {
	r := &Row{schema: f.schema, cache: map[string]fieldPath{}}
	mem := f.Allocator()
	var recs []arrow.Record
	fail := func(err error) (*Frame, error) {
		for _, rec := range recs {
			rec.Release()
		}
		return nil, err
	}
	var idx []int64
	for _, rec := range f.records {
		r.rec = rec
		n := int(rec.NumRows())
		if cap(idx) < n {
			idx = make([]int64, 0, n)
		}
		idx = idx[:0]
		for i := 0; i < n; i++ {
			r.i = i
			ok, err := keep(r)
			if err != nil {
				return fail(fmt.Errorf("row %d: %w", r.index, err))
			}
			r.index++
			if ok {
				idx = append(idx, int64(i))
			}
		}
		switch len(idx) {
		case 0:
		case n:
			rec.Retain()
			recs = append(recs, rec)
		default:
			out, err := takeRecord(mem, rec, idx)
			if err != nil {
				return fail(fmt.Errorf("dataframe: filter: %w", err))
			}
			recs = append(recs, out)
		}
	}
	return newFrom(f, f.schema, recs)
}

// Limit returns the first n rows, sharing f's memory (batches are sliced,
// not copied). A negative n is 0.
func Limit(f *Frame, n int64) *Frame {
	var recs []arrow.Record
	for _, rec := range f.records {
		if n <= 0 {
			break
		}
		if rec.NumRows() <= n {
			rec.Retain()
			recs = append(recs, rec)
			n -= rec.NumRows()
			continue
		}
		recs = append(recs, rec.NewSlice(0, n))
		n = 0
	}
	out, _ := New(f.schema, recs...)
	out.mem = f.mem
	return out
}

// Explode turns the list at path (a column or a dotted nested path) into
// one row per element, as Spark's explode; a null or empty list gives no
// row. The other columns repeat beside the element, which replaces a
// top-level list column under the same name (a nested path adds a column
// named by its last segment). Elements that are structs stay one struct
// column: Flatten after Explode turns their fields into columns (see
// docs/pipelines.md#explode).
func Explode(f *Frame, path string) (*Frame, error) {
	fp, err := resolvePath(f.schema, path)
	if err != nil {
		return nil, err
	}
	lt, ok := fp.typ.(arrow.ListLikeType)
	if _, isMap := fp.typ.(*arrow.MapType); !ok || isMap {
		return nil, fmt.Errorf("dataframe: explode %q: it is %s, not an array", path, sparktype.Name(fp.typ))
	}
	mem := f.Allocator()
	var recs []arrow.Record
	fail := func(err error) (*Frame, error) {
		for _, rec := range recs {
			rec.Release()
		}
		return nil, err
	}
	fields := f.schema.Fields()
	if fp.topLevel() {
		fields[fp.col] = arrow.Field{Name: fields[fp.col].Name, Type: lt.Elem(), Nullable: true}
	} else {
		fields = append(fields, arrow.Field{Name: fp.name, Type: lt.Elem(), Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	for _, rec := range f.records {
		list := columnAt(mem, rec, fp).(array.ListLike)
		out, err := explodeRecord(mem, rec, list, fp, schema)
		list.Release()
		if err != nil {
			return fail(fmt.Errorf("dataframe: explode %q: %w", path, err))
		}
		if out != nil {
			recs = append(recs, out)
		}
	}
	return newFrom(f, schema, recs)
}

func explodeRecord(mem memory.Allocator, rec arrow.Record, list array.ListLike, fp fieldPath, schema *arrow.Schema) (arrow.Record, error) {
	// The elements of adjacent lists are one span of the list's values,
	// so the usual all-lists-present case is a single zero-copy slice.
	n := list.Len()
	var elems []span
	var rows int64
	for i := 0; i < n; i++ {
		if list.IsNull(i) {
			continue
		}
		start, end := list.ValueOffsets(i)
		elems = appendSpan(elems, span{start, end - start})
		rows += end - start
	}
	if rows == 0 {
		return nil, nil
	}
	values, err := takeSpans(mem, list.ListValues(), elems)
	if err != nil {
		return nil, err
	}
	defer values.Release()
	cols := make([]arrow.Array, 0, schema.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	// The other columns repeat: row i once per element of its list.
	var srcIdx []int64
	if int(rec.NumCols()) > 1 || !fp.topLevel() {
		srcIdx = make([]int64, 0, rows)
		for i := 0; i < n; i++ {
			if list.IsNull(i) {
				continue
			}
			start, end := list.ValueOffsets(i)
			for j := start; j < end; j++ {
				srcIdx = append(srcIdx, int64(i))
			}
		}
	}
	for k := 0; k < int(rec.NumCols()); k++ {
		if k == fp.col && fp.topLevel() {
			values.Retain()
			cols = append(cols, values)
			continue
		}
		taken, err := takeArray(mem, rec.Column(k), srcIdx)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.ColumnName(k), err)
		}
		cols = append(cols, taken)
	}
	if !fp.topLevel() {
		values.Retain()
		cols = append(cols, values)
	}
	return array.NewRecord(schema, cols, rows), nil
}

// Flatten turns struct columns into top-level columns named by their dotted
// path ("pageInfo.totalResults"), recursively; lists stay as they are. A
// null struct makes its fields null.
func Flatten(f *Frame) (*Frame, error) {
	var fields []arrow.Field
	var paths []fieldPath
	var walk func(prefix string, dt arrow.DataType, fp fieldPath)
	walk = func(prefix string, dt arrow.DataType, fp fieldPath) {
		st, ok := dt.(*arrow.StructType)
		if !ok {
			fields = append(fields, arrow.Field{Name: prefix, Type: dt, Nullable: true})
			paths = append(paths, fp)
			return
		}
		for j, sf := range st.Fields() {
			child := fieldPath{col: fp.col, steps: append(append([]pathStep(nil), fp.steps...), pathStep{field: j}), typ: sf.Type}
			walk(prefix+"."+sf.Name, sf.Type, child)
		}
	}
	for i, fd := range f.schema.Fields() {
		walk(fd.Name, fd.Type, fieldPath{col: i, typ: fd.Type})
	}
	schema := arrow.NewSchema(fields, nil)
	mem := f.Allocator()
	recs := make([]arrow.Record, 0, len(f.records))
	for _, rec := range f.records {
		arrs := make([]arrow.Array, len(paths))
		for i, fp := range paths {
			arrs[i] = columnAt(mem, rec, fp)
		}
		recs = append(recs, array.NewRecord(schema, arrs, rec.NumRows()))
		for _, a := range arrs {
			a.Release()
		}
	}
	return newFrom(f, schema, recs)
}
