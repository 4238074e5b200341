package functions

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// More string functions: see docs/sql-functions.md#string-functions.

func init() {
	def(fn.Scalar{Name: "ascii", Group: gString, Signature: "ascii(str)", Returns: "int",
		Bind: rows("s", int32Type, always(func(r row) int32 {
			c, size := utf8.DecodeRuneInString(r.str(0, ""))
			if size == 0 {
				return 0
			}
			return c
		})),
		Doc:      "The code point of the first character of `str`; 0 for `''`.",
		Examples: ex("ascii('222')", "50", "ascii(2)", "50")})
	def(fn.Scalar{Name: "chr", Group: gString, Signature: "chr(expr)", Returns: "string",
		Bind: bindStrings("l", func(dst []byte, r row) []byte {
			v := r.long(0, 0)
			if v < 0 {
				return dst
			}
			return utf8.AppendRune(dst, rune(v&0xFF))
		}),
		Doc:      "The character whose code is `expr` modulo 256 (Latin-1); `''` for a negative `expr`.",
		Examples: ex("chr(65)", "A", "chr(321)", "A", "chr(-1)", "")}, aliases("char"))
	def(fn.Scalar{Name: "base64", Group: gString, Signature: "base64(bin)", Returns: "string",
		Bind: bindStrings("B", func(dst []byte, r row) []byte {
			return base64.StdEncoding.AppendEncode(dst, r.bin(0))
		}),
		Doc:      "`bin` (a string is taken as its UTF-8 bytes) in base 64, without line breaks.",
		Examples: ex("base64('Spark SQL')", "U3BhcmsgU1FM")})
	def(fn.Scalar{Name: "unbase64", Group: gString, Signature: "unbase64(str)", Returns: "binary",
		Bind: rows("s", binaryType, func(r row) ([]byte, bool) {
			return decodeBase64Lenient(r.str(0, "")), true
		}),
		Doc:      "The bytes `str` encodes in base 64 (standard or URL-safe alphabet); characters outside the alphabet are skipped.",
		Examples: ex("unbase64('U3BhcmsgU1FM')", "Spark SQL")})
	def(fn.Scalar{Name: "bit_length", Group: gString, Signature: "bit_length(expr)", Returns: "int",
		Bind:     bindByteLength(8),
		Doc:      "The length of a string (in UTF-8) or a binary, in bits.",
		Examples: ex("bit_length('Spark SQL')", "72", "bit_length(X'537061726b2053514c')", "72")})
	def(fn.Scalar{Name: "octet_length", Group: gString, Signature: "octet_length(expr)", Returns: "int",
		Bind:     bindByteLength(1),
		Doc:      "The length of a string (in UTF-8) or a binary, in bytes.",
		Examples: ex("octet_length('Spark SQL')", "9", "octet_length(X'537061726b2053514c')", "9")})
	def(fn.Scalar{Name: "encode", Group: gString, Signature: "encode(str, charset)", Returns: "binary", Bind: bindEncode,
		Doc: "`str` encoded in `charset`: one of `US-ASCII`, `ISO-8859-1`, `UTF-8`, `UTF-16BE`, `UTF-16LE`, `UTF-16` (any case). " +
			"A character the charset lacks becomes `?`.",
		Examples: ex("encode('abc', 'utf-8')", "abc", "hex(encode('é', 'ISO-8859-1'))", "E9")})
	def(fn.Scalar{Name: "decode", Group: gString, Signature: "decode(bin, charset) | decode(expr, search, result [, search, result] … [, default])",
		Returns: "string | the common type of the results", Bind: bindDecode,
		Doc: "With two arguments, `bin` decoded from `charset` (see `encode`); malformed input becomes U+FFFD. " +
			"With more, the `result` of the first `search` equal to `expr` (NULL matches NULL), else `default` or NULL.",
		Examples: ex("decode(encode('abc', 'utf-8'), 'utf-8')", "abc",
			"decode(2, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle', 'Non domestic')", "San Francisco",
			"decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle', 'Non domestic')", "Non domestic",
			"decode(6, 1, 'Southlake', 2, 'San Francisco', 3, 'New Jersey', 4, 'Seattle')", "NULL",
			"decode(null, 6, 'Spark', NULL, 'SQL', 4, 'rocks')", "SQL")})
	def(fn.Scalar{Name: "elt", Group: gString, Signature: "elt(n, input1, input2, …)", Returns: "string; binary when all inputs are binary",
		Bind:     bindElt,
		Doc:      "The `n`-th input (1-based); NULL when `n` is out of range.",
		Examples: ex("elt(1, 'scala', 'java')", "scala", "elt(2, 'a', 1)", "1", "elt(3, 'a', 'b')", "NULL")})
	def(fn.Scalar{Name: "startswith", Group: gString, Signature: "startswith(left, right)", Returns: "boolean", Bind: bindAffix(bytes.HasPrefix),
		Doc: "Whether `left` starts with `right`; both strings or both binary.",
		Examples: ex("startswith('Spark SQL', 'Spark')", "true", "startswith('Spark SQL', 'SQL')", "false", "startswith('Spark SQL', null)", "NULL",
			"startswith(x'537061726b2053514c', x'537061726b')", "true")})
	def(fn.Scalar{Name: "endswith", Group: gString, Signature: "endswith(left, right)", Returns: "boolean", Bind: bindAffix(bytes.HasSuffix),
		Doc: "Whether `left` ends with `right`; both strings or both binary.",
		Examples: ex("endswith('Spark SQL', 'SQL')", "true", "endswith('Spark SQL', 'Spark')", "false", "endswith('Spark SQL', null)", "NULL",
			"endswith(x'537061726b2053514c', x'53514c')", "true")})
	def(fn.Scalar{Name: "contains", Group: gString, Signature: "contains(left, right)", Returns: "boolean", Bind: bindAffix(bytes.Contains),
		Doc: "Whether `right` occurs in `left`; both strings or both binary.",
		Examples: ex("contains('Spark SQL', 'Spark')", "true", "contains('Spark SQL', 'SPARK')", "false", "contains('Spark SQL', null)", "NULL",
			"contains(x'537061726b2053514c', x'537061726b')", "true")})
	def(fn.Scalar{Name: "find_in_set", Group: gString, Signature: "find_in_set(str, str_array)", Returns: "int",
		Bind: rows("ss", int32Type, always(func(r row) int32 {
			s := r.str(0, "")
			if strings.IndexByte(s, ',') >= 0 {
				return 0
			}
			for k, part := range strings.Split(r.str(1, ""), ",") {
				if part == s {
					return int32(k + 1)
				}
			}
			return 0
		})),
		Doc:      "The 1-based position of `str` in the comma-separated list `str_array`; 0 when absent or when `str` holds a comma.",
		Examples: ex("find_in_set('ab','abc,b,ab,c,def')", "3")})
	def(fn.Scalar{Name: "initcap", Group: gString, Signature: "initcap(str)", Returns: "string",
		Bind: bindStrings("s", func(dst []byte, r row) []byte {
			up := true
			for _, c := range r.str(0, "") {
				if up {
					dst = utf8.AppendRune(dst, unicode.ToTitle(c))
				} else {
					dst = utf8.AppendRune(dst, unicode.ToLower(c))
				}
				up = c == ' '
			}
			return dst
		}),
		Doc:      "`str` in lower case with the first letter of each word (words are separated by spaces) in upper case.",
		Examples: ex("initcap('sPark sql')", "Spark Sql")})
	def(fn.Scalar{Name: "instr", Group: gString, Signature: "instr(str, substr)", Returns: "int",
		Bind: rows("ss", int32Type, always(func(r row) int32 {
			return int32(charIndex(r.str(0, ""), r.str(1, ""), 0) + 1)
		})),
		Doc:      "The 1-based position of the first `substr` in `str`; 0 when absent.",
		Examples: ex("instr('SparkSQL', 'SQL')", "6")})
	def(fn.Scalar{Name: "locate", Group: gString, Signature: "locate(substr, str[, pos])", Returns: "int", Bind: bindLocate,
		Doc: "The 1-based position of the first `substr` in `str` at or after position `pos` (default 1); 0 when absent, " +
			"when `pos` is below 1 or NULL. `position(substr IN str)` is the same in SQL syntax.",
		Examples: ex("locate('bar', 'foobarbar')", "4", "locate('bar', 'foobarbar', 5)", "7", "position('bar' IN 'foobarbar')", "4")},
		aliases("position"), pretty(withDefaults(3, "1")))
	def(fn.Scalar{Name: "levenshtein", Group: gString, Signature: "levenshtein(str1, str2[, threshold])", Returns: "int",
		Bind: rows("ss|i", int32Type, always(func(r row) int32 {
			d := levenshtein(r.str(0, ""), r.str(1, ""))
			if len(r.a) == 3 && int64(d) > r.int(2, 0) {
				return -1
			}
			return int32(d)
		})),
		Doc:      "The Levenshtein distance between the strings (in characters); with `threshold`, -1 when it is larger.",
		Examples: ex("levenshtein('kitten', 'sitting')", "3", "levenshtein('kitten', 'sitting', 2)", "-1")})
	def(fn.Scalar{Name: "luhn_check", Group: gString, Signature: "luhn_check(str)", Returns: "boolean",
		Bind:     rows("s", boolType, always(func(r row) bool { return luhn(r.str(0, "")) })),
		Doc:      "Whether `str` is a string of digits that passes the Luhn check (card numbers).",
		Examples: ex("luhn_check('8112189876')", "true", "luhn_check('79927398713')", "true", "luhn_check('79927398714')", "false")})
	def(fn.Scalar{Name: "mask", Group: gString, Signature: "mask(input[, upperChar, lowerChar, digitChar, otherChar])", Returns: "string",
		Bind: bindMask,
		Doc: "`input` with upper-case letters replaced by `upperChar` (default `X`), lower-case ones by `lowerChar` (`x`), digits by " +
			"`digitChar` (`n`) and other characters by `otherChar` (kept by default); a NULL replacement keeps that class. " +
			"The replacements are one-character literals.",
		Examples: ex("mask('abcd-EFGH-8765-4321')", "xxxx-XXXX-nnnn-nnnn", "mask('abcd-EFGH-8765-4321', 'Q')", "xxxx-QQQQ-nnnn-nnnn",
			"mask('AbCD123-@$#', 'Q', 'q')", "QqQQnnn-@$#", "mask('AbCD123-@$#')", "XxXXnnn-@$#",
			"mask('AbCD123-@$#', 'Q', 'q', 'd', 'o')", "QqQQdddoooo", "mask('AbCD123-@$#', NULL, 'q', 'd', 'o')", "AqCDdddoooo",
			"mask(NULL)", "NULL", "mask('AbCD123-@$#', NULL, NULL, NULL, NULL)", "AbCD123-@$#")},
		pretty(withDefaults(5, "X", "x", "n", "NULL")))
	def(fn.Scalar{Name: "overlay", Group: gString, Signature: "overlay(input, replace, pos[, len])", Returns: "string, or binary for binaries",
		Bind: bindOverlay,
		Doc: "`input` with the `len` characters (default: the length of `replace`) from position `pos` replaced by `replace`. " +
			"`overlay(input PLACING replace FROM pos [FOR len])` is the same in SQL syntax.",
		Examples: ex("overlay('Spark SQL', '_', 6)", "Spark_SQL", "overlay('Spark SQL', 'CORE', 7)", "Spark CORE",
			"overlay('Spark SQL', 'ANSI ', 7, 0)", "Spark ANSI SQL", "overlay('Spark SQL', 'tructured', 2, 4)", "Structured SQL",
			"overlay('Spark SQL' PLACING '_' FROM 6)", "Spark_SQL")},
		pretty(withDefaults(4, "-1")))
	def(fn.Scalar{Name: "repeat", Group: gString, Signature: "repeat(str, n)", Returns: "string",
		Bind: bindStrings("si", func(dst []byte, r row) []byte {
			s := r.str(0, "")
			for k := r.int(1, 0); k > 0; k-- {
				dst = append(dst, s...)
			}
			return dst
		}),
		Doc:      "`str` repeated `n` times; `''` for `n` below 1.",
		Examples: ex("repeat('123', 2)", "123123")})
	def(fn.Scalar{Name: "sentences", Group: gString, Signature: "sentences(str[, lang, country])", Returns: "array<array<string>>",
		Bind: bindSentences,
		Doc:  "`str` split into sentences, each an array of its words (punctuation dropped). `lang` and `country` are accepted and ignored.",
		Differences: "Spark uses Java's locale-aware BreakIterator; Sluice ends a sentence at `.`, `!` or `?` followed by a space or the end " +
			"and takes words as runs of letters, digits and inner apostrophes, which agrees for ordinary text.",
		Examples: ex("sentences('Hi there! Good morning.')", `[["Hi","there"],["Good","morning"]]`)},
		pretty(withDefaults(3, "", "")))
	def(fn.Scalar{Name: "soundex", Group: gString, Signature: "soundex(str)", Returns: "string",
		Bind:     bindStrings("s", func(dst []byte, r row) []byte { return appendSoundex(dst, r.str(0, "")) }),
		Doc:      "The Soundex code of `str`; `str` itself when it does not start with an ASCII letter.",
		Examples: ex("soundex('Miller')", "M460")})
	def(fn.Scalar{Name: "space", Group: gString, Signature: "space(n)", Returns: "string",
		Bind: bindStrings("i", func(dst []byte, r row) []byte {
			for k := r.int(0, 0); k > 0; k-- {
				dst = append(dst, ' ')
			}
			return dst
		}),
		Doc:      "A string of `n` spaces; `''` for `n` below 1.",
		Examples: ex("concat(space(2), '1')", "  1")})
	def(fn.Scalar{Name: "split_part", Group: gString, Signature: "split_part(str, delimiter, partNum)", Returns: "string", Bind: bindSplitPart,
		Doc: "Part `partNum` of `str` split at each `delimiter` (not a pattern); negative counts from the end; `''` when out of range. " +
			"`partNum` 0 is an error.",
		Examples: ex("split_part('11.12.13', '.', 3)", "13", "split_part('11.12.13', '.', -1)", "13", "split_part('11.12.13', '.', 5)", "")})
	def(fn.Scalar{Name: "substring_index", Group: gString, Signature: "substring_index(str, delim, count)", Returns: "string",
		Bind: bindStrings("ssi", func(dst []byte, r row) []byte {
			return append(dst, substringIndex(r.str(0, ""), r.str(1, ""), int(r.int(2, 0)))...)
		}),
		Doc: "`str` before the `count`-th `delim` from the left (`count` > 0) or after the `count`-th from the right (`count` < 0); " +
			"`''` for `count` 0; all of `str` when there are fewer delimiters.",
		Examples: ex("substring_index('www.apache.org', '.', 2)", "www.apache", "substring_index('www.apache.org', '.', -2)", "apache.org")})
	def(fn.Scalar{Name: "translate", Group: gString, Signature: "translate(input, from, to)", Returns: "string", Bind: bindTranslate,
		Doc:      "`input` with each character of `from` replaced by the character at the same position of `to`, or removed when `to` is shorter.",
		Examples: ex("translate('AaBbCc', 'abc', '123')", "A1B2C3", "translate('AaBbCc', 'abc', '1')", "A1BC")})
	def(fn.Scalar{Name: "unhex", Group: gMath, Signature: "unhex(expr)", Returns: "binary",
		Bind:     rows("s", binaryType, func(r row) ([]byte, bool) { return unhexSpark(r.str(0, "")) }),
		Doc:      "The bytes of the hexadecimal string `expr` (an odd length has an implied leading 0); NULL when it is not hexadecimal.",
		Examples: ex("decode(unhex('537061726B2053514C'), 'UTF-8')", "Spark SQL", "hex(unhex('F'))", "0F", "unhex('GG')", "NULL")})
	def(fn.Scalar{Name: "to_binary", Group: gString, Signature: "to_binary(str[, fmt])", Returns: "binary", Bind: bindToBinary(false),
		Doc: "`str` converted to bytes as `fmt` says: `hex` (the default), `utf-8`/`utf8` or `base64`, any case. Input that is not " +
			"valid in that format is an error.",
		Examples: ex("to_binary('abc', 'utf-8')", "abc", "hex(to_binary('537061726B'))", "537061726B", "to_binary('U3Bhcms=', 'base64')", "Spark")})
	def(fn.Scalar{Name: "try_to_binary", Group: gString, Signature: "try_to_binary(str[, fmt])", Returns: "binary", Bind: bindToBinary(true),
		Doc:      "`to_binary` that gives NULL instead of an error, for invalid input and for an unknown `fmt`.",
		Examples: ex("try_to_binary('abc', 'utf-8')", "abc", "try_to_binary('a!', 'base64')", "NULL", "try_to_binary('abc', 'invalidFormat')", "NULL")})
}

