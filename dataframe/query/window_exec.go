package query

import (
	"fmt"
	"sort"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
)

// The window operator: it evaluates the window's keys and the functions'
// arguments on each input batch, sorts the rows by (partition keys, order
// keys) with the external sort (extsort.go), and then walks the sorted
// rows holding one run of whole partitions at a time: a partition that
// continues into the next sorted batch waits for it. Memory: the sort's
// (bounded by the sort memory setting, beyond which it spills to disk),
// then the largest partition plus one batch. See
// docs/sql.md#window-functions.

func (pp *physPlanner) physWindow(x *lWindow) (*node, error) {
	in, err := pp.build(x.in)
	if err != nil {
		return nil, err
	}
	nin := in.schema.NumFields()
	// Every key and argument is a column of the augmented batches: an
	// input column as it is, else one computed after the input's.
	fields := append([]arrow.Field(nil), in.schema.Fields()...)
	var aux []rex
	colOf := func(e rex) int {
		if c, ok := e.(*rCol); ok {
			return c.idx
		}
		aux = append(aux, e)
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("#w%d", len(aux)), Type: e.Type(), Nullable: true})
		return len(fields) - 1
	}
	var keys []sortKey
	var partCols, orderCols []int
	for _, p := range x.part {
		c := colOf(p)
		partCols = append(partCols, c)
		keys = append(keys, sortKey{x: columnExpr(c, p.Type()), nullsFirst: true})
	}
	for _, o := range x.order {
		c := colOf(o.x)
		orderCols = append(orderCols, c)
		keys = append(keys, sortKey{x: columnExpr(c, o.x.Type()), desc: o.desc, nullsFirst: o.nullsFirst})
	}
	argCols := make([][]int, len(x.funcs))
	for i, f := range x.funcs {
		for _, a := range f.exprs() {
			argCols[i] = append(argCols[i], colOf(a))
		}
	}
	auxC, err := compileAll(aux)
	if err != nil {
		return nil, err
	}
	aug := arrow.NewSchema(fields, nil)
	out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: []*node{in}}
	out.open = func(e *env, ins []op) (op, error) {
		return &windowOp{in: ins[0], e: e, aux: auxC, aug: aug, keys: keys, nin: nin,
			partCols: partCols, orderCols: orderCols, order: x.order, funcs: x.funcs, argCols: argCols, schema: out.schema}, nil
	}
	return out, nil
}

type windowOp struct {
	in        op
	e         *env
	aux       []*cexpr
	aug       *arrow.Schema // the input's columns, then aux's
	keys      []sortKey     // partition keys then order keys, over aug
	nin       int
	partCols  []int // the partition keys' columns in aug
	orderCols []int // the order keys'
	order     []winOrder
	funcs     []*winFunc
	argCols   [][]int // per function: the columns of its expressions
	schema    *arrow.Schema

	sorter *extSorter
	sorted op
	pend   []arrow.Record // rows of a partition that may continue
	done   bool
}

// load reads the whole input into the sorter.
func (o *windowOp) load() error {
	o.sorter = newExtSorter(o.e, o.aug, o.keys)
	for {
		rec, err := o.in.next()
		if err != nil {
			return err
		}
		if rec == nil {
			break
		}
		cols := append([]arrow.Array(nil), rec.Columns()...)
		extra, err := evalAll(o.e, o.aux, rec)
		if err != nil {
			rec.Release()
			return err
		}
		aug := array.NewRecord(o.aug, append(cols, extra...), rec.NumRows())
		releaseAll(extra)
		rec.Release()
		if err := o.sorter.add(aug); err != nil {
			return err
		}
	}
	var err error
	o.sorted, err = o.sorter.finish()
	return err
}

