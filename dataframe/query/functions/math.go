package functions

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Math functions: see docs/sql-functions.md#math-functions.

func init() {
	def(fn.Scalar{Name: "abs", Group: gMath, Signature: "abs(expr)", Returns: "type of expr (double for a string)", Bind: bindAbs,
		Doc:      "The absolute value; the smallest integer of a type stays as it is (it has no positive counterpart).",
		Examples: ex("abs(-1)", "1", "abs(-1.50)", "1.50")})
	def(fn.Scalar{Name: "round", Group: gMath, Signature: "round(expr[, d])", Returns: "type of expr; decimal(p-s+1+min(s,d), min(s,d)) for decimal(p,s)",
		Bind: bindRound(false),
		Doc:  "`expr` rounded to `d` decimal places (default 0; negative rounds to tens, hundreds…) with HALF_UP rounding. `d` is an integer literal.",
		Examples: ex("round(2.5, 0)", "3", "round(25, -1)", "30", "round(2.675, 2)", "2.68", "round(-2.5)", "-3",
			"round(CAST(2.5 AS DOUBLE))", "3.0")},
		pretty(withDefaults(2, "0")))
	def(fn.Scalar{Name: "bround", Group: gMath, Signature: "bround(expr[, d])", Returns: "as round",
		Bind:     bindRound(true),
		Doc:      "`round` with HALF_EVEN rounding (banker's rounding).",
		Examples: ex("bround(2.5, 0)", "2", "bround(25, -1)", "20", "bround(3.5)", "4")},
		pretty(withDefaults(2, "0")))
	def(fn.Scalar{Name: "floor", Group: gMath, Signature: "floor(expr[, scale])", Returns: "bigint; decimal(p-s+1, 0) for decimal(p,s); decimal with `scale`",
		Bind: bindFloorCeil(false),
		Doc:  "The largest integer not greater than `expr`, or with `scale`, the largest value with `scale` decimal places.",
		Examples: ex("floor(-0.1)", "-1", "floor(5)", "5", "floor(3.1411, 3)", "3.141", "floor(3.1411, -3)", "0",
			"floor(CAST(-1.5 AS DOUBLE))", "-2")},
		pretty(upperUnlessAlias("floor")))
	def(fn.Scalar{Name: "ceil", Group: gMath, Signature: "ceil(expr[, scale])", Returns: "bigint; decimal(p-s+1, 0) for decimal(p,s); decimal with `scale`",
		Bind: bindFloorCeil(true),
		Doc:  "The smallest integer not smaller than `expr`, or with `scale`, the smallest value with `scale` decimal places.",
		Examples: ex("ceil(-0.1)", "0", "ceil(5)", "5", "ceil(3.1411, 3)", "3.142", "ceil(3.1411, -3)", "1000",
			"ceil(CAST(1.2 AS DOUBLE))", "2")},
		aliases("ceiling"), pretty(upperUnlessAlias("ceil")))
	defMath()
}

// numericArg is the implicit cast of a number argument: numbers stay as
// they are, strings become double.
func numericArg(args []fn.Arg, i int) (arrow.DataType, error) {
	dt := args[i].Type
	switch {
	case isNumeric(dt):
		return dt, nil
	case isStringType(dt), isNull(dt):
		return float64Type, nil
	}
	return nil, argErr(i, args[i], "a number")
}

func bindAbs(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	t, err := numericArg(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: t, Args: []arrow.DataType{t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapValues(ctx.Mem, t, a[0], n, func(b array.Builder, i int) {
			// Integer minimums stay as they are (Java's Math.abs overflow).
			switch x := b.(type) {
			case *array.Float64Builder:
				x.UnsafeAppend(math.Abs(a[0].(*array.Float64).Value(i)))
			case *array.Float32Builder:
				x.UnsafeAppend(float32(math.Abs(float64(a[0].(*array.Float32).Value(i)))))
			case *array.Decimal128Builder:
				x.UnsafeAppend(a[0].(*array.Decimal128).Value(i).Abs())
			default:
				v := fn.IntValue(a[0], i)
				appendInt(b, max(v, -v))
			}
		}), nil
	}}, nil
}