// bindByteLength is bit_length (8) and octet_length (1).
func bindByteLength(per int32) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 1); err != nil {
			return fn.Bound{}, err
		}
		kinds := "s"
		if args[0].Type.ID() == arrow.BINARY {
			kinds = "a"
		}
		return rows(kinds, int32Type, always(func(r row) int32 {
			if b, ok := r.a[0].(*array.Binary); ok {
				return int32(len(b.Value(r.i))) * per
			}
			return int32(len(r.str(0, ""))) * per
		}))(args)
	}
}

// decodeBase64Lenient decodes base 64 as Apache Commons Codec does:
// characters outside both alphabets are skipped, a trailing partial group
// gives the bytes it holds.
func decodeBase64Lenient(s string) []byte {
	var q [4]byte
	nq := 0
	out := make([]byte, 0, len(s)*3/4)
	for k := 0; k < len(s); k++ {
		c := s[k]
		var v byte
		switch {
		case c >= 'A' && c <= 'Z':
			v = c - 'A'
		case c >= 'a' && c <= 'z':
			v = c - 'a' + 26
		case c >= '0' && c <= '9':
			v = c - '0' + 52
		case c == '+' || c == '-':
			v = 62
		case c == '/' || c == '_':
			v = 63
		case c == '=':
			k = len(s)
			continue
		default:
			continue
		}
		q[nq] = v
		if nq++; nq == 4 {
			out = append(out, q[0]<<2|q[1]>>4, q[1]<<4|q[2]>>2, q[2]<<6|q[3])
			nq = 0
		}
	}
	switch nq {
	case 2:
		out = append(out, q[0]<<2|q[1]>>4)
	case 3:
		out = append(out, q[0]<<2|q[1]>>4, q[1]<<4|q[2]>>2)
	}
	return out
}

