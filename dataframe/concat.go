package dataframe

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// MergeSchemas merges b into a field by field with Spark's inference
// rules (sparktype.MergeFields, sparktype.Common): fields of both kept
// (matched by name), numbers widened (integers → long, with doubles →
// double, decimals as Spark's compatibleType), structs merged field-wise,
// lists merged element-wise, and any other conflict becomes string. When
// both sides list their fields in Spark's order (as inferred schemas do)
// the result is in that order too; otherwise a's fields keep their order
// and b's new ones follow. A field missing on one side becomes nullable.
// Either schema may be nil.
func MergeSchemas(a, b *arrow.Schema) *arrow.Schema {
	switch {
	case a == nil && b == nil:
		return arrow.NewSchema(nil, nil)
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return arrow.NewSchema(sparktype.MergeFields(a.Fields(), b.Fields()), nil)
}

// Concat stacks frames into one: schemas merged by MergeSchemas, columns a
// frame lacks filled with nulls, widened columns cast (long → double;
// anything → string holding its JSON text, strings keeping their text).
// Batches whose schema already matches are shared, not copied; new columns
// use the first frame's allocator. The inputs stay owned by the caller.
func Concat(frames ...*Frame) (*Frame, error) {
	for _, f := range frames {
		if f != nil {
			return ConcatWithAllocator(f.Allocator(), frames...)
		}
	}
	return ConcatWithAllocator(memory.DefaultAllocator)
}

// ConcatWithAllocator is Concat with the memory for cast columns taken from
// mem.
func ConcatWithAllocator(mem memory.Allocator, frames ...*Frame) (*Frame, error) {
	var schema *arrow.Schema
	for _, f := range frames {
		if f != nil {
			schema = MergeSchemas(schema, f.Schema())
		}
	}
	if schema == nil {
		schema = arrow.NewSchema(nil, nil)
	}
	var recs []arrow.Record
	release := func() {
		for _, r := range recs {
			r.Release()
		}
	}
	for _, f := range frames {
		if f == nil {
			continue
		}
		for _, r := range f.Records() {
			nr, err := conformRecord(mem, r, schema)
			if err != nil {
				release()
				return nil, err
			}
			recs = append(recs, nr)
		}
	}
	out, err := New(schema, recs...)
	if err != nil {
		release()
		return nil, err
	}
	out.mem = mem
	return out, nil
}

// conformRecord returns r with schema, sharing the columns that already
// fit; the result is a new reference.
func conformRecord(mem memory.Allocator, r arrow.Record, schema *arrow.Schema) (arrow.Record, error) {
	if r.Schema().Equal(schema) {
		r.Retain()
		return r, nil
	}
	n := int(r.NumRows())
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, fd := range schema.Fields() {
		idx := r.Schema().FieldIndices(fd.Name)
		if len(idx) == 0 {
			cols[i] = array.MakeArrayOfNull(mem, fd.Type, n)
			continue
		}
		col, err := castArray(mem, r.Column(idx[0]), fd.Type)
		if err != nil {
			return nil, fmt.Errorf("dataframe: column %q: %w", fd.Name, err)
		}
		cols[i] = col
	}
	return array.NewRecord(schema, cols, int64(n)), nil
}

// castArray converts arr to dt by the merge rules; the result is a new
// reference.
func castArray(mem memory.Allocator, arr arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), dt) {
		arr.Retain()
		return arr, nil
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if err := castAppend(b, arr, i); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// castAppend appends cell i of arr to b, converting it to b's type.
func castAppend(b array.Builder, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.StringBuilder:
		switch a := arr.(type) {
		case *array.String:
			bb.Append(a.Value(i))
		case *array.LargeString:
			bb.Append(a.Value(i))
		default:
			// JSON text, but a value that JSON writes as a string
			// (timestamp, date, binary) keeps its bare text.
			txt := AppendJSONValue(nil, arr, i)
			if len(txt) >= 2 && txt[0] == '"' {
				txt = jsontext.AppendDecoded(nil, txt[1:len(txt)-1])
			}
			bb.BinaryBuilder.Append(txt)
		}
		return nil
	case *array.TimestampBuilder:
		if a, ok := arr.(*array.Timestamp); ok {
			t := a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit)
			ts, err := arrow.TimestampFromTime(t, bb.Type().(*arrow.TimestampType).Unit)
			if err != nil {
				return err
			}
			bb.Append(ts)
			return nil
		}
	case *array.Int64Builder:
		switch v := ValueAt(arr, i).(type) {
		case int64:
			bb.Append(v)
			return nil
		case int32:
			bb.Append(int64(v))
			return nil
		}
	case *array.Float64Builder:
		switch v := ValueAt(arr, i).(type) {
		case int64:
			bb.Append(float64(v))
			return nil
		case int32:
			bb.Append(float64(v))
			return nil
		case float64:
			bb.Append(v)
			return nil
		}
	case *array.Decimal128Builder:
		dt := bb.Type().(*arrow.Decimal128Type)
		switch a := arr.(type) {
		case *array.Decimal128:
			v, err := a.Value(i).Rescale(a.DataType().(*arrow.Decimal128Type).Scale, dt.Scale)
			if err != nil || !v.FitsInPrecision(dt.Precision) {
				return fmt.Errorf("%s does not fit %s", a.ValueStr(i), sparktype.Name(dt))
			}
			bb.Append(v)
			return nil
		}
		var n int64
		switch v := ValueAt(arr, i).(type) {
		case int64:
			n = v
		case int32:
			n = int64(v)
		default:
			return fmt.Errorf("cannot convert %s to %s", sparktype.Name(arr.DataType()), sparktype.Name(dt))
		}
		v, err := decimal128.FromI64(n).Rescale(0, dt.Scale)
		if err != nil || !v.FitsInPrecision(dt.Precision) {
			return fmt.Errorf("%d does not fit %s", n, sparktype.Name(dt))
		}
		bb.Append(v)
		return nil
	case *array.BooleanBuilder:
		if a, ok := arr.(*array.Boolean); ok {
			bb.Append(a.Value(i))
			return nil
		}
	case *array.StructBuilder:
		a, ok := arr.(*array.Struct)
		if !ok {
			break
		}
		bb.Append(true)
		st := bb.Type().(*arrow.StructType)
		src := a.DataType().(*arrow.StructType)
		for k := 0; k < st.NumFields(); k++ {
			fb := bb.FieldBuilder(k)
			j, ok := src.FieldIdx(st.Field(k).Name)
			if !ok {
				fb.AppendNull()
				continue
			}
			if err := castAppend(fb, a.Field(j), i); err != nil {
				return err
			}
		}
		return nil
	case *array.ListBuilder:
		a, ok := arr.(array.ListLike)
		if !ok {
			break
		}
		bb.Append(true)
		start, end := a.ValueOffsets(i)
		for j := start; j < end; j++ {
			if err := castAppend(bb.ValueBuilder(), a.ListValues(), int(j)); err != nil {
				return err
			}
		}
		return nil
	default:
		if arrow.TypeEqual(b.Type(), arr.DataType()) {
			return b.AppendValueFromString(arr.ValueStr(i))
		}
	}
	return fmt.Errorf("cannot convert %s to %s", sparktype.Name(arr.DataType()), sparktype.Name(b.Type()))
}
