// Package jsontext is Sluice's JSON text at the byte level: the scanner
// (validation, strings, numbers, line breaks and paths over a []byte,
// without encoding/json and without building values) and the writers of
// JSON strings, numbers, times and base64. The JSON reader
// (dataframe/jsonframe), the path lookup (internal/jsonpath) and the row
// printers (dataframe) share it. See docs/frames.md#json--frame.
package jsontext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// SyntaxError is invalid JSON input. Offset is the 0-based byte offset of
// the problem in the document (for ReadNDJSON: in the whole input, and Line
// is the 1-based line). Doc is the 0-based index of the document among
// several; Docs is how many there were.
type SyntaxError struct {
	Doc    int
	Offset int64
	Msg    string
	Line   int
	Docs   int
}

// Error reads "invalid JSON at byte offset N: msg", followed by
// " in document D" when the input had several documents.
func (e *SyntaxError) Error() string {
	s := "invalid JSON at byte offset " + strconv.FormatInt(e.Offset, 10)
	if e.Line > 0 {
		s += " (line " + strconv.Itoa(e.Line) + ")"
	}
	s += ": " + e.Msg
	if e.Docs > 1 {
		s += " in document " + strconv.Itoa(e.Doc)
	}
	return s
}

// Scanner holds one document's bytes and the first error found in them.
// Positions are ints into Data; a method that fails sets Err and returns
// -1, which every caller checks before going on. The JSON reader
// (dataframe/jsonframe) embeds it in its own scanner and adds inference
// and building; internal/jsonpath walks paths with it.
type Scanner struct {
	Data      []byte
	Base      int64 // offset of Data within the caller's input, for errors
	Doc       int   // index of the document among several, for errors
	MaxDepth  int
	Err       *SyntaxError
	KeyBuf    []byte // decoded field names
	Buf       []byte // decoded strings and compacted JSON text
	BadUTF8   bool   // a scanned string held bytes that are not valid UTF-8
	TrustUTF8 bool   // the document is known to be valid UTF-8
}

// DefaultMaxDepth is the nesting limit when the caller sets none.
const DefaultMaxDepth = 512

func (s *Scanner) Fail(pos int, format string, args ...any) int {
	if s.Err == nil {
		s.Err = &SyntaxError{Doc: s.Doc, Offset: s.Base + int64(pos), Msg: fmt.Sprintf(format, args...)}
	}
	return -1
}

// Describe names the byte at pos for an error message.
func (s *Scanner) Describe(pos int) string {
	if pos >= len(s.Data) {
		return "unexpected end of input"
	}
	c := s.Data[pos]
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("unexpected byte 0x%02x", c)
	}
	return fmt.Sprintf("unexpected character %q", c)
}

var Space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func (s *Scanner) SkipWS(pos int) int {
	d := s.Data
	// Most tokens follow each other without whitespace.
	if pos < len(d) && d[pos] > ' ' {
		return pos
	}
	for pos < len(d) && Space[d[pos]] {
		pos++
	}
	return pos
}

// First starts the array or object whose opening bracket is at open
// (close is ']' or '}'): the position of its first element or member and
// true, or, when it is empty, the position after its close and false.
func (s *Scanner) First(open int, close byte) (int, bool) {
	pos := s.SkipWS(open + 1)
	if pos < len(s.Data) && s.Data[pos] == close {
		return pos + 1, false
	}
	return pos, true
}

// Next follows an element or member that ended at end inside an array or
// object (close is ']' or '}'): after a ',' it is where the next one starts
// and true; after close, the position past it and false. Anything else is
// -1 and false — an error of the Scanner naming what was found when strict,
// nothing more for a caller that falls back. With First:
//
//	for pos, more = s.First(pos, ']'); more; pos, more = s.Next(pos, ']', true) {
//		if pos = s.SkipValue(pos, depth+1); pos < 0 {
//			return -1
//		}
//	}
//	return pos
func (s *Scanner) Next(end int, close byte, strict bool) (int, bool) {
	// Compact JSON, inlined: a ',' right after the value, then no space.
	if d := s.Data; end+1 < len(d) && d[end] == ',' && d[end+1] > ' ' {
		return end + 1, true
	}
	return s.next(end, close, strict)
}

