package query

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/decimal256"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
)

// accumulator folds the rows of each group into one value. gids has one
// group per row (-1: skip the row); groups is the number of groups so far;
// args are the aggregate's evaluated arguments (none for count(*)), n rows.
type accumulator interface {
	update(gids []int32, groups int, args []arrow.Array, n int) error
	result(mem memory.Allocator, groups int) (arrow.Array, error)
	release()
}

// aggDef is an aggregate function: how a call binds (Spark's argument rules
// and result type) and the accumulator that computes it. A new aggregate
// is one more entry in aggDefs.
type aggDef struct {
	// bind checks the resolved arguments of c, casts them as the function
	// needs and sets c.typ.
	bind func(r *exprResolver, c *aggCall, x *Call) error
	// acc makes the accumulator of one evaluation.
	acc func(c *aggCall) accumulator
	// withinGroup: the function takes WITHIN GROUP (ORDER BY v), whose
	// key becomes its first argument (percentile_cont, percentile_disc).
	withinGroup bool
}

// aggCall is one aggregate call of a query, bound over the aggregate's
// input.
type aggCall struct {
	fn          string // the canonical lower-case name (avg for mean)
	name        string // its generated column name: count(1), sum(x)
	distinct    bool
	star        bool // count(*)
	args        []rex
	typ         arrow.DataType
	ignoreNulls bool           // first/last(x, true)
	desc        bool           // WITHIN GROUP (ORDER BY v DESC)
	interval    arrow.DataType // a percentile's interval value type, else nil
	pct         float64        // the percentage of the percentile functions
	sketch      *sketchShape   // count_min_sketch's constant shape
	// filtered: the last of args is the FILTER (WHERE …) condition, and
	// only the rows where it is true count. (Kept among the arguments, the
	// rewrites prune and re-bind it like them.)
	filtered bool
	def      *aggDef
}

var aggDefs = map[string]*aggDef{}

func init() {
	aggDefs["count"] = &aggDef{bind: bindCount, acc: func(c *aggCall) accumulator { return &countAcc{star: c.star} }}
	aggDefs["sum"] = &aggDef{bind: bindSum, acc: sumAccumulator}
	aggDefs["avg"] = &aggDef{bind: bindSum, acc: sumAccumulator}
	aggDefs["mean"] = aggDefs["avg"]
	aggDefs["min"] = &aggDef{bind: bindMinMax, acc: minMaxAccumulator}
	aggDefs["max"] = aggDefs["min"]
	collect := &aggDef{bind: bindCollect, acc: func(c *aggCall) accumulator { return &rowsAcc{mode: c.fn, typ: c.typ} }}
	aggDefs["collect_list"] = collect
	aggDefs["collect_set"] = collect
	firstLast := &aggDef{bind: bindFirstLast, acc: func(c *aggCall) accumulator {
		return &rowsAcc{mode: c.fn, typ: c.typ, ignoreNulls: c.ignoreNulls}
	}}
	for _, n := range []string{"first", "last", "first_value", "last_value", "any_value"} {
		aggDefs[n] = firstLast
	}
}

// aggregateDef is the aggregate function called name, or nil.
func aggregateDef(name string) *aggDef { return aggDefs[strings.ToLower(name)] }

func aggregateNames() []string {
	out := make([]string, 0, len(aggDefs))
	for n := range aggDefs {
		out = append(out, n)
	}
	return out
}

// canonicalAgg is the function an aggregate name computes.
func canonicalAgg(name string) string {
	switch name {
	case "mean":
		return "avg"
	case "first_value":
		return "first"
	case "last_value":
		return "last"
	case "any_value":
		return "first"
	}
	return name
}

// aggCollector gathers the distinct aggregate calls of one grouped query
// block (select list, HAVING, ORDER BY).
type aggCollector struct {
	calls []*aggCall
	keys  map[string]int
	// grouping is the block's grouping sets, when it has some (grouping.go).
	grouping *groupingInfo
}

