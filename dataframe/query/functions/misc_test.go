package functions_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/query/fn/fntest"
)

// Hash values are Spark 3.5's, from its documentation and golden files.
func TestHashFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "binary and string agree", fn: "md5", args: []in{col(str, "Spark", nil)}, typ: str, want: []any{"8cde774d6f7333752ed72cacddb05126", nil}},
		{name: "binary", fn: "sha1", args: []in{col(bin, "Spark")}, want: []any{"85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c"}},
		{name: "lengths", fn: "sha2", args: []in{lit(str, ""), col(i32, 0, 224, 384, 512, 7)},
			want: []any{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
				"38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
				"cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e", nil}},
		{name: "checksum", fn: "crc32", args: []in{col(str, "Spark", "")}, typ: i64, want: []any{int64(1557323817), int64(0)}},
		{name: "nulls skipped", fn: "hash", args: []in{lit(i32, 1), lit(null, nil)}, typ: i32, want: []any{int32(-559580957)}},
		{name: "all null is the seed", fn: "hash", args: []in{lit(null, nil)}, want: []any{int32(42)}},
		{name: "maps", fn: "hash", args: []in{col(strMap, []any{"a", 1})}, err: "Spark does not hash maps"},
		{name: "all null is the seed", fn: "xxhash64", args: []in{col(str, nil)}, typ: i64, want: []any{int64(42)}},
	})
}

func TestFormatFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "places", fn: "format_number", args: []in{col(f64, 12332.123456, 0.5, -1234.5, 2.5), col(i32, 4, 0, 1, 0)}, typ: str,
			want: []any{"12,332.1235", "0", "-1,234.5", "2"}},
		{name: "binary value decides", fn: "format_number", args: []in{col(f64, 2.675, 0.125), lit(i32, 2)}, want: []any{"2.67", "0.12"}},
		{name: "negative places", fn: "format_number", args: []in{lit(f64, 1.0), lit(i32, -1)}, want: []any{nil}},
		{name: "decimals exactly", fn: "format_number", args: []in{lit(dec51, "1234.5"), lit(i32, 3)}, want: []any{"1,234.500"}},
		{name: "patterns", fn: "format_number", args: []in{lit(f64, 12332.123456), col(str, "##################.###", "#,##0.00", "0000000", "")},
			want: []any{"12332.123", "12,332.12", "0012332", "12,332"}},
		{name: "java conversions", fn: "format_string", args: []in{lit(str, "%d|%5s|%-4s|%05d|%X|%o|%.2e|%.3f|%b|%S"),
			lit(i32, 255), lit(str, "ab"), lit(str, "cd"), lit(i32, -42), lit(i32, -1), lit(i32, 8), lit(f64, 12345.678), lit(f64, 2.0), lit(null, nil), lit(str, "up")},
			want: []any{"255|   ab|cd  |-0042|FFFFFFFF|10|1.23e+04|2.000|false|UP"}},
		{name: "indexes and flags", fn: "printf", args: []in{lit(str, "%2$s-%1$s %3$+d %4$(d %5$,d %<s"), lit(str, "a"), lit(str, "b"), lit(i32, 3), lit(i32, -3), lit(i64, 1234567)},
			want: []any{"b-a +3 (3) 1,234,567 1234567"}},
		{name: "type mismatch", fn: "format_string", args: []in{lit(str, "%d"), lit(str, "x")}, err: "%d needs an integer, got string"},
		{name: "missing argument", fn: "format_string", args: []in{lit(str, "%s %s"), lit(str, "x")}, err: "missing argument"},
		{name: "number formats", fn: "to_char", args: []in{col(dec51, "454.0", "-12.5", "0.5", "1234.5"), lit(str, "9G999D99S")}, typ: str,
			want: []any{"  454.00+", "   12.50-", "    0.50+", "1,234.50+"}},
		{name: "zeros and brackets", fn: "to_char", args: []in{col(i32, 4, -4), lit(str, "000PR")}, want: []any{"004  ", "<004>"}},
		{name: "dates", fn: "to_char", args: []in{lit(date, tm("2016-04-08 00:00:00")), lit(str, "yyyy/MM")}, want: []any{"2016/04"}},
		{name: "binary", fn: "to_char", args: []in{lit(bin, "Spark"), col(str, "base64")}, err: "argument 2 must be a literal format"},
		{name: "binary", fn: "to_varchar", args: []in{lit(bin, "Spark"), lit(str, "hex")}, want: []any{"537061726B"}},
		{name: "invalid format", fn: "to_char", args: []in{lit(i32, 1), lit(str, "9.9.9")}, err: ". or D appears more than once"},
		{name: "currency after digits", fn: "to_number", args: []in{lit(str, "1$"), lit(str, "9$")}, err: "the currency sign must come before any digit"},
		{name: "parse", fn: "to_number", args: []in{col(str, "454", " 454", "<45>", "12,454.8-"), lit(str, "99,999.9MI")},
			err: `"<45>" does not match the number format`},
		{name: "parse", fn: "try_to_number", args: []in{col(str, "454", "1,234", "-5", "12", "x"), lit(str, "S9,999")}, typ: &arrow.Decimal128Type{Precision: 4},
			want: []any{"454", "1234", "-5", "12", nil}},
		{name: "brackets", fn: "to_number", args: []in{col(str, "<45>", "45"), lit(str, "99PR")}, want: []any{"-45", "45"}},
	})
}

func TestJSONMoreFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "paths", fn: "get_json_object", args: []in{lit(str, `{"a":{"b c":[1,{"d":"x\"y"}]},"n":null,"s":"\u00e9"}`),
			col(str, "$.a['b c'][1].d", "$.a['b c'][0]", "$.n", "$.s", "$.a.*", "$.missing", "$", "bad")}, typ: str,
			want: []any{`x"y`, "1", nil, "é", `[1,{"d":"x\"y"}]`, nil, `{"a":{"b c":[1,{"d":"x\"y"}]},"n":null,"s":"\u00e9"}`, nil}},
		{name: "whitespace kept compact", fn: "get_json_object", args: []in{lit(str, `{ "a" : [ 1 , 2 ] }`), lit(str, "$.a")}, want: []any{"[1,2]"}},
		{name: "length", fn: "json_array_length", args: []in{col(str, "[]", "[1,[2,3],{}]", "{}", "x", nil)}, typ: i32, want: []any{int32(0), int32(3), nil, nil, nil}},
		{name: "keys", fn: "json_object_keys", args: []in{col(str, `{"b":1,"a":{"c":2}}`, "[1]", "{", nil)}, typ: arrowList(str), want: []any{[]any{"b", "a"}, nil, nil, nil}},
		{name: "inference", fn: "schema_of_json", args: []in{lit(str, `{"a":[1,2.5],"b":null,"c":{"d":true},"e f":"x"}`)}, typ: str,
			want: []any{"STRUCT<a: ARRAY<DOUBLE>, b: STRING, c: STRUCT<d: BOOLEAN>, `e f`: STRING>"}},
		{name: "not a literal", fn: "schema_of_json", args: []in{col(str, "{}")}, err: "argument 1 must be a JSON string literal"},
		{name: "pretty", fn: "to_json", args: []in{col(arrowStruct(), []any{1}), lit(arrow.MapOf(str, str), []any{"pretty", "true"})}, want: []any{"{\n  \"a\" : 1\n}"}},
		{name: "options not a map", fn: "to_json", args: []in{col(arrowStruct(), []any{1}), lit(str, "x")}, err: "argument 2 must be a map of option names"},
		{name: "bad pattern", fn: "to_json", args: []in{col(arrowStruct(), []any{1}), lit(arrow.MapOf(str, str), []any{"timestampFormat", "YYYY"})}, err: "option timestampFormat"},
		{name: "failfast", fn: "from_json", args: []in{lit(str, "{"), lit(str, "a INT"), lit(arrow.MapOf(str, str), []any{"mode", "FAILFAST"})}, err: "malformed JSON record"},
		{name: "date format", fn: "from_json", args: []in{lit(str, `{"d":"08/26/2015"}`), lit(str, "d DATE"), lit(arrow.MapOf(str, str), []any{"dateFormat", "MM/dd/yyyy"})},
			want: []any{map[string]any{"d": tm("2015-08-26 00:00:00")}}},
	})
}

func TestCSVFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "fields", fn: "from_csv", args: []in{col(str, `1,"a,b",x,2`, "7", `x,"say ""hi""",`, nil), lit(str, "a INT, b STRING, c DOUBLE")},
			want: []any{map[string]any{"a": int32(1), "b": "a,b", "c": nil}, map[string]any{"a": int32(7), "b": nil, "c": nil},
				map[string]any{"a": nil, "b": `say "hi"`, "c": nil}, nil}},
		{name: "separator", fn: "from_csv", args: []in{lit(str, "1;2"), lit(str, "a INT, b INT"), lit(arrow.MapOf(str, str), []any{"sep", ";"})},
			want: []any{map[string]any{"a": int32(1), "b": int32(2)}}},
		{name: "nested schema", fn: "from_csv", args: []in{lit(str, "1"), lit(str, "a ARRAY<INT>")}, err: "CSV field a cannot be array<integer>"},
		{name: "narrow month", fn: "from_csv", args: []in{lit(str, "26/October/2015"), lit(str, "d DATE"), lit(arrow.MapOf(str, str), []any{"dateFormat", "dd/MMMMM/yyyy"})},
			err: "option dateFormat: datetime pattern \"dd/MMMMM/yyyy\": too many pattern letters: MMMMM"},
		{name: "parse-only letters", fn: "from_csv", args: []in{lit(str, "Fri 2020"), lit(str, "t TIMESTAMP"), lit(arrow.MapOf(str, str), []any{"timestampFormat", "EEE yyyy"})},
			err: "pattern letter 'E' cannot be used to parse"},
		{name: "formats with the day of week", fn: "to_csv", args: []in{lit(arrow.StructOf(arrow.Field{Name: "d", Type: date, Nullable: true}), []any{tm("2020-05-22 00:00:00")}),
			lit(arrow.MapOf(str, str), []any{"dateFormat", "EEE yyyy"})}, want: []any{"Fri 2020"}},
		{name: "quoting", fn: "to_csv", args: []in{col(arrow.StructOf(arrow.Field{Name: "a", Type: str, Nullable: true}, arrow.Field{Name: "b", Type: f64, Nullable: true}),
			[]any{"x", 1.5}, []any{" y", nil}, []any{`q"`, 1e21}, nil)}, typ: str, want: []any{"x,1.5", `" y",`, `"q\"",1.0E21`, nil}},
		{name: "not a struct", fn: "to_csv", args: []in{lit(arrowList(i64), []any{1})}, err: "argument 1 must be a struct"},
		{name: "inference", fn: "schema_of_csv", args: []in{lit(str, `1,2147483648,1e3,TRUE,,"x"`)}, typ: str,
			want: []any{"STRUCT<_c0: INT, _c1: BIGINT, _c2: DOUBLE, _c3: BOOLEAN, _c4: STRING, _c5: STRING>"}},
	})
}

func TestTypeFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "names", fn: "typeof", args: []in{lit(arrow.MapOf(str, arrowList(arrow.StructOf(arrow.Field{Name: "x", Type: i8, Nullable: true}))), []any{})}, want: []any{"map<string,array<struct<x:tinyint>>>"}},
		{name: "timestamp", fn: "typeof", args: []in{lit(ts, tm("2020-01-01 00:00:00"))}, want: []any{"timestamp"}},
		{name: "casts", fn: "int", args: []in{col(str, "42", " 7 ", "x", nil)}, typ: i32, want: []any{int32(42), int32(7), nil, nil}},
		{name: "no such cast", fn: "bigint", args: []in{lit(arrowList(i64), []any{1})}, err: "cannot cast array<long> to long"},
		{name: "arity", fn: "string", args: []in{lit(i32, 1), lit(i32, 2)}, err: "takes 1 argument, got 2"},
		{name: "decimal default", fn: "decimal", args: []in{col(f64, 12.5, -0.4)}, typ: dec100, want: []any{"13", "0"}},
	})
}

func TestMiscFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "parts", fn: "parse_url", args: []in{lit(str, "https://user:pw@spark.apache.org:8080/a/b.html?x=1&y=2#frag"),
			col(str, "HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO", "OTHER")}, typ: str,
			want: []any{"spark.apache.org", "/a/b.html", "x=1&y=2", "frag", "https", "/a/b.html?x=1&y=2", "user:pw@spark.apache.org:8080", "user:pw", nil}},
		{name: "query key", fn: "parse_url", args: []in{lit(str, "http://h/p?x=1&xy=2&y="), lit(str, "QUERY"), col(str, "xy", "y", "z", "x")}, want: []any{"2", "", nil, "1"}},
		{name: "absent parts", fn: "parse_url", args: []in{col(str, "http://h", "not a url"), lit(str, "QUERY")}, want: []any{nil, nil}},
		{name: "java encoding", fn: "url_encode", args: []in{col(str, "a b*~é/")}, want: []any{"a+b*%7E%C3%A9%2F"}},
		{name: "decode", fn: "url_decode", args: []in{col(str, "a+b%2F", nil)}, want: []any{"a b/", nil}},
		{name: "invalid", fn: "url_decode", args: []in{lit(str, "%zz")}, err: `cannot decode "%zz"`},
		{name: "seed as Spark", fn: "rand", args: []in{lit(i64, 0)}, typ: f64, want: []any{0.7604953758285915}},
		{name: "seed literal", fn: "rand", args: []in{col(i64, 1)}, err: "argument 1 must be an integer literal seed"},
		{name: "gaussian", fn: "randn", args: []in{lit(null, nil)}, want: []any{1.6034991609278433}},
		{name: "fails", fn: "assert_true", args: []in{col(boolT, true, false)}, err: "the assertion is not true"},
		{name: "message", fn: "assert_true", args: []in{lit(boolT, false), lit(str, "boom")}, err: "boom"},
		{name: "passes", fn: "assert_true", args: []in{col(boolT, true)}, typ: null, want: []any{nil}},
		{name: "raises", fn: "raise_error", args: []in{lit(str, "custom")}, err: "custom"},
	})
}

// A seeded rand continues its sequence across batches, as Spark's does
// within a partition; uuid gives distinct version 4 UUIDs.
func TestRandomSequences(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := &fn.Ctx{Mem: mem, Now: time.Now()}
	s, _ := fn.Lookup("rand")
	require.True(t, s.Nondeterministic)
	b1, err := s.Bind([]fn.Arg{{Type: i64, Const: true, Value: int64(7)}})
	require.NoError(t, err)
	b2, err := s.Bind([]fn.Arg{{Type: i64, Const: true, Value: int64(7)}})
	require.NoError(t, err)
	seed := fntest.Array(mem, i64, 7, 7, 7, 7)
	defer seed.Release()
	whole, err := b1.Eval(ctx, []arrow.Array{seed}, 4)
	require.NoError(t, err)
	defer whole.Release()
	var parts []any
	for _, n := range []int{1, 3} {
		out, err := b2.Eval(ctx, []arrow.Array{seed}, n)
		require.NoError(t, err)
		parts = append(parts, fntest.Values(out)...)
		out.Release()
	}
	require.Equal(t, fntest.Values(whole), parts)

	u, _ := fn.Lookup("uuid")
	ub, err := u.Bind(nil)
	require.NoError(t, err)
	out, err := ub.Eval(ctx, nil, 100)
	require.NoError(t, err)
	defer out.Release()
	seen := map[any]bool{}
	for _, v := range fntest.Values(out) {
		require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), v)
		require.False(t, seen[v])
		seen[v] = true
	}
}