// roundDecimalType is Spark's result type of round(decimal(p,s), d): one
// more integral digit for the carry, scale min(s, d), scale 0 for d < 0.
func roundDecimalType(t *arrow.Decimal128Type, d int) *arrow.Decimal128Type {
	integral := t.Precision - t.Scale + 1
	if d < 0 {
		return &arrow.Decimal128Type{Precision: min(max(integral, int32(-d)+1), 38), Scale: 0}
	}
	s := min(t.Scale, int32(d))
	return &arrow.Decimal128Type{Precision: min(integral+s, 38), Scale: s}
}

// roundMode is a java.math.RoundingMode Spark uses.
type roundMode int

const (
	halfUp   roundMode = iota // ties away from zero
	halfEven                  // ties to the even neighbour
	floorMode
	ceilMode
)

// roundsUp reports whether a value whose kept digits end in the digit
// last (0–9), with dropped digits starting first and then rest (any
// non-zero), rounds away from zero; neg is the sign.
func (m roundMode) roundsUp(last, first byte, rest, neg bool) bool {
	switch m {
	case halfUp:
		return first >= 5
	case halfEven:
		return first > 5 || first == 5 && (rest || last%2 == 1)
	case floorMode:
		return neg && (first > 0 || rest)
	}
	return !neg && (first > 0 || rest)
}

// bindRound: round(x[, d]) rounds HALF_UP (away from zero at .5), bround
// HALF_EVEN, to d decimal places; d must be a literal.
func bindRound(even bool) bindFunc {
	mode := halfUp
	if even {
		mode = halfEven
	}
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 2); err != nil {
			return fn.Bound{}, err
		}
		t, err := numericArg(args, 0)
		if err != nil {
			return fn.Bound{}, err
		}
		d := 0
		if len(args) == 2 {
			v, null, ok := constInt(args[1])
			if !ok || !isIntegral(args[1].Type) && !isNull(args[1].Type) {
				return fn.Bound{}, fmt.Errorf("argument 2 must be an integer literal, got %s", sparkName(args[1].Type))
			}
			if null {
				return fn.Bound{Type: t, Args: []arrow.DataType{t, nil}, Eval: allNull(t)}, nil
			}
			d = int(max(min(v, 1000), -1000))
		}
		out := t
		if dt, ok := t.(*arrow.Decimal128Type); ok {
			out = roundDecimalType(dt, d)
		}
		in := []arrow.DataType{t, nil}[:len(args)]
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return mapValues(ctx.Mem, out, a[0], n, func(b array.Builder, i int) {
				switch x := b.(type) {
				case *array.Float64Builder:
					x.UnsafeAppend(roundFloat(a[0].(*array.Float64).Value(i), d, 64, mode))
				case *array.Float32Builder:
					x.UnsafeAppend(float32(roundFloat(float64(a[0].(*array.Float32).Value(i)), d, 32, mode)))
				case *array.Decimal128Builder:
					in := a[0].(*array.Decimal128)
					v, ok := roundDecimal(in.Value(i), in.DataType().(*arrow.Decimal128Type).Scale, d, out.(*arrow.Decimal128Type), mode)
					if ok {
						x.UnsafeAppend(v)
					} else {
						x.UnsafeAppendBoolToBitmap(false)
					}
				default:
					appendInt(b, roundInt(fn.IntValue(a[0], i), d, mode))
				}
			}), nil
		}}, nil
	}
}

func allNull(t arrow.DataType) func(*fn.Ctx, []arrow.Array, int) (arrow.Array, error) {
	return func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		return fn.NullArray(ctx.Mem, t, n), nil
	}
}

// appendInt appends v to an integer builder of any width, wrapping.
func appendInt(b array.Builder, v int64) {
	switch x := b.(type) {
	case *array.Int64Builder:
		x.Append(v)
	case *array.Int32Builder:
		x.Append(int32(v))
	case *array.Int16Builder:
		x.Append(int16(v))
	case *array.Int8Builder:
		x.Append(int8(v))
	}
}

// roundInt rounds an integer to a multiple of 10^-d (d < 0).
func roundInt(v int64, d int, mode roundMode) int64 {
	if d >= 0 {
		return v
	}
	r, _ := rescaleBig(big.NewInt(v), 0, int32(d), mode)
	if !r.IsInt64() {
		return 0
	}
	return r.Int64()
}

