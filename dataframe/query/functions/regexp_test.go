package functions_test

import "testing"

func TestRegexpFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "count", fn: "regexp_count", args: []in{col(str, "aaa", "", nil), lit(str, "a")}, typ: i32, want: []any{int32(3), int32(0), nil}},
		{name: "per-row pattern", fn: "regexp_count", args: []in{lit(str, "abcabc"), col(str, "b", "[ab]", "x")}, want: []any{int32(2), int32(4), int32(0)}},
		{name: "invalid pattern", fn: "regexp_count", args: []in{lit(str, "a"), lit(str, "(")}, err: `argument 2: invalid regular expression "("`},
		{name: "groups", fn: "regexp_extract_all", args: []in{lit(str, "a1b22c"), lit(str, `([a-z])(\d+)?`), col(i32, 0, 2)}, typ: arrowList(str),
			want: []any{[]any{"a1", "b22", "c"}, []any{"1", "22", ""}}},
		// regexp-functions.sql: as Java's Matcher.find(), an empty match right after a match counts.
		{name: "empty after a match", fn: "regexp_extract_all", args: []in{col(str, "1a 2b 14m", "a 2b 14m"), lit(str, `(\d+)?`), lit(i32, 1)},
			want: []any{[]any{"1", "", "", "2", "", "", "14", "", ""}, []any{"", "", "2", "", "", "14", "", ""}}},
		{name: "empty after a match", fn: "regexp_count", args: []in{col(str, "1a", "aaa", ""), lit(str, `\d*`)}, want: []any{int32(3), int32(4), int32(1)}},
		{name: "empty after a match", fn: "regexp_replace", args: []in{col(str, "baaab", "abc"), lit(str, "a*"), lit(str, "-")}, typ: str, want: []any{"-b--b-", "--b-c-"}},
		{name: "groups of an empty match", fn: "regexp_replace", args: []in{lit(str, "ab"), lit(str, "(a)?"), lit(str, "<$1>")}, want: []any{"<a><>b<>"}},
		{name: "word boundary at the end of a match", fn: "regexp_count", args: []in{col(str, "ab cd", "ab"), lit(str, `\w*\b`)}, want: []any{int32(4), int32(2)}},
		{name: "split", fn: "split", args: []in{lit(str, "aab"), lit(str, "a*"), lit(i32, -1)}, typ: arrowList(str), want: []any{[]any{"", "", "b", ""}}},
		// Patterns RE2 cannot take run on a backtracking engine, as Java's (regexp-functions.sql).
		{name: "look-ahead", fn: "regexp_count", args: []in{lit(str, "passwd7 plain A1234 a1234"), lit(str, `(?=[^ ]*[a-z])(?=[^ ]*[0-9])[^ ]+`)}, want: []any{int32(2)}},
		{name: "look-behind", fn: "regexp_extract_all", args: []in{lit(str, "$10 €20 $3"), lit(str, `(?<=\$)(\d+)`), lit(i32, 1)}, want: []any{[]any{"10", "3"}}},
		{name: "backreference", fn: "regexp_replace", args: []in{lit(str, "hello  world wworld"), lit(str, `(\w)\1`), lit(str, "<$1>")}, want: []any{"he<l>o  world <w>orld"}},
		{name: "named groups numbered in order", fn: "regexp_extract", args: []in{lit(str, "k=v;"), lit(str, `(?<key>\w)=(\w)(?=;)`), lit(i32, 2)}, want: []any{"v"}},
		{name: "named reference", fn: "regexp_replace", args: []in{lit(str, "k=v"), lit(str, `(?<key>\w)=(?!x)(\w)`), lit(str, "${key}:$2")}, want: []any{"k:v"}},
		{name: "ASCII digits", fn: "rlike", args: []in{col(str, "٣", "3"), lit(str, `^(?=\d)\d$`)}, want: []any{false, true}},
		{name: "empty after a match", fn: "regexp_count", args: []in{lit(str, "1a"), lit(str, `(?!x)\d*`)}, want: []any{int32(3)}},
		{name: "split", fn: "split", args: []in{lit(str, "a1b2c"), lit(str, `(?<=\d)`), lit(i32, -1)}, want: []any{[]any{"a1", "b2", "c"}}},
		{name: "possessive", fn: "regexp_substr", args: []in{col(str, "aaa", "aab"), lit(str, `a++b`)}, want: []any{nil, "aab"}},
		{name: "comments flag", fn: "rlike", args: []in{col(str, "ab", "a b"), lit(str, `(?x) ^a b$ # a then b`)}, want: []any{true, false}},
		{name: "invalid for both", fn: "rlike", args: []in{lit(str, "a"), lit(str, `(?<=a`)}, err: "invalid regular expression"},
		{name: "group out of range", fn: "regexp_extract_all", args: []in{lit(str, "a"), lit(str, "(a)"), lit(i32, 2)}, err: "regex group count is 1, but the specified group index is 2"},
		{name: "characters", fn: "regexp_instr", args: []in{col(str, "héllo", "x"), lit(str, "l+")}, typ: i32, want: []any{int32(3), int32(0)}},
		{name: "empty match is NULL", fn: "regexp_substr", args: []in{col(str, "abc", "abc"), col(str, "x*", "b+")}, typ: str, want: []any{nil, "b"}},
		{name: "find not match", fn: "rlike", args: []in{col(str, "Spark SQL", "x", nil), lit(str, "S.L")}, typ: boolT, want: []any{true, false, nil}},
		{name: "column pattern", fn: "regexp_like", args: []in{lit(str, "abc"), col(str, "^a", "^b")}, want: []any{true, false}},
		{name: "escape", fn: "like", args: []in{col(str, "50%", "50x"), lit(str, "50!%"), lit(str, "!")}, typ: boolT, want: []any{true, false}},
		{name: "default escape", fn: "like", args: []in{col(str, "a_c", "abc"), lit(str, `a\_c`)}, want: []any{true, false}},
		{name: "bad escape", fn: "like", args: []in{lit(str, "a"), lit(str, "a"), lit(str, "xy")}, err: "argument 3 must be a one-character string literal"},
		{name: "case", fn: "ilike", args: []in{col(str, "SPARK", "park"), lit(str, "sp%")}, want: []any{true, false}},
		{name: "newlines", fn: "like", args: []in{lit(str, "a\nb"), lit(str, "a%b")}, want: []any{true}},
	})
}