func (o *windowOp) next() (arrow.Record, error) {
	if o.done {
		return nil, nil
	}
	if o.sorted == nil {
		if err := o.load(); err != nil {
			return nil, err
		}
	}
	for {
		if err := o.e.ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := o.sorted.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			o.done = true
			if len(o.pend) == 0 {
				return nil, nil
			}
			block := o.pend
			o.pend = nil
			return o.evaluate(block)
		}
		cut := o.lastStart(rec)
		if cut < 0 || cut == 0 && len(o.pend) == 0 {
			o.pend = append(o.pend, rec)
			continue
		}
		block := o.pend
		if cut > 0 {
			block = append(block, rec.NewSlice(0, int64(cut)))
		}
		o.pend = []arrow.Record{rec.NewSlice(int64(cut), rec.NumRows())}
		rec.Release()
		return o.evaluate(block)
	}
}

// lastStart is the row of rec where its last partition starts: -1 when
// all of rec continues the partition held, 0 when rec starts a new one and
// holds no other start.
func (o *windowOp) lastStart(rec arrow.Record) int {
	n := int(rec.NumRows())
	if len(o.partCols) == 0 {
		return -1
	}
	keys := recordColumns(rec, o.partCols)
	same := sameKeys(keys, keys)
	for i := n - 1; i > 0; i-- {
		if !same(i, i-1) {
			return i
		}
	}
	if len(o.pend) == 0 {
		return 0
	}
	last := o.pend[len(o.pend)-1]
	lk := recordColumns(last, o.partCols)
	if sameKeys(keys, lk)(0, int(last.NumRows())-1) {
		return -1
	}
	return 0
}

// recordColumns is rec's columns cols.
func recordColumns(rec arrow.Record, cols []int) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = rec.Column(c)
	}
	return out
}

// sameKeys says whether row i of a equals row j of b, key by key (NULLs
// equal).
func sameKeys(a, b []arrow.Array) func(i, j int) bool {
	cmps := make([]func(i, j int) int, len(a))
	for k := range a {
		cmps[k] = comparer(a[k], b[k])
	}
	return func(i, j int) bool {
		for k := range a {
			an, bn := a[k].IsNull(i), b[k].IsNull(j)
			if an || bn {
				if an != bn {
					return false
				}
				continue
			}
			if cmps[k](i, j) != 0 {
				return false
			}
		}
		return true
	}
}

// evaluate computes the functions over a run of whole partitions.
func (o *windowOp) evaluate(recs []arrow.Record) (arrow.Record, error) {
	rec, err := concatRecords(o.e.mem, o.aug, recs)
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	n := int(rec.NumRows())
	cols := rec.Columns()
	b := &winBlock{n: n, mem: o.e.mem}
	// Partitions.
	b.parts = []int{0}
	if len(o.partCols) > 0 {
		keys := recordColumns(rec, o.partCols)
		same := sameKeys(keys, keys)
		for i := 1; i < n; i++ {
			if !same(i, i-1) {
				b.parts = append(b.parts, i)
			}
		}
	}
	b.parts = append(b.parts, n)
	b.order = recordColumns(rec, o.orderCols)
	b.spec = o.order
	out := append([]arrow.Array(nil), cols[:o.nin]...)
	var results []arrow.Array
	defer func() { releaseAll(results) }()
	for i, f := range o.funcs {
		args := recordColumns(rec, o.argCols[i])
		a, err := b.eval(f, args)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		results = append(results, a)
	}
	out = append(out, results...)
	return array.NewRecord(o.schema, out, int64(n)), nil
}

func (o *windowOp) close() {
	for _, r := range o.pend {
		r.Release()
	}
	o.pend = nil
	if o.sorted != nil {
		o.sorted.close()
		o.sorted = nil
	}
	if o.sorter != nil {
		o.sorter.close()
	}
	o.in.close()
}

// winBlock is a run of whole partitions in window order.
type winBlock struct {
	n     int
	mem   memory.Allocator
	parts []int // partition starts, then n
	order []arrow.Array
	spec  []winOrder
	// peers: per row, the first row of its peer group (equal order keys
	// within the partition) and the row after its last; computed on
	// first use.
	peerLo, peerHi []int
}

