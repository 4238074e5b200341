package sqlparse

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// String literals read backslash escapes as Spark SQL does by default
// (spark.sql.parser.escapedStringLiterals=false); r'…' is raw.
func TestStringEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{`'a\nb'`, "a\nb"},
		{`'\''`, "'"},
		{`'\\'`, `\`},
		{`"\""`, `"`},
		{`'\u0041'`, "A"},
		{`'\u00e9t\u00E9'`, "été"},
		{`'\ud83d\ude00'`, "😀"}, // a surrogate pair is one character
		{`'\U0001F600'`, "😀"},
		{`'\101\060'`, "A0"}, // octal \[01][0-7][0-7]
		{`'\0'`, "\x00"},
		{`'\t\r\b\Z'`, "\t\r\b\x1a"},
		{`'a\%b\_c'`, `a\%b\_c`}, // kept for LIKE patterns
		{`'\d+\.\q'`, `d+.q`},    // any other character stands for itself
		{`'\é'`, "é"},
		{`'\u12'`, "u12"},       // not four hex digits: plain u
		{`'it''s'`, "it's"},     // a doubled quote is one quote
		{`r'a\nb\''`, `a\nb\'`}, // raw: backslashes kept; \' does not end it
		{`R"C:\tmp"`, `C:\tmp`},
		{"`a\\nb`", `a\nb`}, // back-quoted identifiers have no escapes
	}
	for _, tt := range tests {
		l := newLexer(tt.src)
		tok := l.next()
		require.Empty(t, tok.Err, tt.src)
		require.Equal(t, tt.want, tok.Text, tt.src)
		require.Equal(t, EOF, l.next().Kind, tt.src)
	}
	// An escaped quote does not end the string; a trailing backslash
	// leaves it unterminated.
	tok := newLexer(`'a\'`).next()
	require.Equal(t, Illegal, tok.Kind)
	require.Equal(t, "unterminated string", tok.Err)
	// An identifier starting with r is still one.
	require.Equal(t, "rows", newLexer("rows").next().Text)
}
