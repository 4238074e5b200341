package query

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
)

// Physical operators: pull iterators over record batches. next returns the
// next batch (owned by the caller) or nil at the end.
type op interface {
	next() (arrow.Record, error)
	close()
}

// env is what operators share while a plan runs.
type env struct {
	ctx       context.Context
	mem       memory.Allocator
	ec        *ectx
	sortLimit int64
}

// readerOp adapts a RecordReader (a table) to op; pick, when set, takes
// the scan's columns out of each batch.
type readerOp struct {
	r      array.RecordReader
	ctx    context.Context
	schema *arrow.Schema
	name   string
	pick   func(e *env, rec arrow.Record) arrow.Record
	e      *env
}

func (o *readerOp) next() (arrow.Record, error) {
	if err := o.ctx.Err(); err != nil {
		return nil, err
	}
	for o.r.Next() {
		rec := o.r.Record()
		if rec.NumRows() == 0 {
			continue
		}
		if !rec.Schema().Equal(o.schema) {
			return nil, fmt.Errorf("table %s: a batch has schema %s, the table %s", o.name, rec.Schema(), o.schema)
		}
		if o.pick != nil {
			return o.pick(o.e, rec), nil
		}
		rec.Retain()
		return rec, nil
	}
	if err := o.r.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", o.name, err)
	}
	return nil, nil
}

func (o *readerOp) close() { o.r.Release() }

// valuesOp yields one batch built at open (an inline table; one row
// without columns for a SELECT without FROM).
type valuesOp struct{ rec arrow.Record }

func (o *valuesOp) next() (arrow.Record, error) {
	rec := o.rec
	o.rec = nil
	if rec != nil && rec.NumRows() == 0 {
		rec.Release()
		return nil, nil
	}
	return rec, nil
}

func (o *valuesOp) close() {
	if o.rec != nil {
		o.rec.Release()
		o.rec = nil
	}
}

// filterOp keeps the rows where pred is true.
type filterOp struct {
	in   op
	pred *cexpr
	e    *env
}

func (o *filterOp) next() (arrow.Record, error) {
	for {
		rec, err := o.in.next()
		if rec == nil || err != nil {
			return nil, err
		}
		out, err := filterRecord(o.e, rec, o.pred)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

func (o *filterOp) close() { o.in.close() }

// filterRecord returns the rows of rec where pred is true, or nil when none
// is.
func filterRecord(e *env, rec arrow.Record, pred *cexpr) (arrow.Record, error) {
	m, err := pred.eval(e.ec, rec)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	b := m.(*array.Boolean)
	n := b.Len()
	idx := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		if b.IsValid(i) && b.Value(i) {
			idx = append(idx, int64(i))
		}
	}
	switch len(idx) {
	case 0:
		return nil, nil
	case n:
		rec.Retain()
		return rec, nil
	}
	return dataframe.TakeRecord(e.mem, rec, idx)
}

// projectOp computes one column per expression.
type projectOp struct {
	in     op
	exprs  []*cexpr
	schema *arrow.Schema
	e      *env
}

func (o *projectOp) next() (arrow.Record, error) {
	rec, err := o.in.next()
	if rec == nil || err != nil {
		return nil, err
	}
	defer rec.Release()
	return project(o.e, rec, o.exprs, o.schema)
}

func project(e *env, rec arrow.Record, exprs []*cexpr, schema *arrow.Schema) (arrow.Record, error) {
	cols := make([]arrow.Array, 0, len(exprs))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, x := range exprs {
		a, err := x.eval(e.ec, rec)
		if err != nil {
			return nil, err
		}
		cols = append(cols, a)
	}
	return array.NewRecord(schema, cols, rec.NumRows()), nil
}

func (o *projectOp) close() { o.in.close() }

// limitOp skips offset rows then passes n (n < 0: all).
type limitOp struct {
	in        op
	n, offset int64
	closed    bool
}

func (o *limitOp) next() (arrow.Record, error) {
	for {
		if o.n == 0 {
			o.close()
			return nil, nil
		}
		rec, err := o.in.next()
		if rec == nil || err != nil {
			return nil, err
		}
		rows := rec.NumRows()
		if o.offset >= rows {
			o.offset -= rows
			rec.Release()
			continue
		}
		lo, hi := o.offset, rows
		o.offset = 0
		if o.n >= 0 && hi-lo > o.n {
			hi = lo + o.n
		}
		if o.n >= 0 {
			o.n -= hi - lo
		}
		if lo == 0 && hi == rows {
			return rec, nil
		}
		out := rec.NewSlice(lo, hi)
		rec.Release()
		return out, nil
	}
}

func (o *limitOp) close() {
	if !o.closed {
		o.closed = true
		o.in.close()
	}
}

// unionOp yields its inputs one after the other under the union's schema
// (the analyser cast them to its column types).
type unionOp struct {
	ins    []op
	schema *arrow.Schema
	cur    int
	e      *env
}

func (o *unionOp) next() (arrow.Record, error) {
	for o.cur < len(o.ins) {
		rec, err := o.ins[o.cur].next()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			o.cur++
			continue
		}
		defer rec.Release()
		cols := make([]arrow.Array, rec.NumCols())
		defer func() {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}()
		for i, c := range rec.Columns() {
			var err error
			if cols[i], err = o.e.ec.fctx.Cast(c, o.schema.Field(i).Type); err != nil {
				return nil, fmt.Errorf("UNION column %d: %w", i+1, err)
			}
		}
		return array.NewRecord(o.schema, cols, rec.NumRows()), nil
	}
	return nil, nil
}

