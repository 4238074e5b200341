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
	def(fn.Scalar{Name: "coalesce", Group: gConditional, Signature: "coalesce(expr1, expr2, …)", Returns: "the arguments' common type",
		Bind: bindCoalesce, Doc: "The first non-NULL argument; NULL when all are.",
		Examples: ex("coalesce(NULL, 1, NULL)", "1")})
	def(fn.Scalar{Name: "nvl", Group: gConditional, Signature: "nvl(expr1, expr2)", Returns: "the arguments' common type",
		Bind: bindTwo(bindCoalesce), Doc: "`expr2` when `expr1` is NULL, else `expr1`.",
		Examples: ex("nvl(NULL, array('2'))", `["2"]`)}, aliases("ifnull"))
	def(fn.Scalar{Name: "nvl2", Group: gConditional, Signature: "nvl2(expr1, expr2, expr3)", Returns: "the common type of expr2 and expr3",
		Bind: bindNvl2, Doc: "`expr2` when `expr1` is not NULL, else `expr3`.",
		Examples: ex("nvl2(NULL, 2, 1)", "1", "nvl2('x', 2, 1)", "2")})
	def(fn.Scalar{Name: "nullif", Group: gConditional, Signature: "nullif(expr1, expr2)", Returns: "type of expr1",
		Bind: bindNullIf, Doc: "NULL when `expr1` equals `expr2`, else `expr1`.",
		Examples: ex("nullif(2, 2)", "NULL", "nullif(2, 3)", "2")})
	def(fn.Scalar{Name: "nanvl", Group: gConditional, Signature: "nanvl(expr1, expr2)", Returns: "double (float for two floats)",
		Bind: bindNanvl, Doc: "`expr1` unless it is NaN, then `expr2`.",
		Examples: ex("nanvl(cast('NaN' as double), 123)", "123.0", "nanvl(1.5, 123)", "1.5")})
	def(fn.Scalar{Name: "if", Group: gConditional, Signature: "if(expr1, expr2, expr3)", Returns: "the common type of expr2 and expr3",
		Bind: bindIf, Doc: "`expr2` when `expr1` is true, else `expr3` (a NULL condition counts as false).",
		Examples: ex("if(1 < 2, 'a', 'b')", "a", "if(NULL, 'a', 'b')", "b")},
		pretty(func(_ string, args []string) string { return "(IF(" + strings.Join(args, ", ") + "))" }))
	def(fn.Scalar{Name: "greatest", Group: gConditional, Signature: "greatest(expr, …)", Returns: "the arguments' common type",
		Bind: bindExtreme(1), Doc: "The largest non-NULL argument (NaN above every number); NULL when all are NULL.",
		Examples: ex("greatest(10, 9, 2, 4, 3)", "10", "greatest(1, NULL)", "1")})
	def(fn.Scalar{Name: "least", Group: gConditional, Signature: "least(expr, …)", Returns: "the arguments' common type",
		Bind: bindExtreme(-1), Doc: "The smallest non-NULL argument; NULL when all are NULL.",
		Examples: ex("least(10, 9, 2, 4, 3)", "2")})
	def(fn.Scalar{Name: "isnull", Group: gPredicate, Signature: "isnull(expr)", Returns: "boolean",
		Bind: bindIsNull(true), Doc: "Whether `expr` is NULL. `expr IS NULL` is the same.",
		Examples: ex("isnull(1)", "false", "isnull(NULL)", "true")},
		pretty(func(_ string, args []string) string { return "(" + strings.Join(args, ", ") + " IS NULL)" }))
	def(fn.Scalar{Name: "isnotnull", Group: gPredicate, Signature: "isnotnull(expr)", Returns: "boolean",
		Bind: bindIsNull(false), Doc: "Whether `expr` is not NULL. `expr IS NOT NULL` is the same.",
		Examples: ex("isnotnull(1)", "true")},
		pretty(func(_ string, args []string) string { return "(" + strings.Join(args, ", ") + " IS NOT NULL)" }))
	def(fn.Scalar{Name: "isnan", Group: gPredicate, Signature: "isnan(expr)", Returns: "boolean",
		Bind: bindIsNaN, Doc: "Whether `expr` is NaN; false for NULL.",
		Examples: ex("isnan(cast('NaN' as double))", "true", "isnan(1.0)", "false")})
	def(fn.Scalar{Name: "equal_null", Group: gPredicate, Signature: "equal_null(expr1, expr2)", Returns: "boolean",
		Bind: bindEqualNull, Doc: "`expr1 = expr2`, with NULL equal to NULL and never NULL itself. `expr1 <=> expr2` is the same.",
		Examples: ex("equal_null(3, 3)", "true", "equal_null(1, '11')", "false", "equal_null(true, NULL)", "false",
			"equal_null(NULL, 'abc')", "false", "equal_null(NULL, NULL)", "true")},
		// Spark replaces it by <=> before naming the column.
		pretty(func(_ string, args []string) string {
			if len(args) != 2 {
				return callName("equal_null", args)
			}
			return "(" + args[0] + " <=> " + args[1] + ")"
		}))
	def(fn.Scalar{Name: "assert_true", Group: gMisc, Signature: "assert_true(expr[, message])", Returns: "void",
		Bind: bindAssertTrue, Doc: "NULL when `expr` is true; otherwise the query fails with `message`.",
		Examples: ex("assert_true(0 < 1)", "NULL")},
		pretty(func(name string, args []string) string {
			if len(args) == 1 {
				args = append(args, "'"+args[0]+"' is not true!")
			}
			return callName(name, args)
		}))
	def(fn.Scalar{Name: "raise_error", Group: gMisc, Signature: "raise_error(expr)", Returns: "void",
		Bind: bindRaiseError, Doc: "Fails the query with the message `expr`."})
}

