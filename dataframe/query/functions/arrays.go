package functions

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Array functions (Spark's collection group): see
// docs/sql-functions.md#collection-functions. Higher-order functions
// (transform, filter, …) belong to the executor.

// defaultComparatorName is how Spark names array_sort's default
// comparator in a generated column name.
const defaultComparatorName = "lambdafunction((IF(((namedlambdavariable() IS NULL) AND (namedlambdavariable() IS NULL)), 0, " +
	"(IF((namedlambdavariable() IS NULL), 1, (IF((namedlambdavariable() IS NULL), -1, (IF((namedlambdavariable() < namedlambdavariable()), -1, " +
	"(IF((namedlambdavariable() > namedlambdavariable()), 1, 0)))))))))), namedlambdavariable(), namedlambdavariable())"

func defArrays() {
	def(fn.Scalar{Name: "array", Group: gCollection, Signature: "array(expr, …)", Returns: "array of the arguments' common type", Bind: bindArray,
		Doc:      "An array of the arguments; NULL arguments are NULL elements.",
		Examples: ex("array(1, 2, 3)", "[1,2,3]", "array(1, NULL, 3)", "[1,null,3]", "array()", "[]")})
	def(fn.Scalar{Name: "array_append", Group: gCollection, Signature: "array_append(array, element)", Returns: "array",
		Bind: bindArrayPlusElement(false),
		Doc:  "`array` with `element` added at the end (a NULL element too); NULL when `array` is NULL.",
		Examples: ex("array_append(array('b', 'd', 'c', 'a'), 'd')", `["b","d","c","a","d"]`, "array_append(array(1, 2, 3, null), null)", "[1,2,3,null,null]",
			"array_append(CAST(null as Array<Int>), 2)", "NULL")})
	def(fn.Scalar{Name: "array_prepend", Group: gCollection, Signature: "array_prepend(array, element)", Returns: "array",
		Bind: bindArrayPlusElement(true),
		Doc:  "`array` with `element` added at the start (a NULL element too); NULL when `array` is NULL.",
		Examples: ex("array_prepend(array('b', 'd', 'c', 'a'), 'd')", `["d","b","d","c","a"]`, "array_prepend(array(1, 2, 3, null), null)", "[null,1,2,3,null]",
			"array_prepend(CAST(null as Array<Int>), 2)", "NULL")})
	def(fn.Scalar{Name: "array_compact", Group: gCollection, Signature: "array_compact(array)", Returns: "array",
		Bind:     bindArrayFilter(func(vals arrow.Array, j int) bool { return !nullAt(vals, j) }),
		Doc:      "`array` without its NULL elements.",
		Examples: ex("array_compact(array(1, 2, 3, null))", "[1,2,3]", `array_compact(array("a", "b", "c"))`, `["a","b","c"]`)})
	def(fn.Scalar{Name: "array_distinct", Group: gCollection, Signature: "array_distinct(array)", Returns: "array", Bind: bindSetOp("distinct"),
		Doc:      "The distinct elements of `array` in their first order (one NULL at most).",
		Examples: ex("array_distinct(array(1, 2, 3, null, 3))", "[1,2,3,null]")})
	def(fn.Scalar{Name: "array_union", Group: gCollection, Signature: "array_union(array1, array2)", Returns: "array", Bind: bindSetOp("union"),
		Doc:      "The distinct elements of both arrays, in order of first appearance.",
		Examples: ex("array_union(array(1, 2, 3), array(1, 3, 5))", "[1,2,3,5]")})
	def(fn.Scalar{Name: "array_intersect", Group: gCollection, Signature: "array_intersect(array1, array2)", Returns: "array", Bind: bindSetOp("intersect"),
		Doc:      "The distinct elements of `array1` that `array2` holds too.",
		Examples: ex("array_intersect(array(1, 2, 3), array(1, 3, 5))", "[1,3]")})
	def(fn.Scalar{Name: "array_except", Group: gCollection, Signature: "array_except(array1, array2)", Returns: "array", Bind: bindSetOp("except"),
		Doc:      "The distinct elements of `array1` that `array2` does not hold.",
		Examples: ex("array_except(array(1, 2, 3), array(1, 3, 5))", "[2]")})
	def(fn.Scalar{Name: "arrays_overlap", Group: gCollection, Signature: "arrays_overlap(a1, a2)", Returns: "boolean", Bind: bindArraysOverlap,
		Doc: "Whether the arrays share a non-NULL element; NULL when they do not but both are non-empty and one holds a NULL.",
		Examples: ex("arrays_overlap(array(1, 2, 3), array(3, 4, 5))", "true", "arrays_overlap(array(1, 2), array(3, 4))", "false",
			"arrays_overlap(array(1, null), array(3, 4))", "NULL")})
	def(fn.Scalar{Name: "array_insert", Group: gCollection, Signature: "array_insert(x, pos, val)", Returns: "array", Bind: bindArrayInsert,
		Doc: "`x` with `val` inserted at 1-based position `pos`; a negative `pos` counts from the end (-1 inserts after the last element); " +
			"a position beyond either end pads with NULLs. `pos` 0 is an error.",
		Examples: ex("array_insert(array(1, 2, 3, 4), 5, 5)", "[1,2,3,4,5]", "array_insert(array(5, 4, 3, 2), -1, 1)", "[5,4,3,2,1]",
			"array_insert(array(5, 3, 2, 1), -4, 4)", "[5,4,3,2,1]", "array_insert(array(1, 2), 4, 9)", "[1,2,null,9]")})
	def(fn.Scalar{Name: "array_join", Group: gCollection, Signature: "array_join(array, delimiter[, nullReplacement])", Returns: "string",
		Bind: bindArrayJoin,
		Doc:  "The elements (as strings) joined with `delimiter`; NULL elements are skipped, or replaced by `nullReplacement`.",
		Examples: ex("array_join(array('hello', 'world'), ' ')", "hello world", "array_join(array('hello', null ,'world'), ' ')", "hello world",
			"array_join(array('hello', null ,'world'), ' ', ',')", "hello , world", "array_join(array(1, 2), '-')", "1-2")})
	def(fn.Scalar{Name: "array_max", Group: gCollection, Signature: "array_max(array)", Returns: "the element type", Bind: bindArrayExtreme(1),
		Doc:      "The largest non-NULL element (NaN is the largest double); NULL for an empty array.",
		Examples: ex("array_max(array(1, 20, null, 3))", "20")})
	def(fn.Scalar{Name: "array_min", Group: gCollection, Signature: "array_min(array)", Returns: "the element type", Bind: bindArrayExtreme(-1),
		Doc:      "The smallest non-NULL element; NULL for an empty array.",
		Examples: ex("array_min(array(1, 20, null, 3))", "1")})
	def(fn.Scalar{Name: "array_position", Group: gCollection, Signature: "array_position(array, element)", Returns: "bigint", Bind: bindArrayPosition,
		Doc:      "The 1-based position of the first `element` in `array`; 0 when absent.",
		Examples: ex("array_position(array(312, 773, 708, 708), 708)", "3", "array_position(array(312, 773, 708, 708), 414)", "0")})
	def(fn.Scalar{Name: "array_remove", Group: gCollection, Signature: "array_remove(array, element)", Returns: "array", Bind: bindArrayRemove,
		Doc:      "`array` without the elements equal to `element`.",
		Examples: ex("array_remove(array(1, 2, 3, null, 3), 3)", "[1,2,null]")})
	def(fn.Scalar{Name: "array_repeat", Group: gCollection, Signature: "array_repeat(element, count)", Returns: "array of the element's type",
		Bind:     bindArrayRepeat,
		Doc:      "An array of `count` copies of `element` (empty for `count` below 1).",
		Examples: ex("array_repeat('123', 2)", `["123","123"]`, "array_repeat(NULL, 2)", "[null,null]")})
	def(fn.Scalar{Name: "array_size", Group: gCollection, Signature: "array_size(expr)", Returns: "int",
		Bind: func(args []fn.Arg) (fn.Bound, error) {
			if _, err := listArg(args, 0, 1); err != nil {
				return fn.Bound{}, err
			}
			return rows("a", int32Type, always(func(r row) int32 {
				s, e := r.a[0].(*array.List).ValueOffsets(r.i)
				return int32(e - s)
			}))(args)
		},
		Doc:      "The number of elements of an array; NULL for NULL.",
		Examples: ex("array_size(array('b', 'd', 'c', 'a'))", "4")})
	def(fn.Scalar{Name: "array_sort", Group: gCollection, Signature: "array_sort(array)", Returns: "array", Bind: bindSortArray(true, false),
		Doc: "`array` in ascending order, NULLs last. (With a comparator lambda, `array_sort(array, (l, r) -> …)`, it is a " +
			"higher-order function of the executor.)",
		Examples: ex("array_sort(array('b', 'd', null, 'c', 'a'))", `["a","b","c","d",null]`)},
		pretty(func(name string, args []string) string {
			if len(args) == 1 {
				args = []string{args[0], defaultComparatorName}
			}
			return callName(name, args)
		}))
	def(fn.Scalar{Name: "sort_array", Group: gCollection, Signature: "sort_array(array[, ascendingOrder])", Returns: "array", Bind: bindSortArray(true, true),
		Doc:      "`array` sorted ascending (NULLs first) or, with `ascendingOrder` false, descending (NULLs last).",
		Examples: ex("sort_array(array('b', 'd', null, 'c', 'a'), true)", `[null,"a","b","c","d"]`, "sort_array(array('b', 'd', null, 'c', 'a'), false)", `["d","c","b","a",null]`)},
		pretty(withDefaults(2, "true")))
	def(fn.Scalar{Name: "arrays_zip", Group: gCollection, Signature: "arrays_zip(a1, a2, …)", Returns: "array<struct<…>>", Bind: bindArraysZip,
		Doc: "An array of structs whose n-th holds the n-th element of each array (NULL past a shorter one). The fields are named " +
			"after the arguments that are columns, otherwise `0`, `1`, ….",
		Examples: ex("arrays_zip(array(1, 2, 3), array(2, 3, 4))", `[{"0":1,"1":2},{"0":2,"1":3},{"0":3,"1":4}]`,
			"arrays_zip(array(1, 2), array(2, 3), array(3, 4))", `[{"0":1,"1":2,"2":3},{"0":2,"1":3,"2":4}]`)})
	def(fn.Scalar{Name: "flatten", Group: gCollection, Signature: "flatten(arrayOfArrays)", Returns: "array", Bind: bindFlatten,
		Doc:      "The inner arrays one after the other; NULL when one of them is NULL.",
		Examples: ex("flatten(array(array(1, 2), array(3, 4)))", "[1,2,3,4]")})
	def(fn.Scalar{Name: "get", Group: gCollection, Signature: "get(array, index)", Returns: "the element type", Bind: bindGet,
		Doc:      "Element `index` of `array`, 0-based; NULL out of range.",
		Examples: ex("get(array(1, 2, 3), 0)", "1", "get(array(1, 2, 3), 3)", "NULL", "get(array(1, 2, 3), -1)", "NULL")})
	def(fn.Scalar{Name: "sequence", Group: gCollection, Signature: "sequence(start, stop[, step])", Returns: "array of the integer type, or of dates/timestamps",
		Bind: bindSequence,
		Doc: "The integers from `start` to `stop` inclusive, `step` apart (1 or -1 by default); dates and timestamps go by an " +
			"interval `step` (a day, or minus a day, by default; a date sequence by whole days or months), element k being `start` " +
			"plus k steps. A `step` that moves away from `stop` is an error.",
		Examples: ex("sequence(1, 5)", "[1,2,3,4,5]", "sequence(5, 1)", "[5,4,3,2,1]", "sequence(1, 10, 4)", "[1,5,9]",
			"sequence(to_date('2018-01-01'), to_date('2018-01-03'))", "[2018-01-01,2018-01-02,2018-01-03]",
			"sequence(to_date('2018-01-31'), to_date('2018-04-30'), interval 1 month)", "[2018-01-31,2018-02-28,2018-03-31,2018-04-30]")})
	def(fn.Scalar{Name: "shuffle", Group: gCollection, Signature: "shuffle(array)", Returns: "array", Bind: bindShuffle, Nondeterministic: true,
		Doc: "A random permutation of `array`, different on every call."})
	def(fn.Scalar{Name: "slice", Group: gCollection, Signature: "slice(x, start, length)", Returns: "array", Bind: bindSlice,
		Doc:      "`length` elements of `x` from 1-based `start` (negative counts from the end). `start` 0 or a negative `length` is an error.",
		Examples: ex("slice(array(1, 2, 3, 4), 2, 2)", "[2,3]", "slice(array(1, 2, 3, 4), -2, 2)", "[3,4]", "slice(array(1, 2), 5, 1)", "[]")})
	def(fn.Scalar{Name: "reverse", Group: gCollection, Signature: "reverse(array | str)", Returns: "type of the argument", Bind: bindReverse,
		Doc:      "The elements of an array, or the characters of a string, in reverse order.",
		Examples: ex("reverse('Spark SQL')", "LQS krapS", "reverse(array(2, 1, 4, 3))", "[3,4,1,2]")})
}

// listArg checks that args[i] is an array (or NULL) and that there are
// want arguments.
func listArg(args []fn.Arg, i, want int) (*arrow.ListType, error) {
	if err := arity(args, want, want); err != nil {
		return nil, err
	}
	switch t := args[i].Type.(type) {
	case *arrow.ListType:
		return t, nil
	case *arrow.NullType:
		return arrow.ListOf(arrow.Null), nil
	}
	return nil, argErr(i, args[i], "an array")
}

// elementOf widens an array's element type with a value's type.
func elementOf(lt *arrow.ListType, v arrow.DataType, i int) (arrow.DataType, error) {
	elem, ok := commonType(lt.Elem(), v)
	if !ok {
		return nil, fmt.Errorf("argument %d must be of the array's element type %s, got %s", i+1, sparkName(lt.Elem()), sparkName(v))
	}
	return elem, nil
}

// listPos is the element range of row i of a list.
func listPos(a arrow.Array, i int) (int64, int64) { return a.(*array.List).ValueOffsets(i) }

func listValues(a arrow.Array) arrow.Array { return a.(*array.List).ListValues() }

func bindArrayPlusElement(prepend bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		lt, err := listArg(args, 0, 2)
		if err != nil {
			return fn.Bound{}, err
		}
		elem, err := elementOf(lt, args[1].Type, 1)
		if err != nil {
			return fn.Bound{}, err
		}
		out := arrow.ListOf(elem)
		return fn.Bound{Type: out, Args: []arrow.DataType{out, elem}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			vals := listValues(a[0])
			all, err := array.Concatenate([]arrow.Array{vals, a[1]}, ctx.Mem)
			if err != nil {
				return nil, err
			}
			defer all.Release()
			base := int64(vals.Len())
			return listsOf(ctx, elem, all, n, a[:1], func(i int, idx []int64) ([]int64, bool, error) {
				s, e := listPos(a[0], i)
				if prepend {
					idx = append(idx, base+int64(i))
				}
				idx = appendRange(idx, s, e)
				if !prepend {
					idx = append(idx, base+int64(i))
				}
				return idx, true, nil
			})
		}}, nil
	}
}