// add binds an aggregate call over r's scope and returns its placeholder.
func (ac *aggCollector) add(r *exprResolver, def *aggDef, x *Call) (rex, error) {
	for _, a := range x.Args {
		if containsAgg(a) {
			return nil, errorf(a.Position(), "%s: an aggregate function cannot contain another", x)
		}
		if isGenerator(a) {
			return nil, errorf(a.Position(), "%s: a generator cannot be inside an aggregate function", x)
		}
	}
	inner := &exprResolver{a: r.a, sc: r.sc, clause: "an aggregate function's argument"}
	c, err := bindAggCall(r, inner, def, x)
	if err != nil {
		return nil, err
	}
	if x.Filter != nil {
		if containsAgg(x.Filter) {
			return nil, errorf(x.Filter.Position(), "%s: the FILTER condition cannot contain an aggregate function", x)
		}
		fr := &exprResolver{a: r.a, sc: r.sc, clause: "FILTER"}
		cond, err := fr.boolOperand(x.Filter)
		if err != nil {
			return nil, err
		}
		c.name += " FILTER (WHERE " + cond.sql() + ")"
		c.args = append(c.args, cond)
		c.filtered = true
	}
	key := c.name + "/" + c.fn + "/"
	if c.distinct {
		key += "DISTINCT "
	}
	for _, a := range c.args {
		key += rexKey(a) + ","
	}
	if c.ignoreNulls {
		key += "/ignore"
	}
	if c.filtered {
		key += "/filtered"
	}
	if ac.keys == nil {
		ac.keys = map[string]int{}
	}
	i, seen := ac.keys[key]
	if !seen {
		i = len(ac.calls)
		ac.keys[key] = i
		ac.calls = append(ac.calls, c)
	}
	return &rAgg{i: i, t: ac.calls[i].typ, name: c.name}, nil
}

// argResolver resolves a call's arguments.
type argResolver interface {
	resolve(e Expr) (rex, error)
}

// bindAggCall binds an aggregate call: its arguments resolved by args,
// checked and cast as the function's definition says, named as Spark
// names it (without FILTER).
func bindAggCall(r *exprResolver, args argResolver, def *aggDef, x *Call) (*aggCall, error) {
	name := strings.ToLower(x.Name)
	c := &aggCall{fn: canonicalAgg(name), distinct: x.Distinct, star: x.Star, def: def}
	if len(x.WithinGroup) > 0 || def.withinGroup {
		if !def.withinGroup {
			return nil, errorf(x.Pos, "%s: %s does not take WITHIN GROUP (ORDER BY …)", x, name)
		}
		if len(x.WithinGroup) != 1 {
			return nil, errorf(x.Pos, "%s: %s needs WITHIN GROUP (ORDER BY one key)", x, name)
		}
		e, err := args.resolve(x.WithinGroup[0].Expr)
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, e)
		c.desc = x.WithinGroup[0].Desc
	}
	if x.Star {
		if c.fn != "count" {
			return nil, errorf(x.Pos, "%s(*) is not supported; only count(*)", x.Name)
		}
	} else {
		if st, ok := singleArg(x).(*Star); ok && st.Qualifier != "" && c.fn == "count" && !x.Distinct {
			// Spark (spark.sql.legacy.allowStarWithSingleTableIdentifierInCount off).
			return nil, errorf(x.Pos, "%s: count(%s) is not allowed; use count(*) or name the columns", x, st)
		}
		exprs, err := r.expandStars(x.Args)
		if err != nil {
			return nil, err
		}
		for _, a := range exprs {
			e, err := args.resolve(a)
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, e)
		}
	}
	switch x.Nulls {
	case "IGNORE", "RESPECT":
		if c.fn != "first" && c.fn != "last" {
			return nil, errorf(x.Pos, "%s: the function %s does not take %s NULLS", x, name, x.Nulls)
		}
	}
	if err := def.bind(r, c, x); err != nil {
		return nil, err
	}
	if x.Nulls == "IGNORE" {
		c.ignoreNulls = true
	}
	if c.name != "" {
		return c, nil // the function named itself
	}
	argNames := make([]string, len(c.args))
	for i, a := range c.args {
		argNames[i] = a.sql()
	}
	if c.fn == "first" || c.fn == "last" {
		argNames = argNames[:1]
	}
	d := ""
	if c.distinct {
		d = "DISTINCT "
	}
	c.name = name + "(" + d + strings.Join(argNames, ", ") + ")"
	if x.Star {
		c.name = name + "(1)"
	}
	return c, nil
}

