package query

import (
	"container/heap"
	"fmt"
	"os"
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/sluicedata/sluice/dataframe"
)

// extSorter sorts a stream of batches with bounded memory: it holds batches
// until they take `limit` bytes, then sorts them and writes them to a
// temporary file as one sorted run (Arrow IPC), and at the end merges the
// runs. Input that fits in the limit is sorted in memory and never
// touches the disk. Equal keys keep their input order (the sort is
// stable, and the merge prefers the earlier run). See
// docs/sql.md#execution-and-memory.
type extSorter struct {
	e      *env
	schema *arrow.Schema
	keys   []sortKey // over schema's columns
	limit  int64
	recs   []arrow.Record
	size   int64
	dir    string
	runs   []string
}

// sortChunk is how many rows a sorted batch holds.
const sortChunk = 1 << 16

func newExtSorter(e *env, schema *arrow.Schema, keys []sortKey) *extSorter {
	limit := e.sortLimit
	if limit <= 0 {
		limit = DefaultSortMemory
	}
	return &extSorter{e: e, schema: schema, keys: keys, limit: limit}
}

func recordSize(rec arrow.Record) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += int64(c.Data().SizeInBytes())
	}
	return n
}

// add takes rec (the sorter owns it).
func (s *extSorter) add(rec arrow.Record) error {
	s.recs = append(s.recs, rec)
	s.size += recordSize(rec)
	if s.size > s.limit {
		return s.spill()
	}
	return nil
}

// sortHeld sorts the batches held: their rows in one record and the order
// to take them in (nil: none held). The batches are joined column by
// column, each column's batches let go once joined, so the rows are held
// about once, not twice.
func (s *extSorter) sortHeld() (*sortedRows, error) {
	if len(s.recs) == 0 {
		return nil, nil
	}
	ncol := s.schema.NumFields()
	chunks := make([][]arrow.Array, ncol)
	var rows int64
	for _, r := range s.recs {
		for k := 0; k < ncol; k++ {
			c := r.Column(k)
			c.Retain()
			chunks[k] = append(chunks[k], c)
		}
		rows += r.NumRows()
		r.Release()
	}
	s.recs, s.size = nil, 0
	cols := make([]arrow.Array, ncol)
	for k := range chunks {
		var err error
		cols[k], err = concatArrays(s.e.mem, s.schema.Field(k).Type, chunks[k])
		releaseAll(chunks[k])
		if err != nil {
			releaseAll(cols[:k])
			for _, rest := range chunks[k+1:] {
				releaseAll(rest)
			}
			return nil, err
		}
	}
	all := array.NewRecord(s.schema, cols, rows)
	releaseAll(cols)
	idx, err := sortIndexes(s.e, s.keys, all)
	if err != nil {
		all.Release()
		return nil, err
	}
	return &sortedRows{rec: all, idx: idx}, nil
}

// sortedRows are rows and the order to read them in.
type sortedRows struct {
	rec arrow.Record
	idx []int64
	off int
}

// next takes the next sortChunk rows in order (nil at the end).
func (r *sortedRows) next(e *env) (arrow.Record, error) {
	if r.rec == nil || r.off >= len(r.idx) {
		return nil, nil
	}
	hi := min(r.off+sortChunk, len(r.idx))
	out, err := dataframe.TakeRecord(e.mem, r.rec, r.idx[r.off:hi])
	r.off = hi
	return out, err
}

func (r *sortedRows) release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
}

// sortIndexes is the row order of rec by keys (stable).
func sortIndexes(e *env, keys []sortKey, rec arrow.Record) ([]int64, error) {
	ka, err := evalKeys(e, keys, rec)
	if err != nil {
		return nil, err
	}
	defer releaseAll(ka)
	idx := make([]int64, rec.NumRows())
	for i := range idx {
		idx[i] = int64(i)
	}
	if fastSort(keys, ka, idx) {
		return idx, nil
	}
	cmp := rowCmp(keys, ka, ka)
	slices.SortFunc(idx, func(a, b int64) int {
		if c := cmp(int(a), int(b)); c != 0 {
			return c
		}
		return cmpOrdered(a, b) // equal keys keep their order
	})
	return idx, nil
}

