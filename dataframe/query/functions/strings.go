package functions

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// String functions: see docs/sql-functions.md#string-functions.

func init() {
	def(fn.Scalar{Name: "lower", Group: gString, Signature: "lower(str)", Returns: "string", Bind: bindCase(false),
		Doc:      "`str` with every character changed to lower case.",
		Examples: ex("lower('SparkSql')", "sparksql")}, aliases("lcase"))
	def(fn.Scalar{Name: "upper", Group: gString, Signature: "upper(str)", Returns: "string", Bind: bindCase(true),
		Doc:      "`str` with every character changed to upper case.",
		Examples: ex("upper('SparkSql')", "SPARKSQL")}, aliases("ucase"))
	def(fn.Scalar{Name: "length", Group: gString, Signature: "length(expr)", Returns: "int", Bind: bindLength,
		Doc:      "The number of characters of a string (trailing spaces included), or of bytes of a binary.",
		Examples: ex("length('Spark SQL ')", "10", "length(X'537061726b2053514c')", "9")},
		aliases("char_length", "character_length", "len"))
	def(fn.Scalar{Name: "trim", Group: gString, Signature: "trim(str) | trim(trimStr, str)", Returns: "string", Bind: bindTrim(true, true),
		Doc: "`str` without the spaces (U+0020 only) at both ends, or without any of the characters of `trimStr`. " +
			"The function-call form takes the trim set first; `TRIM(BOTH|LEADING|TRAILING [trimStr] FROM str)` is the same in SQL syntax.",
		Examples: ex("trim('    SparkSQL   ')", "SparkSQL", "trim('SL', 'SSparkSQLS')", "parkSQ",
			"trim(BOTH 'SL' FROM 'SSparkSQLS')", "parkSQ", "trim(LEADING 'SL' FROM 'SSparkSQLS')", "parkSQLS")},
		pretty(trimName("BOTH")))
	def(fn.Scalar{Name: "ltrim", Group: gString, Signature: "ltrim(str) | ltrim(trimStr, str)", Returns: "string", Bind: bindTrim(true, false),
		Doc:      "`str` without the leading spaces, or the leading characters of `trimStr`.",
		Examples: ex("ltrim('    SparkSQL   ')", "SparkSQL   ", "ltrim('SL', 'SSparkSQLS')", "parkSQLS")},
		pretty(trimName("LEADING")))
	def(fn.Scalar{Name: "rtrim", Group: gString, Signature: "rtrim(str) | rtrim(trimStr, str)", Returns: "string", Bind: bindTrim(false, true),
		Doc:      "`str` without the trailing spaces, or the trailing characters of `trimStr`.",
		Examples: ex("rtrim('    SparkSQL   ')", "    SparkSQL", "rtrim('SL', 'SSparkSQLS')", "SSparkSQ")},
		pretty(trimName("TRAILING")))
	def(fn.Scalar{Name: "btrim", Group: gString, Signature: "btrim(str[, trimStr])", Returns: "string", Bind: bindBtrim,
		Doc:      "`trim` with the arguments the other way round: the string first, then the characters to remove (spaces by default).",
		Examples: ex("btrim('    SparkSQL   ')", "SparkSQL", "btrim('SSparkSQLS', 'SL')", "parkSQ")})
	def(fn.Scalar{Name: "substr", Group: gString, Signature: "substr(str, pos[, len])", Returns: "string, or binary for a binary", Bind: bindSubstr,
		Doc: "The `len` characters (bytes of a binary) of `str` from position `pos` (1-based; 0 counts as 1; negative counts from the end), " +
			"or the rest of it. `substring(str FROM pos [FOR len])` is the same in SQL syntax.",
		Examples: ex("substr('Spark SQL', 5)", "k SQL", "substr('Spark SQL', -3)", "SQL", "substr('Spark SQL', 5, 1)", "k",
			"substr('Spark SQL', 0, 2)", "Sp", "substr('Spark SQL', 100)", "", "substr(encode('Spark SQL', 'utf-8'), 5)", "k SQL",
			"substring('Spark SQL' FROM 5 FOR 1)", "k")},
		aliases("substring"), pretty(withDefaults(3, "2147483647")))
	def(fn.Scalar{Name: "left", Group: gString, Signature: "left(str, len)", Returns: "string, or binary for a binary", Bind: bindLeftRight(true),
		Doc:      "The leftmost `len` characters of `str` (bytes of a binary); `''` when `len` is 0 or less.",
		Examples: ex("left('Spark SQL', 3)", "Spa", "left('Spark SQL', -1)", "")})
	def(fn.Scalar{Name: "right", Group: gString, Signature: "right(str, len)", Returns: "string", Bind: bindLeftRight(false),
		Doc:      "The rightmost `len` characters of `str`; `''` when `len` is 0 or less.",
		Examples: ex("right('Spark SQL', 3)", "SQL")})
	def(fn.Scalar{Name: "concat", Group: gString, Signature: "concat(col1, col2, …, colN)", Returns: "string; binary when all are binary; array when all are arrays",
		Bind: bindConcat,
		Doc:  "The arguments one after the other: strings, binaries or arrays. NULL if any argument is NULL; `concat()` is `''`.",
		Examples: ex("concat('Spark', 'SQL')", "SparkSQL", "concat(array(1, 2, 3), array(4, 5), array(6))", "[1,2,3,4,5,6]",
			"concat('a', NULL)", "NULL")})
	def(fn.Scalar{Name: "concat_ws", Group: gString, Signature: "concat_ws(sep[, str | array(str)]+)", Returns: "string", Bind: bindConcatWs,
		Doc: "The strings, and the elements of the string arrays, joined with `sep`; NULL arguments and elements are skipped. " +
			"NULL only when `sep` is NULL.",
		Examples: ex("concat_ws(' ', 'Spark', 'SQL')", "Spark SQL", "concat_ws('s')", "", "concat_ws('/', 'foo', null, 'bar')", "foo/bar",
			"concat_ws(',', array('a', null, 'b'), 'c')", "a,b,c")})
	def(fn.Scalar{Name: "split", Group: gString, Signature: "split(str, regex[, limit])", Returns: "array<string>", Bind: bindSplit,
		Doc: "`str` split around the matches of `regex`. With `limit` > 0 at most `limit` parts (the last holds the rest); " +
			"otherwise all parts, trailing empty ones included. An empty `regex` splits into characters.",
		Examples: ex("split('oneAtwoBthreeC', '[ABC]')", `["one","two","three",""]`, "split('oneAtwoBthreeC', '[ABC]', -1)", `["one","two","three",""]`,
			"split('oneAtwoBthreeC', '[ABC]', 2)", `["one","twoBthreeC"]`)},
		pretty(withDefaults(3, "-1")))
	def(fn.Scalar{Name: "replace", Group: gString, Signature: "replace(str, search[, replace])", Returns: "string", Bind: bindReplace,
		Doc:      "`str` with every occurrence of `search` replaced by `replace` (default `''`); an empty `search` leaves `str` as it is.",
		Examples: ex("replace('ABCabc', 'abc', 'DEF')", "ABCDEF", "replace('ABCabc', 'abc')", "ABC")})
	def(fn.Scalar{Name: "lpad", Group: gString, Signature: "lpad(str, len[, pad])", Returns: "string, or binary for a binary", Bind: bindPad(true),
		Doc: "`str` padded on the left to `len` characters with `pad` repeated (a space, or a zero byte for a binary, by default); " +
			"a longer `str` is cut to `len`.",
		Examples: ex("lpad('hi', 5, '??')", "???hi", "lpad('hi', 1, '??')", "h", "lpad('hi', 5)", "   hi",
			"hex(lpad(unhex('aabb'), 5))", "000000AABB", "hex(lpad(unhex('aabb'), 5, unhex('1122')))", "112211AABB")},
		pretty(padName))
	def(fn.Scalar{Name: "rpad", Group: gString, Signature: "rpad(str, len[, pad])", Returns: "string, or binary for a binary", Bind: bindPad(false),
		Doc: "`str` padded on the right to `len` characters with `pad` repeated (a space, or a zero byte for a binary, by default); " +
			"a longer `str` is cut to `len`.",
		Examples: ex("rpad('hi', 5, '??')", "hi???", "rpad('hi', 1, '??')", "h", "rpad('hi', 5)", "hi   ",
			"hex(rpad(unhex('aabb'), 5))", "AABB000000", "hex(rpad(unhex('aabb'), 5, unhex('1122')))", "AABB112211")},
		pretty(padName))
}