// bindArrayFilter keeps the elements keep accepts.
func bindArrayFilter(keep func(vals arrow.Array, j int) bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		lt, err := listArg(args, 0, 1)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: lt, Args: []arrow.DataType{lt}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			vals := listValues(a[0])
			return listsOf(ctx, lt.Elem(), vals, n, a[:1], func(i int, idx []int64) ([]int64, bool, error) {
				s, e := listPos(a[0], i)
				for j := s; j < e; j++ {
					if keep(vals, int(j)) {
						idx = append(idx, j)
					}
				}
				return idx, true, nil
			})
		}}, nil
	}
}

// elemSet collects distinct elements of one values array.
type elemSet struct {
	vals    arrow.Array
	keys    map[string]struct{}
	members []int64
	null    bool
}

func newElemSet(vals arrow.Array) *elemSet {
	return &elemSet{vals: vals, keys: map[string]struct{}{}}
}

// key is a map key for a flat element, or "" to compare one by one.
func (s *elemSet) key(j int64) (string, bool) {
	switch v := s.vals.(type) {
	case *array.String:
		return v.Value(int(j)), true
	case *array.Int64:
		return strconv.FormatInt(v.Value(int(j)), 10), true
	case *array.Int32:
		return strconv.FormatInt(int64(v.Value(int(j))), 10), true
	}
	return "", false
}

