package functions

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Collection functions: see docs/sql-functions.md#collection-functions.
// explode and posexplode generate rows and belong to the executor.

func init() {
	def(fn.Scalar{Name: "size", Group: gCollection, Signature: "size(expr)", Returns: "int", Bind: bindSize,
		Doc: "The number of elements of an array or entries of a map; -1 for NULL (spark.sql.legacy.sizeOfNull, " +
			"true without ANSI mode).",
		Examples: ex("size(array('b', 'd', 'c', 'a'))", "4", "size(map('a', 1, 'b', 2))", "2", "size(CAST(NULL AS ARRAY<INT>))", "-1")},
		aliases("cardinality"))
	def(fn.Scalar{Name: "array_contains", Group: gCollection, Signature: "array_contains(array, value)", Returns: "boolean", Bind: bindArrayContains,
		Doc: "Whether `array` holds `value`; NULL when it does not but holds a NULL. `value` must meet the element type " +
			"without becoming a string and cannot be a NULL literal.",
		Examples: ex("array_contains(array(1, 2, 3), 2)", "true", "array_contains(array(1, NULL), 2)", "NULL")})
	def(fn.Scalar{Name: "element_at", Group: gCollection, Signature: "element_at(array, index) | element_at(map, key)",
		Returns: "the element or value type", Bind: bindElementAt(false),
		Doc: "Element `index` of `array` (1-based; negative counts from the end; NULL past either end; 0 is an error), " +
			"or the value of `key` in `map` (NULL when absent).",
		Examples: ex("element_at(array(1, 2, 3), 2)", "2", "element_at(array(1, 2, 3), -1)", "3", "element_at(array(1, 2, 3), 5)", "NULL",
			"element_at(map(1, 'a', 2, 'b'), 2)", "b")})
	def(fn.Scalar{Name: "try_element_at", Group: gCollection, Signature: "try_element_at(array, index) | try_element_at(map, key)",
		Returns: "the element or value type", Bind: bindElementAt(true),
		Doc:      "`element_at` that gives NULL for index 0 too.",
		Examples: ex("try_element_at(array(1, 2, 3), 2)", "2", "try_element_at(array(1, 2, 3), 0)", "NULL", "try_element_at(map(1, 'a', 2, 'b'), 2)", "b")})
	defArrays()
}

// listOut assembles a list array from per-row lengths and the positions of
// the elements in a values array.
type listOut struct {
	mem     memory.Allocator
	elem    arrow.DataType
	offsets []int32
	valid   []bool
	nulls   int
}

func newListOf(ctx *fn.Ctx, elem arrow.DataType, n int) *listOut {
	l := &listOut{mem: ctx.Mem, elem: elem, offsets: make([]int32, 1, n+1), valid: make([]bool, 0, n)}
	return l
}

func (l *listOut) appendNull() {
	l.offsets = append(l.offsets, l.offsets[len(l.offsets)-1])
	l.valid = append(l.valid, false)
	l.nulls++
}

func (l *listOut) appendLen(k int) {
	l.offsets = append(l.offsets, l.offsets[len(l.offsets)-1]+int32(k))
	l.valid = append(l.valid, true)
}

// finish takes the elements values[idx[k]] and wraps them in the lists.
func (l *listOut) finish(values arrow.Array, idx []int64) (arrow.Array, error) {
	elems, err := takeValues(l.mem, values, idx)
	if err != nil {
		return nil, err
	}
	defer elems.Release()
	return l.wrap(arrow.ListOf(l.elem), elems.Data()), nil
}

// finishMap takes the entries keys[idx[k]] → items[idx[k]] into maps.
func (l *listOut) finishMap(mt *arrow.MapType, keys, items arrow.Array, idx []int64) (arrow.Array, error) {
	k, err := takeValues(l.mem, keys, idx)
	if err != nil {
		return nil, err
	}
	defer k.Release()
	v, err := takeValues(l.mem, items, idx)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	entries := array.NewData(mt.Elem(), k.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{k.Data(), v.Data()}, 0, 0)
	defer entries.Release()
	return l.wrap(mt, entries), nil
}

