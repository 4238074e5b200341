package query

import (
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// The analysis of window functions, as Spark's Analyzer does it: named
// windows substituted (WindowsSubstitution), the function's frame decided
// (ResolveWindowFrame: its own, the one written, or the default), ordering
// required where the function needs it (ResolveWindowOrder), the frame's
// bounds checked and cast to the ORDER BY key's type (WindowFrameCoercion),
// and the column named `f(…) OVER (PARTITION BY … ORDER BY … frame)`.

// winCollector gathers the window function calls of one SELECT block.
type winCollector struct {
	named map[string]*WindowSpec // the WINDOW clause, by lower-case name
	funcs []*winEntry
	keys  map[string]int
}

// winEntry is one window function call and its window.
type winEntry struct {
	part  []rex
	order []winOrder
	f     *winFunc
}

func newWinCollector(defs []NamedWindow) (*winCollector, error) {
	wc := &winCollector{named: map[string]*WindowSpec{}, keys: map[string]int{}}
	for _, d := range defs {
		k := strings.ToLower(d.Name)
		if _, dup := wc.named[k]; dup {
			return nil, errorf(d.Pos, "the definition of window %s is repetitive", d.Name)
		}
		wc.named[k] = d.Spec
	}
	return wc, nil
}

// spec is w with the named window it refers to substituted.
func (wc *winCollector) spec(w *WindowSpec, depth int) (*WindowSpec, error) {
	if w.Ref == "" {
		return w, nil
	}
	base, ok := wc.named[strings.ToLower(w.Ref)]
	if !ok {
		return nil, errorf(w.Pos, "window specification %s is not defined in the WINDOW clause", w.Ref)
	}
	if depth > len(wc.named) {
		return nil, errorf(w.Pos, "window %s is defined in terms of itself", w.Ref)
	}
	base, err := wc.spec(base, depth+1)
	if err != nil {
		return nil, err
	}
	out := *base
	out.Ref, out.Pos = "", w.Pos
	if len(w.PartitionBy) > 0 {
		if len(base.PartitionBy) > 0 {
			return nil, errorf(w.Pos, "OVER (%s PARTITION BY …): window %s has a PARTITION BY already", w.Ref, w.Ref)
		}
		out.PartitionBy = w.PartitionBy
	}
	if len(w.OrderBy) > 0 {
		if len(base.OrderBy) > 0 {
			return nil, errorf(w.Pos, "OVER (%s ORDER BY …): window %s has an ORDER BY already", w.Ref, w.Ref)
		}
		out.OrderBy = w.OrderBy
	}
	if w.Frame != nil {
		if base.Frame != nil {
			return nil, errorf(w.Pos, "OVER (%s ROWS|RANGE …): window %s has a frame already", w.Ref, w.Ref)
		}
		out.Frame = w.Frame
	}
	return &out, nil
}

// winFuncs are the functions that are only window functions.
var winFuncs = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true,
	"ntile": true, "lag": true, "lead": true, "nth_value": true,
}

// windowCall resolves `f(…) OVER …`.
func (r *exprResolver) windowCall(x *Call) (rex, error) {
	wc := r.wins
	if wc == nil {
		where := r.clause
		if where == "" {
			where = "this place"
		}
		return nil, errorf(x.Pos, "%s: a window function is not allowed in %s", x, where)
	}
	name := strings.ToLower(x.Name)
	if x.Filter != nil {
		return nil, errorf(x.Pos, "%s: a window aggregate function with a FILTER predicate is not supported", x)
	}
	if x.Distinct {
		return nil, errorf(x.Pos, "%s: DISTINCT window functions are not supported", x)
	}
	spec, err := wc.spec(x.Over, 0)
	if err != nil {
		return nil, err
	}
	// Arguments and keys may use group keys and aggregates, never another
	// window function.
	in := *r
	in.wins, in.clause = nil, "a window function's argument or window"
	e := &winEntry{}
	for _, p := range spec.PartitionBy {
		k, err := in.resolve(p)
		if err != nil {
			return nil, err
		}
		e.part = append(e.part, k)
	}
	for _, o := range spec.OrderBy {
		k, err := in.resolve(o.Expr)
		if err != nil {
			return nil, err
		}
		e.order = append(e.order, winOrder{x: k, desc: o.Desc, nullsFirst: nullsFirst(o)})
	}
	f, fnSQL, err := in.windowFunction(x, name)
	if err != nil {
		return nil, err
	}
	if f.agg != nil && (f.agg.def.withinGroup || f.agg.fn == "median") && (len(spec.OrderBy) > 0 || spec.Frame != nil) {
		return nil, errorf(x.Pos, "%s: cannot specify ORDER BY or a frame for %s in its window", x, name)
	}
	if winFuncs[name] && len(e.order) == 0 {
		return nil, errorf(x.Pos, "window function %s requires the window to be ordered: add ORDER BY to its window", fnSQL)
	}
	if f.frame, err = in.frameOf(x, name, f, spec, e.order); err != nil {
		return nil, err
	}
	f.name = fnSQL + " OVER " + specSQL(e.part, e.order, f.frame)
	e.f = f
	key := winKey(e.part, e.order, f)
	i, seen := wc.keys[key]
	if !seen {
		i = len(wc.funcs)
		wc.keys[key] = i
		wc.funcs = append(wc.funcs, e)
	}
	return &rWin{i: i, t: f.typ, name: f.name}, nil
}

