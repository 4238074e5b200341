package functions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// JSON functions: see docs/sql-functions.md#json-functions.

func init() {
	def(fn.Scalar{Name: "get_json_object", Group: gJSON, Signature: "get_json_object(json_txt, path)", Returns: "string", Bind: bindGetJSONObject,
		Doc: "The value at JSON path `path` (`$`, `.name`, `['name']`, `[n]`, `[*]`, `.*`) of the JSON text: a string without " +
			"its quotes, anything else as compact JSON; several wildcard matches form a JSON array. NULL for invalid JSON, " +
			"an invalid path or no match.",
		Differences: "`.*` over an object visits its keys in document order.",
		Examples: ex(`get_json_object('{"a":"b"}', '$.a')`, "b", `get_json_object('{"a":[{"b":1},{"b":2}]}', '$.a[*].b')`, "[1,2]",
			`get_json_object('{"a":{"b":[1,2]}}', '$.a')`, `{"b":[1,2]}`, `get_json_object('{"a":1', '$.a')`, "NULL")})
	def(fn.Scalar{Name: "from_json", Group: gJSON, Signature: "from_json(jsonStr, schema[, options])", Returns: "the schema's type",
		Bind: bindFromJSON,
		Doc: "The JSON text parsed into `schema`, a literal DDL list (`'a INT, b DOUBLE'`) or type (`'struct<a:int>'`, " +
			"`'array<int>'`, `'map<string,int>'`). Fields match by name; a value of the wrong kind is NULL; a string field takes " +
			"any JSON value as its text; malformed JSON gives a struct of NULLs (PERMISSIVE mode). Options: `timestampFormat`, " +
			"`dateFormat`, `mode` (`PERMISSIVE` or `FAILFAST`).",
		Differences: "The JSON must be standard JSON: Jackson's leniencies (single quotes, unquoted names, comments) are not " +
			"accepted, and options other than those listed are ignored.",
		Examples: ex(`from_json('{"a":1, "b":0.8}', 'a INT, b DOUBLE')`, `{"a":1,"b":0.8}`,
			`from_json('{"time":"26/08/2015"}', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy'))`, `{"time":2015-08-26 00:00:00}`,
			`from_json('{"teacher": "Alice", "student": [{"name": "Bob", "rank": 1}, {"name": "Charlie", "rank": 2}]}', 'STRUCT<teacher: STRING, student: ARRAY<STRUCT<name: STRING, rank: INT>>>')`,
			`{"teacher":"Alice","student":[{"name":"Bob","rank":1},{"name":"Charlie","rank":2}]}`)},
		pretty(firstArgOnly))
	def(fn.Scalar{Name: "to_json", Group: gJSON, Signature: "to_json(expr[, options])", Returns: "string", Bind: bindToJSON,
		Doc: "A struct, array or map as JSON text; NULL struct fields are left out unless the option `ignoreNullFields` is " +
			"`false`. Options: `timestampFormat` (default `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`), `dateFormat` (`yyyy-MM-dd`), " +
			"`ignoreNullFields`, `pretty`.",
		Examples: ex("to_json(named_struct('a', 1, 'b', 2))", `{"a":1,"b":2}`,
			"to_json(named_struct('time', to_timestamp('2015-08-26', 'yyyy-MM-dd')), map('timestampFormat', 'dd/MM/yyyy'))", `{"time":"26/08/2015"}`,
			"to_json(array(named_struct('a', 1, 'b', 2)))", `[{"a":1,"b":2}]`, "to_json(map('a', named_struct('b', 1)))", `{"a":{"b":1}}`,
			"to_json(map(named_struct('a', 1),named_struct('b', 2)))", `{"[1]":{"b":2}}`, "to_json(map('a', 1))", `{"a":1}`,
			"to_json(array(map('a', 1)))", `[{"a":1}]`, "to_json(named_struct('a', 1, 'b', NULL), map('ignoreNullFields', 'false'))", `{"a":1,"b":null}`)},
		pretty(firstArgOnly))
	def(fn.Scalar{Name: "json_array_length", Group: gJSON, Signature: "json_array_length(jsonArray)", Returns: "int",
		Bind: rows("s", int32Type, func(r row) (int32, bool) {
			d := newJSONDoc([]byte(r.str(0, "")))
			if !d.valid() {
				return 0, false
			}
			pos := d.s.SkipWS(0)
			if d.s.Data[pos] != '[' {
				return 0, false
			}
			n := int32(0)
			d.elements(pos, func(int) { n++ })
			return n, true
		}),
		Doc:      "The number of elements of the outermost JSON array; NULL when the text is not a JSON array.",
		Examples: ex("json_array_length('[1,2,3,4]')", "4", `json_array_length('[1,2,3,{"f1":1,"f2":[5,6]},4]')`, "5", "json_array_length('[1,2')", "NULL")})
	def(fn.Scalar{Name: "json_object_keys", Group: gJSON, Signature: "json_object_keys(json_object)", Returns: "array<string>",
		Bind: bindJSONObjectKeys,
		Doc:  "The keys of the outermost JSON object, in order; NULL when the text is not a JSON object.",
		Examples: ex("json_object_keys('{}')", "[]", `json_object_keys('{"key": "value"}')`, `["key"]`,
			`json_object_keys('{"f1":"abc","f2":{"f3":"a", "f4":"b"}}')`, `["f1","f2"]`)})
	def(fn.Scalar{Name: "schema_of_json", Group: gJSON, Signature: "schema_of_json(json[, options])", Returns: "string",
		Bind: bindSchemaOfJSON,
		Doc:  "The type Spark infers for the JSON text (a literal), in DDL form.",
		Examples: ex(`schema_of_json('[{"col":0}]')`, "ARRAY<STRUCT<col: BIGINT>>",
			`schema_of_json('{"a":1.5,"b":"x","c":[true]}')`, "STRUCT<a: DOUBLE, b: STRING, c: ARRAY<BOOLEAN>>")},
		pretty(firstArgOnly))
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

// walkJSON collects the positions of the values steps lead to from the
// value at pos of a valid document.
func walkJSON(d *jsonDoc, pos int, steps []jsonStep, out []int) []int {
	if len(steps) == 0 {
		return append(out, pos)
	}
	st := steps[0]
	switch c := d.s.Data[pos]; {
	case c == '[' && (st.wildcard || st.isIndex):
		k := 0
		d.elements(pos, func(at int) {
			if st.wildcard || k == st.index {
				out = walkJSON(d, at, steps[1:], out)
			}
			k++
		})
	case c == '{' && !st.isIndex:
		d.members(pos, func(key []byte, at int) bool {
			if st.wildcard {
				out = walkJSON(d, at, steps[1:], out)
				return true
			}
			if string(d.keyText(key)) == st.key {
				out = walkJSON(d, at, steps[1:], out)
				return false
			}
			return true
		})
	}
	return out
}

// getJSONObject is get_json_object for one document: the value at the
// path, a string without its quotes, anything else as compact JSON text;
// several wildcard matches form a JSON array.
func getJSONObject(dst []byte, doc []byte, steps []jsonStep, wildcard bool, found []int) ([]byte, bool, []int) {
	d := newJSONDoc(doc)
	if !d.valid() {
		return dst, false, found
	}
	found = walkJSON(d, d.s.SkipWS(0), steps, found[:0])
	switch {
	case len(found) == 0:
		return dst, false, found
	case len(found) == 1 || !wildcard:
		switch doc[found[0]] {
		case 'n':
			return dst, false, found
		case '"':
			v, _ := d.value(found[0])
			return append(dst, d.keyText(v)...), true, found
		}
		return d.appendCompact(dst, found[0]), true, found
	}
	dst = append(dst, '[')
	for k, at := range found {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = d.appendCompact(dst, at)
	}
	return append(dst, ']'), true, found
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
		var found []int
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			p, err := pc.at(a, i)
			if err != nil {
				return dst, false, nil
			}
			var ok bool
			dst, ok, found = getJSONObject(dst, doc.ValueBytes()[doc.ValueOffset(i):doc.ValueOffset(i+1)], p.steps, p.wildcard, found)
			return dst, ok, nil
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
	if err := arity(args, 2, 3); err != nil {
		return fn.Bound{}, err
	}
	if err := optionsArg(args, 2); err != nil {
		return fn.Bound{}, err
	}
	if _, err := stringArg(args, 0); err != nil {
		return fn.Bound{}, err
	}
	dt, schema, err := schemaArg(args, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	switch dt.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP:
	default:
		return fn.Bound{}, fmt.Errorf("argument 2: schema %q must be a struct, an array or a map", schema)
	}
	if err := stringKeyed(dt); err != nil {
		return fn.Bound{}, fmt.Errorf("argument 2: schema %q: %w", schema, err)
	}
	return fn.Bound{Type: dt, Args: []arrow.DataType{stringType, nil, nil}[:len(args)], Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		doc := a[0].(*array.String)
		b := array.NewBuilder(ctx.Mem, dt)
		defer b.Release()
		b.Reserve(n)
		oc := optionCache{parsing: true, loc: ctx.Loc()}
		for i := 0; i < n; i++ {
			if nullAt(doc, i) {
				b.AppendNull()
				continue
			}
			opts, err := oc.at(a, 2, i)
			if err != nil {
				return nil, err
			}
			dec := json.NewDecoder(strings.NewReader(doc.Value(i)))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil || dec.More() {
				if opts.failFast {
					return nil, fmt.Errorf("malformed JSON record %q (mode FAILFAST)", doc.Value(i))
				}
				// A malformed record is a struct of NULLs (PERMISSIVE mode).
				if st, ok := b.(*array.StructBuilder); ok {
					appendJSONAs(st, map[string]any{}, opts)
				} else {
					b.AppendNull()
				}
				continue
			}
			if obj, isObj := v.(map[string]any); isObj && dt.ID() == arrow.LIST && dt.(*arrow.ListType).Elem().ID() == arrow.STRUCT {
				v = []any{obj} // a single object reads as a one-element array
			}
			appendJSONAs(b, v, opts)
		}
		return b.NewArray(), nil
	}}, nil
}