// partOf calls f for each partition [lo, hi).
func (b *winBlock) eachPart(f func(p, lo, hi int)) {
	for p := 0; p+1 < len(b.parts); p++ {
		f(p, b.parts[p], b.parts[p+1])
	}
}

func (b *winBlock) peers() ([]int, []int) {
	if b.peerLo != nil {
		return b.peerLo, b.peerHi
	}
	lo, hi := make([]int, b.n), make([]int, b.n)
	same := sameKeys(b.order, b.order)
	b.eachPart(func(_, ps, pe int) {
		start := ps
		for i := ps; i < pe; i++ {
			if i > ps && !same(i, i-1) {
				for k := start; k < i; k++ {
					hi[k] = i
				}
				start = i
			}
			lo[i] = start
		}
		for k := start; k < pe; k++ {
			hi[k] = pe
		}
	})
	b.peerLo, b.peerHi = lo, hi
	return lo, hi
}

func (b *winBlock) eval(f *winFunc, args []arrow.Array) (arrow.Array, error) {
	switch f.kind {
	case wRowNumber, wRank, wDenseRank, wNtile:
		return b.ranking(f), nil
	case wPercentRank, wCumeDist:
		return b.distribution(f), nil
	case wOffset:
		return b.offset(f, args)
	case wNth:
		lo, hi, err := b.frames(f.frame, args[len(args)-b.boundArgs(f):])
		if err != nil {
			return nil, err
		}
		return b.nth(f, args[0], lo, hi)
	case wAgg:
		na := len(f.agg.args)
		lo, hi, err := b.frames(f.frame, args[na:])
		if err != nil {
			return nil, err
		}
		return b.aggregate(f, args[:na], lo, hi)
	}
	return nil, fmt.Errorf("query: unknown window function kind %q (a planner bug)", f.kind)
}

// boundArgs is how many of f's expressions are RANGE bound values (last).
func (b *winBlock) boundArgs(f *winFunc) int {
	k := 0
	if f.frame.lo.val != nil {
		k++
	}
	if f.frame.hi.val != nil {
		k++
	}
	return k
}

func (b *winBlock) ranking(f *winFunc) arrow.Array {
	buf, out := allocFixed[int32](b.mem, b.n)
	var peerLo []int
	if f.kind == wRank || f.kind == wDenseRank {
		peerLo, _ = b.peers()
	}
	b.eachPart(func(_, ps, pe int) {
		n := pe - ps
		dense := int32(0)
		for i := ps; i < pe; i++ {
			switch f.kind {
			case wRowNumber:
				out[i] = int32(i - ps + 1)
			case wRank:
				out[i] = int32(peerLo[i] - ps + 1)
			case wDenseRank:
				if peerLo[i] == i {
					dense++
				}
				out[i] = dense
			case wNtile:
				out[i] = int32(ntileOf(int64(i-ps), int64(n), f.n))
			}
		}
	})
	return fixedArray(tInt, b.n, nil, buf)
}

// ntileOf is the bucket (from 1) of row r (from 0) of n rows in k buckets:
// the first n%k buckets hold one row more, as Spark's NTile.
func ntileOf(r, n, k int64) int64 {
	size, extra := n/k, n%k
	if r < extra*(size+1) {
		return r/(size+1) + 1
	}
	return (r-extra*(size+1))/size + extra + 1
}

func (b *winBlock) distribution(f *winFunc) arrow.Array {
	buf, out := allocFixed[float64](b.mem, b.n)
	peerLo, peerHi := b.peers()
	b.eachPart(func(_, ps, pe int) {
		n := float64(pe - ps)
		for i := ps; i < pe; i++ {
			if f.kind == wCumeDist {
				out[i] = float64(peerHi[i]-ps) / n
			} else if n > 1 {
				out[i] = float64(peerLo[i]-ps) / (n - 1)
			} else {
				out[i] = 0
			}
		}
	})
	return fixedArray(tDouble, b.n, nil, buf)
}

