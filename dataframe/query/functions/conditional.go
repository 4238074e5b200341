package functions

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Conditional functions: see docs/sql-functions.md#conditional-functions.

func init() {
	register(bindCoalesce, "coalesce")
	register(bindNullIf, "nullif")
	register(bindIf, "if")
	register(bindExtreme(1), "greatest")
	register(bindExtreme(-1), "least")
}

// sameTypeArgs widens args[from:] to one type and asks for the casts.
func sameTypeArgs(args []fn.Arg, from int) (arrow.DataType, []arrow.DataType, error) {
	t, err := commonOf(args, from)
	if err != nil {
		return nil, nil, err
	}
	in := make([]arrow.DataType, len(args))
	for i := from; i < len(args); i++ {
		in[i] = t
	}
	return t, in, nil
}

func bindCoalesce(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, -1); err != nil {
		return fn.Bound{}, err
	}
	t, in, err := sameTypeArgs(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: t, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		sel := make([]int32, n)
		for i := range sel {
			sel[i] = -1
			for k, x := range a {
				if x.IsValid(i) {
					sel[i] = int32(k)
					break
				}
			}
		}
		return choose(ctx.Mem, t, a, sel)
	}}, nil
}

// bindNullIf: nullif(a, b) is NULL where a = b, else a, keeping a's type;
// the comparison is done in the common type.
func bindNullIf(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	t, err := commonOf(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: args[0].Type, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		l, err := fn.Cast(ctx.Mem, a[0], t)
		if err != nil {
			return nil, err
		}
		defer l.Release()
		r, err := fn.Cast(ctx.Mem, a[1], t)
		if err != nil {
			return nil, err
		}
		defer r.Release()
		sel := make([]int32, n)
		for i := range sel {
			if l.IsValid(i) && r.IsValid(i) && equalAt(l, i, r, i) {
				sel[i] = -1
			}
		}
		return choose(ctx.Mem, args[0].Type, a[:1], sel)
	}}, nil
}

func bindIf(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 3, 3); err != nil {
		return fn.Bound{}, err
	}
	if id := args[0].Type.ID(); id != arrow.BOOL && id != arrow.NULL {
		return fn.Bound{}, argErr(0, args[0], "a boolean")
	}
	t, in, err := sameTypeArgs(args, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	in[0] = boolType
	return fn.Bound{Type: t, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		cond := a[0].(*array.Boolean)
		sel := make([]int32, n)
		for i := range sel {
			// A NULL condition is not true: the else branch.
			if cond.IsValid(i) && cond.Value(i) {
				sel[i] = 0
			} else {
				sel[i] = 1
			}
		}
		return choose(ctx.Mem, t, a[1:], sel)
	}}, nil
}

// bindExtreme is greatest (dir 1) and least (dir -1): NULLs are skipped,
// all NULL gives NULL.
func bindExtreme(dir int) func([]fn.Arg) (fn.Bound, error) {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 2, -1); err != nil {
			return fn.Bound{}, err
		}
		t, in, err := sameTypeArgs(args, 0)
		if err != nil {
			return fn.Bound{}, err
		}
		if !flatType(t) && t.ID() != arrow.NULL {
			return fn.Bound{}, fmt.Errorf("arguments must be of an orderable type, got %s", sparkName(t))
		}
		// Spark widens here without turning numbers into strings.
		if isStringType(t) {
			for i, a := range args {
				if !isStringType(a.Type) && !isNull(a.Type) {
					return fn.Bound{}, fmt.Errorf("arguments must all have the same type: argument %d is %s, another is string", i+1, sparkName(a.Type))
				}
			}
		}
		return fn.Bound{Type: t, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			sel := make([]int32, n)
			for i := range sel {
				sel[i] = -1
				for k, x := range a {
					if x.IsNull(i) {
						continue
					}
					if sel[i] < 0 || compareAt(x, i, a[sel[i]], i)*dir > 0 {
						sel[i] = int32(k)
					}
				}
			}
			return choose(ctx.Mem, t, a, sel)
		}}, nil
	}
}

// compareAt orders valid values a[i] and b[j] of one flat type; NaN is
// larger than any other double, as in Spark.
func compareAt(a arrow.Array, i int, b arrow.Array, j int) int {
	switch x := a.(type) {
	case *array.String:
		return strings.Compare(x.Value(i), b.(*array.String).Value(j))
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	case *array.Int64:
		return cmp.Compare(x.Value(i), b.(*array.Int64).Value(j))
	case *array.Int32:
		return cmp.Compare(x.Value(i), b.(*array.Int32).Value(j))
	case *array.Int16:
		return cmp.Compare(x.Value(i), b.(*array.Int16).Value(j))
	case *array.Int8:
		return cmp.Compare(x.Value(i), b.(*array.Int8).Value(j))
	case *array.Float64:
		return compareFloat(x.Value(i), b.(*array.Float64).Value(j))
	case *array.Float32:
		return compareFloat(float64(x.Value(i)), float64(b.(*array.Float32).Value(j)))
	case *array.Boolean:
		l, r := x.Value(i), b.(*array.Boolean).Value(j)
		switch {
		case l == r:
			return 0
		case r:
			return -1
		}
		return 1
	case *array.Timestamp:
		return cmp.Compare(fn.TimestampMicros(x, i), fn.TimestampMicros(b.(*array.Timestamp), j))
	case *array.Date32:
		return cmp.Compare(x.Value(i), b.(*array.Date32).Value(j))
	case *array.Decimal128:
		return x.Value(i).Cmp(b.(*array.Decimal128).Value(j))
	}
	panic(fmt.Sprintf("functions: compareAt %s", a.DataType()))
}

// compareFloat orders doubles as Spark does: NaN above everything, equal
// to itself.
func compareFloat(l, r float64) int {
	ln, rn := l != l, r != r
	switch {
	case ln && rn:
		return 0
	case ln:
		return 1
	case rn:
		return -1
	}
	return cmp.Compare(l, r)
}
