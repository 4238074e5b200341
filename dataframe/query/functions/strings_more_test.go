package functions_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

var bin = arrow.BinaryTypes.Binary

func TestMoreStringFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "first code point", fn: "ascii", args: []in{col(str, "222", "", "é", nil)}, typ: i32, want: []any{int32(50), int32(0), int32(233), nil}},
		{name: "latin1 modulo 256", fn: "chr", args: []in{col(i64, 65, 321, -1, 0, nil)}, typ: str, want: []any{"A", "A", "", "\x00", nil}},
		{name: "from string", fn: "base64", args: []in{col(str, "Spark SQL", "", nil)}, want: []any{"U3BhcmsgU1FM", "", nil}},
		{name: "lenient", fn: "unbase64", args: []in{col(str, "U3Bhcmsg U1FM", "U3Bhcms", "U3Bhcms=", "-_8", nil)}, typ: bin,
			want: []any{"Spark SQL", "Spark", "Spark", "\xfb\xff", nil}},
		{name: "bytes", fn: "octet_length", args: []in{col(str, "é", nil)}, typ: i32, want: []any{int32(2), nil}},
		{name: "binary", fn: "bit_length", args: []in{col(bin, "ab")}, want: []any{int32(16)}},
		{name: "charsets", fn: "encode", args: []in{lit(str, "é?"), col(str, "UTF-8", "iso-8859-1", "US-ASCII", "utf-16le", "UTF-16")}, typ: bin,
			want: []any{"\xc3\xa9?", "\xe9?", "??", "\xe9\x00?\x00", "\xfe\xff\x00\xe9\x00?"}},
		{name: "unknown charset", fn: "encode", args: []in{lit(str, "a"), lit(str, "klingon")}, err: `argument 2: unknown charset "klingon"`},
		{name: "unknown charset per row", fn: "encode", args: []in{lit(str, "a"), col(str, "klingon")}, err: `unknown charset "klingon"`},
		{name: "charsets", fn: "decode", args: []in{col(bin, "\xe9", "\xe9", "\xfe\xff\x00\xe9"), col(str, "latin1", "utf-8", "UTF-16")}, typ: str,
			want: []any{"é", "\uFFFD", "é"}},
		{name: "case form", fn: "decode", args: []in{col(i32, 1, 2, nil, 9), lit(i32, 1), lit(str, "one"), lit(null, nil), lit(str, "null"), lit(str, "other")},
			typ: str, want: []any{"one", "other", "null", "other"}},
		{name: "out of range", fn: "elt", args: []in{col(i32, 0, 1, 2, 3, nil), lit(str, "a"), lit(str, "b")}, typ: str, want: []any{nil, "a", "b", nil, nil}},
		{name: "numbers become strings", fn: "elt", args: []in{lit(i32, 2), lit(str, "a"), lit(i64, 1)}, typ: str, want: []any{"1"}},
		{name: "all binary", fn: "elt", args: []in{lit(i32, 1), lit(bin, "x"), lit(bin, "y")}, typ: bin, want: []any{"x"}},
		{name: "strings", fn: "startswith", args: []in{col(str, "Spark", "Sp", nil), lit(str, "Sp")}, typ: boolT, want: []any{true, true, nil}},
		{name: "binary", fn: "endswith", args: []in{lit(bin, "Spark"), col(bin, "ark", "Sp")}, want: []any{true, false}},
		{name: "empty", fn: "contains", args: []in{lit(str, "abc"), col(str, "", "bc", "x")}, want: []any{true, true, false}},
		{name: "comma in needle", fn: "find_in_set", args: []in{col(str, "ab", "a,b", "x", ""), lit(str, "abc,b,ab,,c")}, typ: i32, want: []any{int32(3), int32(0), int32(0), int32(4)}},
		{name: "words split on spaces only", fn: "initcap", args: []in{col(str, "sPark sql", "hello-world  foo", nil)}, want: []any{"Spark Sql", "Hello-world  Foo", nil}},
		{name: "characters", fn: "instr", args: []in{lit(str, "héllo"), col(str, "llo", "", "x")}, typ: i32, want: []any{int32(3), int32(1), int32(0)}},
		{name: "start positions", fn: "locate", args: []in{lit(str, "bar"), lit(str, "foobarbar"), col(i32, 1, 5, 0, -1, 8, nil)}, typ: i32,
			want: []any{int32(4), int32(7), int32(0), int32(0), int32(0), int32(0)}},
		{name: "null substring", fn: "position", args: []in{lit(null, nil), lit(str, "abc")}, want: []any{nil}},
		{name: "unicode", fn: "levenshtein", args: []in{col(str, "kitten", "ü", ""), col(str, "sitting", "u", "abc")}, typ: i32, want: []any{int32(3), int32(1), int32(3)}},
		{name: "threshold", fn: "levenshtein", args: []in{lit(str, "kitten"), lit(str, "sitting"), col(i32, 2, 3)}, want: []any{int32(-1), int32(3)}},
		{name: "not digits", fn: "luhn_check", args: []in{col(str, "79927398713", "7992739871x", "", nil)}, typ: boolT, want: []any{true, false, false, nil}},
		{name: "not a literal", fn: "mask", args: []in{lit(str, "a"), col(str, "Q")}, err: "argument 2 must be a literal"},
		{name: "two characters", fn: "mask", args: []in{lit(str, "a"), lit(str, "QQ")}, err: `argument 2 must be one character, got "QQ"`},
		{name: "unicode classes", fn: "mask", args: []in{col(str, "Ünïcode 9", nil)}, want: []any{"Xxxxxxx n", nil}},
		{name: "binary", fn: "overlay", args: []in{lit(bin, "Spark SQL"), lit(bin, "_"), lit(i32, 6)}, typ: bin, want: []any{"Spark_SQL"}},
		{name: "past the end", fn: "overlay", args: []in{lit(str, "abc"), lit(str, "XY"), col(i32, 5, 1), col(i32, 0, 10)}, want: []any{"abcXY", "XY"}},
		{name: "negative count", fn: "repeat", args: []in{lit(str, "ab"), col(i32, 2, 0, -1, nil)}, want: []any{"abab", "", "", nil}},
		{name: "sentences", fn: "sentences", args: []in{col(str, "Hi there! Good morning.", "Don't stop... ok", "", nil)}, typ: arrowList(arrowList(str)),
			want: []any{[]any{[]any{"Hi", "there"}, []any{"Good", "morning"}}, []any{[]any{"Don't", "stop"}, []any{"ok"}}, []any{}, nil}},
		{name: "codes", fn: "soundex", args: []in{col(str, "Miller", "Robert", "Tymczak", "Ashcraft", "1abc", "", nil)},
			want: []any{"M460", "R163", "T522", "A261", "1abc", "", nil}},
		{name: "negative", fn: "space", args: []in{col(i32, 3, 0, -2)}, want: []any{"   ", "", ""}},
		{name: "parts", fn: "split_part", args: []in{lit(str, "11.12.13"), lit(str, "."), col(i32, 1, 3, -1, -3, 4, -4)}, typ: str,
			want: []any{"11", "13", "13", "11", "", ""}},
		{name: "empty delimiter", fn: "split_part", args: []in{lit(str, "abc"), lit(str, ""), col(i32, 1, 2)}, want: []any{"abc", ""}},
		{name: "part zero", fn: "split_part", args: []in{lit(str, "a.b"), lit(str, "."), lit(i32, 0)}, err: "SQL array indices start at 1"},
		{name: "both sides", fn: "substring_index", args: []in{lit(str, "www.apache.org"), lit(str, "."), col(i32, 1, 2, 3, -1, -2, -3, 0)},
			want: []any{"www", "www.apache", "www.apache.org", "org", "apache.org", "www.apache.org", ""}},
		{name: "overlapping delimiters", fn: "substring_index", args: []in{lit(str, "aaa"), lit(str, "aa"), col(i32, 1, 2, -1, -2)}, want: []any{"", "a", "", "a"}},
		{name: "first mapping wins", fn: "translate", args: []in{lit(str, "AaBbCc"), lit(str, "aba"), lit(str, "123")}, want: []any{"A1B2Cc"}},
		{name: "delete", fn: "translate", args: []in{col(str, "AaBbCc", nil), lit(str, "abc"), lit(str, "1")}, want: []any{"A1BC", nil}},
		{name: "odd and invalid", fn: "unhex", args: []in{col(str, "537061726B", "F", "GG", "", nil)}, typ: bin, want: []any{"Spark", "\x0f", nil, "", nil}},
		{name: "formats", fn: "to_binary", args: []in{col(str, "616263", "abc", "YWJj"), col(str, "hex", "UTF-8", "base64")}, err: "argument 2 must be a literal format"},
		{name: "invalid hex", fn: "to_binary", args: []in{lit(str, "zz")}, err: `"zz" is not a valid hex string`},
		{name: "unknown format", fn: "to_binary", args: []in{lit(str, "a"), lit(str, "bin")}, err: `argument 2: invalid format "bin"`},
		{name: "invalid base64", fn: "try_to_binary", args: []in{col(str, "YWJj", "a!"), lit(str, "base64")}, typ: bin, want: []any{"abc", nil}},
		{name: "default set", fn: "btrim", args: []in{col(str, "  a  ", nil)}, want: []any{"a", nil}},
		{name: "set second", fn: "btrim", args: []in{lit(str, "xyax"), lit(str, "xy")}, want: []any{"a"}},
		{name: "binary", fn: "left", args: []in{lit(bin, "Spark"), col(i32, 2, 0, 9)}, typ: bin, want: []any{"Sp", "", "Spark"}},
		{name: "strings", fn: "right", args: []in{lit(str, "Spark"), col(i32, 2, 0, -1, 9, nil)}, want: []any{"rk", "", "", "Spark", nil}},
		{name: "binary", fn: "substr", args: []in{lit(bin, "Spark SQL"), lit(i32, -3)}, typ: bin, want: []any{"SQL"}},
		{name: "binary", fn: "concat", args: []in{lit(bin, "ab"), col(bin, "c", nil)}, typ: bin, want: []any{"abc", nil}},
		{name: "binary pad", fn: "lpad", args: []in{lit(bin, "\xaa\xbb"), col(i32, 5, 1)}, typ: bin, want: []any{"\x00\x00\x00\xaa\xbb", "\xaa"}},
		{name: "binary pad bytes", fn: "rpad", args: []in{lit(bin, "\xaa\xbb"), lit(i32, 5), lit(bin, "\x11\x22")}, want: []any{"\xaa\xbb\x11\x22\x11"}},
		{name: "null ends", fn: "concat", args: []in{lit(null, nil), lit(null, nil)}, typ: str, want: []any{nil}},
	})
}