// offset is lag and lead: the value f.n rows away (the f.n-th non-NULL
// one with IGNORE NULLS) within the partition, else the default.
func (b *winBlock) offset(f *winFunc, args []arrow.Array) (arrow.Array, error) {
	input, dflt := args[0], args[1]
	both, err := concatArrays(b.mem, f.typ, []arrow.Array{input, dflt})
	if err != nil {
		return nil, err
	}
	defer both.Release()
	idx := make([]int64, b.n)
	valid := make([]bool, b.n)
	off := int(f.n)
	b.eachPart(func(_, ps, pe int) {
		for i := ps; i < pe; i++ {
			t, ok := i+off, true
			if f.ignoreNulls && off != 0 {
				t, ok = nonNullAway(input, i, off, ps, pe)
			}
			switch {
			case ok && t >= ps && t < pe:
				idx[i], valid[i] = int64(t), true
			default:
				idx[i], valid[i] = int64(b.n+i), true
			}
		}
	})
	return takeNullable(b.mem, both, idx, valid)
}

// nonNullAway is the row |off| non-NULL values of input away from row i
// (after it for off > 0, before for off < 0) within [ps, pe).
func nonNullAway(input arrow.Array, i, off, ps, pe int) (int, bool) {
	step, left := 1, off
	if off < 0 {
		step, left = -1, -off
	}
	for j := i + step; j >= ps && j < pe; j += step {
		if input.IsValid(j) {
			left--
			if left == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

// frames computes each row's frame [lo, hi) (hi <= lo: empty); vals are
// the RANGE bound values the frame has, lower first.
func (b *winBlock) frames(fr winFrame, vals []arrow.Array) ([]int, []int, error) {
	lo, hi := make([]int, b.n), make([]int, b.n)
	var loVal, hiVal arrow.Array
	if fr.lo.val != nil {
		loVal, vals = vals[0], vals[1:]
	}
	if fr.hi.val != nil {
		hiVal = vals[0]
	}
	ordered := len(b.order) > 0
	var peerLo, peerHi []int
	if !fr.rows && ordered && (fr.lo.kind == CurrentRow || fr.hi.kind == CurrentRow) {
		peerLo, peerHi = b.peers()
	}
	var cmpLo, cmpHi func(j, i int) int
	if loVal != nil {
		cmpLo = b.boundCmp(loVal)
	}
	if hiVal != nil {
		cmpHi = b.boundCmp(hiVal)
	}
	b.eachPart(func(_, ps, pe int) {
		for i := ps; i < pe; i++ {
			switch fr.lo.kind {
			case UnboundedPreceding:
				lo[i] = ps
			case CurrentRow:
				switch {
				case fr.rows:
					lo[i] = i
				case ordered:
					lo[i] = peerLo[i]
				default:
					lo[i] = ps
				}
			default:
				if fr.rows {
					lo[i] = clampRow(int64(i)+fr.lo.off, ps, pe)
				} else {
					// The first row not before the bound.
					lo[i] = ps + sort.Search(pe-ps, func(k int) bool { return cmpLo(ps+k, i) >= 0 })
				}
			}
			switch fr.hi.kind {
			case UnboundedFollowing:
				hi[i] = pe
			case CurrentRow:
				switch {
				case fr.rows:
					hi[i] = i + 1
				case ordered:
					hi[i] = peerHi[i]
				default:
					hi[i] = pe
				}
			default:
				if fr.rows {
					hi[i] = clampRow(int64(i)+fr.hi.off+1, ps, pe)
				} else {
					// The first row after the bound.
					hi[i] = ps + sort.Search(pe-ps, func(k int) bool { return cmpHi(ps+k, i) > 0 })
				}
			}
		}
	})
	return lo, hi, nil
}

func clampRow(r int64, ps, pe int) int {
	return int(max(int64(ps), min(r, int64(pe))))
}

// boundCmp orders row j's ORDER BY key against row i's bound value in the
// window's order (direction and NULL placement of the key).
func (b *winBlock) boundCmp(val arrow.Array) func(j, i int) int {
	key := b.order[0]
	o := b.spec[0]
	c := comparer(key, val)
	return func(j, i int) int {
		kn, vn := key.IsNull(j), val.IsNull(i)
		if kn || vn {
			switch {
			case kn && vn:
				return 0
			case kn == o.nullsFirst:
				return -1
			}
			return 1
		}
		r := c(j, i)
		if o.desc {
			return -r
		}
		return r
	}
}

// nth is nth_value, first_value and last_value: the f.n-th row of the
// frame (from its end for last_value; counting non-NULL values only with
// IGNORE NULLS), NULL when the frame has fewer.
func (b *winBlock) nth(f *winFunc, input arrow.Array, lo, hi []int) (arrow.Array, error) {
	idx := make([]int64, b.n)
	valid := make([]bool, b.n)
	var nn []int // nn[j]: non-NULL values before row j
	if f.ignoreNulls {
		nn = make([]int, b.n+1)
		for j := 0; j < b.n; j++ {
			nn[j+1] = nn[j]
			if input.IsValid(j) {
				nn[j+1]++
			}
		}
	}
	k := int(f.n)
	for i := 0; i < b.n; i++ {
		l, h := lo[i], hi[i]
		if h <= l {
			continue
		}
		var t int
		switch {
		case !f.ignoreNulls && !f.fromEnd:
			t = l + k - 1
		case !f.ignoreNulls:
			t = h - k
		case !f.fromEnd:
			if nn[h]-nn[l] < k {
				continue
			}
			// The first row j with k non-NULL values in [l, j].
			t = l + sort.Search(h-l, func(d int) bool { return nn[l+d+1]-nn[l] >= k })
		default:
			if nn[h]-nn[l] < k {
				continue
			}
			// The last row j with k non-NULL values in [j, h).
			t = l + sort.Search(h-l, func(d int) bool { return nn[h]-nn[l+d+1] < k })
		}
		if t >= l && t < h {
			idx[i], valid[i] = int64(t), true
		}
	}
	return takeNullable(b.mem, input, idx, valid)
}

// aggregate computes an aggregate over each row's frame: once per
// partition when every frame is its partition; a running value when frames
// only grow (a frameRunner, for the aggregates that have one); otherwise
// each distinct frame's rows are fed to the accumulator as one group.
func (b *winBlock) aggregate(f *winFunc, args []arrow.Array, lo, hi []int) (arrow.Array, error) {
	c := f.agg
	if f.frame.wholePartition(len(b.order) > 0) {
		gids := make([]int32, b.n)
		rowPart := make([]int64, b.n)
		b.eachPart(func(p, ps, pe int) {
			for i := ps; i < pe; i++ {
				gids[i], rowPart[i] = int32(p), int64(p)
			}
		})
		acc := c.accumulator()
		defer acc.release()
		groups := len(b.parts) - 1
		if err := acc.update(gids, groups, args, b.n); err != nil {
			return nil, err
		}
		res, err := acc.result(b.mem, groups)
		if err != nil {
			return nil, err
		}
		defer res.Release()
		valid := make([]bool, b.n)
		for i := range valid {
			valid[i] = true
		}
		return takeNullable(b.mem, res, rowPart, valid)
	}
	if f.frame.lo.kind == UnboundedPreceding {
		r := newFrameRunner(c, args, b.n)
		if r == nil {
			r = &accRunner{c: c, args: args, mem: b.mem}
		}
		return b.run(r, lo, hi)
	}
	return b.groupedFrames(c, args, lo, hi)
}

// run drives a frameRunner over growing frames: each partition starts
// empty, rows are added as the frame's end moves on.
func (b *winBlock) run(r frameRunner, lo, hi []int) (arrow.Array, error) {
	b.eachPart(func(_, ps, pe int) {
		r.reset()
		end := ps
		for i := ps; i < pe; i++ {
			if hi[i] > end {
				r.add(end, hi[i])
				end = hi[i]
			}
			r.emit()
		}
	})
	return r.finish(b.mem)
}

// maxFramePairs bounds the (frame, row) pairs fed to an accumulator at once.
const maxFramePairs = 1 << 20

// groupedFrames feeds each distinct frame's rows to the accumulator as one
// group (rows repeated across frames), then gives each row its frame's
// value.
func (b *winBlock) groupedFrames(c *aggCall, args []arrow.Array, lo, hi []int) (arrow.Array, error) {
	acc := c.accumulator()
	defer acc.release()
	frameOf := make([]int64, b.n)
	groups := 0
	var rows []int64
	var gids []int32
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		taken := make([]arrow.Array, len(args))
		for k, a := range args {
			t, err := dataframe.Take(b.mem, a, rows)
			if err != nil {
				releaseAll(taken[:k])
				return err
			}
			taken[k] = t
		}
		err := acc.update(gids, groups, taken, len(rows))
		releaseAll(taken)
		rows, gids = rows[:0], gids[:0]
		return err
	}
	for i := 0; i < b.n; i++ {
		if i > 0 && lo[i] == lo[i-1] && hi[i] == hi[i-1] && b.samePart(i) {
			frameOf[i] = frameOf[i-1]
			continue
		}
		g := groups
		groups++
		frameOf[i] = int64(g)
		for j := lo[i]; j < hi[i]; j++ {
			rows = append(rows, int64(j))
			gids = append(gids, int32(g))
			if len(rows) >= maxFramePairs {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	res, err := acc.result(b.mem, groups)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return takeNullable(b.mem, res, frameOf, allTrue(b.n))
}

// samePart says whether row i is in the same partition as row i-1.
func (b *winBlock) samePart(i int) bool {
	k := sort.SearchInts(b.parts, i+1) - 1
	return b.parts[k] != i
}

func allTrue(n int) []bool {
	v := make([]bool, n)
	for i := range v {
		v[i] = true
	}
	return v
}

// frameRunner computes an aggregate over growing frames: rows are added in
// order and the value read after each step.
type frameRunner interface {
	reset()
	add(lo, hi int)
	emit()
	finish(mem memory.Allocator) (arrow.Array, error)
}

// newFrameRunner is the runner of c over args (n rows), or nil when c has
// none (the grouped-frames path computes it).
func newFrameRunner(c *aggCall, args []arrow.Array, n int) frameRunner {
	switch c.fn {
	case "count":
		return &countRunner{args: args, star: c.star, out: make([]int64, 0, n)}
	case "min", "max":
		return &pickRunner{arg: args[0], max: c.fn == "max", cmp: comparer(args[0], args[0]), idx: make([]int64, 0, n)}
	case "sum", "avg":
		switch c.typ.ID() {
		case arrow.INT64:
			if c.fn == "sum" {
				return &sumRunner[int64]{vals: fixedValues[int64](args[0]), arg: args[0], typ: c.typ}
			}
		case arrow.FLOAT64:
			if args[0].DataType().ID() == arrow.FLOAT64 {
				return &sumRunner[float64]{vals: fixedValues[float64](args[0]), arg: args[0], typ: c.typ, avg: c.fn == "avg"}
			}
		}
	}
	return nil
}

// accRunner runs any aggregate over growing frames with its accumulator:
// the rows are added as the frame grows and the one group's value is read
// after each step (each read costs what the accumulator's result does).
type accRunner struct {
	c    *aggCall
	args []arrow.Array
	mem  memory.Allocator
	acc  accumulator
	vals []arrow.Array
	err  error
}

func (r *accRunner) reset() {
	if r.acc != nil {
		r.acc.release()
	}
	r.acc = r.c.accumulator()
}

func (r *accRunner) add(lo, hi int) {
	if r.err != nil {
		return
	}
	part := make([]arrow.Array, len(r.args))
	for k, a := range r.args {
		part[k] = array.NewSlice(a, int64(lo), int64(hi))
	}
	r.err = r.acc.update(make([]int32, hi-lo), 1, part, hi-lo)
	releaseAll(part)
}

func (r *accRunner) emit() {
	if r.err != nil {
		return
	}
	var v arrow.Array
	v, r.err = r.acc.result(r.mem, 1)
	if r.err == nil {
		r.vals = append(r.vals, v)
	}
}

func (r *accRunner) finish(mem memory.Allocator) (arrow.Array, error) {
	defer func() {
		releaseAll(r.vals)
		if r.acc != nil {
			r.acc.release()
		}
	}()
	if r.err != nil {
		return nil, r.err
	}
	return concatArrays(mem, r.c.typ, r.vals)
}

type countRunner struct {
	args []arrow.Array
	star bool
	cur  int64
	out  []int64
}

func (r *countRunner) reset() { r.cur = 0 }
func (r *countRunner) add(lo, hi int) {
	for i := lo; i < hi; i++ {
		ok := true
		for _, a := range r.args {
			ok = ok && a.DataType().ID() != arrow.NULL && a.IsValid(i)
		}
		if ok || r.star {
			r.cur++
		}
	}
}
func (r *countRunner) emit() { r.out = append(r.out, r.cur) }
func (r *countRunner) finish(mem memory.Allocator) (arrow.Array, error) {
	buf, out := allocFixed[int64](mem, len(r.out))
	copy(out, r.out)
	return fixedArray(tLong, len(r.out), nil, buf), nil
}

// sumRunner is sum (and avg) of longs or doubles, added in row order as
// Spark adds them.
type sumRunner[T int64 | float64] struct {
	vals  []T
	arg   arrow.Array
	typ   arrow.DataType
	avg   bool
	sum   T
	count int64
	out   []T
	seen  []bool
}

func (r *sumRunner[T]) reset() { r.sum, r.count = 0, 0 }
func (r *sumRunner[T]) add(lo, hi int) {
	for i := lo; i < hi; i++ {
		if r.arg.IsValid(i) {
			r.sum += r.vals[i]
			r.count++
		}
	}
}
func (r *sumRunner[T]) emit() {
	v := r.sum
	if r.avg && r.count > 0 {
		v = T(float64(r.sum) / float64(r.count))
	}
	r.out = append(r.out, v)
	r.seen = append(r.seen, r.count > 0)
}
func (r *sumRunner[T]) finish(mem memory.Allocator) (arrow.Array, error) {
	return valuesSeen(mem, r.typ, r.out, r.seen), nil
}

// pickRunner is min and max: the row of the best value so far.
type pickRunner struct {
	arg   arrow.Array
	max   bool
	cmp   func(i, j int) int
	best  int
	idx   []int64
	valid []bool
}

func (r *pickRunner) reset() { r.best = -1 }
func (r *pickRunner) add(lo, hi int) {
	for i := lo; i < hi; i++ {
		if r.arg.IsNull(i) {
			continue
		}
		if r.best < 0 {
			r.best = i
			continue
		}
		c := r.cmp(i, r.best)
		if r.max && c > 0 || !r.max && c < 0 {
			r.best = i
		}
	}
}
func (r *pickRunner) emit() {
	r.idx = append(r.idx, int64(max(r.best, 0)))
	r.valid = append(r.valid, r.best >= 0)
}
func (r *pickRunner) finish(mem memory.Allocator) (arrow.Array, error) {
	return takeNullable(mem, r.arg, r.idx, r.valid)
}
