package query

import (
	"context"
)

// unnestSubqueries is the first rewrite: it turns the subqueries it can
// into joins (decorrelate.go), then rewrites the plans of the others, which
// run on their own (subquery.go).
func unnestSubqueries(ctx context.Context, n lnode, r Resolver) (lnode, error) {
	return rewriteSubqueryPlans(ctx, decorrelateTree(n), r)
}

// decorrelateTree decorrelates the subqueries of n, then of the plans
// below it (the joins made included).
func decorrelateTree(n lnode) lnode {
	if nodeHasSubquery(n) {
		n = decorrelate(n)
	}
	ins := n.inputs()
	if len(ins) == 0 {
		return n
	}
	nins := make([]lnode, len(ins))
	for i, in := range ins {
		nins[i] = decorrelateTree(in)
	}
	return n.withInputs(nins)
}

// rewriteSubqueryPlans rewrites the plan of every subquery left in n's
// tree.
func rewriteSubqueryPlans(ctx context.Context, n lnode, r Resolver) (lnode, error) {
	ins := n.inputs()
	if len(ins) > 0 {
		nins := make([]lnode, len(ins))
		for i, in := range ins {
			p, err := rewriteSubqueryPlans(ctx, in, r)
			if err != nil {
				return nil, err
			}
			nins[i] = p
		}
		n = n.withInputs(nins)
	}
	if !nodeHasSubquery(n) {
		return n, nil
	}
	return mapNodeRexes(n, func(e rex) (rex, error) {
		return mapRex(e, func(x rex) (rex, error) {
			s, ok := x.(*rSubquery)
			if !ok {
				return x, nil
			}
			p, err := rewrite(ctx, s.plan, r)
			if err != nil {
				return nil, err
			}
			c := *s
			c.plan = p
			return &c, nil
		})
	})
}

// nodeHasSubquery says whether an expression of n holds a subquery.
func nodeHasSubquery(n lnode) bool {
	for _, e := range nodeRexes(n) {
		if hasSubquery(e) {
			return true
		}
	}
	return false
}

func hasSubquery(e rex) bool {
	found := false
	walkRex(e, func(x rex) bool {
		if _, ok := x.(*rSubquery); ok {
			found = true
		}
		return !found
	})
	return found
}

// mapNodeRexes is n with f applied to each of its expressions.
func mapNodeRexes(n lnode, f func(rex) (rex, error)) (lnode, error) {
	var err error
	mapAll := func(xs []rex) []rex {
		out := make([]rex, len(xs))
		for i, x := range xs {
			if err == nil {
				out[i], err = f(x)
			}
		}
		return out
	}
	switch x := n.(type) {
	case *lFilter:
		c := *x
		c.pred, err = f(x.pred)
		return &c, err
	case *lProject:
		c := *x
		c.exprs = mapAll(x.exprs)
		return &c, err
	case *lAggregate:
		c := *x
		c.keys = mapAll(x.keys)
		c.aggs = make([]*aggCall, len(x.aggs))
		for i, a := range x.aggs {
			b := *a
			b.args = mapAll(a.args)
			c.aggs[i] = &b
		}
		return &c, err
	case *lJoin:
		c := *x
		c.lkeys, c.rkeys = mapAll(x.lkeys), mapAll(x.rkeys)
		if x.cond != nil {
			c.cond, err = f(x.cond)
		}
		return &c, err
	case *lGenerate:
		c := *x
		c.list, err = f(x.list)
		return &c, err
	case *lValues:
		c := *x
		c.rows = make([][]rex, len(x.rows))
		for i, row := range x.rows {
			c.rows[i] = mapAll(row)
		}
		return &c, err
	}
	if m, ok := n.(interface {
		mapRexes(func(rex) (rex, error)) (lnode, error)
	}); ok {
		return m.mapRexes(f)
	}
	return n, nil
}
