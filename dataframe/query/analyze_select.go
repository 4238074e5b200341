package query

import (
	"sort"
	"strings"
)

// A SELECT block is analysed phase by phase, in the order its clauses
// apply: FROM, WHERE, the generators of the select list, `*`, GROUP BY
// with the aggregates of the select list, HAVING and ORDER BY, the
// projection, DISTINCT, ORDER BY, LIMIT. Each phase is one method of
// selectBlock; a later phase (window functions between HAVING and the
// projection, say) is one more.
type selectBlock struct {
	a    *analyzer
	s    *Select
	ctes *cteScope

	in    rel          // FROM … WHERE, then the generators' columns
	items []SelectItem // the select list, `*` expanded
	names []string     // the output names

	grouped bool
	aggs    *aggCollector
	wins    *winCollector // the window functions of the select list and ORDER BY
	keys    []rex         // GROUP BY keys over in
	keyName []string      // their generated names
	exprs   []rex         // the select list over in, then hidden ORDER BY keys
	having  rex
	order   []sortSpec // over exprs
}

func (a *analyzer) selectBlock(s *Select, ctes *cteScope) (rel, error) {
	b := &selectBlock{a: a, s: s, ctes: ctes}
	for _, phase := range []func() error{
		b.fromClause, b.whereClause, b.generators, b.expandStars,
		b.groupBy, b.windowClause, b.selectList, b.havingClause, b.orderBy,
	} {
		if err := phase(); err != nil {
			return rel{}, err
		}
	}
	return b.plan()
}

func (b *selectBlock) fromClause() error {
	var err error
	b.in, err = b.a.from(b.s.From, b.ctes)
	return err
}

func (b *selectBlock) whereClause() error {
	if b.s.Where == nil {
		return nil
	}
	r := &exprResolver{a: b.a, sc: b.in.sc, clause: "WHERE"}
	pred, err := r.boolOperand(b.s.Where)
	if err != nil {
		return err
	}
	b.in.n = &lFilter{in: b.in.n, pred: pred}
	return nil
}

// generators runs a generator of the select list (explode(x) AS c) before
// the projection, as a LATERAL VIEW without alias would; the item becomes
// its column.
func (b *selectBlock) generators() error {
	items := append([]SelectItem(nil), b.s.Items...)
	seen := false
	for i := 0; i < len(items); i++ {
		it := items[i]
		if !isGenerator(it.Expr) {
			var inner Expr
			visit(it.Expr, func(x Expr) bool {
				if isGenerator(x) && inner == nil {
					inner = x
				}
				return inner == nil
			})
			if inner != nil {
				return unsupported(inner.Position(), "a generator inside an expression")
			}
			continue
		}
		if seen {
			return errorf(it.Pos, "only one generator is allowed in a select list (Spark's UNSUPPORTED_GENERATOR.MULTI_GENERATOR); use LATERAL VIEW for more")
		}
		seen = true
		gen := it.Expr.(*Call)
		var names []string
		switch {
		case it.Aliases != nil:
			names = it.Aliases
		case it.Alias != "":
			names = []string{it.Alias}
		}
		var first int
		var err error
		if b.in, first, err = b.a.generate(b.in, gen, false, "", names, it.Pos, true); err != nil {
			return err
		}
		var repl []SelectItem
		for k := first; k < len(b.in.sc.cols); k++ {
			n := b.in.sc.cols[k].name
			repl = append(repl, SelectItem{Expr: &boundColumn{idx: k, name: n, pos: it.Pos}, Alias: n, Pos: it.Pos})
		}
		items = append(items[:i], append(repl, items[i+1:]...)...)
		i += len(repl) - 1
	}
	b.items = items
	return nil
}

// expandStars replaces `*` and `t.*` by the columns they stand for.
func (b *selectBlock) expandStars() error {
	var out []SelectItem
	for _, it := range b.items {
		st, ok := it.Expr.(*Star)
		if !ok {
			out = append(out, it)
			continue
		}
		var picked []int
		for i, c := range b.in.sc.cols {
			if st.Qualifier == "" && c.hidden || st.Qualifier != "" && !hasQual(c.quals, st.Qualifier) {
				continue
			}
			picked = append(picked, i)
		}
		if st.Qualifier != "" {
			// A table's own columns in its own order (over a USING join,
			// its key where the table has it).
			sort.SliceStable(picked, func(x, y int) bool { return b.in.sc.cols[picked[x]].ord < b.in.sc.cols[picked[y]].ord })
		}
		for _, i := range picked {
			c := b.in.sc.cols[i]
			out = append(out, SelectItem{Expr: &boundColumn{idx: i, name: c.name, pos: st.Pos}, Alias: c.name, Pos: st.Pos})
		}
		if len(picked) == 0 && st.Qualifier != "" {
			// s.* of a struct column s: its fields.
			r := &exprResolver{a: b.a, sc: b.in.sc}
			fields, ok, err := r.structStar(st)
			if err != nil {
				return err
			}
			if !ok {
				return errorf(st.Pos, "unknown table %s in %s.*", st.Qualifier, st.Qualifier)
			}
			for _, f := range fields {
				out = append(out, SelectItem{Expr: f, Alias: f.(*Field).Name, Pos: st.Pos})
			}
		}
	}
	b.items = out
	return nil
}

