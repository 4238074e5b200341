package query

import (
	"context"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
)

// The analyser turns a query's syntax tree into a logical plan in one pass
// over it, as Spark's Analyzer does: names resolve to columns of the plan
// below them, functions to their bound form, every implicit cast is made
// explicit, and each output column gets its name (the alias, or Spark's
// generated name). Everything a user can get wrong is found here, with the
// position of the text that is wrong.

// analyzer is one analysis of one query.
type analyzer struct {
	ctx context.Context
	r   Resolver
	now time.Time
	// zone is the session time zone (Options.TimeZone, never nil).
	zone *time.Location
	// views counts the temporary views being expanded (a guard against a
	// view that names itself).
	views int
	// ctes are the WITH queries visible where analysis is; outer is the
	// query around the subquery being analysed (subquery_analyze.go).
	ctes  *cteScope
	outer *outerFrame
}

// rel is an analysed relation: a plan and the names its columns go by.
type rel struct {
	n  lnode
	sc *scope
}

// ViewResolver is a Resolver that also knows views: names that stand for a
// query, analysed where they are used (session temporary views, see
// docs/sql.md#views).
type ViewResolver interface {
	Resolver
	// View returns the query a name stands for and the names of its
	// columns (nil: the query's own); ok false when the name is not a
	// view.
	View(name []string) (q Query, columns []string, ok bool)
}

// cteScope is the WITH queries visible at a point, innermost first.
type cteScope struct {
	name    string
	columns []string
	query   Query
	outer   *cteScope // the CTEs visible to its query
	next    *cteScope
	// shared is the query's one plan when it is not deterministic: every
	// reference reads the same rows (shared.go).
	shared *sharedCTE
}

// checkCTEs analyses every WITH query, used or not (Spark refuses a query
// whose unused CTE names a missing table), and returns the scope they make.
func (a *analyzer) checkCTEs(with []CTE, outer *cteScope) (*cteScope, error) {
	cur := outer
	for _, c := range with {
		in, err := a.query(c.Query, cur)
		if err != nil {
			return nil, err
		}
		if _, err := renameColumns(in, c.Columns, "the WITH query "+c.Name, c.Pos); err != nil {
			return nil, err
		}
		cur = &cteScope{name: c.Name, columns: c.Columns, query: c.Query, outer: cur, next: cur}
	}
	return cur, nil
}

// analyze is the logical plan of q and its output names.
func (a *analyzer) analyze(q Query) (rel, error) { return a.query(q, nil) }

func (a *analyzer) query(q Query, ctes *cteScope) (rel, error) {
	prev := a.ctes
	defer func() { a.ctes = prev }()
	switch x := q.(type) {
	case *Select:
		scope, err := a.checkCTEs(x.With, ctes)
		if err != nil {
			return rel{}, err
		}
		a.ctes = scope
		return a.selectBlock(x, scope)
	case *SetOp:
		scope, err := a.checkCTEs(x.With, ctes)
		if err != nil {
			return rel{}, err
		}
		a.ctes = scope
		return a.setOp(x, scope)
	case nil:
		return rel{}, errorf(Pos{}, "no query")
	}
	return rel{}, errorf(q.Position(), "unknown query %T", q)
}

