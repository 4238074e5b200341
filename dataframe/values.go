package dataframe

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// ValueAt is cell i of arr as a plain Go value: nil, string, int64, int32,
// float64, bool, time.Time (UTC), []byte, []any (lists) or map[string]any
// (structs and maps). Narrow integers widen to int32, unsigned ones to int64,
// decimals to float64, intervals are their SQL text (`INTERVAL '3' DAY`).
// A null struct or list is nil.
func ValueAt(arr arrow.Array, i int) any {
	if IsNull(arr, i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.StringView:
		return strings.Clone(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int16:
		return int32(a.Value(i))
	case *array.Int8:
		return int32(a.Value(i))
	case *array.Uint8:
		return int32(a.Value(i))
	case *array.Uint16:
		return int32(a.Value(i))
	case *array.Uint32:
		return int64(a.Value(i))
	case *array.Uint64:
		return int64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float16:
		return float64(a.Value(i).Float32())
	case *array.Boolean:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC()
	case *array.Date32:
		return a.Value(i).ToTime().UTC()
	case *array.Date64:
		return a.Value(i).ToTime().UTC()
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.LargeBinary:
		return append([]byte(nil), a.Value(i)...)
	case *array.FixedSizeBinary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Decimal128:
		return a.Value(i).ToFloat64(a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		return a.Value(i).ToFloat64(a.DataType().(*arrow.Decimal256Type).Scale)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := make(map[string]any, a.NumField())
		for k := 0; k < a.NumField(); k++ {
			m[st.Field(k).Name] = ValueAt(a.Field(k), i)
		}
		return m
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		m := make(map[string]any, end-start)
		for j := start; j < end; j++ {
			m[fmt.Sprint(ValueAt(keys, int(j)))] = ValueAt(items, int(j))
		}
		return m
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			out = append(out, ValueAt(vals, int(j)))
		}
		return out
	case *array.Dictionary:
		return ValueAt(a.Dictionary(), a.GetValueIndex(i))
	}
	if s, ok := sparktype.IntervalText(arr, i); ok {
		return s // an interval as its SQL text (docs/sql.md#intervals)
	}
	return arr.ValueStr(i)
}

// AppendJSONValue appends the JSON text of cell i of arr to dst: strings
// quoted and escaped, nested values as JSON objects and arrays, null as
// null. Doubles keep a fraction (`4.0`) so the text reads back as double;
// NaN and infinities, which JSON lacks, are the strings "NaN",
// "Infinity" and "-Infinity". Timestamps are RFC 3339 UTC strings with
// milliseconds, or all six digits when the value has microseconds
// (docs/frames.md#operations); binary is base64.
func AppendJSONValue(dst []byte, arr arrow.Array, i int) []byte {
	return appendJSONValue(dst, arr, i, false, nil)
}

// AppendJSONValueIn is AppendJSONValue with timestamps written as their
// wall-clock time in loc with its offset (`2016-03-11T20:54:00.000-08:00`),
// as Spark writes JSON and CSV in the session time zone. nil is UTC.
func AppendJSONValueIn(dst []byte, arr arrow.Array, i int, loc *time.Location) []byte {
	return appendJSONValue(dst, arr, i, false, loc)
}

// AppendJSONValueOmitNulls is AppendJSONValue with the struct fields that
// are null left out, as Spark's to_json writes them (a database's JSON
// column, docs/jdbc.md#types).
func AppendJSONValueOmitNulls(dst []byte, arr arrow.Array, i int) []byte {
	return appendJSONValue(dst, arr, i, true, nil)
}

func appendJSONValue(dst []byte, arr arrow.Array, i int, omitNulls bool, loc *time.Location) []byte {
	if IsNull(arr, i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.String:
		return jsontext.AppendString(dst, a.Value(i))
	case *array.LargeString:
		return jsontext.AppendString(dst, a.Value(i))
	case *array.StringView:
		return jsontext.AppendString(dst, a.Value(i))
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10)
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10)
	case *array.Float64:
		return jsontext.AppendFloat(dst, a.Value(i), 64)
	case *array.Float32:
		return jsontext.AppendFloat(dst, float64(a.Value(i)), 32)
	case *array.Float16:
		return jsontext.AppendFloat(dst, float64(a.Value(i).Float32()), 32)
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		if tt.TimeZone == "" { // timestamp_ntz: a wall-clock time, no offset
			return jsontext.AppendTime(dst, a.Value(i).ToTime(tt.Unit))
		}
		return jsontext.AppendTimeIn(dst, a.Value(i).ToTime(tt.Unit), loc)
	case *array.Date32:
		return append(a.Value(i).ToTime().UTC().AppendFormat(append(dst, '"'), "2006-01-02"), '"')
	case *array.Date64:
		return append(a.Value(i).ToTime().UTC().AppendFormat(append(dst, '"'), "2006-01-02"), '"')
	case *array.Binary:
		return jsontext.AppendBase64(dst, a.Value(i))
	case *array.LargeBinary:
		return jsontext.AppendBase64(dst, a.Value(i))
	case *array.FixedSizeBinary:
		return jsontext.AppendBase64(dst, a.Value(i))
	case *array.Decimal128, *array.Decimal256:
		return appendDecimal(dst, a, i)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		first := true
		for k := 0; k < a.NumField(); k++ {
			if omitNulls && a.Field(k).IsNull(i) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = jsontext.AppendString(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = appendJSONValue(dst, a.Field(k), i, omitNulls, loc)
		}
		return append(dst, '}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '{')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			if s, ok := keys.(*array.String); ok {
				dst = jsontext.AppendString(dst, s.Value(int(j)))
			} else {
				dst = jsontext.AppendString(dst, fmt.Sprint(ValueAt(keys, int(j))))
			}
			dst = append(dst, ':')
			dst = appendJSONValue(dst, items, int(j), omitNulls, loc)
		}
		return append(dst, '}')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, vals, int(j), omitNulls, loc)
		}
		return append(dst, ']')
	case *array.Dictionary:
		return appendJSONValue(dst, a.Dictionary(), a.GetValueIndex(i), omitNulls, loc)
	}
	if s, ok := sparktype.IntervalText(arr, i); ok {
		return jsontext.AppendString(dst, s)
	}
	return jsontext.AppendString(dst, arr.ValueStr(i))
}

