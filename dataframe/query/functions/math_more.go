package functions

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// unaryMath is a double → double function; ok false gives NULL.
type unaryMath struct {
	name, doc string
	f         func(float64) (float64, bool)
	examples  []fn.Example
}

func total(f func(float64) float64) func(float64) (float64, bool) {
	return func(x float64) (float64, bool) { return f(x), true }
}

// logAbove is a logarithm that is NULL at or below its asymptote.
func logAbove(limit float64, f func(float64) float64) func(float64) (float64, bool) {
	return func(x float64) (float64, bool) { return f(x), x > limit }
}

func defMath() {
	for _, u := range []unaryMath{
		{"acos", "The inverse cosine (arc cosine) in radians; NaN outside [-1, 1].", total(crAcos), ex("acos(1)", "0.0", "acos(2)", "NaN")},
		{"acosh", "The inverse hyperbolic cosine.", total(func(x float64) float64 { return crLog(x + math.Sqrt(x*x-1)) }), ex("acosh(1)", "0.0", "acosh(0)", "NaN")},
		{"asin", "The inverse sine (arc sine) in radians; NaN outside [-1, 1].", total(crAsin), ex("asin(0)", "0.0", "asin(2)", "NaN")},
		{"asinh", "The inverse hyperbolic sine.", total(asinh), ex("asinh(0)", "0.0")},
		{"atan", "The inverse tangent (arc tangent) in radians.", total(crAtan), ex("atan(0)", "0.0")},
		{"atanh", "The inverse hyperbolic tangent; NaN outside (-1, 1).", total(func(x float64) float64 { return 0.5 * (math.Log1p(x) - math.Log1p(-x)) }), ex("atanh(0)", "0.0", "atanh(2)", "NaN")},
		{"cbrt", "The cube root.", total(crCbrt), ex("cbrt(27.0)", "3.0")},
		{"cos", "The cosine of an angle in radians.", total(crCos), ex("cos(0)", "1.0")},
		{"cosh", "The hyperbolic cosine.", total(fdlibmCosh), ex("cosh(0)", "1.0")},
		{"cot", "The cotangent, 1/tan(x).", total(func(x float64) float64 { return 1 / crTan(x) }), ex("cot(1)", "0.6420926159343306")},
		{"csc", "The cosecant, 1/sin(x).", total(func(x float64) float64 { return 1 / crSin(x) }), ex("csc(1)", "1.1883951057781212")},
		{"sec", "The secant, 1/cos(x).", total(func(x float64) float64 { return 1 / crCos(x) }), ex("sec(0)", "1.0")},
		{"sin", "The sine of an angle in radians.", total(crSin), ex("sin(0)", "0.0")},
		{"sinh", "The hyperbolic sine.", total(fdlibmSinh), ex("sinh(0)", "0.0")},
		{"tan", "The tangent of an angle in radians.", total(crTan), ex("tan(0)", "0.0")},
		{"tanh", "The hyperbolic tangent.", total(fdlibmTanh), ex("tanh(0)", "0.0")},
		{"degrees", "Radians converted to degrees.", total(func(x float64) float64 { return x * 57.29577951308232 }), ex("degrees(3.141592653589793)", "180.0")},
		{"radians", "Degrees converted to radians.", total(func(x float64) float64 { return x * 0.017453292519943295 }), ex("radians(180)", "3.141592653589793")},
		{"exp", "e raised to the power of `expr`.", total(crExp), ex("exp(0)", "1.0")},
		{"expm1", "exp(expr) - 1, exact for small `expr`.", total(math.Expm1), ex("expm1(0)", "0.0")},
		{"sqrt", "The square root; NaN for a negative number.", total(math.Sqrt), ex("sqrt(4)", "2.0")},
		{"rint", "The double closest to `expr` that is an integer, ties to even.", total(math.RoundToEven), ex("rint(12.3456)", "12.0", "rint(2.5)", "2.0")},
		{"ln", "The natural logarithm; NULL for 0 or less.", logAbove(0, crLog), ex("ln(1)", "0.0", "ln(0)", "NULL")},
		{"log10", "The base-10 logarithm; NULL for 0 or less.", logAbove(0, fdlibmLog10), ex("log10(10)", "1.0")},
		{"log2", "The base-2 logarithm; NULL for 0 or less.", logAbove(0, func(x float64) float64 { return crLog(x) / crLog(2) }), ex("log2(2)", "1.0")},
		{"log1p", "ln(1 + expr); NULL for -1 or less.", logAbove(-1, math.Log1p), ex("log1p(0)", "0.0")},
		{"signum", "-1.0, 0.0 or 1.0 as `expr` is negative, zero or positive.", total(signum), ex("signum(40)", "1.0", "sign(-2.5)", "-1.0")},
	} {
		u := u
		opts := []option{pretty(upperUnlessAlias(u.name))}
		switch u.name {
		case "ln", "rint":
			opts = nil
		case "signum":
			opts = append(opts, aliases("sign"))
		}
		def(fn.Scalar{Name: u.name, Group: gMath, Signature: u.name + "(expr)", Returns: "double", Doc: u.doc, Examples: u.examples,
			Bind: rows("d", float64Type, func(r row) (float64, bool) { return u.f(r.f64(0)) })}, opts...)
	}
	def(fn.Scalar{Name: "atan2", Group: gMath, Signature: "atan2(exprY, exprX)", Returns: "double",
		Bind:     rows("dd", float64Type, always(func(r row) float64 { return crAtan2(r.f64(0)+0, r.f64(1)+0) })),
		Doc:      "The angle in radians between the positive x-axis and the point (exprX, exprY).",
		Examples: ex("atan2(0, 0)", "0.0")}, pretty(upperUnlessAlias("atan2")))
	def(fn.Scalar{Name: "hypot", Group: gMath, Signature: "hypot(expr1, expr2)", Returns: "double",
		Bind:     rows("dd", float64Type, always(func(r row) float64 { return crHypot(r.f64(0), r.f64(1)) })),
		Doc:      "sqrt(expr1² + expr2²) without overflow in between.",
		Examples: ex("hypot(3, 4)", "5.0")}, pretty(upperUnlessAlias("hypot")))
	def(fn.Scalar{Name: "power", Group: gMath, Signature: "power(expr1, expr2)", Returns: "double",
		Bind:     rows("dd", float64Type, always(func(r row) float64 { return crPow(r.f64(0), r.f64(1)) })),
		Doc:      "`expr1` raised to the power of `expr2`.",
		Examples: ex("power(2, 3)", "8.0")}, aliases("pow"), pretty(upperUnlessAlias("power")))
	def(fn.Scalar{Name: "log", Group: gMath, Signature: "log([base, ]expr)", Returns: "double",
		Bind:     bindLog,
		Doc:      "The logarithm of `expr` in `base` (natural without one); NULL when either is 0 or less.",
		Examples: ex("log(10, 100)", "2.0", "log(1)", "0.0", "log(0, 1)", "NULL")},
		pretty(func(_ string, args []string) string {
			if len(args) == 1 {
				args = []string{"E()", args[0]}
			}
			return callName("LOG", args)
		}))
	def(fn.Scalar{Name: "e", Group: gMath, Signature: "e()", Returns: "double", Bind: constDouble(math.E),
		Doc: "Euler's number.", Examples: ex("e()", "2.718281828459045")}, pretty(upperUnlessAlias("e")))
	def(fn.Scalar{Name: "pi", Group: gMath, Signature: "pi()", Returns: "double", Bind: constDouble(math.Pi),
		Doc: "π.", Examples: ex("pi()", "3.141592653589793")}, pretty(upperUnlessAlias("pi")))
	def(fn.Scalar{Name: "bin", Group: gMath, Signature: "bin(expr)", Returns: "string",
		Bind: bindStrings("l", func(dst []byte, r row) []byte {
			return strconv.AppendUint(dst, uint64(r.long(0, 0)), 2)
		}),
		Doc:      "The binary digits of the long `expr` (two's complement for a negative number).",
		Examples: ex("bin(13)", "1101", "bin(-13)", "1111111111111111111111111111111111111111111111111111111111110011", "bin(13.3)", "1101")})
	def(fn.Scalar{Name: "hex", Group: gMath, Signature: "hex(expr)", Returns: "string", Bind: bindHex,
		Doc:      "Upper-case hexadecimal: of a long's two's complement, or of the bytes of a string or binary.",
		Examples: ex("hex(17)", "11", "hex('Spark SQL')", "537061726B2053514C", "hex(-1)", "FFFFFFFFFFFFFFFF")})
	def(fn.Scalar{Name: "conv", Group: gMath, Signature: "conv(num, from_base, to_base)", Returns: "string",
		Bind: rows("sii", stringType, func(r row) (string, bool) {
			return convBase(r.str(0, ""), int(r.int(1, 0)), int(r.int(2, 0)))
		}),
		Doc: "`num` read in base `from_base` and written in base `to_base` (2 to 36; a negative `to_base` writes a signed number). " +
			"Reading stops at the first invalid digit; NULL for an invalid base.",
		Examples: ex("conv('100', 2, 10)", "4", "conv(-10, 16, -10)", "-16", "conv('ff', 16, 2)", "11111111")})
	def(fn.Scalar{Name: "factorial", Group: gMath, Signature: "factorial(expr)", Returns: "bigint",
		Bind: rows("i", int64Type, func(r row) (int64, bool) {
			n := r.int(0, 0)
			if n < 0 || n > 20 {
				return 0, false
			}
			f := int64(1)
			for k := int64(2); k <= n; k++ {
				f *= k
			}
			return f, true
		}),
		Doc:      "`expr`!; NULL outside 0–20.",
		Examples: ex("factorial(5)", "120", "factorial(21)", "NULL")})
	def(fn.Scalar{Name: "pmod", Group: gMath, Signature: "pmod(expr1, expr2)", Returns: "the common numeric type",
		Bind:     bindRemainder(true),
		Doc:      "The positive remainder of `expr1` / `expr2`; NULL when `expr2` is 0.",
		Examples: ex("pmod(10, 3)", "1", "pmod(-10, 3)", "2", "pmod(10, 0)", "NULL")})
	def(fn.Scalar{Name: "mod", Group: gMath, Signature: "mod(expr1, expr2)", Returns: "the common numeric type",
		Bind:     bindRemainder(false),
		Doc:      "The remainder of `expr1` / `expr2`, with the sign of `expr1`; NULL when `expr2` is 0. The operator `%` is the same.",
		Examples: ex("mod(2, 1.8)", "0.2", "mod(-7, 2)", "-1", "mod(7, 0)", "NULL")})
	def(fn.Scalar{Name: "div", Group: gMath, Signature: "div(expr1, expr2)", Returns: "bigint",
		Bind:     bindIntegralDivide,
		Doc:      "`expr1` / `expr2` truncated toward zero; NULL when `expr2` is 0. The operator `expr1 div expr2` is the same.",
		Examples: ex("div(3, 2)", "1", "div(-7, 2)", "-3", "div(1, 0)", "NULL")},
		pretty(func(_ string, args []string) string { return "(" + strings.Join(args, " div ") + ")" }))
	def(fn.Scalar{Name: "negative", Group: gMath, Signature: "negative(expr)", Returns: "type of expr",
		Bind:     bindNegate(true),
		Doc:      "-`expr` (an integer's smallest value stays as it is).",
		Examples: ex("negative(1)", "-1", "negative(-2.5)", "2.5")})
	def(fn.Scalar{Name: "positive", Group: gMath, Signature: "positive(expr)", Returns: "type of expr",
		Bind:     bindNegate(false),
		Doc:      "`expr` itself.",
		Examples: ex("positive(1)", "1")},
		pretty(func(_ string, args []string) string { return "(+ " + strings.Join(args, ", ") + ")" }))
	def(fn.Scalar{Name: "width_bucket", Group: gMath, Signature: "width_bucket(value, min_value, max_value, num_bucket)", Returns: "bigint",
		Bind: rows("dddl", int64Type, func(r row) (int64, bool) {
			return widthBucket(r.f64(0), r.f64(1), r.f64(2), r.long(3, 0))
		}),
		Doc: "The bucket `value` falls in among `num_bucket` equal-width buckets over [min_value, max_value): 0 below, " +
			"num_bucket + 1 above; NULL for an invalid range or bucket count.",
		Examples: ex("width_bucket(5.3, 0.2, 10.6, 5)", "3", "width_bucket(-2.1, 1.3, 3.4, 3)", "0", "width_bucket(8.1, 0.0, 5.7, 4)", "5",
			"width_bucket(-0.9, 5.2, 0.5, 2)", "3")})
	defTryArithmetic()
}