// roundFloat rounds on the shortest decimal text of f (Java's
// Double.toString digits, as Spark's BigDecimal(d)): round(2.675, 2) is
// 2.68.
func roundFloat(f float64, d int, bits int, mode roundMode) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	text := strconv.FormatFloat(f, 'e', -1, bits)
	mant, exp := text, 0
	for k := 0; k < len(text); k++ {
		if text[k] == 'e' {
			mant = text[:k]
			exp, _ = strconv.Atoi(text[k+1:])
		}
	}
	digits := make([]byte, 0, len(mant))
	neg := false
	for k := 0; k < len(mant); k++ {
		switch c := mant[k]; {
		case c == '-':
			neg = true
		case c >= '0' && c <= '9':
			digits = append(digits, c)
		}
	}
	// value = digits × 10^(exp - (len(digits)-1)); keep d fraction digits.
	scale := len(digits) - 1 - exp
	if scale <= d {
		return f
	}
	drop := scale - d
	var kept []byte
	first, rest := byte(0), false
	if drop > len(digits) {
		rest = true // all digits dropped, and below the first dropped place
	} else {
		kept = digits[:len(digits)-drop]
		first = digits[len(digits)-drop] - '0'
		for _, c := range digits[len(digits)-drop+1:] {
			rest = rest || c != '0'
		}
	}
	last := byte(0)
	if len(kept) > 0 {
		last = kept[len(kept)-1] - '0'
	}
	u, _ := strconv.ParseUint("0"+string(kept), 10, 64)
	if mode.roundsUp(last, first, rest, neg) {
		u++
	}
	// Parse the rounded digits back: correctly rounded, unlike a division.
	out, _ := strconv.ParseFloat(strconv.FormatUint(u, 10)+"e"+strconv.Itoa(-d), 64)
	if neg {
		out = -out
	}
	return out
}

// rescaleBig changes the scale of the unscaled value v from s to d,
// rounding with mode where digits are dropped; a negative d keeps the
// result at scale 0 (a multiple of 10^-d).
func rescaleBig(v *big.Int, s, d int32, mode roundMode) (*big.Int, int32) {
	if d >= s {
		return new(big.Int).Mul(v, pow10Big(d-s)), d
	}
	div := pow10Big(s - d)
	q, r := new(big.Int).QuoRem(v, div, new(big.Int))
	if r.Sign() != 0 {
		twice := new(big.Int).Abs(r)
		twice.Lsh(twice, 1)
		c := twice.Cmp(div)
		first, rest := byte(0), true
		switch {
		case c > 0:
			first = 6
		case c == 0:
			first, rest = 5, false
		default:
			first = 1
		}
		last := byte(new(big.Int).Abs(new(big.Int).Rem(q, big.NewInt(10))).Int64())
		if mode.roundsUp(last, first, rest, v.Sign() < 0) {
			q.Add(q, big.NewInt(int64(v.Sign())))
		}
	}
	if d < 0 {
		return q.Mul(q, pow10Big(-d)), 0
	}
	return q, d
}

func pow10Big(k int32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil)
}

// roundDecimal rounds v (scale s) to d places into type out.
func roundDecimal(v decimal128.Num, s int32, d int, out *arrow.Decimal128Type, mode roundMode) (decimal128.Num, bool) {
	r, scale := rescaleBig(v.BigInt(), s, int32(max(d, -38)), mode)
	if scale != out.Scale {
		r, _ = rescaleBig(r, scale, out.Scale, mode)
	}
	n := decimal128.FromBigInt(r)
	return n, r.BitLen() < 127 && n.FitsInPrecision(out.Precision)
}