func arity(x *Call, args []rex, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		if lo == hi {
			return errorf(x.Pos, "%s takes %d argument(s), got %d", x.Name, lo, len(args))
		}
		return errorf(x.Pos, "%s takes %d to %d arguments, got %d", x.Name, lo, hi, len(args))
	}
	return nil
}

// bindCount: count(*), count(x, …) → long; count(NULL) counts nothing.
func bindCount(r *exprResolver, c *aggCall, x *Call) error {
	if !c.star && len(c.args) == 0 {
		return errorf(x.Pos, "%s takes at least 1 argument", x.Name)
	}
	c.typ = tLong
	return nil
}

// bindSum is Spark's sum: long for integers, decimal(p+10,s) for
// decimal(p,s), double for the rest (strings cast to double).
func bindSum(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 1); err != nil {
		return err
	}
	a := c.args[0]
	t := plainType(a.Type())
	switch {
	case isDecimal(t):
		p, s, _ := decimalParts(t)
		if c.fn == "avg" {
			c.typ = boundedDecimal(p+4, s+4)
		} else {
			c.typ = boundedDecimal(p+10, s)
		}
		if !arrow.TypeEqual(t, decimalType(p, s)) {
			var err error
			if c.args[0], err = r.implicitCast(a, decimalType(p, s), x.Args[0]); err != nil {
				return err
			}
		}
		return nil
	case c.fn == "sum" && isIntegral(t):
		c.typ = tLong
	case isDayTime(t) || isYearMonth(t):
		c.typ = t // an interval's sum and average keep its type (docs/sql.md#intervals)
	case isNumeric(t) || isString(t) || isNull(t) || isTimestamp(t):
		// A timestamp counts its seconds, as Spark's implicit cast to
		// double.
		c.typ = tDouble
	default:
		return errorf(x.Pos, "%s: %s needs numbers, got %s", x, c.fn, typeName(a.Type()))
	}
	var err error
	c.args[0], err = r.implicitCast(a, c.typ, x.Args[0])
	return err
}

// bindMinMax: min/max keep their argument's type.
func bindMinMax(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 1); err != nil {
		return err
	}
	t := plainType(c.args[0].Type())
	if t.ID() == arrow.MAP {
		return errorf(x.Pos, "%s of %s is not supported", c.fn, typeName(t))
	}
	c.typ = t
	var err error
	c.args[0], err = r.implicitCast(c.args[0], t, x.Args[0])
	return err
}

func bindCollect(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 1); err != nil {
		return err
	}
	c.typ = arrow.ListOf(plainType(c.args[0].Type()))
	var err error
	c.args[0], err = r.implicitCast(c.args[0], plainType(c.args[0].Type()), x.Args[0])
	return err
}

// bindFirstLast: first(x [, ignoreNulls]) with ignoreNulls a boolean
// constant.
func bindFirstLast(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 1, 2); err != nil {
		return err
	}
	if len(c.args) == 2 {
		lit, ok := c.args[1].(*rLit)
		b, isBool := false, false
		if ok {
			b, isBool = lit.v.(bool)
		}
		if !isBool {
			return errorf(x.Args[1].Position(), "%s: the second argument (ignoreNulls) must be true or false", x)
		}
		c.ignoreNulls = b
	}
	c.args = c.args[:1]
	c.typ = plainType(c.args[0].Type())
	var err error
	c.args[0], err = r.implicitCast(c.args[0], c.typ, x.Args[0])
	return err
}