// asinh is Spark's: StrictMath.log(x + sqrt(x² + 1)).
func asinh(x float64) float64 {
	if math.IsInf(x, -1) {
		return x
	}
	return crLog(x + math.Sqrt(x*x+1))
}

func signum(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // ±0 and NaN
}

func constDouble(v float64) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 0, 0); err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: float64Type, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			b := array.NewFloat64Builder(ctx.Mem)
			defer b.Release()
			b.Reserve(n)
			for i := 0; i < n; i++ {
				b.UnsafeAppend(v)
			}
			return b.NewArray(), nil
		}}, nil
	}
}

func bindLog(args []fn.Arg) (fn.Bound, error) {
	if len(args) == 1 {
		return rows("d", float64Type, func(r row) (float64, bool) {
			x := r.f64(0)
			return crLog(x), x > 0
		})(args)
	}
	return rows("dd", float64Type, func(r row) (float64, bool) {
		b, x := r.f64(0), r.f64(1)
		return crLog(x) / crLog(b), b > 0 && x > 0
	})(args)
}

func bindHex(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	const digits = "0123456789ABCDEF"
	switch dt := args[0].Type; {
	case isStringType(dt) || dt.ID() == arrow.BINARY:
		return bindStrings("B", func(dst []byte, r row) []byte {
			for _, c := range r.bin(0) {
				dst = append(dst, digits[c>>4], digits[c&15])
			}
			return dst
		})(args)
	case isNumeric(dt) || isNull(dt):
		return bindStrings("l", func(dst []byte, r row) []byte {
			return append(dst, strings.ToUpper(strconv.FormatUint(uint64(r.long(0, 0)), 16))...)
		})(args)
	}
	return fn.Bound{}, argErr(0, args[0], "a number, a string or a binary")
}