// schemaArg reads a literal schema argument (from_json, from_csv).
func schemaArg(args []fn.Arg, i int) (arrow.DataType, string, error) {
	schema, null, ok := constString(args[i])
	if !ok || null || !isStringType(args[i].Type) {
		return nil, "", fmt.Errorf("argument %d must be a schema string literal, got %s", i+1, sparkName(args[i].Type))
	}
	dt, err := parseSchema(schema)
	if err != nil {
		return nil, "", fmt.Errorf("argument %d: %w", i+1, err)
	}
	return dt, schema, nil
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
func appendJSONAs(b array.Builder, v any, o *jsonOptions) {
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
			appendJSONAs(x.FieldBuilder(k), fv, o)
		}
	case *array.ListBuilder:
		elems, ok := v.([]any)
		if !ok {
			b.AppendNull()
			return
		}
		x.Append(true)
		for _, e := range elems {
			appendJSONAs(x.ValueBuilder(), e, o)
		}
	case *array.MapBuilder:
		obj, ok := v.(map[string]any)
		if !ok {
			b.AppendNull()
			return
		}
		x.Append(true)
		for k, item := range obj {
			appendJSONAs(x.KeyBuilder(), k, o)
			appendJSONAs(x.ItemBuilder(), item, o)
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
		appendJSONScalar(b, v, o)
	}
}