// wrap makes the list-shaped array of type dt (list or map) over child
// from the collected offsets and validity.
func (l *listOut) wrap(dt arrow.DataType, child arrow.ArrayData) arrow.Array {
	n := len(l.valid)
	bitmap := memory.NewResizableBuffer(l.mem)
	bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := bitmap.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	for i, v := range l.valid {
		if v {
			bitutil.SetBit(bits, i)
		}
	}
	offs := memory.NewResizableBuffer(l.mem)
	offs.Resize(len(l.offsets) * arrow.Int32SizeBytes)
	copy(arrow.Int32Traits.CastFromBytes(offs.Bytes()), l.offsets)
	data := array.NewData(dt, n, []*memory.Buffer{bitmap, offs}, []arrow.ArrayData{child}, l.nulls, 0)
	bitmap.Release()
	offs.Release()
	defer data.Release()
	return array.MakeFromData(data)
}

func bindSize(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	switch args[0].Type.ID() {
	case arrow.LIST, arrow.MAP, arrow.NULL:
	default:
		return fn.Bound{}, argErr(0, args[0], "an array or a map")
	}
	return fn.Bound{Type: int32Type, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewInt32Builder(ctx.Mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if nullAt(a[0], i) {
				// spark.sql.legacy.sizeOfNull is true when ANSI mode is off.
				b.UnsafeAppend(-1)
				continue
			}
			s, e := a[0].(array.ListLike).ValueOffsets(i)
			b.UnsafeAppend(int32(e - s))
		}
		return b.NewArray(), nil
	}}, nil
}

// equalAt compares valid values a[i] and b[j] of one type.
func equalAt(a arrow.Array, i int, b arrow.Array, j int) bool {
	switch x := a.(type) {
	case *array.String:
		return x.Value(i) == b.(*array.String).Value(j)
	case *array.Int64:
		return x.Value(i) == b.(*array.Int64).Value(j)
	case *array.Int32:
		return x.Value(i) == b.(*array.Int32).Value(j)
	case *array.Float64:
		return compareFloat(x.Value(i), b.(*array.Float64).Value(j)) == 0
	case *array.Boolean:
		return x.Value(i) == b.(*array.Boolean).Value(j)
	case *array.Binary:
		return bytes.Equal(x.Value(i), b.(*array.Binary).Value(j))
	}
	if flatType(a.DataType()) {
		return compareAt(a, i, b, j) == 0
	}
	return array.SliceEqual(a, int64(i), int64(i+1), b, int64(j), int64(j+1))
}

func bindArrayContains(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	lt, ok := args[0].Type.(*arrow.ListType)
	if !ok {
		return fn.Bound{}, argErr(0, args[0], "an array")
	}
	// As Spark's ArrayContains: a NULL value is refused, and the value
	// meets the element type without turning either into a string.
	if isNull(args[1].Type) {
		return fn.Bound{}, fmt.Errorf("argument 2 (the value) cannot be NULL")
	}
	elem, ok := widerWithoutString(lt.Elem(), args[1].Type)
	if !ok {
		return fn.Bound{}, fmt.Errorf("argument 2 must be of the array's element type %s, got %s",
			sparkName(lt.Elem()), sparkName(args[1].Type))
	}
	return fn.Bound{Type: boolType, Args: []arrow.DataType{arrow.ListOf(elem), elem}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		list := a[0].(*array.List)
		vals := list.ListValues()
		b := array.NewBooleanBuilder(ctx.Mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			s, e := list.ValueOffsets(i)
			found, sawNull := false, false
			for j := s; j < e && !found; j++ {
				if nullAt(vals, int(j)) {
					sawNull = true
					continue
				}
				found = equalAt(vals, int(j), a[1], i)
			}
			switch {
			case found:
				b.UnsafeAppend(true)
			case sawNull:
				b.UnsafeAppendBoolToBitmap(false)
			default:
				b.UnsafeAppend(false)
			}
		}
		return b.NewArray(), nil
	}}, nil
}

func bindElementAt(try bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		b, err := elementAt(args, try)
		if err != nil || !try || args[0].Type.ID() != arrow.LIST {
			return b, err
		}
		b.Eval = func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return evalElementAtList(ctx, a, n, true)
		}
		return b, nil
	}
}