// convBase is Spark's NumberConverter.convert: the longest valid prefix of
// num in base from, as an unsigned 64-bit number (a leading '-' negates
// it), written in base |to|; a negative to writes it signed.
func convBase(num string, from, to int) (string, bool) {
	if from < 2 || from > 36 || to < -36 || to > 36 || to > -2 && to < 2 {
		return "", false
	}
	num = strings.TrimSpace(num)
	if num == "" {
		return "", false
	}
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	var v uint64
	overflow := false
	for k := 0; k < len(num); k++ {
		d := digitValue(num[k])
		if d < 0 || d >= from {
			break
		}
		hi, lo := mulAdd(v, uint64(from), uint64(d))
		if hi != 0 {
			overflow = true
		}
		v = lo
	}
	if overflow {
		v = math.MaxUint64
	}
	if neg {
		v = -v
	}
	if to < 0 && int64(v) < 0 {
		return "-" + strings.ToUpper(strconv.FormatUint(uint64(-int64(v)), -to)), true
	}
	base := to
	if base < 0 {
		base = -base
	}
	return strings.ToUpper(strconv.FormatUint(v, base)), true
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

func mulAdd(v, m, a uint64) (hi, lo uint64) {
	x := new(big.Int).SetUint64(v)
	x.Mul(x, new(big.Int).SetUint64(m))
	x.Add(x, new(big.Int).SetUint64(a))
	lo = new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	return new(big.Int).Rsh(x, 64).Uint64(), lo
}

// arithType is the type two numbers meet at in arithmetic (Spark's
// implicit widening): strings count as double, integers widen to the wider
// one, a float or double makes double, decimals widen to hold both.
func arithType(a, b arrow.DataType) (arrow.DataType, bool) {
	norm := func(t arrow.DataType) (arrow.DataType, bool) {
		switch {
		case isStringType(t):
			return float64Type, true
		case isNumeric(t) || isNull(t):
			return t, true
		}
		return nil, false
	}
	a, oka := norm(a)
	b, okb := norm(b)
	if !oka || !okb {
		return nil, false
	}
	switch {
	case isNull(a) && isNull(b):
		return float64Type, true
	case isNull(a):
		return b, true
	case isNull(b):
		return a, true
	case a.ID() == arrow.FLOAT64 || b.ID() == arrow.FLOAT64:
		return float64Type, true
	case a.ID() == arrow.FLOAT32 || b.ID() == arrow.FLOAT32:
		if a.ID() == arrow.DECIMAL128 || b.ID() == arrow.DECIMAL128 {
			return float64Type, true
		}
		return arrow.PrimitiveTypes.Float32, true
	case a.ID() == arrow.DECIMAL128 || b.ID() == arrow.DECIMAL128:
		da, _ := decimalOf(a)
		db, _ := decimalOf(b)
		s := max(da.Scale, db.Scale)
		p := max(da.Precision-da.Scale, db.Precision-db.Scale) + s
		return &arrow.Decimal128Type{Precision: min(p, 38), Scale: s}, true
	}
	if intWidth(a) >= intWidth(b) {
		return a, true
	}
	return b, true
}

func intWidth(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8:
		return 1
	case arrow.INT16:
		return 2
	case arrow.INT32:
		return 4
	}
	return 8
}

