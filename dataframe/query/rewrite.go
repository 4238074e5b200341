package query

import (
	"context"
)

// The rewrites reshape an analysed plan without changing its answer:
//
//   - pushFilters moves each WHERE/HAVING conjunct as far down as it goes:
//     through projections (re-written over their input), sorts, distincts,
//     generators and unions, into one side of a join (or into its
//     condition, where it may become a hash key), below an aggregate when
//     it reads only group keys.
//   - prune drops the columns nothing above uses: scans read fewer, joins
//     copy fewer, projections compute fewer.
//   - pushScans asks a ScanResolver to read each table with the query's
//     columns, filters and limit (scan.Request) and keeps above the scan
//     whatever the table did not apply exactly.
//
// A node the rewrites do not know is a barrier: nothing moves through it
// and every column of its inputs is kept.
func rewrite(ctx context.Context, n lnode, r Resolver) (lnode, error) {
	n, err := unnestSubqueries(ctx, n, r)
	if err != nil {
		return nil, err
	}
	n = pushFilters(n, nil)
	all := make([]bool, len(n.fields()))
	for i := range all {
		all[i] = true
	}
	n, _ = prune(n, all)
	n = rewriteTopOne(n)
	if sr, ok := r.(ScanResolver); ok {
		return pushScans(ctx, n, sr, nil)
	}
	return n, nil
}

// filterAbove wraps n in a filter of preds (none: n).
func filterAbove(n lnode, preds []rex) lnode {
	var p rex
	for _, x := range preds {
		p = andRex(p, x)
	}
	if p == nil {
		return n
	}
	if f, ok := n.(*lFilter); ok {
		return &lFilter{in: f.in, pred: andRex(f.pred, p)}
	}
	return &lFilter{in: n, pred: p}
}

func colCount(e rex) int {
	k := 0
	walkRex(e, func(x rex) bool {
		if _, ok := x.(*rCol); ok {
			k++
		}
		return true
	})
	return k
}

// readsOnly says whether every column e reads is in [lo, hi).
func readsOnly(e rex, lo, hi int) bool {
	ok := true
	walkRex(e, func(x rex) bool {
		if c, isCol := x.(*rCol); isCol && (c.idx < lo || c.idx >= hi) {
			ok = false
		}
		return ok
	})
	return ok
}

// pushFilters returns n with preds (conjuncts over n's output) applied,
// each as low in the plan as it can go.
func pushFilters(n lnode, preds []rex) lnode {
	var movable, stay []rex
	for _, p := range preds {
		if deterministic(p) {
			movable = append(movable, p)
		} else {
			stay = append(stay, p)
		}
	}
	switch x := n.(type) {
	case *lFilter:
		for _, c := range rexConjuncts(x.pred) {
			if deterministic(c) {
				movable = append(movable, c)
			} else {
				stay = append(stay, c)
			}
		}
		if len(stay) > 0 {
			// A non-deterministic filter stays where it was, with what
			// was above it.
			return filterAbove(pushFilters(x.in, nil), append(stay, movable...))
		}
		return pushFilters(x.in, movable)
	case *lProject:
		var down []rex
		for _, p := range movable {
			q := substitute(p, x.exprs)
			if deterministic(q) {
				down = append(down, q)
			} else {
				stay = append(stay, p)
			}
		}
		c := *x
		c.in = pushFilters(x.in, down)
		return filterAbove(&c, stay)
	case *lSort:
		c := *x
		c.in = pushFilters(x.in, movable)
		return filterAbove(&c, stay)
	case *lDistinct:
		return filterAbove(&lDistinct{in: pushFilters(x.in, movable)}, stay)
	case *lAggregate:
		var down []rex
		for _, p := range movable {
			if len(x.keys) > 0 && colCount(p) > 0 && readsOnly(p, 0, len(x.keys)) {
				down = append(down, substitute(p, x.keys))
			} else {
				stay = append(stay, p)
			}
		}
		c := *x
		c.in = pushFilters(x.in, down)
		return filterAbove(&c, stay)
	case *lGenerate:
		nin := len(x.in.fields())
		var down []rex
		for _, p := range movable {
			if readsOnly(p, 0, nin) {
				down = append(down, p)
			} else {
				stay = append(stay, p)
			}
		}
		c := *x
		c.in = pushFilters(x.in, down)
		return filterAbove(&c, stay)
	case *lUnion:
		c := *x
		c.ins = make([]lnode, len(x.ins))
		for i, in := range x.ins {
			c.ins[i] = pushFilters(in, movable)
		}
		return filterAbove(&c, stay)
	case *lSetOp:
		c := *x
		c.l = pushFilters(x.l, movable)
		c.r = pushFilters(x.r, nil)
		return filterAbove(&c, stay)
	case *lJoin:
		return pushIntoJoin(x, movable, stay)
	case *lWindow:
		return pushThroughWindow(x, movable, stay)
	case *lLimit:
		c := *x
		c.in = pushFilters(x.in, nil)
		return filterAbove(&c, append(stay, movable...))
	}
	// A scan, inline rows, or a node the rewrites do not know: the filter
	// stays right above it, its inputs are rewritten on their own.
	ins := n.inputs()
	if len(ins) > 0 {
		nins := make([]lnode, len(ins))
		for i, in := range ins {
			nins[i] = pushFilters(in, nil)
		}
		n = n.withInputs(nins)
	}
	return filterAbove(n, append(stay, movable...))
}