// windowFunction binds the function of a window call: its kind,
// arguments and type, and its SQL as Spark prints it (before OVER).
func (r *exprResolver) windowFunction(x *Call, name string) (*winFunc, string, error) {
	args := make([]rex, len(x.Args))
	if !x.Star {
		for i, a := range x.Args {
			var err error
			if args[i], err = r.resolve(a); err != nil {
				return nil, "", err
			}
		}
	}
	if x.Nulls != "" {
		switch name {
		case "lag", "lead", "nth_value", "first_value", "last_value", "first", "last", "any_value":
		default:
			return nil, "", errorf(x.Pos, "%s: the function %s does not take %s NULLS", x, name, x.Nulls)
		}
	}
	f := &winFunc{ignoreNulls: x.Nulls == "IGNORE"}
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
		if len(args) > 0 {
			return nil, "", errorf(x.Pos, "%s takes no arguments", name)
		}
		f.kind, f.typ = name, tInt
		switch name {
		case "percent_rank", "cume_dist":
			f.typ = tDouble
		}
		switch name {
		case "rank", "dense_rank", "percent_rank":
			return f, strings.ToUpper(name) + "()", nil
		}
		return f, name + "()", nil
	case "ntile":
		if len(args) > 1 {
			return nil, "", errorf(x.Pos, "ntile takes 0 or 1 argument, got %d", len(args))
		}
		f.kind, f.typ, f.n = wNtile, tInt, 1
		argSQL := "1"
		if len(args) == 1 {
			lit, ok := args[0].(*rLit)
			v, isInt := int64(0), false
			if ok {
				if n, ok := lit.v.(int32); ok {
					v, isInt = int64(n), true
				}
			}
			if !isInt {
				return nil, "", errorf(x.Args[0].Position(), "%s: the number of buckets must be a constant int, got %s", x, args[0].sql())
			}
			if v <= 0 {
				return nil, "", errorf(x.Args[0].Position(), "%s: the number of buckets must be positive, got %d", x, v)
			}
			f.n, argSQL = v, args[0].sql()
		}
		return f, "ntile(" + argSQL + ")", nil
	case "lag", "lead":
		return r.offsetFunction(x, name, args, f)
	case "nth_value":
		if len(args) != 2 {
			return nil, "", errorf(x.Pos, "nth_value takes 2 arguments, got %d", len(args))
		}
		n, err := r.constInt(x, args[1], x.Args[1])
		if err != nil {
			return nil, "", err
		}
		if n <= 0 {
			return nil, "", errorf(x.Args[1].Position(), "%s: the offset of nth_value must be greater than zero, got %d", x, n)
		}
		f.kind, f.n, f.args, f.typ = wNth, n, args[:1], plainType(args[0].Type())
		s := "nth_value(" + args[0].sql() + ", " + args[1].sql() + ")"
		if f.ignoreNulls {
			s += " ignore nulls"
		}
		return f, s, nil
	}
	def := aggregateDef(name)
	if def == nil {
		if _, ok := fn.Lookup(name); ok {
			return nil, "", errorf(x.Pos, "%s: %s is not a window or aggregate function", x, name)
		}
		return nil, "", errorf(x.Pos, "unknown function %s%s", x.Name, didYouMean(name, functionNames()))
	}
	c, err := bindAggCall(r, &preResolved{r: r, args: args, src: x.Args}, def, x)
	if err != nil {
		return nil, "", err
	}
	if c.fn == "first" || c.fn == "last" {
		// first_value, last_value, first, last, any_value: the first (last)
		// row of the frame, or its first (last) non-NULL value.
		f.kind, f.n, f.args, f.typ = wNth, 1, c.args[:1], c.typ
		f.fromEnd = c.fn == "last"
		f.ignoreNulls = c.ignoreNulls
		return f, c.name, nil
	}
	f.kind, f.agg, f.typ = wAgg, c, c.typ
	return f, c.name, nil
}