// bindFloorCeil: floor/ceil give bigint for integers, doubles and strings,
// decimal(p-s+1, 0) for decimal(p,s).
func bindFloorCeil(ceil bool) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 2); err != nil {
			return fn.Bound{}, err
		}
		if len(args) == 2 {
			return bindFloorCeilScale(args, ceil)
		}
		t, err := numericArg(args, 0)
		if err != nil {
			return fn.Bound{}, err
		}
		var out arrow.DataType = int64Type
		in := t
		switch x := t.(type) {
		case *arrow.Decimal128Type:
			out = x
			if x.Scale > 0 {
				out = &arrow.Decimal128Type{Precision: min(x.Precision-x.Scale+1, 38), Scale: 0}
			}
		case *arrow.Float32Type:
			in = float64Type
		default:
			if isIntegral(t) {
				in = int64Type
			}
		}
		return fn.Bound{Type: out, Args: []arrow.DataType{in}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			switch x := a[0].(type) {
			case *array.Int64:
				x.Retain()
				return x, nil
			case *array.Float64:
				// The whole double converts as CAST does (saturating, NaN 0).
				whole := mapValues(ctx.Mem, float64Type, x, n, func(b array.Builder, i int) {
					if ceil {
						b.(*array.Float64Builder).UnsafeAppend(math.Ceil(x.Value(i)))
					} else {
						b.(*array.Float64Builder).UnsafeAppend(math.Floor(x.Value(i)))
					}
				})
				defer whole.Release()
				return ctx.Cast(whole, int64Type)
			}
			in := a[0].(*array.Decimal128)
			s := in.DataType().(*arrow.Decimal128Type).Scale
			return mapValues(ctx.Mem, out, in, n, func(b array.Builder, i int) {
				v := in.Value(i)
				q := v.ReduceScaleBy(s, false)
				if back := q.IncreaseScaleBy(s); back != v {
					if ceil && v.Sign() > 0 {
						q = q.Add(decimal128.FromI64(1))
					} else if !ceil && v.Sign() < 0 {
						q = q.Sub(decimal128.FromI64(1))
					}
				}
				b.(*array.Decimal128Builder).UnsafeAppend(q)
			}), nil
		}}, nil
	}
}

// decimalOf is the decimal type Spark casts a number to where a function
// wants a decimal (DecimalType.forType): int decimal(10,0), long
// decimal(20,0), double decimal(30,15), a string decimal(38,18).
func decimalOf(dt arrow.DataType) (*arrow.Decimal128Type, bool) {
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		return t, true
	case *arrow.Int8Type:
		return &arrow.Decimal128Type{Precision: 3}, true
	case *arrow.Int16Type:
		return &arrow.Decimal128Type{Precision: 5}, true
	case *arrow.Int32Type:
		return &arrow.Decimal128Type{Precision: 10}, true
	case *arrow.Int64Type:
		return &arrow.Decimal128Type{Precision: 20}, true
	case *arrow.Float32Type:
		return &arrow.Decimal128Type{Precision: 14, Scale: 7}, true
	case *arrow.Float64Type:
		return &arrow.Decimal128Type{Precision: 30, Scale: 15}, true
	case *arrow.StringType, *arrow.NullType:
		return &arrow.Decimal128Type{Precision: 38, Scale: 18}, true
	}
	return nil, false
}

// bindFloorCeilScale is floor(x, d) / ceil(x, d): x as a decimal, rounded
// toward minus or plus infinity to d places (d a literal).
func bindFloorCeilScale(args []fn.Arg, ceil bool) (fn.Bound, error) {
	in, ok := decimalOf(args[0].Type)
	if !ok {
		return fn.Bound{}, argErr(0, args[0], "a number")
	}
	v, null, isLit := constInt(args[1])
	if !isLit || !isIntegral(args[1].Type) && !isNull(args[1].Type) {
		return fn.Bound{}, fmt.Errorf("argument 2 must be an integer literal, got %s", sparkName(args[1].Type))
	}
	d := int(max(min(v, 38), -38))
	out := roundDecimalType(in, d)
	if null {
		return fn.Bound{Type: out, Args: []arrow.DataType{in, nil}, Eval: allNull(out)}, nil
	}
	mode := floorMode
	if ceil {
		mode = ceilMode
	}
	return fn.Bound{Type: out, Args: []arrow.DataType{in, nil}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		x := a[0].(*array.Decimal128)
		return rowsOf(ctx, out, a[:1], n, func(r row) (decimal128.Num, bool) {
			return roundDecimal(x.Value(r.i), in.Scale, d, out, mode)
		}), nil
	}}, nil
}