func (s *Scanner) next(end int, close byte, strict bool) (int, bool) {
	d := s.Data
	pos := s.SkipWS(end)
	if pos < len(d) {
		switch d[pos] {
		case ',':
			return s.SkipWS(pos + 1), true
		case close:
			return pos + 1, false
		}
	}
	if strict {
		in := "array"
		if close == '}' {
			in = "object"
		}
		s.Fail(pos, "expected ',' or '%c' in %s: %s", close, in, s.Describe(pos))
	}
	return -1, false
}

// strStop marks the bytes that end the fast part of a string scan.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// keyStop marks the bytes that send a field name to the full string scan.
var keyStop = func() (t [256]bool) {
	t = strStop
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// ScanKey is scanString for field names: they are short and plain, so a
// byte loop beats the eight-byte scan.
func (s *Scanner) ScanKey(pos int) (end int, flags int) {
	d := s.Data
	for i := pos + 1; i < len(d); i++ {
		if keyStop[d[i]] {
			if d[i] == '"' {
				return i + 1, 0
			}
			break
		}
	}
	return s.ScanString(pos)
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// stringFlags describe a scanned string so the builder can copy it as is
// when it has no escapes and is plain ASCII or valid UTF-8.
const (
	strEscaped = 1 << iota
	strHigh
)

// ScanString scans the string whose opening quote is at pos. It returns
// the position after the closing quote and flags; the content is
// data[pos+1 : end-1].
func (s *Scanner) ScanString(pos int) (end int, flags int) {
	d := s.Data
	i := pos + 1
	var acc uint64
	for {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control character.
		for i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			q := x ^ (lo8 * '"')
			b := x ^ (lo8 * '\\')
			stop := (((q - lo8) &^ q) | ((b - lo8) &^ b) | ((x - lo8*0x20) &^ x)) & hi8
			if stop != 0 {
				// The lowest flagged byte is a true stop (borrows only
				// flag bytes above one).
				k := bits.TrailingZeros64(stop) &^ 7
				acc |= x & (1<<k - 1)
				i += k >> 3
				goto stopByte
			}
			acc |= x
			i += 8
		}
		for i < len(d) && !strStop[d[i]] {
			acc |= uint64(d[i])
			i++
		}
		if i >= len(d) {
			return s.Fail(i, "unterminated string starting at byte offset %d", s.Base+int64(pos)), 0
		}
	stopByte:
		c := d[i]
		switch {
		case c == '"':
			if acc&hi8 != 0 {
				// Only strings with a non-ASCII byte are checked, not the
				// whole line: most bytes of most lines are plain ASCII.
				flags |= strHigh
				if !s.BadUTF8 && !utf8.Valid(d[pos+1:i]) {
					s.BadUTF8 = true
				}
			}
			return i + 1, flags
		case c == '\\':
			flags |= strEscaped
			if i+1 >= len(d) {
				return s.Fail(i+1, "unterminated string starting at byte offset %d", s.Base+int64(pos)), 0
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= len(d) || unhex(d[i+k]) < 0 {
						return s.Fail(i, "invalid \\u escape in string"), 0
					}
				}
				i += 6
			default:
				return s.Fail(i, "invalid escape \\%c in string", d[i+1]), 0
			}
		default:
			return s.Fail(i, "control character 0x%02x in string", c), 0
		}
	}
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// AppendDecoded appends the decoded content of a scanned (valid) string
// body to dst: escapes resolved, surrogate pairs joined, invalid UTF-8 and
// lone surrogates replaced by U+FFFD.
func AppendDecoded(dst, body []byte) []byte { return appendUnescaped(dst, body, false) }

// appendUnescaped is appendDecoded that skips the UTF-8 checks when the
// document is known to be valid.
func appendUnescaped(dst, body []byte, validUTF8 bool) []byte {
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			j := bytes.IndexByte(body[i:], '\\')
			if j < 0 {
				j = len(body)
			} else {
				j += i
			}
			if validUTF8 {
				dst = append(dst, body[i:j]...)
			} else {
				dst = AppendValidUTF8(dst, body[i:j])
			}
			i = j
			continue
		}
		switch e := body[i+1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(body[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2 = hex4(body[i+2:])
				}
				if dr := utf16.DecodeRune(r, r2); dr != utf8.RuneError {
					r = dr
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
		i += 2
	}
	return dst
}

// AppendValidUTF8 appends seg with invalid UTF-8 bytes replaced by U+FFFD.
func AppendValidUTF8(dst, seg []byte) []byte {
	if utf8.Valid(seg) {
		return append(dst, seg...)
	}
	for i := 0; i < len(seg); {
		r, size := utf8.DecodeRune(seg[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, seg[i:i+size]...)
		}
		i += size
	}
	return dst
}

func hex4(b []byte) rune {
	return rune(unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3]))
}

