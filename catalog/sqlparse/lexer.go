package sqlparse

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sluicedata/sluice/dataframe/query"
)

// Pos is a position in the batch text: a 0-based byte offset and the 1-based
// line and column (columns count characters, not bytes). It is the query
// engine's Pos, so positions of query errors need no translation.
type Pos = query.Pos

// Kind is a token's kind.
type Kind int

// Token kinds.
const (
	EOF       Kind = iota
	Ident          // a bare identifier or keyword
	QuotedID       // a back-quoted identifier (never a keyword)
	String         // a single- or double-quoted string; Text is the unquoted value
	Number         // an integer or decimal literal
	Symbol         // punctuation and operators: ( ) , . ; * = != <> < <= > >= - + :
	Illegal        // a character the dialect does not know, or an unterminated quote
	HexString      // X'0A1B': a binary literal; Text is the hex digits
	Param          // ?: a parameter placeholder, bound to a value passed with the text (see ParseParams)
)

// Token is one lexical token. Text is the identifier, the unquoted string
// value, the number's digits or the symbol; Raw is the exact source text.
type Token struct {
	Kind Kind
	Text string
	Raw  string
	Pos  Pos
	End  int // byte offset just past the token
	Err  string
}

// describe renders a token for an error message.
func (t Token) describe() string {
	switch t.Kind {
	case EOF:
		return "end of statement"
	case String:
		// Not its text: the string may be a secret (a property value).
		return "a quoted string"
	case Illegal:
		return t.Err
	case Symbol:
		if t.Text == ";" {
			return "end of statement"
		}
	}
	return fmt.Sprintf("%q", t.Raw)
}

// describeOpaque is describe without the text of a word or number, for
// places where the token may be (part of) a secret property value.
func (t Token) describeOpaque() string {
	switch t.Kind {
	case Ident:
		return "an unquoted word"
	case Number:
		return "a number"
	case Illegal:
		if strings.HasPrefix(t.Err, "invalid number") {
			return "an invalid number"
		}
	}
	return t.describe()
}

// isKeyword reports whether t is the bare word kw (case-insensitive).
func (t Token) isKeyword(kw string) bool {
	return t.Kind == Ident && strings.EqualFold(t.Text, kw)
}

