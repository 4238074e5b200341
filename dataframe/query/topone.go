package query

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/sluicedata/sluice/dataframe"
)

// The most common pipeline step keeps the latest row of each key:
//
//	SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM t) WHERE rn = 1
//
// A filter keeping rank 1 of a window whose only function is row_number,
// rank or dense_rank needs no sort: lTopOne keeps, per partition key, the
// first row in window order (row_number: the first such row met; rank and
// dense_rank: every row tied with it), in one pass with memory for the
// rows kept — one per key, not the input (docs/sql.md#window-functions).

// lTopOne is a window's rank-1 rows: its output is the window's (the
// input's columns, then the rank, always 1).
type lTopOne struct {
	in    lnode
	part  []rex
	order []winOrder
	ties  bool // rank, dense_rank: rows tied with the first are kept
	name  string
}

func (n *lTopOne) fields() []field {
	return append(append([]field(nil), n.in.fields()...), field{n.name, tInt})
}
func (n *lTopOne) inputs() []lnode { return []lnode{n.in} }
func (n *lTopOne) withInputs(in []lnode) lnode {
	c := *n
	c.in = in[0]
	return &c
}
func (n *lTopOne) describe() string {
	s := "TopOnePerKey"
	if len(n.part) > 0 {
		s += " partition by " + sqlList(n.part)
	}
	s += " order by " + winOrderSQL(n.order)
	if n.ties {
		s += " with ties"
	}
	return s
}

// rewriteTopOne replaces each Filter(rank = 1) over such a window by
// lTopOne (the other conjuncts stay in a filter above it).
func rewriteTopOne(n lnode) lnode {
	ins := n.inputs()
	if len(ins) > 0 {
		nins := make([]lnode, len(ins))
		changed := false
		for i, in := range ins {
			nins[i] = rewriteTopOne(in)
			changed = changed || nins[i] != in
		}
		if changed {
			n = n.withInputs(nins)
		}
	}
	f, ok := n.(*lFilter)
	if !ok {
		return n
	}
	w, ok := f.in.(*lWindow)
	if !ok || len(w.funcs) != 1 || len(w.order) == 0 {
		return n
	}
	fn := w.funcs[0]
	if fn.kind != wRowNumber && fn.kind != wRank && fn.kind != wDenseRank {
		return n
	}
	col := len(w.in.fields())
	var rest []rex
	found := false
	for _, c := range rexConjuncts(f.pred) {
		if !found && firstRank(c, col) {
			found = true
			continue
		}
		rest = append(rest, c)
	}
	if !found {
		return n
	}
	t := &lTopOne{in: w.in, part: w.part, order: w.order, ties: fn.kind != wRowNumber, name: fn.name}
	return filterAbove(t, rest)
}

// firstRank says whether c keeps exactly the rows whose column col (a
// rank from 1) is 1: col = 1, col <= 1, col < 2 (either side).
func firstRank(c rex, col int) bool {
	cmp, ok := c.(*rCmp)
	if !ok {
		return false
	}
	op, l, r := cmp.op, cmp.l, cmp.r
	if _, isLit := l.(*rLit); isLit {
		l, r = r, l
		switch op {
		case "<":
			op = ">"
		case "<=":
			op = ">="
		case ">":
			op = "<"
		case ">=":
			op = "<="
		}
	}
	c0, ok := l.(*rCol)
	if !ok || c0.idx != col {
		return false
	}
	lit, ok := r.(*rLit)
	if !ok {
		return false
	}
	v, isInt := lit.v.(int32)
	if !isInt {
		return false
	}
	switch op {
	case "=", "<=>", "<=":
		return v == 1
	case "<":
		return v == 2
	}
	return false
}

func (pp *physPlanner) physTopOne(x *lTopOne) (*node, error) {
	exprs := append([]rex(nil), x.part...)
	for _, o := range x.order {
		exprs = append(exprs, o.x)
	}
	return pp.unary(x.in, exprs, func(in *node, c []*cexpr) *node {
		part, order := c[:len(x.part)], c[len(x.part):]
		keys := make([]sortKey, len(x.order))
		for i, o := range x.order {
			keys[i] = sortKey{x: order[i], desc: o.desc, nullsFirst: o.nullsFirst}
		}
		out := &node{schema: schemaOf(x.fields()), label: x.describe(), children: []*node{in}}
		out.open = func(e *env, ins []op) (op, error) {
			return &topOneOp{in: ins[0], e: e, part: part, keys: keys, ties: x.ties, inSchema: in.schema, schema: out.schema}, nil
		}
		return out
	})
}

// topOneOp keeps the rank-1 rows of each partition key. The rows kept are
// references into retained input batches (chunks); when those hold more
// three times the rows kept, the kept rows are copied into one new chunk
// and the old chunks let go, so memory follows the keys, not the input.
type topOneOp struct {
	in       op
	e        *env
	part     []*cexpr
	keys     []sortKey
	ties     bool
	inSchema *arrow.Schema
	schema   *arrow.Schema
	done     bool
	out      []arrow.Record

	g      *grouper
	chunks []*keptChunk
	best   []rowRef   // per group: its first row
	more   [][]rowRef // per group: rows tied with it (ties only)
	// fast: one order key of integers (or floats) is compared as numbers.
	fast     bool
	bestInt  []int64
	bestFlt  []float64
	bestNull []bool
}