// offsetFunction binds lag(input[, offset[, default]]) and lead(…).
func (r *exprResolver) offsetFunction(x *Call, name string, args []rex, f *winFunc) (*winFunc, string, error) {
	if len(args) < 1 || len(args) > 3 {
		return nil, "", errorf(x.Pos, "%s takes 1 to 3 arguments, got %d", name, len(args))
	}
	off := int64(1)
	offSQL := "1"
	if len(args) > 1 {
		n, err := r.constInt(x, args[1], x.Args[1])
		if err != nil {
			return nil, "", err
		}
		off, offSQL = n, args[1].sql()
	}
	t := plainType(args[0].Type())
	var dflt rex = &rLit{t: t}
	dfltSQL := "NULL"
	if len(args) > 2 {
		var err error
		if dflt, err = r.implicitCast(args[2], t, x.Args[2]); err != nil {
			return nil, "", err
		}
		dfltSQL = args[2].sql()
	}
	input, err := r.implicitCast(args[0], t, x.Args[0])
	if err != nil {
		return nil, "", err
	}
	f.kind, f.typ, f.args = wOffset, t, []rex{input, dflt}
	f.n = off
	if name == "lag" {
		f.n = -off
	}
	return f, name + "(" + args[0].sql() + ", " + offSQL + ", " + dfltSQL + ")", nil
}

// constInt is a constant int argument (an offset, a position).
func (r *exprResolver) constInt(x *Call, e rex, src Expr) (int64, error) {
	if lit, ok := e.(*rLit); ok {
		if n, ok := intConst(lit.v); ok && n == int64(int32(n)) {
			return n, nil
		}
	}
	return 0, errorf(src.Position(), "%s: %s must be a constant int", x, src)
}

// frameOf decides f's frame: the function's own (ranking and offset
// functions: one written must equal it), the one written, or Spark's
// default — RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW with an
// ORDER BY, the whole partition without.
func (r *exprResolver) frameOf(x *Call, name string, f *winFunc, spec *WindowSpec, order []winOrder) (winFrame, error) {
	var own *winFrame
	switch f.kind {
	case wRowNumber, wRank, wDenseRank, wPercentRank, wNtile:
		own = &winFrame{rows: true, lo: boundOf(UnboundedPreceding), hi: boundOf(CurrentRow)}
	case wCumeDist:
		own = &winFrame{lo: boundOf(UnboundedPreceding), hi: boundOf(CurrentRow)}
	case wOffset:
		b := winBound{kind: "value", off: f.n, sql: frameOffset(f.n) + " " + Following}
		own = &winFrame{rows: true, lo: b, hi: b}
	}
	if spec.Frame == nil {
		if own != nil {
			return *own, nil
		}
		if len(order) > 0 {
			return winFrame{lo: boundOf(UnboundedPreceding), hi: boundOf(CurrentRow)}, nil
		}
		return winFrame{rows: true, lo: boundOf(UnboundedPreceding), hi: boundOf(UnboundedFollowing)}, nil
	}
	fr, err := r.writtenFrame(spec.Frame, order)
	if err != nil {
		return winFrame{}, err
	}
	if own != nil && !fr.equal(*own) {
		if f.kind == wOffset {
			return winFrame{}, errorf(spec.Frame.Pos, "cannot specify a window frame for the %s function", name)
		}
		return winFrame{}, errorf(spec.Frame.Pos, "window frame %s must match the required frame %s of %s", fr.sql(), own.sql(), name)
	}
	return fr, nil
}

// frameOffset is a ROWS offset as Spark prints it in a frame.
func frameOffset(n int64) string { return prettyLiteral(n, tLong) }

