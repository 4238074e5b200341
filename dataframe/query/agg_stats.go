package query

import (
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Spark's statistical and boolean aggregates (docs/sql.md#aggregate-functions):
// count_if, bool_and/every, bool_or/any/some, the central moments
// (variance, standard deviation, skewness, kurtosis) and covariance and
// correlation, each with Spark's one-pass update formulas (so the same
// rows in the same order give the same double), NULL inputs skipped, and
// NULL where Spark divides by zero (spark.sql.legacy.statisticalAggregate
// off).

func init() {
	aggDefs["count_if"] = &aggDef{bind: bindCountIf, acc: func(c *aggCall) accumulator { return &countAcc{ifTrue: true} }}
	boolean := &aggDef{bind: bindBoolAgg, acc: func(c *aggCall) accumulator { return &boolAcc{and: statFn(c.fn) == "bool_and"} }}
	for _, n := range []string{"bool_and", "every", "bool_or", "any", "some"} {
		aggDefs[n] = boolean
	}
	moments := &aggDef{bind: bindDoubleArgs(1), acc: func(c *aggCall) accumulator { return &momentAcc{fn: c.fn} }}
	for _, n := range []string{"stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "skewness", "kurtosis"} {
		aggDefs[n] = moments
	}
	pairs := &aggDef{bind: bindDoubleArgs(2), acc: func(c *aggCall) accumulator { return &covAcc{fn: c.fn} }}
	for _, n := range []string{"corr", "covar_pop", "covar_samp"} {
		aggDefs[n] = pairs
	}
}

// statFn is the function an aggregate name computes (aliases resolved).
func statFn(name string) string {
	switch name {
	case "every":
		return "bool_and"
	case "any", "some":
		return "bool_or"
	case "stddev", "std":
		return "stddev_samp"
	case "variance":
		return "var_samp"
	}
	return name
}

// bindCountIf: count_if(boolean) → bigint.
func bindCountIf(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 1); err != nil {
		return err
	}
	c.typ = tLong
	var err error
	c.args[0], err = r.asBool(c.args[0], x.Args[0])
	return err
}

// bindBoolAgg: bool_and(boolean), bool_or(boolean) → boolean.
func bindBoolAgg(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 1); err != nil {
		return err
	}
	c.typ = tBool
	var err error
	c.args[0], err = r.asBool(c.args[0], x.Args[0])
	return err
}

// bindDoubleArgs binds k numeric arguments cast to double → double.
func bindDoubleArgs(k int) func(r *exprResolver, c *aggCall, x *Call) error {
	return func(r *exprResolver, c *aggCall, x *Call) error {
		if err := arity(x, c.args, k, k); err != nil {
			return err
		}
		for i, a := range c.args {
			t := plainType(a.Type())
			if !isNumeric(t) && !isString(t) && !isNull(t) {
				return errorf(x.Args[i].Position(), "%s: %s needs numbers, got %s", x, c.fn, typeName(a.Type()))
			}
			var err error
			if c.args[i], err = r.implicitCast(a, tDouble, x.Args[i]); err != nil {
				return err
			}
		}
		c.typ = tDouble
		return nil
	}
}

// boolAcc is bool_and (every) and bool_or (any, some).
type boolAcc struct {
	and  bool
	vals []bool
	seen []bool
}

func (a *boolAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.vals, a.seen = growTo(a.vals, groups), growTo(a.seen, groups)
	if args[0].DataType().ID() == arrow.NULL {
		return nil
	}
	b := args[0].(*array.Boolean)
	for i, g := range gids {
		if g < 0 || b.IsNull(i) {
			continue
		}
		v := b.Value(i)
		switch {
		case !a.seen[g]:
			a.vals[g], a.seen[g] = v, true
		case a.and:
			a.vals[g] = a.vals[g] && v
		default:
			a.vals[g] = a.vals[g] || v
		}
	}
	return nil
}

