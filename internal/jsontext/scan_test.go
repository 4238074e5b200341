package jsontext

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// validate runs the scanner over a whole document as the readers do: one
// value, whitespace around it, nothing after.
func validate(data []byte) (*Scanner, bool) {
	s := &Scanner{Data: data, MaxDepth: DefaultMaxDepth}
	pos := s.SkipValue(s.SkipWS(0), 0)
	if pos < 0 {
		return s, false
	}
	if pos = s.SkipWS(pos); pos != len(data) {
		s.Fail(pos, "trailing data")
		return s, false
	}
	return s, true
}

// TestSkipValueAgreesWithEncodingJSON: the scanner accepts exactly the
// documents encoding/json accepts.
func TestSkipValueAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		``, ` `, `null`, `nul`, `nulls`, `true`, `True`, `false`, `fals`,
		`0`, `-0`, `01`, `-`, `-a`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E+2`, `1e-07`, `-0.0e0`, `+1`,
		`12345678901234567890123`, `1.7976931348623157e309`,
		`""`, `"a"`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00"`,
		`"\x"`, `"a` + "\x01" + `"`, `"a` + "\x7f" + `"`, `"unterminated`, `"ends with backslash\`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"café"`, "\"\xff\xfe\"",
		`"exactly 8"`, `"0123456789abcdef\"0123"`, `"0123456\\"`,
		`[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2`, `[[[]]]`, `[1,[2,[3]]]`,
		`{}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b":[true,null]}`, `{"a":1,}`, `{"a"1}`, `{a:1}`, `{"a":}`,
		`{"a":1 "b":2}`, `{"a":{"b":{"c":"d"}}}`, `{"":""}`, `{"a":1}}`, `[1]]`,
		` {"a":1} `, "\t[\r\n1\n]\n", `1 2`, `{"a":1} x`,
	} {
		_, ok := validate([]byte(doc))
		require.Equal(t, json.Valid([]byte(doc)), ok, "%q", doc)
	}
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc    string
		offset int64
		msg    string
	}{
		{``, 0, "unexpected end of input, expected a value"},
		{`{"a":1,}`, 7, `expected a field name: unexpected character '}'`},
		{`{"a" 1}`, 5, `expected ':' after field name: unexpected character '1'`},
		{`[1 2]`, 3, `expected ',' or ']' in array: unexpected character '2'`},
		{`{"a":1 "b":2}`, 7, `expected ',' or '}' in object: unexpected character '"'`},
		{`[1,2`, 4, `expected ',' or ']' in array: unexpected end of input`},
		{`"abc`, 4, "unterminated string starting at byte offset 0"},
		{`["x\q"]`, 3, `invalid escape \q in string`},
		{`"\u12"`, 1, `invalid \u escape in string`},
		{"\"a\tb\"", 2, "control character 0x09 in string"},
		{`-x`, 1, `invalid number: unexpected character 'x'`},
		{`1.e5`, 2, "invalid number: expected a digit after '.'"},
		{`[1e]`, 3, "invalid number: expected a digit in exponent"},
		{`[tru]`, 1, "invalid literal, expected true"},
		{"[\x00]", 1, "unexpected byte 0x00, expected a value"},
		{`@`, 0, `unexpected character '@', expected a value`},
	} {
		s, ok := validate([]byte(tc.doc))
		require.False(t, ok, tc.doc)
		require.NotNil(t, s.Err, tc.doc)
		require.Equal(t, tc.offset, s.Err.Offset, tc.doc)
		require.Equal(t, tc.msg, s.Err.Msg, tc.doc)
	}
}

func TestSyntaxErrorText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "invalid JSON at byte offset 7: oops", (&SyntaxError{Offset: 7, Msg: "oops"}).Error())
	require.Equal(t, "invalid JSON at byte offset 7 (line 2): oops in document 1",
		(&SyntaxError{Offset: 7, Line: 2, Msg: "oops", Doc: 1, Docs: 3}).Error())
	// The first failure is kept; Base and Doc place it in the caller's input.
	s := &Scanner{Data: []byte(`[x]`), Base: 100, Doc: 4, MaxDepth: 8}
	require.Equal(t, -1, s.SkipValue(0, 0))
	s.Fail(2, "later")
	require.Equal(t, int64(101), s.Err.Offset)
	require.Equal(t, 4, s.Err.Doc)
}

func TestMaxDepth(t *testing.T) {
	t.Parallel()
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	s := &Scanner{Data: deep(3), MaxDepth: 3}
	require.Equal(t, 6, s.SkipValue(0, 0))
	s = &Scanner{Data: deep(4), MaxDepth: 3}
	require.Equal(t, -1, s.SkipValue(0, 0))
	require.Equal(t, "nesting deeper than 3 levels", s.Err.Msg)
	require.Equal(t, int64(3), s.Err.Offset)
	s = &Scanner{Data: []byte(`{"a":{"b":{"c":{}}}}`), MaxDepth: 3}
	require.Equal(t, -1, s.SkipValue(0, 0))
	// A document far deeper than the limit fails without deep recursion.
	s = &Scanner{Data: deep(100000), MaxDepth: DefaultMaxDepth}
	require.Equal(t, -1, s.SkipValue(0, 0))
}