// writtenFrame checks and resolves a frame as written.
func (r *exprResolver) writtenFrame(w *WindowFrame, order []winOrder) (winFrame, error) {
	f := winFrame{rows: w.Rows}
	kind := "RANGE"
	if w.Rows {
		kind = "ROWS"
	}
	if w.Start.Kind == UnboundedFollowing {
		return f, errorf(w.Start.Pos, "%s BETWEEN …: a window frame cannot start at UNBOUNDED FOLLOWING", kind)
	}
	if w.End.Kind == UnboundedPreceding {
		return f, errorf(w.End.Pos, "%s BETWEEN …: a window frame cannot end at UNBOUNDED PRECEDING", kind)
	}
	valueBound := w.Start.Offset != nil || w.End.Offset != nil
	if !w.Rows {
		unbounded := w.Start.Kind == UnboundedPreceding && w.End.Kind == UnboundedFollowing
		if !unbounded && len(order) == 0 {
			return f, errorf(w.Pos, "a RANGE window frame cannot be used in a window without ORDER BY")
		}
		if valueBound && len(order) > 1 {
			return f, errorf(w.Pos, "a RANGE window frame with value bounds cannot be used in a window with more than one ORDER BY key")
		}
	}
	var err error
	var los, his *rLit
	if f.lo, los, err = r.frameBound(w, w.Start, order); err != nil {
		return f, err
	}
	if f.hi, his, err = r.frameBound(w, w.End, order); err != nil {
		return f, err
	}
	if los != nil && his != nil {
		// Both value bounds: the lower must not be after the upper.
		lo, hi := signedValue(los, w.Start.Kind), signedValue(his, w.End.Kind)
		if lo != nil && hi != nil && compareValues(lo, hi) > 0 {
			return f, errorf(w.Pos, "%s BETWEEN %s AND %s: the lower bound of a window frame must be less than or equal to the upper bound", kind, w.Start, w.End)
		}
	}
	return f, nil
}

// frameBound resolves one bound; lit is its offset, when it has one.
func (r *exprResolver) frameBound(w *WindowFrame, b FrameBound, order []winOrder) (winBound, *rLit, error) {
	if b.Offset == nil {
		return boundOf(b.Kind), nil, nil
	}
	kind := "RANGE"
	if w.Rows {
		kind = "ROWS"
	}
	cr := &exprResolver{a: r.a, sc: &scope{}, clause: "a window frame"}
	off, err := cr.resolve(b.Offset)
	if err != nil {
		return winBound{}, nil, err
	}
	lit, ok := off.(*rLit)
	if !ok {
		return winBound{}, nil, errorf(b.Pos, "%s %s: a frame bound must be a constant", b.Offset, b.Kind)
	}
	if lit.v == nil {
		return winBound{}, nil, errorf(b.Pos, "%s %s: a frame bound must not be NULL", b.Offset, b.Kind)
	}
	sign := int64(1)
	if b.Kind == Preceding {
		sign = -1
	}
	if w.Rows {
		n, isInt := lit.v.(int32)
		if !isInt {
			return winBound{}, nil, errorf(b.Pos, "%s %s %s: the offset of a ROWS frame must be an int, got %s", kind, b.Offset, b.Kind, typeName(lit.t))
		}
		return winBound{kind: "value", off: sign * int64(n), sql: lit.sql() + " " + b.Kind}, lit, nil
	}
	// RANGE: the bound is the ORDER BY key moved by the offset, in the
	// key's type (date ± days, numbers, date or timestamp ± an interval:
	// docs/sql.md#intervals).
	key := order[0]
	kt := plainType(key.x.Type())
	switch {
	case (isDate(kt) || isTimestamp(kt)) && isInterval(lit.t):
	case kt.ID() == arrow.DATE32:
		if lit.t.ID() != arrow.INT32 {
			return winBound{}, nil, errorf(b.Pos, "%s %s %s: the ORDER BY key is a date, so the offset must be an int, got %s", kind, b.Offset, b.Kind, typeName(lit.t))
		}
	case isNumeric(kt):
		if !isNumeric(lit.t) && !isString(lit.t) {
			return winBound{}, nil, errorf(b.Pos, "%s %s %s: the ORDER BY key is %s, the offset %s", kind, b.Offset, b.Kind, typeName(kt), typeName(lit.t))
		}
		cast, err := r.implicitCast(lit, kt, b.Offset)
		if err != nil {
			return winBound{}, nil, err
		}
		if lit, ok = cast.(*rLit); !ok || lit.v == nil {
			return winBound{}, nil, errorf(b.Pos, "%s %s %s: the offset is not a %s", kind, b.Offset, b.Kind, typeName(kt))
		}
	default:
		return winBound{}, nil, errorf(b.Pos, "%s %s %s: a RANGE frame with an offset needs a numeric or date ORDER BY key, not %s", kind, b.Offset, b.Kind, typeName(kt))
	}
	op := "+"
	if (b.Kind == Preceding) != key.desc {
		op = "-"
	}
	val, err := r.arith(op, key.x, lit, &Binary{Op: op, L: &Column{Path: []string{key.x.sql()}, Pos: b.Pos}, R: b.Offset, Pos: b.Pos})
	if err != nil {
		return winBound{}, nil, err
	}
	if isInterval(lit.t) && !arrow.TypeEqual(val.Type(), kt) {
		// date ± a day-time interval is a timestamp: Spark refuses it.
		return winBound{}, nil, errorf(b.Pos, "%s %s %s: the ORDER BY key is %s, which %s moves to %s; the key and the frame must have one type",
			kind, b.Offset, b.Kind, typeName(kt), typeName(lit.t), typeName(val.Type()))
	}
	if !isDecimal(kt) && !arrow.TypeEqual(val.Type(), kt) {
		val = &rCast{x: val, to: kt, pos: b.Pos, src: val.sql()}
	}
	return winBound{kind: "value", val: val, sql: lit.sql() + " " + b.Kind}, lit, nil
}