func sumAccumulator(c *aggCall) accumulator {
	if c.typ.ID() == arrow.DECIMAL128 {
		return &decimalAcc{avg: c.fn == "avg", in: c.args[0].Type().(*arrow.Decimal128Type), typ: c.typ.(*arrow.Decimal128Type)}
	}
	if isInterval(c.typ) {
		return &intervalSumAcc{avg: c.fn == "avg", typ: c.typ}
	}
	if c.fn == "avg" {
		return &avgAcc{}
	}
	if c.typ.ID() == arrow.INT64 {
		return &sumAcc[int64]{typ: c.typ}
	}
	return &sumAcc[float64]{typ: c.typ}
}

func minMaxAccumulator(c *aggCall) accumulator {
	less := c.fn == "min"
	switch c.typ.ID() {
	case arrow.INT8:
		return &minMaxAcc[int8]{min: less, typ: c.typ}
	case arrow.INT16:
		return &minMaxAcc[int16]{min: less, typ: c.typ}
	case arrow.INT32, arrow.DATE32, arrow.INTERVAL_MONTHS:
		return &minMaxAcc[int32]{min: less, typ: c.typ}
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		return &minMaxAcc[int64]{min: less, typ: c.typ}
	case arrow.FLOAT32:
		return &minMaxAcc[float32]{min: less, typ: c.typ}
	case arrow.FLOAT64:
		return &minMaxAcc[float64]{min: less, typ: c.typ}
	}
	return &rowsAcc{mode: c.fn, typ: c.typ}
}

// accumulator makes c's accumulator, deduplicating inputs for DISTINCT.
func (c *aggCall) accumulator() accumulator {
	acc := c.def.acc(c)
	if c.distinct && c.fn != "min" && c.fn != "max" {
		acc = &distinctAcc{inner: acc, seen: map[string]struct{}{}}
	}
	return acc
}

func growTo[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	if cap(s) >= n {
		return s[:n]
	}
	out := make([]T, n, max(n, 2*cap(s)))
	copy(out, s)
	return out
}

type countAcc struct {
	star   bool
	ifTrue bool // count_if: the rows where the argument is true
	counts []int64
}

func (a *countAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.counts = growTo(a.counts, groups)
	c := a.counts
	if a.ifTrue {
		if b, ok := args[0].(*array.Boolean); ok {
			for i, g := range gids {
				if g >= 0 && b.IsValid(i) && b.Value(i) {
					c[g]++
				}
			}
		}
		return nil
	}
	nulls := 0
	for _, arr := range args {
		if arr.DataType().ID() == arrow.NULL {
			return nil // count(NULL) counts nothing
		}
		nulls += arr.NullN()
	}
	if a.star || nulls == 0 {
		for _, g := range gids {
			if g >= 0 {
				c[g]++
			}
		}
		return nil
	}
	for i, g := range gids {
		if g < 0 {
			continue
		}
		valid := true
		for _, arr := range args {
			valid = valid && arr.IsValid(i)
		}
		if valid {
			c[g]++
		}
	}
	return nil
}

func (a *countAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.counts = growTo(a.counts, groups)
	buf, out := allocFixed[int64](mem, groups)
	copy(out, a.counts)
	return fixedArray(tLong, groups, nil, buf), nil
}

func (a *countAcc) release() {}

type sumAcc[T int64 | float64] struct {
	typ  arrow.DataType
	sums []T
	seen []bool
}

func (a *sumAcc[T]) update(gids []int32, groups int, args []arrow.Array, n int) error {
	arr := args[0]
	a.sums, a.seen = growTo(a.sums, groups), growTo(a.seen, groups)
	v := fixedValues[T](arr)
	s, seen := a.sums, a.seen
	if arr.NullN() == 0 {
		for i, g := range gids {
			if g >= 0 {
				s[g] += v[i]
				seen[g] = true
			}
		}
		return nil
	}
	for i, g := range gids {
		if g >= 0 && arr.IsValid(i) {
			s[g] += v[i]
			seen[g] = true
		}
	}
	return nil
}

func (a *sumAcc[T]) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.sums, a.seen = growTo(a.sums, groups), growTo(a.seen, groups)
	return valuesSeen(mem, a.typ, a.sums, a.seen), nil
}

