package query

import (
	"fmt"
	"sort"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/sluicedata/sluice/dataframe"
)

// sortKey is one ORDER BY key compiled over the sort's input.
type sortKey struct {
	x          *cexpr
	desc       bool
	nullsFirst bool
}

// rowCmp orders row i of (a…) against row j of (b…), key by key.
func rowCmp(keys []sortKey, a, b []arrow.Array) func(i, j int) int {
	cmps := make([]func(i, j int) int, len(keys))
	for k := range keys {
		cmps[k] = comparer(a[k], b[k])
	}
	return func(i, j int) int {
		for k, key := range keys {
			an, bn := a[k].IsNull(i), b[k].IsNull(j)
			if an || bn {
				if an && bn {
					continue
				}
				if an == key.nullsFirst {
					return -1
				}
				return 1
			}
			c := cmps[k](i, j)
			if c == 0 {
				continue
			}
			if key.desc {
				return -c
			}
			return c
		}
		return 0
	}
}

func evalKeys(e *env, keys []sortKey, rec arrow.Record) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(keys))
	for _, k := range keys {
		a, err := k.x.eval(e.ec, rec)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

// sortOp sorts its whole input with the external sort (extsort.go): in
// memory up to the sort memory setting, in sorted runs spilled to disk
// and merged beyond it. It is stable, as Spark's sort is for equal keys in
// practice.
type sortOp struct {
	in     op
	keys   []sortKey
	schema *arrow.Schema
	e      *env
	sorter *extSorter
	sorted op
}

func (o *sortOp) next() (arrow.Record, error) {
	if o.sorted == nil {
		if o.sorter != nil {
			return nil, nil
		}
		o.sorter = newExtSorter(o.e, o.schema, o.keys)
		for {
			rec, err := o.in.next()
			if err != nil {
				return nil, err
			}
			if rec == nil {
				break
			}
			if err := o.sorter.add(rec); err != nil {
				return nil, fmt.Errorf("ORDER BY: %w", err)
			}
		}
		var err error
		if o.sorted, err = o.sorter.finish(); err != nil {
			return nil, fmt.Errorf("ORDER BY: %w", err)
		}
	}
	return o.sorted.next()
}

func (o *sortOp) close() {
	if o.sorted != nil {
		o.sorted.close()
	}
	if o.sorter != nil {
		o.sorter.close()
	}
	o.in.close()
}

// SortLimitSetting is the session setting for the bytes a sort holds in
// memory before it spills sorted runs to disk.
const SortLimitSetting = "svc.sql.sort.memory"

// topNOp keeps the first n rows of ORDER BY … LIMIT n with memory for n
// rows: each batch only contributes rows that beat the current n-th.
type topNOp struct {
	in     op
	keys   []sortKey
	n      int64
	schema *arrow.Schema
	e      *env
	done   bool
}

func (o *topNOp) next() (arrow.Record, error) {
	if o.done || o.n == 0 {
		return nil, nil
	}
	o.done = true
	var best arrow.Record // sorted, at most n rows
	var bestKeys []arrow.Array
	defer func() {
		if best != nil {
			best.Release()
			releaseAll(bestKeys)
		}
	}()
	for {
		rec, err := o.in.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		nb, nk, err := o.merge(best, bestKeys, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		if nb != nil {
			if best != nil {
				best.Release()
				releaseAll(bestKeys)
			}
			best, bestKeys = nb, nk
		}
	}
	if best == nil {
		return nil, nil
	}
	best.Retain()
	return best, nil
}

// merge returns the best n rows of best and rec, or nil when rec adds none.
func (o *topNOp) merge(best arrow.Record, bestKeys []arrow.Array, rec arrow.Record) (arrow.Record, []arrow.Array, error) {
	keys, err := evalKeys(o.e, o.keys, rec)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(keys)
	rows := int(rec.NumRows())
	var cand []int64
	if best != nil && best.NumRows() >= o.n {
		worst := int(best.NumRows()) - 1
		var ok bool
		if cand, ok = beatsFixed(o.keys, keys, bestKeys, worst); !ok {
			cmp := rowCmp(o.keys, keys, bestKeys)
			for i := 0; i < rows; i++ {
				if cmp(i, worst) < 0 {
					cand = append(cand, int64(i))
				}
			}
		}
		if len(cand) == 0 {
			return nil, nil, nil
		}
	} else {
		cand = make([]int64, rows)
		for i := range cand {
			cand[i] = int64(i)
		}
	}
	// The best n candidates of this batch, in order (ties: the earlier row
	// first, as a stable sort).
	cand = bestOf(cand, int(o.n), rowCmp(o.keys, keys, keys))
	part, err := dataframe.TakeRecord(o.e.mem, rec, cand)
	if err != nil {
		return nil, nil, err
	}
	defer part.Release()
	if best == nil {
		part.Retain()
		k, err := evalKeys(o.e, o.keys, part)
		return part, k, err
	}
	merged, err := concatRecords(o.e.mem, o.schema, []arrow.Record{best, part})
	if err != nil {
		return nil, nil, err
	}
	defer merged.Release()
	mk, err := evalKeys(o.e, o.keys, merged)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(mk)
	cmp := rowCmp(o.keys, mk, mk)
	idx := make([]int64, merged.NumRows())
	for i := range idx {
		idx[i] = int64(i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return cmp(int(idx[a]), int(idx[b])) < 0 })
	if int64(len(idx)) > o.n {
		idx = idx[:o.n]
	}
	out, err := dataframe.TakeRecord(o.e.mem, merged, idx)
	if err != nil {
		return nil, nil, err
	}
	k, err := evalKeys(o.e, o.keys, out)
	if err != nil {
		out.Release()
		return nil, nil, err
	}
	return out, k, nil
}

func (o *topNOp) close() { o.in.close() }

// beatsFixed lists the rows of a batch whose single numeric key (no NULLs)
// comes before the worst kept row's: the top-N's hot loop, without a
// closure per row. ok is false for other keys.
func beatsFixed(keys []sortKey, batch, best []arrow.Array, worst int) (rows []int64, ok bool) {
	if len(keys) != 1 || batch[0].NullN() > 0 || best[0].IsNull(worst) {
		return nil, false
	}
	desc := keys[0].desc
	switch batch[0].DataType().ID() {
	case arrow.INT32, arrow.DATE32, arrow.INTERVAL_MONTHS:
		return beatsValue(fixedValues[int32](batch[0]), fixedValues[int32](best[0])[worst], desc), true
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		return beatsValue(fixedValues[int64](batch[0]), fixedValues[int64](best[0])[worst], desc), true
	case arrow.FLOAT64:
		return beatsValue(fixedValues[float64](batch[0]), fixedValues[float64](best[0])[worst], desc), true
	}
	return nil, false
}

func beatsValue[T int32 | int64 | float64](vals []T, worst T, desc bool) []int64 {
	var out []int64
	for i, v := range vals {
		c := cmpOrdered(v, worst)
		if desc {
			c = -c
		}
		if c < 0 {
			out = append(out, int64(i))
		}
	}
	return out
}

// bestOf is the at most n first of rows in the order cmp gives, ties in
// their given order (a stable sort's answer), found with a heap of n.
func bestOf(rows []int64, n int, cmp func(i, j int) int) []int64 {
	// before says whether row a comes first: by cmp, then by position.
	before := func(a, b int64) bool {
		if c := cmp(int(a), int(b)); c != 0 {
			return c < 0
		}
		return a < b
	}
	if len(rows) > n {
		// A max-heap of the n best so far: its root is the worst kept.
		h := append([]int64(nil), rows[:n]...)
		down := func(i int) {
			for {
				l, r, big := 2*i+1, 2*i+2, i
				if l < len(h) && before(h[big], h[l]) {
					big = l
				}
				if r < len(h) && before(h[big], h[r]) {
					big = r
				}
				if big == i {
					return
				}
				h[i], h[big] = h[big], h[i]
				i = big
			}
		}
		for i := len(h)/2 - 1; i >= 0; i-- {
			down(i)
		}
		for _, r := range rows[n:] {
			if before(r, h[0]) {
				h[0] = r
				down(0)
			}
		}
		rows = h
	}
	sort.Slice(rows, func(a, b int) bool { return before(rows[a], rows[b]) })
	return rows
}

var _ = array.NewRecord