// signedValue is a bound's offset as a signed number (PRECEDING negative),
// for comparing the two ends of a frame.
func signedValue(l *rLit, kind string) any {
	neg := kind == Preceding
	if n, ok := intConst(l.v); ok {
		return signed(n, neg)
	}
	switch v := l.v.(type) {
	case arrow.Duration:
		return durationOffset(signed(int64(v), neg))
	case arrow.MonthInterval:
		return monthsOffset(signed(int64(v), neg))
	case float32:
		if neg {
			return -float64(v)
		}
		return float64(v)
	case float64:
		if neg {
			return -v
		}
		return v
	}
	return nil
}

func signed(v int64, neg bool) int64 {
	if neg {
		return -v
	}
	return v
}

// durationOffset and monthsOffset are interval frame offsets, which
// compare only with their own kind.
type (
	durationOffset int64
	monthsOffset   int64
)

func compareValues(a, b any) int {
	switch x := a.(type) {
	case durationOffset:
		if y, ok := b.(durationOffset); ok {
			return cmpOrdered(x, y)
		}
	case monthsOffset:
		if y, ok := b.(monthsOffset); ok {
			return cmpOrdered(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmpOrdered(x, y)
		}
		if y, ok := b.(float64); ok {
			return cmpOrdered(float64(x), y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmpOrdered(x, y)
		}
		if y, ok := b.(int64); ok {
			return cmpOrdered(x, float64(y))
		}
	}
	return 0
}

// preResolved hands bindAggCall arguments resolved already.
type preResolved struct {
	r    *exprResolver
	args []rex
	src  []Expr
}

// resolve returns the resolved argument written as e.
func (p *preResolved) resolve(e Expr) (rex, error) {
	for i, s := range p.src {
		if s == e {
			return p.args[i], nil
		}
	}
	return p.r.resolve(e)
}

// windows adds the block's window functions above n (the aggregate and
// HAVING, when grouped): one lWindow per distinct window, in order of
// first use. exprs (the select list and hidden ORDER BY keys, over n) get
// each rWin replaced by its column.
func (wc *winCollector) plan(n lnode, exprs []rex, keys []rex, grouped bool) (lnode, []rex, error) {
	if wc == nil || len(wc.funcs) == 0 {
		return n, exprs, nil
	}
	toN := func(e rex) (rex, error) {
		if !grouped {
			return e, nil
		}
		return groupedSpace(e, keys)
	}
	base := len(n.fields())
	col := make([]int, len(wc.funcs))
	type group struct {
		w   *lWindow
		idx []int
	}
	var groups []*group
	byKey := map[string]*group{}
	for i, e := range wc.funcs {
		var part []rex
		var order []winOrder
		for _, p := range e.part {
			m, err := toN(p)
			if err != nil {
				return nil, nil, err
			}
			part = append(part, m)
		}
		for _, o := range e.order {
			m, err := toN(o.x)
			if err != nil {
				return nil, nil, err
			}
			order = append(order, winOrder{x: m, desc: o.desc, nullsFirst: o.nullsFirst})
		}
		f, err := e.f.mapExprs(toN)
		if err != nil {
			return nil, nil, err
		}
		k := winKey(part, order, &winFunc{})
		g := byKey[k]
		if g == nil {
			g = &group{w: &lWindow{part: part, order: order}}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.w.funcs = append(g.w.funcs, f)
		g.idx = append(g.idx, i)
	}
	for _, g := range groups {
		g.w.in = n
		for k, i := range g.idx {
			col[i] = base + k
		}
		base += len(g.idx)
		n = g.w
	}
	out := make([]rex, len(exprs))
	for i, e := range exprs {
		m, err := mapRex(e, func(x rex) (rex, error) {
			if w, ok := x.(*rWin); ok {
				return &rCol{idx: col[w.i], t: w.t, name: w.name}, nil
			}
			return x, nil
		})
		if err != nil {
			return nil, nil, err
		}
		out[i] = m
	}
	return n, out, nil
}

// windowClause reads the WINDOW clause's named windows.
func (b *selectBlock) windowClause() error {
	var err error
	b.wins, err = newWinCollector(b.s.Windows)
	return err
}