// trimName is Spark's name of a trim call: the SQL form once a trim set
// is given (`TRIM(BOTH x FROM s)`).
func trimName(direction string) func(string, []string) string {
	return func(name string, args []string) string {
		if len(args) == 2 {
			return "TRIM(" + direction + " " + args[0] + " FROM " + args[1] + ")"
		}
		return callName(name, args)
	}
}

// padName: lpad(s, n) is named with its default pad, a space.
func padName(name string, args []string) string {
	if len(args) == 2 {
		return callName(name, append(append([]string(nil), args...), " "))
	}
	return callName(name, args)
}

// mapStrings evaluates a string-valued function row by row: NULL in any
// argument gives NULL; f appends the result for row i to dst (ok false:
// NULL). The result is written straight into the output's data, without a
// builder in between.
func mapStrings(ctx *fn.Ctx, args []arrow.Array, n int, f func(dst []byte, i int) ([]byte, bool, error)) (arrow.Array, error) {
	size := 16 * n // a guess for values that are not strings
	if s, ok := firstString(args); ok {
		size = len(s.ValueBytes())
	}
	return mapStringsSized(ctx, args, n, size, f)
}

// mapStringsSized is mapStrings with the expected size of the output's
// data.
func mapStringsSized(ctx *fn.Ctx, args []arrow.Array, n, size int, f func(dst []byte, i int) ([]byte, bool, error)) (arrow.Array, error) {
	var w stringWriter
	w.init(ctx.Mem, n, size)
	nullable := argsWithNulls(args)
	for i := 0; i < n; i++ {
		if len(nullable) > 0 && anyNull(nullable, i) {
			w.appendNull()
			continue
		}
		start := len(w.data)
		out, ok, err := f(w.data, i)
		if err != nil {
			w.release()
			return nil, err
		}
		w.take(out)
		if !ok {
			w.data = w.data[:start]
			w.appendNull()
			continue
		}
		w.endRow()
	}
	return w.finish(stringType), nil
}

