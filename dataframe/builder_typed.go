package dataframe

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// ColumnKind is the type of a column built by TypedBuilder or added by
// WithConstants: the flat Spark types.
type ColumnKind int

// The column kinds and the Spark type each stands for.
const (
	KindString    ColumnKind = iota // string
	KindLong                        // long (int64)
	KindInteger                     // integer (int32)
	KindDouble                      // double
	KindBoolean                     // boolean
	KindTimestamp                   // timestamp (TimestampType: µs, UTC)
)

var kindNames = [...]string{"string", "long", "integer", "double", "boolean", "timestamp"}

func (k ColumnKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ColumnKind(%d)", int(k))
}

// ParseColumnKind maps a Spark type name (any case; `int` and `bigint` too)
// to a kind.
func ParseColumnKind(s string) (ColumnKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "string", "varchar":
		return KindString, nil
	case "long", "bigint":
		return KindLong, nil
	case "integer", "int":
		return KindInteger, nil
	case "double":
		return KindDouble, nil
	case "boolean":
		return KindBoolean, nil
	case "timestamp":
		return KindTimestamp, nil
	}
	return 0, fmt.Errorf("dataframe: type %q is not one of string, long, integer, double, boolean, timestamp", s)
}

func (k ColumnKind) arrowType() arrow.DataType {
	dt, err := sparktype.ParseType(k.String())
	if err != nil {
		return arrow.BinaryTypes.String
	}
	return dt
}

// TypedColumn declares one column of a TypedBuilder.
type TypedColumn struct {
	Name string
	Kind ColumnKind
	// Nullable marks the Arrow field nullable. Spark reads everything as
	// nullable; set it unless the column can never be null.
	Nullable bool
}

// TypedBuilder builds a frame row by row from typed Go values without
// going through JSON or `any`: the fast path for connectors that read
// typed records (the NOTIFICATIONS dataset). Append one value per column,
// in column order, then call EndRow. Not safe for concurrent use.
type TypedBuilder struct {
	mem     memory.Allocator
	schema  *arrow.Schema
	batch   int
	rb      *array.RecordBuilder
	strs    []*array.StringBuilder
	longs   []*array.Int64Builder
	ints    []*array.Int32Builder
	doubles []*array.Float64Builder
	bools   []*array.BooleanBuilder
	stamps  []*array.TimestampBuilder
	rows    int
	records []arrow.Record
}

// NewTypedBuilder makes a builder of cols that cuts a record batch every
// batchRows rows (≤ 0: 64Ki rows). mem nil means the default allocator.
func NewTypedBuilder(mem memory.Allocator, cols []TypedColumn, batchRows int) *TypedBuilder {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if batchRows <= 0 {
		batchRows = 1 << 16
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Kind.arrowType(), Nullable: c.Nullable}
	}
	b := &TypedBuilder{mem: mem, schema: arrow.NewSchema(fields, nil), batch: batchRows}
	b.rb = array.NewRecordBuilder(mem, b.schema)
	n := len(cols)
	b.strs = make([]*array.StringBuilder, n)
	b.longs = make([]*array.Int64Builder, n)
	b.ints = make([]*array.Int32Builder, n)
	b.doubles = make([]*array.Float64Builder, n)
	b.bools = make([]*array.BooleanBuilder, n)
	b.stamps = make([]*array.TimestampBuilder, n)
	for i, fb := range b.rb.Fields() {
		switch x := fb.(type) {
		case *array.StringBuilder:
			b.strs[i] = x
		case *array.Int64Builder:
			b.longs[i] = x
		case *array.Int32Builder:
			b.ints[i] = x
		case *array.Float64Builder:
			b.doubles[i] = x
		case *array.BooleanBuilder:
			b.bools[i] = x
		case *array.TimestampBuilder:
			b.stamps[i] = x
		}
	}
	b.reserve()
	return b
}

// reserve gives each column room for a first stretch of rows; builders
// grow geometrically after that, so a small read does not hold a whole
// batch's worth of memory.
func (b *TypedBuilder) reserve() {
	for _, fb := range b.rb.Fields() {
		fb.Reserve(min(b.batch, 1024))
	}
}

// Schema is the schema of the frame being built.
func (b *TypedBuilder) Schema() *arrow.Schema { return b.schema }

// AppendString appends to string column col.
func (b *TypedBuilder) AppendString(col int, v string) { b.strs[col].Append(v) }

// AppendLong appends to long column col.
func (b *TypedBuilder) AppendLong(col int, v int64) { b.longs[col].Append(v) }

