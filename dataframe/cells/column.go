package cells

import (
	"math/big"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe"
)

// Kind is how a column's values are read out of a batch.
type Kind int

// The kinds of Column.
const (
	KindOther     Kind = iota // anything else: Text
	KindBool                  // Bool
	KindInt                   // Int (byte, short, integer, long)
	KindFloat                 // Float (float, double)
	KindDecimal               // Decimal, DecimalText
	KindString                // Bytes (UTF-8)
	KindBinary                // Bytes
	KindDate                  // Days
	KindTimestamp             // Micros
	KindList                  // List: a list of scalars
	KindJSON                  // AppendJSON: structs, maps, nested lists
	KindNull                  // every value is null (void)
)

// KindOf is the kind of a column of type dt.
func KindOf(dt dataframe.DataType) Kind {
	switch t := dt.(type) {
	case *arrow.NullType:
		return KindNull
	case *arrow.BooleanType:
		return KindBool
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type:
		return KindInt
	case *arrow.Float32Type, *arrow.Float64Type:
		return KindFloat
	case *arrow.Decimal128Type:
		return KindDecimal
	case *arrow.StringType, *arrow.LargeStringType:
		return KindString
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return KindBinary
	case *arrow.Date32Type:
		return KindDate
	case *arrow.TimestampType:
		return KindTimestamp
	case *arrow.ListType:
		switch KindOf(t.Elem()) {
		case KindList, KindJSON, KindOther, KindNull:
			return KindJSON
		}
		return KindList
	case *arrow.StructType, *arrow.MapType, arrow.ListLikeType:
		return KindJSON
	}
	return KindOther
}

// Column reads the values of one column of a batch.
type Column struct {
	arr  arrow.Array
	kind Kind
}

// Columns are the columns of rec, in order.
func Columns(rec dataframe.Record) []Column {
	out := make([]Column, rec.NumCols())
	for i := range out {
		out[i] = NewColumn(rec.Column(i))
	}
	return out
}

// NewColumn reads arr.
func NewColumn(arr arrow.Array) Column { return Column{arr: arr, kind: KindOf(arr.DataType())} }

// Kind is how the values are read.
func (c Column) Kind() Kind { return c.kind }

// Len is the number of values.
func (c Column) Len() int { return c.arr.Len() }

// IsNull reports whether value i is null.
func (c Column) IsNull(i int) bool { return c.arr.IsNull(i) }

// Bool is value i of a KindBool column.
func (c Column) Bool(i int) bool { return c.arr.(*array.Boolean).Value(i) }

// Int is value i of a KindInt column.
func (c Column) Int(i int) int64 {
	switch a := c.arr.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Uint8:
		return int64(a.Value(i))
	case *array.Uint16:
		return int64(a.Value(i))
	case *array.Uint32:
		return int64(a.Value(i))
	}
	panic("cells: Int of a " + c.arr.DataType().String())
}

// Float is value i of a KindFloat column.
func (c Column) Float(i int) float64 {
	if a, ok := c.arr.(*array.Float64); ok {
		return a.Value(i)
	}
	return float64(c.arr.(*array.Float32).Value(i))
}

// Decimal is value i of a KindDecimal column: its unscaled digits and
// scale.
func (c Column) Decimal(i int) (*big.Int, int32) {
	a := c.arr.(*array.Decimal128)
	return a.Value(i).BigInt(), a.DataType().(*arrow.Decimal128Type).Scale
}

// AppendDecimalText appends value i of a KindDecimal column as text
// (`-12.50`).
func (c Column) AppendDecimalText(dst []byte, i int) []byte {
	a := c.arr.(*array.Decimal128)
	return append(dst, a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)...)
}

// Bytes is value i of a KindString or KindBinary column, not copied: valid
// while the batch is.
func (c Column) Bytes(i int) []byte {
	switch a := c.arr.(type) {
	case *array.String:
		offs := arrow.GetOffsets[int32](a.Data(), 1)
		return a.Data().Buffers()[2].Bytes()[offs[i]:offs[i+1]]
	case *array.LargeString:
		offs := arrow.GetOffsets[int64](a.Data(), 1)
		return a.Data().Buffers()[2].Bytes()[offs[i]:offs[i+1]]
	case *array.Binary:
		return a.Value(i)
	case *array.LargeBinary:
		return a.Value(i)
	}
	panic("cells: Bytes of a " + c.arr.DataType().String())
}

// Days is value i of a KindDate column, in days since 1970-01-01.
func (c Column) Days(i int) int32 { return int32(c.arr.(*array.Date32).Value(i)) }

// Micros is value i of a KindTimestamp column, in microseconds since the
// epoch.
func (c Column) Micros(i int) int64 {
	a := c.arr.(*array.Timestamp)
	v := int64(a.Value(i))
	switch a.DataType().(*arrow.TimestampType).Unit {
	case arrow.Second:
		return v * 1_000_000
	case arrow.Millisecond:
		return v * 1000
	case arrow.Nanosecond:
		return floorDiv(v, 1000)
	}
	return v
}

// List is value i of a KindList column: its elements are values
// start…end-1 of elems.
func (c Column) List(i int) (elems Column, start, end int) {
	a := c.arr.(*array.List)
	s, e := a.ValueOffsets(i)
	return NewColumn(a.ListValues()), int(s), int(e)
}

// AppendJSON appends value i as JSON text: nested values as JSON objects
// and arrays, struct fields that are null left out (as Spark's to_json
// does).
func (c Column) AppendJSON(dst []byte, i int) []byte {
	return dataframe.AppendJSONValueOmitNulls(dst, c.arr, i)
}

// AppendText appends value i as text, the way a cast to string prints it.
func (c Column) AppendText(dst []byte, i int) []byte {
	switch c.kind {
	case KindString, KindBinary:
		return append(dst, c.Bytes(i)...)
	case KindJSON, KindList:
		return c.AppendJSON(dst, i)
	case KindInt:
		return strconv.AppendInt(dst, c.Int(i), 10)
	}
	return append(dst, c.arr.ValueStr(i)...)
}
