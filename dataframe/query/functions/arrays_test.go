package functions_test

import (
	"math"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

func TestArrayFunctions(t *testing.T) {
	t.Parallel()
	li := arrowList(i64)
	ls := arrowList(str)
	lli := arrowList(li)
	runCases(t, []fcase{
		{name: "widens", fn: "array_append", args: []in{col(arrowList(i32), []any{1}, nil), lit(f64, 2.5)}, typ: arrowList(f64), want: []any{[]any{1.0, 2.5}, nil}},
		{name: "element type", fn: "array_append", args: []in{lit(li, []any{1}), lit(li, []any{2})}, err: "argument 2 must be of the array's element type long, got array<long>"},
		{name: "not an array", fn: "array_prepend", args: []in{lit(str, "x"), lit(str, "y")}, err: "argument 1 must be an array, got string"},
		{name: "nulls and empties", fn: "array_compact", args: []in{col(li, []any{nil, 1, nil}, []any{}, nil)}, typ: li, want: []any{[]any{int64(1)}, []any{}, nil}},
		{name: "first order", fn: "array_distinct", args: []in{col(ls, []any{"b", "a", "b", nil, nil, "a"})}, want: []any{[]any{"b", "a", nil}}},
		{name: "nan equals nan", fn: "arrays_overlap", args: []in{col(arrowList(f64), []any{math.NaN(), 1.0}), lit(arrowList(f64), []any{math.NaN()})}, want: []any{true}},
		{name: "nan found", fn: "array_position", args: []in{col(arrowList(f64), []any{1.0, math.NaN()}), lit(f64, math.NaN())}, want: []any{int64(2)}},
		{name: "nulls", fn: "array_union", args: []in{col(li, []any{1, nil}), col(li, []any{nil, 2, 1})}, want: []any{[]any{int64(1), nil, int64(2)}}},
		{name: "mixed widths", fn: "array_union", args: []in{lit(arrowList(i32), []any{1}), lit(arrowList(f64), []any{1.5})}, typ: arrowList(f64), want: []any{[]any{1.0, 1.5}}},
		{name: "null in both", fn: "array_intersect", args: []in{col(li, []any{1, nil, 2, 1}), col(li, []any{nil, 1})}, want: []any{[]any{int64(1), nil}}},
		{name: "distinct result", fn: "array_except", args: []in{col(li, []any{1, 2, 2, nil}), col(li, []any{1})}, want: []any{[]any{int64(2), nil}}},
		{name: "nested elements", fn: "array_distinct", args: []in{col(lli, []any{[]any{1}, []any{1}, []any{2}})}, want: []any{[]any{[]any{int64(1)}, []any{int64(2)}}}},
		{name: "null semantics", fn: "arrays_overlap", args: []in{col(li, []any{1, 2}, []any{1, nil}, []any{nil}, []any{}), col(li, []any{2}, []any{3}, []any{}, []any{nil})},
			typ: boolT, want: []any{true, nil, false, false}},
		{name: "positions", fn: "array_insert", args: []in{lit(li, []any{1, 2}), col(i32, 1, 3, 4, -1, -3, -4), lit(i64, 9)},
			want: []any{[]any{int64(9), int64(1), int64(2)}, []any{int64(1), int64(2), int64(9)}, []any{int64(1), int64(2), nil, int64(9)},
				[]any{int64(1), int64(2), int64(9)}, []any{int64(9), int64(1), int64(2)}, []any{int64(9), nil, int64(1), int64(2)}}},
		{name: "zero", fn: "array_insert", args: []in{lit(li, []any{1}), lit(i32, 0), lit(i64, 9)}, err: "positions start at 1"},
		{name: "casts elements", fn: "array_join", args: []in{col(li, []any{1, nil, 3}), lit(str, "-"), lit(str, "?")}, typ: str, want: []any{"1-?-3"}},
		{name: "orderable", fn: "array_max", args: []in{col(arrowList(f64), []any{1.0, math.NaN(), nil}, []any{}, nil)}, typ: f64, want: []any{math.NaN(), nil, nil}},
		{name: "structs", fn: "array_min", args: []in{col(arrowList(arrowStruct()), []any{[]any{2}, []any{1}, nil})}, want: []any{map[string]any{"a": int64(1)}}},
		{name: "maps not orderable", fn: "array_max", args: []in{col(arrowList(strMap), []any{})}, err: "argument 1 must be an array of an orderable type"},
		{name: "found", fn: "array_position", args: []in{col(li, []any{3, 1, 1}, []any{nil}, nil), lit(i32, 1)}, typ: i64, want: []any{int64(2), int64(0), nil}},
		{name: "all", fn: "array_remove", args: []in{col(li, []any{1, 2, 1, nil}), col(i64, 1)}, want: []any{[]any{int64(2), nil}}},
		{name: "null element", fn: "array_remove", args: []in{col(li, []any{1}), lit(null, nil)}, want: []any{nil}},
		{name: "counts", fn: "array_repeat", args: []in{lit(str, "x"), col(i32, 2, 0, -1, nil)}, typ: ls, want: []any{[]any{"x", "x"}, []any{}, []any{}, nil}},
		{name: "null", fn: "array_size", args: []in{col(li, []any{1, 2}, nil)}, typ: i32, want: []any{int32(2), nil}},
		{name: "nulls last", fn: "array_sort", args: []in{col(li, []any{3, nil, 1})}, want: []any{[]any{int64(1), int64(3), nil}}},
		{name: "descending", fn: "sort_array", args: []in{col(li, []any{3, nil, 1}), lit(boolT, false)}, want: []any{[]any{int64(3), int64(1), nil}}},
		{name: "ascending nulls first", fn: "sort_array", args: []in{col(li, []any{3, nil, 1})}, want: []any{[]any{nil, int64(1), int64(3)}}},
		{name: "order not literal", fn: "sort_array", args: []in{col(li, []any{1}), col(boolT, true)}, err: "argument 2 must be a boolean literal"},
		{name: "uneven", fn: "arrays_zip", args: []in{col(li, []any{1, 2}, nil), col(ls, []any{"a"}, []any{"b"})},
			typ:  arrowList(arrow.StructOf(arrow.Field{Name: "0", Type: i64, Nullable: true}, arrow.Field{Name: "1", Type: str, Nullable: true})),
			want: []any{[]any{map[string]any{"0": int64(1), "1": "a"}, map[string]any{"0": int64(2), "1": nil}}, nil}},
		{name: "null inner", fn: "flatten", args: []in{col(lli, []any{[]any{1}, []any{2, 3}}, []any{[]any{1}, nil})}, typ: li, want: []any{[]any{int64(1), int64(2), int64(3)}, nil}},
		{name: "zero based", fn: "get", args: []in{lit(li, []any{1, 2}), col(i32, 0, 1, 2, -1, nil)}, typ: i64, want: []any{int64(1), int64(2), nil, nil, nil}},
		{name: "steps", fn: "sequence", args: []in{col(i32, 1, 5, 1), col(i32, 5, 1, 10), col(i32, 2, -2, 4)}, typ: arrowList(i32),
			want: []any{[]any{int32(1), int32(3), int32(5)}, []any{int32(5), int32(3), int32(1)}, []any{int32(1), int32(5), int32(9)}}},
		{name: "wrong direction", fn: "sequence", args: []in{lit(i32, 1), lit(i32, 5), lit(i32, -1)}, err: "illegal sequence boundaries: 1 to 5 by -1"},
		{name: "dates", fn: "sequence", args: []in{lit(str, "2020-01-03"), lit(date, tm("2020-01-01 00:00:00"))}, err: "arguments must be integers, dates or timestamps, got string"},
		{name: "negative", fn: "slice", args: []in{lit(li, []any{1, 2, 3, 4}), col(i32, -2, 3, 5), lit(i32, 5)}, typ: li,
			want: []any{[]any{int64(3), int64(4)}, []any{int64(3), int64(4)}, []any{}}},
		{name: "zero start", fn: "slice", args: []in{lit(li, []any{1}), lit(i32, 0), lit(i32, 1)}, err: "slice starts at 1"},
		{name: "negative length", fn: "slice", args: []in{lit(li, []any{1}), lit(i32, 1), col(i32, -1)}, err: "the length must not be negative"},
		{name: "array", fn: "reverse", args: []in{col(li, []any{1, nil, 3}, nil)}, typ: li, want: []any{[]any{int64(3), nil, int64(1)}, nil}},
		{name: "string", fn: "reverse", args: []in{col(str, "héllo")}, typ: str, want: []any{"olléh"}},
		{name: "permutation", fn: "shuffle", args: []in{col(li, []any{7})}, want: []any{[]any{int64(7)}}},
		{name: "index zero", fn: "try_element_at", args: []in{lit(li, []any{1}), col(i32, 0, 1)}, want: []any{nil, int64(1)}},
		{name: "array of maps", fn: "array", args: []in{lit(strMap, []any{"a", 1})}, typ: arrowList(strMap), want: []any{[]any{map[string]any{"a": int64(1)}}}},
	})
}

func TestMapFunctions(t *testing.T) {
	t.Parallel()
	im := arrow.MapOf(i64, str)
	runCases(t, []fcase{
		{name: "union", fn: "map_concat", args: []in{col(im, []any{1, "a"}, nil), lit(im, []any{2, "b"})}, typ: im, want: []any{map[string]any{"1": "a", "2": "b"}, nil}},
		{name: "duplicate", fn: "map_concat", args: []in{lit(im, []any{1, "a"}), lit(im, []any{1, "b"})}, err: "duplicate map key 1"},
		{name: "key type", fn: "map_contains_key", args: []in{col(im, []any{1, "a"}, []any{}), lit(i32, 1)}, typ: boolT, want: []any{true, false}},
		// map.sql: the key meets the map's key type without becoming a string; NULL is refused.
		{name: "decimal key", fn: "map_contains_key", args: []in{lit(im, []any{1, "a"}), col(&arrow.Decimal128Type{Precision: 2, Scale: 1}, "1.0", "5.0")}, want: []any{true, false}},
		{name: "string key", fn: "map_contains_key", args: []in{lit(arrow.MapOf(str, str), []any{"1", "a"}), lit(i32, 1)}, err: "argument 2 must be of the map's key type string, got int"},
		{name: "int key", fn: "map_contains_key", args: []in{lit(im, []any{1, "a"}), lit(str, "1")}, err: "argument 2 must be of the map's key type long, got string"},
		{name: "null key", fn: "map_contains_key", args: []in{lit(im, []any{1, "a"}), lit(null, nil)}, err: "argument 2 (the key) cannot be NULL"},
		{name: "entries", fn: "map_entries", args: []in{col(im, []any{1, "a"}, nil)},
			want: []any{[]any{map[string]any{"key": int64(1), "value": "a"}}, nil}},
		{name: "lengths", fn: "map_from_arrays", args: []in{lit(arrowList(i64), []any{1, 2}), lit(arrowList(str), []any{"a"})}, err: "differ in length (2 and 1)"},
		{name: "null key", fn: "map_from_arrays", args: []in{lit(arrowList(i64), []any{nil}), lit(arrowList(str), []any{"a"})}, err: "cannot use NULL as a map key"},
		{name: "entries", fn: "map_from_entries", args: []in{col(arrowList(arrow.StructOf(arrow.Field{Name: "k", Type: str, Nullable: true}, arrow.Field{Name: "v", Type: i64, Nullable: true})),
			[]any{[]any{"a", 1}}, []any{nil})}, typ: strMap, want: []any{map[string]any{"a": int64(1)}, nil}},
		{name: "keys", fn: "map_keys", args: []in{col(im, []any{2, "b", 1, "a"}, nil)}, typ: arrowList(i64), want: []any{[]any{int64(2), int64(1)}, nil}},
		{name: "values", fn: "map_values", args: []in{col(im, []any{2, "b", 1, nil})}, typ: arrowList(str), want: []any{[]any{"b", nil}}},
		{name: "regex delimiters", fn: "str_to_map", args: []in{col(str, "a=1;b=2", "a", ""), lit(str, "[;]"), lit(str, "=")}, typ: arrow.MapOf(str, str),
			want: []any{map[string]any{"a": "1", "b": "2"}, map[string]any{"a": nil}, map[string]any{"": nil}}},
		{name: "duplicate", fn: "str_to_map", args: []in{lit(str, "a:1,a:2")}, err: "duplicate map key a"},
		{name: "map keys", fn: "map", args: []in{lit(strMap, []any{"a", 1}), lit(i64, 2)}, err: "map keys cannot be or hold maps"},
		{name: "struct from columns", fn: "struct", args: []in{col(i64, 1, nil), lit(str, "x")},
			typ:  arrow.StructOf(arrow.Field{Name: "col1", Type: i64, Nullable: true}, arrow.Field{Name: "col2", Type: str, Nullable: true}),
			want: []any{map[string]any{"col1": int64(1), "col2": "x"}, map[string]any{"col1": nil, "col2": "x"}}},
	})
}