// AppendInteger appends to integer column col.
func (b *TypedBuilder) AppendInteger(col int, v int32) { b.ints[col].Append(v) }

// AppendDouble appends to double column col.
func (b *TypedBuilder) AppendDouble(col int, v float64) { b.doubles[col].Append(v) }

// AppendBoolean appends to boolean column col.
func (b *TypedBuilder) AppendBoolean(col int, v bool) { b.bools[col].Append(v) }

// AppendTimestamp appends t (kept to the microsecond) to timestamp column col.
func (b *TypedBuilder) AppendTimestamp(col int, t time.Time) {
	b.stamps[col].Append(arrow.Timestamp(t.UnixMicro()))
}

// AppendTimestampPtr appends *t, or null when t is nil.
func (b *TypedBuilder) AppendTimestampPtr(col int, t *time.Time) {
	if t == nil {
		b.stamps[col].AppendNull()
		return
	}
	b.AppendTimestamp(col, *t)
}

// AppendNull appends a null to column col.
func (b *TypedBuilder) AppendNull(col int) { b.rb.Field(col).AppendNull() }

// EndRow finishes a row; every column must have had one value appended.
func (b *TypedBuilder) EndRow() error {
	b.rows++
	if b.rows%1024 == 0 || b.rows >= b.batch {
		// Checking every row costs more than the appends; a mismatch shows
		// up within 1024 rows and always before a batch is cut.
		for i, fb := range b.rb.Fields() {
			if fb.Len() != b.rows {
				return fmt.Errorf("dataframe: column %q has %d values after %d rows", b.schema.Field(i).Name, fb.Len(), b.rows)
			}
		}
	}
	if b.rows >= b.batch {
		b.flush()
	}
	return nil
}

func (b *TypedBuilder) flush() {
	if b.rows == 0 {
		return
	}
	b.records = append(b.records, b.rb.NewRecord())
	b.rows = 0
	b.reserve()
}

// Rows is the number of rows appended so far.
func (b *TypedBuilder) Rows() int64 {
	var n int64
	for _, r := range b.records {
		n += r.NumRows()
	}
	return n + int64(b.rows)
}

// Frame returns the rows built so far as a frame (owned by the caller) and
// resets the builder.
func (b *TypedBuilder) Frame() (*Frame, error) {
	for i, fb := range b.rb.Fields() {
		if fb.Len() != b.rows {
			return nil, fmt.Errorf("dataframe: column %q has %d values for %d rows", b.schema.Field(i).Name, fb.Len(), b.rows)
		}
	}
	b.flush()
	recs := b.records
	b.records = nil
	return New(b.schema, recs...)
}

// Release frees the builder and any batches not yet turned into a frame.
func (b *TypedBuilder) Release() {
	for _, r := range b.records {
		r.Release()
	}
	b.records = nil
	b.rb.Release()
}

// Constant is a column whose every row holds the same value, as the
// partition columns of a Hive-partitioned dataset (`region=eu/`).
type Constant struct {
	Name string
	Kind ColumnKind
	// Value is the text of the value, converted to Kind (timestamps as RFC
	// 3339 or `2006-01-02[ 15:04:05]`, UTC when without offset). Null
	// marks a null value (Hive's __HIVE_DEFAULT_PARTITION__).
	Value string
	Null  bool
}

