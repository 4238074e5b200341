package dataframe

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Frame is an Arrow schema plus zero or more record batches sharing it.
//
// A Frame owns one reference to each of its records. Release drops them;
// Retain adds one. Operations return new frames and never release their
// inputs: the caller releases what it created.
type Frame struct {
	schema  *arrow.Schema
	records []arrow.Record
	rows    int64
	mem     memory.Allocator // for operations on the frame; nil: default
}

// New makes a frame of records that all have schema. It takes ownership of
// the callers' references to records (it does not Retain them).
func New(schema *arrow.Schema, records ...arrow.Record) (*Frame, error) {
	f := &Frame{schema: schema}
	for i, r := range records {
		if !r.Schema().Equal(schema) {
			return nil, fmt.Errorf("dataframe: record %d has schema %s, want %s", i, r.Schema(), schema)
		}
		if r.NumRows() == 0 {
			r.Release()
			continue
		}
		f.records = append(f.records, r)
		f.rows += r.NumRows()
	}
	return f, nil
}

// Empty returns a frame with schema and no rows.
func Empty(schema *arrow.Schema) *Frame { return &Frame{schema: schema} }

// Allocator is where operations on f (Project, Filter, Concat, …) take
// memory for new columns: the allocator it was read with, else
// memory.DefaultAllocator.
func (f *Frame) Allocator() memory.Allocator {
	if f.mem == nil {
		return memory.DefaultAllocator
	}
	return f.mem
}

// SetAllocator sets the allocator that operations on f use.
func (f *Frame) SetAllocator(mem memory.Allocator) { f.mem = mem }

// Schema is the frame's Arrow schema.
func (f *Frame) Schema() *arrow.Schema { return f.schema }

// Records are the frame's record batches; the frame keeps ownership.
func (f *Frame) Records() []arrow.Record { return f.records }

// NumRows is the total row count over all batches.
func (f *Frame) NumRows() int64 { return f.rows }

// NumCols is the number of top-level columns.
func (f *Frame) NumCols() int { return f.schema.NumFields() }

// ColumnNames are the top-level column names in order.
func (f *Frame) ColumnNames() []string {
	names := make([]string, f.schema.NumFields())
	for i, fd := range f.schema.Fields() {
		names[i] = fd.Name
	}
	return names
}

// Retain adds a reference to every record.
func (f *Frame) Retain() {
	for _, r := range f.records {
		r.Retain()
	}
}

// Release drops the frame's references. The frame must not be used after.
func (f *Frame) Release() {
	for _, r := range f.records {
		r.Release()
	}
	f.records = nil
	f.rows = 0
}

// Strings makes a one-column frame of non-null strings, given as strings
// or as bytes (copied either way); the connectors use it for the `payload`
// column.
func Strings[T string | []byte](mem memory.Allocator, column string, values []T) *Frame {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: column, Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	if len(values) == 0 {
		return Empty(schema)
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	switch vs := any(values).(type) {
	case []string:
		b.AppendValues(vs, nil)
	case [][]byte:
		size := 0
		for _, v := range vs {
			size += len(v)
		}
		b.Reserve(len(vs))
		b.ReserveData(size)
		for _, v := range vs {
			b.BinaryBuilder.Append(v)
		}
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecord(schema, []arrow.Array{col}, int64(len(values)))
	f, _ := New(schema, rec)
	return f
}