func (a *sumAcc[T]) release() {}

// valuesSeen is an array of vals, NULL where the group saw no value.
func valuesSeen[T arrow.FixedWidthType](mem memory.Allocator, dt arrow.DataType, vals []T, seen []bool) arrow.Array {
	n := len(seen)
	buf, out := allocFixed[T](mem, n)
	copy(out, vals[:n])
	var valid *memory.Buffer
	for i, ok := range seen {
		if !ok {
			if valid == nil {
				valid = newValidity(mem, n)
			}
			valid.Bytes()[i/8] &^= 1 << (i % 8)
		}
	}
	return fixedArray(dt, n, valid, buf)
}

// decimalAcc is sum and avg of decimals as Spark computes them: exact
// (a 256-bit sum never overflows here), the sum NULL when it does not fit
// its type, the average rounded half up to its scale.
type decimalAcc struct {
	avg     bool
	in, typ *arrow.Decimal128Type
	sums    []decimal256.Num
	counts  []int64
}

func (a *decimalAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	arr := args[0]
	a.sums, a.counts = growTo(a.sums, groups), growTo(a.counts, groups)
	d := arr.(*array.Decimal128)
	nulls := arr.NullN() > 0
	for i, g := range gids {
		if g >= 0 && (!nulls || d.IsValid(i)) {
			a.sums[g] = a.sums[g].Add(decimal256.FromDecimal128(d.Value(i)))
			a.counts[g]++
		}
	}
	return nil
}

func (a *decimalAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.sums, a.counts = growTo(a.sums, groups), growTo(a.counts, groups)
	b := array.NewDecimal128Builder(mem, a.typ)
	defer b.Release()
	shift := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.typ.Scale-a.in.Scale)), nil)
	for g := 0; g < groups; g++ {
		if a.counts[g] == 0 {
			b.AppendNull()
			continue
		}
		v := a.sums[g].BigInt()
		if a.avg {
			// sum·10^(scale change) / count, rounded half up (away from 0).
			v.Mul(v, shift)
			n := big.NewInt(a.counts[g])
			q, r := new(big.Int).QuoRem(v, n, new(big.Int))
			if r.Abs(r).Mul(r, big.NewInt(2)).Cmp(n) >= 0 {
				if v.Sign() < 0 {
					q.Sub(q, big.NewInt(1))
				} else {
					q.Add(q, big.NewInt(1))
				}
			}
			v = q
		}
		if n := decimal256.FromBigInt(v); !n.FitsInPrecision(a.typ.Precision) {
			b.AppendNull() // overflow: NULL, as with spark.sql.ansi.enabled=false
			continue
		}
		b.Append(decimal128.FromBigInt(v))
	}
	return b.NewArray(), nil
}

func (a *decimalAcc) release() {}

type avgAcc struct {
	sums   []float64
	counts []int64
}

func (a *avgAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	arr := args[0]
	a.sums, a.counts = growTo(a.sums, groups), growTo(a.counts, groups)
	v := fixedValues[float64](arr)
	s, c := a.sums, a.counts
	nulls := arr.NullN() > 0
	for i, g := range gids {
		if g >= 0 && (!nulls || arr.IsValid(i)) {
			s[g] += v[i]
			c[g]++
		}
	}
	return nil
}

func (a *avgAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.sums, a.counts = growTo(a.sums, groups), growTo(a.counts, groups)
	seen := make([]bool, groups)
	avg := make([]float64, groups)
	for g := 0; g < groups; g++ {
		if a.counts[g] > 0 {
			seen[g] = true
			avg[g] = a.sums[g] / float64(a.counts[g])
		}
	}
	return valuesSeen(mem, tDouble, avg, seen), nil
}

func (a *avgAcc) release() {}

type minMaxAcc[T int8 | int16 | int32 | int64 | float32 | float64] struct {
	min  bool
	typ  arrow.DataType
	vals []T
	seen []bool
}

