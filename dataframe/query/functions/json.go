package functions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// JSON functions: see docs/sql-functions.md#json-functions.

func init() {
	register(bindGetJSONObject, "get_json_object")
	register(bindFromJSON, "from_json")
	register(bindToJSON, "to_json")
}

// jsonStep is one step of a JSON path: a key, an index or a wildcard.
type jsonStep struct {
	key      string
	index    int
	isIndex  bool
	wildcard bool
}

// parseJSONPath reads the JSONPath subset get_json_object supports: `$`,
// then `.name`, `['name']`, `[n]`, `[*]` and `.*`.
func parseJSONPath(p string) ([]jsonStep, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("JSON path %q must start with $", p)
	}
	var steps []jsonStep
	i := 1
	for i < len(p) {
		switch p[i] {
		case '.':
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			name := p[i+1 : j]
			switch name {
			case "":
				return nil, fmt.Errorf("JSON path %q has an empty name at %d", p, i+1)
			case "*":
				steps = append(steps, jsonStep{wildcard: true})
			default:
				steps = append(steps, jsonStep{key: name})
			}
			i = j
		case '[':
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("JSON path %q has an unclosed [ at %d", p, i+1)
			}
			inner := p[i+1 : i+end]
			switch {
			case inner == "*":
				steps = append(steps, jsonStep{wildcard: true})
			case len(inner) >= 2 && inner[0] == '\'' && inner[len(inner)-1] == '\'':
				steps = append(steps, jsonStep{key: inner[1 : len(inner)-1]})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("JSON path %q has a bad subscript [%s]", p, inner)
				}
				steps = append(steps, jsonStep{index: n, isIndex: true})
			}
			i += end + 1
		default:
			return nil, fmt.Errorf("JSON path %q: unexpected %q at %d", p, p[i], i+1)
		}
	}
	return steps, nil
}

// walkJSON collects the raw values steps lead to from raw.
func walkJSON(raw json.RawMessage, steps []jsonStep, out []json.RawMessage) []json.RawMessage {
	if len(steps) == 0 {
		return append(out, raw)
	}
	st := steps[0]
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return out
	}
	switch {
	case st.wildcard && raw[0] == '[', st.isIndex:
		var elems []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
			return out
		}
		if st.isIndex {
			if st.index < len(elems) {
				return walkJSON(elems[st.index], steps[1:], out)
			}
			return out
		}
		for _, e := range elems {
			out = walkJSON(e, steps[1:], out)
		}
		return out
	case raw[0] == '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return out
		}
		if st.wildcard {
			// Keys in document order are not kept by a map; a wildcard over
			// an object is rare, so walk the keys as they come.
			for _, v := range obj {
				out = walkJSON(v, steps[1:], out)
			}
			return out
		}
		if v, ok := obj[st.key]; ok {
			return walkJSON(v, steps[1:], out)
		}
	}
	return out
}

// getJSONObject is get_json_object for one document: the value at the
// path, a string without its quotes, anything else as compact JSON text;
// several wildcard matches form a JSON array.
func getJSONObject(dst []byte, doc string, steps []jsonStep, wildcard bool) ([]byte, bool) {
	if !json.Valid([]byte(doc)) {
		return dst, false
	}
	found := walkJSON(json.RawMessage(doc), steps, nil)
	switch {
	case len(found) == 0:
		return dst, false
	case len(found) == 1 || !wildcard:
		v := bytes.TrimSpace(found[0])
		if bytes.Equal(v, []byte("null")) {
			return dst, false
		}
		if v[0] == '"' {
			var s string
			if json.Unmarshal(v, &s) == nil {
				return append(dst, s...), true
			}
		}
		var b bytes.Buffer
		if json.Compact(&b, v) != nil {
			return dst, false
		}
		return append(dst, b.Bytes()...), true
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for k, v := range found {
		if k > 0 {
			b.WriteByte(',')
		}
		if json.Compact(&b, v) != nil {
			return dst, false
		}
	}
	b.WriteByte(']')
	return append(dst, b.Bytes()...), true
}

type jsonPath struct {
	steps    []jsonStep
	wildcard bool
}

func compileJSONPath(p string) (jsonPath, error) {
	steps, err := parseJSONPath(p)
	if err != nil {
		return jsonPath{}, err
	}
	jp := jsonPath{steps: steps}
	for _, s := range steps {
		jp.wildcard = jp.wildcard || s.wildcard
	}
	return jp, nil
}

func bindGetJSONObject(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "ss")
	if err != nil {
		return fn.Bound{}, err
	}
	// An invalid literal path is NULL for every row, as in Spark.
	paths, err := newCache(args, 1, "", compileJSONPath)
	if err != nil {
		return fn.Bound{Type: stringType, Args: in, Eval: allNull(stringType)}, nil
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		doc := a[0].(*array.String)
		pc := paths.forEval()
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			p, err := pc.at(a, i)
			if err != nil {
				return dst, false, nil
			}
			out, ok := getJSONObject(dst, doc.Value(i), p.steps, p.wildcard)
			return out, ok, nil
		})
	}}, nil
}

