package gotabridge

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	gota "github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	json "github.com/goccy/go-json"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// ToGota converts f to a gota DataFrame:
//
//   - struct fields flatten to dotted columns (`pageInfo.totalResults`), at
//     any depth; a null struct makes all its columns null;
//   - lists and maps become their JSON text (String series);
//   - integers become Int series built from []int — never int64, which gota
//     silently turns into NaN — so values beyond 2^31 survive;
//   - doubles become Float, booleans Bool, strings String; timestamps and
//     dates their RFC 3339 text; binary its base64 text;
//   - nulls become gota NaN elements (NaN floats, missing ints, strings and
//     booleans).
//
// gota itself treats the string "NaN" as missing, so a string cell holding
// exactly "NaN" reads back as null. FromGota with f's schema undoes the rest.
func ToGota(f *dataframe.Frame) (gota.DataFrame, error) {
	if f.NumCols() == 0 {
		return gota.DataFrame{}, errors.New("gota: the frame has no columns (gota needs at least one)")
	}
	var cols []series.Series
	seen := map[string]bool{}
	var walk func(name string, dt arrow.DataType, chunks []gotaChunk) error
	walk = func(name string, dt arrow.DataType, chunks []gotaChunk) error {
		if st, ok := dt.(*arrow.StructType); ok && st.NumFields() > 0 {
			for k, fd := range st.Fields() {
				sub := make([]gotaChunk, len(chunks))
				for c, ch := range chunks {
					sa := ch.arr.(*array.Struct)
					sub[c] = gotaChunk{arr: sa.Field(k), parents: append(append([]arrow.Array(nil), ch.parents...), sa)}
				}
				if err := walk(name+"."+fd.Name, fd.Type, sub); err != nil {
					return err
				}
			}
			return nil
		}
		if seen[name] {
			return fmt.Errorf("gota: two columns flatten to the name %q", name)
		}
		seen[name] = true
		s, err := gotaSeries(name, dt, chunks, int(f.NumRows()))
		if err != nil {
			return err
		}
		cols = append(cols, s)
		return nil
	}
	for c, fd := range f.Schema().Fields() {
		chunks := make([]gotaChunk, 0, len(f.Records()))
		for _, rec := range f.Records() {
			chunks = append(chunks, gotaChunk{arr: rec.Column(c)})
		}
		if err := walk(fd.Name, fd.Type, chunks); err != nil {
			return gota.DataFrame{}, err
		}
	}
	df := gota.New(cols...)
	if df.Err != nil {
		return gota.DataFrame{}, fmt.Errorf("gota: %w", df.Err)
	}
	return df, nil
}

// gotaChunk is one batch of a column plus the structs it sits in: a cell is
// null when any of them is null there.
type gotaChunk struct {
	arr     arrow.Array
	parents []arrow.Array
}

func (c gotaChunk) isNull(i int) bool {
	if c.arr.IsNull(i) {
		return true
	}
	for _, p := range c.parents {
		if p.IsNull(i) {
			return true
		}
	}
	return false
}

func gotaSeries(name string, dt arrow.DataType, chunks []gotaChunk, n int) (series.Series, error) {
	var nulls []int
	var s series.Series
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		vals := make([]int, 0, n)
		for _, ch := range chunks {
			for i := 0; i < ch.arr.Len(); i++ {
				if ch.isNull(i) {
					nulls = append(nulls, len(vals))
					vals = append(vals, 0)
					continue
				}
				v, err := intCell(ch.arr, i)
				if err != nil {
					return series.Series{}, fmt.Errorf("gota: column %q: %w", name, err)
				}
				vals = append(vals, v)
			}
		}
		s = series.New(vals, series.Int, name)
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256:
		vals := make([]float64, 0, n)
		for _, ch := range chunks {
			for i := 0; i < ch.arr.Len(); i++ {
				if ch.isNull(i) {
					vals = append(vals, math.NaN())
					continue
				}
				vals = append(vals, dataframe.ValueAt(ch.arr, i).(float64))
			}
		}
		s = series.New(vals, series.Float, name)
	case arrow.BOOL:
		vals := make([]bool, 0, n)
		for _, ch := range chunks {
			b := ch.arr.(*array.Boolean)
			for i := 0; i < b.Len(); i++ {
				if ch.isNull(i) {
					nulls = append(nulls, len(vals))
				}
				vals = append(vals, b.Value(i))
			}
		}
		s = series.New(vals, series.Bool, name)
	default:
		vals := make([]string, 0, n)
		var buf []byte
		for _, ch := range chunks {
			for i := 0; i < ch.arr.Len(); i++ {
				if ch.isNull(i) {
					nulls = append(nulls, len(vals))
					vals = append(vals, "")
					continue
				}
				vals = append(vals, cellText(&buf, ch.arr, i))
			}
		}
		s = series.New(vals, series.String, name)
	}
	for _, i := range nulls {
		s.Elem(i).Set(nil) // any value gota does not know marks the element NaN
	}
	return s, nil
}