// fastSort sorts idx (stable) for one or two keys of 64-bit integers
// (longs, timestamps) without NULLs, which is what most partition and
// order keys are: as plain structs, a descending key complemented; false
// when the keys are of another shape.
func fastSort(keys []sortKey, ka []arrow.Array, idx []int64) bool {
	if len(keys) == 0 || len(keys) > 2 {
		return false
	}
	vals := make([][]int64, len(keys))
	for k, a := range ka {
		if id := a.DataType().ID(); id != arrow.INT64 && id != arrow.TIMESTAMP && id != arrow.DURATION || a.NullN() > 0 {
			return false
		}
		vals[k] = fixedValues[int64](a)
	}
	key := func(k int, i int64) int64 {
		v := vals[k][i]
		if keys[k].desc {
			v = ^v // reverses the order of every int64
		}
		return v
	}
	type row struct{ a, b, i int64 }
	rows := make([]row, len(idx))
	for n, i := range idx {
		rows[n] = row{a: key(0, i), i: i}
		if len(keys) == 2 {
			rows[n].b = key(1, i)
		}
	}
	slices.SortFunc(rows, func(x, y row) int {
		switch {
		case x.a != y.a:
			return cmpOrdered(x.a, y.a)
		case x.b != y.b:
			return cmpOrdered(x.b, y.b)
		}
		return cmpOrdered(x.i, y.i)
	})
	for n, r := range rows {
		idx[n] = r.i
	}
	return true
}

// spill writes the batches held as one sorted run.
func (s *extSorter) spill() error {
	rows, err := s.sortHeld()
	if err != nil || rows == nil {
		return err
	}
	defer rows.release()
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "sluice-sort-"); err != nil {
			return fmt.Errorf("sort: a directory to spill to: %w", err)
		}
	}
	path := fmt.Sprintf("%s/run-%d.arrow", s.dir, len(s.runs))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sort: spilling: %w", err)
	}
	w := ipc.NewWriter(f, ipc.WithSchema(s.schema), ipc.WithAllocator(s.e.mem))
	for {
		part, perr := rows.next(s.e)
		if perr != nil || part == nil {
			err = perr
			break
		}
		err = w.Write(part)
		part.Release()
		if err != nil {
			break
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sort: spilling: %w", err)
	}
	s.runs = append(s.runs, path)
	return nil
}

// finish returns the sorted rows as a stream; the sorter must not be used
// after, except close (after the stream's).
func (s *extSorter) finish() (op, error) {
	if len(s.runs) == 0 {
		rows, err := s.sortHeld()
		if err != nil {
			return nil, err
		}
		return &chunkOp{rows: rows, e: s.e}, nil
	}
	if err := s.spill(); err != nil {
		return nil, err
	}
	m := &mergeOp{s: s}
	for _, p := range s.runs {
		f, err := os.Open(p)
		if err != nil {
			m.close()
			return nil, fmt.Errorf("sort: reading a spilled run: %w", err)
		}
		r, err := ipc.NewReader(f, ipc.WithAllocator(s.e.mem))
		if err != nil {
			f.Close()
			m.close()
			return nil, fmt.Errorf("sort: reading a spilled run: %w", err)
		}
		run := &mergeRun{f: f, r: r, id: len(m.runs)}
		m.runs = append(m.runs, run)
		ok, err := run.advance(s)
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.h.runs = append(m.h.runs, run)
		}
	}
	m.h.cmp = m.cmp
	heap.Init(&m.h)
	return m, nil
}

