package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// itemName is the column name of an unaliased select item, as Spark names
// it: a column's last path segment, count(*) as count(1), a string
// literal's value, else the expression's text.
// itemName is the name Spark generates for a select item without an alias:
// the column or field name, a string literal's value, else the expression's
// text with the table qualifiers of its columns dropped (`sum(f.x)` is
// `sum(x)`), as Spark's pretty names drop them.
func itemName(e Expr, sc *scope) string {
	switch x := e.(type) {
	case *Column:
		return x.Path[len(x.Path)-1]
	case *Field:
		return x.Name
	case *Literal:
		if s, ok := x.Value.(string); ok {
			return s
		}
	case *Call:
		if x.Star {
			return strings.ToLower(x.Name) + "(1)"
		}
	}
	// The text is rendered with each qualified column's path shortened,
	// then the paths are put back: the AST stays as parsed.
	type saved struct {
		c    *Column
		path []string
	}
	var undo []saved
	visit(e, func(x Expr) bool {
		c, ok := x.(*Column)
		if !ok || len(c.Path) < 2 {
			return true
		}
		if _, rest, err := sc.resolve(c.Path, c.Pos); err == nil && len(rest)+1 < len(c.Path) {
			undo = append(undo, saved{c, c.Path})
			c.Path = c.Path[len(c.Path)-len(rest)-1:]
		}
		return true
	})
	name := e.String()
	for _, u := range undo {
		u.c.Path = u.path
	}
	return name
}

