package fileio

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Reading Parquet gives Spark's timestamp, microseconds (docs/frames.md#arrow):
// a TIMESTAMP_MILLIS or TIMESTAMP_NANOS column (or one whose stored Arrow
// schema says seconds) is turned into microseconds as it is read, nanoseconds
// floored to the microsecond before them, as Spark reads them.

// microsSchema is s with every timestamp, nested ones too, at microseconds.
func microsSchema(s *arrow.Schema) *arrow.Schema {
	fields := s.Fields()
	changed := false
	for i, f := range fields {
		if t, ok := microsType(f.Type); ok {
			fields[i].Type, changed = t, true
		}
	}
	if !changed {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// microsType is dt with its timestamps at microseconds; ok is false when
// dt has none of another unit.
func microsType(dt arrow.DataType) (_ arrow.DataType, ok bool) {
	switch t := dt.(type) {
	case *arrow.TimestampType:
		if t.Unit == arrow.Microsecond {
			return dt, false
		}
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: t.TimeZone}, true
	case *arrow.ListType:
		f := t.ElemField()
		if f.Type, ok = microsType(f.Type); ok {
			return arrow.ListOfField(f), true
		}
	case *arrow.StructType:
		fs := t.Fields()
		for i := range fs {
			var c bool
			if fs[i].Type, c = microsType(fs[i].Type); c {
				ok = true
			}
		}
		if ok {
			return arrow.StructOf(fs...), true
		}
	case *arrow.MapType:
		k, kc := microsType(t.KeyType())
		v, vc := microsType(t.ItemType())
		if kc || vc {
			m := arrow.MapOfWithMetadata(k, t.KeyField().Metadata, v, t.ItemField().Metadata)
			m.KeysSorted = t.KeysSorted
			m.SetItemNullable(t.ItemField().Nullable)
			return m, true
		}
	}
	return dt, false
}

// microsRecord is rec with its timestamp columns at microseconds (rec
// itself, retained, when there is nothing to turn). It releases rec.
func microsRecord(mem memory.Allocator, rec arrow.Record) (arrow.Record, error) {
	schema := microsSchema(rec.Schema())
	if schema == rec.Schema() {
		return rec, nil
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
		data, err := microsData(mem, c.Data(), schema.Field(i).Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", schema.Field(i).Name, err)
		}
		cols[i] = array.MakeFromData(data)
		data.Release()
	}
	return array.NewRecord(schema, cols, rec.NumRows()), nil
}

// microsData is data as type to (microsType of its type); the caller
// releases it.
func microsData(mem memory.Allocator, data arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	if arrow.TypeEqual(data.DataType(), to) {
		data.Retain()
		return data, nil
	}
	if from, ok := data.DataType().(*arrow.TimestampType); ok {
		return microsValues(mem, data, from.Unit, to)
	}
	children := data.Children()
	var toChildren []arrow.DataType
	switch t := to.(type) {
	case *arrow.ListType:
		toChildren = []arrow.DataType{t.Elem()}
	case *arrow.StructType:
		for _, f := range t.Fields() {
			toChildren = append(toChildren, f.Type)
		}
	case *arrow.MapType:
		toChildren = []arrow.DataType{t.Elem()}
	}
	if len(toChildren) != len(children) {
		return nil, fmt.Errorf("cannot read %s as %s", data.DataType(), to)
	}
	out := make([]arrow.ArrayData, len(children))
	defer func() {
		for _, c := range out {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range children {
		var err error
		if out[i], err = microsData(mem, c, toChildren[i]); err != nil {
			return nil, err
		}
	}
	return array.NewData(to, data.Len(), data.Buffers(), out, data.NullN(), data.Offset()), nil
}

// microsValues turns the values of a timestamp array of unit from into
// microseconds.
func microsValues(mem memory.Allocator, data arrow.ArrayData, from arrow.TimeUnit, to arrow.DataType) (arrow.ArrayData, error) {
	n := data.Offset() + data.Len()
	if data.Len() == 0 {
		return array.NewData(to, 0, []*memory.Buffer{nil, nil}, nil, 0, 0), nil
	}
	src := arrow.TimestampTraits.CastFromBytes(data.Buffers()[1].Bytes())[:n]
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(arrow.TimestampTraits.BytesRequired(n))
	defer buf.Release()
	dst := arrow.TimestampTraits.CastFromBytes(buf.Bytes())
	var mul int64
	switch from {
	case arrow.Second:
		mul = 1_000_000
	case arrow.Millisecond:
		mul = 1000
	}
	for i := data.Offset(); i < n; i++ {
		v := int64(src[i])
		switch {
		case from == arrow.Nanosecond:
			v /= 1000
			if int64(src[i])%1000 < 0 {
				v-- // floored, as Spark reads nanoseconds
			}
		case v > math.MaxInt64/mul || v < math.MinInt64/mul:
			if data.Buffers()[0] == nil || bitIsSet(data.Buffers()[0].Bytes(), i) {
				return nil, fmt.Errorf("timestamp %d (%s) is beyond the microsecond range", v, from)
			}
			v = 0
		default:
			v *= mul
		}
		dst[i] = arrow.Timestamp(v)
	}
	return array.NewData(to, data.Len(), []*memory.Buffer{data.Buffers()[0], buf}, nil, data.NullN(), data.Offset()), nil
}

func bitIsSet(bits []byte, i int) bool { return bits[i/8]&(1<<(i%8)) != 0 }
