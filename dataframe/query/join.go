package query

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// joinOp is a hash join: the right side is read into memory and hashed on
// its keys, the left side streams through it. Rows pair when their keys
// are equal (never on NULL) and the residual condition, if any, is true.
// Without keys every pair is a candidate (CROSS JOIN, non-equi ON). A semi
// join yields each left row that pairs once, an anti join each that does
// not.
type joinOp struct {
	left, right op
	kind        JoinKind
	lkeys       []*cexpr // over the left input
	rkeys       []*cexpr // over the right input
	residual    *cexpr   // over pairSchema, or nil
	schema      *arrow.Schema
	pairSchema  *arrow.Schema // the kept left columns, then the kept right ones
	rschema     *arrow.Schema
	lcols       []int // the left columns a pair keeps
	rcols       []int // the right columns it keeps, after them
	e           *env
	// keepRows makes probe keep, in rows, the build row of every row of
	// the batch it returns (an inner join: an aggregate above groups by it).
	keepRows bool
	rows     []int64
	// unread, when set, marks the pair columns the parent never reads:
	// pairs gives them as NULLs (one array per batch length) instead of
	// copying their values.
	unread []bool
	blank  []arrow.Array // the NULL arrays of unread columns, by pair column
	// Buffers probe reuses from batch to batch (what it hands on is used
	// before the next batch is asked for).
	gidBuf       []int32
	liBuf, riBuf []int64

	built   bool
	build   arrow.Record
	g       *grouper
	head    []int32 // per group: first build row
	chain   []int32 // per build row: next row of its group, -1 end
	matched []bool  // build rows matched (RIGHT/FULL)
	tailed  bool
}

func (o *joinOp) buildSide() error {
	o.built = true
	recs, err := drain(o.right)
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if len(recs) == 0 {
		cols := emptyColumns(o.e.mem, o.rschema)
		o.build = array.NewRecord(o.rschema, cols, 0)
		releaseAll(cols)
	} else if o.build, err = concatRecords(o.e.mem, o.rschema, recs); err != nil {
		return err
	}
	n := int(o.build.NumRows())
	o.chain = make([]int32, n)
	if o.kind == RightJoin || o.kind == FullJoin {
		o.matched = make([]bool, n)
	}
	if len(o.rkeys) == 0 {
		for i := range o.chain {
			o.chain[i] = int32(i + 1)
		}
		if n > 0 {
			o.chain[n-1] = -1
			o.head = []int32{0}
		}
		return nil
	}
	keys, err := evalAll(o.e, o.rkeys, o.build)
	if err != nil {
		return err
	}
	defer releaseAll(keys)
	types := make([]arrow.DataType, len(keys))
	for i, k := range keys {
		types[i] = k.DataType()
	}
	o.g = newGrouper(o.e.mem, types)
	gids, err := o.g.ids(keys, n)
	if err != nil {
		return err
	}
	o.g.release()
	if o.g.ints != nil {
		o.g.ints.freeze()
	}
	o.head = make([]int32, o.g.n)
	for i := range o.head {
		o.head[i] = -1
	}
	// Rows are chained in reverse so that walking a chain visits them in
	// input order.
	for i := n - 1; i >= 0; i-- {
		nullKey := false
		for _, k := range keys {
			nullKey = nullKey || k.IsNull(i)
		}
		if nullKey {
			o.chain[i] = -1
			continue
		}
		g := gids[i]
		o.chain[i] = o.head[g]
		o.head[g] = int32(i)
	}
	return nil
}

func emptyColumns(mem memory.Allocator, s *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = fn.NullArray(mem, f.Type, 0)
	}
	return cols
}

func evalAll(e *env, xs []*cexpr, rec arrow.Record) ([]arrow.Array, error) {
	return evalExprs(e.ec, xs, rec)
}