func firstString(args []arrow.Array) (*array.String, bool) {
	if len(args) == 0 {
		return nil, false
	}
	s, ok := args[0].(*array.String)
	return s, ok
}

// argsWithNulls are the arrays that may hold a NULL.
func argsWithNulls(args []arrow.Array) []arrow.Array {
	var out []arrow.Array
	for _, a := range args {
		if a.NullN() > 0 || a.DataType().ID() == arrow.NULL {
			out = append(out, a)
		}
	}
	return out
}

// stringWriter builds a string (or binary) array from values appended to
// data row by row. data aliases the output buffer, allocated from the
// context's allocator: appending within its capacity writes the output
// directly; when an append outgrows it, the buffer is grown and the bytes
// moved in.
type stringWriter struct {
	buf     *memory.Buffer
	data    []byte
	offsets []int32 // aliases offs
	offs    *memory.Buffer
	valid   *memory.Buffer // nil until the first NULL
	nulls   int
	n, row  int
	mem     memory.Allocator
}

func (w *stringWriter) init(mem memory.Allocator, n, size int) {
	w.mem = mem
	w.buf = memory.NewResizableBuffer(mem)
	w.buf.Reserve(max(size, 64))
	w.data = w.buf.Buf()[:0]
	w.offs = memory.NewResizableBuffer(mem)
	w.offs.Resize((n + 1) * arrow.Int32SizeBytes)
	w.offsets = arrow.Int32Traits.CastFromBytes(w.offs.Bytes())
	w.offsets[0] = 0
	w.n = n
}

