package query

import (
	"github.com/apache/arrow/go/v17/arrow"
)

// A WITH query that is not deterministic (it calls rand(), uuid(), …) and
// is named more than once is computed once per run and its rows read by
// every reference, as Spark does not inline such a CTE: `WITH q AS (SELECT
// rand() r …) SELECT * FROM q UNION SELECT * FROM q` sees the same values
// twice. The analyser makes every reference an lShared of one sharedCTE;
// the rows are held in memory for the run.

// sharedCTE is a WITH query computed once per run.
type sharedCTE struct {
	name string
	in   lnode // its plan; the rewrites reach it through each reference
	refs int   // the references the analysis made (a single one is inlined)
	phys *node // its operators, built once
}

// lShared is a reference to a shared WITH query. It is a barrier to the
// rewrites (nothing moves through it), which reach its plan as its input.
type lShared struct {
	cte *sharedCTE
	out []field
}

func (x *lShared) fields() []field  { return x.out }
func (x *lShared) inputs() []lnode  { return []lnode{x.cte.in} }
func (x *lShared) describe() string { return "Shared " + x.cte.name }

// withInputs keeps one plan for every reference: the rewrites of the
// shared plan are the same wherever they start, nothing above reaching in.
func (x *lShared) withInputs(ins []lnode) lnode {
	x.cte.in = ins[0]
	return x
}

// nondeterministicPlan says whether a plan calls a function whose value
// changes from call to call (fn.Scalar.Nondeterministic).
func nondeterministicPlan(n lnode) bool {
	found := false
	walkPlanRex(n, func(e rex) {
		found = found || !deterministic(e)
	})
	return found
}

func (pp *physPlanner) physShared(x *lShared) (*node, error) {
	c := x.cte
	if c.refs < 2 {
		return pp.build(c.in) // read once: nothing to share
	}
	if c.phys == nil {
		in, err := pp.build(c.in)
		if err != nil {
			return nil, err
		}
		c.phys = in
	}
	schema := c.phys.schema
	return &node{schema: schema, label: x.describe(), children: nil, open: func(e *env, _ []op) (op, error) {
		return &sharedOp{cte: c, e: e, schema: schema}, nil
	}}, nil
}

// sharedOp replays the rows of a shared WITH query, computing them on the
// first read of any reference of the run.
type sharedOp struct {
	cte    *sharedCTE
	e      *env
	schema *arrow.Schema
	recs   []arrow.Record
	pos    int
	read   bool
}

func (o *sharedOp) next() (arrow.Record, error) {
	if !o.read {
		o.read = true
		recs, err := o.e.ec.run.sharedRows(o.cte, o.e)
		if err != nil {
			return nil, err
		}
		o.recs = recs
	}
	if o.pos >= len(o.recs) {
		return nil, nil
	}
	r := o.recs[o.pos]
	o.pos++
	r.Retain()
	return r, nil
}

func (o *sharedOp) close() {}

// sharedRows are the rows of c for this run, computed on the first call;
// the run releases them.
func (r *subRun) sharedRows(c *sharedCTE, e *env) ([]arrow.Record, error) {
	r.mu.Lock()
	if recs, ok := r.shared[c]; ok {
		r.mu.Unlock()
		return recs, nil
	}
	r.mu.Unlock()
	o, err := c.phys.start(e)
	if err != nil {
		return nil, err
	}
	recs, err := drain(o)
	o.close()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.shared[c]; ok { // computed meanwhile: keep the first
		for _, rec := range recs {
			rec.Release()
		}
		return prev, nil
	}
	if r.shared == nil {
		r.shared = map[*sharedCTE][]arrow.Record{}
	}
	r.shared[c] = recs
	return recs, nil
}