func (a *minMaxAcc[T]) update(gids []int32, groups int, args []arrow.Array, n int) error {
	arr := args[0]
	a.vals, a.seen = growTo(a.vals, groups), growTo(a.seen, groups)
	v := fixedValues[T](arr)
	nulls := arr.NullN() > 0
	for i, g := range gids {
		if g < 0 || nulls && arr.IsNull(i) {
			continue
		}
		x := v[i]
		switch {
		case !a.seen[g]:
			a.vals[g], a.seen[g] = x, true
		case a.min && cmpOrdered(x, a.vals[g]) < 0, !a.min && cmpOrdered(x, a.vals[g]) > 0:
			a.vals[g] = x
		}
	}
	return nil
}

func (a *minMaxAcc[T]) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.vals, a.seen = growTo(a.vals, groups), growTo(a.seen, groups)
	return valuesSeen(mem, a.typ, a.vals, a.seen), nil
}

func (a *minMaxAcc[T]) release() {}

// rowsAcc keeps references to input rows: min/max of strings, first, last,
// collect_list and collect_set pick rows and take them at the end.
type rowsAcc struct {
	mode        string
	typ         arrow.DataType
	ignoreNulls bool
	chunks      []arrow.Array
	base        int64
	pick        []int64   // first/last/min/max: the row, -1 none
	lists       [][]int64 // collect_*
	setSeen     map[string]struct{}
	cmp         []func(i, j int) int
}

func (a *rowsAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	arr := args[0]
	arr.Retain()
	a.chunks = append(a.chunks, arr)
	base := a.base
	a.base += int64(arr.Len())
	switch a.mode {
	case "collect_list", "collect_set":
		a.lists = growTo(a.lists, groups)
		var enc func([]byte, int) []byte
		if a.mode == "collect_set" {
			if a.setSeen == nil {
				a.setSeen = map[string]struct{}{}
			}
			enc = keyEncoder(arr)
		}
		var buf []byte
		for i, g := range gids {
			if g < 0 || arr.IsNull(i) {
				continue
			}
			if enc != nil {
				buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(g))
				buf = enc(buf, i)
				if _, dup := a.setSeen[string(buf)]; dup {
					continue
				}
				a.setSeen[string(buf)] = struct{}{}
			}
			a.lists[g] = append(a.lists[g], base+int64(i))
		}
		return nil
	}
	had := len(a.pick)
	a.pick = growTo(a.pick, groups)
	for g := had; g < groups; g++ {
		a.pick[g] = -1
	}
	for i, g := range gids {
		if g < 0 {
			continue
		}
		null := isNullAt(arr, i)
		switch a.mode {
		case "first":
			if a.pick[g] < 0 && (!null || !a.ignoreNulls) {
				a.pick[g] = base + int64(i)
			}
		case "last":
			if !null || !a.ignoreNulls {
				a.pick[g] = base + int64(i)
			}
		default: // min, max of strings
			if null {
				continue
			}
			if a.pick[g] < 0 || a.better(arr, i, a.pick[g]) {
				a.pick[g] = base + int64(i)
			}
		}
	}
	return nil
}

// better says whether row i of arr beats the picked global row p for min
// (or max).
func (a *rowsAcc) better(arr arrow.Array, i int, p int64) bool {
	var chunk arrow.Array
	off := p
	for _, c := range a.chunks {
		if off < int64(c.Len()) {
			chunk = c
			break
		}
		off -= int64(c.Len())
	}
	c := comparer(arr, chunk)(i, int(off))
	if a.mode == "min" {
		return c < 0
	}
	return c > 0
}

