package functions

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Math functions: see docs/sql-functions.md#math-functions.

func init() {
	register(bindAbs, "abs")
	register(bindRound, "round")
	register(bindFloorCeil(false), "floor")
	register(bindFloorCeil(true), "ceil", "ceiling")
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

// bindRound: round(x[, d]) rounds HALF_UP (away from zero at .5) to d
// decimal places; d must be a literal.
func bindRound(args []fn.Arg) (fn.Bound, error) {
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
				x.UnsafeAppend(roundFloat(a[0].(*array.Float64).Value(i), d, 64))
			case *array.Float32Builder:
				x.UnsafeAppend(float32(roundFloat(float64(a[0].(*array.Float32).Value(i)), d, 32)))
			case *array.Decimal128Builder:
				in := a[0].(*array.Decimal128)
				v, ok := roundDecimal(in.Value(i), in.DataType().(*arrow.Decimal128Type).Scale, d, out.(*arrow.Decimal128Type))
				if ok {
					x.UnsafeAppend(v)
				} else {
					x.UnsafeAppendBoolToBitmap(false)
				}
			default:
				appendInt(b, roundInt(fn.IntValue(a[0], i), d))
			}
		}), nil
	}}, nil
}

func allNull(t arrow.DataType) func(*fn.Ctx, []arrow.Array, int) (arrow.Array, error) {
	return func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		return array.MakeArrayOfNull(ctx.Mem, t, n), nil
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

// roundInt rounds an integer HALF_UP to a multiple of 10^-d (d < 0).
func roundInt(v int64, d int) int64 {
	if d >= 0 {
		return v
	}
	if d < -18 {
		return 0
	}
	pow := int64(1)
	for k := 0; k < -d; k++ {
		pow *= 10
	}
	q, r := v/pow, v%pow
	if r >= pow-r && r > 0 {
		q++
	} else if r < 0 && -r >= pow+r {
		q--
	}
	return q * pow
}

// roundFloat rounds HALF_UP on the shortest decimal text of f (Java's
// Double.toString digits, as Spark's BigDecimal(d)): round(2.675, 2) is
// 2.68.
func roundFloat(f float64, d int, bits int) float64 {
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
	if drop > len(digits) {
		return math.Copysign(0, f)
	}
	kept := digits[:len(digits)-drop]
	up := digits[len(digits)-drop] >= '5'
	u, _ := strconv.ParseUint("0"+string(kept), 10, 64)
	if up {
		u++
	}
	// Parse the rounded digits back: correctly rounded, unlike a division.
	out, _ := strconv.ParseFloat(strconv.FormatUint(u, 10)+"e"+strconv.Itoa(-d), 64)
	if neg {
		out = -out
	}
	return out
}

// roundDecimal rounds v (scale s) HALF_UP to d places into type out.
func roundDecimal(v decimal128.Num, s int32, d int, out *arrow.Decimal128Type) (decimal128.Num, bool) {
	if d < 0 {
		r := v.ReduceScaleBy(s, true)
		if -d <= 38 {
			r = r.ReduceScaleBy(int32(-d), true).IncreaseScaleBy(int32(-d))
		} else {
			r = decimal128.Num{}
		}
		return r, r.FitsInPrecision(out.Precision)
	}
	r := v.ReduceScaleBy(s-out.Scale, true)
	return r, r.FitsInPrecision(out.Precision)
}

// bindFloorCeil: floor/ceil give bigint for integers, doubles and strings,
// decimal(p-s+1, 0) for decimal(p,s).
func bindFloorCeil(ceil bool) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 1); err != nil {
			return fn.Bound{}, err
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
				return fn.Cast(ctx.Mem, whole, int64Type)
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