// TestScanStringStops puts every kind of stop byte at every offset around
// the eight-byte scan's word boundaries.
func TestScanStringStops(t *testing.T) {
	t.Parallel()
	for n := 0; n < 20; n++ {
		pre := strings.Repeat("a", n)
		for _, tc := range []struct {
			body  string
			flags int
			ok    bool
		}{
			{pre, 0, true},
			{pre + `\"x`, strEscaped, true},
			{pre + `\\`, strEscaped, true},
			{pre + `\u00e9`, strEscaped, true},
			{pre + "é", strHigh, true},
			{"é" + pre, strHigh, true},
			{pre + "\x1f", 0, false},
			{pre + "\x80", strHigh, true},
		} {
			doc := []byte(`"` + tc.body + `"`)
			s := &Scanner{Data: doc}
			end, flags := s.ScanString(0)
			if !tc.ok {
				require.Equal(t, -1, end, "%q", doc)
				require.Equal(t, int64(n+1), s.Err.Offset, "%q", doc)
				continue
			}
			require.Equal(t, len(doc), end, "%q", doc)
			require.Equal(t, tc.flags, flags, "%q", doc)
			require.Equal(t, !utf8.Valid(doc), s.BadUTF8, "%q", doc)
			// The key scan and the end finders of pass 2 agree.
			kend, _ := (&Scanner{Data: doc}).ScanKey(0)
			require.Equal(t, end, kend, "%q", doc)
			require.Equal(t, end, StringEnd(doc, 0), "%q", doc)
			kEnd, escaped := KeyEnd(doc, 0)
			require.Equal(t, end, kEnd, "%q", doc)
			require.Equal(t, flags&strEscaped != 0, escaped, "%q", doc)
		}
	}
}

func TestStringEndAfterBackslashes(t *testing.T) {
	t.Parallel()
	for doc, end := range map[string]int{
		`"a\\"b`:      5, // an escaped backslash, then the closing quote
		`"a\"b"`:      6,
		`"\\\""`:      6,
		`"\\\\"x`:     6,
		`"x\\\\\""`:   9,
		`"é\"\\"rest`: 8,
	} {
		require.Equal(t, end, StringEnd([]byte(doc), 0), doc)
	}
}

// TestDecoding compares the decoded text of strings with encoding/json's:
// escapes, surrogate pairs, lone surrogates and invalid UTF-8 (U+FFFD).
func TestDecoding(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`"plain"`, `"tab\there"`, `"\u00e9t\u00E9"`, `"\ud83d\ude00 smile"`, `"\ud83d alone"`, `"\ude00"`,
		`"\ud83d\u0041"`, `"\/\\\""`, "\"caf\xc3\xa9\"", "\"bad \xff byte\"", "\"cut \xe2\x82\"", `"\u0000"`,
	} {
		var want string
		require.NoError(t, json.Unmarshal([]byte(doc), &want), doc)
		d := []byte(doc)
		s := &Scanner{Data: d}
		end, flags := s.ScanString(0)
		require.Positive(t, end, doc)
		var buf []byte
		require.Equal(t, want, string(StringBody(d, 0, end, flags, &buf)), doc)
		require.Equal(t, want, string(s.Body(0, end, flags, &buf)), doc)
		require.Equal(t, want, string(s.ValidBody(0, end, &buf)), doc)
	}
}

func TestScanNumberClasses(t *testing.T) {
	t.Parallel()
	for num, class := range map[string]int{
		"0": NumLong, "-0": NumLong, "42": NumLong,
		"9223372036854775807":   NumLong,
		"-9223372036854775808":  NumLong,
		"9223372036854775808":   NumDecimal,
		"-9223372036854775809":  NumDecimal,
		strings.Repeat("9", 38): NumDecimal,
		strings.Repeat("9", 39): NumDouble,
		"1.5":                   NumDouble, "1e3": NumDouble, "-2E-2": NumDouble, "10.0": NumDouble,
	} {
		s := &Scanner{Data: []byte(num + ",")}
		end, c := s.ScanNumber(0)
		require.Equal(t, len(num), end, num)
		require.Equal(t, class, c, num)
		switch class {
		case NumLong:
			want, err := strconv.ParseInt(num, 10, 64)
			require.NoError(t, err)
			require.Equal(t, want, ParseLong([]byte(num)), num)
		case NumDouble:
			want, err := strconv.ParseFloat(num, 64)
			require.NoError(t, err)
			require.Equal(t, want, ParseDouble([]byte(num)), num)
		}
	}
	require.Equal(t, float64(-123456789012345), ParseDouble([]byte("-123456789012345")))
	require.True(t, math.IsInf(ParseDouble([]byte("1e999")), 1))
	require.True(t, math.IsInf(ParseDouble([]byte("-1e999")), -1))
}