func (s *elemSet) has(j int64) bool {
	if nullAt(s.vals, int(j)) {
		return s.null
	}
	if k, ok := s.key(j); ok {
		_, found := s.keys[k]
		return found
	}
	for _, m := range s.members {
		if equalAt(s.vals, int(m), s.vals, int(j)) {
			return true
		}
	}
	return false
}

// add records element j; it reports whether it was new.
func (s *elemSet) add(j int64) bool {
	if s.has(j) {
		return false
	}
	if nullAt(s.vals, int(j)) {
		s.null = true
		return true
	}
	if k, ok := s.key(j); ok {
		s.keys[k] = struct{}{}
	} else {
		s.members = append(s.members, j)
	}
	return true
}

func (s *elemSet) reset() {
	clear(s.keys)
	s.members, s.null = s.members[:0], false
}

// bindSetOp is array_distinct, array_union, array_intersect and
// array_except.
func bindSetOp(op string) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		want := 2
		if op == "distinct" {
			want = 1
		}
		in := make([]arrow.DataType, want)
		var elem arrow.DataType = arrow.Null
		for i := 0; i < want; i++ {
			lt, err := listArg(args, i, want)
			if err != nil {
				return fn.Bound{}, err
			}
			if elem, err = elementOf(arrow.ListOf(elem), lt.Elem(), i); err != nil {
				return fn.Bound{}, err
			}
		}
		out := arrow.ListOf(elem)
		for i := range in {
			in[i] = out
		}
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			var lists []arrow.Array
			for _, x := range a {
				lists = append(lists, listValues(x))
			}
			all, err := concatOrNull(ctx.Mem, elem, lists)
			if err != nil {
				return nil, err
			}
			defer all.Release()
			base := int64(0)
			if len(lists) == 2 {
				base = int64(lists[0].Len())
			}
			seen, other := newElemSet(all), newElemSet(all)
			return listsOf(ctx, elem, all, n, a, func(i int, idx []int64) ([]int64, bool, error) {
				seen.reset()
				other.reset()
				s1, e1 := listPos(a[0], i)
				switch op {
				case "distinct", "union":
					for j := s1; j < e1; j++ {
						if seen.add(j) {
							idx = append(idx, j)
						}
					}
					if op == "union" {
						s2, e2 := listPos(a[1], i)
						for j := base + s2; j < base+e2; j++ {
							if seen.add(j) {
								idx = append(idx, j)
							}
						}
					}
				default:
					s2, e2 := listPos(a[1], i)
					for j := base + s2; j < base+e2; j++ {
						other.add(j)
					}
					for j := s1; j < e1; j++ {
						if other.has(j) == (op == "intersect") && seen.add(j) {
							idx = append(idx, j)
						}
					}
				}
				return idx, true, nil
			})
		}}, nil
	}
}