// take adopts out, the data after an append, as the output's data.
func (w *stringWriter) take(out []byte) {
	if cap(out) > 0 && len(out) > 0 && &out[:1][0] == &w.buf.Buf()[:1][0] {
		w.data = out
		return
	}
	if len(out) > cap(w.data) {
		w.buf.Reserve(max(2*cap(w.data), len(out)))
	}
	copy(w.buf.Buf(), out)
	w.data = w.buf.Buf()[:len(out)]
}

func (w *stringWriter) endRow() {
	if w.valid != nil {
		bitutil.SetBit(w.valid.Bytes(), w.row)
	}
	w.row++
	w.offsets[w.row] = int32(len(w.data))
}

func (w *stringWriter) appendNull() {
	if w.valid == nil {
		w.valid = memory.NewResizableBuffer(w.mem)
		w.valid.Resize(int(bitutil.BytesForBits(int64(w.n))))
		clear(w.valid.Bytes())
		bitutil.SetBitsTo(w.valid.Bytes(), 0, int64(w.row), true)
	}
	w.nulls++
	w.row++
	w.offsets[w.row] = int32(len(w.data))
}

// release frees the buffers of a writer that will not finish.
func (w *stringWriter) release() {
	w.buf.Release()
	w.offs.Release()
	if w.valid != nil {
		w.valid.Release()
	}
}

// finish wraps the buffers as an array of type dt.
func (w *stringWriter) finish(dt arrow.DataType) arrow.Array {
	w.buf.ResizeNoShrink(len(w.data))
	d := array.NewData(dt, w.row, []*memory.Buffer{w.valid, w.offs, w.buf}, nil, w.nulls, 0)
	w.release()
	defer d.Release()
	return array.MakeFromData(d)
}

// bindStrings binds a string function with the signature kinds (see
// signature) whose value, for a row without NULLs, f appends to dst.
func bindStrings(kinds string, f func(dst []byte, r row) []byte) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, kinds)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
				return f(dst, row{a: a, i: i}), true, nil
			})
		}}, nil
	}
}

func bindCase(upper bool) func([]fn.Arg) (fn.Bound, error) {
	return bindStrings("s", func(dst []byte, r row) []byte {
		return appendCase(dst, r.str(0, ""), upper)
	})
}

// appendCase converts ASCII in place and falls back to Unicode case mapping
// only for text that needs it.
func appendCase(dst []byte, v string, upper bool) []byte {
	start := len(dst)
	dst = append(dst, v...)
	b := dst[start:]
	lo, hi := byte('a'), byte('z')
	if !upper {
		lo, hi = 'A', 'Z'
	}
	for k, c := range b {
		if c >= utf8.RuneSelf {
			if upper {
				return append(dst[:start], strings.ToUpper(v)...)
			}
			return append(dst[:start], strings.ToLower(v)...)
		}
		if lo <= c && c <= hi {
			b[k] = c ^ 0x20
		}
	}
	return dst
}

func bindLength(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	binary := args[0].Type.ID() == arrow.BINARY
	in := []arrow.DataType{nil}
	if !binary {
		var err error
		if in, err = stringArgs(args); err != nil {
			return fn.Bound{}, err
		}
	}
	return fn.Bound{Type: int32Type, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapValues(ctx.Mem, int32Type, a[0], n, func(b array.Builder, i int) {
			if binary {
				b.(*array.Int32Builder).UnsafeAppend(int32(len(a[0].(*array.Binary).Value(i))))
			} else {
				b.(*array.Int32Builder).UnsafeAppend(int32(utf8.RuneCountInString(a[0].(*array.String).Value(i))))
			}
		}), nil
	}}, nil
}

// bindTrim: trim(str) drops spaces (U+0020 only); trim(trimStr, str) drops
// any of trimStr's characters — the trim set comes first, as in Spark's
// function-call form.
func bindTrim(left, right bool) func([]fn.Arg) (fn.Bound, error) {
	return bindStrings("s|s", func(dst []byte, r row) []byte {
		v := r.str(len(r.a)-1, "")
		cut := " "
		if len(r.a) == 2 {
			cut = r.str(0, "")
		}
		return append(dst, trimChars(v, cut, left, right)...)
	})
}