func (p *planner) selectBlock(s *Select, ctes *cteScope) (*node, error) {
	var in *node
	if s.From == nil {
		in = newNode("OneRow", &scope{}, nil, func(*env, []op) (op, error) { return &oneRowOp{}, nil })
	} else {
		var err error
		if in, err = p.source(s.From, ctes); err != nil {
			return nil, err
		}
	}
	if s.Where != nil {
		c := p.compiler(in.sc)
		c.where = "WHERE"
		pred, err := c.boolOperand(s.Where)
		if err != nil {
			return nil, err
		}
		in = p.filter(in, pred)
	}
	// A generator in the select list runs before the projection, as a
	// LATERAL VIEW without alias would.
	items := append([]SelectItem(nil), s.Items...)
	for i, it := range items {
		if !isGenerator(it.Expr) {
			var inner Expr
			visit(it.Expr, func(x Expr) bool {
				if isGenerator(x) && inner == nil {
					inner = x
				}
				return inner == nil
			})
			if inner != nil {
				return nil, unsupported(inner.Position(), "a generator inside an expression")
			}
			continue
		}
		gen := it.Expr.(*Call)
		name := "col"
		if it.Alias != "" {
			name = it.Alias
		}
		names := []string{name}
		if strings.HasPrefix(strings.ToLower(gen.Name), "posexplode") {
			names = []string{"pos", name}
		}
		var err error
		if in, err = p.lateral(in, gen, false, "", names, it.Pos); err != nil {
			return nil, err
		}
		items[i] = SelectItem{Expr: &Column{Path: []string{names[len(names)-1]}, Pos: it.Pos}, Alias: name, Pos: it.Pos}
		if len(names) == 2 {
			items = append(items[:i], append([]SelectItem{{Expr: &Column{Path: []string{"pos"}, Pos: it.Pos}, Alias: "pos", Pos: it.Pos}}, items[i:]...)...)
		}
		if len(items) > i+2 {
			for _, rest := range items[i+2:] {
				if isGenerator(rest.Expr) {
					return nil, unsupported(rest.Pos, "more than one generator in a select list")
				}
			}
		}
		break
	}
	// Expand stars.
	var exp []SelectItem
	for _, it := range items {
		st, ok := it.Expr.(*Star)
		if !ok {
			exp = append(exp, it)
			continue
		}
		found := false
		for _, c := range in.sc.cols {
			if c.hidden || st.Qualifier != "" && !hasQual(c.quals, st.Qualifier) {
				continue
			}
			found = true
			path := []string{c.name}
			if st.Qualifier != "" {
				path = []string{st.Qualifier, c.name}
			}
			exp = append(exp, SelectItem{Expr: &Column{Path: path, Pos: st.Pos}, Alias: c.name, Pos: st.Pos})
		}
		if !found && st.Qualifier != "" {
			return nil, errorf(st.Pos, "unknown table %s in %s.*", st.Qualifier, st.Qualifier)
		}
	}
	items = exp
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Alias
		if names[i] == "" {
			names[i] = itemName(it.Expr, in.sc)
		}
	}
	// Aggregation.
	hasAgg := len(s.GroupBy) > 0 || s.Having != nil && containsAgg(s.Having)
	for _, it := range items {
		hasAgg = hasAgg || containsAgg(it.Expr)
	}
	for _, o := range s.OrderBy {
		hasAgg = hasAgg || containsAgg(o.Expr)
	}
	pc := p.compiler(in.sc) // compiles items, ORDER BY and HAVING
	if hasAgg {
		var err error
		if in, pc, err = p.aggregate(s, items, in); err != nil {
			return nil, err
		}
	}
	if s.Having != nil {
		if !hasAgg {
			return nil, errorf(s.Having.Position(), "HAVING without GROUP BY or an aggregate")
		}
		pc.where = ""
		hc := *pc
		hc.aliases = map[string]Expr{}
		for _, it := range items {
			if it.Alias != "" {
				hc.aliases[strings.ToLower(it.Alias)] = it.Expr
			}
		}
		pred, err := hc.boolOperand(s.Having)
		if err != nil {
			return nil, err
		}
		in = p.filter(in, pred)
	}
	exprs := make([]*cexpr, len(items))
	for i, it := range items {
		ce, err := pc.compile(it.Expr)
		if err != nil {
			return nil, err
		}
		exprs[i] = ce
	}
	// ORDER BY keys: an ordinal, an output name, else an expression over
	// the input (computed as a hidden column dropped after the sort).
	sc := &scope{}
	for i, it := range items {
		var quals []string
		if col, ok := it.Expr.(*Column); ok {
			if idx, rest, err := in.sc.resolve(col.Path, col.Pos); err == nil && len(rest) == 0 {
				quals = in.sc.cols[idx].quals
			}
		}
		sc.cols = append(sc.cols, scol{quals: quals, name: names[i], typ: exprs[i].typ})
	}
	var order []OrderItem
	hidden := 0
	for _, o := range s.OrderBy {
		k, err := p.orderTarget(o.Expr, items, names, len(exprs))
		if err != nil {
			return nil, err
		}
		if k < 0 {
			if s.Distinct {
				return nil, errorf(o.Expr.Position(), "ORDER BY %s: with SELECT DISTINCT the sort keys must be in the select list", o.Expr)
			}
			ce, err := pc.compile(o.Expr)
			if err != nil {
				return nil, err
			}
			k = len(exprs)
			exprs = append(exprs, ce)
			hidden++
			sc.cols = append(sc.cols, scol{name: fmt.Sprintf("#order%d", hidden), typ: ce.typ})
		}
		order = append(order, OrderItem{Expr: &Column{Path: []string{fmt.Sprintf("#%d", k)}}, Desc: o.Desc, NullsFirst: o.NullsFirst})
	}
	proj := newNode("Project "+exprList(exprs), sc, []*node{in}, nil)
	proj.project = exprs
	proj.open = func(e *env, ins []op) (op, error) {
		return &projectOp{in: ins[0], exprs: exprs, schema: proj.schema, e: e}, nil
	}
	n := proj
	if s.Distinct {
		n = p.distinct(n)
	}
	return p.orderLimit(n, n.sc, order, s.Limit, s.Offset, nil, true)
}

// orderTarget is the output column an ORDER BY key names (ordinal, alias
// or an item written the same), or -1.
func (p *planner) orderTarget(e Expr, items []SelectItem, names []string, n int) (int, error) {
	if lit, ok := e.(*Literal); ok {
		if v, isInt := lit.Value.(int32); isInt {
			if v < 1 || int(v) > n {
				return 0, errorf(lit.Pos, "ORDER BY position %d is not in the select list (1 to %d)", v, n)
			}
			return int(v) - 1, nil
		}
	}
	if col, ok := e.(*Column); ok && len(col.Path) == 1 {
		for i, name := range names {
			if items[i].Alias != "" && strings.EqualFold(name, col.Path[0]) {
				return i, nil
			}
		}
	}
	for i, it := range items {
		if strings.EqualFold(it.Expr.String(), e.String()) {
			return i, nil
		}
	}
	return -1, nil
}

func containsAgg(e Expr) bool {
	found := false
	visit(e, func(x Expr) bool {
		found = found || isAggregate(x)
		return !found
	})
	return found
}

func (p *planner) filter(in *node, pred *cexpr) *node {
	n := newNode("Filter "+srcText(pred), in.sc, []*node{in}, nil)
	n.schema = in.schema
	n.open = func(e *env, ins []op) (op, error) { return &filterOp{in: ins[0], pred: pred, e: e}, nil }
	return n
}

