package functions_test

import (
	"math"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

func TestJSONFunctions(t *testing.T) {
	t.Parallel()
	ab := arrow.StructOf(arrow.Field{Name: "a", Type: i32, Nullable: true}, arrow.Field{Name: "b", Type: f64, Nullable: true})
	teacher := arrow.StructOf(
		arrow.Field{Name: "teacher", Type: str, Nullable: true},
		arrow.Field{Name: "student", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "name", Type: str, Nullable: true}, arrow.Field{Name: "rank", Type: i32, Nullable: true})), Nullable: true})
	abLong := arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true}, arrow.Field{Name: "b", Type: str, Nullable: true})
	runCases(t, []fcase{
		{name: "doc", fn: "get_json_object", args: []in{lit(str, `{"a":"b"}`), lit(str, "$.a")}, typ: str, want: []any{"b"}},
		{name: "paths", fn: "get_json_object", args: []in{lit(str, `{"a": {"b": [1, {"c": true}], "d": null}, "e f": 2.50}`), col(str, "$.a.b[1]", "$.a.b[0]", "$['e f']", "$.a.d", "$.x", "$.a.b[9]", "$", "a", nil)},
			want: []any{`{"c":true}`, "1", "2.50", nil, nil, nil, `{"a":{"b":[1,{"c":true}],"d":null},"e f":2.50}`, nil, nil}},
		{name: "wildcard", fn: "get_json_object", args: []in{col(str, `{"a":[{"b":1},{"b":2}]}`, `{"a":[{"b":"x"}]}`), lit(str, "$.a[*].b")}, want: []any{"[1,2]", "x"}},
		{name: "invalid json, null", fn: "get_json_object", args: []in{col(str, `{"a":`, nil), lit(str, "$.a")}, want: []any{nil, nil}},
		{name: "invalid literal path", fn: "get_json_object", args: []in{lit(str, `{"a":1}`), lit(str, "$.a[x]")}, want: []any{nil}},
		{name: "doc", fn: "from_json", args: []in{col(str, `{"a":1, "b":0.8}`, nil, `{"a" 1}`, `{"a":"x","b":2}`), lit(str, "a INT, b DOUBLE")}, typ: ab,
			want: []any{map[string]any{"a": int32(1), "b": 0.8}, nil, map[string]any{"a": nil, "b": nil}, map[string]any{"a": nil, "b": 2.0}}},
		{name: "doc nested", fn: "from_json", args: []in{lit(str, `{"teacher": "Alice", "student": [{"name": "Bob", "rank": 1}, {"name": "Charlie", "rank": 2}]}`), lit(str, "STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>")}, typ: teacher,
			want: []any{map[string]any{"teacher": "Alice", "student": []any{map[string]any{"name": "Bob", "rank": int32(1)}, map[string]any{"name": "Charlie", "rank": int32(2)}}}}},
		{name: "string keeps JSON text", fn: "from_json", args: []in{lit(str, `{"a": 7, "b": {"x": [1]}}`), lit(str, "a bigint, b string")}, typ: abLong,
			want: []any{map[string]any{"a": int64(7), "b": `{"x":[1]}`}}},
		{name: "array schema", fn: "from_json", args: []in{col(str, `[1,2,null]`, `{"a":1}`), lit(str, "array<int>")}, want: []any{[]any{int32(1), int32(2), nil}, nil}},
		{name: "timestamp and date", fn: "from_json", args: []in{lit(str, `{"t":"2015-08-26 10:00:00","d":"2015-08-26"}`), lit(str, "t timestamp, d date")},
			want: []any{map[string]any{"t": tm("2015-08-26 10:00:00"), "d": tm("2015-08-26 00:00:00")}}},
		{name: "schema not literal", fn: "from_json", args: []in{lit(str, `{}`), col(str, "a int")}, err: "argument 2 must be a schema string literal, got string"},
		{name: "bad schema", fn: "from_json", args: []in{lit(str, `{}`), lit(str, "a nosuchtype")}, err: "argument 2: schema \"a nosuchtype\""},
		{name: "scalar schema", fn: "from_json", args: []in{lit(str, `1`), lit(str, "int")}, err: "must be a struct, an array or a map"},
		{name: "map schema", fn: "from_json", args: []in{col(str, `{"a":1,"b":null}`, `[1]`), lit(str, "map<string,bigint>")}, typ: strMap, want: []any{map[string]any{"a": int64(1), "b": nil}, nil}},
		{name: "map keys", fn: "from_json", args: []in{lit(str, `{}`), lit(str, "a map<int,int>")}, err: "map keys must be strings, got int"},
		{name: "narrow month", fn: "from_json", args: []in{lit(str, `{"t":"26/October/2015"}`), lit(str, "t timestamp"), lit(arrow.MapOf(str, str), []any{"timestampFormat", "dd/MMMMM/yyyy"})},
			err: "option timestampFormat: datetime pattern \"dd/MMMMM/yyyy\": too many pattern letters: MMMMM"},
		{name: "parse-only letters", fn: "from_json", args: []in{lit(str, `{"d":"Fri 2020"}`), lit(str, "d date"), lit(arrow.MapOf(str, str), []any{"dateFormat", "EEE yyyy"})},
			err: "pattern letter 'E' cannot be used to parse"},
		{name: "options not a map", fn: "from_json", args: []in{lit(str, `{}`), lit(str, "a int"), lit(str, "x")}, err: "argument 3 must be a map of option names to values"},
		{name: "doc struct", fn: "to_json", args: []in{col(abLong, []any{int64(1), "2"}, []any{nil, "<x>"}, nil)}, typ: str, want: []any{`{"a":1,"b":"2"}`, `{"b":"<x>"}`, nil}},
		{name: "doc array of structs", fn: "to_json", args: []in{lit(arrow.ListOf(abLong), []any{[]any{int64(1), "2"}})}, want: []any{`[{"a":1,"b":"2"}]`}},
		{name: "doc map", fn: "to_json", args: []in{lit(arrow.MapOf(str, arrowStruct()), []any{"a", []any{int64(1)}})}, want: []any{`{"a":{"a":1}}`}},
		{name: "array of maps", fn: "to_json", args: []in{lit(arrow.ListOf(strMap), []any{[]any{"a", int64(1)}})}, want: []any{`[{"a":1}]`}},
		{name: "timestamps", fn: "to_json", args: []in{lit(arrow.ListOf(ts), []any{tm("2015-08-26 00:00:00")})}, want: []any{`["2015-08-26T00:00:00.000Z"]`}},
		{name: "doubles as Java prints them", fn: "to_json", args: []in{lit(arrow.ListOf(f64), []any{1.0, 1e21, 2.675, math.NaN(), nil})}, want: []any{`[1.0,1.0E21,2.675,"NaN",null]`}},
		{name: "scalar", fn: "to_json", args: []in{lit(i64, 1)}, err: "argument 1 must be a struct, an array or a map, got long"},
	})
}