// bindRemainder is mod (Java's %: the sign of the dividend) and pmod
// (a non-negative result for a positive divisor).
func bindRemainder(positive bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 2, 2); err != nil {
			return fn.Bound{}, err
		}
		t, ok := arithType(args[0].Type, args[1].Type)
		if !ok {
			return fn.Bound{}, fmt.Errorf("arguments must be numbers, got %s and %s", sparkName(args[0].Type), sparkName(args[1].Type))
		}
		out := t
		if dt, isDec := t.(*arrow.Decimal128Type); isDec {
			da, _ := decimalOf(args[0].Type)
			db, _ := decimalOf(args[1].Type)
			s := max(da.Scale, db.Scale)
			out = &arrow.Decimal128Type{Precision: min(min(da.Precision-da.Scale, db.Precision-db.Scale)+s, 38), Scale: s}
			_ = dt
		}
		return fn.Bound{Type: out, Args: []arrow.DataType{t, t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			switch t.ID() {
			case arrow.FLOAT64, arrow.FLOAT32:
				return rowsOfType(ctx, out, a, n, func(r row) (float64, bool) {
					x, y := fn.FloatValue(a[0], r.i), fn.FloatValue(a[1], r.i)
					if y == 0 {
						return 0, false
					}
					m := math.Mod(x, y)
					if positive && m < 0 {
						m = math.Mod(m+y, y)
					}
					return m, true
				}), nil
			case arrow.DECIMAL128:
				s := t.(*arrow.Decimal128Type).Scale
				return rowsOf(ctx, out, a, n, func(r row) (decimal128.Num, bool) {
					x, y := a[0].(*array.Decimal128).Value(r.i).BigInt(), a[1].(*array.Decimal128).Value(r.i).BigInt()
					if y.Sign() == 0 {
						return decimal128.Num{}, false
					}
					m := new(big.Int).Rem(x, y)
					if positive && m.Sign() < 0 {
						m.Add(m, y).Rem(m, y)
					}
					return fitDecimal(m, s, out.(*arrow.Decimal128Type))
				}), nil
			}
			return rowsOfType(ctx, out, a, n, func(r row) (int64, bool) {
				x, y := fn.IntValue(a[0], r.i), fn.IntValue(a[1], r.i)
				if y == 0 {
					return 0, false
				}
				if y == -1 {
					return 0, true // Java: MIN % -1 is 0, no overflow
				}
				m := x % y
				if positive && m < 0 {
					m = (m + y) % y
				}
				return m, true
			}), nil
		}}, nil
	}
}