func bindSubstr(args []fn.Arg) (fn.Bound, error) {
	if len(args) > 0 && args[0].Type.ID() == arrow.BINARY {
		return rows("Bi|i", binaryType, func(r row) ([]byte, bool) {
			return substringBytes(r.bin(0), r.int(1, 0), r.int(2, 1<<31-1)), true
		})(args)
	}
	return bindStrings("si|i", func(dst []byte, r row) []byte {
		return append(dst, SubstringSQL(r.str(0, ""), r.int(1, 0), r.int(2, 1<<31-1))...)
	})(args)
}

// substringBytes is SubstringSQL over bytes.
func substringBytes(b []byte, pos, length int64) []byte {
	n := int64(len(b))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	}
	end := start + length
	start = max(start, 0)
	end = min(end, n)
	if start >= end {
		return []byte{}
	}
	return b[start:end]
}

// bindLeftRight: left(str, len) is substr(str, 1, len), right(str, len)
// substr(str, -len, len); a length of 0 or less gives ”.
func bindLeftRight(left bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if left && len(args) > 0 && args[0].Type.ID() == arrow.BINARY {
			return rows("Bi", binaryType, func(r row) ([]byte, bool) {
				return substringBytes(r.bin(0), 1, r.int(1, 0)), true
			})(args)
		}
		return bindStrings("si", func(dst []byte, r row) []byte {
			n := r.int(1, 0)
			switch {
			case n <= 0:
				return dst
			case left:
				return append(dst, SubstringSQL(r.str(0, ""), 1, n)...)
			}
			return append(dst, SubstringSQL(r.str(0, ""), -n, n)...)
		})(args)
	}
}

// bindBtrim is btrim(str[, trimStr]): trim with the string first.
func bindBtrim(args []fn.Arg) (fn.Bound, error) {
	return bindStrings("s|s", func(dst []byte, r row) []byte {
		cut := " "
		if len(r.a) == 2 {
			cut = r.str(1, "")
		}
		return append(dst, trimChars(r.str(0, ""), cut, true, true)...)
	})(args)
}

// trimChars removes the characters of cut (whole characters, not bytes)
// from the ends of v.
func trimChars(v, cut string, left, right bool) string {
	if left {
		v = strings.TrimLeft(v, cut)
	}
	if right {
		v = strings.TrimRight(v, cut)
	}
	return v
}

// SubstringSQL is Spark's substring with a 1-based position: 0 means 1, a
// negative position counts from the end, and a length that ends before the
// start gives ”. Positions count characters, not bytes.
func SubstringSQL(s string, pos, length int64) string {
	ascii := true
	for k := 0; k < len(s); k++ {
		if s[k] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var nchars int64
	if ascii {
		nchars = int64(len(s))
	} else {
		nchars = int64(utf8.RuneCountInString(s))
	}
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = nchars + pos
	}
	end := start + length
	start = max(start, 0)
	end = min(end, nchars)
	if start >= end {
		return ""
	}
	if ascii {
		return s[start:end]
	}
	return s[runeOffset(s, start):runeOffset(s, end)]
}

// runeOffset is the byte offset of character k of s (len(s) past the end).
func runeOffset(s string, k int64) int {
	if k <= 0 {
		return 0
	}
	var c int64
	for off := range s {
		if c == k {
			return off
		}
		c++
	}
	return len(s)
}

func bindConcat(args []fn.Arg) (fn.Bound, error) {
	allLists, allBinary, someList := true, true, false
	for _, a := range args {
		someList = someList || a.Type.ID() == arrow.LIST
		allLists = allLists && (a.Type.ID() == arrow.LIST || isNull(a.Type))
		allBinary = allBinary && (a.Type.ID() == arrow.BINARY || isNull(a.Type))
	}
	switch {
	case allLists && someList:
		return bindConcatArrays(args)
	case allBinary && len(args) > 0 && !isNull(args[0].Type):
		in := make([]arrow.DataType, len(args))
		for i := range in {
			in[i] = binaryType
		}
		return fn.Bound{Type: binaryType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			var buf []byte
			return rowsOf(ctx, binaryType, a, n, func(r row) ([]byte, bool) {
				buf = buf[:0]
				for k := range a {
					buf = append(buf, r.bin(k)...)
				}
				return buf, true
			}), nil
		}}, nil
	}
	in, err := stringArgs(args)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		if len(a) == 0 {
			b := array.NewStringBuilder(ctx.Mem)
			defer b.Release()
			for i := 0; i < n; i++ {
				b.Append("")
			}
			return b.NewArray(), nil
		}
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			for _, x := range a {
				dst = append(dst, x.(*array.String).Value(i)...)
			}
			return dst, true, nil
		})
	}}, nil
}