// bindTwo is bind restricted to two arguments.
func bindTwo(bind bindFunc) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 2, 2); err != nil {
			return fn.Bound{}, err
		}
		return bind(args)
	}
}

func bindNvl2(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 3, 3); err != nil {
		return fn.Bound{}, err
	}
	t, in, err := sameTypeArgs(args, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: t, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		sel := make([]int32, n)
		for i := range sel {
			if nullAt(a[0], i) {
				sel[i] = 1
			}
		}
		return choose(ctx.Mem, t, a[1:], sel)
	}}, nil
}

func bindNanvl(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	t := float64Type
	if args[0].Type.ID() == arrow.FLOAT32 && args[1].Type.ID() == arrow.FLOAT32 {
		t = arrow.PrimitiveTypes.Float32
	}
	for i := range args {
		if !isNumeric(args[i].Type) && !isStringType(args[i].Type) && !isNull(args[i].Type) {
			return fn.Bound{}, argErr(i, args[i], "a number")
		}
	}
	return fn.Bound{Type: t, Args: []arrow.DataType{t, t}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		sel := make([]int32, n)
		for i := range sel {
			if nullAt(a[0], i) {
				sel[i] = -1
			} else if f := fn.FloatValue(a[0], i); f != f {
				sel[i] = 1
			}
		}
		return choose(ctx.Mem, t, a, sel)
	}}, nil
}

func bindIsNull(want bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 1); err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: boolType, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return rowsWith(ctx, boolType, a, n, false, func(r row) (bool, bool) { return r.null(0) == want, true }), nil
		}}, nil
	}
}

func bindIsNaN(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	in, err := signature(args, "d")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: boolType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return rowsWith(ctx, boolType, a, n, false, func(r row) (bool, bool) {
			if r.null(0) {
				return false, true
			}
			f := r.f64(0)
			return f != f, true
		}), nil
	}}, nil
}

func bindEqualNull(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	t, in, err := sameTypeArgs(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	_ = t
	return fn.Bound{Type: boolType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return rowsWith(ctx, boolType, a, n, false, func(r row) (bool, bool) {
			ln, rn := r.null(0), r.null(1)
			if ln || rn {
				return ln && rn, true
			}
			return equalAt(a[0], r.i, a[1], r.i), true
		}), nil
	}}, nil
}

func bindAssertTrue(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "b|s")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: arrow.Null, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		for i := 0; i < n; i++ {
			r := row{a: a, i: i}
			if r.null(0) || !r.boolean(0, false) {
				msg := "the assertion is not true"
				if len(a) == 2 && !r.null(1) {
					msg = r.str(1, "")
				}
				return nil, fmt.Errorf("%s", msg)
			}
		}
		return array.NewNull(n), nil
	}}, nil
}

func bindRaiseError(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "s")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: arrow.Null, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		if n == 0 {
			return array.NewNull(0), nil
		}
		msg := "NULL"
		if !nullAt(a[0], 0) {
			msg = a[0].(*array.String).Value(0)
		}
		return nil, fmt.Errorf("%s", msg)
	}}, nil
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
				if !nullAt(x, i) {
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
		l, err := ctx.Cast(a[0], t)
		if err != nil {
			return nil, err
		}
		defer l.Release()
		r, err := ctx.Cast(a[1], t)
		if err != nil {
			return nil, err
		}
		defer r.Release()
		sel := make([]int32, n)
		for i := range sel {
			if !nullAt(l, i) && !nullAt(r, i) && equalAt(l, i, r, i) {
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
			if !nullAt(cond, i) && cond.Value(i) {
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
					if nullAt(x, i) {
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
