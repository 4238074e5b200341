package query

// Decorrelation: the subqueries that have a join's shape become joins, as
// Spark's RewritePredicateSubquery and RewriteCorrelatedScalarSubquery do
// (see docs/sql.md#subqueries):
//
//   - a WHERE or HAVING conjunct `x IN (SELECT …)`, `EXISTS (…)` or
//     `NOT EXISTS (…)` whose correlation pulls up to equalities (plus any
//     other condition) is a hash semi (anti) join keyed by the IN values
//     and the correlated columns;
//   - a correlated scalar subquery that aggregates (`SELECT count(*) FROM
//     t2 WHERE t2.k = t1.k`) is a left join with the aggregate grouped by
//     the correlated columns; an outer row without partner gets the
//     aggregate of no rows (count 0, not NULL: Spark's count-bug rule).
//
// Pulling a correlated predicate up moves it from its filter to the join
// above the subquery's plan, adding to every node in between the inner
// columns it reads (to an aggregate's grouping keys: an equality only).

// decorrelate turns the subqueries of n it can into joins below it.
func decorrelate(n lnode) lnode {
	if f, ok := n.(*lFilter); ok {
		n = semiJoins(f)
	}
	return scalarJoins(n)
}

// semiJoins turns the IN and [NOT] EXISTS conjuncts of a filter into semi
// and anti joins below it.
func semiJoins(f *lFilter) lnode {
	in := f.in
	var rest []rex
	for _, c := range rexConjuncts(f.pred) {
		if j, ok := semiJoinOf(in, c); ok {
			in = j
			continue
		}
		rest = append(rest, c)
	}
	return filterAbove(in, rest)
}

// semiJoinOf is left semi (anti) joined with the subquery of conjunct c,
// when c is one the join computes exactly and with hash keys.
func semiJoinOf(left lnode, c rex) (lnode, bool) {
	kind := SemiJoin
	if n, ok := c.(*rNot); ok {
		kind, c = AntiJoin, n.x
	}
	s, ok := c.(*rSubquery)
	if !ok || s.kind == subScalar || kind == AntiJoin && s.kind == subIn || !deterministic(s) {
		return nil, false // NOT IN keeps its NULL semantics in subquery.go
	}
	p, preds, ok := pullUp(s.plan)
	if !ok {
		return nil, false
	}
	nl := len(left.fields())
	fs := p.fields()
	j := &lJoin{l: left, r: p, kind: kind}
	for i := 0; i < s.nIn; i++ {
		j.lkeys = append(j.lkeys, s.args[i])
		j.rkeys = append(j.rkeys, &rCol{idx: i, t: fs[i].typ, name: fs[i].name})
	}
	for _, pr := range preds {
		if inner, outer, ok := splitCorrelation(pr); ok {
			j.lkeys = append(j.lkeys, bindOuter(outer, s.params()))
			j.rkeys = append(j.rkeys, inner)
			continue
		}
		j.cond = andRex(j.cond, bindOuter(shiftColumns(pr, nl), s.params()))
	}
	if len(j.lkeys) == 0 {
		return nil, false // no hash key: the subquery runs once instead
	}
	return j, true
}

// splitCorrelation splits `inner = outer` (one side reads inner columns
// only, the other outer values only) into its sides.
func splitCorrelation(c rex) (inner, outer rex, ok bool) {
	cmp, isCmp := c.(*rCmp)
	if !isCmp || cmp.op != "=" || !deterministic(cmp) {
		return nil, nil, false
	}
	onlyOuter := func(e rex) bool { return hasOuter(e) && colCount(e) == 0 }
	onlyInner := func(e rex) bool { return !hasOuter(e) && colCount(e) > 0 }
	switch {
	case onlyInner(cmp.l) && onlyOuter(cmp.r):
		return cmp.l, cmp.r, true
	case onlyOuter(cmp.l) && onlyInner(cmp.r):
		return cmp.r, cmp.l, true
	}
	return nil, nil, false
}

// bindOuter replaces each outer value of e by its expression over the
// outer query's columns.
func bindOuter(e rex, params []rex) rex {
	out, _ := mapRex(e, func(x rex) (rex, error) {
		if o, ok := x.(*rOuter); ok {
			return params[o.i], nil
		}
		return x, nil
	})
	return out
}

// planHasOuter says whether n or a plan below it reads an outer value.
func planHasOuter(n lnode) bool {
	found := false
	walkPlanRex(n, func(e rex) { found = found || hasOuter(e) })
	return found
}