// parseSchema reads from_json's schema: a type string (`struct<a:int>`,
// `array<string>`, `map<string,int>`) or a DDL column list (`a INT, b
// STRING`).
func parseSchema(s string) (arrow.DataType, error) {
	if dt, err := sparktype.ParseType(s); err == nil {
		return dt, nil
	}
	var fields []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '<', '(':
				depth++
				continue
			case '>', ')':
				depth--
				continue
			case ',':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		}
		col := strings.TrimSpace(s[start:i])
		start = i + 1
		name, typ, ok := strings.Cut(col, " ")
		if !ok {
			name, typ, ok = strings.Cut(col, ":")
		}
		if !ok || name == "" {
			return nil, fmt.Errorf("schema %q: expected `name type` in %q", s, col)
		}
		fields = append(fields, name+":"+strings.TrimSpace(typ))
	}
	dt, err := sparktype.ParseType("struct<" + strings.Join(fields, ",") + ">")
	if err != nil {
		return nil, fmt.Errorf("schema %q: %w", s, err)
	}
	return dt, nil
}

func bindFromJSON(args []fn.Arg) (fn.Bound, error) {
	if len(args) == 3 {
		return fn.Bound{}, fmt.Errorf("argument 3: from_json options are not supported")
	}
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	if _, err := stringArg(args, 0); err != nil {
		return fn.Bound{}, err
	}
	schema, null, ok := constString(args[1])
	if !ok || null || !isStringType(args[1].Type) {
		return fn.Bound{}, fmt.Errorf("argument 2 must be a schema string literal, got %s", sparkName(args[1].Type))
	}
	dt, err := parseSchema(schema)
	if err != nil {
		return fn.Bound{}, fmt.Errorf("argument 2: %w", err)
	}
	switch dt.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP:
	default:
		return fn.Bound{}, fmt.Errorf("argument 2: schema %q must be a struct, an array or a map", schema)
	}
	if err := stringKeyed(dt); err != nil {
		return fn.Bound{}, fmt.Errorf("argument 2: schema %q: %w", schema, err)
	}
	return fn.Bound{Type: dt, Args: []arrow.DataType{stringType, nil}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		doc := a[0].(*array.String)
		b := array.NewBuilder(ctx.Mem, dt)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			if doc.IsNull(i) {
				b.AppendNull()
				continue
			}
			dec := json.NewDecoder(strings.NewReader(doc.Value(i)))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil || dec.More() {
				// A malformed record is a struct of NULLs (PERMISSIVE mode).
				if st, ok := b.(*array.StructBuilder); ok {
					appendJSONAs(st, map[string]any{})
				} else {
					b.AppendNull()
				}
				continue
			}
			if obj, isObj := v.(map[string]any); isObj && dt.ID() == arrow.LIST && dt.(*arrow.ListType).Elem().ID() == arrow.STRUCT {
				v = []any{obj} // a single object reads as a one-element array
			}
			appendJSONAs(b, v)
		}
		return b.NewArray(), nil
	}}, nil
}

