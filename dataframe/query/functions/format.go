package functions

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Number and text formatting: format_number, format_string / printf,
// to_char / to_varchar, to_number / try_to_number.

func init() {
	def(fn.Scalar{Name: "format_number", Group: gString, Signature: "format_number(expr, d | fmt)", Returns: "string", Bind: bindFormatNumber,
		Doc: "`expr` with thousands separators and `d` decimal places (rounded half to even), like `#,###,###.##`; or " +
			"formatted with the Java DecimalFormat pattern `fmt` (`#`, `0`, `,`, `.`). NULL for a negative `d`.",
		Examples: ex("format_number(12332.123456, 4)", "12,332.1235", "format_number(12332.123456, '##################.###')", "12332.123",
			"format_number(1234567, 0)", "1,234,567")})
	def(fn.Scalar{Name: "format_string", Group: gString, Signature: "format_string(strfmt, obj, …)", Returns: "string", Bind: bindFormatString,
		Doc: "`strfmt` with its Java (printf-style) conversions filled in from the arguments: `%s`, `%d`, `%f`, `%e`, `%x`, `%o`, " +
			"`%c`, `%b`, `%%`, `%n`, with flags (`-+ 0,(#`), width, precision and `n$` argument indexes.",
		Differences: "Date-time conversions (`%t…`) and `%a` are not supported.",
		Examples:    ex(`format_string("Hello World %d %s", 100, "days")`, "Hello World 100 days", "format_string('%05.2f|%-4s|%,d', 3.14159, 'ab', 1234567)", "03.14|ab  |1,234,567")},
		aliases("printf"))
	def(fn.Scalar{Name: "to_char", Group: gString, Signature: "to_char(expr, format)", Returns: "string", Bind: bindToChar,
		Doc: "A number formatted with Spark's number format (`0`/`9` digits, `.`/`D`, `,`/`G`, `$`, `S`, `MI`, `PR`; a number too " +
			"large for it comes out as `#`s); a date or timestamp formatted with a datetime pattern; a binary as `base64`, `hex` " +
			"or `utf-8` text.",
		Examples: ex("to_char(454, '999')", "454", "to_char(454.00, '000D00')", "454.00", "to_char(12454, '99G999')", "12,454",
			"to_char(78.12, '$99.99')", "$78.12", "to_char(-12454.8, '99G999D9S')", "12,454.8-", "to_char(4, '999')", "  4",
			"to_char(1234, '99')", "##")},
		aliases("to_varchar"), pretty(namedAs("to_char")))
	def(fn.Scalar{Name: "to_number", Group: gString, Signature: "to_number(expr, fmt)", Returns: "decimal(p,s) with p and s from fmt",
		Bind: bindToNumber(false),
		Doc:  "The string `expr` read with Spark's number format `fmt` (see `to_char`); a string that does not match is an error.",
		Examples: ex("to_number('454', '999')", "454", "to_number('454.00', '000.00')", "454.00", "to_number('12,454', '99,999')", "12454",
			"to_number('$78.12', '$99.99')", "78.12", "to_number('12,454.8-', '99,999.9S')", "-12454.8")})
	def(fn.Scalar{Name: "try_to_number", Group: gString, Signature: "try_to_number(expr, fmt)", Returns: "decimal(p,s) with p and s from fmt",
		Bind:     bindToNumber(true),
		Doc:      "`to_number` that gives NULL for a string that does not match.",
		Examples: ex("try_to_number('454', '999')", "454", "try_to_number('$78.12', '99.99')", "NULL")})
}

func bindFormatNumber(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	t := args[0].Type
	if !isNumeric(t) && !isNull(t) {
		return fn.Bound{}, argErr(0, args[0], "a number")
	}
	byPattern := isStringType(args[1].Type)
	kinds := "ai"
	if byPattern {
		kinds = "as"
	}
	in, err := signature(args, kinds)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var lastPattern string
		var pat decimalPattern
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			r := row{a: a, i: i}
			var p decimalPattern
			if byPattern {
				if src := r.str(1, ""); src != lastPattern || pat.src == "" {
					pat = parseDecimalPattern(src)
					lastPattern = src
				}
				p = pat
			} else {
				d := r.int(1, 0)
				if d < 0 {
					return dst, false, nil
				}
				p = decimalPattern{src: "#", grouping: 3, minInt: 1, minFrac: int(d), maxFrac: int(d)}
			}
			digits, exp, neg := numberDigits(a[0], i, p.maxFrac)
			return p.format(dst, digits, exp, neg), true, nil
		})
	}}, nil
}