// StringBody returns the usable bytes of the string scanned at [pos, end):
// the raw slice when it needs no decoding, else the decoded text in *buf.
func StringBody(d []byte, pos, end, flags int, buf *[]byte) []byte {
	body := d[pos+1 : end-1]
	if flags == 0 || (flags == strHigh && utf8.Valid(body)) {
		return body
	}
	*buf = AppendDecoded((*buf)[:0], body)
	return *buf
}

// Body is stringBody that trusts the UTF-8 of documents known to be
// valid.
func (s *Scanner) Body(pos, end, flags int, buf *[]byte) []byte {
	body := s.Data[pos+1 : end-1]
	if flags == 0 || flags == strHigh && (s.TrustUTF8 || utf8.Valid(body)) {
		return body
	}
	*buf = appendUnescaped((*buf)[:0], body, s.TrustUTF8)
	return *buf
}

// StringEnd finds the end of the string at pos, which pass 1 validated:
// the position after its closing quote. It leans on bytes.IndexByte,
// which is vectorised.
func StringEnd(d []byte, pos int) int {
	i := pos + 1
	for {
		i += bytes.IndexByte(d[i:], '"')
		k := i - 1
		for d[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
		i++
	}
}

// ValidBody is the decoded content of the validated string at [pos, end),
// raw when possible, else decoded into *buf.
func (s *Scanner) ValidBody(pos, end int, buf *[]byte) []byte {
	body := s.Data[pos+1 : end-1]
	if bytes.IndexByte(body, '\\') < 0 && (s.TrustUTF8 || utf8.Valid(body)) {
		return body
	}
	*buf = appendUnescaped((*buf)[:0], body, s.TrustUTF8)
	return *buf
}

// KeyEnd finds the end of a validated field name; names are short, so a
// plain loop beats IndexByte. escaped reports a backslash.
func KeyEnd(d []byte, pos int) (end int, escaped bool) {
	for i := pos + 1; ; i++ {
		switch d[i] {
		case '"':
			return i + 1, false
		case '\\':
			return StringEnd(d, pos), true
		}
	}
}

// Number classes found by scanNumber.
const (
	NumLong = iota + 1
	NumDouble
	NumDecimal
)

// ScanNumber validates the number at pos and says whether it is an integer
// that fits in int64 (numLong), an integer beyond it of at most 38 digits
// (numDecimal: Spark's decimal(p,0)) or anything else (numDouble).
func (s *Scanner) ScanNumber(pos int) (end int, class int) {
	d := s.Data
	i := pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	digitsStart := i
	if i >= len(d) {
		return s.Fail(i, "unexpected end of input in number"), 0
	}
	if d[i] == '0' {
		i++
	} else if d[i] >= '1' && d[i] <= '9' {
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	} else {
		return s.Fail(i, "invalid number: %s", s.Describe(i)), 0
	}
	intDigits := i - digitsStart
	class = NumLong
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return s.Fail(i, "invalid number: expected a digit after '.'"), 0
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		class = NumDouble
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return s.Fail(i, "invalid number: expected a digit in exponent"), 0
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		class = NumDouble
	}
	if class == NumLong && intDigits >= 19 {
		if _, err := strconv.ParseInt(bytesString(d[pos:i]), 10, 64); err != nil {
			class = NumDouble
			if intDigits <= sparktype.MaxPrecision {
				class = NumDecimal
			}
		}
	}
	return i, class
}

