package query

// The rewrites of window nodes: filters on partition keys move below a
// window (they keep or drop whole partitions), unused window functions and
// columns are pruned, and the filter on a row number that keeps the first
// row of each partition becomes a per-key top-1 (topone.go).

// pushThroughWindow sends below x the predicates that read only partition
// key columns; the rest stay above it.
func pushThroughWindow(x *lWindow, preds, stay []rex) lnode {
	nin := len(x.in.fields())
	isKey := make([]bool, nin)
	for _, p := range x.part {
		if c, ok := p.(*rCol); ok {
			isKey[c.idx] = true
		}
	}
	var down []rex
	for _, p := range preds {
		ok := colCount(p) > 0 && readsOnly(p, 0, nin)
		walkRex(p, func(e rex) bool {
			if c, isCol := e.(*rCol); isCol && (c.idx >= nin || !isKey[c.idx]) {
				ok = false
			}
			return ok
		})
		if ok {
			down = append(down, p)
		} else {
			stay = append(stay, p)
		}
	}
	c := *x
	c.in = pushFilters(x.in, down)
	return filterAbove(&c, stay)
}

// pruneWindow keeps the functions needed above (none: the window goes) and
// the input columns they, the keys and the output need.
func pruneWindow(x *lWindow, need []bool) (lnode, []int) {
	nin := len(x.in.fields())
	var keep []int
	for k := range x.funcs {
		if need[nin+k] {
			keep = append(keep, k)
		}
	}
	cneed := append([]bool(nil), need[:nin]...)
	if len(keep) == 0 {
		in, cm := prune(x.in, cneed)
		m := append([]int(nil), cm...)
		for range x.funcs {
			m = append(m, -1)
		}
		return in, m
	}
	for _, p := range x.part {
		columnsOf(p, cneed)
	}
	for _, o := range x.order {
		columnsOf(o.x, cneed)
	}
	for _, k := range keep {
		for _, e := range x.funcs[k].exprs() {
			columnsOf(e, cneed)
		}
	}
	in, cm := prune(x.in, cneed)
	c := &lWindow{in: in}
	for _, p := range x.part {
		c.part = append(c.part, rebind(p, cm))
	}
	for _, o := range x.order {
		c.order = append(c.order, winOrder{x: rebind(o.x, cm), desc: o.desc, nullsFirst: o.nullsFirst})
	}
	m := append([]int(nil), cm...)
	for range x.funcs {
		m = append(m, -1)
	}
	kept := len(in.fields())
	for i, k := range keep {
		f, _ := x.funcs[k].mapExprs(func(e rex) (rex, error) { return rebind(e, cm), nil })
		c.funcs = append(c.funcs, f)
		m[nin+k] = kept + i
	}
	return c, m
}