func elementAt(args []fn.Arg, try bool) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	switch t := args[0].Type.(type) {
	case *arrow.ListType:
		if _, err := intArg(args, 1, int32Type); err != nil {
			return fn.Bound{}, err
		}
		if v, null, ok := constInt(args[1]); ok && !null && v == 0 && !try {
			return fn.Bound{}, errIndexZero
		}
		return fn.Bound{Type: t.Elem(), Args: []arrow.DataType{nil, int32Type}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return evalElementAtList(ctx, a, n, false)
		}}, nil
	case *arrow.MapType:
		key, ok := commonType(t.KeyType(), args[1].Type)
		if !ok || !arrow.TypeEqual(key, t.KeyType()) {
			if !fn.CanCast(args[1].Type, t.KeyType()) {
				return fn.Bound{}, fmt.Errorf("argument 2 must be of the map's key type %s, got %s",
					sparkName(t.KeyType()), sparkName(args[1].Type))
			}
		}
		return fn.Bound{Type: t.ItemType(), Args: []arrow.DataType{nil, t.KeyType()}, Eval: evalElementAtMap}, nil
	}
	return fn.Bound{}, argErr(0, args[0], "an array or a map")
}

var errIndexZero = fmt.Errorf("argument 2: SQL array indices start at 1")

// evalElementAtList: 1-based, negative from the end, NULL past either end.
func evalElementAtList(ctx *fn.Ctx, a []arrow.Array, n int, try bool) (arrow.Array, error) {
	list := a[0].(*array.List)
	pos := a[1].(*array.Int32)
	idx := make([]int64, n)
	for i := 0; i < n; i++ {
		idx[i] = -1
		if anyNull(a, i) {
			continue
		}
		s, e := list.ValueOffsets(i)
		p := int64(pos.Value(i))
		switch {
		case p == 0 && !try:
			return nil, errIndexZero
		case p > 0 && p <= e-s:
			idx[i] = s + p - 1
		case p < 0 && -p <= e-s:
			idx[i] = e + p
		}
	}
	return takeValues(ctx.Mem, list.ListValues(), idx)
}

func evalElementAtMap(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
	m := a[0].(*array.Map)
	keys, items := m.Keys(), m.Items()
	idx := make([]int64, n)
	for i := 0; i < n; i++ {
		idx[i] = -1
		if anyNull(a, i) {
			continue
		}
		s, e := m.ValueOffsets(i)
		for j := s; j < e; j++ {
			if equalAt(keys, int(j), a[1], i) {
				idx[i] = j
				break
			}
		}
	}
	return takeValues(ctx.Mem, items, idx)
}

// gatherLists builds n lists: for each row without a NULL in nullable,
// row appends to idx the positions (in the values the lists take, -1 for
// a NULL element) of row i's elements, or reports false for a NULL list.
// The caller finishes the lists with lb.finish or lb.finishMap.
func gatherLists(ctx *fn.Ctx, elem arrow.DataType, n int, nullable []arrow.Array,
	row func(i int, idx []int64) ([]int64, bool, error)) (lb *listOut, idx []int64, err error) {
	lb = newListOf(ctx, elem, n)
	for i := 0; i < n; i++ {
		if anyNull(nullable, i) {
			lb.appendNull()
			continue
		}
		k := len(idx)
		out, ok, err := row(i, idx)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			idx = out[:k]
			lb.appendNull()
			continue
		}
		idx = out
		lb.appendLen(len(idx) - k)
	}
	return lb, idx, nil
}

// appendRange appends the positions s … e-1.
func appendRange(idx []int64, s, e int64) []int64 {
	for j := s; j < e; j++ {
		idx = append(idx, j)
	}
	return idx
}

// listsOf is gatherLists finished into lists of values' elements.
func listsOf(ctx *fn.Ctx, elem arrow.DataType, values arrow.Array, n int, nullable []arrow.Array,
	row func(i int, idx []int64) ([]int64, bool, error)) (arrow.Array, error) {
	lb, idx, err := gatherLists(ctx, elem, n, nullable, row)
	if err != nil {
		return nil, err
	}
	return lb.finish(values, idx)
}