// keptChunk is a retained input batch and its order key values.
type keptChunk struct {
	rec  arrow.Record
	keys []arrow.Array
	live int // rows of it kept
}

// rowRef is a row of a chunk.
type rowRef struct {
	chunk int32
	row   int32
}

func (o *topOneOp) next() (arrow.Record, error) {
	if !o.done {
		o.done = true
		if err := o.consume(); err != nil {
			return nil, err
		}
		if err := o.emit(); err != nil {
			return nil, err
		}
	}
	if len(o.out) == 0 {
		return nil, nil
	}
	rec := o.out[0]
	o.out = o.out[1:]
	return rec, nil
}

func (o *topOneOp) consume() error {
	var types []arrow.DataType
	for _, p := range o.part {
		types = append(types, p.typ)
	}
	if len(types) > 0 {
		o.g = newGrouper(o.e.mem, types)
	}
	if len(o.keys) == 1 {
		id := o.keys[0].x.typ.ID()
		o.fast = intKey(o.keys[0].x.typ) || id == arrow.FLOAT64 || id == arrow.FLOAT32
	}
	groups := 0
	for {
		if err := o.e.ctx.Err(); err != nil {
			return err
		}
		rec, err := o.in.next()
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		n := int(rec.NumRows())
		var gids []int32
		if o.g != nil {
			pk, err := evalAll(o.e, o.part, rec)
			if err != nil {
				rec.Release()
				return err
			}
			gids, err = o.g.ids(pk, n)
			releaseAll(pk)
			if err != nil {
				rec.Release()
				return err
			}
			groups = int(o.g.n)
		} else {
			gids = make([]int32, n)
			groups = 1
		}
		keys, err := evalKeys(o.e, o.keys, rec)
		if err != nil {
			rec.Release()
			return err
		}
		o.grow(groups)
		ci := int32(len(o.chunks))
		c := &keptChunk{rec: rec, keys: keys}
		o.chunks = append(o.chunks, c)
		o.offer(ci, c, gids)
		if c.live == 0 {
			// Nothing of it kept: let it go now.
			o.chunks = o.chunks[:ci]
			c.release()
		}
		if err := o.compact(); err != nil {
			return err
		}
	}
}

func (c *keptChunk) release() {
	if c.rec != nil {
		c.rec.Release()
		releaseAll(c.keys)
		c.rec, c.keys = nil, nil
	}
}

func (o *topOneOp) grow(groups int) {
	had := len(o.best)
	o.best = growTo(o.best, groups)
	for g := had; g < groups; g++ {
		o.best[g] = rowRef{chunk: -1}
	}
	if o.ties {
		o.more = growTo(o.more, groups)
	}
	if o.fast {
		o.bestInt, o.bestFlt, o.bestNull = growTo(o.bestInt, groups), growTo(o.bestFlt, groups), growTo(o.bestNull, groups)
	}
}

// offer compares each row of chunk ci with its group's best.
func (o *topOneOp) offer(ci int32, c *keptChunk, gids []int32) {
	var ints func(i int) int64
	var flts []float64
	key := c.keys[0]
	if o.fast {
		if intKey(key.DataType()) {
			ints = intsOf(key)
		} else if key.DataType().ID() == arrow.FLOAT64 {
			flts = fixedValues[float64](key)
		} else {
			f32 := fixedValues[float32](key)
			flts = make([]float64, len(f32))
			for i, v := range f32 {
				flts[i] = float64(v)
			}
		}
	}
	sk := o.keys[0]
	cmps := map[int32]func(i, j int) int{}
	for i, g := range gids {
		b := o.best[g]
		keep := 0 // 1: better than the best, 0: tied, -1: worse
		switch {
		case b.chunk < 0:
			keep = 1
		case o.fast:
			null := key.IsNull(i)
			switch {
			case null || o.bestNull[g]:
				switch {
				case null && o.bestNull[g]:
					keep = 0
				case null == sk.nullsFirst:
					keep = 1
				default:
					keep = -1
				}
			case ints != nil:
				keep = -cmpOrdered(ints(i), o.bestInt[g])
			default:
				keep = -cmpOrdered(flts[i], o.bestFlt[g])
			}
			if sk.desc && !null && !o.bestNull[g] {
				keep = -keep
			}
		default:
			cmp, ok := cmps[b.chunk]
			if !ok {
				cmp = rowCmp(o.keys, c.keys, o.chunks[b.chunk].keys)
				cmps[b.chunk] = cmp
			}
			keep = -cmp(i, int(b.row))
		}
		switch {
		case keep > 0:
			o.drop(g)
			o.best[g] = rowRef{ci, int32(i)}
			c.live++
			if o.fast {
				o.bestNull[g] = key.IsNull(i)
				if ints != nil {
					o.bestInt[g] = ints(i)
				} else {
					o.bestFlt[g] = flts[i]
				}
			}
		case keep == 0 && o.ties:
			o.more[g] = append(o.more[g], rowRef{ci, int32(i)})
			c.live++
		}
	}
}

