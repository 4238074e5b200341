package functions

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// CSV functions: one CSV record to and from a struct, with Spark's default
// CSV options (separator `,`, quote `"`, escape `\`, empty field NULL).

func init() {
	def(fn.Scalar{Name: "from_csv", Group: gCSV, Signature: "from_csv(csvStr, schema[, options])", Returns: "struct", Bind: bindFromCSV,
		Doc: "The CSV record `csvStr` read into the struct `schema` (a literal DDL list): fields by position, missing ones " +
			"NULL, an empty or unreadable field NULL. Options: `sep`, `timestampFormat`, `dateFormat`.",
		Examples: ex("from_csv('1, 0.8', 'a INT, b DOUBLE')", `{"a":1,"b":0.8}`,
			"from_csv('26/08/2015', 'time Timestamp', map('timestampFormat', 'dd/MM/yyyy'))", `{"time":2015-08-26 00:00:00}`)},
		pretty(firstArgOnly))
	def(fn.Scalar{Name: "to_csv", Group: gCSV, Signature: "to_csv(expr[, options])", Returns: "string", Bind: bindToCSV,
		Doc: "The struct `expr` as one CSV record: a value holding the separator, a quote, a line break or blanks at an end " +
			"is quoted; NULL is empty. Options: `sep`, `timestampFormat`, `dateFormat`.",
		Examples: ex("to_csv(named_struct('a', 1, 'b', 2))", "1,2",
			"to_csv(named_struct('time', to_timestamp('2015-08-26', 'yyyy-MM-dd')), map('timestampFormat', 'dd/MM/yyyy'))", "26/08/2015",
			"to_csv(named_struct('a', 'x,y', 'b', NULL))", `"x,y",`)},
		pretty(firstArgOnly))
	def(fn.Scalar{Name: "schema_of_csv", Group: gCSV, Signature: "schema_of_csv(csv[, options])", Returns: "string", Bind: bindSchemaOfCSV,
		Doc: "The struct type Spark infers for the CSV record `csv` (a literal), fields `_c0`, `_c1`, …: INT, BIGINT, DOUBLE, " +
			"BOOLEAN or STRING.",
		Examples: ex("schema_of_csv('1,abc')", "STRUCT<_c0: INT, _c1: STRING>", "schema_of_csv('1.5,true,12345678901')", "STRUCT<_c0: DOUBLE, _c1: BOOLEAN, _c2: BIGINT>")},
		pretty(firstArgOnly))
}

// csvOptions are the CSV options Sluice reads.
type csvOptions struct {
	sep                  string
	tsFormat, dateFormat *dtPattern
	loc                  *time.Location // timestamps' zone: option timeZone, else the session's
}

// csvOptionsAt reads the options of row i from argument k; parsing is set
// for from_csv, whose datetime patterns parse.
func csvOptionsAt(ctx *fn.Ctx, a []arrow.Array, k, i int, parsing bool) (csvOptions, error) {
	o := csvOptions{sep: ",", loc: ctx.Loc()}
	if k >= len(a) || nullAt(a[k], i) || a[k].DataType().ID() != arrow.MAP {
		return o, nil
	}
	m := a[k].(*array.Map)
	keys, items := m.Keys().(*array.String), m.Items().(*array.String)
	s, e := m.ValueOffsets(i)
	for j := s; j < e; j++ {
		if nullAt(items, int(j)) {
			continue
		}
		v := items.Value(int(j))
		var err error
		switch strings.ToLower(keys.Value(int(j))) {
		case "sep", "delimiter":
			if v == `\t` {
				v = "\t"
			}
			o.sep = v
		case "timestampformat":
			o.tsFormat, err = patternCompiler(parsing)(v)
		case "dateformat":
			o.dateFormat, err = patternCompiler(parsing)(v)
		case "timezone":
			o.loc, err = zoneOption(v)
		}
		if err != nil {
			return o, fmt.Errorf("option %s: %w", keys.Value(int(j)), err)
		}
	}
	return o, nil
}