func (o *joinOp) next() (arrow.Record, error) {
	if !o.built {
		if err := o.buildSide(); err != nil {
			return nil, err
		}
	}
	for {
		rec, err := o.left.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return o.tail()
		}
		out, err := o.probe(rec)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

// probe joins one left batch.
func (o *joinOp) probe(rec arrow.Record) (arrow.Record, error) {
	n := int(rec.NumRows())
	var gids []int32
	if len(o.lkeys) > 0 {
		keys, err := evalAll(o.e, o.lkeys, rec)
		if err != nil {
			return nil, err
		}
		gids = o.g.lookup(keys, n, o.gidBuf)
		o.gidBuf = gids
		releaseAll(keys)
	}
	li, ri := o.liBuf[:0], o.riBuf[:0]
	defer func() { o.liBuf, o.riBuf = li[:0], ri[:0] }()
	for i := 0; i < n; i++ {
		r := int32(-1)
		switch {
		case gids != nil && gids[i] >= 0:
			r = o.head[gids[i]]
		case gids == nil && len(o.head) > 0:
			r = o.head[0]
		}
		for ; r >= 0; r = o.chain[r] {
			li, ri = append(li, int64(i)), append(ri, int64(r))
		}
	}
	var pairs arrow.Record
	if len(li) > 0 {
		var err error
		if pairs, err = o.pairs(rec, li, ri, nil); err != nil {
			return nil, err
		}
		if o.residual != nil {
			m, err := o.residual.eval(o.e.ec, pairs)
			if err != nil {
				pairs.Release()
				return nil, err
			}
			b := m.(*array.Boolean)
			k := 0
			for j := range li {
				if b.IsValid(j) && b.Value(j) {
					li[k], ri[k] = li[j], ri[j]
					k++
				}
			}
			m.Release()
			if k < len(li) {
				li, ri = li[:k], ri[:k]
				pairs.Release()
				pairs = nil
				if k > 0 {
					if pairs, err = o.pairs(rec, li, ri, nil); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if o.matched != nil {
		for _, r := range ri {
			o.matched[r] = true
		}
	}
	if o.keepRows {
		o.rows = ri
	}
	if o.kind == SemiJoin || o.kind == AntiJoin {
		if pairs != nil {
			pairs.Release()
		}
		return o.semi(rec, li)
	}
	if o.kind != LeftJoin && o.kind != FullJoin {
		return pairs, nil
	}
	// Left rows without a partner keep a row with NULLs on the right.
	hit := make([]bool, n)
	for _, l := range li {
		hit[l] = true
	}
	var lone []int64
	for i, h := range hit {
		if !h {
			lone = append(lone, int64(i))
		}
	}
	if len(lone) == 0 {
		return pairs, nil
	}
	nulls := make([]int64, len(lone))
	valid := make([]bool, len(lone))
	rest, err := o.pairs(rec, lone, nulls, valid)
	if err != nil {
		if pairs != nil {
			pairs.Release()
		}
		return nil, err
	}
	if pairs == nil {
		return rest, nil
	}
	defer pairs.Release()
	defer rest.Release()
	return concatRecords(o.e.mem, o.schema, []arrow.Record{pairs, rest})
}

// semi yields, of the left batch rec, the rows that paired (li holds
// them, in order, repeated per partner) for a semi join, the others for an
// anti join; the left's kept columns only.
func (o *joinOp) semi(rec arrow.Record, li []int64) (arrow.Record, error) {
	n := int(rec.NumRows())
	hit := make([]bool, n)
	for _, l := range li {
		hit[l] = true
	}
	want := o.kind == SemiJoin
	var idx []int64
	for i, h := range hit {
		if h == want {
			idx = append(idx, int64(i))
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, 0, len(o.lcols))
	for _, c := range o.lcols {
		a, err := dataframe.Take(o.e.mem, rec.Column(c), idx)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecord(o.schema, cols, int64(len(idx)))
	releaseAll(cols)
	return out, nil
}

// pairs builds joined rows: left rows li next to build rows ri (rvalid
// false: NULLs; nil: all valid). A nil left side (rec) means NULLs on the
// left, for RIGHT and FULL joins' unmatched build rows.
func (o *joinOp) pairs(rec arrow.Record, li, ri []int64, rvalid []bool) (arrow.Record, error) {
	cols := make([]arrow.Array, 0, o.pairSchema.NumFields())
	fail := func(err error) (arrow.Record, error) {
		releaseAll(cols)
		return nil, err
	}
	// Every left row paired once, in order (a fact table against its
	// dimension): the left's columns are the pairs' as they are.
	whole := rec != nil && len(li) == int(rec.NumRows()) && inOrder(li)
	for k, c := range o.lcols {
		if rec == nil {
			cols = append(cols, fn.NullArray(o.e.mem, o.pairSchema.Field(k).Type, len(ri)))
			continue
		}
		if o.isUnread(k) {
			cols = append(cols, o.blankColumn(k, len(ri)))
			continue
		}
		if whole {
			a := rec.Column(c)
			a.Retain()
			cols = append(cols, a)
			continue
		}
		a, err := dataframe.Take(o.e.mem, rec.Column(c), li)
		if err != nil {
			return fail(err)
		}
		cols = append(cols, a)
	}
	for k, c := range o.rcols {
		if o.isUnread(len(o.lcols) + k) {
			cols = append(cols, o.blankColumn(len(o.lcols)+k, len(ri)))
			continue
		}
		col := o.build.Column(c)
		var a arrow.Array
		var err error
		if rvalid != nil {
			a, err = takeNullable(o.e.mem, col, append([]int64(nil), ri...), rvalid)
		} else {
			a, err = dataframe.Take(o.e.mem, col, ri)
		}
		if err != nil {
			return fail(err)
		}
		cols = append(cols, a)
	}
	out := array.NewRecord(o.pairSchema, cols, int64(len(ri)))
	releaseAll(cols)
	return out, nil
}

func (o *joinOp) isUnread(k int) bool { return k < len(o.unread) && o.unread[k] }

// blankColumn is the stand-in of unread pair column k for n rows: NULLs,
// made once per batch length and shared.
func (o *joinOp) blankColumn(k, n int) arrow.Array {
	if o.blank == nil {
		o.blank = make([]arrow.Array, len(o.unread))
	}
	if b := o.blank[k]; b == nil || b.Len() != n {
		if b != nil {
			b.Release()
		}
		o.blank[k] = fn.NullArray(o.e.mem, o.pairSchema.Field(k).Type, n)
	}
	o.blank[k].Retain()
	return o.blank[k]
}

// inOrder reports whether idx is 0, 1, 2, ….
func inOrder(idx []int64) bool {
	for i, v := range idx {
		if v != int64(i) {
			return false
		}
	}
	return true
}

// tail yields, after the left side, the build rows nothing matched (RIGHT
// and FULL joins).
func (o *joinOp) tail() (arrow.Record, error) {
	if o.tailed || o.matched == nil {
		return nil, nil
	}
	o.tailed = true
	var ri []int64
	for r, m := range o.matched {
		if !m {
			ri = append(ri, int64(r))
		}
	}
	if len(ri) == 0 {
		return nil, nil
	}
	return o.pairs(nil, nil, ri, nil)
}

func (o *joinOp) close() {
	o.left.close()
	o.right.close()
	if o.build != nil {
		o.build.Release()
		o.build = nil
	}
	for k, b := range o.blank {
		if b != nil {
			b.Release()
			o.blank[k] = nil
		}
	}
}