// pushIntoJoin sends each conjunct over a join's output to the side it
// reads, where the join kind allows (never to the side a LEFT, RIGHT or
// FULL join pads with NULLs); one reading both sides of an inner join joins
// its condition.
func pushIntoJoin(x *lJoin, preds, stay []rex) lnode {
	c := *x
	nl := len(x.l.fields())
	nr := len(x.r.fields())
	var left, right []rex
	for _, p := range preds {
		switch {
		case readsOnly(p, 0, nl) && colCount(p) > 0 && (x.kind == InnerJoin || x.kind == CrossJoin || x.kind == LeftJoin || x.kind == SemiJoin || x.kind == AntiJoin):
			left = append(left, p)
		case readsOnly(p, nl, nl+nr) && colCount(p) > 0 && (x.kind == InnerJoin || x.kind == CrossJoin || x.kind == RightJoin):
			right = append(right, shiftColumns(p, -nl))
		case x.kind == InnerJoin || x.kind == CrossJoin:
			lk, rk, rest := splitJoinCondition(p, nl)
			c.lkeys = append(append([]rex(nil), c.lkeys...), lk...)
			c.rkeys = append(append([]rex(nil), c.rkeys...), rk...)
			c.cond = andRex(c.cond, rest)
			if len(c.lkeys) > 0 {
				c.kind = InnerJoin
			}
		default:
			stay = append(stay, p)
		}
	}
	// The join's own condition: a conjunct over one side of an inner join
	// (or over the right side of a LEFT or semi join: it only decides
	// which right rows pair) filters that side.
	if c.cond != nil {
		var rest rex
		for _, p := range rexConjuncts(c.cond) {
			switch {
			case !deterministic(p) || colCount(p) == 0:
				rest = andRex(rest, p)
			case readsOnly(p, 0, nl) && (c.kind == InnerJoin || c.kind == CrossJoin || c.kind == RightJoin):
				left = append(left, p)
			case readsOnly(p, nl, nl+nr) && (c.kind == InnerJoin || c.kind == CrossJoin || c.kind == LeftJoin || c.kind == SemiJoin || c.kind == AntiJoin):
				right = append(right, shiftColumns(p, -nl))
			default:
				rest = andRex(rest, p)
			}
		}
		c.cond = rest
	}
	c.l = pushFilters(x.l, left)
	c.r = pushFilters(x.r, right)
	return filterAbove(&c, stay)
}