func (a *rowsAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	vt := a.typ
	if lt, ok := a.typ.(*arrow.ListType); ok && (a.mode == "collect_list" || a.mode == "collect_set") {
		vt = lt.Elem()
	}
	all, err := concatArrays(mem, vt, a.chunks)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	switch a.mode {
	case "collect_list", "collect_set":
		a.lists = growTo(a.lists, groups)
		offsets := make([]int32, groups+1)
		var idx []int64
		for g, l := range a.lists {
			idx = append(idx, l...)
			offsets[g+1] = int32(len(idx))
		}
		vals, err := dataframe.Take(mem, all, idx)
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		ob, ov := allocFixed[int32](mem, groups+1)
		copy(ov, offsets)
		d := array.NewData(a.typ, groups, []*memory.Buffer{nil, ob}, []arrow.ArrayData{vals.Data()}, 0, 0)
		ob.Release()
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	n := len(a.pick)
	a.pick = growTo(a.pick, groups)
	for g := n; g < groups; g++ {
		a.pick[g] = -1
	}
	idx := make([]int64, groups)
	valid := make([]bool, groups)
	for g, p := range a.pick {
		if p >= 0 {
			idx[g], valid[g] = p, true
		}
	}
	return takeNullable(mem, all, idx, valid)
}

func (a *rowsAcc) release() {
	for _, c := range a.chunks {
		c.Release()
	}
	a.chunks = nil
}

// distinctAcc passes each (group, value) pair to inner only once; with
// several arguments (count(DISTINCT a, b)) the value is their tuple, and a
// tuple with a NULL is left out.
type distinctAcc struct {
	inner accumulator
	seen  map[string]struct{}
}

func (a *distinctAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	encs := make([]func([]byte, int) []byte, len(args))
	for k, arr := range args {
		encs[k] = keyEncoder(arr)
	}
	own := make([]int32, len(gids))
	var buf []byte
rows:
	for i, g := range gids {
		own[i] = -1
		if g < 0 {
			continue
		}
		buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(g))
		for k, arr := range args {
			if isNullAt(arr, i) {
				continue rows
			}
			buf = encs[k](buf, i)
		}
		if _, dup := a.seen[string(buf)]; dup {
			continue
		}
		a.seen[string(buf)] = struct{}{}
		own[i] = g
	}
	return a.inner.update(own, groups, args, n)
}

func (a *distinctAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	return a.inner.result(mem, groups)
}

func (a *distinctAcc) release() { a.inner.release() }

// aggOp is the hash aggregation: it reads its whole input, then yields one
// row per group (one row in all without GROUP BY, even over no input).
type aggOp struct {
	in     op
	keys   []*cexpr
	aggs   []*aggCall
	args   [][]*cexpr // per aggregate, its compiled arguments
	schema *arrow.Schema
	e      *env
	done   bool
	// join and buildKeys, when set, say that the input is an inner join
	// and the keys are its build columns buildKeys (see buildKeyColumns).
	join      *joinOp
	buildKeys []int
	byBuild   *buildGroups
}

// buildGroups groups an aggregation over a join by build row: the build
// rows' keys are grouped once, and a joined row's group is its build row's.
// Groups are numbered in order of first appearance in the joined rows, as
// the grouper numbers them.
type buildGroups struct {
	g      *grouper
	ofRow  []int32 // build row → build group
	remap  []int32 // build group → output group, -1 before its first row
	order  []int64 // output group → build group
	groups int32
	buf    []int32 // ids' result, reused batch to batch
}

func newBuildGroups(e *env, build arrow.Record, cols []int) (*buildGroups, error) {
	keys := make([]arrow.Array, len(cols))
	types := make([]arrow.DataType, len(cols))
	for i, c := range cols {
		keys[i] = build.Column(c)
		types[i] = keys[i].DataType()
	}
	b := &buildGroups{g: newGrouper(e.mem, types)}
	var err error
	if b.ofRow, err = b.g.ids(keys, int(build.NumRows())); err != nil {
		b.g.release()
		return nil, err
	}
	b.remap = make([]int32, b.g.n)
	for i := range b.remap {
		b.remap[i] = -1
	}
	return b, nil
}

// ids returns the output group of each joined row, given its build row.
func (b *buildGroups) ids(rows []int64) []int32 {
	if cap(b.buf) < len(rows) {
		b.buf = make([]int32, len(rows))
	}
	gids := b.buf[:len(rows)]
	for i, r := range rows {
		bg := b.ofRow[r]
		id := b.remap[bg]
		if id < 0 {
			id = b.groups
			b.groups++
			b.remap[bg] = id
			b.order = append(b.order, int64(bg))
		}
		gids[i] = id
	}
	return gids
}