func bindArraysOverlap(args []fn.Arg) (fn.Bound, error) {
	b, err := bindSetOp("union")(args)
	if err != nil {
		return b, err
	}
	elem := b.Type.(*arrow.ListType).Elem()
	b.Type = boolType
	b.Eval = func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		all, err := concatOrNull(ctx.Mem, elem, []arrow.Array{listValues(a[0]), listValues(a[1])})
		if err != nil {
			return nil, err
		}
		defer all.Release()
		base := int64(listValues(a[0]).Len())
		set := newElemSet(all)
		return rowsOf(ctx, boolType, a, n, func(r row) (bool, bool) {
			set.reset()
			s1, e1 := listPos(a[0], r.i)
			s2, e2 := listPos(a[1], r.i)
			sawNull := false
			for j := s1; j < e1; j++ {
				if nullAt(all, int(j)) {
					sawNull = true
				} else {
					set.add(j)
				}
			}
			for j := base + s2; j < base+e2; j++ {
				if nullAt(all, int(j)) {
					sawNull = true
				} else if set.has(j) {
					return true, true
				}
			}
			if sawNull && e1 > s1 && e2 > s2 {
				return false, false
			}
			return false, true
		}), nil
	}
	return b, nil
}

func bindArrayInsert(args []fn.Arg) (fn.Bound, error) {
	lt, err := listArg(args, 0, 3)
	if err != nil {
		return fn.Bound{}, err
	}
	if _, err := intArg(args, 1, int32Type); err != nil {
		return fn.Bound{}, err
	}
	if v, null, ok := constInt(args[1]); ok && !null && v == 0 {
		return fn.Bound{}, fmt.Errorf("argument 2: array_insert positions start at 1 (or -1 from the end), got 0")
	}
	elem, err := elementOf(lt, args[2].Type, 2)
	if err != nil {
		return fn.Bound{}, err
	}
	out := arrow.ListOf(elem)
	return fn.Bound{Type: out, Args: []arrow.DataType{out, int32Type, elem}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		vals := listValues(a[0])
		all, err := array.Concatenate([]arrow.Array{vals, a[2]}, ctx.Mem)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		base := int64(vals.Len())
		return listsOf(ctx, elem, all, n, a[:2], func(i int, idx []int64) ([]int64, bool, error) {
			s, e := listPos(a[0], i)
			size := e - s
			pos := int64(a[1].(*array.Int32).Value(i))
			item := base + int64(i)
			switch {
			case pos == 0:
				return nil, false, fmt.Errorf("argument 2: array_insert positions start at 1 (or -1 from the end), got 0")
			case pos < 0 && -pos > size:
				idx = append(idx, item)
				for p := size + 1; p < -pos; p++ {
					idx = append(idx, -1)
				}
				idx = appendRange(idx, s, e)
			default:
				at := pos - 1
				if pos < 0 {
					at = size + pos + 1
				}
				for j := int64(0); j < max(at, size); j++ {
					if j == at {
						break
					}
					if j < size {
						idx = append(idx, s+j)
					} else {
						idx = append(idx, -1)
					}
				}
				idx = append(idx, item)
				for j := at; j < size; j++ {
					idx = append(idx, s+j)
				}
			}
			return idx, true, nil
		})
	}}, nil
}

