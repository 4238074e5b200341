package query

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Percentiles, min_by/max_by and approx_count_distinct
// (docs/sql.md#aggregate-functions).
//
// percentile, median and percentile_cont interpolate linearly between the
// two values around position p·(n−1) of the sorted values, as Spark's
// Percentile; percentile_disc is the first value whose cumulative
// distribution reaches p. percentile_approx (approx_percentile) gives the
// value at rank ⌈p·n⌉ of the sorted values, which is what Spark's
// quantile summary answers while it holds every value (below its
// accuracy, 10000 values by default); Sluice always answers exactly, so
// larger groups may differ from Spark within Spark's error bound.
// approx_count_distinct counts exactly (within any error bound asked for).
// These aggregates hold their group's values in memory.

func init() {
	pct := &aggDef{bind: bindPercentile, acc: func(c *aggCall) accumulator { return newPercentileAcc(c) }}
	for _, n := range []string{"percentile", "median", "percentile_approx", "approx_percentile"} {
		aggDefs[n] = pct
	}
	within := &aggDef{bind: bindPercentile, acc: func(c *aggCall) accumulator { return newPercentileAcc(c) }, withinGroup: true}
	aggDefs["percentile_cont"] = within
	aggDefs["percentile_disc"] = within
	by := &aggDef{bind: bindMinMaxBy, acc: func(c *aggCall) accumulator { return &byAcc{max: c.fn == "max_by", typ: c.typ} }}
	aggDefs["min_by"] = by
	aggDefs["max_by"] = by
	aggDefs["approx_count_distinct"] = &aggDef{bind: bindApproxCountDistinct, acc: func(c *aggCall) accumulator {
		return &distinctAcc{inner: &countAcc{}, seen: map[string]struct{}{}}
	}}
}

// bindPercentile binds percentile(x, p [, frequency]), median(x),
// percentile_approx(x, p [, accuracy]) and percentile_cont/disc(p) WITHIN
// GROUP (ORDER BY x): the value, then the constant percentage.
func bindPercentile(r *exprResolver, c *aggCall, x *Call) error {
	name := c.fn
	var lo, hi int
	switch name {
	case "median":
		lo, hi = 1, 1
	case "percentile_cont", "percentile_disc":
		lo, hi = 2, 2 // the WITHIN GROUP key, then p
	default:
		lo, hi = 2, 3
	}
	if len(c.args) < lo || len(c.args) > hi {
		n := len(c.args)
		if name == "percentile_cont" || name == "percentile_disc" {
			return errorf(x.Pos, "%s takes 1 argument, got %d", name, n-1)
		}
		return arity(x, c.args, lo, hi)
	}
	v := c.args[0]
	vt := plainType(v.Type())
	switch {
	case isNumeric(vt), isNull(vt):
	case isDayTime(vt) || isYearMonth(vt):
		// An interval's percentile is an interval of its type (its
		// months or microseconds, truncated: docs/sql.md#intervals).
	case (name == "percentile_approx" || name == "approx_percentile") && (vt.ID() == arrow.DATE32 || vt.ID() == arrow.TIMESTAMP):
	default:
		return errorf(x.Pos, "%s: %s needs a numeric value, got %s", x, name, typeName(v.Type()))
	}
	p := 0.5
	pSQL := "0.5"
	if name != "median" {
		lit, ok := c.args[1].(*rLit)
		f, isNum := 0.0, false
		if ok {
			f, isNum = literalFloat(lit)
		}
		if !ok || !isNum && lit.v != nil {
			return errorf(x.Pos, "%s: the percentage must be a constant number, got %s", x, c.args[1].sql())
		}
		if lit.v == nil {
			return errorf(x.Pos, "%s: the percentage must not be NULL", x)
		}
		if f < 0 || f > 1 {
			return errorf(x.Pos, "%s: the percentage must be between 0.0 and 1.0, got %s", x, c.args[1].sql())
		}
		p, pSQL = f, c.args[1].sql()
	}
	c.pct = p
	var err error
	if isDayTime(vt) || isYearMonth(vt) {
		c.interval = vt
	} else if isNumeric(vt) || isNull(vt) {
		if c.args[0], err = r.implicitCast(v, tDouble, x); err != nil {
			return err
		}
	} else {
		// Dates and timestamps by their number (days, microseconds).
		c.args[0] = &rCast{x: v, to: tDouble, src: v.sql()}
	}
	c.typ = tDouble
	if c.interval != nil {
		c.typ = vt
	}
	switch name {
	case "percentile":
		freqSQL := "1"
		if len(c.args) == 3 {
			if !isIntegral(plainType(c.args[2].Type())) {
				return errorf(x.Args[2].Position(), "%s: the frequency must be an integer, got %s", x, typeName(c.args[2].Type()))
			}
			freqSQL = c.args[2].sql()
			if c.args[2], err = r.implicitCast(c.args[2], tLong, x.Args[2]); err != nil {
				return err
			}
		}
		c.args = append(c.args[:1], c.args[2:]...)
		c.name = "percentile(" + v.sql() + ", " + pSQL + ", " + freqSQL + ")"
	case "median":
		c.name = "median(" + v.sql() + ")"
	case "percentile_cont", "percentile_disc":
		c.args = c.args[:1]
		desc := ""
		if c.desc {
			desc = " DESC"
		}
		// Spark 3.5 prints the key as v.
		c.name = name + "(" + pSQL + ") WITHIN GROUP (ORDER BY v" + desc + ")"
	default: // percentile_approx, approx_percentile
		acc := "10000"
		if len(c.args) == 3 {
			lit, ok := c.args[2].(*rLit)
			n, isInt := int64(0), false
			if ok {
				n, isInt = intConst(lit.v)
			}
			if !isInt || n <= 0 {
				return errorf(x.Args[2].Position(), "%s: the accuracy must be a positive integer constant, got %s", x, c.args[2].sql())
			}
			acc = c.args[2].sql()
		}
		c.args = c.args[:1]
		c.typ = vt
		if c.interval != nil {
			c.typ = c.interval
		}
		if isNull(vt) {
			c.typ = tDouble
		}
		d := ""
		if c.distinct {
			d = "DISTINCT "
		}
		c.name = name + "(" + d + v.sql() + ", " + pSQL + ", " + acc + ")"
	}
	return nil
}

