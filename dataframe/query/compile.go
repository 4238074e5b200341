package query

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Expressions compile once, when the physical plan is built, into closures
// over whole Arrow arrays: one call per record batch, not per row.

// ectx is what evaluating a compiled expression needs.
type ectx struct {
	mem  memory.Allocator
	fctx *fn.Ctx
	// run is the plan's run (subqueries keep their answers there); outer
	// binds a subquery's outer values while its plan runs (subquery.go).
	run   *subRun
	outer []arrow.Array
}

// cexpr is a compiled expression: a closure from a record batch to one
// result array. The caller releases the result.
type cexpr struct {
	typ   arrow.DataType
	eval  func(c *ectx, rec arrow.Record) (arrow.Array, error)
	konst bool
	val   any // the value when konst
	col   int // 1 + the input column it is, unchanged; 0 for other expressions
}

// apply evaluates e over rec and hands the array to f, releasing it after.
func (e *cexpr) apply(ec *ectx, rec arrow.Record, f func(arrow.Array) (arrow.Array, error)) (arrow.Array, error) {
	a, err := e.eval(ec, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return f(a)
}

func eval2(ec *ectx, rec arrow.Record, l, r *cexpr, f func(a, b arrow.Array) (arrow.Array, error)) (arrow.Array, error) {
	a, err := l.eval(ec, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	b, err := r.eval(ec, rec)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return f(a, b)
}

func columnExpr(i int, t arrow.DataType) *cexpr {
	return &cexpr{typ: t, col: i + 1, eval: func(_ *ectx, rec arrow.Record) (arrow.Array, error) {
		a := rec.Column(i)
		a.Retain()
		return a, nil
	}}
}

func literalExpr(v any, dt arrow.DataType) *cexpr {
	if dt == nil {
		dt = tNull
	}
	return &cexpr{typ: dt, konst: true, val: v, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return broadcast(ec.mem, v, dt, int(rec.NumRows()))
	}}
}

func compileAll(xs []rex) ([]*cexpr, error) {
	out := make([]*cexpr, len(xs))
	for i, x := range xs {
		c, err := compile(x)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// compile turns a resolved expression into its closure.
func compile(e rex) (*cexpr, error) {
	switch x := e.(type) {
	case *rCol:
		return columnExpr(x.idx, x.t), nil
	case *rLit:
		return literalExpr(x.v, x.t), nil
	case *rCast:
		in, err := compile(x.x)
		if err != nil {
			return nil, err
		}
		to, pos, src := x.to, x.pos, x.src
		return &cexpr{typ: to, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				r, err := ec.fctx.Cast(a, to)
				if err != nil {
					return nil, errorf(pos, "%s: %w", src, err)
				}
				return r, nil
			})
		}}, nil
	case *rArith:
		return compileArith(x)
	case *rCmp:
		l, r, err := compile2(x.l, x.r)
		if err != nil {
			return nil, err
		}
		op := x.op
		return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				return compareArrays(ec.mem, op, a, b), nil
			})
		}}, nil
	case *rLogic:
		l, r, err := compile2(x.l, x.r)
		if err != nil {
			return nil, err
		}
		and := x.and
		return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				return andOr(ec.mem, and, a.(*array.Boolean), b.(*array.Boolean)), nil
			})
		}}, nil
	case *rNot:
		in, err := compile(x.x)
		if err != nil {
			return nil, err
		}
		return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				return notArray(ec.mem, a.(*array.Boolean)), nil
			})
		}}, nil
	case *rNeg:
		return compileNeg(x)
	case *rIsNull:
		in, err := compile(x.x)
		if err != nil {
			return nil, err
		}
		not := x.not
		return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				return isNullArray(ec.mem, a, not), nil
			})
		}}, nil
	case *rIn:
		return compileIn(x)
	case *rLike:
		return compileLike(x)
	case *rLikeAll:
		return compileLikeAll(x)
	case *rCase:
		return compileCase(x)
	case *rField:
		return compileField(x)
	case *rIndex:
		return compileIndex(x)
	case *rCall:
		return compileCall(x)
	case *rAgg:
		return nil, fmt.Errorf("query: aggregate %s outside an aggregation (a planner bug)", x.name)
	case compiledRex:
		return x.compile()
	case *rSubquery:
		return compileSubquery(x)
	case *rOuter:
		return compileOuter(x), nil
	case *rHOF:
		return compileHOF(x)
	}
	return nil, fmt.Errorf("query: cannot compile %T (a planner bug)", e)
}