// splitCSV splits one record; quoted fields may hold the separator, and
// `\"` or `""` is a quote inside one.
func splitCSV(line, sep string) []string {
	var fields []string
	var b strings.Builder
	inQuotes, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuotes && c == '\\' && i+1 < len(line) && line[i+1] == '"':
			b.WriteByte('"')
			i++
		case inQuotes && c == '"' && i+1 < len(line) && line[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"' && (inQuotes || strings.TrimSpace(b.String()) == ""):
			if !inQuotes {
				b.Reset()
			}
			inQuotes, quoted = !inQuotes, true
		case !inQuotes && strings.HasPrefix(line[i:], sep):
			fields = append(fields, csvField(b.String(), quoted))
			b.Reset()
			quoted = false
			i += len(sep) - 1
		default:
			b.WriteByte(c)
		}
	}
	return append(fields, csvField(b.String(), quoted))
}

// csvField marks an empty unquoted field as NULL (returned as "\x00").
func csvField(s string, quoted bool) string {
	if s == "" && !quoted {
		return "\x00"
	}
	return s
}

func bindFromCSV(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 3); err != nil {
		return fn.Bound{}, err
	}
	if _, err := stringArg(args, 0); err != nil {
		return fn.Bound{}, err
	}
	if err := optionsArg(args, 2); err != nil {
		return fn.Bound{}, err
	}
	dt, schema, err := schemaArg(args, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	st, isStruct := dt.(*arrow.StructType)
	if !isStruct {
		return fn.Bound{}, fmt.Errorf("argument 2: schema %q must be a struct", schema)
	}
	for _, f := range st.Fields() {
		if !isAtomic(f.Type) {
			return fn.Bound{}, fmt.Errorf("argument 2: CSV field %s cannot be %s", f.Name, sparkName(f.Type))
		}
	}
	return fn.Bound{Type: st, Args: []arrow.DataType{stringType, nil, nil}[:len(args)], Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		b := array.NewStructBuilder(ctx.Mem, st)
		defer b.Release()
		for i := 0; i < n; i++ {
			if nullAt(a[0], i) {
				b.AppendNull()
				continue
			}
			o, err := csvOptionsAt(ctx, a, 2, i, true)
			if err != nil {
				return nil, err
			}
			fields := splitCSV(a[0].(*array.String).Value(i), o.sep)
			b.Append(true)
			for k, f := range st.Fields() {
				fb := b.FieldBuilder(k)
				if k >= len(fields) || fields[k] == "\x00" {
					fb.AppendNull()
					continue
				}
				appendCSVValue(fb, f.Type, fields[k], o)
			}
		}
		return b.NewArray(), nil
	}}, nil
}

// appendCSVValue converts one CSV field to the builder's type, NULL when
// it does not convert.
func appendCSVValue(b array.Builder, dt arrow.DataType, s string, o csvOptions) {
	switch x := b.(type) {
	case *array.StringBuilder:
		x.Append(s)
		return
	case *array.TimestampBuilder:
		if o.tsFormat != nil {
			if us, ok := o.tsFormat.parse(s, o.loc); ok {
				x.Append(arrow.Timestamp(fn.FromMicros(us, x.Type().(*arrow.TimestampType).Unit)))
				return
			}
			x.AppendNull()
			return
		}
	case *array.Date32Builder:
		if o.dateFormat != nil {
			if us, ok := o.dateFormat.parse(s, nil); ok {
				x.Append(arrow.Date32(floorDivInt(us, usPerDay)))
				return
			}
			x.AppendNull()
			return
		}
	case *array.Int8Builder, *array.Int16Builder, *array.Int32Builder, *array.Int64Builder:
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && fitsInt(dt, v) {
			appendInt(b, v)
			return
		}
	case *array.Float64Builder:
		// Java's Double.parseDouble trims blanks.
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			x.Append(v)
			return
		}
	case *array.Float32Builder:
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 32); err == nil {
			x.Append(float32(v))
			return
		}
	case *array.BooleanBuilder:
		if v, err := strconv.ParseBool(strings.ToLower(s)); err == nil && (strings.EqualFold(s, "true") || strings.EqualFold(s, "false")) {
			x.Append(v)
			return
		}
	case *array.Decimal128Builder:
		t := dt.(*arrow.Decimal128Type)
		if v, ok := fn.ParseDecimal(s, t.Precision, t.Scale); ok {
			x.Append(v)
			return
		}
	case *array.BinaryBuilder:
		x.Append([]byte(s))
		return
	}
	switch x := b.(type) {
	case *array.TimestampBuilder:
		if us, ok := fn.ParseTimestamp(s, o.loc); ok {
			x.Append(arrow.Timestamp(fn.FromMicros(us, x.Type().(*arrow.TimestampType).Unit)))
			return
		}
	case *array.Date32Builder:
		if d, ok := fn.ParseDate(s); ok {
			x.Append(arrow.Date32(d))
			return
		}
	}
	b.AppendNull()
}