func bindArrayJoin(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 3); err != nil {
		return fn.Bound{}, err
	}
	lt, err := listArg(args[:1], 0, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	if !isAtomic(lt.Elem()) {
		return fn.Bound{}, argErr(0, args[0], "an array of strings")
	}
	in, err := signature(args, "as|s")
	if err != nil {
		return fn.Bound{}, err
	}
	in[0] = arrow.ListOf(stringType)
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		elems := listValues(a[0]).(*array.String)
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			r := row{a: a, i: i}
			sep := r.str(1, "")
			s, e := listPos(a[0], i)
			first := true
			for j := s; j < e; j++ {
				var v string
				switch {
				case !nullAt(elems, int(j)):
					v = elems.Value(int(j))
				case len(a) == 3:
					v = r.str(2, "")
				default:
					continue
				}
				if !first {
					dst = append(dst, sep...)
				}
				first = false
				dst = append(dst, v...)
			}
			return dst, true, nil
		})
	}}, nil
}

// orderAt orders valid values a[i] and b[j] of one type, nested ones
// too: structs field by field, arrays element by element (NULL first),
// then by length.
func orderAt(a arrow.Array, i int, b arrow.Array, j int) int {
	switch x := a.(type) {
	case *array.Struct:
		y := b.(*array.Struct)
		for f := 0; f < x.NumField(); f++ {
			if c := orderNullsFirst(x.Field(f), i, y.Field(f), j); c != 0 {
				return c
			}
		}
		return 0
	case *array.List:
		y := b.(*array.List)
		s1, e1 := x.ValueOffsets(i)
		s2, e2 := y.ValueOffsets(j)
		for k := int64(0); k < min(e1-s1, e2-s2); k++ {
			if c := orderNullsFirst(x.ListValues(), int(s1+k), y.ListValues(), int(s2+k)); c != 0 {
				return c
			}
		}
		return cmp.Compare(e1-s1, e2-s2)
	case *array.Null:
		return 0
	}
	return compareAt(a, i, b, j)
}

func orderNullsFirst(a arrow.Array, i int, b arrow.Array, j int) int {
	an, bn := nullAt(a, i), nullAt(b, j)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	return orderAt(a, i, b, j)
}

func orderable(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.MapType:
		return false
	case *arrow.ListType:
		return orderable(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if !orderable(f.Type) {
				return false
			}
		}
		return true
	}
	return flatType(dt) || dt.ID() == arrow.NULL
}

func bindArrayExtreme(dir int) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		lt, err := listArg(args, 0, 1)
		if err != nil {
			return fn.Bound{}, err
		}
		if !orderable(lt.Elem()) {
			return fn.Bound{}, argErr(0, args[0], "an array of an orderable type")
		}
		return fn.Bound{Type: lt.Elem(), Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			vals := listValues(a[0])
			idx := make([]int64, n)
			for i := range idx {
				idx[i] = -1
				if nullAt(a[0], i) {
					continue
				}
				s, e := listPos(a[0], i)
				for j := s; j < e; j++ {
					if !nullAt(vals, int(j)) && (idx[i] < 0 || orderAt(vals, int(j), vals, int(idx[i]))*dir > 0) {
						idx[i] = j
					}
				}
			}
			return takeValues(ctx.Mem, vals, idx)
		}}, nil
	}
}

// bindFind binds f(array, element) with element cast to the array's
// element type (widened).
func bindFind(args []fn.Arg) (*arrow.ListType, arrow.DataType, error) {
	lt, err := listArg(args, 0, 2)
	if err != nil {
		return nil, nil, err
	}
	elem, err := elementOf(lt, args[1].Type, 1)
	if err != nil {
		return nil, nil, err
	}
	return arrow.ListOf(elem), elem, nil
}

func bindArrayPosition(args []fn.Arg) (fn.Bound, error) {
	lt, elem, err := bindFind(args)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: int64Type, Args: []arrow.DataType{lt, elem}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		vals := listValues(a[0])
		return rowsOf(ctx, int64Type, a, n, func(r row) (int64, bool) {
			s, e := listPos(a[0], r.i)
			for j := s; j < e; j++ {
				if !nullAt(vals, int(j)) && equalAt(vals, int(j), a[1], r.i) {
					return j - s + 1, true
				}
			}
			return 0, true
		}), nil
	}}, nil
}