// EachRowJSON calls fn with each row as a JSON object: keys in schema order,
// nested values as JSON (not text), nulls as null. obj is reused between
// calls; copy it to keep it. An error from fn stops the walk and is returned.
func (f *Frame) EachRowJSON(fn func(row int64, obj []byte) error) error {
	rj := NewRowJSON(f.schema)
	var row int64
	for _, rec := range f.records {
		err := rj.Each(rec, func(obj []byte) error {
			err := fn(row, obj)
			row++
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// RowJSON renders the rows of record batches of one schema as JSON objects
// (as EachRowJSON does), batch by batch: the writers of streams use it.
type RowJSON struct {
	keys [][]byte // `"name":` per column
	buf  []byte
	loc  *time.Location
}

// InZone makes rj write timestamps in loc, as AppendJSONValueIn; it
// returns rj.
func (rj *RowJSON) InZone(loc *time.Location) *RowJSON {
	rj.loc = loc
	return rj
}

// NewRowJSON prepares the keys of schema.
func NewRowJSON(schema *arrow.Schema) *RowJSON {
	fields := schema.Fields()
	keys := make([][]byte, len(fields))
	for i, fd := range fields {
		k := jsontext.AppendString(nil, fd.Name)
		keys[i] = append(k, ':')
	}
	return &RowJSON{keys: keys}
}

// Each calls fn with each row of rec as a JSON object, reused between calls.
func (rj *RowJSON) Each(rec arrow.Record, fn func(obj []byte) error) error {
	cols := rec.Columns()
	n := int(rec.NumRows())
	for i := 0; i < n; i++ {
		buf := append(rj.buf[:0], '{')
		for c, col := range cols {
			if c > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, rj.keys[c]...)
			buf = appendJSONValue(buf, col, i, false, rj.loc)
		}
		buf = append(buf, '}')
		rj.buf = buf
		if err := fn(buf); err != nil {
			return err
		}
	}
	return nil
}

// StringValues returns the values of the top-level string column over all
// batches, copied out of Arrow memory; valid[i] is false where the value is
// null.
func (f *Frame) StringValues(column string) (vals []string, valid []bool, err error) {
	idx := f.schema.FieldIndices(column)
	if len(idx) == 0 {
		return nil, nil, fmt.Errorf("dataframe: no column %q (columns: %v)", column, f.ColumnNames())
	}
	dt := f.schema.Field(idx[0]).Type
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
	default:
		return nil, nil, fmt.Errorf("dataframe: column %q is %s, not string", column, sparktype.Name(dt))
	}
	vals = make([]string, 0, f.rows)
	valid = make([]bool, 0, f.rows)
	for _, rec := range f.records {
		col := rec.Column(idx[0])
		for i := 0; i < col.Len(); i++ {
			if IsNull(col, i) {
				vals = append(vals, "")
				valid = append(valid, false)
				continue
			}
			switch a := col.(type) {
			case *array.String:
				vals = append(vals, strings.Clone(a.Value(i)))
			case *array.LargeString:
				vals = append(vals, strings.Clone(a.Value(i)))
			case *array.StringView:
				vals = append(vals, strings.Clone(a.Value(i)))
			}
			valid = append(valid, true)
		}
	}
	return vals, valid, nil
}

// IsNested reports whether dt is a struct, map or list: the types that text
// formats (CSV cells, gota columns) hold as JSON text.
func IsNested(dt arrow.DataType) bool {
	switch dt.(type) {
	case *arrow.StructType, *arrow.MapType, arrow.ListLikeType:
		return true
	}
	return false
}

// IsNull says whether cell i of arr is NULL. Every cell of a column of type
// NULL (Spark's void, `SELECT NULL`) is, though Arrow's IsNull says
// otherwise for it.
func IsNull(arr arrow.Array, i int) bool {
	return arr.DataType().ID() == arrow.NULL || arr.IsNull(i)
}

// appendDecimal appends decimal cell i of arr (a Decimal128 or Decimal256
// array) as Spark writes it: plain digits with the type's scale (19.90).
func appendDecimal(dst []byte, arr arrow.Array, i int) []byte {
	switch a := arr.(type) {
	case *array.Decimal128:
		return sparktype.AppendDecimal128(dst, a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal256:
		var buf [80]byte
		return sparktype.AppendDecimal(dst, a.Value(i).BigInt().Append(buf[:0], 10), a.DataType().(*arrow.Decimal256Type).Scale)
	}
	panic("appendDecimal of " + arr.DataType().String())
}