// bytesString views b as a string without copying; the string must not
// outlive b or be kept.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ParseLong parses a validated integer literal that fits in int64.
func ParseLong(b []byte) int64 {
	if len(b) >= 19 {
		v, _ := strconv.ParseInt(bytesString(b), 10, 64)
		return v
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var v int64
	for _, c := range b {
		v = v*10 + int64(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

// ParseDouble parses a validated number literal.
func ParseDouble(b []byte) float64 {
	// Short integers convert exactly without strconv.
	if len(b) <= 15 {
		simple := true
		for _, c := range b {
			if c < '0' || c > '9' {
				if c != '-' {
					simple = false
					break
				}
			}
		}
		if simple {
			return float64(ParseLong(b))
		}
	}
	// Out of range, ParseFloat returns ±Inf with an error: that is what a
	// double column can hold.
	f, _ := strconv.ParseFloat(bytesString(b), 64)
	return f
}

// ScanLiteral checks that lit starts at pos.
func (s *Scanner) ScanLiteral(pos int, lit string) int {
	d := s.Data
	if len(d)-pos < len(lit) || string(d[pos:pos+len(lit)]) != lit {
		return s.Fail(pos, "invalid literal, expected %s", lit)
	}
	return pos + len(lit)
}

// SkipValue validates and skips the value at pos (whitespace already
// skipped).
func (s *Scanner) SkipValue(pos, depth int) int {
	d := s.Data
	if pos >= len(d) {
		return s.Fail(pos, "unexpected end of input, expected a value")
	}
	switch c := d[pos]; c {
	case '"':
		end, _ := s.ScanString(pos)
		return end
	case '{':
		if depth >= s.MaxDepth {
			return s.Fail(pos, "nesting deeper than %d levels", s.MaxDepth)
		}
		var more bool
		for pos, more = s.First(pos, '}'); more; pos, more = s.Next(pos, '}', true) {
			if pos >= len(d) || d[pos] != '"' {
				return s.Fail(pos, "expected a field name: %s", s.Describe(pos))
			}
			if pos, _ = s.ScanString(pos); pos < 0 {
				return -1
			}
			pos = s.SkipWS(pos)
			if pos >= len(d) || d[pos] != ':' {
				return s.Fail(pos, "expected ':' after field name: %s", s.Describe(pos))
			}
			if pos = s.SkipValue(s.SkipWS(pos+1), depth+1); pos < 0 {
				return -1
			}
		}
		return pos
	case '[':
		if depth >= s.MaxDepth {
			return s.Fail(pos, "nesting deeper than %d levels", s.MaxDepth)
		}
		var more bool
		for pos, more = s.First(pos, ']'); more; pos, more = s.Next(pos, ']', true) {
			if pos = s.SkipValue(pos, depth+1); pos < 0 {
				return -1
			}
		}
		return pos
	case 't':
		return s.ScanLiteral(pos, "true")
	case 'f':
		return s.ScanLiteral(pos, "false")
	case 'n':
		return s.ScanLiteral(pos, "null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			end, _ := s.ScanNumber(pos)
			return end
		}
		return s.Fail(pos, "%s, expected a value", s.Describe(pos))
	}
}

// AppendCompact appends the value at pos (validated earlier) as compact
// JSON text: whitespace outside strings removed, everything else as
// written. It returns the position after the value.
func AppendCompact(dst, d []byte, pos int) ([]byte, int) {
	depth := 0
	for {
		c := d[pos]
		switch c {
		case '"':
			i := pos + 1
			for {
				if d[i] == '\\' {
					i += 2
					continue
				}
				if d[i] == '"' {
					break
				}
				i++
			}
			dst = append(dst, d[pos:i+1]...)
			pos = i + 1
		case '{', '[':
			depth++
			dst = append(dst, c)
			pos++
		case '}', ']':
			depth--
			dst = append(dst, c)
			pos++
		case ' ', '\t', '\n', '\r':
			pos++
			continue
		case ',', ':':
			dst = append(dst, c)
			pos++
			continue
		default:
			start := pos
			for pos < len(d) {
				c := d[pos]
				if c == ',' || c == '}' || c == ']' || c == ':' || Space[c] {
					break
				}
				pos++
			}
			dst = append(dst, d[start:pos]...)
		}
		if depth == 0 {
			return dst, pos
		}
	}
}
