package functions_test

import (
	"math"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

var (
	dec52  = &arrow.Decimal128Type{Precision: 5, Scale: 2}
	strMap = arrow.MapOf(str, i64)
)

func TestConditionalFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "doc", fn: "coalesce", args: []in{lit(null, nil), lit(i32, 1), lit(null, nil)}, typ: i32, want: []any{int32(1)}},
		{name: "widens", fn: "coalesce", args: []in{col(i64, nil, 2, nil), col(f64, 1.5, 9.0, nil)}, typ: f64, want: []any{1.5, 2.0, nil}},
		{name: "string wins", fn: "coalesce", args: []in{col(str, nil, "a"), lit(i64, 7)}, typ: str, want: []any{"7", "a"}},
		{name: "lists", fn: "coalesce", args: []in{col(arrowList(i64), nil, []any{1}), lit(arrowList(i64), []any{2})}, want: []any{[]any{int64(2)}, []any{int64(1)}}},
		{name: "no common type", fn: "coalesce", args: []in{lit(i64, 1), col(arrowList(i64), []any{1})}, err: "argument 2 (array<long>) has no common type with long"},
		{name: "doc", fn: "nullif", args: []in{lit(i32, 2), lit(i32, 2)}, want: []any{nil}},
		{name: "keeps left type", fn: "nullif", args: []in{col(i64, 1, 2, nil), lit(f64, 2.0)}, typ: i64, want: []any{int64(1), nil, nil}},
		{name: "null right", fn: "nullif", args: []in{lit(str, "a"), lit(null, nil)}, want: []any{"a"}},
		{name: "doc", fn: "if", args: []in{lit(boolT, true), lit(str, "a"), lit(str, "b")}, want: []any{"a"}},
		{name: "null condition", fn: "if", args: []in{col(boolT, true, false, nil), lit(i64, 1), lit(f64, 2.5)}, typ: f64, want: []any{1.0, 2.5, 2.5}},
		{name: "condition type", fn: "if", args: []in{lit(str, "x"), lit(i64, 1), lit(i64, 2)}, err: "argument 1 must be a boolean, got string"},
		{name: "doc", fn: "greatest", args: []in{lit(i32, 10), lit(i32, 9), lit(i32, 2), lit(i32, 4), lit(i32, 3)}, want: []any{int32(10)}},
		{name: "skips nulls", fn: "greatest", args: []in{col(f64, nil, 1.0, math.NaN()), col(i64, nil, nil, 5)}, typ: f64, want: []any{nil, 1.0, math.NaN()}},
		{name: "timestamps", fn: "greatest", args: []in{lit(ts, tm("2021-01-01 00:00:00")), col(ts, tm("2020-01-01 00:00:00"), tm("2022-01-01 00:00:00"))}, want: []any{tm("2021-01-01 00:00:00"), tm("2022-01-01 00:00:00")}},
		{name: "doc", fn: "least", args: []in{lit(i32, 10), lit(i32, 9), lit(i32, 2), lit(i32, 4), lit(i32, 3)}, want: []any{int32(2)}},
		{name: "strings", fn: "least", args: []in{col(str, "b", nil), col(str, "a", nil)}, want: []any{"a", nil}},
		{name: "no string promotion", fn: "least", args: []in{lit(i64, 1), lit(str, "2")}, err: "arguments must all have the same type: argument 1 is long, another is string"},
		{name: "arity", fn: "least", args: []in{lit(i32, 1)}, err: "takes at least 2 arguments, got 1"},
	})
}

func TestMathFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "doc", fn: "abs", args: []in{col(i32, -1, nil, math.MinInt32)}, typ: i32, want: []any{int32(1), nil, int32(math.MinInt32)}},
		{name: "double, string", fn: "abs", args: []in{col(str, "-1.5", "x")}, typ: f64, want: []any{1.5, nil}},
		{name: "decimal", fn: "abs", args: []in{lit(dec52, "-1.25")}, typ: dec52, want: []any{"1.25"}},
		{name: "type", fn: "abs", args: []in{lit(boolT, true)}, err: "argument 1 must be a number, got boolean"},
		{name: "doc HALF_UP", fn: "round", args: []in{col(f64, 2.5, -2.5, 0.5, nil, math.NaN()), lit(i32, 0)}, typ: f64, want: []any{3.0, -3.0, 1.0, nil, math.NaN()}},
		{name: "default scale", fn: "round", args: []in{col(f64, 2.4, 1.5)}, want: []any{2.0, 2.0}},
		{name: "decimal digits of the double", fn: "round", args: []in{col(f64, 2.675, 1.005, 123.456), lit(i32, 2)}, want: []any{2.68, 1.01, 123.46}},
		{name: "negative scale", fn: "round", args: []in{col(f64, 1234.5, -155.0), lit(i32, -2)}, want: []any{1200.0, -200.0}},
		{name: "doc long", fn: "round", args: []in{col(i64, 25, -25, 24, nil), lit(i32, -1)}, typ: i64, want: []any{int64(30), int64(-30), int64(20), nil}},
		{name: "decimal", fn: "round", args: []in{col(dec52, "1.25", "-1.25", "999.99"), lit(i32, 1)}, typ: &arrow.Decimal128Type{Precision: 5, Scale: 1}, want: []any{"1.3", "-1.3", "1000.0"}},
		{name: "decimal negative scale", fn: "round", args: []in{lit(dec52, "155.55"), lit(i32, -1)}, typ: &arrow.Decimal128Type{Precision: 4, Scale: 0}, want: []any{"160"}},
		{name: "scale not literal", fn: "round", args: []in{lit(f64, 1.0), col(i32, 1)}, err: "argument 2 must be an integer literal"},
		{name: "null scale", fn: "round", args: []in{lit(f64, 1.0), lit(null, nil)}, want: []any{nil}},
		{name: "doc", fn: "floor", args: []in{col(f64, -0.1, 5.0, nil, 1e300)}, typ: i64, want: []any{int64(-1), int64(5), nil, int64(math.MaxInt64)}},
		{name: "int", fn: "floor", args: []in{lit(i32, 5)}, typ: i64, want: []any{int64(5)}},
		{name: "decimal", fn: "floor", args: []in{col(dec52, "-1.25", "3.45", "2.00")}, typ: &arrow.Decimal128Type{Precision: 4, Scale: 0}, want: []any{"-2", "3", "2"}},
		{name: "doc", fn: "ceil", args: []in{col(f64, -0.1, 5.0, 1.2)}, typ: i64, want: []any{int64(0), int64(5), int64(2)}},
		{name: "decimal", fn: "ceiling", args: []in{col(dec52, "-1.25", "3.45")}, want: []any{"-1", "4"}},
		{name: "string", fn: "ceil", args: []in{lit(str, "1.5")}, typ: i64, want: []any{int64(2)}},
	})
}

func TestCollectionFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "doc", fn: "size", args: []in{col(arrowList(str), []any{"b", "d", "c", "a"}, []any{}, nil)}, typ: i32, want: []any{int32(4), int32(0), int32(-1)}},
		{name: "map", fn: "size", args: []in{lit(strMap, []any{"a", 1, "b", 2})}, want: []any{int32(2)}},
		{name: "type", fn: "size", args: []in{lit(str, "abc")}, err: "argument 1 must be an array or a map, got string"},
		{name: "doc", fn: "array_contains", args: []in{lit(arrowList(i32), []any{1, 2, 3}), lit(i32, 2)}, typ: boolT, want: []any{true}},
		{name: "nulls", fn: "array_contains", args: []in{col(arrowList(i64), []any{1, nil}, []any{1, 2}, nil, []any{1}), col(i64, 3, 3, 1, nil)}, want: []any{nil, false, nil, nil}},
		{name: "widens value", fn: "array_contains", args: []in{lit(arrowList(i32), []any{1, 2}), lit(i64, 2)}, want: []any{true}},
		{name: "strings", fn: "array_contains", args: []in{lit(arrowList(str), []any{"a"}), col(str, "a", "b")}, want: []any{true, false}},
		{name: "type", fn: "array_contains", args: []in{lit(arrowList(i64), []any{1}), lit(str, "1")}, err: "argument 2 must be of the array's element type long, got string"},
		{name: "string array", fn: "array_contains", args: []in{lit(arrowList(str), []any{"1"}), lit(i32, 1)}, err: "argument 2 must be of the array's element type string, got int"},
		{name: "null value", fn: "array_contains", args: []in{lit(arrowList(i64), []any{1}), lit(null, nil)}, err: "argument 2 (the value) cannot be NULL"},
		{name: "doc", fn: "element_at", args: []in{lit(arrowList(i32), []any{1, 2, 3}), col(i32, 2, -1, 4, -4, nil)}, typ: i32, want: []any{int32(2), int32(3), nil, nil, nil}},
		{name: "strings", fn: "element_at", args: []in{col(arrowList(str), []any{"a", "b"}, nil, []any{nil}), lit(i64, 1)}, typ: str, want: []any{"a", nil, nil}},
		{name: "structs", fn: "element_at", args: []in{lit(arrowList(arrowStruct()), []any{[]any{1}, []any{2}}), lit(i32, -1)}, want: []any{map[string]any{"a": int64(2)}}},
		{name: "zero", fn: "element_at", args: []in{lit(arrowList(i32), []any{1}), lit(i32, 0)}, err: "SQL array indices start at 1"},
		{name: "map doc", fn: "element_at", args: []in{lit(arrow.MapOf(i32, str), []any{1, "a", 2, "b"}), col(i32, 2, 3)}, typ: str, want: []any{"b", nil}},
		{name: "type", fn: "element_at", args: []in{lit(str, "a"), lit(i32, 1)}, err: "argument 1 must be an array or a map, got string"},
	})
}
