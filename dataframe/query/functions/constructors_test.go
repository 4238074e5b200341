package functions_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

func TestConstructors(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "doc", fn: "array", args: []in{lit(i32, 1), lit(i32, 2), lit(i32, 3)}, typ: arrowList(i32), want: []any{[]any{int32(1), int32(2), int32(3)}}},
		{name: "widens, keeps NULL", fn: "array", args: []in{col(i64, 1, nil), lit(null, nil), lit(f64, 2.5)}, typ: arrowList(f64), want: []any{[]any{1.0, nil, 2.5}, []any{nil, nil, 2.5}}},
		{name: "empty", fn: "array", args: nil, typ: arrowList(null), want: []any{[]any{}}},
		{name: "doc", fn: "map", args: []in{lit(i32, 1), lit(str, "a"), lit(i32, 2), lit(str, "b")}, typ: arrow.MapOf(i32, str), want: []any{map[string]any{"1": "a", "2": "b"}}},
		{name: "null value", fn: "map", args: []in{col(str, "k", "j"), col(i64, nil, 1)}, want: []any{map[string]any{"k": nil}, map[string]any{"j": int64(1)}}},
		{name: "null key", fn: "map", args: []in{col(str, "k", nil), lit(i64, 1)}, err: "cannot use NULL as a map key (argument 1)"},
		{name: "duplicate key", fn: "map", args: []in{lit(str, "k"), lit(i64, 1), lit(str, "k"), lit(i64, 2)}, err: "duplicate map key k (argument 3)"},
		{name: "odd", fn: "map", args: []in{lit(str, "k")}, err: "takes an even number of arguments"},
		{name: "doc", fn: "named_struct", args: []in{lit(str, "a"), col(i64, 1, nil), lit(str, "b"), lit(str, "x")},
			typ:  arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true}, arrow.Field{Name: "b", Type: str, Nullable: true}),
			want: []any{map[string]any{"a": int64(1), "b": "x"}, map[string]any{"a": nil, "b": "x"}}},
		{name: "name not literal", fn: "named_struct", args: []in{col(str, "a"), lit(i64, 1)}, err: "argument 1 must be a field name literal, got string"},
	})
}