// charset is one of the character sets encode and decode know.
type charset struct {
	encode func(dst []byte, s string) []byte
	decode func(dst []byte, b []byte) []byte
}

var charsets = map[string]charset{
	"us-ascii":   {encode: encodeSingleByte(0x7F), decode: decodeSingleByte(0x7F)},
	"iso-8859-1": {encode: encodeSingleByte(0xFF), decode: decodeSingleByte(0xFF)},
	"utf-8": {encode: func(dst []byte, s string) []byte { return append(dst, strings.ToValidUTF8(s, "\uFFFD")...) },
		decode: func(dst, b []byte) []byte { return append(dst, bytes.ToValidUTF8(b, []byte("\uFFFD"))...) }},
	"utf-16be": {encode: encodeUTF16(false, false), decode: decodeUTF16(false)},
	"utf-16le": {encode: encodeUTF16(true, false), decode: decodeUTF16(true)},
	"utf-16":   {encode: encodeUTF16(false, true), decode: decodeUTF16(false)},
}

// lookupCharset finds a charset by any of Java's common names for it.
func lookupCharset(name string) (charset, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "utf8":
		n = "utf-8"
	case "ascii":
		n = "us-ascii"
	case "latin1", "iso8859-1", "iso-latin-1":
		n = "iso-8859-1"
	case "utf16":
		n = "utf-16"
	}
	c, ok := charsets[n]
	return c, ok
}