func compile2(a, b rex) (*cexpr, *cexpr, error) {
	l, err := compile(a)
	if err != nil {
		return nil, nil, err
	}
	r, err := compile(b)
	if err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

var oneRow = arrow.NewSchema(nil, nil)

// fold replaces e by a constant when every sub-expression is constant,
// evaluating it once (on a one-row batch), as Spark's ConstantFolding. The
// constant keeps the generated name of what it was folded from. Nested
// values and expressions that fail stay as they are.
func (a *analyzer) fold(e rex) rex {
	for _, k := range e.kids() {
		if _, ok := k.(*rLit); !ok {
			return e
		}
	}
	switch x := e.(type) {
	case *rLit, *rCol, *rAgg:
		return e
	case *rCall:
		if x.volatile {
			return e
		}
	}
	if len(e.kids()) == 0 {
		if _, ok := e.(*rCall); !ok {
			return e
		}
	}
	ce, err := compile(e)
	if err != nil {
		return e
	}
	v, ok := evalConst(ce, a.now, a.zone)
	if !ok {
		return e
	}
	return &rLit{v: v, t: e.Type(), name: e.sql()}
}

// evalConst evaluates a constant expression; ok is false when it fails or
// its value is not a scalar a literal can hold.
func evalConst(ce *cexpr, now time.Time, zone *time.Location) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	rec := array.NewRecord(oneRow, nil, 1)
	defer rec.Release()
	mem := memory.DefaultAllocator
	arr, err := ce.eval(&ectx{mem: mem, fctx: &fn.Ctx{Mem: mem, Now: now, Zone: zone}}, rec)
	if err != nil {
		return nil, false
	}
	defer arr.Release()
	return scalarAt(arr, 0)
}

// scalarAt is element i of arr as a literal value, when its type has one.
func scalarAt(arr arrow.Array, i int) (any, bool) {
	if arr.IsNull(i) {
		return nil, true
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i), true
	case *array.Int8:
		return a.Value(i), true
	case *array.Int16:
		return a.Value(i), true
	case *array.Int32:
		return a.Value(i), true
	case *array.Int64:
		return a.Value(i), true
	case *array.Float32:
		return a.Value(i), true
	case *array.Float64:
		return a.Value(i), true
	case *array.String:
		return strings.Clone(a.Value(i)), true
	case *array.Binary:
		return append([]byte{}, a.Value(i)...), true
	case *array.Decimal128:
		return a.Value(i), true
	case *array.Timestamp:
		return time.UnixMicro(fn.TimestampMicros(a, i)).UTC(), true
	case *array.Date32:
		return a.Value(i).ToTime().UTC(), true
	case *array.Duration:
		return a.Value(i), true
	case *array.MonthInterval:
		return a.Value(i), true
	case *array.MonthDayNanoInterval:
		return a.Value(i), true
	}
	return nil, false
}

func compileArith(x *rArith) (*cexpr, error) {
	l, r, err := compile2(x.l, x.r)
	if err != nil {
		return nil, err
	}
	op, kt := x.op, x.t
	if op == "div" {
		return compileIntDiv(l, r)
	}
	if d, ok := kt.(*arrow.Decimal128Type); ok {
		lt, lok := l.typ.(*arrow.Decimal128Type)
		rt, rok := r.typ.(*arrow.Decimal128Type)
		if !lok || !rok {
			return nil, fmt.Errorf("query: decimal %s of %s and %s (a planner bug)", op, typeName(l.typ), typeName(r.typ))
		}
		return &cexpr{typ: kt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				return decimalArith(ec.mem, op, a.(*array.Decimal128), b.(*array.Decimal128), lt.Scale, rt.Scale, d), nil
			})
		}}, nil
	}
	var k func(mem memory.Allocator, a, b arrow.Array) arrow.Array
	switch op {
	case "&", "|", "^", "<<", ">>", ">>>", "~":
		switch kt.ID() {
		case arrow.INT8:
			k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return bitwise[int8](mem, kt, op, a, b) }
		case arrow.INT16:
			k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return bitwise[int16](mem, kt, op, a, b) }
		case arrow.INT32:
			k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return bitwise[int32](mem, kt, op, a, b) }
		case arrow.INT64:
			k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return bitwise[int64](mem, kt, op, a, b) }
		default:
			return nil, fmt.Errorf("query: %s over %s (a planner bug)", op, typeName(kt))
		}
		return &cexpr{typ: kt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) { return k(ec.mem, a, b), nil })
		}}, nil
	}
	switch kt.ID() {
	case arrow.INT8:
		k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return arith[int8](mem, kt, op, a, b) }
	case arrow.INT16:
		k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return arith[int16](mem, kt, op, a, b) }
	case arrow.INT32:
		k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return arith[int32](mem, kt, op, a, b) }
	case arrow.INT64:
		k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return arith[int64](mem, kt, op, a, b) }
	case arrow.FLOAT32:
		k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return arith[float32](mem, kt, op, a, b) }
	case arrow.FLOAT64:
		k = func(mem memory.Allocator, a, b arrow.Array) arrow.Array { return arith[float64](mem, kt, op, a, b) }
	default:
		return nil, fmt.Errorf("query: %s over %s (a planner bug)", op, typeName(kt))
	}
	return &cexpr{typ: kt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) { return k(ec.mem, a, b), nil })
	}}, nil
}