// appendJSONScalar converts a JSON number or string to a numeric, decimal,
// date or timestamp builder's type.
func appendJSONScalar(b array.Builder, v any, o *jsonOptions) {
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
		if o.tsFormat != nil {
			if us, ok := o.tsFormat.parse(str, o.loc); isStr && ok {
				x.Append(arrow.Timestamp(fn.FromMicros(us, x.Type().(*arrow.TimestampType).Unit)))
				return
			}
			break
		}
		if us, ok := fn.ParseTimestamp(str, o.loc); isStr && ok {
			x.Append(arrow.Timestamp(fn.FromMicros(us, x.Type().(*arrow.TimestampType).Unit)))
			return
		}
	case *array.Date32Builder:
		if o.dateFormat != nil {
			if us, ok := o.dateFormat.parse(str, nil); isStr && ok {
				x.Append(arrow.Date32(floorDivInt(us, usPerDay)))
				return
			}
			break
		}
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
	if err := optionsArg(args, 1); err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		oc := optionCache{loc: ctx.Loc()}
		var buf []byte
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			o, err := oc.at(a, 1, i)
			if err != nil {
				return nil, false, err
			}
			if !o.pretty {
				return o.appendJSON(dst, a[0], i), true, nil
			}
			buf = o.appendJSON(buf[:0], a[0], i)
			return appendJacksonPretty(dst, buf), true, nil
		})
	}}, nil
}