func encodeSingleByte(top rune) func([]byte, string) []byte {
	return func(dst []byte, s string) []byte {
		for _, c := range s {
			if c > top {
				c = '?'
			}
			dst = append(dst, byte(c))
		}
		return dst
	}
}

func decodeSingleByte(top byte) func([]byte, []byte) []byte {
	return func(dst, b []byte) []byte {
		for _, c := range b {
			if c > top {
				dst = append(dst, "\uFFFD"...)
				continue
			}
			dst = utf8.AppendRune(dst, rune(c))
		}
		return dst
	}
}

func encodeUTF16(little, bom bool) func([]byte, string) []byte {
	return func(dst []byte, s string) []byte {
		put := func(u uint16) {
			if little {
				dst = append(dst, byte(u), byte(u>>8))
			} else {
				dst = append(dst, byte(u>>8), byte(u))
			}
		}
		if bom {
			put(0xFEFF)
		}
		for _, u := range utf16.Encode([]rune(s)) {
			put(u)
		}
		return dst
	}
}

func decodeUTF16(little bool) func([]byte, []byte) []byte {
	return func(dst, b []byte) []byte {
		if len(b) >= 2 && (b[0] == 0xFE && b[1] == 0xFF || b[0] == 0xFF && b[1] == 0xFE) {
			little = b[0] == 0xFF
			b = b[2:]
		}
		u := make([]uint16, 0, len(b)/2)
		for k := 0; k+1 < len(b); k += 2 {
			if little {
				u = append(u, uint16(b[k])|uint16(b[k+1])<<8)
			} else {
				u = append(u, uint16(b[k])<<8|uint16(b[k+1]))
			}
		}
		for _, c := range utf16.Decode(u) {
			dst = utf8.AppendRune(dst, c)
		}
		if len(b)%2 == 1 {
			dst = append(dst, "\uFFFD"...)
		}
		return dst
	}
}