// numberDigits is value i of a number as decimal digits and an exponent:
// value = 0.digits × 10^exp. A double comes already rounded half-even to
// maxFrac places from its exact binary value, as Java's DecimalFormat
// rounds it.
func numberDigits(arr arrow.Array, i, maxFrac int) (digits string, exp int, neg bool) {
	var text string
	switch arr.(type) {
	case *array.Float64, *array.Float32:
		f := fn.FloatValue(arr, i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", 0, false
		}
		text = strconv.FormatFloat(f, 'f', maxFrac, 64)
	default:
		text = string(fn.AppendSparkString(nil, arr, i, nil))
	}
	if strings.HasPrefix(text, "-") {
		neg, text = true, text[1:]
	}
	mant, e, hasExp := strings.Cut(text, "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits = intPart + frac
	exp = len(intPart)
	if hasExp {
		k, _ := strconv.Atoi(e)
		exp += k
	}
	trimmed := strings.TrimLeft(digits, "0")
	exp -= len(digits) - len(trimmed)
	return strings.TrimRight(trimmed, "0"), exp, neg
}

// decimalPattern is the part of a Java DecimalFormat pattern Sluice
// reads: literal prefix and suffix, grouping, and the digit counts.
type decimalPattern struct {
	src                      string
	prefix, suffix           string
	grouping                 int
	minInt, minFrac, maxFrac int
}

func parseDecimalPattern(p string) decimalPattern {
	dp := decimalPattern{src: p}
	if p == "" {
		p = "#,###,###,###,###,###,##0"
	}
	if k := strings.IndexByte(p, ';'); k >= 0 {
		p = p[:k]
	}
	start := strings.IndexAny(p, "#0,.")
	if start < 0 {
		dp.prefix = p
		return dp
	}
	end := start
	for end < len(p) && strings.IndexByte("#0,.", p[end]) >= 0 {
		end++
	}
	dp.prefix, dp.suffix = p[:start], p[end:]
	body := p[start:end]
	intPart, frac, hasPoint := strings.Cut(body, ".")
	if k := strings.LastIndexByte(intPart, ','); k >= 0 {
		dp.grouping = len(intPart) - k - 1
	}
	dp.minInt = strings.Count(intPart, "0")
	if hasPoint {
		dp.minFrac = strings.Count(frac, "0")
		dp.maxFrac = strings.Count(frac, "0") + strings.Count(frac, "#")
	}
	return dp
}

// format writes 0.digits × 10^exp rounded half-even to maxFrac places.
func (p decimalPattern) format(dst []byte, digits string, exp int, neg bool) []byte {
	// Round to maxFrac fraction digits.
	keep := exp + p.maxFrac
	if keep < len(digits) {
		var kept string
		var first byte
		var rest bool
		if keep < 0 {
			kept, first, rest = "", 0, digits != ""
		} else {
			kept, first = digits[:keep], digits[keep]-'0'
			rest = strings.TrimRight(digits[keep+1:], "0") != ""
		}
		last := byte(0)
		if kept != "" {
			last = kept[len(kept)-1] - '0'
		}
		v, _ := new(big.Int).SetString("0"+kept, 10)
		if halfEven.roundsUp(last, first, rest, neg) {
			v.Add(v, big.NewInt(1))
		}
		s := v.String()
		// The rounded value has keep digits at scale maxFrac.
		exp = len(s) - p.maxFrac
		digits = strings.TrimRight(strings.TrimLeft(s, "0"), "0")
		if digits == "" {
			exp = 0
		} else {
			exp -= len(s) - len(strings.TrimLeft(s, "0"))
		}
	}
	var intDigits, fracDigits string
	switch {
	case exp <= 0:
		fracDigits = strings.Repeat("0", -exp) + digits
	case exp >= len(digits):
		intDigits = digits + strings.Repeat("0", exp-len(digits))
	default:
		intDigits, fracDigits = digits[:exp], digits[exp:]
	}
	for len(intDigits) < p.minInt {
		intDigits = "0" + intDigits
	}
	for len(fracDigits) < p.minFrac {
		fracDigits += "0"
	}
	if neg && (intDigits != "" && strings.Trim(intDigits, "0") != "" || strings.Trim(fracDigits, "0") != "") {
		dst = append(dst, '-')
	}
	dst = append(dst, p.prefix...)
	for k := 0; k < len(intDigits); k++ {
		if k > 0 && p.grouping > 0 && (len(intDigits)-k)%p.grouping == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, intDigits[k])
	}
	if fracDigits != "" {
		dst = append(dst, '.')
		dst = append(dst, fracDigits...)
	}
	return append(dst, p.suffix...)
}

