package query

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Subquery expressions (`(SELECT …)`, `EXISTS (…)`, `x IN (SELECT …)`)
// are analysed like any query, with one addition: a name the subquery's
// own FROM clause does not have resolves in the query around it (an outer
// reference), as in Spark. The subquery becomes an rSubquery whose
// sub-expressions are the outer values it reads; inside its plan each is an
// rOuter. The rewrites turn what they can into joins (subquery_rewrite.go);
// the rest runs once per distinct outer value (subquery.go). See
// docs/sql.md#subqueries.

type subKind int

const (
	subScalar subKind = iota
	subExists
	subIn
)

// rSubquery is a subquery's value: the scalar subquery's one value, EXISTS,
// or IN (three-valued, as `x = ANY`). args are the IN values (the first nIn)
// then the outer values the plan reads: rOuter{i} in plan is args[nIn+i].
type rSubquery struct {
	kind subKind
	plan lnode
	nIn  int
	args []rex
	t    arrow.DataType
	name string
	pos  Pos
	id   int64
	src  Expr // the subquery as written: two analyses of it compute the same
}

// rOuter is, inside a subquery's plan, outer value i of the subquery (an
// outer reference): constant while the plan runs for one outer row.
type rOuter struct {
	i    int
	t    arrow.DataType
	name string
}

var subqueryIDs atomic.Int64

func (e *rSubquery) Type() arrow.DataType { return e.t }
func (e *rSubquery) sql() string          { return e.name }
func (e *rSubquery) kids() []rex          { return e.args }
func (e *rSubquery) with(k []rex) rex {
	c := *e
	c.args = append([]rex(nil), k...)
	return &c
}
func (e *rSubquery) key() string {
	if e.src != nil {
		return fmt.Sprintf("subquery<%p>", e.src) // GROUP BY 1 and its select item match
	}
	return fmt.Sprintf("subquery#%d", e.id)
}

// params are the outer values the plan reads.
func (e *rSubquery) params() []rex { return e.args[e.nIn:] }

func (e *rOuter) Type() arrow.DataType { return e.t }
func (e *rOuter) sql() string          { return e.name }
func (e *rOuter) kids() []rex          { return nil }
func (e *rOuter) with([]rex) rex       { c := *e; return &c }
func (e *rOuter) key() string          { return fmt.Sprintf("outer#%d", e.i) }

// outerFrame is the query a subquery expression is written in, while the
// subquery is analysed.
type outerFrame struct {
	r      *exprResolver // resolves names of the query around the subquery
	params []rex         // the outer values the subquery reads, over r's scope
	names  []string      // how the subquery's name shows each of params
	up     *outerFrame
}

// add is the index of outer value e, shown as name, added when new.
func (f *outerFrame) add(e rex, name string) int {
	k := rexKey(e)
	for i, p := range f.params {
		if rexKey(p) == k {
			return i
		}
	}
	f.params = append(f.params, e)
	f.names = append(f.names, name)
	return len(f.params) - 1
}

// outerColumn resolves a name the subquery's scope lacks in the queries
// around it, innermost first; ok is false when none has it.
func (a *analyzer) outerColumn(x *Column) (rex, bool) {
	f := a.outer
	if f == nil {
		return nil, false
	}
	a.outer = f.up // the query around the subquery sees its own outer queries
	e, err := f.r.column(x)
	a.outer = f
	if err != nil {
		return nil, false
	}
	name := x.Path[len(x.Path)-1]
	if c, ok := e.(*rCol); ok {
		name = c.name
	}
	return &rOuter{i: f.add(e, name), t: e.Type(), name: name}, true
}

// subquery analyses q as a subquery of the expression r resolves.
func (r *exprResolver) subquery(q Query, kind subKind) (rel, *outerFrame, error) {
	f := &outerFrame{r: r, up: r.a.outer}
	r.a.outer = f
	defer func() { r.a.outer = f.up }()
	out, err := r.a.query(q, r.a.ctes)
	if err != nil {
		return rel{}, nil, err
	}
	if err := checkCorrelation(out.n, kind, len(f.params) > 0, q.Position()); err != nil {
		return rel{}, nil, err
	}
	return out, f, nil
}