// groupBy decides whether the block aggregates and resolves its keys:
// expressions, select-list ordinals (GROUP BY 1) and aliases (when no input
// column has the name).
func (b *selectBlock) groupBy() error {
	s := b.s
	b.grouped = len(s.GroupBy) > 0 || s.Having != nil
	for _, it := range b.items {
		b.grouped = b.grouped || containsAgg(it.Expr)
	}
	for _, o := range s.OrderBy {
		b.grouped = b.grouped || containsAgg(o.Expr)
	}
	if !b.grouped {
		return nil
	}
	b.aggs = &aggCollector{}
	if b.groupByAll() {
		return b.groupByAllKeys()
	}
	if hasGroupingSets(s.GroupBy) {
		return b.groupingSets()
	}
	seen := map[string]bool{}
	for _, g := range s.GroupBy {
		k, name, err := b.groupKey(g)
		if err != nil {
			return err
		}
		if key := rexKey(k); !seen[key] {
			seen[key] = true
			b.keys = append(b.keys, k)
			b.keyName = append(b.keyName, name)
		}
	}
	return nil
}

// groupKey resolves one GROUP BY expression: an expression, a select-list
// ordinal (GROUP BY 1) or alias (when no input column has the name).
func (b *selectBlock) groupKey(g Expr) (rex, string, error) {
	e := g
	if k, ok, err := ordinal("GROUP BY", g, len(b.items)); err != nil {
		return nil, "", err
	} else if ok {
		e = b.items[k].Expr
	}
	if col, ok := g.(*Column); ok && len(col.Path) == 1 && !b.in.sc.has(col.Path) {
		for _, it := range b.items {
			if strings.EqualFold(it.Alias, col.Path[0]) {
				e = it.Expr
			}
		}
	}
	if containsAgg(e) {
		return nil, "", errorf(g.Position(), "GROUP BY %s: an aggregate function cannot be a group key", g)
	}
	r := &exprResolver{a: b.a, sc: b.in.sc, clause: "GROUP BY"}
	k, err := r.resolve(e)
	if err != nil {
		return nil, "", err
	}
	return k, itemName(e, k), nil
}

// itemName is the name Spark gives an unaliased select item: a column's
// (or nested field's) own name, a CAST of a column the column's, else the
// expression's pretty SQL.
func itemName(e Expr, x rex) string {
	switch c := e.(type) {
	case *boundColumn:
		return c.name
	case *Column:
		if col, ok := x.(*rCol); ok {
			return col.name // the table's spelling
		}
		return c.Path[len(c.Path)-1]
	case *Cast:
		if cast, ok := x.(*rCast); ok && cast.user {
			if col, ok := cast.x.(*rCol); ok {
				return col.name
			}
		}
	}
	return x.sql()
}

// selectList resolves the items over the input (aggregates collected when
// grouped) and names them.
func (b *selectBlock) selectList() error {
	r := &exprResolver{a: b.a, sc: b.in.sc, aggs: b.aggs, wins: b.wins}
	for _, it := range b.items {
		x, err := r.resolve(it.Expr)
		if err != nil {
			return err
		}
		b.exprs = append(b.exprs, x)
		name := it.Alias
		if name == "" {
			name = itemName(it.Expr, x)
		}
		b.names = append(b.names, name)
	}
	return nil
}

func (b *selectBlock) aliases() map[string]Expr {
	m := map[string]Expr{}
	for _, it := range b.items {
		if it.Alias != "" {
			m[strings.ToLower(it.Alias)] = it.Expr
		}
	}
	return m
}

// havingClause resolves HAVING like the select list; it may name a select
// alias (HAVING n > 1 for count(*) AS n), as Spark allows.
func (b *selectBlock) havingClause() error {
	if b.s.Having == nil {
		return nil
	}
	r := &exprResolver{a: b.a, sc: b.in.sc, clause: "HAVING", aggs: b.aggs, aliases: b.aliases()}
	pred, err := r.boolOperand(b.s.Having)
	if err != nil {
		return err
	}
	b.having = pred
	return nil
}

