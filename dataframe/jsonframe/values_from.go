package jsonframe

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// FromValues builds a frame from rows of Go values, typed column by column
// with the JSON inference rules: nil, string, integers (long), floats
// (double), bool, and maps, slices and structs (inferred from their JSON
// form). A column of only time.Time (and nil) is a timestamp column, one of
// only []byte a binary column; mixed with other values they are strings
// (RFC 3339 text, base64). A column of only nil is string.
func FromValues(columns []string, rows [][]any) (*dataframe.Frame, error) {
	return FromValuesWithAllocator(memory.DefaultAllocator, columns, rows)
}

// FromValuesWithAllocator is FromValues with the frame's memory from mem.
func FromValuesWithAllocator(mem memory.Allocator, columns []string, rows [][]any) (*dataframe.Frame, error) {
	for i, r := range rows {
		if len(r) != len(columns) {
			return nil, fmt.Errorf("dataframe: row %d has %d values, want %d (columns %v)", i, len(r), len(columns), columns)
		}
	}
	fields := make([]arrow.Field, len(columns))
	cols := make([]arrow.Array, len(columns))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c, name := range columns {
		col, err := columnFromValues(mem, rows, c)
		if err != nil {
			return nil, fmt.Errorf("dataframe: column %q: %w", name, err)
		}
		cols[c] = col
		fields[c] = arrow.Field{Name: name, Type: col.DataType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	if len(rows) == 0 {
		out := dataframe.Empty(schema)
		out.SetAllocator(mem)
		return out, nil
	}
	out, err := dataframe.New(schema, array.NewRecord(schema, cols, int64(len(rows))))
	if err != nil {
		return nil, err
	}
	out.SetAllocator(mem)
	return out, nil
}

func columnFromValues(mem memory.Allocator, rows [][]any, c int) (arrow.Array, error) {
	allTime, allBytes, allNum, anyFloat, any := true, true, true, false, false
	for _, r := range rows {
		v := r[c]
		if v == nil {
			continue
		}
		any = true
		_, isTime := v.(time.Time)
		_, isBytes := v.([]byte)
		_, isInt, isFloat := goNumber(v)
		allTime = allTime && isTime
		allBytes = allBytes && isBytes
		allNum = allNum && (isInt || isFloat)
		anyFloat = anyFloat || isFloat
	}
	switch {
	case any && allNum && !anyFloat:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for _, r := range rows {
			if v, ok := goInt(r[c]); ok {
				b.Append(v)
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray(), nil
	case any && allNum:
		// Built directly, so NaN and infinities stay doubles.
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		for _, r := range rows {
			if r[c] == nil {
				b.AppendNull()
				continue
			}
			v, _, _ := goNumber(r[c])
			b.Append(v)
		}
		return b.NewArray(), nil
	case any && allTime:
		b := array.NewTimestampBuilder(mem, sparktype.TimestampType)
		defer b.Release()
		for _, r := range rows {
			if t, ok := r[c].(time.Time); ok {
				b.Append(arrow.Timestamp(t.UnixMicro()))
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray(), nil
	case any && allBytes:
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		for _, r := range rows {
			if v, ok := r[c].([]byte); ok {
				b.Append(v)
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray(), nil
	}
	// Everything else goes through its JSON text and the JSON inference.
	texts := make([][]byte, len(rows))
	node := &typeNode{}
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: jsontext.DefaultMaxDepth}}
	for i, r := range rows {
		text, err := goValueJSON(r[c])
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		texts[i] = text
		s.Data, s.Err = text, nil
		if s.inferValue(0, node, 0) < 0 {
			return nil, fmt.Errorf("row %d: %w", i, s.Err)
		}
	}
	dt, ok := node.arrowType()
	if !ok {
		// Only empty objects: keep their text rather than lose the column.
		node.toString()
		dt = arrow.BinaryTypes.String
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	bn, err := newBuildNode(b)
	if err != nil {
		return nil, err
	}
	for _, text := range texts {
		s.Data = text
		s.buildValue(0, bn, 0)
	}
	return b.NewArray(), nil
}

// goValueJSON is the JSON text of a Go value for inference.
func goValueJSON(v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return []byte("null"), nil
	case string:
		return jsontext.AppendString(nil, x), nil
	case bool:
		return strconv.AppendBool(nil, x), nil
	case int:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(nil, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(nil, x, 10), nil
	case uint8:
		return strconv.AppendUint(nil, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(nil, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(nil, uint64(x), 10), nil
	case uint:
		return strconv.AppendUint(nil, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(nil, x, 10), nil
	case float32:
		return jsontext.AppendFloat(nil, float64(x), 64), nil
	case float64:
		return jsontext.AppendFloat(nil, x, 64), nil
	case time.Time:
		return jsontext.AppendTime(nil, x), nil
	case []byte:
		return jsontext.AppendBase64(nil, x), nil
	case json.RawMessage:
		if !json.Valid(x) {
			return nil, fmt.Errorf("invalid json.RawMessage")
		}
		return x, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value of type %T: %w", v, err)
	}
	return b, nil
}

// goInt is v as int64 when it is a Go integer that fits.
func goInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		return int64(x), x <= math.MaxInt64
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

// goNumber reports whether v is a Go integer that fits int64 (isInt) or a
// float or larger unsigned integer (isFloat), with its value as float64.
func goNumber(v any) (f float64, isInt, isFloat bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true, false
	case int8:
		return float64(x), true, false
	case int16:
		return float64(x), true, false
	case int32:
		return float64(x), true, false
	case int64:
		return float64(x), true, false
	case uint8:
		return float64(x), true, false
	case uint16:
		return float64(x), true, false
	case uint32:
		return float64(x), true, false
	case uint:
		return float64(x), x <= math.MaxInt64, x > math.MaxInt64
	case uint64:
		return float64(x), x <= math.MaxInt64, x > math.MaxInt64
	case float32:
		return float64(x), false, true
	case float64:
		return x, false, true
	}
	return 0, false, false
}