// lexer turns the whole batch into tokens. Comments are skipped but their
// spans are kept so that SET can take its raw value without them.
type lexer struct {
	src      string
	off      int
	line     int
	col      int
	comments [][2]int
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

func (l *lexer) pos() Pos { return Pos{Offset: l.off, Line: l.line, Col: l.col} }

// advance moves past n bytes, keeping line and column.
func (l *lexer) advance(n int) {
	end := l.off + n
	for l.off < end {
		r, size := utf8.DecodeRuneInString(l.src[l.off:])
		if size == 0 {
			break
		}
		l.off += size
		if r == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
	}
	if l.off > end {
		// A multi-byte rune straddled end: cannot happen for the ASCII
		// lengths callers pass, but keep offsets inside the text.
		l.off = end
	}
}

func (l *lexer) peekByte(i int) byte {
	if l.off+i < len(l.src) {
		return l.src[l.off+i]
	}
	return 0
}

// skipSpaceAndComments skips whitespace, `-- …` line comments and `/* … */`
// block comments. An unterminated block comment runs to the end of text.
func (l *lexer) skipSpaceAndComments() {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.advance(1)
		case c == '-' && l.peekByte(1) == '-':
			start := l.off
			i := strings.IndexByte(l.src[l.off:], '\n')
			if i < 0 {
				i = len(l.src) - l.off
			}
			l.advance(i)
			l.comments = append(l.comments, [2]int{start, l.off})
		case c == '/' && l.peekByte(1) == '*':
			start := l.off
			i := strings.Index(l.src[l.off+2:], "*/")
			if i < 0 {
				l.advance(len(l.src) - l.off)
			} else {
				l.advance(i + 4)
			}
			l.comments = append(l.comments, [2]int{start, l.off})
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }

// next returns the next token.
func (l *lexer) next() Token {
	l.skipSpaceAndComments()
	start := l.pos()
	if l.off >= len(l.src) {
		return Token{Kind: EOF, Pos: start, End: l.off}
	}
	c := l.src[l.off]
	tok := Token{Pos: start}
	switch {
	case (c == 'x' || c == 'X') && l.off+1 < len(l.src) && l.src[l.off+1] == '\'':
		// X'…': a binary literal in hex digits.
		l.advance(1)
		l.quoted(&tok, '\'', true)
		if tok.Kind == String {
			tok.Kind = HexString
		}
	case (c == 'r' || c == 'R') && l.off+1 < len(l.src) && (l.src[l.off+1] == '\'' || l.src[l.off+1] == '"'):
		// r'…': a raw string, backslashes as they are.
		l.advance(1)
		l.quoted(&tok, l.src[l.off], true)
	case isIdentStart(c):
		n := 1
		for l.off+n < len(l.src) && isIdentPart(l.src[l.off+n]) {
			n++
		}
		tok.Kind, tok.Text = Ident, l.src[l.off:l.off+n]
		l.advance(n)
	case isDigit(c) || c == '.' && isDigit(l.peekByte(1)):
		n := 0
		for l.off+n < len(l.src) && isDigit(l.src[l.off+n]) {
			n++
		}
		if l.off+n < len(l.src) && l.src[l.off+n] == '.' {
			n++
			for l.off+n < len(l.src) && isDigit(l.src[l.off+n]) {
				n++
			}
		}
		if l.off+n < len(l.src) && (l.src[l.off+n] == 'e' || l.src[l.off+n] == 'E') {
			m := n + 1
			if l.off+m < len(l.src) && (l.src[l.off+m] == '+' || l.src[l.off+m] == '-') {
				m++
			}
			if l.off+m < len(l.src) && isDigit(l.src[l.off+m]) {
				for l.off+m < len(l.src) && isDigit(l.src[l.off+m]) {
					m++
				}
				n = m
			}
		}
		// A type suffix: 1Y, 1S, 1L, 1.5D, 1.5F, 1.5BD.
		if k := numberSuffix(l.src[l.off+n:]); k > 0 {
			n += k
		}
		tok.Kind, tok.Text = Number, l.src[l.off:l.off+n]
		l.advance(n)
		if l.off < len(l.src) && isIdentStart(l.src[l.off]) {
			// `12abc` is neither a number nor an identifier.
			for l.off < len(l.src) && isIdentPart(l.src[l.off]) {
				l.advance(1)
			}
			tok.Kind = Illegal
			tok.Err = fmt.Sprintf("invalid number %q", l.src[start.Offset:l.off])
		}
	case c == '\'' || c == '"' || c == '`':
		l.quoted(&tok, c, false)
	case c == '?':
		tok.Kind, tok.Text = Param, "?"
		l.advance(1)
	default:
		two := ""
		if l.off+1 < len(l.src) {
			two = l.src[l.off : l.off+2]
		}
		if l.off+2 < len(l.src) && (l.src[l.off:l.off+3] == "<=>" || l.src[l.off:l.off+3] == ">>>") {
			two = l.src[l.off : l.off+3]
		}
		switch two {
		case "<=>", ">>>":
			tok.Kind, tok.Text = Symbol, two
			l.advance(3)
		case "!=", "<>", "<=", ">=", "||", "==", "<<", ">>", "->":
			tok.Kind, tok.Text = Symbol, two
			l.advance(2)
		default:
			switch c {
			case '(', ')', ',', '.', ';', '*', '=', '<', '>', '-', '+', ':', '/', '%', '[', ']', '|', '&', '^', '!', '~':
				tok.Kind, tok.Text = Symbol, string(c)
				l.advance(1)
			default:
				r, size := utf8.DecodeRuneInString(l.src[l.off:])
				tok.Kind = Illegal
				if r == utf8.RuneError && size <= 1 {
					tok.Err = fmt.Sprintf("invalid UTF-8 byte 0x%02x", c)
					size = 1
				} else {
					tok.Err = fmt.Sprintf("unexpected character %q", r)
				}
				l.advance(size)
			}
		}
	}
	tok.End = l.off
	tok.Raw = l.src[start.Offset:l.off]
	return tok
}

// numberSuffix is the length of a literal's type suffix at the start of
// rest (Y, S, L, D, F or BD, any case, not followed by a letter or digit),
// or 0.
func numberSuffix(rest string) int {
	k := 0
	switch {
	case len(rest) >= 2 && strings.EqualFold(rest[:2], "bd"):
		k = 2
	case len(rest) >= 1 && strings.ContainsRune("ySlLdDfFYs", rune(rest[0])):
		k = 1
	default:
		return 0
	}
	if len(rest) > k && isIdentPart(rest[k]) {
		return 0
	}
	return k
}

// quoted scans a quoted string or back-quoted identifier; a doubled quote
// stands for itself. In a string a backslash escapes as in Spark SQL (see
// unescape); in a raw string (r'…') it stays, but \' still does not end it. Unterminated, it consumes the rest of the text (so no
// `;` inside it splits the batch) and becomes an Illegal token.
func (l *lexer) quoted(tok *Token, q byte, raw bool) {
	var b strings.Builder
	i := l.off + 1
	for i < len(l.src) {
		c := l.src[i]
		if c == '\\' && q != '`' && i+1 < len(l.src) {
			if raw {
				// Kept as written, but \' does not end the string.
				b.WriteString(l.src[i : i+2])
				i += 2
			} else {
				i = unescape(&b, l.src, i)
			}
			continue
		}
		if c == q {
			if i+1 < len(l.src) && l.src[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			l.advance(i + 1 - l.off)
			tok.Text = b.String()
			if q == '`' {
				tok.Kind = QuotedID
			} else {
				tok.Kind = String
			}
			return
		}
		b.WriteByte(c)
		i++
	}
	l.advance(len(l.src) - l.off)
	tok.Kind = Illegal
	if q == '`' {
		tok.Err = "unterminated back-quoted identifier"
	} else {
		tok.Err = "unterminated string"
	}
}

// unescape writes the character the escape at src[i] (a backslash) stands
// for, as Spark SQL reads string literals by default
// (spark.sql.parser.escapedStringLiterals=false), and returns the offset
// after it: \uXXXX (UTF-16; a surrogate pair makes one character),
// \UXXXXXXXX, octal \[01][0-7][0-7], \0 \b \n \r \t \Z (0x1A); \% and \_
// keep their backslash (for LIKE); any other character stands for itself
// (\' \" \\).
func unescape(b *strings.Builder, src string, i int) int {
	hex := func(from, n int) (rune, bool) {
		if from+n > len(src) {
			return 0, false
		}
		v, err := strconv.ParseUint(src[from:from+n], 16, 32)
		return rune(v), err == nil
	}
	switch c := src[i+1]; {
	case c == 'u':
		if r, ok := hex(i+2, 4); ok {
			if utf16.IsSurrogate(r) && strings.HasPrefix(src[i+6:], "\\u") {
				if r2, ok := hex(i+8, 4); ok {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						b.WriteRune(pair)
						return i + 12
					}
				}
			}
			b.WriteRune(r) // a lone surrogate becomes U+FFFD
			return i + 6
		}
	case c == 'U':
		if r, ok := hex(i+2, 8); ok && utf8.ValidRune(r) {
			b.WriteRune(r)
			return i + 10
		}
	case (c == '0' || c == '1') && i+3 < len(src) && isOctal(src[i+2]) && isOctal(src[i+3]):
		b.WriteByte((c-'0')<<6 | (src[i+2]-'0')<<3 | (src[i+3] - '0'))
		return i + 4
	}
	c := src[i+1]
	switch c {
	case '0':
		b.WriteByte(0)
	case 'b':
		b.WriteByte('\b')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'Z':
		b.WriteByte(0x1A)
	case '%', '_':
		b.WriteByte('\\')
		b.WriteByte(c)
	default:
		// Any other character, whole (a multi-byte one too).
		r, size := utf8.DecodeRuneInString(src[i+1:])
		b.WriteRune(r)
		return i + 1 + size
	}
	return i + 2
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// isTerminator reports whether t ends a statement: a `;` (always outside
// quotes, back-quotes and comments, by construction) or the end of text.
func (t Token) isTerminator() bool {
	return t.Kind == EOF || t.Kind == Symbol && t.Text == ";"
}

// rawText returns src[from:to] without the comments inside that range.
func (l *lexer) rawText(from, to int) string {
	var b strings.Builder
	at := from
	for _, c := range l.comments {
		if c[1] <= at || c[0] >= to {
			continue
		}
		if c[0] > at {
			b.WriteString(l.src[at:c[0]])
		}
		// A comment separates what surrounds it, like whitespace.
		b.WriteByte(' ')
		at = c[1]
	}
	if at < to {
		b.WriteString(l.src[at:to])
	}
	return b.String()
}