// aggregate plans GROUP BY: the hash aggregation's output is the group keys
// then one column per distinct aggregate call; the returned compiler
// compiles the select list, HAVING and ORDER BY over it.
func (p *planner) aggregate(s *Select, items []SelectItem, in *node) (*node, *compiler, error) {
	ic := p.compiler(in.sc)
	ic.where = "GROUP BY"
	var keyExprs []Expr
	for _, g := range s.GroupBy {
		e := g
		if lit, ok := g.(*Literal); ok {
			if v, isInt := lit.Value.(int32); isInt {
				if v < 1 || int(v) > len(items) {
					return nil, nil, errorf(lit.Pos, "GROUP BY position %d is not in the select list (1 to %d)", v, len(items))
				}
				e = items[v-1].Expr
			}
		}
		if col, ok := g.(*Column); ok && len(col.Path) == 1 {
			if _, _, err := in.sc.resolve(col.Path, col.Pos); err != nil {
				for _, it := range items {
					if strings.EqualFold(it.Alias, col.Path[0]) {
						e = it.Expr
					}
				}
			}
		}
		if containsAgg(e) {
			return nil, nil, errorf(g.Position(), "GROUP BY %s: an aggregate function cannot be a group key", g)
		}
		keyExprs = append(keyExprs, e)
	}
	sc := &scope{}
	subst := map[string]int{}
	var keys []*cexpr
	for _, e := range keyExprs {
		k := ic.exprKey(e, in.sc)
		if _, dup := subst[k]; dup {
			continue
		}
		ce, err := ic.compile(e)
		if err != nil {
			return nil, nil, err
		}
		subst[k] = len(sc.cols)
		var quals []string
		name := itemName(e, in.sc)
		if col, ok := e.(*Column); ok {
			if idx, rest, err := in.sc.resolve(col.Path, col.Pos); err == nil && len(rest) == 0 {
				quals = in.sc.cols[idx].quals
			}
		}
		sc.cols = append(sc.cols, scol{quals: quals, name: name, typ: ce.typ})
		keys = append(keys, ce)
	}
	var aggs []*aggSpec
	var collect func(e Expr) error
	collect = func(e Expr) error {
		var err error
		visit(e, func(x Expr) bool {
			if err != nil {
				return false
			}
			if !isAggregate(x) {
				return true
			}
			k := ic.exprKey(x, in.sc)
			if _, seen := subst[k]; seen {
				return false
			}
			var sp *aggSpec
			if sp, err = ic.compileAggregate(x.(*Call)); err != nil {
				return false
			}
			subst[k] = len(sc.cols)
			sc.cols = append(sc.cols, scol{name: "#" + sp.text, typ: sp.typ})
			aggs = append(aggs, sp)
			return false
		})
		return err
	}
	for _, it := range items {
		if err := collect(it.Expr); err != nil {
			return nil, nil, err
		}
	}
	if s.Having != nil {
		if err := collect(s.Having); err != nil {
			return nil, nil, err
		}
	}
	for _, o := range s.OrderBy {
		if err := collect(o.Expr); err != nil {
			return nil, nil, err
		}
	}
	label := "HashAggregate"
	if len(keys) > 0 {
		label += " keys: " + exprList(keys)
	}
	if len(aggs) > 0 {
		texts := make([]string, len(aggs))
		for i, a := range aggs {
			texts[i] = a.text
		}
		label += " aggregates: " + strings.Join(texts, ", ")
	}
	buildKeys := buildKeyColumns(in, keys)
	if buildKeys != nil {
		label += " (grouped by build row)"
	}
	n := newNode(label, sc, []*node{in}, nil)
	n.open = func(e *env, ins []op) (op, error) {
		o := &aggOp{in: ins[0], keys: keys, aggs: aggs, schema: n.schema, e: e}
		if j, ok := ins[0].(*joinOp); ok && buildKeys != nil {
			o.join, o.buildKeys = j, buildKeys
			j.keepRows = true
		}
		return o, nil
	}
	oc := p.compiler(sc)
	oc.subst, oc.grouped, oc.inner = subst, true, in.sc
	return n, oc, nil
}