// prune returns n narrowed to (at least) the output columns need marks,
// and where each old output column is now (-1: dropped).
func prune(n lnode, need []bool) (lnode, []int) {
	switch x := n.(type) {
	case *lScan:
		c := *x
		base := x.cols
		if base == nil {
			base = make([]int, len(x.out))
			for i := range base {
				base[i] = i
			}
		}
		var cols []int
		m := make([]int, len(base))
		for i := range base {
			m[i] = -1
			if need[i] {
				m[i] = len(cols)
				cols = append(cols, base[i])
			}
		}
		if len(cols) == 0 && len(base) > 0 {
			// A scan keeps one column: its batches carry the row count.
			m[0], cols = 0, []int{base[0]}
		}
		if len(cols) == len(x.out) && x.cols == nil {
			c.cols = nil
		} else {
			c.cols = cols
		}
		return &c, m
	case *lFilter:
		cneed := append([]bool(nil), need...)
		columnsOf(x.pred, cneed)
		in, m := prune(x.in, cneed)
		return &lFilter{in: in, pred: rebind(x.pred, m)}, m
	case *lProject:
		var exprs []rex
		var names []string
		m := make([]int, len(x.exprs))
		cneed := make([]bool, len(x.in.fields()))
		for i, e := range x.exprs {
			m[i] = -1
			if need[i] {
				m[i] = len(exprs)
				exprs = append(exprs, e)
				names = append(names, x.names[i])
				columnsOf(e, cneed)
			}
		}
		in, cm := prune(x.in, cneed)
		for i := range exprs {
			exprs[i] = rebind(exprs[i], cm)
		}
		if isIdentity(in, exprs, names) {
			return in, m
		}
		return &lProject{in: in, exprs: exprs, names: names}, m
	case *lAggregate:
		nk := len(x.keys)
		m := make([]int, nk+len(x.aggs))
		cneed := make([]bool, len(x.in.fields()))
		for i, k := range x.keys {
			m[i] = i
			columnsOf(k, cneed)
		}
		var aggs []*aggCall
		for i, a := range x.aggs {
			m[nk+i] = -1
			if need[nk+i] {
				m[nk+i] = nk + len(aggs)
				aggs = append(aggs, a)
				for _, arg := range a.args {
					columnsOf(arg, cneed)
				}
			}
		}
		in, cm := prune(x.in, cneed)
		c := &lAggregate{in: in, names: x.names}
		for _, k := range x.keys {
			c.keys = append(c.keys, rebind(k, cm))
		}
		for _, a := range aggs {
			b := *a
			b.args = make([]rex, len(a.args))
			for i, arg := range a.args {
				b.args[i] = rebind(arg, cm)
			}
			c.aggs = append(c.aggs, &b)
		}
		return c, m
	case *lJoin:
		return pruneJoin(x, need)
	case *lWindow:
		return pruneWindow(x, need)
	case *lExpand:
		return pruneExpand(x, need)
	case *lGenerate:
		nin := len(x.in.fields())
		cneed := append([]bool(nil), need[:nin]...)
		columnsOf(x.list, cneed)
		in, cm := prune(x.in, cneed)
		kept := len(in.fields())
		m := append([]int(nil), cm...)
		for i := range x.out {
			m = append(m, kept+i)
		}
		c := *x
		c.in, c.list = in, rebind(x.list, cm)
		return &c, m
	case *lSort:
		cneed := append([]bool(nil), need...)
		for _, k := range x.keys {
			cneed[k.col] = true
		}
		in, m := prune(x.in, cneed)
		keys := make([]sortSpec, len(x.keys))
		for i, k := range x.keys {
			keys[i] = k
			keys[i].col = m[k.col]
		}
		return &lSort{in: in, keys: keys}, m
	case *lLimit:
		in, m := prune(x.in, need)
		c := *x
		c.in = in
		return &c, m
	case *lUnion:
		var ins []lnode
		for _, in := range x.ins {
			p, m := prune(in, need)
			ins = append(ins, exactly(p, m, need))
		}
		m, names := compact(need, x.names)
		return &lUnion{ins: ins, names: names}, m
	}
	// Every column of every input: a distinct, a set operation, inline
	// rows, or a node the rewrites do not know.
	ins := n.inputs()
	if len(ins) > 0 {
		nins := make([]lnode, len(ins))
		for i, in := range ins {
			all := make([]bool, len(in.fields()))
			for k := range all {
				all[k] = true
			}
			p, m := prune(in, all)
			nins[i] = exactly(p, m, all)
		}
		n = n.withInputs(nins)
	}
	m := make([]int, len(n.fields()))
	for i := range m {
		m[i] = i
	}
	return n, m
}

// compact maps the marked columns to 0, 1, … and lists their names.
func compact(need []bool, names []string) ([]int, []string) {
	m := make([]int, len(need))
	var out []string
	for i, nd := range need {
		m[i] = -1
		if nd {
			m[i] = len(out)
			out = append(out, names[i])
		}
	}
	return m, out
}