// charsetArg checks a literal charset argument at bind time; a column is
// looked up per row.
func charsetArg(args []fn.Arg, i int) (*charset, error) {
	name, null, ok := constString(args[i])
	if !ok || null {
		return nil, nil
	}
	c, found := lookupCharset(name)
	if !found {
		return nil, fmt.Errorf("argument %d: unknown charset %q (US-ASCII, ISO-8859-1, UTF-8, UTF-16BE, UTF-16LE, UTF-16)", i+1, name)
	}
	return &c, nil
}

func rowCharset(fixed *charset, name string) (charset, error) {
	if fixed != nil {
		return *fixed, nil
	}
	c, ok := lookupCharset(name)
	if !ok {
		return charset{}, fmt.Errorf("argument 2: unknown charset %q", name)
	}
	return c, nil
}

func bindEncode(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "ss")
	if err != nil {
		return fn.Bound{}, err
	}
	fixed, err := charsetArg(args, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: binaryType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var bad error
		var buf []byte
		out := rowsOf(ctx, binaryType, a, n, func(r row) ([]byte, bool) {
			c, err := rowCharset(fixed, r.str(1, ""))
			if err != nil {
				bad = err
				return nil, false
			}
			buf = c.encode(buf[:0], r.str(0, ""))
			return buf, true
		})
		if bad != nil {
			out.Release()
			return nil, bad
		}
		return out, nil
	}}, nil
}

func bindDecode(args []fn.Arg) (fn.Bound, error) {
	if len(args) > 2 {
		return bindDecodeCase(args)
	}
	in, err := signature(args, "Bs")
	if err != nil {
		return fn.Bound{}, err
	}
	fixed, err := charsetArg(args, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			r := row{a: a, i: i}
			c, err := rowCharset(fixed, r.str(1, ""))
			if err != nil {
				return nil, false, err
			}
			return c.decode(dst, r.bin(0)), true, nil
		})
	}}, nil
}