func (a *boolAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.vals, a.seen = growTo(a.vals, groups), growTo(a.seen, groups)
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	for g := 0; g < groups; g++ {
		if a.seen[g] {
			b.Append(a.vals[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}

func (a *boolAcc) release() {}

// momentAcc is Spark's CentralMomentAgg: n, the mean and the central
// moments m2…m4, updated one value at a time.
type momentAcc struct {
	fn                 string
	n, avg, m2, m3, m4 []float64
}

func (a *momentAcc) order() int {
	switch statFn(a.fn) {
	case "skewness":
		return 3
	case "kurtosis":
		return 4
	}
	return 2
}

func (a *momentAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.n, a.avg, a.m2 = growTo(a.n, groups), growTo(a.avg, groups), growTo(a.m2, groups)
	a.m3, a.m4 = growTo(a.m3, groups), growTo(a.m4, groups)
	if args[0].DataType().ID() == arrow.NULL {
		return nil
	}
	v := fixedValues[float64](args[0])
	order := a.order()
	for i, g := range gids {
		if g < 0 || args[0].IsNull(i) {
			continue
		}
		newN := a.n[g] + 1
		delta := v[i] - a.avg[g]
		deltaN := delta / newN
		newM2 := a.m2[g] + delta*(delta-deltaN)
		if order >= 3 {
			delta2 := delta * delta
			deltaN2 := deltaN * deltaN
			newM3 := a.m3[g] - 3*deltaN*newM2 + delta*(delta2-deltaN2)
			if order >= 4 {
				a.m4[g] = a.m4[g] - 4*deltaN*newM3 - 6*deltaN2*newM2 + delta*(delta*delta2-deltaN*deltaN2)
			}
			a.m3[g] = newM3
		}
		a.n[g], a.avg[g], a.m2[g] = newN, a.avg[g]+deltaN, newM2
	}
	return nil
}

func (a *momentAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.n, a.avg, a.m2 = growTo(a.n, groups), growTo(a.avg, groups), growTo(a.m2, groups)
	a.m3, a.m4 = growTo(a.m3, groups), growTo(a.m4, groups)
	vals := make([]float64, groups)
	seen := make([]bool, groups)
	for g := 0; g < groups; g++ {
		n, m2 := a.n[g], a.m2[g]
		if n == 0 {
			continue
		}
		var v float64
		var ok bool
		switch statFn(a.fn) {
		case "var_pop":
			v, ok = div(m2, n)
		case "var_samp":
			v, ok = div(m2, n-1)
		case "stddev_pop":
			v, ok = div(m2, n)
			v = math.Sqrt(v)
		case "stddev_samp":
			v, ok = div(m2, n-1)
			v = math.Sqrt(v)
		case "skewness":
			v, ok = div(math.Sqrt(n)*a.m3[g], math.Sqrt(m2*m2*m2))
		case "kurtosis":
			v, ok = div(n*a.m4[g], m2*m2)
			v -= 3
		}
		vals[g], seen[g] = v, ok
	}
	return valuesSeen(mem, tDouble, vals, seen), nil
}

func (a *momentAcc) release() {}

// div is x / y as Spark's Divide (ANSI off): no value for a zero divisor.
func div(x, y float64) (float64, bool) {
	if y == 0 {
		return 0, false
	}
	return x / y, true
}

// covAcc is Spark's Covariance and PearsonCorrelation: n, the means, the
// co-moment and (for corr) both second moments.
type covAcc struct {
	fn                          string
	n, xAvg, yAvg, ck, xMk, yMk []float64
}

func (a *covAcc) grow(groups int) {
	a.n, a.xAvg, a.yAvg = growTo(a.n, groups), growTo(a.xAvg, groups), growTo(a.yAvg, groups)
	a.ck, a.xMk, a.yMk = growTo(a.ck, groups), growTo(a.xMk, groups), growTo(a.yMk, groups)
}

func (a *covAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.grow(groups)
	if args[0].DataType().ID() == arrow.NULL || args[1].DataType().ID() == arrow.NULL {
		return nil
	}
	xs, ys := fixedValues[float64](args[0]), fixedValues[float64](args[1])
	corr := a.fn == "corr"
	for i, g := range gids {
		if g < 0 || args[0].IsNull(i) || args[1].IsNull(i) {
			continue
		}
		x, y := xs[i], ys[i]
		newN := a.n[g] + 1
		dx := x - a.xAvg[g]
		dy := y - a.yAvg[g]
		newXAvg := a.xAvg[g] + dx/newN
		newYAvg := a.yAvg[g] + dy/newN
		a.ck[g] += dx * (y - newYAvg)
		if corr {
			a.xMk[g] += dx * (x - newXAvg)
			a.yMk[g] += dy * (y - newYAvg)
		}
		a.n[g], a.xAvg[g], a.yAvg[g] = newN, newXAvg, newYAvg
	}
	return nil
}

func (a *covAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.grow(groups)
	vals := make([]float64, groups)
	seen := make([]bool, groups)
	for g := 0; g < groups; g++ {
		n := a.n[g]
		if n == 0 {
			continue
		}
		switch a.fn {
		case "covar_pop":
			vals[g], seen[g] = div(a.ck[g], n)
		case "covar_samp":
			vals[g], seen[g] = div(a.ck[g], n-1)
		case "corr":
			if n == 1 {
				continue
			}
			vals[g], seen[g] = div(a.ck[g], math.Sqrt(a.xMk[g]*a.yMk[g]))
		}
	}
	return valuesSeen(mem, tDouble, vals, seen), nil
}

func (a *covAcc) release() {}