func (r *exprResolver) scalarSubquery(x *ScalarSubquery) (rex, error) {
	out, f, err := r.subquery(x.Query, subScalar)
	if err != nil {
		return nil, err
	}
	fs := out.n.fields()
	if len(fs) != 1 {
		return nil, errorf(x.Pos, "a scalar subquery must give one column, this one gives %d", len(fs))
	}
	return &rSubquery{kind: subScalar, plan: out.n, args: f.params, t: fs[0].typ,
		name: "scalarsubquery(" + subqueryOuterNames(out.n, f) + ")", pos: x.Pos, id: subqueryIDs.Add(1), src: x}, nil
}

func (r *exprResolver) exists(x *Exists) (rex, error) {
	out, f, err := r.subquery(x.Query, subExists)
	if err != nil {
		return nil, err
	}
	return &rSubquery{kind: subExists, plan: out.n, args: f.params, t: tBool,
		name: "exists(" + subqueryOuterNames(out.n, f) + ")", pos: x.Pos, id: subqueryIDs.Add(1), src: x}, nil
}

// inSubquery is x [NOT] IN (SELECT …): each value and the subquery's column
// in its place cast to their common type, as Spark's InConversion.
func (r *exprResolver) inSubquery(x *InSubquery) (rex, error) {
	vals := make([]rex, len(x.X))
	for i, e := range x.X {
		v, err := r.resolve(e)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	out, f, err := r.subquery(x.Query, subIn)
	if err != nil {
		return nil, err
	}
	fs := out.n.fields()
	if len(fs) != len(vals) {
		return nil, errorf(x.Pos, "%s: the left side has %d value(s), the subquery gives %d column(s)", x, len(vals), len(fs))
	}
	types := make([]arrow.DataType, len(fs))
	for i, v := range vals {
		ct := comparisonType(v.Type(), fs[i].typ)
		if ct == nil {
			ct = widerType(v.Type(), fs[i].typ, true)
		}
		if ct == nil {
			return nil, errorf(x.Pos, "%s: cannot compare %s with the subquery's %s", x, typeName(v.Type()), typeName(fs[i].typ))
		}
		if isNull(ct) {
			ct = tString
		}
		if vals[i], err = r.implicitCast(v, ct, x.X[i]); err != nil {
			return nil, err
		}
		types[i] = ct
	}
	names := make([]string, len(vals))
	for i, v := range vals {
		names[i] = v.sql()
	}
	lhs := strings.Join(names, ", ")
	if len(vals) > 1 {
		lhs = "(" + lhs + ")"
	}
	var e rex = &rSubquery{kind: subIn, plan: castColumns(out.n, types), nIn: len(vals),
		args: append(vals, f.params...), t: tBool,
		name: "(" + lhs + " IN (listquery(" + subqueryOuterNames(out.n, f) + ")))", pos: x.Pos, id: subqueryIDs.Add(1), src: x}
	if x.Not {
		e = &rNot{x: e}
	}
	return e, nil
}

// outerNames lists the outer references of a subquery's plan as Spark
// names the subquery (`scalarsubquery(c1, c2)`): in plan order, repeats
// kept.
// subqueryOuterNames is outerNames of a subquery's plan n, after the outer
// values only its WITH queries that n does not read use (Spark keeps
// those definitions ahead of the plan: cte-nested.sql names
// `(WITH unreferenced AS (SELECT id) SELECT 1)` scalarsubquery(id)).
func subqueryOuterNames(n lnode, f *outerFrame) string {
	seen := map[int]bool{}
	walkPlanRex(n, func(e rex) {
		walkRex(e, func(x rex) bool {
			if o, ok := x.(*rOuter); ok {
				seen[o.i] = true
			}
			return true
		})
	})
	var names []string
	for i, name := range f.names {
		if !seen[i] {
			names = append(names, name)
		}
	}
	if plan := outerNames(n); plan != "" {
		names = append(names, plan)
	}
	return strings.Join(names, ", ")
}

func outerNames(n lnode) string {
	var names []string
	walkPlanRex(n, func(e rex) {
		walkRex(e, func(x rex) bool {
			if o, ok := x.(*rOuter); ok {
				names = append(names, o.name)
			}
			return true
		})
	})
	return strings.Join(names, ", ")
}

// walkPlanRex calls f on every expression of n and its inputs, top down
// (not inside the plans of nested subqueries: those are theirs).
func walkPlanRex(n lnode, f func(rex)) {
	for _, e := range nodeRexes(n) {
		f(e)
	}
	for _, in := range n.inputs() {
		walkPlanRex(in, f)
	}
}

// nodeRexes are the expressions a plan node holds.
func nodeRexes(n lnode) []rex {
	switch x := n.(type) {
	case *lFilter:
		return []rex{x.pred}
	case *lProject:
		return x.exprs
	case *lAggregate:
		out := append([]rex(nil), x.keys...)
		for _, a := range x.aggs {
			out = append(out, a.args...)
		}
		return out
	case *lJoin:
		out := append(append([]rex(nil), x.lkeys...), x.rkeys...)
		if x.cond != nil {
			out = append(out, x.cond)
		}
		return out
	case *lGenerate:
		return []rex{x.list}
	case *lValues:
		var out []rex
		for _, row := range x.rows {
			out = append(out, row...)
		}
		return out
	}
	if h, ok := n.(interface{ rexes() []rex }); ok {
		return h.rexes()
	}
	return nil
}

// hasOuter says whether e reads an outer value of the subquery it is in
// (not one of a subquery nested in it).
func hasOuter(e rex) bool {
	found := false
	walkRex(e, func(x rex) bool {
		if _, ok := x.(*rOuter); ok {
			found = true
		}
		return !found
	})
	return found
}

// checkCorrelation refuses what Spark 3.5 refuses of a correlated subquery
// (CheckAnalysis.checkCorrelationsInSubquery, with its decorrelation of
// inner queries on): outer references only in filters, projections and
// joins, not in a grouping, a sort, a limit or a generator, nor below the
// side of an outer join that NULLs pad (or below a set operation, but in
// a scalar subquery); an aggregate function never reads the outer query
// (one reading only outer columns is the outer query's, resolved there);
// and a correlated scalar subquery is aggregated, so that it has one row
// per outer row.
func checkCorrelation(n lnode, kind subKind, correlated bool, pos Pos) error {
	if !correlated {
		return nil
	}
	scalar := kind == subScalar
	var check func(n lnode, aggregated, canHost bool) error
	check = func(n lnode, aggregated, canHost bool) error {
		own := false
		for _, e := range nodeRexes(n) {
			own = own || hasOuter(e)
		}
		if !canHost && own {
			return errorf(pos, "a correlated column of the outer query is not allowed here: %s is on a path Spark cannot decorrelate", n.describe())
		}
		switch x := n.(type) {
		case *lFilter, *lProject:
			return check(n.inputs()[0], aggregated, canHost)
		case *lAggregate:
			for _, a := range x.aggs {
				mixed := false
				for _, arg := range a.args {
					mixed = mixed || hasOuter(arg)
				}
				if mixed {
					return errorf(pos, "the aggregate function %s refers to the outer query; aggregate an outer column in the outer query", a.name)
				}
			}
			for _, k := range x.keys {
				if hasOuter(k) {
					return errorf(pos, "a correlated column is not allowed in GROUP BY of a subquery: %s", k.sql())
				}
			}
			return check(x.in, true, canHost)
		case *lJoin:
			switch x.kind {
			case InnerJoin, CrossJoin:
				if err := check(x.l, aggregated, canHost); err != nil {
					return err
				}
				return check(x.r, aggregated, canHost)
			case LeftJoin, SemiJoin, AntiJoin:
				if err := check(x.l, aggregated, canHost); err != nil {
					return err
				}
				return check(x.r, aggregated, false)
			case RightJoin:
				if err := check(x.l, aggregated, false); err != nil {
					return err
				}
				return check(x.r, aggregated, canHost)
			}
			if err := check(x.l, aggregated, false); err != nil {
				return err
			}
			return check(x.r, aggregated, false)
		case *lSort, *lLimit, *lDistinct, *lGenerate:
			if own {
				return errorf(pos, "a correlated column of the outer query is not allowed in %s", n.describe())
			}
			for _, in := range n.inputs() {
				if err := check(in, aggregated, canHost); err != nil {
					return err
				}
			}
			return nil
		case *lUnion, *lSetOp:
			for _, in := range n.inputs() {
				if err := check(in, aggregated, canHost && scalar); err != nil {
					return err
				}
			}
			return nil
		case *lScan, *lValues:
			return nil
		}
		for _, in := range n.inputs() {
			if err := check(in, aggregated, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := check(n, false, true); err != nil {
		return err
	}
	if scalar && !oneRowPerOuterRow(n) {
		return errorf(pos, "a correlated scalar subquery must be aggregated to give one row per outer row (Spark's MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY)")
	}
	if scalar {
		return checkGroupedCorrelation(n, pos)
	}
	return nil
}

// checkGroupedCorrelation refuses a correlated scalar subquery grouped by
// an inner column that is not equal to an outer value (Spark's
// NON_CORRELATED_COLUMNS_IN_GROUP_BY): it would give a row per group.
func checkGroupedCorrelation(n lnode, pos Pos) error {
	n = belowProjects(n)
	if f, ok := n.(*lFilter); ok {
		n = f.in
	}
	agg, ok := n.(*lAggregate)
	if !ok || len(agg.keys) == 0 {
		return nil
	}
	equal := map[string]bool{} // inner expressions equal to an outer value
	in := agg.in
	for {
		f, ok := in.(*lFilter)
		if !ok {
			break
		}
		for _, c := range rexConjuncts(f.pred) {
			if inner, _, ok := splitCorrelation(c); ok {
				equal[rexKey(inner)] = true
			}
		}
		in = f.in
	}
	if _, isFilter := agg.in.(*lFilter); !isFilter {
		return nil // correlated deeper down: not checked here
	}
	for _, k := range agg.keys {
		if colCount(k) > 0 && !equal[rexKey(k)] {
			return errorf(pos, "a correlated scalar subquery may group only by columns equal to outer values; %s is not (Spark's NON_CORRELATED_COLUMNS_IN_GROUP_BY)", k.sql())
		}
	}
	return nil
}

// oneRowPerOuterRow is Spark's test that a correlated scalar subquery gives
// at most one row: below its projections an aggregate (with an aggregate
// function), a filter over one, or a plan of at most one row.
func oneRowPerOuterRow(n lnode) bool {
	n = belowProjects(n)
	if f, ok := n.(*lFilter); ok {
		if a, isAgg := f.in.(*lAggregate); isAgg {
			return len(a.aggs) > 0
		}
	}
	if a, ok := n.(*lAggregate); ok {
		return len(a.aggs) > 0
	}
	return maxOneRow(n)
}

// maxOneRow says whether n gives at most one row whatever its input.
func maxOneRow(n lnode) bool {
	switch x := n.(type) {
	case *lValues:
		return len(x.rows) <= 1
	case *lAggregate:
		return len(x.keys) == 0
	case *lLimit:
		return x.n >= 0 && x.n <= 1 || maxOneRow(x.in)
	case *lProject, *lFilter, *lSort, *lDistinct:
		return maxOneRow(n.inputs()[0])
	}
	return false
}

// outerAggregate resolves an aggregate function of a subquery whose
// arguments read only the outer query's columns as Spark does: as an
// aggregate of the outer query (HAVING EXISTS (… WHERE x < min(outer.y))),
// when that query aggregates.
func (r *exprResolver) outerAggregate(x *Call) (rex, bool, error) {
	f := r.a.outer
	if f == nil || f.r.aggs == nil || x.Star {
		return nil, false, nil
	}
	cols, local := 0, false
	for _, arg := range x.Args {
		visit(arg, func(e Expr) bool {
			if c, ok := e.(*Column); ok {
				cols++
				local = local || r.sc.has(c.Path)
			}
			return true
		})
	}
	if cols == 0 || local {
		return nil, false, nil
	}
	r.a.outer = f.up
	e, err := f.r.call(x)
	r.a.outer = f
	if err != nil {
		return nil, true, err
	}
	return &rOuter{i: f.add(e, e.sql()), t: e.Type(), name: e.sql()}, true, nil
}

// tuple is `(a, b AS y)` as a value: a struct whose fields take the
// items' aliases, else a column's name, else col1, col2, … (Spark's
// CreateStruct).
func (r *exprResolver) tuple(x *Tuple) (rex, error) {
	s, ok := fn.Lookup("named_struct")
	if !ok {
		return nil, unsupported(x.Pos, "a struct value "+x.String())
	}
	var args []rex
	names := make([]string, 0, 2*len(x.Items))
	for i, it := range x.Items {
		v, err := r.resolve(it)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("col%d", i+1)
		if i < len(x.Names) && x.Names[i] != "" {
			name = x.Names[i]
		} else if c, isCol := v.(*rCol); isCol {
			name = c.name
		} else if c, isCol := it.(*Column); isCol {
			name = c.Path[len(c.Path)-1] // a struct field: its name
		}
		args = append(args, &rLit{v: name, t: tString}, v)
		names = append(names, name, v.sql())
	}
	return r.bindCall(s, args, x.Pos, x.String(), "named_struct("+strings.Join(names, ", ")+")")
}

// belowProjects is the first node under a chain of projections.
func belowProjects(n lnode) lnode {
	for {
		p, ok := n.(*lProject)
		if !ok {
			return n
		}
		n = p.in
	}
}