// bindDecodeCase is decode(expr, search, result, …[, default]): a CASE
// whose searches compare with expr NULL-safely.
func bindDecodeCase(args []fn.Arg) (fn.Bound, error) {
	var searches, results []fn.Arg
	searches = append(searches, args[0])
	for k := 1; k+1 < len(args); k += 2 {
		searches = append(searches, args[k])
		results = append(results, args[k+1])
	}
	hasDefault := len(args)%2 == 0
	if hasDefault {
		results = append(results, args[len(args)-1])
	}
	st, err := commonOf(searches, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	rt, err := commonOf(results, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	in := make([]arrow.DataType, len(args))
	in[0] = st
	for k := 1; k+1 < len(args); k += 2 {
		in[k], in[k+1] = st, rt
	}
	if hasDefault {
		in[len(args)-1] = rt
	}
	return fn.Bound{Type: rt, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var res []arrow.Array
		for k := 2; k < len(a); k += 2 {
			res = append(res, a[k])
		}
		if hasDefault {
			res = append(res, a[len(a)-1])
		}
		sel := make([]int32, n)
		for i := range sel {
			sel[i] = -1
			if hasDefault {
				sel[i] = int32(len(res) - 1)
			}
			for k := 1; k+1 < len(a); k += 2 {
				x, s := a[0], a[k]
				if nullAt(x, i) && nullAt(s, i) || !nullAt(x, i) && !nullAt(s, i) && equalAt(x, i, s, i) {
					sel[i] = int32(k / 2)
					break
				}
			}
		}
		return choose(ctx.Mem, rt, res, sel)
	}}, nil
}

func bindElt(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, -1); err != nil {
		return fn.Bound{}, err
	}
	in := make([]arrow.DataType, len(args))
	var err error
	if in[0], err = intArg(args, 0, int32Type); err != nil {
		return fn.Bound{}, err
	}
	t := binaryType
	for _, a := range args[1:] {
		if a.Type.ID() != arrow.BINARY && !isNull(a.Type) {
			t = stringType
		}
	}
	for i := 1; i < len(args); i++ {
		if t == stringType {
			if in[i], err = stringArg(args, i); err != nil {
				return fn.Bound{}, err
			}
		} else {
			in[i] = binaryType
		}
	}
	return fn.Bound{Type: t, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		idx := a[0].(*array.Int32)
		sel := make([]int32, n)
		for i := range sel {
			sel[i] = -1
			if !nullAt(idx, i) {
				if k := idx.Value(i); k >= 1 && int(k) < len(a) {
					sel[i] = k - 1
				}
			}
		}
		return choose(ctx.Mem, t, a[1:], sel)
	}}, nil
}

// bindAffix binds startswith, endswith and contains: test(left, right)
// over the bytes of two strings or two binaries.
func bindAffix(test func(s, affix []byte) bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 2, 2); err != nil {
			return fn.Bound{}, err
		}
		kinds := "ss"
		if args[0].Type.ID() == arrow.BINARY || args[1].Type.ID() == arrow.BINARY {
			kinds = "BB"
		}
		return rows(kinds, boolType, always(func(r row) bool {
			if kinds == "BB" {
				return test(r.bin(0), r.bin(1))
			}
			s, x := r.a[0].(*array.String), r.a[1].(*array.String)
			return test(s.ValueBytes()[s.ValueOffset(r.i):s.ValueOffset(r.i+1)], x.ValueBytes()[x.ValueOffset(r.i):x.ValueOffset(r.i+1)])
		}))(args)
	}
}

// charIndex is the character index of the first sub in s at or after
// character from, or -1; an empty sub is found at 0, as Spark's
// UTF8String.indexOf.
func charIndex(s, sub string, from int) int {
	if sub == "" {
		return 0
	}
	off := runeOffset(s, int64(from))
	if from > 0 && off == len(s) {
		return -1
	}
	k := strings.Index(s[off:], sub)
	if k < 0 {
		return -1
	}
	return from + utf8.RuneCountInString(s[off:off+k])
}

// bindLocate: a NULL pos gives 0, not NULL (Hive).
func bindLocate(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "ss|i")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: int32Type, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return rowsWith(ctx, int32Type, a, n, false, func(r row) (int32, bool) {
			if r.null(2) {
				return 0, true
			}
			if r.null(0) || r.null(1) {
				return 0, false
			}
			start := r.int(2, 1)
			if start < 1 {
				return 0, true
			}
			return int32(charIndex(r.str(1, ""), r.str(0, ""), int(start-1)) + 1), true
		}), nil
	}}, nil
}

