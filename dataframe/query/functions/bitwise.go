package functions

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Bitwise functions: see docs/sql-functions.md#bitwise-functions. The
// operators & | ^ ~ belong to the executor.

func init() {
	def(fn.Scalar{Name: "bit_count", Group: gBitwise, Signature: "bit_count(expr)", Returns: "int", Bind: bindBitCount,
		Doc:      "The number of bits set in an integer (as a 64-bit two's complement) or a boolean.",
		Examples: ex("bit_count(0)", "0", "bit_count(7)", "3", "bit_count(-1)", "64")})
	def(fn.Scalar{Name: "bit_get", Group: gBitwise, Signature: "bit_get(expr, pos)", Returns: "tinyint", Bind: bindBitGet,
		Doc:      "Bit `pos` (0 is the least significant) of an integer; a position outside the type's bits is an error.",
		Examples: ex("bit_get(11, 0)", "1", "bit_get(11, 2)", "0")}, aliases("getbit"))
	def(fn.Scalar{Name: "shiftleft", Group: gBitwise, Signature: "shiftleft(base, expr)", Returns: "int or bigint, as base",
		Bind: bindShift('l'), Doc: "`base` shifted left by `expr` bits (modulo the width, as Java).",
		Examples: ex("shiftleft(2, 1)", "4")})
	def(fn.Scalar{Name: "shiftright", Group: gBitwise, Signature: "shiftright(base, expr)", Returns: "int or bigint, as base",
		Bind: bindShift('r'), Doc: "`base` shifted right by `expr` bits, keeping the sign.",
		Examples: ex("shiftright(4, 1)", "2", "shiftright(-4, 1)", "-2")})
	def(fn.Scalar{Name: "shiftrightunsigned", Group: gBitwise, Signature: "shiftrightunsigned(base, expr)", Returns: "int or bigint, as base",
		Bind: bindShift('u'), Doc: "`base` shifted right by `expr` bits, filling with zeros.",
		Examples: ex("shiftrightunsigned(4, 1)", "2", "shiftrightunsigned(-4, 28)", "15")})
}

func bindBitCount(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	if args[0].Type.ID() == arrow.BOOL {
		return rows("b", int32Type, always(func(r row) int32 {
			if r.boolean(0, false) {
				return 1
			}
			return 0
		}))(args)
	}
	if !isIntegral(args[0].Type) && !isNull(args[0].Type) {
		return fn.Bound{}, argErr(0, args[0], "an integer or a boolean")
	}
	return rows("l", int32Type, always(func(r row) int32 { return int32(bits.OnesCount64(uint64(r.long(0, 0)))) }))(args)
}

func bindBitGet(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	if !isIntegral(args[0].Type) && !isNull(args[0].Type) {
		return fn.Bound{}, argErr(0, args[0], "an integer")
	}
	width := int64(intWidth(args[0].Type) * 8)
	if isNull(args[0].Type) {
		width = 64
	}
	check := func(pos int64) error {
		if pos < 0 || pos >= width {
			return fmt.Errorf("invalid bit position %d: it must be between 0 and %d", pos, width-1)
		}
		return nil
	}
	if p, null, ok := constInt(args[1]); ok && !null {
		if err := check(p); err != nil {
			return fn.Bound{}, err
		}
	}
	in, err := signature(args, "li")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: int8Type, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var bad error
		out := rowsOf(ctx, int8Type, a, n, func(r row) (int8, bool) {
			pos := r.int(1, 0)
			if err := check(pos); err != nil {
				bad = err
				return 0, false
			}
			return int8(r.long(0, 0) >> pos & 1), true
		})
		if bad != nil {
			out.Release()
			return nil, bad
		}
		return out, nil
	}}, nil
}

// bindShift: an int base stays int (Java shifts use the low 5 bits of the
// count), anything else becomes long (the low 6 bits).
func bindShift(kind byte) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 2, 2); err != nil {
			return fn.Bound{}, err
		}
		dt := args[0].Type
		if !isNumeric(dt) && !isStringType(dt) && !isNull(dt) {
			return fn.Bound{}, argErr(0, args[0], "an integer")
		}
		if dt.ID() == arrow.INT64 {
			return rows("li", int64Type, always(func(r row) int64 {
				v, k := r.long(0, 0), uint(r.int(1, 0)&63)
				switch kind {
				case 'l':
					return v << k
				case 'r':
					return v >> k
				}
				return int64(uint64(v) >> k)
			}))(args)
		}
		return rows("ii", int32Type, always(func(r row) int32 {
			v, k := int32(r.int(0, 0)), uint(r.int(1, 0)&31)
			switch kind {
			case 'l':
				return v << k
			case 'r':
				return v >> k
			}
			return int32(uint32(v) >> k)
		}))(args)
	}
}