// literalFloat is a numeric constant as a float64.
func literalFloat(l *rLit) (float64, bool) {
	if n, ok := intConst(l.v); ok {
		return float64(n), true
	}
	switch v := l.v.(type) {
	case float32:
		return float64(v), true
	case float64:
		return v, true
	}
	if d, ok := l.t.(*arrow.Decimal128Type); ok {
		if n, ok := l.v.(decimal128.Num); ok {
			// Through its text: 0.3 is the double 0.3, as Java's
			// BigDecimal.doubleValue gives it.
			f, err := strconv.ParseFloat(n.ToString(d.Scale), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// percentileAcc holds each group's values (and, for percentile, their
// frequencies).
type percentileAcc struct {
	c     *aggCall
	vals  [][]float64
	freqs [][]int64
}

func newPercentileAcc(c *aggCall) accumulator { return &percentileAcc{c: c} }

func (a *percentileAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.vals = growTo(a.vals, groups)
	if args[0].DataType().ID() == arrow.NULL {
		return nil
	}
	var v []float64
	switch x := args[0].(type) {
	case *array.Duration, *array.MonthInterval:
		// An interval by its microseconds or months.
		v = make([]float64, x.Len())
		for i := range v {
			if !x.IsNull(i) {
				iv := intervalAt(x, i)
				v[i] = float64(iv.micros + iv.months)
			}
		}
	default:
		v = fixedValues[float64](args[0])
	}
	var freq []int64
	var fa arrow.Array
	if len(args) > 1 {
		fa = args[1]
		a.freqs = growTo(a.freqs, groups)
		if fa.DataType().ID() != arrow.NULL {
			freq = fixedValues[int64](fa)
		}
	}
	for i, g := range gids {
		if g < 0 || args[0].IsNull(i) {
			continue
		}
		if fa != nil {
			if freq == nil || fa.IsNull(i) {
				continue
			}
			if freq[i] < 0 {
				return fmt.Errorf("percentile: a negative frequency %d", freq[i])
			}
			a.freqs[g] = append(a.freqs[g], freq[i])
		}
		a.vals[g] = append(a.vals[g], v[i])
	}
	return nil
}

func (a *percentileAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.vals = growTo(a.vals, groups)
	out := make([]float64, groups)
	seen := make([]bool, groups)
	for g := 0; g < groups; g++ {
		vals := a.vals[g]
		var freqs []int64
		if a.freqs != nil {
			a.freqs = growTo(a.freqs, groups)
			freqs = a.freqs[g]
		}
		out[g], seen[g] = a.percentile(vals, freqs)
	}
	if t := a.c.interval; t != nil {
		// Truncated to whole months or microseconds, as Spark's
		// Percentile converts its double answer.
		return intervalValues(mem, a.c.typ, groups, func(g int) (intervalValue, bool, error) {
			if !seen[g] {
				return intervalValue{}, false, nil
			}
			if isYearMonth(t) {
				return intervalValue{months: int64(int32(out[g]))}, true, nil
			}
			return intervalValue{micros: int64(out[g])}, true, nil
		})
	}
	res := valuesSeen(mem, tDouble, out, seen)
	if arrow.TypeEqual(a.c.typ, tDouble) {
		return res, nil
	}
	defer res.Release()
	return fn.Cast(mem, res, a.c.typ) // percentile_approx: the value's type
}

// percentile computes the group's answer; false when it has no value.
func (a *percentileAcc) percentile(vals []float64, freqs []int64) (float64, bool) {
	// Sorted distinct values with accumulated counts, as Spark's.
	type vc struct {
		v float64
		n int64
	}
	items := make([]vc, len(vals))
	for i, v := range vals {
		items[i] = vc{v, 1}
		if freqs != nil {
			items[i].n = freqs[i]
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return cmpOrdered(items[i].v, items[j].v) < 0 })
	var acc []vc
	var total int64
	for _, it := range items {
		if it.n == 0 {
			continue
		}
		total += it.n
		if k := len(acc); k > 0 && cmpOrdered(acc[k-1].v, it.v) == 0 {
			acc[k-1].n = total
			continue
		}
		acc = append(acc, vc{it.v, total})
	}
	if total == 0 {
		return 0, false
	}
	p := a.c.pct
	if a.c.desc && a.c.fn != "percentile_disc" {
		p = 1 - p
	}
	// at is the value of the k-th row (from 1).
	at := func(k int64) float64 {
		i := sort.Search(len(acc), func(i int) bool { return acc[i].n >= k })
		return acc[i].v
	}
	switch a.c.fn {
	case "percentile_disc":
		k := max(int64(math.Ceil(p*float64(total))), 1)
		if a.c.desc {
			k = total - k + 1 // the k-th from the largest
		}
		return at(k), true
	case "percentile_approx", "approx_percentile":
		const relErr = 1.0 / 10000
		switch {
		case p <= relErr:
			return acc[0].v, true
		case p >= 1-relErr:
			return acc[len(acc)-1].v, true
		}
		k := int64(math.Ceil(p * float64(total)))
		return at(max(k, 1)), true
	}
	pos := float64(total-1) * p
	lower, higher := math.Floor(pos), math.Ceil(pos)
	lv := at(int64(lower) + 1)
	if higher == lower {
		return lv, true
	}
	hv := at(int64(higher) + 1)
	if hv == lv {
		return lv, true
	}
	return (higher-pos)*lv + (pos-lower)*hv, true
}

func (a *percentileAcc) release() {}

// bindMinMaxBy: min_by(x, ord), max_by(x, ord) → x's type.
func bindMinMaxBy(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 2, 2); err != nil {
		return err
	}
	ot := plainType(c.args[1].Type())
	switch ot.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP:
		return errorf(x.Args[1].Position(), "%s: cannot order by %s", x, typeName(ot))
	}
	c.typ = plainType(c.args[0].Type())
	var err error
	if c.args[0], err = r.implicitCast(c.args[0], c.typ, x.Args[0]); err != nil {
		return err
	}
	c.args[1], err = r.implicitCast(c.args[1], ot, x.Args[1])
	return err
}

// byAcc is min_by and max_by: the value of the row whose ordering value is
// the least (greatest); the first such row on ties.
type byAcc struct {
	max    bool
	typ    arrow.DataType
	vals   []arrow.Array // chunks of the values
	ords   []arrow.Array // and of the ordering values
	starts []int64       // each chunk's first global row
	base   int64
	pick   []int64
}

func (a *byAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	had := len(a.pick)
	a.pick = growTo(a.pick, groups)
	for g := had; g < groups; g++ {
		a.pick[g] = -1
	}
	val, ord := args[0], args[1]
	val.Retain()
	ord.Retain()
	a.vals, a.ords, a.starts = append(a.vals, val), append(a.ords, ord), append(a.starts, a.base)
	base := a.base
	a.base += int64(val.Len())
	self := comparer(ord, ord)
	cmps := map[int]func(i, j int) int{}
	for i, g := range gids {
		if g < 0 || isNullAt(ord, i) {
			continue
		}
		p := a.pick[g]
		if p < 0 {
			a.pick[g] = base + int64(i)
			continue
		}
		ci := sort.Search(len(a.starts), func(k int) bool { return a.starts[k] > p }) - 1
		var c int
		if ci == len(a.starts)-1 {
			c = self(i, int(p-base))
		} else {
			cmp, ok := cmps[ci]
			if !ok {
				cmp = comparer(ord, a.ords[ci])
				cmps[ci] = cmp
			}
			c = cmp(i, int(p-a.starts[ci]))
		}
		if a.max && c > 0 || !a.max && c < 0 {
			a.pick[g] = base + int64(i)
		}
	}
	return nil
}

func (a *byAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	had := len(a.pick)
	a.pick = growTo(a.pick, groups)
	for g := had; g < groups; g++ {
		a.pick[g] = -1
	}
	all, err := concatArrays(mem, a.typ, a.vals)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	idx := make([]int64, groups)
	valid := make([]bool, groups)
	for g, p := range a.pick[:groups] {
		if p >= 0 {
			idx[g], valid[g] = p, true
		}
	}
	return takeNullable(mem, all, idx, valid)
}

func (a *byAcc) release() {
	releaseAll(a.vals)
	releaseAll(a.ords)
	a.vals, a.ords = nil, nil
}

// bindApproxCountDistinct: approx_count_distinct(x [, relativeSD]) →
// bigint, counted exactly.
func bindApproxCountDistinct(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 2); err != nil {
		return err
	}
	if len(c.args) == 2 {
		lit, ok := c.args[1].(*rLit)
		f, isNum := 0.0, false
		if ok {
			f, isNum = literalFloat(lit)
		}
		if !isNum || f <= 0 {
			return errorf(x.Args[1].Position(), "%s: the relative standard deviation must be a positive constant, got %s", x, c.args[1].sql())
		}
		c.args = c.args[:1]
	}
	c.typ = tLong
	c.name = "approx_count_distinct(" + c.args[0].sql() + ")"
	return nil
}

// nestedComparer orders structs field by field and arrays element by
// element then by length, a NULL field or element first, as Spark orders
// them (min, max, ORDER BY).
func nestedComparer(a, b arrow.Array) func(i, j int) int {
	switch x := a.(type) {
	case *array.Struct:
		y := b.(*array.Struct)
		fields := make([]func(i, j int) int, x.NumField())
		for k := range fields {
			fields[k] = nullsFirstCmp(x.Field(k), y.Field(k))
		}
		return func(i, j int) int {
			for _, f := range fields {
				if c := f(i, j); c != 0 {
					return c
				}
			}
			return 0
		}
	case array.ListLike:
		y := b.(array.ListLike)
		elems := nullsFirstCmp(x.ListValues(), y.ListValues())
		return func(i, j int) int {
			xs, xe := x.ValueOffsets(i)
			ys, ye := y.ValueOffsets(j)
			for k := int64(0); xs+k < xe && ys+k < ye; k++ {
				if c := elems(int(xs+k), int(ys+k)); c != 0 {
					return c
				}
			}
			return cmpOrdered(xe-xs, ye-ys)
		}
	}
	return nil
}

// nullsFirstCmp is comparer with NULLs before every value.
func nullsFirstCmp(a, b arrow.Array) func(i, j int) int {
	c := comparer(a, b)
	return func(i, j int) int {
		an, bn := isNullAt(a, i), isNullAt(b, j)
		switch {
		case an && bn:
			return 0
		case an:
			return -1
		case bn:
			return 1
		}
		return c(i, j)
	}
}