func bindFormatString(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, -1); err != nil {
		return fn.Bound{}, err
	}
	in := make([]arrow.DataType, len(args))
	var err error
	if in[0], err = stringArg(args, 0); err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			out, err := javaFormat(dst, a[0].(*array.String).Value(i), a[1:], i)
			return out, err == nil, err
		})
	}}, nil
}

// javaFormat is java.util.Formatter.format over row i of args, with the
// values as Spark passes them (dates as days, timestamps as microseconds).
func javaFormat(dst []byte, format string, args []arrow.Array, i int) ([]byte, error) {
	next, last := 0, -1
	for k := 0; k < len(format); k++ {
		c := format[k]
		if c != '%' {
			dst = append(dst, c)
			continue
		}
		// %[index$][flags][width][.precision]conversion
		j := k + 1
		index := -2 // -2 ordinary, -1 relative (<)
		start := j
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		if j < len(format) && format[j] == '$' && j > start {
			index, _ = strconv.Atoi(format[start:j])
			index--
			j++
		} else {
			j = start
		}
		flags := ""
		for j < len(format) && strings.IndexByte("-#+ 0,(<", format[j]) >= 0 {
			if format[j] == '<' {
				index = -1
			} else {
				flags += string(format[j])
			}
			j++
		}
		width := -1
		ws := j
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		if j > ws {
			width, _ = strconv.Atoi(format[ws:j])
		}
		prec := -1
		if j < len(format) && format[j] == '.' {
			j++
			ps := j
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				j++
			}
			prec, _ = strconv.Atoi(format[ps:j])
		}
		if j >= len(format) {
			return nil, fmt.Errorf("format %q ends inside a conversion", format)
		}
		conv := format[j]
		k = j
		switch conv {
		case '%':
			dst = appendPadded(dst, "%", width, flags)
			continue
		case 'n':
			dst = append(dst, '\n')
			continue
		}
		var arg arrow.Array
		switch {
		case index == -1:
			if last < 0 {
				return nil, fmt.Errorf("format %q: %%< has no previous argument", format)
			}
		case index >= 0:
			last = index
		default:
			last = next
			next++
		}
		if last >= len(args) {
			return nil, fmt.Errorf("format %q: missing argument for %%%c", format, conv)
		}
		arg = args[last]
		text, err := javaConvert(arg, i, conv, flags, prec)
		if err != nil {
			return nil, fmt.Errorf("format %q: %w", format, err)
		}
		if strings.ContainsRune(flags, '0') && width > 0 && !strings.ContainsRune(flags, '-') && !nullAt(arg, i) {
			text = zeroPad(text, width)
		}
		dst = appendPadded(dst, text, width, flags)
	}
	return dst, nil
}

func appendPadded(dst []byte, s string, width int, flags string) []byte {
	pad := width - utf8.RuneCountInString(s)
	if pad <= 0 {
		return append(dst, s...)
	}
	if strings.ContainsRune(flags, '-') {
		return append(append(dst, s...), strings.Repeat(" ", pad)...)
	}
	return append(append(dst, strings.Repeat(" ", pad)...), s...)
}

// zeroPad puts zeros between a number's sign and its digits.
func zeroPad(s string, width int) string {
	if len(s) >= width {
		return s
	}
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '(') {
		sign, s = s[:1], s[1:]
	}
	return sign + strings.Repeat("0", width-len(sign)-len(s)) + s
}