// WithConstants returns a new frame of f's columns followed by the constant
// columns, built with mem (nil: f's allocator). f is not released. A constant whose name is already a column of
// f, or whose value does not convert to its kind, is an error.
func WithConstants(mem memory.Allocator, f *Frame, consts []Constant) (*Frame, error) {
	if mem == nil {
		mem = f.Allocator()
	}
	fields := append([]arrow.Field(nil), f.schema.Fields()...)
	for _, c := range consts {
		if len(f.schema.FieldIndices(c.Name)) > 0 {
			return nil, fmt.Errorf("dataframe: column %q is both a data column and a constant (partition) column", c.Name)
		}
		fields = append(fields, arrow.Field{Name: c.Name, Type: c.Kind.arrowType(), Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	out := &Frame{schema: schema, mem: f.mem}
	for _, rec := range f.records {
		n := int(rec.NumRows())
		cols := append([]arrow.Array(nil), rec.Columns()...)
		var made []arrow.Array
		for _, c := range consts {
			arr, err := constantArray(mem, c, n)
			if err != nil {
				for _, a := range made {
					a.Release()
				}
				out.Release()
				return nil, err
			}
			made = append(made, arr)
			cols = append(cols, arr)
		}
		out.records = append(out.records, array.NewRecord(schema, cols, int64(n)))
		out.rows += int64(n)
		for _, a := range made {
			a.Release()
		}
	}
	return out, nil
}

func constantArray(mem memory.Allocator, c Constant, n int) (arrow.Array, error) {
	b := array.NewBuilder(mem, c.Kind.arrowType())
	defer b.Release()
	b.Reserve(n)
	if c.Null {
		b.AppendNulls(n)
		return b.NewArray(), nil
	}
	bad := func(err error) error {
		return fmt.Errorf("dataframe: column %q: %q is not a %s: %w", c.Name, c.Value, c.Kind, err)
	}
	switch x := b.(type) {
	case *array.StringBuilder:
		for i := 0; i < n; i++ {
			x.Append(c.Value)
		}
	case *array.Int64Builder:
		v, err := strconv.ParseInt(strings.TrimSpace(c.Value), 10, 64)
		if err != nil {
			return nil, bad(err)
		}
		for i := 0; i < n; i++ {
			x.Append(v)
		}
	case *array.Int32Builder:
		v, err := strconv.ParseInt(strings.TrimSpace(c.Value), 10, 32)
		if err != nil {
			return nil, bad(err)
		}
		for i := 0; i < n; i++ {
			x.Append(int32(v))
		}
	case *array.Float64Builder:
		v, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64)
		if err != nil {
			return nil, bad(err)
		}
		for i := 0; i < n; i++ {
			x.Append(v)
		}
	case *array.BooleanBuilder:
		v, err := strconv.ParseBool(strings.TrimSpace(c.Value))
		if err != nil {
			return nil, bad(err)
		}
		for i := 0; i < n; i++ {
			x.Append(v)
		}
	case *array.TimestampBuilder:
		t, err := parseTimestampText(c.Value)
		if err != nil {
			return nil, bad(err)
		}
		for i := 0; i < n; i++ {
			x.Append(arrow.Timestamp(t.UnixMicro()))
		}
	}
	return b.NewArray(), nil
}

func parseTimestampText(s string) (time.Time, error) { return sparktype.ParseTimestamp(s) }

// ByteSize is the memory the frame's Arrow buffers take, in bytes: the
// figure progress lines report for frames that are not files.
func ByteSize(f *Frame) int64 {
	var n int64
	for _, r := range f.records {
		for _, c := range r.Columns() {
			n += dataSize(c.Data())
		}
	}
	return n
}

func dataSize(d arrow.ArrayData) int64 {
	var n int64
	for i, b := range d.Buffers() {
		if b == nil {
			continue
		}
		size := int64(b.Len())
		if i == 0 {
			// Builders hand over validity bitmaps at their reserved
			// capacity; count the bits the array uses.
			size = min(size, int64(d.Offset()+d.Len()+7)/8)
		}
		n += size
	}
	for _, c := range d.Children() {
		n += dataSize(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataSize(d.Dictionary())
	}
	return n
}

// WithColumnNames returns a frame of f's data under new top-level column
// names (one per column, in order). The data is shared, not copied; f is
// not released.
func WithColumnNames(f *Frame, names []string) (*Frame, error) {
	fields := f.schema.Fields()
	if len(names) != len(fields) {
		return nil, fmt.Errorf("dataframe: %d names for %d columns", len(names), len(fields))
	}
	for i := range fields {
		fields[i].Name = names[i]
	}
	md := f.schema.Metadata()
	schema := arrow.NewSchema(fields, &md)
	out := &Frame{schema: schema, rows: f.rows, mem: f.mem}
	for _, rec := range f.records {
		out.records = append(out.records, array.NewRecord(schema, rec.Columns(), rec.NumRows()))
	}
	return out, nil
}

// KeepColumns returns a frame of f's top-level columns at the given
// indices, in that order. The data is shared, not copied; f is not
// released.
func KeepColumns(f *Frame, indices []int) (*Frame, error) {
	all := f.schema.Fields()
	fields := make([]arrow.Field, len(indices))
	for i, idx := range indices {
		if idx < 0 || idx >= len(all) {
			return nil, fmt.Errorf("dataframe: column index %d out of range (%d columns)", idx, len(all))
		}
		fields[i] = all[idx]
	}
	md := f.schema.Metadata()
	schema := arrow.NewSchema(fields, &md)
	out := &Frame{schema: schema, rows: f.rows, mem: f.mem}
	for _, rec := range f.records {
		cols := make([]arrow.Array, len(indices))
		for i, idx := range indices {
			cols[i] = rec.Column(idx)
		}
		out.records = append(out.records, array.NewRecord(schema, cols, rec.NumRows()))
	}
	return out, nil
}
