package query

import (
	"errors"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// The FROM clause: tables, CTEs, views, subqueries, inline tables, joins and
// lateral views, each a relation with the names its columns go by.

// maxViewDepth bounds views naming views.
const maxViewDepth = 32

func (a *analyzer) from(s Source, ctes *cteScope) (rel, error) {
	switch x := s.(type) {
	case nil:
		return rel{&lValues{rows: [][]rex{{}}}, &scope{}}, nil
	case *TableRef:
		return a.tableRef(x, ctes)
	case *SubqueryRef:
		in, err := a.query(x.Query, ctes)
		if err != nil {
			return rel{}, err
		}
		var quals []string
		if x.Alias != "" {
			quals = []string{x.Alias}
		}
		in = rel{in.n, in.sc.requalified(quals)}
		return renameColumns(in, x.Columns, "the subquery "+x.Alias, x.Pos)
	case *ValuesRef:
		return a.values(x)
	case *FunctionRef:
		return a.tableFunction(x)
	case *JoinRef:
		return a.join(x, ctes)
	case *LateralView:
		in, err := a.from(x.Input, ctes)
		if err != nil {
			return rel{}, err
		}
		r, _, err := a.generate(in, x.Gen, x.Outer, x.Alias, x.Columns, x.Pos, false)
		return r, err
	}
	return rel{}, errorf(s.Position(), "unknown source %T", s)
}

func qualsOf(x *TableRef) []string {
	if x.Alias != "" {
		return []string{x.Alias}
	}
	quals := []string{x.Name[len(x.Name)-1]}
	if len(x.Name) > 1 {
		quals = append(quals, strings.Join(x.Name, "."))
	}
	return quals
}

// tableRef is a CTE, a view or a table, in that order.
func (a *analyzer) tableRef(x *TableRef, ctes *cteScope) (rel, error) {
	what := strings.Join(x.Name, ".")
	if len(x.Name) == 1 {
		for c := ctes; c != nil; c = c.next {
			if strings.EqualFold(c.name, x.Name[0]) {
				in, err := a.query(c.query, c.outer)
				if err != nil {
					return rel{}, err
				}
				if c.shared != nil || nondeterministicPlan(in.n) {
					if c.shared == nil {
						c.shared = &sharedCTE{name: c.name, in: in.n}
					}
					c.shared.refs++
					in.n = &lShared{cte: c.shared, out: in.n.fields()}
				}
				if in, err = renameColumns(in, c.columns, "the WITH query "+c.name, x.Pos); err != nil {
					return rel{}, err
				}
				in = rel{in.n, in.sc.requalified(qualsOf(x))}
				return renameColumns(in, x.Columns, what, x.Pos)
			}
		}
	}
	if vr, ok := a.r.(ViewResolver); ok {
		if q, cols, isView := vr.View(x.Name); isView {
			if a.views >= maxViewDepth {
				return rel{}, errorf(x.Pos, "view %s: views nest more than %d deep (does it name itself?)", what, maxViewDepth)
			}
			a.views++
			in, err := a.query(q, nil)
			a.views--
			if err != nil {
				if a.views > 0 {
					return rel{}, err // the outermost view names itself
				}
				return rel{}, errorf(x.Pos, "view %s: %w", what, err)
			}
			if in, err = renameColumns(in, cols, "view "+what, x.Pos); err != nil {
				return rel{}, err
			}
			in = rel{in.n, in.sc.requalified(qualsOf(x))}
			return renameColumns(in, x.Columns, what, x.Pos)
		}
	}
	t, err := a.r.Table(a.ctx, x.Name)
	if err != nil {
		var qe *Error
		if errors.As(err, &qe) && qe.Pos.Line == 0 {
			qe.Pos = x.Pos
		}
		return rel{}, err
	}
	sc := &scope{}
	quals := qualsOf(x)
	var out []field
	for i, f := range t.Schema().Fields() {
		sc.cols = append(sc.cols, scol{quals: quals, name: f.Name, typ: f.Type, ord: i})
		out = append(out, field{f.Name, f.Type})
	}
	n := &lScan{name: what, path: x.Name, table: t, out: out}
	return renameColumns(rel{n, sc}, x.Columns, what, x.Pos)
}

// values is an inline table: every value a constant, each column of the
// wider type of its values (without string promotion, as Spark's
// ResolveInlineTables).
func (a *analyzer) values(x *ValuesRef) (rel, error) {
	if len(x.Rows) == 0 {
		return rel{}, errorf(x.Pos, "VALUES needs at least one row")
	}
	width := len(x.Rows[0])
	r := &exprResolver{a: a, sc: &scope{}, clause: "VALUES"}
	rows := make([][]rex, len(x.Rows))
	types := make([][]arrow.DataType, width)
	for i, row := range x.Rows {
		if len(row) != width {
			return rel{}, errorf(x.Pos, "VALUES: row %d has %d values, the first has %d", i+1, len(row), width)
		}
		for j, e := range row {
			v, err := r.resolve(e)
			if err != nil {
				return rel{}, err
			}
			if !deterministic(v) || hasOuter(v) {
				return rel{}, errorf(e.Position(), "VALUES: %s is not a constant", e)
			}
			rows[i] = append(rows[i], v)
			types[j] = append(types[j], v.Type())
		}
	}
	names := x.Columns
	if names == nil {
		for j := 0; j < width; j++ {
			names = append(names, "col"+itoa(j+1))
		}
	} else if len(names) != width {
		return rel{}, errorf(x.Pos, "VALUES has %d columns but the alias list names %d", width, len(names))
	}
	out := make([]field, width)
	sc := &scope{}
	var quals []string
	if x.Alias != "" {
		quals = []string{x.Alias}
	}
	for j := range out {
		t := widerTypes(types[j], false)
		if t == nil {
			return rel{}, errorf(x.Pos, "VALUES: column %s has values of types that do not mix (%s)", names[j], typeNames(types[j]))
		}
		out[j] = field{names[j], t}
		sc.cols = append(sc.cols, scol{quals: quals, name: names[j], typ: t, ord: j})
	}
	for i, row := range rows {
		for j, v := range row {
			c, err := r.implicitCast(v, out[j].typ, x.Rows[i][j])
			if err != nil {
				return rel{}, err
			}
			rows[i][j] = c
		}
	}
	return rel{&lValues{out: out, rows: rows}, sc}, nil
}

// tableFunction is a table-valued function in FROM: range(end),
// range(start, end[, step[, partitions]]) gives a bigint column id.
func (a *analyzer) tableFunction(x *FunctionRef) (rel, error) {
	if !strings.EqualFold(x.Name, "range") {
		return rel{}, unsupported(x.Pos, "the table function "+x.Name+" (range is)")
	}
	if len(x.Args) < 1 || len(x.Args) > 4 {
		return rel{}, errorf(x.Pos, "range takes 1 to 4 arguments, got %d", len(x.Args))
	}
	r := &exprResolver{a: a, sc: &scope{}, clause: "range"}
	vals := make([]int64, len(x.Args))
	for i, e := range x.Args {
		c, err := r.resolve(e)
		if err != nil {
			return rel{}, err
		}
		lit, ok := c.(*rLit)
		if !ok {
			return rel{}, errorf(e.Position(), "range: %s is not a constant", e)
		}
		if vals[i], ok = intConst(lit.v); !ok {
			return rel{}, errorf(e.Position(), "range: %s is not an integer", e)
		}
	}
	n := &lRange{end: vals[0], step: 1, name: "id"}
	if len(vals) >= 2 {
		n.start, n.end = vals[0], vals[1]
	}
	if len(vals) >= 3 {
		n.step = vals[2]
	}
	if n.step == 0 {
		return rel{}, errorf(x.Pos, "range: the step must not be 0")
	}
	var quals []string
	if x.Alias != "" {
		quals = []string{x.Alias}
	}
	in := rel{n, &scope{cols: []scol{{quals: quals, name: "id", typ: tLong}}}}
	return renameColumns(in, x.Columns, "range", x.Pos)
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// join is l JOIN r: ON splits into hash keys (a = b with a over one side
// and b over the other) and a residual condition; USING and NATURAL merge
// the named columns into one (the left's value, the right's for RIGHT, the
// first non-NULL for FULL) while t1.k and t2.k keep each side's own.
func (a *analyzer) join(x *JoinRef, ctes *cteScope) (rel, error) {
	l, err := a.from(x.L, ctes)
	if err != nil {
		return rel{}, err
	}
	r, err := a.from(x.R, ctes)
	if err != nil {
		return rel{}, err
	}
	kind := x.Kind
	if kind == "" {
		kind = InnerJoin
	}
	nl := len(l.sc.cols)
	both := &scope{cols: append(append([]scol(nil), l.sc.cols...), r.sc.cols...)}
	j := &lJoin{l: l.n, r: r.n, kind: kind}
	using := x.Using
	if x.Natural {
		using = nil
		for _, c := range l.sc.cols {
			if c.hidden || c.qualOnly {
				continue
			}
			for _, d := range r.sc.cols {
				if !d.hidden && !d.qualOnly && strings.EqualFold(c.name, d.name) {
					using = append(using, c.name)
					break
				}
			}
		}
	}
	var li, ri []int // the USING columns on each side
	switch {
	case x.On != nil:
		rr := &exprResolver{a: a, sc: both, clause: "ON"}
		cond, err := rr.boolOperand(x.On)
		if err != nil {
			return rel{}, err
		}
		j.lkeys, j.rkeys, j.cond = splitJoinCondition(cond, nl)
	case len(using) > 0:
		for _, u := range using {
			lk, err := usingColumn(l.sc, u, "left", x.Pos)
			if err != nil {
				return rel{}, err
			}
			rk, err := usingColumn(r.sc, u, "right", x.Pos)
			if err != nil {
				return rel{}, err
			}
			lt, rt := l.sc.cols[lk].typ, r.sc.cols[rk].typ
			ct := comparisonType(lt, rt)
			if ct == nil {
				return rel{}, errorf(x.Pos, "USING (%s): cannot compare %s with %s", u, typeName(lt), typeName(rt))
			}
			lkey, rkey := rex(&rCol{idx: lk, t: lt, name: u}), rex(&rCol{idx: rk, t: rt, name: u})
			if !arrow.TypeEqual(lt, ct) {
				lkey = &rCast{x: lkey, to: ct, src: u}
			}
			if !arrow.TypeEqual(rt, ct) {
				rkey = &rCast{x: rkey, to: ct, src: u}
			}
			j.lkeys, j.rkeys = append(j.lkeys, lkey), append(j.rkeys, rkey)
			li, ri = append(li, lk), append(ri, rk)
		}
	}
	if kind == SemiJoin || kind == AntiJoin {
		if li == nil {
			return rel{j, l.sc}, nil
		}
		return usingOutput(j, kind, l, rel{}, li, nil)
	}
	if li == nil {
		return rel{j, both}, nil
	}
	return usingOutput(j, kind, l, r, li, ri)
}

// usingColumn is the one column of a join side named u.
func usingColumn(sc *scope, u, side string, pos Pos) (int, error) {
	found := -1
	for i, c := range sc.cols {
		if c.qualOnly || !strings.EqualFold(c.name, u) {
			continue
		}
		if found >= 0 {
			return 0, errorf(pos, "USING column %s is ambiguous on the %s side of the join", u, side)
		}
		found = i
	}
	if found < 0 {
		return 0, errorf(pos, "USING column %s is not a column of the %s side of the join%s", u, side, didYouMean(u, sc.names()))
	}
	return found, nil
}

// usingOutput projects a USING or NATURAL join as Spark does: the merged
// keys first, then the left's other columns, then the right's; each side's
// own key stays reachable by a qualified name (t2.k: NULL where a LEFT
// JOIN found no partner), and `t.*` gives a side's columns in its order.
func usingOutput(j *lJoin, kind JoinKind, l, r rel, li, ri []int) (rel, error) {
	nl := len(l.sc.cols)
	var exprs []rex
	var names []string
	sc := &scope{}
	add := func(e rex, c scol) {
		exprs = append(exprs, e)
		names = append(names, c.name)
		c.typ = e.Type()
		sc.cols = append(sc.cols, c)
	}
	col := func(side rel, i, off int) rex {
		c := side.sc.cols[i]
		return &rCol{idx: i + off, t: c.typ, name: c.name}
	}
	isKey := func(keys []int, i int) bool {
		for _, k := range keys {
			if k == i {
				return true
			}
		}
		return false
	}
	for k := range li {
		lc := l.sc.cols[li[k]]
		switch kind {
		case RightJoin:
			rc := r.sc.cols[ri[k]]
			add(col(r, ri[k], nl), scol{name: rc.name})
		case FullJoin:
			t := widerType(lc.typ, r.sc.cols[ri[k]].typ, true)
			if t == nil {
				t = lc.typ
			}
			lv, rv := col(l, li[k], 0), col(r, ri[k], nl)
			if !arrow.TypeEqual(lv.Type(), t) {
				lv = &rCast{x: lv, to: t, src: lc.name}
			}
			if !arrow.TypeEqual(rv.Type(), t) {
				rv = &rCast{x: rv, to: t, src: lc.name}
			}
			add(&rCase{conds: []rex{&rIsNull{x: lv, not: true}}, vals: []rex{lv}, els: rv, t: t}, scol{name: lc.name})
		default:
			add(col(l, li[k], 0), scol{name: lc.name})
		}
	}
	// The sides' columns, in their order: the keys hidden (qualified
	// names only), the others as they are.
	side := func(s rel, keys []int, off int) {
		for i, c := range s.sc.cols {
			if isKey(keys, i) {
				c.hidden, c.qualOnly = true, true
			}
			add(col(s, i, off), c)
		}
	}
	side(l, li, 0)
	if r.sc != nil {
		side(r, ri, nl)
	}
	// The visible order: keys, then the left's and the right's others.
	order := make([]int, 0, len(exprs))
	for k := range li {
		order = append(order, k)
	}
	for i := len(li); i < len(exprs); i++ {
		if !sc.cols[i].hidden {
			order = append(order, i)
		}
	}
	for i := len(li); i < len(exprs); i++ {
		if sc.cols[i].hidden {
			order = append(order, i)
		}
	}
	ex, nm, cols := make([]rex, len(order)), make([]string, len(order)), make([]scol, len(order))
	for i, o := range order {
		ex[i], nm[i], cols[i] = exprs[o], names[o], sc.cols[o]
	}
	return rel{&lProject{in: j, exprs: ex, names: nm}, &scope{cols: cols}}, nil
}

// splitJoinCondition splits an ON condition over l's columns (0…nl-1) then
// r's into hash keys — conjuncts `a = b` with a over one side and b over
// the other, b re-bound to r's columns — and the rest.
func splitJoinCondition(cond rex, nl int) (lkeys, rkeys []rex, rest rex) {
	for _, c := range rexConjuncts(cond) {
		if lit, ok := c.(*rLit); ok && lit.v == true {
			continue
		}
		if cmp, ok := c.(*rCmp); ok && cmp.op == "=" && deterministic(cmp) {
			ls, rs := sideOf(cmp.l, nl), sideOf(cmp.r, nl)
			switch {
			case ls == 1 && rs == 2:
				lkeys, rkeys = append(lkeys, cmp.l), append(rkeys, shiftColumns(cmp.r, -nl))
				continue
			case ls == 2 && rs == 1:
				lkeys, rkeys = append(lkeys, cmp.r), append(rkeys, shiftColumns(cmp.l, -nl))
				continue
			}
		}
		rest = andRex(rest, c)
	}
	return lkeys, rkeys, rest
}

// sideOf is 1 when e reads only columns below nl, 2 when only columns from
// nl on, 0 otherwise (both, or none).
func sideOf(e rex, nl int) int {
	side := 0
	walkRex(e, func(x rex) bool {
		if c, ok := x.(*rCol); ok {
			s := 1
			if c.idx >= nl {
				s = 2
			}
			if side != 0 && side != s {
				side = -1
			} else if side == 0 {
				side = s
			}
		}
		return side >= 0
	})
	if side < 0 {
		return 0
	}
	return side
}

func shiftColumns(e rex, by int) rex {
	out, _ := mapRex(e, func(x rex) (rex, error) {
		if c, ok := x.(*rCol); ok {
			n := *c
			n.idx += by
			return &n, nil
		}
		return x, nil
	})
	return out
}

func rexConjuncts(e rex) []rex {
	if l, ok := e.(*rLogic); ok && l.and {
		return append(rexConjuncts(l.l), rexConjuncts(l.r)...)
	}
	return []rex{e}
}

func andRex(a, b rex) rex {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &rLogic{and: true, l: a, r: b}
}