// compileIntDiv is a DIV b over two bigints or two decimals of one type:
// the quotient truncated toward zero, NULL by zero or beyond bigint.
func compileIntDiv(l, r *cexpr) (*cexpr, error) {
	return &cexpr{typ: tLong, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
			n := a.Len()
			bld := array.NewInt64Builder(ec.mem)
			defer bld.Release()
			bld.Reserve(n)
			if da, ok := a.(*array.Decimal128); ok {
				db := b.(*array.Decimal128)
				var q big.Int
				for i := 0; i < n; i++ {
					if da.IsNull(i) || db.IsNull(i) || db.Value(i).Sign() == 0 {
						bld.AppendNull()
						continue
					}
					q.Quo(da.Value(i).BigInt(), db.Value(i).BigInt())
					if !q.IsInt64() {
						bld.AppendNull()
						continue
					}
					bld.Append(q.Int64())
				}
				return bld.NewArray(), nil
			}
			av, bv := fixedValues[int64](a), fixedValues[int64](b)
			for i := 0; i < n; i++ {
				if a.IsNull(i) || b.IsNull(i) || bv[i] == 0 {
					bld.AppendNull()
					continue
				}
				if bv[i] == -1 {
					bld.Append(-av[i]) // MinInt64 div -1 wraps, as Java's
					continue
				}
				bld.Append(av[i] / bv[i])
			}
			return bld.NewArray(), nil
		})
	}}, nil
}

// decimalArith is a op b over decimals with Spark's rounding (half up to
// the result's scale) and overflow (NULL, ANSI off); / and % by zero are
// NULL.
func decimalArith(mem memory.Allocator, op string, a, b *array.Decimal128, sa, sb int32, res *arrow.Decimal128Type) arrow.Array {
	n := a.Len()
	bld := array.NewDecimal128Builder(mem, res)
	defer bld.Release()
	bld.Reserve(n)
	var x, y, q, r big.Int
	for i := 0; i < n; i++ {
		if a.IsNull(i) || b.IsNull(i) {
			bld.AppendNull()
			continue
		}
		setBig(&x, a.Value(i))
		setBig(&y, b.Value(i))
		var scale int32
		switch op {
		case "+", "-":
			scale = max(sa, sb)
			scaleBig(&x, scale-sa)
			scaleBig(&y, scale-sb)
			if op == "+" {
				q.Add(&x, &y)
			} else {
				q.Sub(&x, &y)
			}
		case "*":
			scale = sa + sb
			q.Mul(&x, &y)
		case "/":
			if y.Sign() == 0 {
				bld.AppendNull()
				continue
			}
			// x/10^sa ÷ y/10^sb at scale res.Scale+1, then rounded.
			scale = res.Scale + 1
			if k := scale + sb - sa; k >= 0 {
				scaleBig(&x, k)
			} else {
				scaleBig(&y, -k)
			}
			q.Quo(&x, &y)
		default: // %
			if y.Sign() == 0 {
				bld.AppendNull()
				continue
			}
			scale = max(sa, sb)
			scaleBig(&x, scale-sa)
			scaleBig(&y, scale-sb)
			q.Rem(&x, &y)
		}
		if !roundBigTo(&q, &r, scale, res.Scale) {
			bld.AppendNull()
			continue
		}
		v, ok := bigToDecimal(&q, res.Precision)
		if !ok {
			bld.AppendNull()
			continue
		}
		bld.Append(v)
	}
	return bld.NewArray()
}