// fitDecimal gives the unscaled value v (at scale s) in type out, NULL
// when it does not fit.
func fitDecimal(v *big.Int, s int32, out *arrow.Decimal128Type) (decimal128.Num, bool) {
	if s != out.Scale {
		v, _ = rescaleBig(v, s, out.Scale, halfUp)
	}
	if v.BitLen() > 126 {
		return decimal128.Num{}, false
	}
	n := decimal128.FromBigInt(v)
	return n, n.FitsInPrecision(out.Precision)
}

// rowsOfType is rowsOf for an integer or float result type whose width
// the caller does not know: f gives int64 or float64 and the value is
// converted (wrapping) into out.
func rowsOfType[T int64 | float64](ctx *fn.Ctx, out arrow.DataType, a []arrow.Array, n int, f func(r row) (T, bool)) arrow.Array {
	b := array.NewBuilder(ctx.Mem, out)
	defer b.Release()
	b.Reserve(n)
	r := row{a: a}
	for i := 0; i < n; i++ {
		if anyNull(a, i) {
			b.AppendNull()
			continue
		}
		r.i = i
		v, ok := f(r)
		if !ok {
			b.AppendNull()
			continue
		}
		switch x := b.(type) {
		case *array.Float64Builder:
			x.Append(float64(v))
		case *array.Float32Builder:
			x.Append(float32(v))
		default:
			appendInt(b, int64(v))
		}
	}
	return b.NewArray()
}