func bindArrayRemove(args []fn.Arg) (fn.Bound, error) {
	lt, elem, err := bindFind(args)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: lt, Args: []arrow.DataType{lt, elem}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		vals := listValues(a[0])
		return listsOf(ctx, elem, vals, n, a, func(i int, idx []int64) ([]int64, bool, error) {
			s, e := listPos(a[0], i)
			for j := s; j < e; j++ {
				if nullAt(vals, int(j)) || !equalAt(vals, int(j), a[1], i) {
					idx = append(idx, j)
				}
			}
			return idx, true, nil
		})
	}}, nil
}

func bindArrayRepeat(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	if _, err := intArg(args, 1, int32Type); err != nil {
		return fn.Bound{}, err
	}
	elem := args[0].Type
	return fn.Bound{Type: arrow.ListOf(elem), Args: []arrow.DataType{nil, int32Type}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		count := a[1].(*array.Int32)
		return listsOf(ctx, elem, a[0], n, []arrow.Array{count}, func(i int, idx []int64) ([]int64, bool, error) {
			c := max(int(count.Value(i)), 0)
			for k := 0; k < c; k++ {
				idx = append(idx, int64(i))
			}
			return idx, true, nil
		})
	}}, nil
}

// bindSortArray is sort_array(array[, asc]) (NULLs first ascending, last
// descending) and, with nullsLast, array_sort(array).
func bindSortArray(ascDefault, sortArray bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		want := 1
		if sortArray && len(args) == 2 {
			want = 2
		}
		lt, err := listArg(args, 0, want)
		if err != nil {
			return fn.Bound{}, err
		}
		if !orderable(lt.Elem()) {
			return fn.Bound{}, argErr(0, args[0], "an array of an orderable type")
		}
		asc := ascDefault
		in := []arrow.DataType{nil}
		if want == 2 {
			v, isBool := args[1].Value.(bool)
			if !args[1].Const || !isBool || args[1].Type.ID() != arrow.BOOL {
				return fn.Bound{}, fmt.Errorf("argument 2 must be a boolean literal")
			}
			asc = v
			in = append(in, nil)
		}
		nullsFirst := sortArray && asc
		return fn.Bound{Type: lt, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			vals := listValues(a[0])
			return listsOf(ctx, lt.Elem(), vals, n, a[:1], func(i int, idx []int64) ([]int64, bool, error) {
				k := len(idx)
				s, e := listPos(a[0], i)
				idx = appendRange(idx, s, e)
				part := idx[k:]
				slices.SortStableFunc(part, func(x, y int64) int {
					xn, yn := nullAt(vals, int(x)), nullAt(vals, int(y))
					switch {
					case xn && yn:
						return 0
					case xn != yn:
						if xn == nullsFirst {
							return -1
						}
						return 1
					}
					c := orderAt(vals, int(x), vals, int(y))
					if !asc {
						c = -c
					}
					return c
				})
				return idx, true, nil
			})
		}}, nil
	}
}

func bindArraysZip(args []fn.Arg) (fn.Bound, error) {
	fields := make([]arrow.Field, len(args))
	for i := range args {
		lt, err := listArg(args, i, len(args))
		if err != nil {
			return fn.Bound{}, err
		}
		name := args[i].Name
		if name == "" {
			name = strconv.Itoa(i)
		}
		fields[i] = arrow.Field{Name: name, Type: lt.Elem(), Nullable: true}
	}
	st := arrow.StructOf(fields...)
	return fn.Bound{Type: arrow.ListOf(st), Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewListBuilder(ctx.Mem, st)
		defer b.Release()
		// Gather per field, then assemble the struct from the taken columns.
		idx := make([][]int64, len(a))
		offsets := []int32{0}
		valid := make([]bool, n)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				offsets = append(offsets, offsets[len(offsets)-1])
				continue
			}
			valid[i] = true
			longest := int64(0)
			for _, x := range a {
				s, e := listPos(x, i)
				longest = max(longest, e-s)
			}
			for f, x := range a {
				s, e := listPos(x, i)
				for k := int64(0); k < longest; k++ {
					if s+k < e {
						idx[f] = append(idx[f], s+k)
					} else {
						idx[f] = append(idx[f], -1)
					}
				}
			}
			offsets = append(offsets, offsets[len(offsets)-1]+int32(longest))
		}
		children := make([]arrow.ArrayData, len(a))
		length := int(offsets[len(offsets)-1])
		for f, x := range a {
			col, err := takeValues(ctx.Mem, listValues(x), idx[f])
			if err != nil {
				return nil, err
			}
			defer col.Release()
			if col.Len() != length { // no rows at all
				col.Release()
				col = fn.NullArray(ctx.Mem, fields[f].Type, length)
			}
			children[f] = col.Data()
		}
		structs := array.NewData(st, length, []*memory.Buffer{nil}, children, 0, 0)
		defer structs.Release()
		lb := &listOut{mem: ctx.Mem, elem: st, offsets: offsets, valid: valid}
		for _, v := range valid {
			if !v {
				lb.nulls++
			}
		}
		return lb.wrap(arrow.ListOf(st), structs), nil
	}}, nil
}

func bindFlatten(args []fn.Arg) (fn.Bound, error) {
	lt, err := listArg(args, 0, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	inner, ok := lt.Elem().(*arrow.ListType)
	if !ok {
		return fn.Bound{}, argErr(0, args[0], "an array of arrays")
	}
	return fn.Bound{Type: inner, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		mid := listValues(a[0])
		return listsOf(ctx, inner.Elem(), listValues(mid), n, a, func(i int, idx []int64) ([]int64, bool, error) {
			s, e := listPos(a[0], i)
			for j := s; j < e; j++ {
				if nullAt(mid, int(j)) {
					return idx, false, nil
				}
				s2, e2 := listPos(mid, int(j))
				idx = appendRange(idx, s2, e2)
			}
			return idx, true, nil
		})
	}}, nil
}