// stringKeyed checks that every map in dt has string keys: JSON object
// keys are text.
func stringKeyed(dt arrow.DataType) error {
	switch t := dt.(type) {
	case *arrow.MapType:
		if !isStringType(t.KeyType()) {
			return fmt.Errorf("map keys must be strings, got %s", sparkName(t.KeyType()))
		}
		return stringKeyed(t.ItemType())
	case *arrow.ListType:
		return stringKeyed(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if err := stringKeyed(f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendJSONAs appends a decoded JSON value to b as b's type, the way
// Spark's JSON reader converts; a value of the wrong kind is NULL.
func appendJSONAs(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.StructBuilder:
		obj, ok := v.(map[string]any)
		if !ok {
			b.AppendNull()
			return
		}
		x.Append(true)
		st := x.Type().(*arrow.StructType)
		for k, f := range st.Fields() {
			fv, present := obj[f.Name]
			if !present {
				x.FieldBuilder(k).AppendNull()
				continue
			}
			appendJSONAs(x.FieldBuilder(k), fv)
		}
	case *array.ListBuilder:
		elems, ok := v.([]any)
		if !ok {
			b.AppendNull()
			return
		}
		x.Append(true)
		for _, e := range elems {
			appendJSONAs(x.ValueBuilder(), e)
		}
	case *array.MapBuilder:
		obj, ok := v.(map[string]any)
		if !ok {
			b.AppendNull()
			return
		}
		x.Append(true)
		for k, item := range obj {
			appendJSONAs(x.KeyBuilder(), k)
			appendJSONAs(x.ItemBuilder(), item)
		}
	case *array.StringBuilder:
		if s, ok := v.(string); ok {
			x.Append(s)
			return
		}
		text, _ := json.Marshal(v)
		x.Append(string(text))
	case *array.BooleanBuilder:
		if bv, ok := v.(bool); ok {
			x.Append(bv)
		} else {
			x.AppendNull()
		}
	default:
		appendJSONScalar(b, v)
	}
}

// appendJSONScalar converts a JSON number or string to a numeric, decimal,
// date or timestamp builder's type.
func appendJSONScalar(b array.Builder, v any) {
	num, isNum := v.(json.Number)
	str, isStr := v.(string)
	switch x := b.(type) {
	case *array.Int64Builder, *array.Int32Builder, *array.Int16Builder, *array.Int8Builder:
		if i, err := strconv.ParseInt(string(num), 10, 64); isNum && err == nil && fitsInt(b.Type(), i) {
			appendInt(b, i)
			return
		}
	case *array.Float64Builder, *array.Float32Builder:
		var f float64
		var err error
		switch {
		case isNum:
			f, err = num.Float64()
		case isStr && (str == "NaN" || str == "Infinity" || str == "-Infinity" || str == "+Infinity"):
			f = map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "+Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}[str]
		default:
			err = fmt.Errorf("not a number")
		}
		if err == nil {
			if fb, ok := x.(*array.Float64Builder); ok {
				fb.Append(f)
			} else {
				x.(*array.Float32Builder).Append(float32(f))
			}
			return
		}
	case *array.Decimal128Builder:
		dt := x.Type().(*arrow.Decimal128Type)
		text := string(num)
		if isStr {
			text = str
		}
		if d, ok := fn.ParseDecimal(text, dt.Precision, dt.Scale); (isNum || isStr) && ok {
			x.Append(d)
			return
		}
	case *array.TimestampBuilder:
		if us, ok := fn.ParseTimestamp(str); isStr && ok {
			x.Append(arrow.Timestamp(fn.FromMicros(us, x.Type().(*arrow.TimestampType).Unit)))
			return
		}
	case *array.Date32Builder:
		if d, ok := fn.ParseDate(str); isStr && ok {
			x.Append(arrow.Date32(d))
			return
		}
	}
	b.AppendNull()
}

func fitsInt(dt arrow.DataType, v int64) bool {
	switch dt.ID() {
	case arrow.INT32:
		return v == int64(int32(v))
	case arrow.INT16:
		return v == int64(int16(v))
	case arrow.INT8:
		return v == int64(int8(v))
	}
	return true
}

func bindToJSON(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 2); err != nil {
		return fn.Bound{}, err
	}
	switch args[0].Type.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP, arrow.NULL:
	default:
		return fn.Bound{}, argErr(0, args[0], "a struct, an array or a map")
	}
	return fn.Bound{Type: stringType, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			return appendSparkJSON(dst, a[0], i), true, nil
		})
	}}, nil
}

// appendSparkJSON writes value i as Spark's to_json does: struct fields
// that are NULL are left out (ignoreNullFields); the leaves are written
// as dataframe.AppendJSONValue writes them.
func appendSparkJSON(dst []byte, arr arrow.Array, i int) []byte {
	if arr.IsNull(i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		first := true
		for k := 0; k < a.NumField(); k++ {
			if a.Field(k).IsNull(i) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONName(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = appendSparkJSON(dst, a.Field(k), i)
		}
		return append(dst, '}')
	case *array.List:
		s, e := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ',')
			}
			dst = appendSparkJSON(dst, a.ListValues(), int(j))
		}
		return append(dst, ']')
	case *array.Map:
		s, e := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '{')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ',')
			}
			if _, isString := keys.(*array.String); isString {
				dst = dataframe.AppendJSONValue(dst, keys, int(j))
			} else {
				dst = appendJSONName(dst, string(fn.AppendSparkString(nil, keys, int(j))))
			}
			dst = append(dst, ':')
			dst = appendSparkJSON(dst, items, int(j))
		}
		return append(dst, '}')
	case *array.Float64, *array.Float32:
		// Jackson writes Java's Double.toString (1.0E21); NaN and the
		// infinities, which JSON lacks, as strings.
		if f := fn.FloatValue(arr, i); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return fn.AppendSparkString(dst, arr, i)
		}
	}
	return dataframe.AppendJSONValue(dst, arr, i)
}

// appendJSONName writes s as a JSON string (without HTML escaping, as
// Jackson writes it).
func appendJSONName(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}
