package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// LateTable is a Table that can read some of its columns, and some of its
// rows by position. A top-N over it reads its sort keys first, then the
// other columns of the winning rows only: late materialisation (see
// docs/sql.md#performance).
type LateTable interface {
	Table
	// OpenColumns streams the columns named in cols only (case-insensitive;
	// at least one column), the rows in the order Open gives them.
	OpenColumns(ctx context.Context, cols []string) (array.RecordReader, error)
	// OpenRows streams, with the schema of Open, only the rows at the
	// positions rows (0-based in the order Open gives them; ascending),
	// in that order. ok false says it cannot: the caller reads everything.
	OpenRows(ctx context.Context, rows []int64) (r array.RecordReader, ok bool, err error)
	// RowPositions says whether the table gives its rows in the same
	// order on every read, as OpenRows needs; false (a database table)
	// makes a top-N read the table once instead of twice.
	RowPositions() bool
}

// lateInput is the scan under a top-N and the projection over it (the
// scan's own columns when the top-N is right over the scan), or nil when
// the top-N's input is not one of those two shapes.
func lateInput(in *node) (scan *node, exprs []*cexpr, src []rex) {
	switch {
	case in.scan != nil:
		for i, f := range in.schema.Fields() {
			exprs = append(exprs, columnExpr(i, f.Type))
			src = append(src, &rCol{idx: i, t: f.Type, name: f.Name})
		}
		return in, exprs, src
	case in.project != nil && len(in.children) == 1 && in.children[0].scan != nil:
		return in.children[0], in.project, in.projectSrc
	}
	return nil, nil, nil
}

// lateColumns returns the columns of the scan under a top-N (and its
// projection) that its sort keys need, when reading them first saves
// reading others: every key is a projected column, and those are computed
// from fewer columns than the scan has. It returns nil otherwise.
func lateColumns(in *node, keys []sortKey) []string {
	scan, _, src := lateInput(in)
	if scan == nil {
		return nil
	}
	if lt, ok := scan.scan.(LateTable); !ok || !lt.RowPositions() {
		return nil
	}
	used := make([]bool, scan.schema.NumFields())
	for _, k := range keys {
		if k.x.col == 0 {
			return nil
		}
		columnsOf(src[k.x.col-1], used)
	}
	var need []string
	for i, f := range scan.schema.Fields() {
		if used[i] {
			need = append(need, f.Name)
		}
	}
	if len(need) == 0 || len(need) == scan.schema.NumFields() {
		return nil
	}
	return need
}

// lateTopNOp is a top-N over a projection of a LateTable. Pass 1 reads the
// columns the sort keys need (need), with every row's position, and keeps
// the best n rows' positions; pass 2 reads those rows whole, projects them
// and returns them in pass 1's order — the result a topNOp over the whole
// table gives, ties included (both keep the earlier row).
type lateTopNOp struct {
	in    op // the ordinary input, unused (closed)
	topN  *topNOp
	scan  *node
	exprs []*cexpr // the projection, over the scan's columns
	need  []string
	done  bool
}

func (o *lateTopNOp) next() (arrow.Record, error) {
	if o.done {
		return nil, nil
	}
	o.done = true
	e := o.topN.e
	t := o.scan.scan.(LateTable)
	r, err := t.OpenColumns(e.ctx, o.need)
	if err != nil {
		return nil, err
	}
	// Pass 1: the projection's key columns (NULLs for the others) and the
	// position of each row, through the ordinary top-N.
	fields := append(append([]arrow.Field(nil), o.topN.schema.Fields()...), arrow.Field{Name: "#pos", Type: arrow.PrimitiveTypes.Int64})
	posSchema := arrow.NewSchema(fields, nil)
	keyCols := map[int]bool{}
	for _, k := range o.topN.keys {
		keyCols[k.x.col-1] = true
	}
	in := &keysOp{r: r, e: e, scan: o.scan.schema, exprs: o.exprs, keyCols: keyCols, schema: posSchema}
	pass1 := &topNOp{in: in, keys: o.topN.keys, n: o.topN.n, schema: posSchema, e: e}
	best, err := pass1.next()
	pass1.close()
	if err != nil || best == nil {
		return nil, err
	}
	defer best.Release()
	pos := fixedValues[int64](best.Column(int(best.NumCols()) - 1))
	want := append([]int64(nil), pos...)
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	// Pass 2: the winning rows, whole.
	rows, err := o.readRows(t, want)
	if err != nil {
		return nil, err
	}
	defer rows.Release()
	at := make(map[int64]int64, len(want))
	for i, p := range want {
		at[p] = int64(i)
	}
	idx := make([]int64, len(pos))
	for i, p := range pos {
		idx[i] = at[p]
	}
	ordered, err := dataframe.TakeRecord(e.mem, rows, idx)
	if err != nil {
		return nil, err
	}
	defer ordered.Release()
	return project(e, ordered, o.exprs, o.topN.schema)
}