// jsonOptions are the options of from_json and to_json Sluice honours.
type jsonOptions struct {
	tsFormat, dateFormat *dtPattern
	keepNulls, pretty    bool
	failFast             bool
	loc                  *time.Location // timestamps' zone: option timeZone, else the session's
}

// optionsArg checks that argument i, when given, is a map of strings.
func optionsArg(args []fn.Arg, i int) error {
	if i >= len(args) {
		return nil
	}
	switch t := args[i].Type.(type) {
	case *arrow.NullType:
		return nil
	case *arrow.MapType:
		if isStringType(t.KeyType()) && isStringType(t.ItemType()) {
			return nil
		}
	}
	return argErr(i, args[i], "a map of option names to values (map('name', 'value', …))")
}

// optionCache reads the options of a row, parsing a map only when it
// differs from the previous row's.
type optionCache struct {
	// parsing is set for from_json: its datetime patterns parse.
	parsing bool
	loc     *time.Location // the session time zone
	key     string
	opts    *jsonOptions
	plain   *jsonOptions // the options of a row without any
}

func (c *optionCache) at(a []arrow.Array, k, i int) (*jsonOptions, error) {
	if k >= len(a) || nullAt(a[k], i) || a[k].DataType().ID() != arrow.MAP {
		if c.plain == nil {
			c.plain = &jsonOptions{loc: c.loc}
		}
		return c.plain, nil
	}
	m := a[k].(*array.Map)
	keys, items := m.Keys().(*array.String), m.Items().(*array.String)
	s, e := m.ValueOffsets(i)
	var kb strings.Builder
	for j := s; j < e; j++ {
		kb.WriteString(keys.Value(int(j)))
		kb.WriteByte(0)
		if !nullAt(items, int(j)) {
			kb.WriteString(items.Value(int(j)))
		}
		kb.WriteByte(0)
	}
	if c.opts != nil && kb.String() == c.key {
		return c.opts, nil
	}
	o := &jsonOptions{loc: c.loc}
	compile := patternCompiler(c.parsing)
	for j := s; j < e; j++ {
		if nullAt(items, int(j)) {
			continue
		}
		v := items.Value(int(j))
		var err error
		switch strings.ToLower(keys.Value(int(j))) {
		case "timestampformat":
			o.tsFormat, err = compile(v)
		case "dateformat":
			o.dateFormat, err = compile(v)
		case "ignorenullfields":
			o.keepNulls = strings.EqualFold(v, "false")
		case "pretty":
			o.pretty = strings.EqualFold(v, "true")
		case "mode":
			o.failFast = strings.EqualFold(v, "FAILFAST")
		case "timezone":
			o.loc, err = zoneOption(v)
		}
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", keys.Value(int(j)), err)
		}
	}
	c.key, c.opts = kb.String(), o
	return o, nil
}

// appendJSON writes value i as Spark's to_json does: struct fields that
// are NULL are left out (ignoreNullFields); the leaves are written as
// dataframe.AppendJSONValue writes them, timestamps and dates with the
// formats asked for.
func (o *jsonOptions) appendJSON(dst []byte, arr arrow.Array, i int) []byte {
	if nullAt(arr, i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		first := true
		for k := 0; k < a.NumField(); k++ {
			if nullAt(a.Field(k), i) && !o.keepNulls {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONName(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = o.appendJSON(dst, a.Field(k), i)
		}
		return append(dst, '}')
	case *array.List:
		s, e := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ',')
			}
			dst = o.appendJSON(dst, a.ListValues(), int(j))
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
			switch k := keys.(type) {
			case *array.String:
				dst = dataframe.AppendJSONValue(dst, keys, int(j))
			case *array.Struct:
				dst = appendJSONName(dst, string(appendRowString(nil, k, int(j), o.loc)))
			default:
				dst = appendJSONName(dst, string(fn.AppendSparkString(nil, keys, int(j), o.loc)))
			}
			dst = append(dst, ':')
			dst = o.appendJSON(dst, items, int(j))
		}
		return append(dst, '}')
	case *array.Float64, *array.Float32:
		// Jackson writes Java's Double.toString (1.0E21); NaN and the
		// infinities, which JSON lacks, as strings.
		if f := fn.FloatValue(arr, i); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return fn.AppendSparkString(dst, arr, i, nil)
		}
	case *array.Timestamp:
		f := o.tsFormat
		if f == nil && a.DataType().(*arrow.TimestampType).TimeZone != "" {
			f = isoTimestamp
		}
		if f != nil {
			dst = append(dst, '"')
			return append(f.format(dst, fn.TimestampMicros(a, i), o.loc), '"')
		}
	case *array.Date32:
		if o.dateFormat != nil {
			dst = append(dst, '"')
			return append(o.dateFormat.format(dst, int64(a.Value(i))*usPerDay, nil), '"')
		}
	}
	return dataframe.AppendJSONValue(dst, arr, i)
}

