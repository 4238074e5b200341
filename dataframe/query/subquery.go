package query

import (
	"fmt"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// How a subquery the rewrites did not turn into a join runs: its plan runs
// once per distinct tuple of the outer values it reads (once in all when it
// reads none), with each outer value bound to that tuple, and its answer is
// kept for the rest of the query's run — the scalar value, whether a row
// exists, or the rows IN tests against, hashed. See docs/sql.md#subqueries.

// subRun is what the subqueries of one run of a plan share: the run's env
// and each subquery's answers so far. It is released when the run ends.
type subRun struct {
	e    *env
	mu   sync.Mutex
	memo map[int64]*subMemo
	// shared are the rows of the shared WITH queries computed (shared.go).
	shared map[*sharedCTE][]arrow.Record
}

// subMemo is one subquery's answers, per distinct tuple of outer values.
type subMemo struct {
	g      *grouper // numbers the tuples; nil for an uncorrelated subquery
	done   int      // answers computed: groups 0…done-1
	scalar []arrow.Array
	all    arrow.Array // scalar concatenated, once complete
	exists []bool
	sets   []*inSet
}

// runOp ends a run: closing it closes the plan and releases what its
// subqueries kept.
type runOp struct {
	op
	run *subRun
}

func (o *runOp) close() {
	o.op.close()
	o.run.release()
}

func (r *subRun) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.memo {
		m.release()
	}
	r.memo = nil
	for _, recs := range r.shared {
		for _, rec := range recs {
			rec.Release()
		}
	}
	r.shared = nil
}

func (m *subMemo) release() {
	releaseAll(m.scalar)
	m.scalar = nil
	if m.all != nil {
		m.all.Release()
		m.all = nil
	}
	for _, s := range m.sets {
		s.release()
	}
	m.sets = nil
	if m.g != nil {
		m.g.release()
	}
}

func compileOuter(x *rOuter) *cexpr {
	i, t := x.i, x.t
	return &cexpr{typ: t, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		if i >= len(ec.outer) {
			return nil, fmt.Errorf("query: outer reference %s outside its subquery (a planner bug)", x.name)
		}
		return repeatRow(ec, ec.outer[i], int(rec.NumRows()))
	}}
}

// repeatRow is n copies of a one-row array.
func repeatRow(ec *ectx, a arrow.Array, n int) (arrow.Array, error) {
	return dataframe.Take(ec.mem, a, make([]int64, n))
}

func compileSubquery(s *rSubquery) (*cexpr, error) {
	phys, err := physical(s.plan)
	if err != nil {
		return nil, err
	}
	args, err := compileAll(s.args)
	if err != nil {
		return nil, err
	}
	return &cexpr{typ: s.t, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		if ec.run == nil {
			return nil, fmt.Errorf("%s: a subquery is evaluated only when the query runs", s.name)
		}
		n := int(rec.NumRows())
		vals, err := evalExprs(ec, args, rec)
		if err != nil {
			return nil, err
		}
		defer releaseAll(vals)
		gids, err := ec.run.answer(ec, s, phys, vals[s.nIn:], n)
		if err != nil {
			return nil, err
		}
		m := ec.run.memoOf(s)
		switch s.kind {
		case subScalar:
			return m.scalarOut(ec, s.t, gids)
		case subExists:
			return boolArray(ec.mem, n, nil, func(i int) bool { return m.exists[gids[i]] }), nil
		}
		return m.inOut(ec, vals[:s.nIn], gids, n)
	}}, nil
}