// orderLimit adds ORDER BY (a top-N when a LIMIT follows), LIMIT/OFFSET and
// drops the hidden sort columns of n.
func (p *planner) orderLimit(n *node, sc *scope, order []OrderItem, limit, offset *int64, _ any, positional bool) (*node, error) {
	var keys []sortKey
	c := p.compiler(sc)
	for _, o := range order {
		var ce *cexpr
		var err error
		if col, ok := o.Expr.(*Column); ok && positional && len(col.Path) == 1 && strings.HasPrefix(col.Path[0], "#") {
			var k int
			fmt.Sscanf(col.Path[0], "#%d", &k)
			ce = c.column(k, &Column{Path: []string{sc.cols[k].name}})
		} else {
			if lit, ok := o.Expr.(*Literal); ok {
				if v, isInt := lit.Value.(int32); isInt {
					if v < 1 || int(v) > len(sc.cols) {
						return nil, errorf(lit.Pos, "ORDER BY position %d is not in the select list (1 to %d)", v, len(sc.cols))
					}
					ce = c.column(int(v)-1, &Column{Path: []string{sc.cols[v-1].name}})
				}
			}
			if ce == nil {
				if ce, err = c.compile(o.Expr); err != nil {
					return nil, err
				}
			}
		}
		nf := !o.Desc
		if o.NullsFirst != nil {
			nf = *o.NullsFirst
		}
		keys = append(keys, sortKey{x: ce, desc: o.Desc, nullsFirst: nf})
	}
	lim, off := int64(-1), int64(0)
	if limit != nil {
		lim = *limit
	}
	if offset != nil {
		off = *offset
	}
	if len(keys) > 0 {
		desc := make([]string, len(keys))
		for i, k := range keys {
			desc[i] = srcText(k.x)
			if k.desc {
				desc[i] += " DESC"
			}
			if k.nullsFirst {
				desc[i] += " NULLS FIRST"
			} else {
				desc[i] += " NULLS LAST"
			}
		}
		in := n
		if lim >= 0 {
			top := lim + off
			n = newNode(fmt.Sprintf("TopN %d by %s", top, strings.Join(desc, ", ")), in.sc, []*node{in}, nil)
			n.schema = in.schema
			late := lateColumns(in, keys)
			if late != nil {
				n.label += " (sort keys first)"
			}
			n.open = func(e *env, ins []op) (op, error) {
				t := &topNOp{in: ins[0], keys: keys, n: top, schema: in.schema, e: e}
				if late != nil {
					return &lateTopNOp{in: ins[0], topN: t, scan: in.children[0], exprs: in.project, need: late}, nil
				}
				return t, nil
			}
		} else {
			n = newNode("Sort by "+strings.Join(desc, ", "), in.sc, []*node{in}, nil)
			n.schema = in.schema
			n.open = func(e *env, ins []op) (op, error) {
				return &sortOp{in: ins[0], keys: keys, schema: in.schema, e: e}, nil
			}
		}
	}
	if lim >= 0 || off > 0 {
		in := n
		label := fmt.Sprintf("Limit %d", lim)
		if off > 0 {
			label += fmt.Sprintf(" offset %d", off)
		}
		n = newNode(label, in.sc, []*node{in}, nil)
		n.schema = in.schema
		n.open = func(e *env, ins []op) (op, error) { return &limitOp{in: ins[0], n: lim, offset: off}, nil }
	}
	// Drop hidden sort columns.
	visible := 0
	for _, col := range n.sc.cols {
		if !strings.HasPrefix(col.name, "#order") {
			visible++
		}
	}
	if visible == len(n.sc.cols) {
		return n, nil
	}
	in := n
	vsc := &scope{cols: append([]scol(nil), in.sc.cols[:visible]...)}
	exprs := make([]*cexpr, visible)
	vc := p.compiler(in.sc)
	for i := range exprs {
		exprs[i] = vc.column(i, &Column{Path: []string{in.sc.cols[i].name}})
	}
	n = newNode("Project "+exprList(exprs), vsc, []*node{in}, nil)
	n.open = func(e *env, ins []op) (op, error) {
		return &projectOp{in: ins[0], exprs: exprs, schema: n.schema, e: e}, nil
	}
	return n, nil
}

var _ = arrow.Null

// buildKeyColumns returns the build-side columns of the inner join in that
// the group keys are, each a column as is, or nil when they are not: the
// aggregate then groups the build rows once, and every joined row by its
// build row (see docs/sql.md#performance).
func buildKeyColumns(in *node, keys []*cexpr) []int {
	if in.join == nil || len(keys) == 0 {
		return nil
	}
	out := make([]int, len(keys))
	for i, k := range keys {
		if k.col == 0 || in.join.rcols[k.col-1] < 0 {
			return nil
		}
		out[i] = in.join.rcols[k.col-1]
	}
	return out
}