func javaConvert(arg arrow.Array, i int, conv byte, flags string, prec int) (string, error) {
	null := nullAt(arg, i)
	upper := conv >= 'A' && conv <= 'Z'
	cut := func(s string) string {
		if prec >= 0 && utf8.RuneCountInString(s) > prec {
			return string([]rune(s)[:prec])
		}
		return s
	}
	up := func(s string) string {
		if upper {
			return strings.ToUpper(s)
		}
		return s
	}
	switch conv | 0x20 {
	case 'b':
		if null {
			return up(cut("false")), nil
		}
		if b, ok := arg.(*array.Boolean); ok {
			return up(cut(strconv.FormatBool(b.Value(i)))), nil
		}
		return up(cut("true")), nil
	case 's', 'h':
		if null {
			return up(cut("null")), nil
		}
		if conv|0x20 == 'h' {
			return up(fmt.Sprintf("%x", javaHash(arg, i))), nil
		}
		return up(cut(javaString(arg, i))), nil
	case 'c':
		if null {
			return up("null"), nil
		}
		if !isIntegral(arg.DataType()) {
			return "", fmt.Errorf("%%%c needs a character code, got %s", conv, sparkName(arg.DataType()))
		}
		return up(string(rune(fn.IntValue(arg, i)))), nil
	case 'd', 'x', 'o':
		if null {
			return "null", nil
		}
		v, ok := integerValue(arg, i)
		if !ok {
			return "", fmt.Errorf("%%%c needs an integer, got %s", conv, sparkName(arg.DataType()))
		}
		switch conv | 0x20 {
		case 'd':
			return signed(v, flags, groupDigits(new(big.Int).Abs(v).String(), flags)), nil
		case 'x':
			s := twosComplement(v, arg.DataType(), 16)
			if strings.ContainsRune(flags, '#') {
				s = "0x" + s
			}
			return up(s), nil
		}
		s := twosComplement(v, arg.DataType(), 8)
		if strings.ContainsRune(flags, '#') {
			s = "0" + s
		}
		return s, nil
	case 'f', 'e', 'g':
		if null {
			return "null", nil
		}
		if !isNumeric(arg.DataType()) || isIntegral(arg.DataType()) {
			return "", fmt.Errorf("%%%c needs a floating-point number, got %s", conv, sparkName(arg.DataType()))
		}
		var f float64
		if d, ok := arg.(*array.Decimal128); ok {
			f, _ = new(big.Float).SetInt(d.Value(i).BigInt()).Float64()
			f /= math.Pow10(int(d.DataType().(*arrow.Decimal128Type).Scale))
		} else {
			f = fn.FloatValue(arg, i)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			s := "NaN"
			if math.IsInf(f, 1) {
				s = "Infinity"
			} else if math.IsInf(f, -1) {
				s = "-Infinity"
			}
			return up(s), nil
		}
		if prec < 0 {
			prec = 6
		}
		var body string
		switch conv | 0x20 {
		case 'f':
			body = strconv.FormatFloat(math.Abs(f), 'f', prec, 64)
			intPart, frac, hasFrac := strings.Cut(body, ".")
			body = groupDigits(intPart, flags)
			if hasFrac {
				body += "." + frac
			}
		case 'e':
			body = strconv.FormatFloat(math.Abs(f), 'e', prec, 64)
		default:
			if prec == 0 {
				prec = 1
			}
			if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= math.Pow10(prec)) {
				body = strconv.FormatFloat(a, 'e', prec-1, 64)
			} else {
				body = strconv.FormatFloat(a, 'f', max(prec-1-int(math.Floor(math.Log10(max(a, 1e-300)))), 0), 64)
			}
		}
		return up(signedText(math.Signbit(f), flags, body)), nil
	}
	return "", fmt.Errorf("conversion %%%c is not supported", conv)
}

// javaString is String.valueOf of a value as Spark hands it to Java.
func javaString(arg arrow.Array, i int) string {
	switch a := arg.(type) {
	case *array.Date32:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Timestamp:
		return strconv.FormatInt(fn.TimestampMicros(a, i), 10)
	case *array.Binary:
		return fmt.Sprintf("[B@%x", javaHash(arg, i))
	}
	return string(fn.AppendSparkString(nil, arg, i, nil))
}