func evalExprs(ec *ectx, xs []*cexpr, rec arrow.Record) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(xs))
	for _, x := range xs {
		a, err := x.eval(ec, rec)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (r *subRun) memoOf(s *rSubquery) *subMemo {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.memo == nil {
		r.memo = map[int64]*subMemo{}
	}
	m := r.memo[s.id]
	if m == nil {
		m = &subMemo{}
		r.memo[s.id] = m
	}
	return m
}

// answer numbers the outer tuples of the n rows (params) and computes the
// answer of each tuple not seen before.
func (r *subRun) answer(ec *ectx, s *rSubquery, phys *node, params []arrow.Array, n int) ([]int32, error) {
	m := r.memoOf(s)
	gids := make([]int32, n)
	if len(params) > 0 {
		if m.g == nil {
			types := make([]arrow.DataType, len(params))
			for i, p := range params {
				types[i] = p.DataType()
			}
			m.g = newGrouper(r.e.mem, types)
		}
		var err error
		if gids, err = m.g.ids(params, n); err != nil {
			return nil, err
		}
		m.g.release() // the grouper's copies of the keys are not needed
		m.g.keys = make([][]arrow.Array, len(params))
	} else if n == 0 {
		return gids, nil
	}
	for i, g := range gids {
		if int(g) < m.done {
			continue
		}
		binding := make([]arrow.Array, len(params))
		for k, p := range params {
			binding[k] = array.NewSlice(p, int64(i), int64(i+1))
		}
		err := r.compute(ec, s, phys, m, binding)
		releaseAll(binding)
		if err != nil {
			return nil, err
		}
		m.done++
	}
	return gids, nil
}

// compute runs the subquery's plan for one outer tuple and keeps its
// answer.
func (r *subRun) compute(ec *ectx, s *rSubquery, phys *node, m *subMemo, binding []arrow.Array) error {
	child := &env{ctx: r.e.ctx, mem: r.e.mem, sortLimit: r.e.sortLimit}
	child.ec = &ectx{mem: r.e.mem, fctx: ec.fctx, run: r, outer: binding}
	o, err := phys.start(child)
	if err != nil {
		return err
	}
	defer o.close()
	var recs []arrow.Record
	defer func() { releaseAllRecords(recs) }()
	rows := 0
	for {
		rec, err := o.next()
		if err != nil {
			return err
		}
		if rec == nil {
			break
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		recs = append(recs, rec)
		rows += int(rec.NumRows())
		if s.kind == subExists || s.kind == subScalar && rows > 1 {
			break
		}
	}
	switch s.kind {
	case subExists:
		m.exists = append(m.exists, rows > 0)
	case subScalar:
		if rows > 1 {
			return errorf(s.pos, "more than one row returned by a subquery used as an expression (Spark's MULTI_VALUE_SUBQUERY_ERROR)")
		}
		var v arrow.Array
		if rows == 0 {
			v = fn.NullArray(r.e.mem, s.t, 1)
		} else {
			v = array.NewSlice(recs[0].Column(0), 0, 1)
		}
		m.scalar = append(m.scalar, v)
	case subIn:
		set, err := newInSet(r.e, phys.schema, recs)
		if err != nil {
			return err
		}
		m.sets = append(m.sets, set)
	}
	return nil
}

func releaseAllRecords(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

func (m *subMemo) scalarOut(ec *ectx, t arrow.DataType, gids []int32) (arrow.Array, error) {
	if m.all == nil || m.all.Len() < len(m.scalar) {
		if m.all != nil {
			m.all.Release()
		}
		all, err := concatArrays(ec.mem, t, m.scalar)
		if err != nil {
			return nil, err
		}
		m.all = all
	}
	idx := make([]int64, len(gids))
	for i, g := range gids {
		idx[i] = int64(g)
	}
	return dataframe.Take(ec.mem, m.all, idx)
}

// inSet is the rows an IN subquery gave for one outer tuple, hashed.
type inSet struct {
	n     int
	cols  []arrow.Array
	g     *grouper // every row; lookups never match a tuple with a NULL
	nulls []int    // the rows with a NULL value
}

func newInSet(e *env, schema *arrow.Schema, recs []arrow.Record) (*inSet, error) {
	s := &inSet{}
	if len(recs) == 0 {
		return s, nil
	}
	rec, err := concatRecords(e.mem, schema, recs)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	s.n = int(rec.NumRows())
	types := make([]arrow.DataType, rec.NumCols())
	for i := range types {
		c := rec.Column(i)
		c.Retain()
		s.cols = append(s.cols, c)
		types[i] = c.DataType()
	}
	s.g = newGrouper(e.mem, types)
	if _, err := s.g.ids(s.cols, s.n); err != nil {
		s.release()
		return nil, err
	}
	s.g.release()
	if s.g.ints != nil {
		s.g.ints.freeze()
	}
	for i := 0; i < s.n; i++ {
		for _, c := range s.cols {
			if isNullAt(c, i) {
				s.nulls = append(s.nulls, i)
				break
			}
		}
	}
	return s, nil
}

func (s *inSet) release() {
	releaseAll(s.cols)
	s.cols = nil
}

// inOut is the IN test of every row: true when the values equal a row of
// its outer tuple's set; else NULL when a row might (a NULL on either side
// where nothing else differs); else false — Spark's (and SQL's) semantics
// of x IN (subquery), which NOT IN negates.
func (m *subMemo) inOut(ec *ectx, lhs []arrow.Array, gids []int32, n int) (arrow.Array, error) {
	hit := make([]bool, n)
	// Rows by set, each set probed once with its rows (all rows at once
	// when there is one set: an uncorrelated subquery).
	byGroup := map[int32][]int64{}
	if len(m.sets) == 1 {
		byGroup[0] = nil
	} else {
		for i, g := range gids {
			byGroup[g] = append(byGroup[g], int64(i))
		}
	}
	for g, rows := range byGroup {
		s := m.sets[g]
		if s.n == 0 {
			continue
		}
		keys, k := lhs, n
		if rows != nil {
			k = len(rows)
		}
		if len(byGroup) > 1 {
			keys = make([]arrow.Array, len(lhs))
			for k, a := range lhs {
				t, err := dataframe.Take(ec.mem, a, rows)
				if err != nil {
					releaseAll(keys[:k])
					return nil, err
				}
				keys[k] = t
			}
		}
		found := s.g.lookup(keys, k, nil)
		if len(byGroup) > 1 {
			releaseAll(keys)
		}
		for j, f := range found {
			if f >= 0 {
				if len(byGroup) > 1 {
					hit[rows[j]] = true
				} else {
					hit[j] = true
				}
			}
		}
	}
	valid := newValidity(ec.mem, n)
	vb := valid.Bytes()
	var cmps [][]func(i, j int) int // per set, per column (made when needed)
	cmpOf := func(g int32, k int) func(i, j int) int {
		if cmps == nil {
			cmps = make([][]func(i, j int) int, len(m.sets))
		}
		if cmps[g] == nil {
			cmps[g] = make([]func(i, j int) int, len(lhs))
		}
		if cmps[g][k] == nil {
			cmps[g][k] = comparer(lhs[k], m.sets[g].cols[k])
		}
		return cmps[g][k]
	}
	mayEqual := func(g int32, i, r int) bool {
		s := m.sets[g]
		for k, a := range lhs {
			if isNullAt(a, i) || isNullAt(s.cols[k], r) {
				continue
			}
			if cmpOf(g, k)(i, r) != 0 {
				return false
			}
		}
		return true
	}
	for i := 0; i < n; i++ {
		if hit[i] {
			continue
		}
		g := gids[i]
		s := m.sets[g]
		if s.n == 0 {
			continue
		}
		lhsNull := false
		for _, a := range lhs {
			lhsNull = lhsNull || isNullAt(a, i)
		}
		unknown := false
		switch {
		case lhsNull && len(lhs) == 1:
			unknown = true
		case lhsNull:
			for r := 0; r < s.n && !unknown; r++ {
				unknown = mayEqual(g, i, r)
			}
		default:
			for _, r := range s.nulls {
				if mayEqual(g, i, r) {
					unknown = true
					break
				}
			}
		}
		if unknown {
			bitutil.ClearBit(vb, i)
		}
	}
	return boolArray(ec.mem, n, valid, func(i int) bool { return hit[i] }), nil
}