func TestDocExamples(t *testing.T) {
	t.Parallel()
	ab := arrow.StructOf(arrow.Field{Name: "a", Type: i32, Nullable: true}, arrow.Field{Name: "b", Type: i32, Nullable: true})
	runCases(t, []fcase{
		{name: "doc", fn: "to_json", args: []in{lit(ab, []any{1, 2})}, want: []any{`{"a":1,"b":2}`}},
		{name: "doc", fn: "to_json", args: []in{lit(arrow.ListOf(ab), []any{[]any{1, 2}})}, want: []any{`[{"a":1,"b":2}]`}},
		{name: "doc", fn: "from_unixtime", args: []in{lit(i32, 0)}, want: []any{"1970-01-01 00:00:00"}},
		{name: "doc swap", fn: "regexp_replace", args: []in{lit(str, "100-200"), lit(str, `(\d+)-(\d+)`), lit(str, "$2-$1")}, want: []any{"200-100"}},
		{name: "doc", fn: "get_json_object", args: []in{lit(str, `{"a":[{"b":1},{"b":2}]}`), lit(str, "$.a[*].b")}, want: []any{"[1,2]"}},
		{name: "doc", fn: "coalesce", args: []in{lit(null, nil), lit(i32, 1), lit(null, nil)}, want: []any{int32(1)}},
		{name: "doc", fn: "concat_ws", args: []in{lit(str, ","), lit(arrowList(str), []any{"a", nil, "b"}), lit(str, "c")}, want: []any{"a,b,c"}},
	})
}