// bindConcatArrays is concat over arrays: the elements of each in turn,
// NULL if any array is NULL.
func bindConcatArrays(args []fn.Arg) (fn.Bound, error) {
	t, err := commonOf(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	in := make([]arrow.DataType, len(args))
	for i := range in {
		in[i] = t
	}
	elem := t.(*arrow.ListType).Elem()
	return fn.Bound{Type: t, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		values := make([]arrow.Array, len(a))
		base := make([]int64, len(a))
		var total int64
		for k, x := range a {
			values[k] = x.(*array.List).ListValues()
			base[k] = total
			total += int64(values[k].Len())
		}
		all, err := array.Concatenate(values, ctx.Mem)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		var idx []int64
		lb := newListOf(ctx, elem, n)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				lb.appendNull()
				continue
			}
			start := len(idx)
			for k, x := range a {
				s, e := x.(*array.List).ValueOffsets(i)
				for j := s; j < e; j++ {
					idx = append(idx, base[k]+j)
				}
			}
			lb.appendLen(len(idx) - start)
		}
		return lb.finish(all, idx)
	}}, nil
}

func bindConcatWs(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, -1); err != nil {
		return fn.Bound{}, err
	}
	in := make([]arrow.DataType, len(args))
	var err error
	if in[0], err = stringArg(args, 0); err != nil {
		return fn.Bound{}, err
	}
	for i := 1; i < len(args); i++ {
		if lt, ok := args[i].Type.(*arrow.ListType); ok {
			if !isAtomic(lt.Elem()) {
				return fn.Bound{}, argErr(i, args[i], "a string or an array of strings")
			}
			in[i] = arrow.ListOf(stringType)
		} else if in[i], err = stringArg(args, i); err != nil {
			return fn.Bound{}, argErr(i, args[i], "a string or an array of strings")
		}
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		sep := a[0].(*array.String)
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			first := true
			add := func(v string) {
				if !first {
					dst = append(dst, sep.Value(i)...)
				}
				first = false
				dst = append(dst, v...)
			}
			for _, x := range a[1:] {
				if nullAt(x, i) {
					continue
				}
				switch v := x.(type) {
				case *array.String:
					add(v.Value(i))
				case *array.List:
					elems := v.ListValues().(*array.String)
					s, e := v.ValueOffsets(i)
					for j := s; j < e; j++ {
						if !nullAt(elems, int(j)) {
							add(elems.Value(int(j)))
						}
					}
				}
			}
			return dst, true, nil
		})
	}}, nil
}

func bindSplit(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "ss|i")
	if err != nil {
		return fn.Bound{}, err
	}
	cache, err := newCache(args, 1, "", compileRegex)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: arrow.ListOf(stringType), Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		rc := cache.forEval()
		s, pat := a[0].(*array.String), a[1].(*array.String)
		b := array.NewListBuilder(ctx.Mem, stringType)
		defer b.Release()
		vb := b.ValueBuilder().(*array.StringBuilder)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				b.AppendNull()
				continue
			}
			limit := -1
			if len(a) == 3 {
				limit = int(a[2].(*array.Int32).Value(i))
			}
			re, err := rc.at(a, i)
			if err != nil {
				return nil, err
			}
			parts, err := splitJava(s.Value(i), pat.Value(i), re, limit)
			if err != nil {
				return nil, err
			}
			b.Append(true)
			for _, part := range parts {
				vb.Append(part)
			}
		}
		return b.NewArray(), nil
	}}, nil
}