// bindIntegralDivide is div: integers as long, decimals divided exactly,
// the quotient truncated toward zero.
func bindIntegralDivide(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	t, ok := arithType(args[0].Type, args[1].Type)
	if !ok {
		return fn.Bound{}, fmt.Errorf("arguments must be numbers, got %s and %s", sparkName(args[0].Type), sparkName(args[1].Type))
	}
	if t.ID() != arrow.DECIMAL128 {
		t = int64Type
	}
	return fn.Bound{Type: int64Type, Args: []arrow.DataType{t, t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		if t.ID() == arrow.DECIMAL128 {
			return rowsOf(ctx, int64Type, a, n, func(r row) (int64, bool) {
				x, y := a[0].(*array.Decimal128).Value(r.i).BigInt(), a[1].(*array.Decimal128).Value(r.i).BigInt()
				if y.Sign() == 0 {
					return 0, false
				}
				q := new(big.Int).Quo(x, y)
				return q.Int64(), true // Spark keeps the low 64 bits
			}), nil
		}
		return rowsOf(ctx, int64Type, a, n, func(r row) (int64, bool) {
			x, y := r.long(0, 0), r.long(1, 0)
			if y == 0 {
				return 0, false
			}
			if y == -1 {
				return -x, true
			}
			return x / y, true
		}), nil
	}}, nil
}

// bindNegate is negative (neg) and positive.
func bindNegate(neg bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 1); err != nil {
			return fn.Bound{}, err
		}
		t, err := numericArg(args, 0)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: t, Args: []arrow.DataType{t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			if !neg {
				a[0].Retain()
				return a[0], nil
			}
			switch t.ID() {
			case arrow.FLOAT64, arrow.FLOAT32:
				return rowsOfType(ctx, t, a, n, func(r row) (float64, bool) { return -fn.FloatValue(a[0], r.i), true }), nil
			case arrow.DECIMAL128:
				return rowsOf(ctx, t, a, n, func(r row) (decimal128.Num, bool) {
					return a[0].(*array.Decimal128).Value(r.i).Negate(), true
				}), nil
			}
			return rowsOfType(ctx, t, a, n, func(r row) (int64, bool) { return -fn.IntValue(a[0], r.i), true }), nil
		}}, nil
	}
}

func widthBucket(v, lo, hi float64, buckets int64) (int64, bool) {
	if buckets <= 0 || buckets == math.MaxInt64 || math.IsNaN(v) || lo == hi || math.IsNaN(lo) || math.IsInf(lo, 0) ||
		math.IsNaN(hi) || math.IsInf(hi, 0) {
		return 0, false
	}
	lower, upper := min(lo, hi), max(lo, hi)
	if lo < hi {
		switch {
		case v < lower:
			return 0, true
		case v >= upper:
			return buckets + 1, true
		}
		return int64(float64(buckets)*(v-lower)/(upper-lower)) + 1, true
	}
	switch {
	case v > upper:
		return 0, true
	case v <= lower:
		return buckets + 1, true
	}
	return int64(float64(buckets)*(upper-v)/(upper-lower)) + 1, true
}