func bindGet(args []fn.Arg) (fn.Bound, error) {
	lt, err := listArg(args, 0, 2)
	if err != nil {
		return fn.Bound{}, err
	}
	if _, err := intArg(args, 1, int32Type); err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: lt.Elem(), Args: []arrow.DataType{nil, int32Type}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		idx := make([]int64, n)
		for i := range idx {
			idx[i] = -1
			if anyNull(a, i) {
				continue
			}
			s, e := listPos(a[0], i)
			if p := int64(a[1].(*array.Int32).Value(i)); p >= 0 && s+p < e {
				idx[i] = s + p
			}
		}
		return takeValues(ctx.Mem, listValues(a[0]), idx)
	}}, nil
}

// maxSequence is the longest array Spark builds (ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH).
const maxSequence = 1<<31 - 1 - 15

func bindSequence(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 3); err != nil {
		return fn.Bound{}, err
	}
	t, err := commonOf(args[:2], 0)
	if err != nil {
		return fn.Bound{}, err
	}
	if isTimeLike(t) {
		if len(args) == 3 {
			if !sparktype.IsInterval(args[2].Type) && !isNull(args[2].Type) {
				return fn.Bound{}, argErr(2, args[2], "an interval (the step of a date or timestamp sequence)")
			}
			return bindSequenceInterval(args, t)
		}
		return bindSequenceDays(args, t)
	}
	if isNull(t) {
		t = int32Type
	}
	if !isIntegral(t) {
		return fn.Bound{}, fmt.Errorf("arguments must be integers, dates or timestamps, got %s", sparkName(t))
	}
	in := []arrow.DataType{t, t, t}[:len(args)]
	if len(args) == 3 && !isIntegral(args[2].Type) && !isNull(args[2].Type) {
		return fn.Bound{}, argErr(2, args[2], "an integer")
	}
	return fn.Bound{Type: arrow.ListOf(t), Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewListBuilder(ctx.Mem, t)
		defer b.Release()
		vb := b.ValueBuilder()
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				b.AppendNull()
				continue
			}
			start, stop := fn.IntValue(a[0], i), fn.IntValue(a[1], i)
			step := int64(1)
			if stop < start {
				step = -1
			}
			if len(a) == 3 {
				step = fn.IntValue(a[2], i)
			}
			if !(step > 0 && start <= stop || step < 0 && start >= stop || step == 0 && start == stop) {
				return nil, fmt.Errorf("illegal sequence boundaries: %d to %d by %d", start, stop, step)
			}
			count := int64(1)
			if step != 0 {
				count = (stop-start)/step + 1
			}
			if count > maxSequence {
				return nil, fmt.Errorf("sequence of %d elements is too long (at most %d)", count, maxSequence)
			}
			b.Append(true)
			for k, v := int64(0), start; k < count; k, v = k+1, v+step {
				appendInt(vb, v)
			}
		}
		return b.NewArray(), nil
	}}, nil
}

// bindSequenceInterval is sequence(start, stop, step) of dates or
// timestamps by an interval (docs/sql.md#intervals): element k is start
// plus k × step — months and days on the wall-clock time in the session
// time zone, the rest exactly — up to stop. A date sequence steps by
// whole days or months.
func bindSequenceInterval(args []fn.Arg, t arrow.DataType) (fn.Bound, error) {
	if t.ID() == arrow.TIMESTAMP {
		t = timestampType
	}
	date := t.ID() == arrow.DATE32
	return fn.Bound{Type: arrow.ListOf(t), Args: []arrow.DataType{t, t, nil}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewListBuilder(ctx.Mem, t)
		defer b.Release()
		for i := 0; i < n; i++ {
			if anyNull(a, i) || a[2].DataType().ID() == arrow.NULL {
				b.AppendNull()
				continue
			}
			var months, days, micros int64
			switch s := a[2].(type) {
			case *array.Duration:
				micros = int64(s.Value(i))
			case *array.MonthInterval:
				months = int64(s.Value(i))
			case *array.MonthDayNanoInterval:
				v := s.Value(i)
				months, days, micros = int64(v.Months), int64(v.Days), v.Nanoseconds/1000
			}
			if date {
				if micros%usPerDay != 0 {
					return nil, fmt.Errorf("sequence step must be a day interval if start and end values are dates")
				}
				days, micros = days+micros/usPerDay, 0
			}
			// The direction, with a month counted as 28 days.
			dir := months*28*usPerDay + days*usPerDay + micros
			r := row{a: a, i: i, loc: ctx.Loc()}
			var start, stop int64
			if date {
				start, stop = int64(r.days(0)), int64(r.days(1))
			} else {
				start, stop = r.micros(0), r.micros(1)
			}
			if dir == 0 && start != stop || dir > 0 && start > stop || dir < 0 && start < stop {
				text := func(k int) string { return string(fn.AppendSparkString(nil, a[k], i, r.loc)) }
				return nil, fmt.Errorf("illegal sequence boundaries: %s to %s by %s", text(0), text(1), text(2))
			}
			b.Append(true)
			for k := int64(0); ; k++ {
				if k >= maxSequence {
					return nil, fmt.Errorf("sequence of more than %d elements is too long", maxSequence)
				}
				var v int64
				if date {
					d, ok := sparktype.AddMonthsToDays(int32(start), k*months)
					if !ok {
						return nil, fmt.Errorf("sequence: the date is out of range")
					}
					v = int64(d) + k*days
				} else {
					wall := sparktype.WallMicros(start, r.loc)
					day := floorDivInt(wall, usPerDay)
					d, ok := sparktype.AddMonthsToDays(int32(day), k*months)
					if !ok {
						return nil, fmt.Errorf("sequence: the timestamp is out of range")
					}
					wall = (int64(d)+k*days)*usPerDay + (wall - day*usPerDay)
					v = sparktype.FromWallMicros(wall, r.loc) + k*micros
				}
				if dir > 0 && v > stop || dir < 0 && v < stop || dir == 0 && k > 0 {
					break
				}
				if date {
					b.ValueBuilder().(*array.Date32Builder).Append(arrow.Date32(v))
				} else {
					b.ValueBuilder().(*array.TimestampBuilder).Append(arrow.Timestamp(fn.FromMicros(v, timestampType.Unit)))
				}
			}
		}
		return b.NewArray(), nil
	}}, nil
}

