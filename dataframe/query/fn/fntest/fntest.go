// Package fntest builds Arrow arrays from Go values and reads them back, for
// the tests of the cast and the SQL function library.
package fntest

import (
	"fmt"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Array builds an array of type dt from vals: nil is NULL; otherwise the Go
// value must suit dt — string, int (any integer type), float64, bool,
// time.Time (timestamp, date), string "1.50" for decimals, []any for lists,
// []any of field values for structs. It panics on a mismatch: a test bug.
func Array(mem memory.Allocator, dt arrow.DataType, vals ...any) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for _, v := range vals {
		appendValue(b, v)
	}
	return b.NewArray()
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	panic(fmt.Sprintf("fntest: %T is not an integer", v))
}

func appendValue(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.StringBuilder:
		x.Append(v.(string))
	case *array.LargeStringBuilder:
		x.Append(v.(string))
	case *array.BinaryBuilder:
		x.Append([]byte(v.(string)))
	case *array.BooleanBuilder:
		x.Append(v.(bool))
	case *array.Int8Builder:
		x.Append(int8(toInt(v)))
	case *array.Int16Builder:
		x.Append(int16(toInt(v)))
	case *array.Int32Builder:
		x.Append(int32(toInt(v)))
	case *array.Int64Builder:
		x.Append(toInt(v))
	case *array.Float32Builder:
		x.Append(float32(v.(float64)))
	case *array.Float64Builder:
		x.Append(v.(float64))
	case *array.Decimal128Builder:
		dt := x.Type().(*arrow.Decimal128Type)
		n, err := decimal128.FromString(v.(string), dt.Precision, dt.Scale)
		if err != nil {
			panic(err)
		}
		x.Append(n)
	case *array.TimestampBuilder:
		unit := x.Type().(*arrow.TimestampType).Unit
		t := v.(time.Time)
		switch unit {
		case arrow.Second:
			x.Append(arrow.Timestamp(t.Unix()))
		case arrow.Millisecond:
			x.Append(arrow.Timestamp(t.UnixMilli()))
		case arrow.Microsecond:
			x.Append(arrow.Timestamp(t.UnixMicro()))
		default:
			x.Append(arrow.Timestamp(t.UnixNano()))
		}
	case *array.Date32Builder:
		x.Append(arrow.Date32FromTime(v.(time.Time)))
	case *array.ListBuilder:
		x.Append(true)
		for _, e := range v.([]any) {
			appendValue(x.ValueBuilder(), e)
		}
	case *array.MapBuilder:
		x.Append(true)
		kv := v.([]any) // alternating key, value
		for k := 0; k < len(kv); k += 2 {
			appendValue(x.KeyBuilder(), kv[k])
			appendValue(x.ItemBuilder(), kv[k+1])
		}
	case *array.StructBuilder:
		x.Append(true)
		for f, e := range v.([]any) {
			appendValue(x.FieldBuilder(f), e)
		}
	case *array.NullBuilder:
		panic("fntest: a null array holds only nil")
	default:
		panic(fmt.Sprintf("fntest: no builder for %T", b))
	}
}

// Values reads arr back as Go values (dataframe.ValueAt), except decimals,
// which read as their text ("1.50") to keep the scale visible, and dates,
// which read as "yyyy-MM-dd".
func Values(arr arrow.Array) []any {
	out := make([]any, arr.Len())
	if arr.DataType().ID() == arrow.NULL {
		return out // every value of a Null array is NULL
	}
	for i := range out {
		switch a := arr.(type) {
		case *array.Decimal128:
			if a.IsValid(i) {
				out[i] = string(fn.AppendSparkString(nil, a, i, nil))
				continue
			}
		case *array.Date32:
			if a.IsValid(i) {
				out[i] = a.Value(i).FormattedString()
				continue
			}
		}
		out[i] = dataframe.ValueAt(arr, i)
	}
	return out
}