func bindToCSV(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 2); err != nil {
		return fn.Bound{}, err
	}
	st, ok := args[0].Type.(*arrow.StructType)
	if !ok {
		return fn.Bound{}, argErr(0, args[0], "a struct")
	}
	for _, f := range st.Fields() {
		if !isAtomic(f.Type) {
			return fn.Bound{}, fmt.Errorf("argument 1: CSV field %s cannot be %s", f.Name, sparkName(f.Type))
		}
	}
	if err := optionsArg(args, 1); err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		s := a[0].(*array.Struct)
		var field []byte
		return mapStrings(ctx, a[:1], n, func(dst []byte, i int) ([]byte, bool, error) {
			o, err := csvOptionsAt(ctx, a, 1, i, false)
			if err != nil {
				return nil, false, err
			}
			for k := 0; k < s.NumField(); k++ {
				if k > 0 {
					dst = append(dst, o.sep...)
				}
				col := s.Field(k)
				if nullAt(col, i) {
					continue
				}
				field = field[:0]
				switch c := col.(type) {
				case *array.Timestamp:
					if o.tsFormat != nil {
						field = o.tsFormat.format(field, fn.TimestampMicros(c, i), o.loc)
					} else {
						field = isoTimestamp.format(field, fn.TimestampMicros(c, i), o.loc)
					}
				case *array.Date32:
					if o.dateFormat != nil {
						field = o.dateFormat.format(field, int64(c.Value(i))*usPerDay, nil)
					} else {
						field = fn.AppendSparkString(field, c, i, nil)
					}
				default:
					field = fn.AppendSparkString(field, col, i, o.loc)
				}
				dst = appendCSVField(dst, field, o.sep)
			}
			return dst, true, nil
		})
	}}, nil
}

// isoTimestamp is to_csv's and to_json's default timestamp format.
var isoTimestamp, _ = compilePattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX")

// appendCSVField quotes a field the way Spark's CSV writer does when it
// must.
func appendCSVField(dst, field []byte, sep string) []byte {
	s := string(field)
	need := s != strings.TrimSpace(s) || strings.Contains(s, sep) || strings.ContainsAny(s, "\"\r\n")
	if !need {
		return append(dst, field...)
	}
	dst = append(dst, '"')
	dst = append(dst, strings.ReplaceAll(s, `"`, `\"`)...)
	return append(dst, '"')
}

func bindSchemaOfCSV(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 2); err != nil {
		return fn.Bound{}, err
	}
	text, null, ok := constString(args[0])
	if !ok || null {
		return fn.Bound{}, fmt.Errorf("argument 1 must be a CSV string literal")
	}
	var parts []string
	for k, f := range splitCSV(text, ",") {
		parts = append(parts, fmt.Sprintf("_c%d: %s", k, inferCSVType(f)))
	}
	schema := "STRUCT<" + strings.Join(parts, ", ") + ">"
	return fn.Bound{Type: stringType, Args: []arrow.DataType{nil, nil}[:len(args)], Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		return rowsOf(ctx, stringType, nil, n, func(row) (string, bool) { return schema, true }), nil
	}}, nil
}

// inferCSVType is Spark's CSV inference for one field: the narrowest of
// int, bigint, double and boolean it parses as, else string.
func inferCSVType(s string) string {
	if s == "\x00" {
		return "STRING"
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v == int64(int32(v)) {
			return "INT"
		}
		return "BIGINT"
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return "DOUBLE"
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return "BOOLEAN"
	}
	return "STRING"
}
