package sparktype

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// TimestampType is the Arrow type Sluice uses for Spark's `timestamp`:
// microseconds since the epoch in UTC, as Spark keeps them
// (docs/frames.md#arrow).
var TimestampType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// TimestampNTZType is the Arrow type of Spark's `timestamp_ntz`: wall-clock
// microseconds, no time zone.
var TimestampNTZType = &arrow.TimestampType{Unit: arrow.Microsecond}

// The Arrow types of Spark's other atomic types, for packages that build
// typed values without importing Arrow (docs/frames.md#arrow).
var (
	NullType    arrow.DataType = arrow.Null
	StringType  arrow.DataType = arrow.BinaryTypes.String
	BooleanType arrow.DataType = arrow.FixedWidthTypes.Boolean
	IntegerType arrow.DataType = arrow.PrimitiveTypes.Int32
	LongType    arrow.DataType = arrow.PrimitiveTypes.Int64
	FloatType   arrow.DataType = arrow.PrimitiveTypes.Float32
	DoubleType  arrow.DataType = arrow.PrimitiveTypes.Float64
	DateType    arrow.DataType = arrow.FixedWidthTypes.Date32
)

// SchemaString renders s the way Spark's printSchema does, byte for byte,
// ending with a newline. Every field prints `nullable = true` unless the
// Arrow field says otherwise; control characters in names print as
// backslash sequences (EscapeName).
func SchemaString(s *arrow.Schema) string {
	var b strings.Builder
	b.WriteString("root\n")
	if s == nil {
		return b.String()
	}
	for _, f := range s.Fields() {
		writeSchemaField(&b, " |", f.Name, f.Type, "nullable", f.Nullable)
	}
	return b.String()
}

func writeSchemaField(b *strings.Builder, prefix, name string, dt arrow.DataType, nullWord string, nullable bool) {
	b.WriteString(prefix)
	b.WriteString("-- ")
	b.WriteString(EscapeName(name))
	b.WriteString(": ")
	b.WriteString(TypeName(dt))
	if nullWord != "" {
		b.WriteString(" (")
		b.WriteString(nullWord)
		b.WriteString(" = ")
		b.WriteString(strconv.FormatBool(nullable))
		b.WriteString(")")
	}
	b.WriteByte('\n')
	writeSchemaChildren(b, prefix+"    |", dt)
}

func writeSchemaChildren(b *strings.Builder, prefix string, dt arrow.DataType) {
	switch t := dt.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			writeSchemaField(b, prefix, f.Name, f.Type, "nullable", f.Nullable)
		}
	case *arrow.MapType:
		writeSchemaField(b, prefix, "key", t.KeyType(), "", false)
		writeSchemaField(b, prefix, "value", t.ItemType(), "valueContainsNull", t.ItemField().Nullable)
	case arrow.ListLikeType:
		ef := t.ElemField()
		writeSchemaField(b, prefix, "element", ef.Type, "containsNull", ef.Nullable)
	case *arrow.DictionaryType:
		writeSchemaChildren(b, prefix, t.ValueType)
	}
}

// TypeName is Spark's DataType.typeName, as printSchema shows it: nested
// types print only their kind ("struct", "array", "map"); their content
// follows on the next lines.
func TypeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.StructType:
		return "struct"
	case *arrow.MapType:
		return "map"
	case arrow.ListLikeType:
		return "array"
	case *arrow.DictionaryType:
		return TypeName(t.ValueType)
	}
	return Name(dt)
}