// drop forgets group g's rows.
func (o *topOneOp) drop(g int32) {
	if b := o.best[g]; b.chunk >= 0 {
		o.chunks[b.chunk].live--
	}
	if o.ties {
		for _, r := range o.more[g] {
			o.chunks[r.chunk].live--
		}
		o.more[g] = o.more[g][:0]
	}
}

// compact copies the kept rows into one chunk when the chunks hold more
// than three times as many rows (and at least a few batches' worth).
func (o *topOneOp) compact() error {
	held, kept := 0, 0
	for _, c := range o.chunks {
		if c.rec != nil {
			held += int(c.rec.NumRows())
			kept += c.live
		}
	}
	if held < 1<<18 || held < 3*kept {
		return nil
	}
	// The kept rows of each chunk, in chunk order; refs renumbered.
	type pos struct{ g, k int } // group, and -1 for best or the index in more
	var parts []arrow.Record
	var partKeys [][]arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
		for _, k := range partKeys {
			releaseAll(k)
		}
	}()
	refs := make([][]pos, len(o.chunks))
	for g := range o.best {
		if b := o.best[g]; b.chunk >= 0 {
			refs[b.chunk] = append(refs[b.chunk], pos{g, -1})
		}
		if o.ties {
			for k, r := range o.more[g] {
				refs[r.chunk] = append(refs[r.chunk], pos{g, k})
			}
		}
	}
	row := int32(0)
	ci := int32(0) // the new chunk is the only one
	for c, rs := range refs {
		if len(rs) == 0 {
			continue
		}
		idx := make([]int64, len(rs))
		for k, p := range rs {
			r := o.best[p.g]
			if p.k >= 0 {
				r = o.more[p.g][p.k]
			}
			idx[k] = int64(r.row)
		}
		part, err := dataframe.TakeRecord(o.e.mem, o.chunks[c].rec, idx)
		if err != nil {
			return err
		}
		parts = append(parts, part)
		pk := make([]arrow.Array, len(o.keys))
		for k, a := range o.chunks[c].keys {
			t, err := dataframe.Take(o.e.mem, a, idx)
			if err != nil {
				releaseAll(pk[:k])
				return err
			}
			pk[k] = t
		}
		partKeys = append(partKeys, pk)
		for k, p := range rs {
			ref := rowRef{ci, row + int32(k)}
			if p.k >= 0 {
				o.more[p.g][p.k] = ref
			} else {
				o.best[p.g] = ref
			}
		}
		row += int32(len(rs))
	}
	rec, err := concatRecords(o.e.mem, o.inSchema, parts)
	if err != nil {
		return err
	}
	keys := make([]arrow.Array, len(o.keys))
	for k := range o.keys {
		cols := make([]arrow.Array, len(partKeys))
		for p := range partKeys {
			cols[p] = partKeys[p][k]
		}
		if keys[k], err = concatArrays(o.e.mem, o.keys[k].x.typ, cols); err != nil {
			rec.Release()
			releaseAll(keys[:k])
			return err
		}
	}
	for _, c := range o.chunks {
		c.release()
	}
	o.chunks = []*keptChunk{{rec: rec, keys: keys, live: int(row)}}
	return nil
}

// emit makes the output: each chunk's kept rows and the rank 1.
func (o *topOneOp) emit() error {
	rows := make([][]int64, len(o.chunks))
	for g, b := range o.best {
		if b.chunk < 0 {
			continue
		}
		rows[b.chunk] = append(rows[b.chunk], int64(b.row))
		if o.ties {
			for _, r := range o.more[g] {
				rows[r.chunk] = append(rows[r.chunk], int64(r.row))
			}
		}
	}
	for c, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		part, err := dataframe.TakeRecord(o.e.mem, o.chunks[c].rec, idx)
		if err != nil {
			return err
		}
		one, err := broadcast(o.e.mem, int32(1), tInt, len(idx))
		if err != nil {
			part.Release()
			return err
		}
		cols := append(append([]arrow.Array(nil), part.Columns()...), one)
		o.out = append(o.out, array.NewRecord(o.schema, cols, int64(len(idx))))
		part.Release()
		one.Release()
	}
	for _, c := range o.chunks {
		c.release()
	}
	o.chunks = nil
	return nil
}

func (o *topOneOp) close() {
	for _, r := range o.out {
		r.Release()
	}
	o.out = nil
	for _, c := range o.chunks {
		c.release()
	}
	o.chunks = nil
	if o.g != nil {
		o.g.release()
		o.g = nil
	}
	o.in.close()
}