func intCell(arr arrow.Array, i int) (int, error) {
	switch a := arr.(type) {
	case *array.Int64:
		return int(a.Value(i)), nil
	case *array.Int32:
		return int(a.Value(i)), nil
	case *array.Int16:
		return int(a.Value(i)), nil
	case *array.Int8:
		return int(a.Value(i)), nil
	case *array.Uint8:
		return int(a.Value(i)), nil
	case *array.Uint16:
		return int(a.Value(i)), nil
	case *array.Uint32:
		return int(a.Value(i)), nil
	case *array.Uint64:
		v := a.Value(i)
		if v > math.MaxInt64 {
			return 0, fmt.Errorf("row %d: %d does not fit a gota Int", i, v)
		}
		return int(v), nil
	}
	return 0, fmt.Errorf("not an integer column: %s", arr.DataType())
}

// cellText is the text of a non-null cell: strings as they are, nested
// values as JSON, other scalars as their JSON text without quotes.
func cellText(buf *[]byte, arr arrow.Array, i int) string {
	switch a := arr.(type) {
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.StringView:
		return strings.Clone(a.Value(i))
	}
	b := dataframe.AppendJSONValue((*buf)[:0], arr, i)
	*buf = b
	if !dataframe.IsNested(arr.DataType()) && len(b) >= 2 && b[0] == '"' {
		b = b[1 : len(b)-1]
	}
	return string(b)
}

// FromGota converts a gota DataFrame to a frame.
//
// With schema nil the column types follow gota's: Int → long, Float →
// double, Bool → boolean, String → string, and NaN elements are null.
//
// With a schema (typically the one ToGota's input had), its fields come
// first and in its order: dotted columns are gathered back into structs
// (a struct row whose columns are all null is a null struct), JSON text is
// parsed back into lists and maps, and each column is converted to the
// field's type. A column the schema names but df lacks is an error; columns
// of df the schema does not cover follow, typed from gota.
func FromGota(df gota.DataFrame, schema *arrow.Schema) (f *dataframe.Frame, err error) {
	if df.Err != nil {
		return nil, fmt.Errorf("gota: %w", df.Err)
	}
	mem := memory.DefaultAllocator
	names := df.Names()
	byName := make(map[string]series.Series, len(names))
	for _, n := range names {
		byName[n] = df.Col(n)
	}
	used := map[string]bool{}
	var fields []arrow.Field
	var cols []arrow.Array
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	nrows := df.Nrow()
	if schema != nil {
		for _, fd := range schema.Fields() {
			b := array.NewBuilder(mem, fd.Type)
			err := fillFromGota(b, fd.Name, fd.Type, byName, used, nrows)
			if err != nil {
				b.Release()
				return nil, err
			}
			cols = append(cols, b.NewArray())
			b.Release()
			fields = append(fields, fd)
		}
	}
	for _, n := range names {
		if used[n] {
			continue
		}
		s := byName[n]
		var dt arrow.DataType
		switch s.Type() {
		case series.Int:
			dt = arrow.PrimitiveTypes.Int64
		case series.Float:
			dt = arrow.PrimitiveTypes.Float64
		case series.Bool:
			dt = arrow.FixedWidthTypes.Boolean
		default:
			dt = arrow.BinaryTypes.String
		}
		b := array.NewBuilder(mem, dt)
		err := fillFromGota(b, n, dt, byName, used, nrows)
		if err != nil {
			b.Release()
			return nil, err
		}
		cols = append(cols, b.NewArray())
		b.Release()
		fields = append(fields, arrow.Field{Name: n, Type: dt, Nullable: true})
	}
	out := arrow.NewSchema(fields, nil)
	if schema != nil && len(fields) == schema.NumFields() {
		out = arrow.NewSchema(fields, schemaMetadata(schema))
	}
	if nrows == 0 {
		return dataframe.Empty(out), nil
	}
	rec := array.NewRecord(out, cols, int64(nrows))
	return dataframe.New(out, rec)
}

func schemaMetadata(s *arrow.Schema) *arrow.Metadata {
	if !s.HasMetadata() {
		return nil
	}
	md := s.Metadata()
	return &md
}