// exactly projects a pruned node (old column i now at m[i]) to exactly the
// columns need marks, in order, when it has others.
func exactly(n lnode, m []int, need []bool) lnode {
	fs := n.fields()
	var exprs []rex
	var names []string
	ident := true
	for i, nd := range need {
		if !nd {
			continue
		}
		k := m[i]
		if k != len(exprs) {
			ident = false
		}
		exprs = append(exprs, &rCol{idx: k, t: fs[k].typ, name: fs[k].name})
		names = append(names, fs[k].name)
	}
	if ident && len(exprs) == len(fs) {
		return n
	}
	return &lProject{in: n, exprs: exprs, names: names}
}

// pruneJoin keeps of each side the columns needed above, by the keys and
// by the condition; the condition is re-bound to the kept pairs.
func pruneJoin(x *lJoin, need []bool) (lnode, []int) {
	lf, rf := x.l.fields(), x.r.fields()
	nl, nr := len(lf), len(rf)
	lcols := keepOrAll(x.lkeep, nl)
	rcols := keepOrAll(x.rkeep, nr)
	semi := x.kind == SemiJoin || x.kind == AntiJoin
	// Output column i (over the current keep lists) → side column.
	lout := make([]bool, nl) // needed in the output
	rout := make([]bool, nr)
	for i, c := range lcols {
		lout[c] = need[i]
	}
	if !semi {
		for i, c := range rcols {
			rout[c] = need[len(lcols)+i]
		}
	}
	// The condition is over the kept pairs: mark the side columns it reads.
	lcond, rcond := make([]bool, nl), make([]bool, nr)
	if x.cond != nil {
		walkRex(x.cond, func(e rex) bool {
			if c, ok := e.(*rCol); ok {
				if c.idx < len(lcols) {
					lcond[lcols[c.idx]] = true
				} else {
					rcond[rcols[c.idx-len(lcols)]] = true
				}
			}
			return true
		})
	}
	lneed, rneed := make([]bool, nl), make([]bool, nr)
	for i := range lneed {
		lneed[i] = lout[i] || lcond[i]
	}
	for i := range rneed {
		rneed[i] = rout[i] || rcond[i]
	}
	for _, k := range x.lkeys {
		columnsOf(k, lneed)
	}
	for _, k := range x.rkeys {
		columnsOf(k, rneed)
	}
	l, lm := prune(x.l, lneed)
	r, rm := prune(x.r, rneed)
	c := &lJoin{l: l, r: r, kind: x.kind}
	for _, k := range x.lkeys {
		c.lkeys = append(c.lkeys, rebind(k, lm))
	}
	for _, k := range x.rkeys {
		c.rkeys = append(c.rkeys, rebind(k, rm))
	}
	// The new keep lists (empty, not nil, when a side gives no column):
	// the side columns needed in the output or by the condition, as the
	// pruned sides number them.
	lkeep, rkeep := []int{}, []int{}
	lpos := make([]int, nl) // side column → position in the pairs
	rpos := make([]int, nr)
	for i := 0; i < nl; i++ {
		lpos[i] = -1
		if lout[i] || lcond[i] {
			lpos[i] = len(lkeep)
			lkeep = append(lkeep, lm[i])
		}
	}
	for i := 0; i < nr; i++ {
		rpos[i] = -1
		if rout[i] || rcond[i] {
			rpos[i] = len(lkeep) + len(rkeep)
			rkeep = append(rkeep, rm[i])
		}
	}
	c.lkeep, c.rkeep = lkeep, rkeep
	if x.cond != nil {
		pm := make([]int, len(lcols)+len(rcols))
		for i, col := range lcols {
			pm[i] = lpos[col]
		}
		for i, col := range rcols {
			pm[len(lcols)+i] = rpos[col]
		}
		c.cond = rebind(x.cond, pm)
	}
	// Where each old output column is now.
	m := make([]int, 0, len(need))
	for _, col := range lcols {
		m = append(m, lpos[col])
	}
	if !semi {
		for _, col := range rcols {
			m = append(m, rpos[col])
		}
	}
	return c, m
}

// isIdentity says whether a projection of in gives in's columns unchanged,
// under the same names.
func isIdentity(in lnode, exprs []rex, names []string) bool {
	fs := in.fields()
	if len(fs) != len(exprs) {
		return false
	}
	for i, e := range exprs {
		c, ok := e.(*rCol)
		if !ok || c.idx != i || fs[i].name != names[i] {
			return false
		}
	}
	return true
}
