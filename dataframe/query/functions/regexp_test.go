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