// orderBy resolves each key: an ordinal, an expression over the output
// columns (aliases first, as Spark), else one over the input; a key that
// is not an output column is computed as a hidden one.
func (b *selectBlock) orderBy() error {
	out := &scope{}
	for i, x := range b.exprs {
		var quals []string
		if c, ok := x.(*rCol); ok {
			quals = b.in.sc.cols[c.idx].quals
		}
		out.cols = append(out.cols, scol{quals: quals, name: b.names[i], typ: x.Type()})
	}
	visible := len(b.exprs)
	for _, o := range b.s.OrderBy {
		col, ok, err := ordinal("ORDER BY", o.Expr, visible)
		if err != nil {
			return err
		}
		if !ok {
			x, err := b.orderKey(o.Expr, out)
			if err != nil {
				return err
			}
			col = addColumn(&b.exprs, x)
			if col >= visible && b.s.Distinct {
				return errorf(o.Expr.Position(), "ORDER BY %s: with SELECT DISTINCT the sort keys must be in the select list", o.Expr)
			}
		}
		b.order = append(b.order, sortSpec{col: col, desc: o.Desc, nullsFirst: nullsFirst(o)})
	}
	return nil
}

func (b *selectBlock) orderKey(e Expr, out *scope) (rex, error) {
	if !containsAgg(e) {
		r := &exprResolver{a: b.a, sc: out, clause: "ORDER BY", local: true}
		x, err := r.resolve(e)
		if err == nil {
			return substitute(x, b.exprs[:len(out.cols)]), nil
		}
		if strings.Contains(err.Error(), "ambiguous") {
			return nil, err
		}
	}
	r := &exprResolver{a: b.a, sc: b.in.sc, clause: "ORDER BY", aggs: b.aggs, wins: b.wins}
	return r.resolve(e)
}

// plan builds the block's operators: aggregate, HAVING, projection,
// DISTINCT, sort, limit, and the projection that drops hidden sort keys.
func (b *selectBlock) plan() (rel, error) {
	n := b.in.n
	exprs, having := append([]rex(nil), b.exprs...), b.having
	keys := b.keys
	if b.grouped {
		n, keys = b.aggregate(n)
		var err error
		for i := range exprs {
			if exprs[i], err = groupedSpace(exprs[i], keys); err != nil {
				return rel{}, err
			}
		}
		if having != nil {
			if having, err = groupedSpace(having, keys); err != nil {
				return rel{}, err
			}
		}
	}
	if having != nil {
		n = &lFilter{in: n, pred: having}
	}
	var err error
	if n, exprs, err = b.wins.plan(n, exprs, keys, b.grouped); err != nil {
		return rel{}, err
	}
	names := append([]string(nil), b.names...)
	for _, x := range exprs[len(names):] {
		names = append(names, x.sql())
	}
	n = &lProject{in: n, exprs: exprs, names: names}
	if b.s.Distinct {
		n = &lDistinct{in: n}
	}
	if len(b.order) > 0 {
		n = &lSort{in: n, keys: b.order}
	}
	if n, err = b.a.limit(n, b.s.Limit, b.s.Offset); err != nil {
		return rel{}, err
	}
	if len(exprs) > len(b.names) {
		n = dropColumns(n, len(b.names))
	}
	sc := &scope{}
	for i, x := range b.exprs[:len(b.names)] {
		var quals []string
		if c, ok := x.(*rCol); ok {
			quals = b.in.sc.cols[c.idx].quals
		}
		sc.cols = append(sc.cols, scol{quals: quals, name: b.names[i], typ: exprs[i].Type(), ord: i})
	}
	return rel{n, sc}, nil
}

// groupedSpace maps an expression over a grouped block's input onto the
// aggregate's output: a GROUP BY key becomes its column, an aggregate call
// its column after the keys; any other column is an error.
func groupedSpace(e rex, keys []rex) (rex, error) {
	for k, key := range keys {
		if rexKey(key) == rexKey(e) {
			return &rCol{idx: k, t: key.Type(), name: e.sql()}, nil
		}
	}
	switch x := e.(type) {
	case *rAgg:
		return &rCol{idx: len(keys) + x.i, t: x.t, name: x.name}, nil
	case *rCol:
		return nil, errorf(x.pos, "column %s is neither in GROUP BY nor inside an aggregate function", x.name)
	case *rLit:
		return x, nil
	}
	ks := e.kids()
	if len(ks) == 0 {
		return e, nil
	}
	nk := make([]rex, len(ks))
	for i, k := range ks {
		m, err := groupedSpace(k, keys)
		if err != nil {
			return nil, err
		}
		nk[i] = m
	}
	return e.with(nk), nil
}