var bigTen = big.NewInt(10)

func setBig(z *big.Int, v decimal128.Num) { z.Set(v.BigInt()) }

// scaleBig multiplies z by 10^k (k ≥ 0).
func scaleBig(z *big.Int, k int32) {
	if k <= 0 {
		return
	}
	var p big.Int
	p.Exp(bigTen, big.NewInt(int64(k)), nil)
	z.Mul(z, &p)
}

// roundBigTo rescales z from scale `from` to scale `to`, rounding half up
// (away from zero); tmp is scratch space.
func roundBigTo(z, tmp *big.Int, from, to int32) bool {
	switch {
	case from == to:
		return true
	case from < to:
		scaleBig(z, to-from)
		return true
	}
	var p big.Int
	p.Exp(bigTen, big.NewInt(int64(from-to)), nil)
	neg := z.Sign() < 0
	z.Abs(z)
	z.QuoRem(z, &p, tmp)
	tmp.Lsh(tmp, 1)
	if tmp.Cmp(&p) >= 0 {
		z.Add(z, big.NewInt(1))
	}
	if neg {
		z.Neg(z)
	}
	return true
}

func bigToDecimal(z *big.Int, prec int32) (decimal128.Num, bool) {
	if z.BitLen() > 127 {
		return decimal128.Num{}, false
	}
	v := decimal128.FromBigInt(z)
	return v, v.FitsInPrecision(prec)
}

func compileNeg(x *rNeg) (*cexpr, error) {
	in, err := compile(x.x)
	if err != nil {
		return nil, err
	}
	if x.plus {
		return &cexpr{typ: in.typ, eval: in.eval}, nil
	}
	kt := in.typ
	var k func(mem memory.Allocator, a arrow.Array) arrow.Array
	switch kt.ID() {
	case arrow.INT8:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array { return negate[int8](mem, kt, a) }
	case arrow.INT16:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array { return negate[int16](mem, kt, a) }
	case arrow.INT32:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array { return negate[int32](mem, kt, a) }
	case arrow.INT64:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array { return negate[int64](mem, kt, a) }
	case arrow.FLOAT32:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array { return negate[float32](mem, kt, a) }
	case arrow.FLOAT64:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array { return negate[float64](mem, kt, a) }
	case arrow.DECIMAL128:
		k = func(mem memory.Allocator, a arrow.Array) arrow.Array {
			d := a.(*array.Decimal128)
			bld := array.NewDecimal128Builder(mem, kt.(*arrow.Decimal128Type))
			defer bld.Release()
			for i := 0; i < d.Len(); i++ {
				if d.IsNull(i) {
					bld.AppendNull()
				} else {
					bld.Append(d.Value(i).Negate())
				}
			}
			return bld.NewArray()
		}
	default:
		return nil, fmt.Errorf("query: - of %s (a planner bug)", typeName(kt))
	}
	return &cexpr{typ: kt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) { return k(ec.mem, a), nil })
	}}, nil
}

// compileIn: true when x equals a value of the list; else NULL when x or a
// value is NULL; else false.
func compileIn(x *rIn) (*cexpr, error) {
	v, err := compile(x.x)
	if err != nil {
		return nil, err
	}
	list, err := compileAll(x.list)
	if err != nil {
		return nil, err
	}
	return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		va, err := v.eval(ec, rec)
		if err != nil {
			return nil, err
		}
		defer va.Release()
		n := va.Len()
		found := make([]bool, n)
		null := make([]bool, n)
		for i := 0; i < n; i++ {
			null[i] = isNullAt(va, i)
		}
		for _, l := range list {
			la, err := l.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			cmp := comparer(va, la)
			for i := 0; i < n; i++ {
				switch {
				case found[i] || isNullAt(va, i):
				case isNullAt(la, i):
					null[i] = true
				case cmp(i, i) == 0:
					found[i] = true
				}
			}
			la.Release()
		}
		valid := newValidity(ec.mem, n)
		for i := 0; i < n; i++ {
			if !found[i] && null[i] {
				bitutil.ClearBit(valid.Bytes(), i)
			}
		}
		return boolArray(ec.mem, n, valid, func(i int) bool { return found[i] }), nil
	}}, nil
}