// keyArrays are the key values of the output groups.
func (b *buildGroups) keyArrays() ([]arrow.Array, error) {
	all, err := b.g.keyArrays()
	if err != nil {
		return nil, err
	}
	defer releaseAll(all)
	out := make([]arrow.Array, 0, len(all))
	for _, a := range all {
		t, err := dataframe.Take(b.g.mem, a, b.order)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (o *aggOp) next() (arrow.Record, error) {
	if o.done {
		return nil, nil
	}
	o.done = true
	types := make([]arrow.DataType, len(o.keys))
	for i, k := range o.keys {
		types[i] = k.typ
	}
	var g *grouper
	if len(o.keys) > 0 {
		g = newGrouper(o.e.mem, types)
		defer g.release()
	}
	accs := make([]accumulator, len(o.aggs))
	for i, c := range o.aggs {
		accs[i] = c.accumulator()
		defer accs[i].release()
	}
	groups := 0
	if g == nil {
		groups = 1
	}
	var zeros []int32
	for {
		rec, err := o.in.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		err = func() error {
			defer rec.Release()
			n := int(rec.NumRows())
			var gids []int32
			if o.join != nil {
				if o.byBuild == nil {
					if o.byBuild, err = newBuildGroups(o.e, o.join.build, o.buildKeys); err != nil {
						return err
					}
				}
				gids = o.byBuild.ids(o.join.rows)
				groups = int(o.byBuild.groups)
			} else if g != nil {
				keys := make([]arrow.Array, len(o.keys))
				defer func() {
					for _, k := range keys {
						if k != nil {
							k.Release()
						}
					}
				}()
				for i, k := range o.keys {
					if keys[i], err = k.eval(o.e.ec, rec); err != nil {
						return err
					}
				}
				if gids, err = g.ids(keys, n); err != nil {
					return err
				}
				groups = int(g.n)
			} else {
				zeros = growTo(zeros, n)
				gids = zeros[:n]
			}
			for i, c := range o.aggs {
				args, err := evalAll(o.e, o.args[i], rec)
				if err != nil {
					return err
				}
				g := gids
				if c.filtered {
					g = filteredGids(gids, args[len(args)-1])
					args[len(args)-1].Release()
					args = args[:len(args)-1]
				}
				err = accs[i].update(g, groups, args, n)
				releaseAll(args)
				if err != nil {
					return fmt.Errorf("%s: %w", c.name, err)
				}
			}
			return nil
		}()
		if err != nil {
			return nil, err
		}
	}
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	switch {
	case o.join != nil && o.byBuild != nil:
		ks, err := o.byBuild.keyArrays()
		if err != nil {
			return nil, err
		}
		cols = append(cols, ks...)
	case g != nil:
		ks, err := g.keyArrays()
		if err != nil {
			return nil, err
		}
		cols = append(cols, ks...)
	}
	for _, acc := range accs {
		a, err := acc.result(o.e.mem, groups)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	if groups == 0 {
		return nil, nil
	}
	return array.NewRecord(o.schema, cols, int64(groups)), nil
}

func (o *aggOp) close() {
	if o.byBuild != nil {
		o.byBuild.g.release()
		o.byBuild = nil
	}
	o.in.close()
}

// filteredGids is gids with -1 (skip) where the FILTER condition cond is
// not true.
func filteredGids(gids []int32, cond arrow.Array) []int32 {
	b := cond.(*array.Boolean)
	out := make([]int32, len(gids))
	for i, g := range gids {
		if b.IsValid(i) && b.Value(i) {
			out[i] = g
		} else {
			out[i] = -1
		}
	}
	return out
}

// singleArg is a call's only argument, or nil.
func singleArg(x *Call) Expr {
	if len(x.Args) != 1 {
		return nil
	}
	return x.Args[0]
}