// fillFromGota appends the nrows values of column name (for a struct: of
// its dotted columns) to b.
func fillFromGota(b array.Builder, name string, dt arrow.DataType, cols map[string]series.Series, used map[string]bool, nrows int) error {
	if st, ok := dt.(*arrow.StructType); ok && st.NumFields() > 0 {
		sb := b.(*array.StructBuilder)
		valid, err := structValidity(name, st, cols, nrows)
		if err != nil {
			return err
		}
		// AppendValues, unlike Append(false), leaves the children alone:
		// they get their own (null) values from their columns below.
		sb.AppendValues(valid)
		for k, fd := range st.Fields() {
			if err := fillFromGota(sb.FieldBuilder(k), name+"."+fd.Name, fd.Type, cols, used, nrows); err != nil {
				return err
			}
		}
		return nil
	}
	s, ok := cols[name]
	if !ok {
		return fmt.Errorf("gota: no column %q for schema field %s (%s)", name, name, sparktype.Name(dt))
	}
	used[name] = true
	b.Reserve(nrows)
	for i := 0; i < nrows; i++ {
		e := s.Elem(i)
		if e.IsNA() {
			b.AppendNull()
			continue
		}
		if err := appendGotaElem(b, dt, e); err != nil {
			return fmt.Errorf("gota: column %q row %d: %w", name, i, err)
		}
	}
	return nil
}

// structValidity marks the rows where at least one leaf column under the
// struct is not NaN: ToGota turns a null struct into all-NaN leaves.
func structValidity(name string, st *arrow.StructType, cols map[string]series.Series, nrows int) ([]bool, error) {
	valid := make([]bool, nrows)
	var walk func(prefix string, st *arrow.StructType) error
	walk = func(prefix string, st *arrow.StructType) error {
		for _, fd := range st.Fields() {
			n := prefix + "." + fd.Name
			if sub, ok := fd.Type.(*arrow.StructType); ok && sub.NumFields() > 0 {
				if err := walk(n, sub); err != nil {
					return err
				}
				continue
			}
			s, ok := cols[n]
			if !ok {
				return fmt.Errorf("gota: no column %q for schema field %s (%s)", n, n, sparktype.Name(fd.Type))
			}
			for i := 0; i < nrows; i++ {
				if !valid[i] && !s.Elem(i).IsNA() {
					valid[i] = true
				}
			}
		}
		return nil
	}
	return valid, walk(name, st)
}

func appendGotaElem(b array.Builder, dt arrow.DataType, e series.Element) error {
	switch bb := b.(type) {
	case *array.Int64Builder:
		v, err := e.Int()
		if err != nil {
			return err
		}
		bb.Append(int64(v))
	case *array.Int32Builder:
		v, err := e.Int()
		if err != nil {
			return err
		}
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("%d overflows integer", v)
		}
		bb.Append(int32(v))
	case *array.Float64Builder:
		bb.Append(e.Float())
	case *array.BooleanBuilder:
		v, err := e.Bool()
		if err != nil {
			return err
		}
		bb.Append(v)
	case *array.StringBuilder:
		bb.Append(e.String())
	case *array.LargeStringBuilder:
		bb.Append(e.String())
	default:
		// Everything else (narrow ints, timestamps, binary, lists, maps)
		// goes through Arrow's JSON decoding of the cell's text, with
		// numbers kept exact.
		return appendJSONText(b, dt, e.String())
	}
	return nil
}

// appendJSONText appends one value given as text to b: JSON for nested
// types, the bare value (a timestamp, base64, a number) for scalars.
func appendJSONText(b array.Builder, dt arrow.DataType, text string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrow json: %v (recovered panic)", r)
		}
	}()
	doc := []byte(text)
	if !dataframe.IsNested(dt) {
		switch dt.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
			arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL:
			if _, perr := strconv.ParseFloat(text, 64); perr != nil && text != "true" && text != "false" {
				doc = strconv.AppendQuote(nil, text)
			}
		default:
			doc = strconv.AppendQuote(nil, text)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	unmarshal := b.UnmarshalOne
	if containsMap(dt) {
		unmarshal = func(dec *json.Decoder) error { return appendJSONTokens(b, dec) }
	}
	if err := unmarshal(dec); err != nil {
		return fmt.Errorf("%q is not a %s: %w", dataframe.TruncateCell(text, 60), sparktype.Name(dt), err)
	}
	if dec.More() {
		return fmt.Errorf("%q is not one %s value", dataframe.TruncateCell(text, 60), sparktype.Name(dt))
	}
	return nil
}