// compilePattern is the regular expression of one pattern of l.
func (l *rLike) compilePattern(p string) (*regexp.Regexp, error) {
	return fn.LikeRegexp(p, l.esc, l.fold)
}

func compileLike(x *rLike) (*cexpr, error) {
	in, pat, err := compile2(x.x, x.pat)
	if err != nil {
		return nil, err
	}
	var fixed *regexp.Regexp
	if p, ok := pat.val.(string); pat.konst && ok {
		if fixed, err = x.compilePattern(p); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	cache := map[string]*regexp.Regexp{}
	return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return eval2(ec, rec, in, pat, func(a, b arrow.Array) (arrow.Array, error) {
			s, p := a.(*array.String), b.(*array.String)
			var bad error
			out := boolArray(ec.mem, a.Len(), andValidity(ec.mem, a.Len(), a, b), func(i int) bool {
				if s.IsNull(i) || p.IsNull(i) {
					return false
				}
				re := fixed
				if re == nil {
					mu.Lock()
					re = cache[p.Value(i)]
					if re == nil {
						var err error
						if re, err = x.compilePattern(p.Value(i)); err != nil {
							bad = err
							mu.Unlock()
							return false
						}
						cache[strings.Clone(p.Value(i))] = re
					}
					mu.Unlock()
				}
				return re.MatchString(s.Value(i))
			})
			if bad != nil {
				out.Release()
				return nil, fmt.Errorf("%s: %w", x.sql(), bad)
			}
			return out, nil
		})
	}}, nil
}

// compileLikeAll is Spark's LikeAny/LikeAll/NotLikeAny/NotLikeAll: a NULL
// pattern makes an otherwise undecided answer NULL.
func compileLikeAll(x *rLikeAll) (*cexpr, error) {
	in, err := compile(x.x)
	if err != nil {
		return nil, err
	}
	pats, err := compileAll(x.pats)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	cache := map[string]*regexp.Regexp{}
	pattern := func(p string) (*regexp.Regexp, error) {
		mu.Lock()
		defer mu.Unlock()
		if re, ok := cache[p]; ok {
			return re, nil
		}
		re, err := fn.LikeRegexp(p, '\\', x.fold)
		if err != nil {
			return nil, err
		}
		cache[strings.Clone(p)] = re
		return re, nil
	}
	return &cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		a, err := in.eval(ec, rec)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		ps := make([]*array.String, len(pats))
		for k, p := range pats {
			pa, err := p.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			defer pa.Release()
			ps[k] = pa.(*array.String)
		}
		s := a.(*array.String)
		n := s.Len()
		valid := newValidity(ec.mem, n)
		vb := valid.Bytes()
		var bad error
		out := boolArray(ec.mem, n, valid, func(i int) bool {
			if s.IsNull(i) {
				bitutil.ClearBit(vb, i)
				return false
			}
			v := s.Value(i)
			all, some, hasNull := true, false, false
			for _, p := range ps {
				if p.IsNull(i) {
					hasNull = true
					continue
				}
				re, err := pattern(p.Value(i))
				if err != nil {
					bad = err
					return false
				}
				m := re.MatchString(v) != x.not
				all, some = all && m, some || m
			}
			var decided, answer bool
			if x.any {
				decided, answer = some, true
			} else {
				decided, answer = !all, false
			}
			if decided {
				return answer
			}
			if hasNull {
				bitutil.ClearBit(vb, i)
				return false
			}
			return !answer
		})
		if bad != nil {
			out.Release()
			return nil, fmt.Errorf("%s: %w", x.name, bad)
		}
		return out, nil
	}}, nil
}