// pullUp removes the correlated conjuncts of the filters of a subquery's
// plan n and returns them (preds) with the plan left (p), which reads no
// outer value: p's columns are n's, then the inner columns preds read that
// n's columns lack; preds read p's columns and outer values. ok is false
// when the correlation does not pull up (see decorrelate).
func pullUp(n lnode) (p lnode, preds []rex, ok bool) {
	switch x := n.(type) {
	case *lFilter:
		in, preds, ok := pullUp(x.in)
		if !ok {
			return nil, nil, false
		}
		var keep []rex
		for _, c := range rexConjuncts(x.pred) {
			switch {
			case !hasOuter(c):
				keep = append(keep, c)
			case !deterministic(c) || hasSubquery(c):
				return nil, nil, false
			default:
				preds = append(preds, c)
			}
		}
		return filterAbove(in, keep), preds, true
	case *lProject:
		for _, e := range x.exprs {
			if hasOuter(e) {
				return nil, nil, false
			}
		}
		in, preds, ok := pullUp(x.in)
		if !ok {
			return nil, nil, false
		}
		c := &lProject{in: in, exprs: append([]rex(nil), x.exprs...), names: append([]string(nil), x.names...)}
		return c, exposeColumns(c, in, preds), true
	case *lAggregate:
		if len(x.keys) == 0 {
			return nil, nil, false // over no rows it still gives a row: not a join
		}
		for _, e := range nodeRexes(x) {
			if hasOuter(e) {
				return nil, nil, false
			}
		}
		in, preds, ok := pullUp(x.in)
		if !ok {
			return nil, nil, false
		}
		if len(preds) == 0 {
			c := *x
			c.in = in
			return &c, nil, true
		}
		return groupByCorrelation(x, in, preds)
	case *lSort:
		in, preds, ok := pullUp(x.in)
		if !ok {
			return nil, nil, false
		}
		c := *x
		c.in = in
		return &c, preds, true
	case *lDistinct:
		in, preds, ok := pullUp(x.in)
		if !ok {
			return nil, nil, false
		}
		return &lDistinct{in: in}, preds, true
	case *lJoin:
		return pullUpJoin(x)
	}
	if planHasOuter(n) {
		return nil, nil, false
	}
	return n, nil, true
}

// exposeColumns adds to projection c the columns of its input in that
// preds read, and returns preds over c's columns.
func exposeColumns(c *lProject, in lnode, preds []rex) []rex {
	if len(preds) == 0 {
		return nil
	}
	fs := in.fields()
	m := make([]int, len(fs))
	for i := range m {
		m[i] = -1
	}
	out := make([]rex, len(preds))
	for i, pr := range preds {
		out[i], _ = mapRex(pr, func(e rex) (rex, error) {
			col, ok := e.(*rCol)
			if !ok {
				return e, nil
			}
			if m[col.idx] < 0 {
				m[col.idx] = len(c.exprs)
				c.exprs = append(c.exprs, &rCol{idx: col.idx, t: fs[col.idx].typ, name: fs[col.idx].name})
				c.names = append(c.names, fs[col.idx].name)
			}
			n := *col
			n.idx = m[col.idx]
			return &n, nil
		})
	}
	return out
}

// groupByCorrelation pulls equality correlations up through an aggregate:
// each inner side becomes a grouping key (after the aggregate's output, so
// its columns stay where they were).
func groupByCorrelation(x *lAggregate, in lnode, preds []rex) (lnode, []rex, bool) {
	keys := append([]rex(nil), x.keys...)
	names := append([]string(nil), x.names...)
	nk, na := len(x.keys), len(x.aggs)
	type pair struct {
		key   int
		outer rex
	}
	var pairs []pair
	for _, pr := range preds {
		inner, outer, ok := splitCorrelation(pr)
		if !ok {
			return nil, nil, false
		}
		k := addColumn(&keys, inner)
		if k >= len(names) {
			names = append(names, inner.sql())
		}
		pairs = append(pairs, pair{k, outer})
	}
	agg := &lAggregate{in: in, keys: keys, names: names, aggs: x.aggs}
	// Restore the aggregate's order: its keys, its aggregates, then the
	// keys added.
	fs := agg.fields()
	var order []int
	order = appendRange(order, 0, nk)
	order = appendRange(order, len(keys), len(keys)+na)
	order = appendRange(order, nk, len(keys))
	at := func(k int) int {
		if k < nk {
			return k
		}
		return nk + na + k - nk
	}
	out := make([]rex, len(pairs))
	for i, pr := range pairs {
		f := fs[pr.key]
		out[i] = &rCmp{op: "=", l: &rCol{idx: at(pr.key), t: f.typ, name: f.name}, r: pr.outer}
	}
	return pickColumns(agg, order), out, true
}