// readRows reads the rows at positions want (ascending) with every column
// of the scan: through OpenRows, or, when the table cannot, by reading it
// all and keeping those rows.
func (o *lateTopNOp) readRows(t LateTable, want []int64) (arrow.Record, error) {
	e := o.topN.e
	schema := o.scan.schema
	r, ok, err := t.OpenRows(e.ctx, want)
	if err != nil {
		return nil, err
	}
	if !ok {
		if r, err = t.Open(e.ctx); err != nil {
			return nil, err
		}
	}
	src := &readerOp{r: r, ctx: e.ctx, schema: o.scan.scan.Schema(), name: strings.TrimPrefix(o.scan.label, "Scan "), pick: o.scan.pick, e: e}
	defer src.close()
	var recs []arrow.Record
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	var offset int64
	k := 0
	for {
		rec, err := src.next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		if ok {
			recs = append(recs, rec)
			continue
		}
		n := rec.NumRows()
		var take []int64
		for k < len(want) && want[k] < offset+n {
			take = append(take, want[k]-offset)
			k++
		}
		offset += n
		if len(take) > 0 {
			sub, err := dataframe.TakeRecord(e.mem, rec, take)
			rec.Release()
			if err != nil {
				return nil, err
			}
			recs = append(recs, sub)
		} else {
			rec.Release()
		}
		if k == len(want) {
			break
		}
	}
	out, err := concatRecords(e.mem, schema, recs)
	if err != nil {
		return nil, err
	}
	if out.NumRows() != int64(len(want)) {
		out.Release()
		return nil, fmt.Errorf("reading %s: %d rows asked by position, %d read", o.scan.label, len(want), out.NumRows())
	}
	return out, nil
}

func (o *lateTopNOp) close() { o.in.close() }

// keysOp is pass 1 of a lateTopNOp: batches of some of the scan's columns
// become the projection's key columns (the others NULL) and the rows'
// positions.
type keysOp struct {
	r       array.RecordReader
	e       *env
	scan    *arrow.Schema // the whole scan's
	exprs   []*cexpr
	keyCols map[int]bool
	schema  *arrow.Schema
	rows    int64
	closed  bool
	// nulls holds an all-NULL array per type, sliced for every batch:
	// the columns pass 1 does not read cost no allocation per batch.
	nulls map[string]arrow.Array
}

// null is n NULLs of type dt, a slice of the array kept for dt (made
// anew when it is shorter than n).
func (o *keysOp) null(dt arrow.DataType, n int) arrow.Array {
	key := dt.Fingerprint()
	a := o.nulls[key]
	if a == nil || a.Len() < n {
		if a != nil {
			a.Release()
		}
		if o.nulls == nil {
			o.nulls = map[string]arrow.Array{}
		}
		a = fn.NullArray(o.e.mem, dt, n)
		o.nulls[key] = a
	}
	return array.NewSlice(a, 0, int64(n))
}

func (o *keysOp) next() (arrow.Record, error) {
	if err := o.e.ctx.Err(); err != nil {
		return nil, err
	}
	for o.r.Next() {
		rec := o.r.Record()
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		// The scan's columns: those read, NULLs for the others.
		cols := make([]arrow.Array, o.scan.NumFields())
		for i, f := range o.scan.Fields() {
			if idx := rec.Schema().FieldIndices(f.Name); len(idx) > 0 {
				cols[i] = rec.Column(idx[0])
				cols[i].Retain()
			} else {
				cols[i] = o.null(f.Type, n)
			}
		}
		full := array.NewRecord(o.scan, cols, int64(n))
		releaseAll(cols)
		out := make([]arrow.Array, 0, o.schema.NumFields())
		fail := func(err error) (arrow.Record, error) {
			full.Release()
			releaseAll(out)
			return nil, err
		}
		for j, x := range o.exprs {
			if !o.keyCols[j] {
				out = append(out, o.null(o.schema.Field(j).Type, n))
				continue
			}
			a, err := x.eval(o.e.ec, full)
			if err != nil {
				return fail(err)
			}
			out = append(out, a)
		}
		full.Release()
		buf, pos := allocFixed[int64](o.e.mem, n)
		for i := range pos {
			pos[i] = o.rows + int64(i)
		}
		o.rows += int64(n)
		out = append(out, fixedArray(tLong, n, nil, buf))
		res := array.NewRecord(o.schema, out, int64(n))
		releaseAll(out)
		return res, nil
	}
	if err := o.r.Err(); err != nil {
		return nil, err
	}
	return nil, nil
}

func (o *keysOp) close() {
	if !o.closed {
		o.closed = true
		o.r.Release()
		for _, a := range o.nulls {
			a.Release()
		}
	}
}
