package query

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Spark's bitwise aggregates bit_and, bit_or and bit_xor
// (docs/sql.md#aggregates): the bits of an integral column combined over
// the group, in the column's own type; NULLs are skipped, and a group
// without a value is NULL.

func init() {
	bits := &aggDef{bind: bindBitAgg, acc: func(c *aggCall) accumulator { return &bitAcc{fn: c.fn, typ: c.typ} }}
	for _, n := range []string{"bit_and", "bit_or", "bit_xor"} {
		aggDefs[n] = bits
	}
}

// bindBitAgg: bit_and/bit_or/bit_xor(integral) → the argument's type.
func bindBitAgg(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 1); err != nil {
		return err
	}
	t := plainType(c.args[0].Type())
	switch {
	case isNull(t):
		t = tInt
		var err error
		if c.args[0], err = r.implicitCast(c.args[0], t, x.Args[0]); err != nil {
			return err
		}
	case !isIntegral(t):
		return errorf(x.Args[0].Position(), "%s: %s needs an integral number (tinyint, smallint, int, bigint), got %s", x, c.fn, typeName(c.args[0].Type()))
	}
	c.typ = t
	return nil
}

// bitAcc combines the values of each group with AND, OR or XOR.
type bitAcc struct {
	fn   string
	typ  arrow.DataType
	vals []int64
	seen []bool
}

func (a *bitAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.vals, a.seen = growTo(a.vals, groups), growTo(a.seen, groups)
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return nil
	}
	for i, g := range gids {
		if g < 0 || col.IsNull(i) {
			continue
		}
		v := fn.IntValue(col, i)
		switch {
		case !a.seen[g]:
			a.vals[g], a.seen[g] = v, true
		case a.fn == "bit_and":
			a.vals[g] &= v
		case a.fn == "bit_or":
			a.vals[g] |= v
		default:
			a.vals[g] ^= v
		}
	}
	return nil
}

func (a *bitAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.vals, a.seen = growTo(a.vals, groups), growTo(a.seen, groups)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(a.vals[:groups], a.seen[:groups])
	longs := b.NewArray()
	defer longs.Release()
	return fn.Cast(mem, longs, a.typ) // the values fit: they are the column's
}

func (a *bitAcc) release() {}