// levenshtein counts characters, not bytes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func luhn(s string) bool {
	if s == "" {
		return false
	}
	sum, second := 0, false
	for k := len(s) - 1; k >= 0; k-- {
		c := s[k]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if second {
			d *= 2
		}
		sum += d%10 + d/10
		second = !second
	}
	return sum%10 == 0
}

func bindMask(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "s|ssss")
	if err != nil {
		return fn.Bound{}, err
	}
	repl := []rune{'X', 'x', 'n', -1}
	for k := 1; k < len(args); k++ {
		v, null, ok := constString(args[k])
		if !ok {
			return fn.Bound{}, fmt.Errorf("argument %d must be a literal", k+1)
		}
		switch {
		case null:
			repl[k-1] = -1
		case utf8.RuneCountInString(v) != 1:
			return fn.Bound{}, fmt.Errorf("argument %d must be one character, got %q", k+1, v)
		default:
			repl[k-1], _ = utf8.DecodeRuneInString(v)
		}
		in[k] = nil
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			for _, c := range a[0].(*array.String).Value(i) {
				var to rune
				switch {
				case unicode.IsUpper(c):
					to = repl[0]
				case unicode.IsLower(c):
					to = repl[1]
				case unicode.IsDigit(c):
					to = repl[2]
				default:
					to = repl[3]
				}
				if to < 0 {
					to = c
				}
				dst = utf8.AppendRune(dst, to)
			}
			return dst, true, nil
		})
	}}, nil
}

func bindOverlay(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 3, 4); err != nil {
		return fn.Bound{}, err
	}
	if args[0].Type.ID() == arrow.BINARY && args[1].Type.ID() == arrow.BINARY {
		return rows("BBi|i", binaryType, func(r row) ([]byte, bool) {
			s, rep := r.bin(0), r.bin(1)
			pos, length := r.int(2, 0), r.int(3, -1)
			if length < 0 {
				length = int64(len(rep))
			}
			out := append([]byte(nil), substringBytes(s, 1, pos-1)...)
			out = append(out, rep...)
			return append(out, substringBytes(s, pos+length, 1<<31-1)...), true
		})(args)
	}
	return bindStrings("ssi|i", func(dst []byte, r row) []byte {
		s, rep := r.str(0, ""), r.str(1, "")
		pos, length := r.int(2, 0), r.int(3, -1)
		if length < 0 {
			length = int64(utf8.RuneCountInString(rep))
		}
		dst = append(dst, SubstringSQL(s, 1, pos-1)...)
		dst = append(dst, rep...)
		return append(dst, SubstringSQL(s, pos+length, 1<<31-1)...)
	})(args)
}

func bindSentences(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "s|ss")
	if err != nil {
		return fn.Bound{}, err
	}
	out := arrow.ListOf(arrow.ListOf(stringType))
	return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewListBuilder(ctx.Mem, arrow.ListOf(stringType))
		defer b.Release()
		sb := b.ValueBuilder().(*array.ListBuilder)
		wb := sb.ValueBuilder().(*array.StringBuilder)
		for i := 0; i < n; i++ {
			if nullAt(a[0], i) {
				b.AppendNull()
				continue
			}
			b.Append(true)
			for _, sentence := range splitSentences(a[0].(*array.String).Value(i)) {
				sb.Append(true)
				for _, w := range sentence {
					wb.Append(w)
				}
			}
		}
		return b.NewArray(), nil
	}}, nil
}

// splitSentences splits text into sentences of words.
func splitSentences(text string) [][]string {
	var out [][]string
	var words []string
	rs := []rune(text)
	for k := 0; k < len(rs); {
		c := rs[k]
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			start := k
			for k < len(rs) && (unicode.IsLetter(rs[k]) || unicode.IsDigit(rs[k]) ||
				rs[k] == '\'' && k+1 < len(rs) && unicode.IsLetter(rs[k+1]) && k > start) {
				k++
			}
			words = append(words, string(rs[start:k]))
		case c == '.' || c == '!' || c == '?':
			for k < len(rs) && (rs[k] == '.' || rs[k] == '!' || rs[k] == '?') {
				k++
			}
			if (k == len(rs) || unicode.IsSpace(rs[k])) && len(words) > 0 {
				out = append(out, words)
				words = nil
			}
		default:
			k++
		}
	}
	if len(words) > 0 {
		out = append(out, words)
	}
	return out
}

// soundexCodes maps A–Z to their Soundex digits ('7': ignored, H and W).
const soundexCodes = "01230127022455012623017202"