// appendRange appends lo, lo+1, …, hi-1.
func appendRange(xs []int, lo, hi int) []int {
	for i := lo; i < hi; i++ {
		xs = append(xs, i)
	}
	return xs
}

// pickColumns projects n's columns in the order given.
func pickColumns(n lnode, order []int) *lProject {
	fs := n.fields()
	p := &lProject{in: n}
	for _, i := range order {
		p.exprs = append(p.exprs, &rCol{idx: i, t: fs[i].typ, name: fs[i].name})
		p.names = append(p.names, fs[i].name)
	}
	return p
}

// pullUpJoin pulls correlations up through the sides of an inner join.
func pullUpJoin(x *lJoin) (lnode, []rex, bool) {
	if x.kind != InnerJoin && x.kind != CrossJoin || x.lkeep != nil || x.rkeep != nil {
		if planHasOuter(x) {
			return nil, nil, false
		}
		return x, nil, true
	}
	for _, e := range nodeRexes(x) {
		if hasOuter(e) {
			return nil, nil, false
		}
	}
	l, lp, ok := pullUp(x.l)
	if !ok {
		return nil, nil, false
	}
	r, rp, ok := pullUp(x.r)
	if !ok {
		return nil, nil, false
	}
	if len(lp)+len(rp) == 0 {
		return x.withInputs([]lnode{l, r}), nil, true
	}
	nl0, nl1 := len(x.l.fields()), len(l.fields())
	nr0, nr1 := len(x.r.fields()), len(r.fields())
	j := &lJoin{l: l, r: r, kind: x.kind, lkeys: x.lkeys, rkeys: x.rkeys}
	if x.cond != nil {
		j.cond, _ = mapRex(x.cond, func(e rex) (rex, error) {
			if c, ok := e.(*rCol); ok && c.idx >= nl0 {
				n := *c
				n.idx += nl1 - nl0
				return &n, nil
			}
			return e, nil
		})
	}
	// Out: l's columns, r's, then l's added columns and r's.
	var order []int
	order = appendRange(order, 0, nl0)
	order = appendRange(order, nl1, nl1+nr0)
	order = appendRange(order, nl0, nl1)
	order = appendRange(order, nl1+nr0, nl1+nr1)
	remap := func(preds []rex, at func(int) int) []rex {
		out := make([]rex, len(preds))
		for i, pr := range preds {
			out[i], _ = mapRex(pr, func(e rex) (rex, error) {
				if c, ok := e.(*rCol); ok {
					n := *c
					n.idx = at(c.idx)
					return &n, nil
				}
				return e, nil
			})
		}
		return out
	}
	preds := remap(lp, func(i int) int {
		if i < nl0 {
			return i
		}
		return nl0 + nr0 + i - nl0
	})
	preds = append(preds, remap(rp, func(i int) int {
		if i < nr0 {
			return nl0 + i
		}
		return nl0 + nr0 + nl1 - nl0 + i - nr0
	})...)
	return pickColumns(j, order), preds, true
}

// scalarJoins turns the correlated scalar subqueries of a filter,
// projection or aggregate that aggregate into left joins below it.
func scalarJoins(n lnode) lnode {
	switch n.(type) {
	case *lFilter, *lProject, *lAggregate:
	default:
		return n
	}
	in := n.inputs()[0]
	width := len(in.fields())
	var cands []*rSubquery
	seen := map[string]bool{}
	for _, e := range nodeRexes(n) {
		walkRex(e, func(x rex) bool {
			if _, ok := x.(*rLambda); ok {
				return false // its subqueries may read the lambda's variables
			}
			if sq, ok := x.(*rSubquery); ok && sq.kind == subScalar && len(sq.args) > 0 && !seen[rexKey(sq)] && scalarJoinable(sq) {
				seen[rexKey(sq)] = true
				cands = append(cands, sq)
			}
			return true
		})
	}
	changed := false
	for _, s := range cands {
		j, ok := scalarJoin(in, s)
		if !ok {
			continue
		}
		col := &rCol{idx: len(in.fields()), t: s.t, name: s.name}
		in = j
		key := rexKey(s)
		n, _ = mapNodeRexes(n, func(e rex) (rex, error) {
			return mapRex(e, func(x rex) (rex, error) {
				if sq, ok := x.(*rSubquery); ok && rexKey(sq) == key {
					return col, nil
				}
				return x, nil
			})
		})
		n = n.withInputs([]lnode{in})
		changed = true
	}
	if _, ok := n.(*lFilter); ok && changed {
		return dropColumns(n, width)
	}
	return n
}