func bindSequenceDays(args []fn.Arg, t arrow.DataType) (fn.Bound, error) {
	if t.ID() == arrow.TIMESTAMP {
		t = timestampType
	}
	return fn.Bound{Type: arrow.ListOf(t), Args: []arrow.DataType{t, t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewListBuilder(ctx.Mem, t)
		defer b.Release()
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				b.AppendNull()
				continue
			}
			b.Append(true)
			if t.ID() == arrow.DATE32 {
				vb := b.ValueBuilder().(*array.Date32Builder)
				start, stop := int64(row{a: a, i: i}.days(0)), int64(row{a: a, i: i}.days(1))
				step := int64(1)
				if stop < start {
					step = -1
				}
				for d := start; (d-stop)*step <= 0; d += step {
					vb.Append(arrow.Date32(d))
				}
				continue
			}
			// A day is a calendar day in the session time zone.
			vb := b.ValueBuilder().(*array.TimestampBuilder)
			r := row{a: a, i: i, loc: ctx.Loc()}
			start, stop := r.wall(0), r.wall(1)
			step := int64(usPerDay)
			if stop < start {
				step = -step
			}
			for wall := start; (wall-stop)*(step/usPerDay) <= 0; wall += step {
				vb.Append(arrow.Timestamp(fn.FromMicros(sparktype.FromWallMicros(wall, r.loc), timestampType.Unit)))
			}
		}
		return b.NewArray(), nil
	}}, nil
}

func bindShuffle(args []fn.Arg) (fn.Bound, error) {
	lt, err := listArg(args, 0, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	return fn.Bound{Type: lt, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		vals := listValues(a[0])
		lb := newListOf(ctx, lt.Elem(), n)
		var idx []int64
		mu.Lock()
		defer mu.Unlock()
		for i := 0; i < n; i++ {
			if nullAt(a[0], i) {
				lb.appendNull()
				continue
			}
			s, e := listPos(a[0], i)
			k := len(idx)
			idx = appendRange(idx, s, e)
			part := idx[k:]
			rng.Shuffle(len(part), func(x, y int) { part[x], part[y] = part[y], part[x] })
			lb.appendLen(len(part))
		}
		return lb.finish(vals, idx)
	}}, nil
}

func bindSlice(args []fn.Arg) (fn.Bound, error) {
	lt, err := listArg(args, 0, 3)
	if err != nil {
		return fn.Bound{}, err
	}
	in, err := signature(args, "aii")
	if err != nil {
		return fn.Bound{}, err
	}
	if v, null, ok := constInt(args[1]); ok && !null && v == 0 {
		return fn.Bound{}, fmt.Errorf("argument 2: slice starts at 1 (or -1 from the end), got 0")
	}
	if v, null, ok := constInt(args[2]); ok && !null && v < 0 {
		return fn.Bound{}, fmt.Errorf("argument 3: the length must not be negative, got %d", v)
	}
	return fn.Bound{Type: lt, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		vals := listValues(a[0])
		return listsOf(ctx, lt.Elem(), vals, n, a, func(i int, idx []int64) ([]int64, bool, error) {
			r := row{a: a, i: i}
			start, length := r.int(1, 0), r.int(2, 0)
			if start == 0 {
				return nil, false, fmt.Errorf("argument 2: slice starts at 1 (or -1 from the end), got 0")
			}
			if length < 0 {
				return nil, false, fmt.Errorf("argument 3: the length must not be negative, got %d", length)
			}
			s, e := listPos(a[0], i)
			size := e - s
			from := start - 1
			if start < 0 {
				from = size + start
			}
			if from >= 0 {
				for j := from; j < min(from+length, size); j++ {
					idx = append(idx, s+j)
				}
			}
			return idx, true, nil
		})
	}}, nil
}

func bindReverse(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	if lt, ok := args[0].Type.(*arrow.ListType); ok {
		return fn.Bound{Type: lt, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			vals := listValues(a[0])
			return listsOf(ctx, lt.Elem(), vals, n, a[:1], func(i int, idx []int64) ([]int64, bool, error) {
				s, e := listPos(a[0], i)
				for j := e - 1; j >= s; j-- {
					idx = append(idx, j)
				}
				return idx, true, nil
			})
		}}, nil
	}
	return bindStrings("s", func(dst []byte, r row) []byte {
		rs := []rune(r.str(0, ""))
		for k := len(rs) - 1; k >= 0; k-- {
			dst = utf8.AppendRune(dst, rs[k])
		}
		return dst
	})(args)
}