func appendSoundex(dst []byte, s string) []byte {
	if s == "" {
		return dst
	}
	upper := func(b byte) (byte, bool) {
		if 'a' <= b && b <= 'z' {
			b -= 32
		}
		return b, 'A' <= b && b <= 'Z'
	}
	first, ok := upper(s[0])
	if !ok {
		return append(dst, s...)
	}
	sx := []byte{first, '0', '0', '0'}
	n := 1
	last := soundexCodes[first-'A']
	for k := 1; k < len(s) && n < 4; k++ {
		b, ok := upper(s[k])
		if !ok {
			last = '0'
			continue
		}
		code := soundexCodes[b-'A']
		if code == '7' {
			continue
		}
		if code != '0' && code != last {
			sx[n] = code
			n++
		}
		last = code
	}
	return append(dst, sx...)
}

func bindSplitPart(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "ssi")
	if err != nil {
		return fn.Bound{}, err
	}
	if v, null, ok := constInt(args[2]); ok && !null && v == 0 {
		return fn.Bound{}, errIndexZero
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			r := row{a: a, i: i}
			s, delim, k := r.str(0, ""), r.str(1, ""), r.int(2, 0)
			if k == 0 {
				return nil, false, errIndexZero
			}
			parts := []string{s}
			if delim != "" {
				parts = strings.Split(s, delim)
			}
			if k < 0 {
				k += int64(len(parts)) + 1
			}
			if k < 1 || k > int64(len(parts)) {
				return dst, true, nil
			}
			return append(dst, parts[k-1]...), true, nil
		})
	}}, nil
}

// substringIndex is Spark's UTF8String.subStringIndex (byte-wise search,
// overlapping delimiters allowed).
func substringIndex(s, delim string, count int) string {
	if delim == "" || count == 0 {
		return ""
	}
	if count > 0 {
		idx := -1
		for ; count > 0; count-- {
			k := strings.Index(s[idx+1:], delim)
			if k < 0 {
				return s
			}
			idx += 1 + k
		}
		return s[:idx]
	}
	idx := len(s) - len(delim) + 1
	for count = -count; count > 0; count-- {
		if idx-1 < 0 {
			return s
		}
		k := strings.LastIndex(s[:min(idx-1+len(delim), len(s))], delim)
		if k < 0 {
			return s
		}
		idx = k
	}
	return s[idx+len(delim):]
}

func bindTranslate(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "sss")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var lastFrom, lastTo string
		var dict map[rune]rune
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			r := row{a: a, i: i}
			from, to := r.str(1, ""), r.str(2, "")
			if dict == nil || from != lastFrom || to != lastTo {
				dict = map[rune]rune{}
				tr := []rune(to)
				k := 0
				for _, c := range from {
					if _, seen := dict[c]; !seen {
						if k < len(tr) {
							dict[c] = tr[k]
						} else {
							dict[c] = -1
						}
					}
					k++
				}
				lastFrom, lastTo = from, to
			}
			for _, c := range r.str(0, "") {
				if m, ok := dict[c]; ok {
					if m >= 0 {
						dst = utf8.AppendRune(dst, m)
					}
					continue
				}
				dst = utf8.AppendRune(dst, c)
			}
			return dst, true, nil
		})
	}}, nil
}

// unhexSpark is Spark's Unhex: an odd length has an implied leading 0;
// a character that is not hexadecimal makes the result NULL.
func unhexSpark(s string) ([]byte, bool) {
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

func bindToBinary(try bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, "s|s")
		if err != nil {
			return fn.Bound{}, err
		}
		format := "hex"
		if len(args) == 2 {
			f, null, ok := constString(args[1])
			if !ok {
				return fn.Bound{}, fmt.Errorf("argument 2 must be a literal format: hex, utf-8, utf8 or base64")
			}
			if null {
				return fn.Bound{Type: binaryType, Args: in, Eval: allNull(binaryType)}, nil
			}
			format = strings.ToLower(f)
		}
		var conv func(string) ([]byte, bool)
		switch format {
		case "hex":
			conv = unhexSpark
		case "utf-8", "utf8":
			conv = func(s string) ([]byte, bool) { return []byte(s), true }
		case "base64":
			conv = func(s string) ([]byte, bool) {
				b, err := base64.StdEncoding.DecodeString(s)
				return b, err == nil
			}
		default:
			if try {
				return fn.Bound{Type: binaryType, Args: in, Eval: allNull(binaryType)}, nil
			}
			return fn.Bound{}, fmt.Errorf("argument 2: invalid format %q: use hex, utf-8, utf8 or base64", format)
		}
		return fn.Bound{Type: binaryType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			var bad string
			out := rowsOf(ctx, binaryType, a, n, func(r row) ([]byte, bool) {
				b, ok := conv(r.str(0, ""))
				if !ok && !try && bad == "" {
					bad = r.str(0, "")
				}
				return b, ok
			})
			if bad != "" {
				out.Release()
				return nil, fmt.Errorf("%q is not a valid %s string (try_to_binary gives NULL instead)", bad, format)
			}
			return out, nil
		}}, nil
	}
}