// setOp is UNION, INTERSECT or EXCEPT: both sides' columns are cast to
// their wider common type (Spark's WidenSetOperationTypes) and take the
// left side's names; ORDER BY and LIMIT apply to the result.
func (a *analyzer) setOp(x *SetOp, ctes *cteScope) (rel, error) {
	op := strings.ToUpper(x.Op)
	if op == "" {
		op = "UNION"
	}
	l, err := a.query(x.L, ctes)
	if err != nil {
		return rel{}, err
	}
	r, err := a.query(x.R, ctes)
	if err != nil {
		return rel{}, err
	}
	lf, rf := l.n.fields(), r.n.fields()
	if len(lf) != len(rf) {
		return rel{}, errorf(x.Pos, "%s: the two sides have %d and %d columns", op, len(lf), len(rf))
	}
	types := make([]arrow.DataType, len(lf))
	names := make([]string, len(lf))
	for i := range lf {
		t := widerType(lf[i].typ, rf[i].typ, true)
		if t == nil {
			return rel{}, errorf(x.Pos, "%s: column %d is %s on one side and %s on the other", op, i+1, typeName(lf[i].typ), typeName(rf[i].typ))
		}
		types[i], names[i] = t, lf[i].name
	}
	ln, rn := castColumns(l.n, types), castColumns(r.n, types)
	var n lnode
	switch op {
	case "UNION":
		var ins []lnode
		for _, side := range []lnode{ln, rn} {
			if u, ok := side.(*lUnion); ok {
				ins = append(ins, u.ins...)
			} else {
				ins = append(ins, side)
			}
		}
		n = &lUnion{ins: ins, names: names}
		if !x.All {
			n = &lDistinct{in: n}
		}
	case "INTERSECT", "EXCEPT":
		n = &lSetOp{l: ln, r: rn, op: op, all: x.All, names: names}
	default:
		return rel{}, unsupported(x.Pos, op)
	}
	sc := &scope{}
	for i, name := range names {
		sc.cols = append(sc.cols, scol{name: name, typ: types[i], ord: i})
	}
	return a.orderLimit(rel{n, sc}, x.OrderBy, x.Limit, x.Offset)
}

// castColumns projects n's columns to types, where they differ.
func castColumns(n lnode, types []arrow.DataType) lnode {
	fs := n.fields()
	same := true
	exprs := make([]rex, len(fs))
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
		exprs[i] = &rCol{idx: i, t: f.typ, name: f.name}
		if !arrow.TypeEqual(f.typ, types[i]) {
			exprs[i] = &rCast{x: exprs[i], to: types[i], src: f.name}
			same = false
		}
	}
	if same {
		return n
	}
	return &lProject{in: n, exprs: exprs, names: names}
}

// orderLimit adds ORDER BY (over the output columns: names or ordinals, or
// expressions over them), LIMIT and OFFSET to a set operation's result.
func (a *analyzer) orderLimit(in rel, order []OrderItem, limit, offset Expr) (rel, error) {
	n := in.n
	if len(order) > 0 {
		fs := n.fields()
		exprs := make([]rex, len(fs))
		for i, f := range fs {
			exprs[i] = &rCol{idx: i, t: f.typ, name: f.name}
		}
		r := &exprResolver{a: a, sc: in.sc, clause: "ORDER BY"}
		var keys []sortSpec
		for _, o := range order {
			col, ok, err := ordinal("ORDER BY", o.Expr, len(fs))
			if err != nil {
				return rel{}, err
			}
			if !ok {
				e, err := r.resolve(o.Expr)
				if err != nil {
					return rel{}, err
				}
				col = addColumn(&exprs, e)
			}
			keys = append(keys, sortSpec{col: col, desc: o.Desc, nullsFirst: nullsFirst(o)})
		}
		if len(exprs) > len(fs) {
			names := make([]string, len(exprs))
			for i, e := range exprs {
				names[i] = e.sql()
			}
			n = &lProject{in: n, exprs: exprs, names: names}
		}
		n = &lSort{in: n, keys: keys}
		if len(exprs) > len(fs) {
			n = dropColumns(n, len(fs))
		}
	}
	var err error
	if n, err = a.limit(n, limit, offset); err != nil {
		return rel{}, err
	}
	return rel{n, in.sc}, nil
}

// ordinal is the 0-based column a position (`ORDER BY 2`, `GROUP BY 1`)
// names; ok is false when e is not an integer literal.
func ordinal(clause string, e Expr, n int) (int, bool, error) {
	lit, ok := e.(*Literal)
	if !ok {
		return 0, false, nil
	}
	var v int64
	switch x := lit.Value.(type) {
	case int32:
		v = int64(x)
	case int64:
		v = x
	default:
		return 0, false, nil
	}
	if v < 1 || v > int64(n) {
		return 0, false, errorf(lit.Pos, "%s position %d is not in the select list (1 to %d)", clause, v, n)
	}
	return int(v) - 1, true, nil
}