// scalarJoinable says whether a scalar subquery has the shape scalarJoin
// rewrites: projections over an aggregate without grouping keys.
func scalarJoinable(s *rSubquery) bool {
	_, _, ok := aggregateBelowProjects(s.plan)
	return ok && deterministic(s)
}

// aggregateBelowProjects is the aggregate under a chain of projections
// (top first).
func aggregateBelowProjects(n lnode) (*lAggregate, []*lProject, bool) {
	var projs []*lProject
	for {
		switch x := n.(type) {
		case *lProject:
			projs = append(projs, x)
			n = x.in
			continue
		case *lAggregate:
			return x, projs, len(x.keys) == 0 && len(x.aggs) > 0
		}
		return nil, nil, false
	}
}

// scalarJoin is in left-joined with the aggregate of s grouped by its
// correlated columns, projected to in's columns and s's value: the
// subquery's expression over the aggregate, or, where no group matched,
// its value over no rows.
func scalarJoin(in lnode, s *rSubquery) (lnode, bool) {
	agg, projs, ok := aggregateBelowProjects(s.plan)
	if !ok {
		return nil, false
	}
	for _, p := range projs {
		for _, e := range p.exprs {
			if hasSubquery(e) {
				return nil, false
			}
		}
	}
	x, preds, ok := pullUp(agg.in)
	if !ok || len(preds) == 0 {
		return nil, false
	}
	var keys, outers []rex
	var names []string
	for _, pr := range preds {
		inner, outer, ok := splitCorrelation(pr)
		if !ok {
			return nil, false
		}
		keys, outers, names = append(keys, inner), append(outers, outer), append(names, inner.sql())
	}
	nk, na := len(keys), len(agg.aggs)
	grouped := &lAggregate{in: x, keys: keys, names: names, aggs: agg.aggs}
	// The value over the aggregate's output (its aggregates at 0…na-1).
	var value rex = &rCol{idx: 0, t: s.t}
	if len(projs) > 0 {
		value = projs[0].exprs[0]
		for _, p := range projs[1:] {
			value = substitute(value, p.exprs)
		}
	}
	gfs := grouped.fields()
	right := pickColumns(grouped, appendRange(nil, 0, len(gfs)))
	right.exprs = append(right.exprs, &rLit{v: true, t: tBool})
	right.names = append(right.names, "matched")
	nl := len(in.fields())
	j := &lJoin{l: in, r: right, kind: LeftJoin}
	for i := range keys {
		j.lkeys = append(j.lkeys, bindOuter(outers[i], s.params()))
		j.rkeys = append(j.rkeys, &rCol{idx: i, t: gfs[i].typ, name: gfs[i].name})
	}
	matched := &rCol{idx: nl + nk + na, t: tBool, name: "matched"}
	v := bindOuter(shiftColumns(value, nl+nk), s.params())
	// Over no rows: the same expression over the aggregate of an empty
	// input (count(*) 0, sum NULL), reading the same outer values.
	var empty lnode = &lAggregate{in: &lValues{out: x.fields()}, aggs: agg.aggs}
	for i := len(projs) - 1; i >= 0; i-- {
		empty = projs[i].withInputs([]lnode{empty})
	}
	if len(projs) == 0 {
		empty = &lProject{in: empty, exprs: []rex{&rCol{idx: 0, t: s.t}}, names: []string{s.name}}
	}
	var args []rex
	if planHasOuter(empty) {
		args = s.params()
	}
	emptyValue := &rSubquery{kind: subScalar, plan: empty, args: args, t: s.t, name: s.name, pos: s.pos, id: subqueryIDs.Add(1)}
	value = &rCase{conds: []rex{&rIsNull{x: matched}}, vals: []rex{emptyValue}, els: v, t: s.t}
	out := pickColumns(j, appendRange(nil, 0, nl))
	out.exprs = append(out.exprs, value)
	out.names = append(out.names, s.name)
	return out, true
}
