package functions

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// try_add, try_subtract, try_multiply and try_divide: the arithmetic
// operators' types, with NULL where the operator would overflow or divide
// by zero.

func defTryArithmetic() {
	def(fn.Scalar{Name: "try_add", Group: gMath, Signature: "try_add(expr1, expr2)", Returns: "as +; a date for date + days",
		Bind: bindTryArith('+'),
		Doc:  "`expr1 + expr2`, or NULL when it overflows. A date plus an integer adds days.",
		Examples: ex("try_add(1, 2)", "3", "try_add(2147483647, 1)", "NULL", "try_add(date'2021-01-01', 1)", "2021-01-02",
			"try_add(1.5, 2)", "3.5")})
	def(fn.Scalar{Name: "try_subtract", Group: gMath, Signature: "try_subtract(expr1, expr2)", Returns: "as -; a date for date - days",
		Bind:     bindTryArith('-'),
		Doc:      "`expr1 - expr2`, or NULL when it overflows. A date minus an integer subtracts days.",
		Examples: ex("try_subtract(2, 1)", "1", "try_subtract(-2147483648, 1)", "NULL", "try_subtract(date'2021-01-02', 1)", "2021-01-01")})
	def(fn.Scalar{Name: "try_multiply", Group: gMath, Signature: "try_multiply(expr1, expr2)", Returns: "as *",
		Bind:     bindTryArith('*'),
		Doc:      "`expr1 * expr2`, or NULL when it overflows.",
		Examples: ex("try_multiply(2, 3)", "6", "try_multiply(-2147483648, 10)", "NULL")})
	def(fn.Scalar{Name: "try_divide", Group: gMath, Signature: "try_divide(dividend, divisor)", Returns: "double; decimal for decimals",
		Bind:     bindTryArith('/'),
		Doc:      "`dividend / divisor` (always fractional), or NULL when `divisor` is 0.",
		Examples: ex("try_divide(3, 2)", "1.5", "try_divide(2L, 2L)", "1.0", "try_divide(1, 0)", "NULL")})
}

func bindTryArith(op byte) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 2, 2); err != nil {
			return fn.Bound{}, err
		}
		if (op == '+' || op == '-') && args[0].Type.ID() == arrow.DATE32 {
			if !isIntegral(args[1].Type) && !isNull(args[1].Type) {
				return fn.Bound{}, argErr(1, args[1], "an integer number of days")
			}
			sign := int64(1)
			if op == '-' {
				sign = -1
			}
			return rows("Di", dateType, func(r row) (int32, bool) {
				d := int64(r.days(0)) + sign*r.int(1, 0)
				return int32(d), d == int64(int32(d))
			})(args)
		}
		t, ok := arithType(args[0].Type, args[1].Type)
		if !ok {
			return fn.Bound{}, fmt.Errorf("arguments must be numbers, got %s and %s", sparkName(args[0].Type), sparkName(args[1].Type))
		}
		if op == '/' && t.ID() != arrow.DECIMAL128 {
			t = float64Type
		}
		out := t
		if t.ID() == arrow.DECIMAL128 {
			da, _ := decimalOf(args[0].Type)
			db, _ := decimalOf(args[1].Type)
			if isNull(args[0].Type) {
				da = db
			}
			if isNull(args[1].Type) {
				db = da
			}
			out = fn.DecimalArithmetic(op, da, db)
			return fn.Bound{Type: out, Args: []arrow.DataType{da, db}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return rowsOf(ctx, out, a, n, func(r row) (decimal128.Num, bool) {
					x, y := a[0].(*array.Decimal128).Value(r.i).BigInt(), a[1].(*array.Decimal128).Value(r.i).BigInt()
					return decimalOp(op, x, da.Scale, y, db.Scale, out.(*arrow.Decimal128Type))
				}), nil
			}}, nil
		}
		return fn.Bound{Type: out, Args: []arrow.DataType{t, t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			if t.ID() == arrow.FLOAT64 || t.ID() == arrow.FLOAT32 {
				return rowsOfType(ctx, out, a, n, func(r row) (float64, bool) {
					x, y := fn.FloatValue(a[0], r.i), fn.FloatValue(a[1], r.i)
					switch op {
					case '+':
						return x + y, true
					case '-':
						return x - y, true
					case '*':
						return x * y, true
					}
					return x / y, y != 0
				}), nil
			}
			bits := intWidth(t) * 8
			lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
			if bits == 64 {
				lo, hi = math.MinInt64, math.MaxInt64
			}
			return rowsOfType(ctx, out, a, n, func(r row) (int64, bool) {
				x, y := big.NewInt(fn.IntValue(a[0], r.i)), big.NewInt(fn.IntValue(a[1], r.i))
				switch op {
				case '+':
					x.Add(x, y)
				case '-':
					x.Sub(x, y)
				default:
					x.Mul(x, y)
				}
				if !x.IsInt64() || x.Int64() < lo || x.Int64() > hi {
					return 0, false
				}
				return x.Int64(), true
			}), nil
		}}, nil
	}
}

// decimalOp computes x op y for unscaled values at scales sx, sy into out,
// rounding HALF_UP; ok is false on overflow or division by zero.
func decimalOp(op byte, x *big.Int, sx int32, y *big.Int, sy int32, out *arrow.Decimal128Type) (decimal128.Num, bool) {
	var v *big.Int
	var s int32
	switch op {
	case '+', '-':
		s = max(sx, sy)
		x, _ = rescaleBig(x, sx, s, halfUp)
		y, _ = rescaleBig(y, sy, s, halfUp)
		if op == '+' {
			v = new(big.Int).Add(x, y)
		} else {
			v = new(big.Int).Sub(x, y)
		}
	case '*':
		v, s = new(big.Int).Mul(x, y), sx+sy
	case '/':
		if y.Sign() == 0 {
			return decimal128.Num{}, false
		}
		// x/y at scale out.Scale+1, then rounded to out.Scale.
		s = out.Scale + 1
		num, _ := rescaleBig(x, sx, s+sy, halfUp)
		v = new(big.Int).Quo(num, y)
	}
	return fitDecimal(v, s, out)
}