func (o *unionOp) close() {
	for _, in := range o.ins {
		in.close()
	}
}

// explodeOp appends the elements of a list (and, for posexplode, their
// positions) to the rows of its input: one row per element, the other
// columns repeated. OUTER keeps a row with NULLs for a null or empty list.
type explodeOp struct {
	in     op
	list   *cexpr
	outer  bool
	pos    bool
	split  bool // each element (a struct) gives a column per field
	schema *arrow.Schema
	e      *env
}

func (o *explodeOp) next() (arrow.Record, error) {
	for {
		rec, err := o.in.next()
		if rec == nil || err != nil {
			return nil, err
		}
		out, err := o.explode(rec)
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}

func (o *explodeOp) explode(rec arrow.Record) (arrow.Record, error) {
	la, err := o.list.eval(o.e.ec, rec)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	l := la.(array.ListLike)
	n := l.Len()
	var rows, elems []int64
	var valid []bool
	var pos []int32
	for r := 0; r < n; r++ {
		lo, hi := int64(0), int64(0)
		if l.IsValid(r) {
			lo, hi = l.ValueOffsets(r)
		}
		if hi == lo {
			if o.outer {
				rows, elems, valid, pos = append(rows, int64(r)), append(elems, 0), append(valid, false), append(pos, 0)
			}
			continue
		}
		for k := lo; k < hi; k++ {
			rows, elems, valid, pos = append(rows, int64(r)), append(elems, k), append(valid, true), append(pos, int32(k-lo))
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	base, err := dataframe.TakeRecord(o.e.mem, rec, rows)
	if err != nil {
		return nil, err
	}
	defer base.Release()
	cols := append([]arrow.Array(nil), base.Columns()...)
	var extra []arrow.Array
	defer func() {
		for _, c := range extra {
			c.Release()
		}
	}()
	if o.pos {
		b := array.NewInt32Builder(o.e.mem)
		b.AppendValues(pos, valid)
		extra = append(extra, b.NewArray())
		b.Release()
	}
	el, err := takeNullable(o.e.mem, l.ListValues(), elems, valid)
	if err != nil {
		return nil, err
	}
	if o.split {
		// A NULL struct (or no element, OUTER) is NULL in every field.
		st := el.(*array.Struct)
		for k := 0; k < st.NumField(); k++ {
			extra = append(extra, fieldWithValidity(o.e.mem, st, k))
		}
		el.Release()
	} else {
		extra = append(extra, el)
	}
	cols = append(cols, extra...)
	return array.NewRecord(o.schema, cols, int64(len(rows))), nil
}

func (o *explodeOp) close() { o.in.close() }

// drain reads every batch of o.
func drain(o op) ([]arrow.Record, error) {
	var recs []arrow.Record
	for {
		rec, err := o.next()
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			return nil, err
		}
		if rec == nil {
			return recs, nil
		}
		recs = append(recs, rec)
	}
}

// concatRecords joins batches of one schema into one record (an empty one
// for none).
func concatRecords(mem memory.Allocator, schema *arrow.Schema, recs []arrow.Record) (arrow.Record, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for k, r := range recs {
			parts[k] = r.Column(i)
		}
		var err error
		if cols[i], err = concatArrays(mem, schema.Field(i).Type, parts); err != nil {
			return nil, err
		}
	}
	return array.NewRecord(schema, cols, rows), nil
}

// rangeOp yields the bigints of range(start, end, step) in batches.
type rangeOp struct {
	next_, step int64
	left        int64 // rows still to yield
	schema      *arrow.Schema
	e           *env
}

const rangeBatch = 8192

func (o *rangeOp) next() (arrow.Record, error) {
	if o.left <= 0 {
		return nil, nil
	}
	if err := o.e.ctx.Err(); err != nil {
		return nil, err
	}
	n := min(o.left, rangeBatch)
	buf, vals := allocFixed[int64](o.e.mem, int(n))
	for i := range vals {
		vals[i] = o.next_
		o.next_ += o.step
	}
	o.left -= n
	col := fixedArray(tLong, int(n), nil, buf)
	defer col.Release()
	return array.NewRecord(o.schema, []arrow.Array{col}, n), nil
}

func (o *rangeOp) close() {}