// close releases what the sorter holds and removes its files.
func (s *extSorter) close() {
	for _, r := range s.recs {
		r.Release()
	}
	s.recs = nil
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// chunkOp yields sorted rows sortChunk at a time.
type chunkOp struct {
	rows *sortedRows
	e    *env
}

func (o *chunkOp) next() (arrow.Record, error) {
	if o.rows == nil {
		return nil, nil
	}
	return o.rows.next(o.e)
}

func (o *chunkOp) close() {
	if o.rows != nil {
		o.rows.release()
		o.rows = nil
	}
}

// mergeRun is one spilled run being merged: its current batch and row.
type mergeRun struct {
	f    *os.File
	r    *ipc.Reader
	id   int
	rec  arrow.Record
	keys []arrow.Array
	row  int
}

// advance moves to the run's next batch; false at its end.
func (r *mergeRun) advance(s *extSorter) (bool, error) {
	r.releaseBatch()
	for r.r.Next() {
		rec := r.r.Record()
		if rec.NumRows() == 0 {
			continue
		}
		rec.Retain()
		keys, err := evalKeys(s.e, s.keys, rec)
		if err != nil {
			rec.Release()
			return false, err
		}
		r.rec, r.keys, r.row = rec, keys, 0
		return true, nil
	}
	if err := r.r.Err(); err != nil {
		return false, fmt.Errorf("sort: reading a spilled run: %w", err)
	}
	return false, nil
}

func (r *mergeRun) releaseBatch() {
	if r.rec != nil {
		r.rec.Release()
		releaseAll(r.keys)
		r.rec, r.keys = nil, nil
	}
}

// runHeap orders the runs by their current row.
type runHeap struct {
	runs []*mergeRun
	cmp  func(a, b *mergeRun) int
}

func (h runHeap) Len() int { return len(h.runs) }
func (h runHeap) Less(i, j int) bool {
	c := h.cmp(h.runs[i], h.runs[j])
	return c < 0 || c == 0 && h.runs[i].id < h.runs[j].id
}
func (h runHeap) Swap(i, j int) { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)   { h.runs = append(h.runs, x.(*mergeRun)) }
func (h *runHeap) Pop() any {
	n := len(h.runs)
	x := h.runs[n-1]
	h.runs = h.runs[:n-1]
	return x
}

// mergeOp merges the sorted runs: it picks rows from the runs' current
// batches and gathers them into a batch whenever one of those batches runs
// out (or sortChunk rows are picked).
type mergeOp struct {
	s    *extSorter
	runs []*mergeRun
	h    runHeap
	// comparers between two runs' current key arrays, rebuilt when a
	// batch changes.
	cmps map[[2]*mergeRun]func(i, j int) int
}

func (m *mergeOp) cmp(a, b *mergeRun) int {
	if m.cmps == nil {
		m.cmps = map[[2]*mergeRun]func(i, j int) int{}
	}
	k := [2]*mergeRun{a, b}
	c, ok := m.cmps[k]
	if !ok {
		c = rowCmp(m.s.keys, a.keys, b.keys)
		m.cmps[k] = c
	}
	return c(a.row, b.row)
}

func (m *mergeOp) forget(r *mergeRun) {
	for k := range m.cmps {
		if k[0] == r || k[1] == r {
			delete(m.cmps, k)
		}
	}
}

func (m *mergeOp) next() (arrow.Record, error) {
	if len(m.h.runs) == 0 {
		return nil, nil
	}
	type pick struct {
		run *mergeRun
		row int
	}
	var picks []pick
	var exhausted *mergeRun
	for len(m.h.runs) > 0 && len(picks) < sortChunk {
		r := m.h.runs[0]
		picks = append(picks, pick{r, r.row})
		r.row++
		if r.row >= int(r.rec.NumRows()) {
			exhausted = r
			break
		}
		heap.Fix(&m.h, 0)
	}
	// Gather: the current batches of the runs picked from, concatenated,
	// then the picked rows taken in order.
	used := map[*mergeRun]int64{}
	var recs []arrow.Record
	var base int64
	for _, p := range picks {
		if _, ok := used[p.run]; !ok {
			used[p.run] = base
			recs = append(recs, p.run.rec)
			base += p.run.rec.NumRows()
		}
	}
	all, err := concatRecords(m.s.e.mem, m.s.schema, recs)
	if err != nil {
		return nil, err
	}
	idx := make([]int64, len(picks))
	for i, p := range picks {
		idx[i] = used[p.run] + int64(p.row)
	}
	out, err := dataframe.TakeRecord(m.s.e.mem, all, idx)
	all.Release()
	if err != nil {
		return nil, err
	}
	if exhausted != nil {
		m.forget(exhausted)
		ok, err := exhausted.advance(m.s)
		if err != nil {
			out.Release()
			return nil, err
		}
		if ok {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
	}
	return out, nil
}

func (m *mergeOp) close() {
	for _, r := range m.runs {
		r.releaseBatch()
		r.r.Release()
		r.f.Close()
	}
	m.runs, m.h.runs = nil, nil
}
