package dataframe

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// ValueAt is cell i of arr as a plain Go value: nil, string, int64, int32,
// float64, bool, time.Time (UTC), []byte, []any (lists) or map[string]any
// (structs and maps). Narrow integers widen to int32, unsigned ones to int64,
// decimals to float64. A null struct or list is nil.
func ValueAt(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
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
	return arr.ValueStr(i)
}

// AppendJSONValue appends the JSON text of cell i of arr to dst: strings
// quoted and escaped, nested values as JSON objects and arrays, null as
// null. Doubles keep a fraction (`4.0`) so the text reads back as double;
// NaN and infinities, which JSON lacks, are the strings "NaN",
// "Infinity" and "-Infinity". Timestamps are RFC 3339 UTC strings with
// milliseconds; binary is base64.
func AppendJSONValue(dst []byte, arr arrow.Array, i int) []byte {
	if arr.IsNull(i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.String:
		return appendJSONString(dst, a.Value(i))
	case *array.LargeString:
		return appendJSONString(dst, a.Value(i))
	case *array.StringView:
		return appendJSONString(dst, a.Value(i))
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
		return appendJSONFloat(dst, a.Value(i), 64)
	case *array.Float32:
		return appendJSONFloat(dst, float64(a.Value(i)), 32)
	case *array.Float16:
		return appendJSONFloat(dst, float64(a.Value(i).Float32()), 32)
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return appendJSONTime(dst, a.Value(i).ToTime(unit))
	case *array.Date32:
		return append(a.Value(i).ToTime().UTC().AppendFormat(append(dst, '"'), "2006-01-02"), '"')
	case *array.Date64:
		return append(a.Value(i).ToTime().UTC().AppendFormat(append(dst, '"'), "2006-01-02"), '"')
	case *array.Binary:
		return appendJSONBase64(dst, a.Value(i))
	case *array.LargeBinary:
		return appendJSONBase64(dst, a.Value(i))
	case *array.FixedSizeBinary:
		return appendJSONBase64(dst, a.Value(i))
	case *array.Decimal128:
		return append(dst, a.Value(i).ToString(a.DataType().(*arrow.Decimal128Type).Scale)...)
	case *array.Decimal256:
		return append(dst, a.Value(i).ToString(a.DataType().(*arrow.Decimal256Type).Scale)...)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = AppendJSONValue(dst, a.Field(k), i)
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
				dst = appendJSONString(dst, s.Value(int(j)))
			} else {
				dst = appendJSONString(dst, fmt.Sprint(ValueAt(keys, int(j))))
			}
			dst = append(dst, ':')
			dst = AppendJSONValue(dst, items, int(j))
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
			dst = AppendJSONValue(dst, vals, int(j))
		}
		return append(dst, ']')
	case *array.Dictionary:
		return AppendJSONValue(dst, a.Dictionary(), a.GetValueIndex(i))
	}
	return appendJSONString(dst, arr.ValueStr(i))
}

func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	// encoding/json's format choice, plus ".0" on integral values so the
	// column reads back as double.
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		return dst
	}
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// appendJSONTime writes t in UTC with milliseconds, or with the full
// fraction when it is finer than a millisecond.
func appendJSONTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	dst = append(dst, '"')
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		dst = t.AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
	} else {
		dst = t.AppendFormat(dst, time.RFC3339Nano)
	}
	return append(dst, '"')
}

func appendJSONBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// jsonSafe marks bytes that may be copied into a JSON string as they are.
var jsonSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as a JSON string. Invalid UTF-8 becomes U+FFFD so
// the output is always valid JSON.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonSafe[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
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
}

// NewRowJSON prepares the keys of schema.
func NewRowJSON(schema *arrow.Schema) *RowJSON {
	fields := schema.Fields()
	keys := make([][]byte, len(fields))
	for i, fd := range fields {
		k := appendJSONString(nil, fd.Name)
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
			buf = AppendJSONValue(buf, col, i)
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
			if col.IsNull(i) {
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