// appendRowString writes a struct as Spark's InternalRow.toString, which
// is how to_json names a map key that is a struct: `[1]`, `[1,a]`.
func appendRowString(dst []byte, st *array.Struct, i int, loc *time.Location) []byte {
	dst = append(dst, '[')
	for k := 0; k < st.NumField(); k++ {
		if k > 0 {
			dst = append(dst, ',')
		}
		if nullAt(st.Field(k), i) {
			dst = append(dst, "null"...)
			continue
		}
		dst = fn.AppendSparkString(dst, st.Field(k), i, loc)
	}
	return append(dst, ']')
}

// appendJacksonPretty re-writes compact JSON the way Jackson's default
// pretty printer does: object members on their own lines indented two
// spaces per level, `" : "` between name and value, arrays on one line
// (`[ 1, 2 ]`), empty ones as `{ }` and `[ ]`.
func appendJacksonPretty(dst, v []byte) []byte {
	nesting := 0
	var stack []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '"':
			end := jsontext.StringEnd(v, i)
			dst = append(dst, v[i:end]...)
			i = end - 1
		case '{', '[':
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			if i+1 < len(v) && v[i+1] == close {
				dst = append(dst, c, ' ', close)
				i++
				continue
			}
			nesting++
			stack = append(stack, c)
			dst = append(dst, c)
			if c == '{' {
				dst = appendIndent(dst, nesting)
			} else {
				dst = append(dst, ' ')
			}
		case '}', ']':
			nesting--
			stack = stack[:len(stack)-1]
			if c == '}' {
				dst = appendIndent(dst, nesting)
			} else {
				dst = append(dst, ' ')
			}
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			if stack[len(stack)-1] == '{' {
				dst = appendIndent(dst, nesting)
			} else {
				dst = append(dst, ' ')
			}
		case ':':
			dst = append(dst, " : "...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func appendIndent(dst []byte, level int) []byte {
	dst = append(dst, '\n')
	for k := 0; k < level; k++ {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

func bindJSONObjectKeys(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "s")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: arrow.ListOf(stringType), Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewListBuilder(ctx.Mem, stringType)
		defer b.Release()
		vb := b.ValueBuilder().(*array.StringBuilder)
		for i := 0; i < n; i++ {
			if nullAt(a[0], i) {
				b.AppendNull()
				continue
			}
			d := newJSONDoc([]byte(a[0].(*array.String).Value(i)))
			if !d.valid() || d.s.Data[d.s.SkipWS(0)] != '{' {
				b.AppendNull()
				continue
			}
			b.Append(true)
			d.members(d.s.SkipWS(0), func(key []byte, _ int) bool {
				vb.Append(string(d.keyText(key)))
				return true
			})
		}
		return b.NewArray(), nil
	}}, nil
}

func bindSchemaOfJSON(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 2); err != nil {
		return fn.Bound{}, err
	}
	doc, null, ok := constString(args[0])
	if !ok || null {
		return fn.Bound{}, fmt.Errorf("argument 1 must be a JSON string literal")
	}
	f, err := jsonframe.ReadDocument([]byte(`{"v":`+doc+`}`), jsonframe.Options{})
	if err != nil {
		return fn.Bound{}, fmt.Errorf("argument 1: %q is not valid JSON", doc)
	}
	dt := f.Schema().Field(0).Type
	f.Release()
	text := sparktype.SQL(dt)
	return fn.Bound{Type: stringType, Args: []arrow.DataType{nil, nil}[:len(args)], Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		return rowsOf(ctx, stringType, nil, n, func(row) (string, bool) { return text, true }), nil
	}}, nil
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