// Name is Spark's simpleString of the type that dt maps to:
// "string", "long", "struct<a:long,b:array<string>>", "map<string,long>".
// Types Spark lacks map to the nearest Spark type (unsigned integers widen,
// Date64 is a date); anything else prints its Arrow name.
func Name(dt arrow.DataType) string {
	switch t := dt.(type) {
	case nil:
		return "void"
	case *arrow.NullType:
		return "void"
	case *arrow.BooleanType:
		return "boolean"
	case *arrow.Int8Type:
		return "byte"
	case *arrow.Int16Type, *arrow.Uint8Type:
		return "short"
	case *arrow.Int32Type, *arrow.Uint16Type:
		return "integer"
	case *arrow.Int64Type, *arrow.Uint32Type:
		return "long"
	case *arrow.Uint64Type:
		return "decimal(20,0)"
	case *arrow.Float16Type, *arrow.Float32Type:
		return "float"
	case *arrow.Float64Type:
		return "double"
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "string"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType, *arrow.BinaryViewType:
		return "binary"
	case *arrow.Date32Type, *arrow.Date64Type:
		return "date"
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return "timestamp_ntz"
		}
		return "timestamp"
	case arrow.DecimalType:
		return fmt.Sprintf("decimal(%d,%d)", t.GetPrecision(), t.GetScale())
	case *arrow.DurationType, *arrow.MonthIntervalType, *arrow.MonthDayNanoIntervalType:
		return intervalName(dt)
	case *arrow.StructType:
		var b strings.Builder
		b.WriteString("struct<")
		for i, f := range t.Fields() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteSparkName(f.Name))
			b.WriteByte(':')
			b.WriteString(Name(f.Type))
		}
		b.WriteByte('>')
		return b.String()
	case *arrow.MapType:
		return "map<" + Name(t.KeyType()) + "," + Name(t.ItemType()) + ">"
	case arrow.ListLikeType:
		return "array<" + Name(t.Elem()) + ">"
	case *arrow.DictionaryType:
		return Name(t.ValueType)
	}
	return dt.Name()
}

// CatalogString is Spark's DataType.catalogString: the SQL names of the
// integer types (tinyint, smallint, int, bigint), struct field names bare,
// otherwise as Name — what typeof() prints and a result's schema line in
// Spark's golden files shows: "struct<a:bigint,b:array<int>>".
func CatalogString(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.Int8Type:
		return "tinyint"
	case *arrow.Int16Type, *arrow.Uint8Type:
		return "smallint"
	case *arrow.Int32Type, *arrow.Uint16Type:
		return "int"
	case *arrow.Int64Type, *arrow.Uint32Type:
		return "bigint"
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = f.Name + ":" + CatalogString(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case *arrow.MapType:
		return "map<" + CatalogString(t.KeyType()) + "," + CatalogString(t.ItemType()) + ">"
	case arrow.ListLikeType:
		return "array<" + CatalogString(t.Elem()) + ">"
	case *arrow.DictionaryType:
		return CatalogString(t.ValueType)
	}
	return Name(dt)
}

// SQL is Spark's DataType.sql: upper-case names, struct field names
// quoted where Spark's quoteIfNeeded quotes them — what a CAST prints in a
// generated column name and schema_of_json returns: "BIGINT",
// "DECIMAL(10,2)", "STRUCT<a: INT, `b c`: ARRAY<STRING>>".
func SQL(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.StructType:
		parts := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			parts[i] = QuoteIfNeeded(f.Name) + ": " + SQL(f.Type)
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case *arrow.MapType:
		return "MAP<" + SQL(t.KeyType()) + ", " + SQL(t.ItemType()) + ">"
	case arrow.ListLikeType:
		return "ARRAY<" + SQL(t.Elem()) + ">"
	case *arrow.DictionaryType:
		return SQL(t.ValueType)
	}
	return strings.ToUpper(CatalogString(dt))
}