func compileCase(x *rCase) (*cexpr, error) {
	conds, err := compileAll(x.conds)
	if err != nil {
		return nil, err
	}
	vals, err := compileAll(append(append([]rex(nil), x.vals...), x.els))
	if err != nil {
		return nil, err
	}
	rt := x.t
	return &cexpr{typ: rt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		n := int(rec.NumRows())
		var arrs []arrow.Array
		defer func() { releaseAll(arrs) }()
		choice := make([]int64, n)
		for i := range choice {
			choice[i] = -1
		}
		for k, ce := range conds {
			a, err := ce.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			b := a.(*array.Boolean)
			for i := 0; i < n; i++ {
				if choice[i] < 0 && b.IsValid(i) && b.Value(i) {
					choice[i] = int64(k)
				}
			}
			a.Release()
		}
		for _, v := range vals {
			a, err := v.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			arrs = append(arrs, a)
		}
		idx := make([]int64, n)
		for i := range idx {
			k := choice[i]
			if k < 0 {
				k = int64(len(conds))
			}
			idx[i] = k*int64(n) + int64(i)
		}
		all, err := concatArrays(ec.mem, rt, arrs)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		return dataframe.Take(ec.mem, all, idx)
	}}, nil
}

func compileField(x *rField) (*cexpr, error) {
	in, err := compile(x.x)
	if err != nil {
		return nil, err
	}
	k, ft := x.idx, x.t
	if lt, isList := ft.(*arrow.ListType); isList {
		return &cexpr{typ: lt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				l := a.(*array.List)
				vals := l.ListValues().(*array.Struct)
				child := fieldWithValidity(ec.mem, vals, k)
				defer child.Release()
				d := l.Data()
				nd := array.NewData(lt, l.Len(), d.Buffers(), []arrow.ArrayData{child.Data()}, l.NullN(), d.Offset())
				defer nd.Release()
				return array.MakeFromData(nd), nil
			})
		}}, nil
	}
	return &cexpr{typ: ft, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			return fieldWithValidity(ec.mem, a.(*array.Struct), k), nil
		})
	}}, nil
}

func compileIndex(x *rIndex) (*cexpr, error) {
	in, idx, err := compile2(x.x, x.i)
	if err != nil {
		return nil, err
	}
	return &cexpr{typ: x.t, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			ia, err := idx.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			defer ia.Release()
			l := a.(*array.List)
			offs := l.Offsets()
			n := l.Len()
			take := make([]int64, n)
			valid := make([]bool, n)
			for r := 0; r < n; r++ {
				if l.IsNull(r) || ia.IsNull(r) {
					continue
				}
				k, lo, hi := fn.IntValue(ia, r), int64(offs[r]), int64(offs[r+1])
				if k < 0 || lo+k >= hi {
					continue // past the end: NULL, as Spark without ANSI mode
				}
				take[r], valid[r] = lo+k, true
			}
			return takeNullable(ec.mem, l.ListValues(), take, valid)
		})
	}}, nil
}

// takeNullable takes arr at idx where valid, NULL elsewhere.
func takeNullable(mem memory.Allocator, arr arrow.Array, idx []int64, valid []bool) (arrow.Array, error) {
	all := true
	for _, v := range valid {
		all = all && v
	}
	if arr.Len() == 0 {
		return fn.NullArray(mem, arr.DataType(), len(idx)), nil
	}
	if !all {
		for i, v := range valid {
			if !v {
				idx[i] = 0
			}
		}
	}
	out, err := dataframe.Take(mem, arr, idx)
	if err != nil || all {
		return out, err
	}
	defer out.Release()
	vb := newValidity(mem, len(idx))
	defer vb.Release()
	for i, v := range valid {
		if !v {
			vb.Bytes()[i/8] &^= 1 << (i % 8)
		}
	}
	return withValidity(mem, out, vb), nil
}

func compileCall(x *rCall) (*cexpr, error) {
	args, err := compileAll(x.args)
	if err != nil {
		return nil, err
	}
	b, pos, src := x.b, x.pos, x.src
	return &cexpr{typ: b.Type, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		vals := make([]arrow.Array, 0, len(args))
		defer func() { releaseAll(vals) }()
		for _, a := range args {
			v, err := a.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		r, err := b.Eval(ec.fctx, vals, int(rec.NumRows()))
		if err != nil {
			return nil, errorf(pos, "%s: %w", src, err)
		}
		return r, nil
	}}, nil
}

// fieldWithValidity is field k of a struct array, NULL where the struct is.
func fieldWithValidity(mem memory.Allocator, s *array.Struct, k int) arrow.Array {
	v := andValidity(mem, s.Len(), s)
	out := withValidity(mem, s.Field(k), v)
	if v != nil {
		v.Release()
	}
	return out
}