func javaHash(arg arrow.Array, i int) uint32 {
	h := &murmur3{h: 42}
	hashValue(h, arg, i)
	return h.h
}

func integerValue(arg arrow.Array, i int) (*big.Int, bool) {
	switch a := arg.(type) {
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		return big.NewInt(fn.IntValue(arg, i)), true
	case *array.Date32:
		return big.NewInt(int64(a.Value(i))), true
	case *array.Timestamp:
		return big.NewInt(fn.TimestampMicros(a, i)), true
	}
	return nil, false
}

func twosComplement(v *big.Int, dt arrow.DataType, base int) string {
	if v.Sign() >= 0 {
		return v.Text(base)
	}
	bits := uint(intWidth(dt) * 8)
	m := new(big.Int).Lsh(big.NewInt(1), bits)
	return m.Add(m, v).Text(base)
}

func groupDigits(s string, flags string) string {
	if !strings.ContainsRune(flags, ',') {
		return s
	}
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		if k > 0 && (len(s)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[k])
	}
	return b.String()
}

func signed(v *big.Int, flags, digits string) string { return signedText(v.Sign() < 0, flags, digits) }

func signedText(neg bool, flags, body string) string {
	switch {
	case neg && strings.ContainsRune(flags, '('):
		return "(" + body + ")"
	case neg:
		return "-" + body
	case strings.ContainsRune(flags, '+'):
		return "+" + body
	case strings.ContainsRune(flags, ' '):
		return " " + body
	}
	return body
}

func bindToChar(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	dt := args[0].Type
	switch {
	case isTimeLike(dt):
		return bindDateFormat(args)
	case dt.ID() == arrow.BINARY:
		f, null, ok := constString(args[1])
		if !ok || null {
			return fn.Bound{}, fmt.Errorf("argument 2 must be a literal format: base64, hex or utf-8")
		}
		var enc func(dst, b []byte) []byte
		switch strings.ToLower(f) {
		case "base64":
			enc = base64.StdEncoding.AppendEncode
		case "hex":
			enc = func(dst, b []byte) []byte { return append(dst, strings.ToUpper(fmt.Sprintf("%x", b))...) }
		case "utf-8", "utf8":
			enc = func(dst, b []byte) []byte { return append(dst, b...) }
		default:
			return fn.Bound{}, fmt.Errorf("argument 2: invalid format %q for a binary: use base64, hex or utf-8", f)
		}
		return bindStrings("Bs", func(dst []byte, r row) []byte { return enc(dst, r.bin(0)) })(args)
	}
	nf, err := literalNumberFormat(args)
	if err != nil {
		return fn.Bound{}, err
	}
	dec, ok := decimalOf(dt)
	if !ok || !isNumeric(dt) && !isNull(dt) {
		return fn.Bound{}, argErr(0, args[0], "a number, a date, a timestamp or a binary")
	}
	return fn.Bound{Type: stringType, Args: []arrow.DataType{dec, nil}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			return append(dst, nf.format(string(fn.AppendSparkString(nil, a[0], i, nil)))...), true, nil
		})
	}}, nil
}

func literalNumberFormat(args []fn.Arg) (*numberFormat, error) {
	f, null, ok := constString(args[1])
	if !ok || null || !isStringType(args[1].Type) {
		return nil, fmt.Errorf("argument 2 must be a format string literal")
	}
	return compileNumberFormat(f)
}

func bindToNumber(try bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, "ss")
		if err != nil {
			return fn.Bound{}, err
		}
		nf, err := literalNumberFormat(args)
		if err != nil {
			return fn.Bound{}, err
		}
		out := nf.decimalType()
		in[1] = nil
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			var bad string
			res := rowsOf(ctx, out, a[:1], n, func(r row) (decimal128.Num, bool) {
				v, ok := nf.parse(r.str(0, ""))
				if !ok && !try && bad == "" {
					bad = r.str(0, "")
				}
				return v, ok
			})
			if bad != "" {
				res.Release()
				return nil, fmt.Errorf("%q does not match the number format %q (try_to_number gives NULL instead)", bad, nf.src)
			}
			return res, nil
		}}, nil
	}
}