func TestAppendCompact(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{ "a" : [ 1 , 2.5e3 , "x y" , {"k" : null} ] , "b" : "\" ]}" }`,
		"[\n\t true ,\r\n false ]",
		`"lone string"`, `[]`, `{}`, `[[ ], { }]`, `-12.5`,
	} {
		var want bytes.Buffer
		require.NoError(t, json.Compact(&want, []byte(doc)), doc)
		got, end := AppendCompact([]byte("prefix:"), []byte(doc+" ,tail"), 0)
		require.Equal(t, "prefix:"+want.String(), string(got), doc)
		require.Equal(t, len(doc), end, doc)
	}
}

func TestWalkPath(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"a": {"b": [1, 2], "b": "second"}, "x\u0041": 3, "c": 4}`)
	find := func(path ...string) (string, bool) {
		s := &Scanner{Data: doc, MaxDepth: DefaultMaxDepth}
		var got string
		found := false
		end := s.WalkPath(0, path, 0, func(pos, depth int) int {
			found = true
			end := s.SkipValue(pos, depth)
			got = string(doc[pos:end])
			return end
		})
		require.Equal(t, len(doc), end, "%v: %v", path, s.Err)
		return got, found
	}
	v, ok := find("a", "b")
	require.True(t, ok)
	require.Equal(t, "[1, 2]", v, "the first of repeated keys")
	v, ok = find("xA")
	require.True(t, ok, "escaped keys are decoded")
	require.Equal(t, "3", v)
	_, ok = find("a", "b", "c")
	require.False(t, ok, "a path through a non-object ends")
	_, ok = find("missing")
	require.False(t, ok)
	v, _ = find()
	require.Equal(t, string(doc), v)

	// Values skipped along the way are still checked.
	s := &Scanner{Data: []byte(`{"skip": [1,,2], "a": 1}`), MaxDepth: 8}
	require.Equal(t, -1, s.WalkPath(0, []string{"a"}, 0, func(pos, depth int) int { return s.SkipValue(pos, depth) }))
	require.Equal(t, "expected a value", s.Err.Msg[len(s.Err.Msg)-len("expected a value"):])
}

func TestLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"abc", -1}, {"ab\ncd", 2}, {"ab\r\ncd", 2}, {"ab\rcd\n", 2}, {"\n", 0}, {"ab\ncd\r", 2},
	} {
		require.Equal(t, tc.want, LineBreak([]byte(tc.in), strings.Contains(tc.in, "\r")), "%q", tc.in)
	}
	d := []byte("a\nb\r\nc\rd\n\ne")
	for off, line := range map[int64]int{0: 1, 1: 1, 2: 2, 4: 2, 5: 3, 7: 4, 9: 5, 10: 6, 100: 6} {
		require.Equal(t, line, LineOf(d, off), "offset %d", off)
	}
}

func TestKindName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "an object", KindName('{'))
	require.Equal(t, "a string", KindName('"'))
	require.Equal(t, "a boolean", KindName('f'))
	require.Equal(t, "a number", KindName('-'))
}

// FuzzScanner: for any input the scanner agrees with encoding/json on
// validity, never panics, and for valid input compacts and decodes as
// encoding/json does.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{
		`{"a": [1, 2.5, "x\u00e9\ud83d\ude00", null, true], "b": {"c": -0e1}}`,
		`"\ud83d"`, "\"\xff\"", `[1,]`, `{"a"}`, `12345678901234567890`, " [\r\n] ", `"abcdefgh\"ijklmnop"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok := validate(data)
		if ok != json.Valid(data) {
			t.Fatalf("scanner says valid=%v, encoding/json %v: %q (%v)", ok, !ok, data, s.Err)
		}
		if !ok {
			if s.Err == nil || s.Err.Offset < 0 || s.Err.Offset > int64(len(data)) {
				t.Fatalf("invalid input without a usable error: %q: %+v", data, s.Err)
			}
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatal(err)
		}
		start := s.SkipWS(0)
		got, _ := AppendCompact(nil, data, start)
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("compact %q = %q, want %q", data, got, want.Bytes())
		}
		if data[start] == '"' {
			var str string
			if err := json.Unmarshal(data, &str); err != nil {
				t.Fatal(err)
			}
			end, flags := s.ScanString(start)
			var buf []byte
			if body := StringBody(data, start, end, flags, &buf); string(body) != str {
				t.Fatalf("decoded %q = %q, want %q", data, body, str)
			}
			if q := AppendString(nil, str); !json.Valid(q) {
				t.Fatalf("AppendString(%q) = %q is not JSON", str, q)
			}
		}
	})
}