// QuoteIfNeeded is Spark's quoteIfNeeded: name bare when it is letters,
// digits and underscores and not all digits, else back-quoted.
func QuoteIfNeeded(name string) string {
	if isPlainSparkName(name) && strings.Trim(name, "0123456789") != "" {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// quoteSparkName back-quotes a struct field name that ParseType could
// not read back bare, as Spark's DDL does.
func quoteSparkName(name string) string {
	if isPlainSparkName(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func isPlainSparkName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// ParseType reads a Spark type string (as in a catalog column type or a
// CREATE TABLE column list) into the Arrow type Sluice uses for it. It is
// case-insensitive and accepts Spark's aliases (bigint, int, smallint,
// tinyint, real, varchar(n), char(n), decimal(p,s)). Nested types use
// `struct<name:type,…>`, `array<type>` and `map<key,value>`.
func ParseType(s string) (arrow.DataType, error) {
	p := &sparkTypeParser{src: s}
	dt, err := p.parseType()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, p.errorf("unexpected %q", p.src[p.pos:])
	}
	return dt, nil
}

type sparkTypeParser struct {
	src string
	pos int
}

func (p *sparkTypeParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid type %q at position %d: %s", p.src, p.pos, fmt.Sprintf(format, args...))
}

func (p *sparkTypeParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *sparkTypeParser) ident() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *sparkTypeParser) expect(c byte) error {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return p.errorf("expected %q, found end of text", c)
	}
	if p.src[p.pos] != c {
		return p.errorf("expected %q, found %q", c, p.src[p.pos])
	}
	p.pos++
	return nil
}

func (p *sparkTypeParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *sparkTypeParser) intArg() (int, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil {
		return 0, p.errorf("expected a number")
	}
	return n, nil
}

func (p *sparkTypeParser) parseType() (arrow.DataType, error) {
	name := p.ident()
	if name == "" {
		if p.pos >= len(p.src) {
			return nil, p.errorf("expected a type name, found end of text")
		}
		return nil, p.errorf("expected a type name, found %q", p.src[p.pos])
	}
	switch strings.ToLower(name) {
	case "string", "text":
		return arrow.BinaryTypes.String, nil
	case "varchar", "char":
		if p.peek() == '(' {
			p.pos++
			if _, err := p.intArg(); err != nil {
				return nil, err
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
		}
		return arrow.BinaryTypes.String, nil
	case "long", "bigint":
		return arrow.PrimitiveTypes.Int64, nil
	case "integer", "int":
		return arrow.PrimitiveTypes.Int32, nil
	case "short", "smallint":
		return arrow.PrimitiveTypes.Int16, nil
	case "byte", "tinyint":
		return arrow.PrimitiveTypes.Int8, nil
	case "double":
		return arrow.PrimitiveTypes.Float64, nil
	case "float", "real":
		return arrow.PrimitiveTypes.Float32, nil
	case "boolean", "bool":
		return arrow.FixedWidthTypes.Boolean, nil
	case "timestamp", "timestamp_ltz":
		return TimestampType, nil
	case "timestamp_ntz":
		return TimestampNTZType, nil
	case "date":
		return arrow.FixedWidthTypes.Date32, nil
	case "binary":
		return arrow.BinaryTypes.Binary, nil
	case "void", "null":
		return arrow.Null, nil
	case "interval":
		return p.parseIntervalType()
	case "decimal", "dec", "numeric":
		prec, scale := 10, 0
		if p.peek() == '(' {
			p.pos++
			var err error
			if prec, err = p.intArg(); err != nil {
				return nil, err
			}
			if p.peek() == ',' {
				p.pos++
				if scale, err = p.intArg(); err != nil {
					return nil, err
				}
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
		}
		if prec < 1 || prec > 38 || scale < 0 || scale > prec {
			return nil, p.errorf("decimal(%d,%d) is out of range", prec, scale)
		}
		return &arrow.Decimal128Type{Precision: int32(prec), Scale: int32(scale)}, nil
	case "array":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		elem, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return arrow.ListOf(elem), nil
	case "map":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		key, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		val, err := p.parseType()
		if err != nil {
			return nil, err
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return arrow.MapOf(key, val), nil
	case "struct":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		var fields []arrow.Field
		if p.peek() == '>' {
			p.pos++
			return arrow.StructOf(), nil
		}
		for {
			fname, err := p.fieldName()
			if err != nil {
				return nil, err
			}
			if p.peek() == ':' {
				p.pos++
			}
			ft, err := p.parseType()
			if err != nil {
				return nil, err
			}
			fields = append(fields, arrow.Field{Name: fname, Type: ft, Nullable: true})
			switch p.peek() {
			case ',':
				p.pos++
				continue
			case '>':
				p.pos++
				return arrow.StructOf(fields...), nil
			}
			return nil, p.errorf("expected ',' or '>' in struct")
		}
	}
	return nil, p.errorf("unknown type %q", name)
}

func (p *sparkTypeParser) fieldName() (string, error) {
	if p.peek() != '`' {
		name := p.ident()
		if name == "" {
			return "", p.errorf("expected a field name")
		}
		return name, nil
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		if c == '`' {
			if p.pos < len(p.src) && p.src[p.pos] == '`' {
				b.WriteByte('`')
				p.pos++
				continue
			}
			return b.String(), nil
		}
		b.WriteByte(c)
	}
	return "", p.errorf("unterminated back-quoted field name")
}

// EscapeName escapes the control characters that would break a line of
// printSchema or show() output, as Spark's SchemaUtils.escapeMetaCharacters:
// newline, carriage return, tab, form feed, backspace, vertical tab and
// bell print as \n \r \t \f \b \v \a. Other characters are kept.
func EscapeName(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\f\b\v\a") {
		return s
	}
	return metaReplacer.Replace(s)
}

var metaReplacer = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`, "\f", `\f`, "\b", `\b`, "\v", `\v`, "\a", `\a`)