// splitJava is Java's Pattern.split as Spark calls it: limit > 0 keeps at
// most limit parts (the last holds the rest), otherwise all parts,
// trailing empty ones included; an empty pattern splits into characters.
func splitJava(s, pattern string, re *javaRegexp, limit int) ([]string, error) {
	if pattern == "" && s != "" {
		nchars := utf8.RuneCountInString(s)
		if limit <= 0 || limit > nchars {
			limit = nchars
		}
		parts := make([]string, 0, limit)
		for len(parts) < limit-1 {
			_, size := utf8.DecodeRuneInString(s)
			parts = append(parts, s[:size])
			s = s[size:]
		}
		return append(parts, s), nil
	}
	var parts []string
	index := 0
	err := re.findAll(s, func(m []int) bool {
		if limit > 0 && len(parts) >= limit-1 {
			return false
		}
		if m[0] == 0 && m[1] == 0 {
			// No empty leading part for a zero-width match at the start.
			return true
		}
		parts = append(parts, s[index:m[0]])
		index = m[1]
		return true
	})
	return append(parts, s[index:]), err
}

var bindReplace = bindStrings("ss|s", func(dst []byte, r row) []byte {
	v, search := r.str(0, ""), r.str(1, "")
	if search == "" {
		return append(dst, v...)
	}
	return append(dst, strings.ReplaceAll(v, search, r.str(2, ""))...)
})

func bindRegexpExtract(args []fn.Arg) (fn.Bound, error) {
	in, cache, err := bindExtractArgs(args)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		rc := cache.forEval()
		s := a[0].(*array.String)
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			re, err := rc.at(a, i)
			if err != nil {
				return nil, false, err
			}
			idx := int64(1)
			if len(a) == 3 {
				idx = int64(a[2].(*array.Int32).Value(i))
			}
			if err := checkGroup(re, idx); err != nil {
				return nil, false, err
			}
			v := s.Value(i)
			m, err := re.first(v)
			if err != nil {
				return nil, false, err
			}
			if m == nil || m[2*idx] < 0 {
				return dst, true, nil
			}
			return append(dst, v[m[2*idx]:m[2*idx+1]]...), true, nil
		})
	}}, nil
}

func checkGroup(re *javaRegexp, idx int64) error {
	if idx < 0 {
		return fmt.Errorf("argument 3: the regex group index must not be negative, got %d", idx)
	}
	if idx > int64(re.NumSubexp()) {
		return fmt.Errorf("argument 3: regex group count is %d, but the specified group index is %d", re.NumSubexp(), idx)
	}
	return nil
}

func bindRegexpReplace(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "sss|i")
	if err != nil {
		return fn.Bound{}, err
	}
	if len(args) == 4 {
		if p, null, ok := constInt(args[3]); ok && !null && p <= 0 {
			return fn.Bound{}, fmt.Errorf("argument 4: position must be positive, got %d", p)
		}
	}
	cache, err := newCache(args, 1, "", compileRegex)
	if err != nil {
		return fn.Bound{}, err
	}
	// A literal replacement with a literal pattern translates once.
	var fixedTemplate *string
	if rep, null, ok := constString(args[2]); ok && !null && cache.hasFixed {
		t, err := javaReplacement(rep, cache.fixed)
		if err != nil {
			return fn.Bound{}, err
		}
		fixedTemplate = &t
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		rc := cache.forEval()
		s, rep := a[0].(*array.String), a[2].(*array.String)
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			re, err := rc.at(a, i)
			if err != nil {
				return nil, false, err
			}
			var tmpl string
			if fixedTemplate != nil {
				tmpl = *fixedTemplate
			} else if tmpl, err = javaReplacement(rep.Value(i), re); err != nil {
				return nil, false, err
			}
			v := s.Value(i)
			prefix := ""
			if len(a) == 4 {
				p := int64(a[3].(*array.Int32).Value(i))
				if p <= 0 {
					return nil, false, fmt.Errorf("argument 4: position must be positive, got %d", p)
				}
				off := runeOffset(v, p-1)
				if p-1 > 0 && off == len(v) && int64(utf8.RuneCountInString(v)) < p {
					return append(dst, v...), true, nil
				}
				prefix, v = v[:off], v[off:]
			}
			dst = append(dst, prefix...)
			dst, err = re.replaceAll(dst, v, tmpl)
			return dst, err == nil, err
		})
	}}, nil
}