// addColumn is the index of the expression among exprs that computes the
// same as e (rexKey), appending e when there is none.
func addColumn(exprs *[]rex, e rex) int {
	k := rexKey(e)
	for i, x := range *exprs {
		if rexKey(x) == k {
			return i
		}
	}
	*exprs = append(*exprs, e)
	return len(*exprs) - 1
}

func nullsFirst(o OrderItem) bool {
	if o.NullsFirst != nil {
		return *o.NullsFirst
	}
	return !o.Desc
}

// dropColumns keeps the first k columns of n.
func dropColumns(n lnode, k int) lnode {
	fs := n.fields()
	exprs := make([]rex, k)
	names := make([]string, k)
	for i := 0; i < k; i++ {
		exprs[i] = &rCol{idx: i, t: fs[i].typ, name: fs[i].name}
		names[i] = fs[i].name
	}
	return &lProject{in: n, exprs: exprs, names: names}
}

// limit adds LIMIT and OFFSET: each a constant integer expression
// (`LIMIT 2 + 1`), at least 0.
func (a *analyzer) limit(n lnode, limit, offset Expr) (lnode, error) {
	lim, off := int64(-1), int64(0)
	var err error
	if limit != nil {
		if lim, err = a.rowCount("LIMIT", limit); err != nil {
			return nil, err
		}
	}
	if offset != nil {
		if off, err = a.rowCount("OFFSET", offset); err != nil {
			return nil, err
		}
	}
	if lim < 0 && off == 0 {
		return n, nil
	}
	return &lLimit{in: n, n: lim, offset: off}, nil
}

func (a *analyzer) rowCount(clause string, e Expr) (int64, error) {
	r := &exprResolver{a: a, sc: &scope{}, clause: clause}
	x, err := r.resolve(e)
	if err != nil {
		return 0, err
	}
	lit, ok := x.(*rLit)
	if !ok {
		return 0, errorf(e.Position(), "%s %s: the row count must be a constant", clause, e)
	}
	v, ok := intConst(lit.v)
	switch {
	case lit.v == nil:
		return 0, errorf(e.Position(), "%s %s: the row count must not be NULL", clause, e)
	case !ok:
		return 0, errorf(e.Position(), "%s %s: the row count must be an integer, got %s", clause, e, typeName(lit.t))
	}
	if v < 0 {
		return 0, errorf(e.Position(), "%s %s: the row count must be 0 or more, got %d", clause, e, v)
	}
	return v, nil
}

// renameColumns gives a relation's columns the names of an alias list
// (`AS t(a, b)`, `WITH t(a, b)`, a view's column list).
func renameColumns(in rel, names []string, what string, pos Pos) (rel, error) {
	if names == nil {
		return in, nil
	}
	if len(names) != len(in.sc.cols) {
		return rel{}, errorf(pos, "%s has %d columns but the alias list names %d", what, len(in.sc.cols), len(names))
	}
	sc := &scope{cols: append([]scol(nil), in.sc.cols...)}
	fs := in.n.fields()
	exprs := make([]rex, len(fs))
	for i := range sc.cols {
		sc.cols[i].name = names[i]
		exprs[i] = &rCol{idx: i, t: fs[i].typ, name: fs[i].name}
	}
	return rel{&lProject{in: in.n, exprs: exprs, names: names}, sc}, nil
}

// boundColumn is a select item a `*` expanded into: column idx of the
// FROM clause's scope.
type boundColumn struct {
	idx  int
	name string
	pos  Pos
}

func (e *boundColumn) Position() Pos  { return e.pos }
func (e *boundColumn) String() string { return e.name }
func (*boundColumn) expr()            {}