// javaReplacement turns a Java replacement string (Spark's regexp_replace:
// `$1`, `${name}`, `\$` for a literal dollar) into a Go Expand template.
func javaReplacement(rep string, re *javaRegexp) (string, error) {
	if !strings.ContainsAny(rep, `$\`) {
		return rep, nil
	}
	var b strings.Builder
	for i := 0; i < len(rep); i++ {
		c := rep[i]
		switch c {
		case '\\':
			i++
			if i == len(rep) {
				return "", fmt.Errorf("argument 3: character to be escaped is missing in %q", rep)
			}
			if rep[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(rep[i])
			}
		case '$':
			i++
			if i == len(rep) {
				return "", fmt.Errorf("argument 3: illegal group reference: group index is missing in %q", rep)
			}
			if rep[i] == '{' {
				end := strings.IndexByte(rep[i:], '}')
				if end < 0 {
					return "", fmt.Errorf("argument 3: named capturing group is missing trailing '}' in %q", rep)
				}
				name := rep[i+1 : i+end]
				if re.SubexpIndex(name) < 0 {
					return "", fmt.Errorf("argument 3: no group with name {%s}", name)
				}
				b.WriteString("${" + name + "}")
				i += end
				continue
			}
			if rep[i] < '0' || rep[i] > '9' {
				return "", fmt.Errorf("argument 3: illegal group reference in %q", rep)
			}
			// Java takes further digits while the number stays a group.
			num := int(rep[i] - '0')
			for i+1 < len(rep) && rep[i+1] >= '0' && rep[i+1] <= '9' {
				next := num*10 + int(rep[i+1]-'0')
				if next > re.NumSubexp() {
					break
				}
				num = next
				i++
			}
			if num > re.NumSubexp() {
				return "", fmt.Errorf("argument 3: no group %d", num)
			}
			b.WriteString("${" + strconv.Itoa(num) + "}")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func bindPad(left bool) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		if len(args) > 0 && args[0].Type.ID() == arrow.BINARY && (len(args) < 3 || args[2].Type.ID() == arrow.BINARY) {
			return rows("Bi|B", binaryType, func(r row) ([]byte, bool) {
				pad := []byte{0}
				if len(r.a) == 3 {
					pad = r.bin(2)
				}
				return padBytes(r.bin(0), int(r.int(1, 0)), pad, left), true
			})(args)
		}
		return bindStrings("si|s", func(dst []byte, r row) []byte {
			return appendPad(dst, r.str(0, ""), int(r.int(1, 0)), r.str(2, " "), left)
		})(args)
	}
}

// padBytes is appendPad over bytes.
func padBytes(s []byte, length int, pad []byte, left bool) []byte {
	if length <= len(s) || len(pad) == 0 {
		return s[:max(min(length, len(s)), 0)]
	}
	fill := make([]byte, 0, length)
	for len(fill) < length-len(s) {
		fill = append(fill, pad[:min(len(pad), length-len(s)-len(fill))]...)
	}
	if left {
		return append(fill, s...)
	}
	return append(append([]byte(nil), s...), fill...)
}

// appendPad is Spark's lpad/rpad: pad to length characters with pad
// repeated (cut to fit); a longer string, or an empty pad, gives the
// string cut to length.
func appendPad(dst []byte, s string, length int, pad string, left bool) []byte {
	nchars := utf8.RuneCountInString(s)
	spaces := length - nchars
	if spaces <= 0 || pad == "" {
		return append(dst, SubstringSQL(s, 1, int64(max(length, 0)))...)
	}
	if !left {
		dst = append(dst, s...)
	}
	padChars := utf8.RuneCountInString(pad)
	for spaces > 0 {
		if spaces >= padChars {
			dst = append(dst, pad...)
			spaces -= padChars
			continue
		}
		dst = append(dst, pad[:runeOffset(pad, int64(spaces))]...)
		spaces = 0
	}
	if left {
		dst = append(dst, s...)
	}
	return dst
}
