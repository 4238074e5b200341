package sparktype

import (
	"github.com/apache/arrow/go/v17/arrow"
)

// Kind is a type JSON inference produces. Null is Spark's NullType: only
// nulls (or empty strings) were seen; it becomes string when inference ends.
type Kind uint8

// The kinds, in no order that matters to the rules.
const (
	Null Kind = iota
	Boolean
	Long
	Decimal // decimal(p,0): an integer beyond long, p ≤ MaxPrecision digits
	Double
	String
	Struct
	Array
)

var kindNames = [...]string{"void", "boolean", "long", "decimal", "double", "string", "struct", "array"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// MaxPrecision is the widest decimal Spark (and Arrow's decimal128) holds.
const MaxPrecision = 38

// LongPrecision is the precision of Spark's DecimalType.forType(LongType):
// decimal(20,0) holds every long.
const LongPrecision = 20

// Scalar is a kind with its decimal precision (0 unless Decimal).
type Scalar struct {
	Kind Kind
	Prec uint8
}

// Widen is the tightest type that holds both a and b, as Spark's
// compatibleType: Null gives way to anything; long and double → double;
// long and decimal(p,0) → decimal(max(p,20),0); decimal and decimal → the
// wider, or double beyond 38 digits; decimal and double → double; two
// structs or two arrays stay so (the caller merges their children); any
// other pair → string.
func Widen(a, b Scalar) Scalar {
	if a == b {
		return a
	}
	switch {
	case a.Kind == Null:
		return b
	case b.Kind == Null:
		return a
	case a.Kind == String || b.Kind == String:
		return Scalar{Kind: String}
	case a.Kind == b.Kind && a.Kind != Decimal:
		return a // struct+struct, array+array
	}
	if a.Kind > b.Kind {
		a, b = b, a
	}
	switch {
	case a.Kind == Long && b.Kind == Double, a.Kind == Decimal && b.Kind == Double:
		return Scalar{Kind: Double}
	case a.Kind == Long && b.Kind == Decimal:
		return decimalOf(max(LongPrecision, b.Prec))
	case a.Kind == Decimal && b.Kind == Decimal:
		return decimalOf(max(a.Prec, b.Prec))
	}
	return Scalar{Kind: String}
}

func decimalOf(p uint8) Scalar {
	if p > MaxPrecision {
		return Scalar{Kind: Double}
	}
	return Scalar{Kind: Decimal, Prec: p}
}

// Fits reports whether a value of type v leaves a column of type col
// unchanged (Widen(col, v) == col): such a value can be stored in the
// column as it is or converted without loss (a long into double or a wide
// enough decimal; anything into string as its JSON text; a null or empty
// string as null).
func Fits(col, v Scalar) bool {
	if col == v || v.Kind == Null || col.Kind == String {
		return true
	}
	return Widen(col, v) == col
}

// ArrowType is the Arrow type Sluice stores a scalar kind as; Null is
// stored as string (Spark's canonicalisation). Struct and Array have no
// single type and give nil.
func (s Scalar) ArrowType() arrow.DataType {
	switch s.Kind {
	case Null, String:
		return arrow.BinaryTypes.String
	case Boolean:
		return arrow.FixedWidthTypes.Boolean
	case Long:
		return arrow.PrimitiveTypes.Int64
	case Double:
		return arrow.PrimitiveTypes.Float64
	case Decimal:
		return &arrow.Decimal128Type{Precision: int32(s.Prec), Scale: 0}
	}
	return nil
}

// Common is Widen over Arrow types, used when frames of different schemas
// are stacked: integers of any width → long, integers and floats → double,
// decimals as Spark's compatibleType (integers count as decimal(20,0), the
// result beyond 38 digits is double, a decimal with a double is double),
// timestamps keep the finer unit, structs merge field by field (see
// MergeFields), lists merge their elements, null gives way to anything and
// every other pair becomes string.
func Common(a, b arrow.DataType) arrow.DataType {
	if arrow.TypeEqual(a, b) {
		return a
	}
	ai, bi := a.ID(), b.ID()
	switch {
	case ai == arrow.NULL:
		return b
	case bi == arrow.NULL:
		return a
	case isInteger(ai) && isInteger(bi):
		return arrow.PrimitiveTypes.Int64
	case isDecimal(ai) || isDecimal(bi):
		return commonDecimal(a, b)
	case isNumeric(ai) && isNumeric(bi):
		return arrow.PrimitiveTypes.Float64
	case ai == arrow.TIMESTAMP && bi == arrow.TIMESTAMP:
		// The finer unit keeps every value exact.
		ta, tb := a.(*arrow.TimestampType), b.(*arrow.TimestampType)
		if tb.Unit > ta.Unit {
			return &arrow.TimestampType{Unit: tb.Unit, TimeZone: ta.TimeZone}
		}
		return &arrow.TimestampType{Unit: ta.Unit, TimeZone: ta.TimeZone}
	case ai == arrow.STRUCT && bi == arrow.STRUCT:
		return arrow.StructOf(MergeFields(a.(*arrow.StructType).Fields(), b.(*arrow.StructType).Fields())...)
	case ai == arrow.LIST && bi == arrow.LIST:
		return arrow.ListOf(Common(a.(*arrow.ListType).Elem(), b.(*arrow.ListType).Elem()))
	}
	return arrow.BinaryTypes.String
}

// commonDecimal merges a decimal with a number (a string for anything else).
func commonDecimal(a, b arrow.DataType) arrow.DataType {
	pa, sa, oka := asDecimal(a)
	pb, sb, okb := asDecimal(b)
	switch {
	case isFloat(a.ID()) || isFloat(b.ID()):
		if (oka || isNumeric(a.ID())) && (okb || isNumeric(b.ID())) {
			return arrow.PrimitiveTypes.Float64
		}
	case oka && okb:
		scale := max(sa, sb)
		rng := max(pa-sa, pb-sb)
		if rng+scale > MaxPrecision {
			return arrow.PrimitiveTypes.Float64
		}
		return &arrow.Decimal128Type{Precision: rng + scale, Scale: scale}
	}
	return arrow.BinaryTypes.String
}

// asDecimal gives the precision and scale of a decimal, or of the decimal
// that holds every value of an integer type (Spark's DecimalType.forType).
func asDecimal(dt arrow.DataType) (prec, scale int32, ok bool) {
	switch t := dt.(type) {
	case arrow.DecimalType:
		return t.GetPrecision(), t.GetScale(), true
	}
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return 3, 0, true
	case arrow.INT16, arrow.UINT16:
		return 5, 0, true
	case arrow.INT32, arrow.UINT32:
		return 10, 0, true
	case arrow.INT64:
		return LongPrecision, 0, true
	}
	return 0, 0, false
}

// MergeFields merges struct fields as Spark's compatibleType does: fields
// matched by name, types merged by Common, a field missing on one side made
// nullable. When both sides are in Spark's field order (Compare), so is the
// result; otherwise a's fields keep their order and b's new ones follow.
func MergeFields(a, b []arrow.Field) []arrow.Field {
	if FieldsSorted(a) && FieldsSorted(b) {
		out := make([]arrow.Field, 0, len(a)+len(b))
		i, j := 0, 0
		for i < len(a) && j < len(b) {
			switch c := Compare(a[i].Name, b[j].Name); {
			case c == 0:
				out = append(out, mergeField(a[i], b[j]))
				i++
				j++
			case c < 0:
				out = append(out, nullable(a[i]))
				i++
			default:
				out = append(out, nullable(b[j]))
				j++
			}
		}
		for ; i < len(a); i++ {
			out = append(out, nullable(a[i]))
		}
		for ; j < len(b); j++ {
			out = append(out, nullable(b[j]))
		}
		return out
	}
	bIndex := make(map[string]int, len(b))
	for i, f := range b {
		if _, dup := bIndex[f.Name]; !dup {
			bIndex[f.Name] = i
		}
	}
	seen := make(map[string]bool, len(a))
	out := make([]arrow.Field, 0, len(a)+len(b))
	for _, f := range a {
		seen[f.Name] = true
		if j, ok := bIndex[f.Name]; ok {
			out = append(out, mergeField(f, b[j]))
			continue
		}
		out = append(out, nullable(f))
	}
	for _, g := range b {
		if !seen[g.Name] {
			seen[g.Name] = true
			out = append(out, nullable(g))
		}
	}
	return out
}

func mergeField(f, g arrow.Field) arrow.Field {
	return arrow.Field{Name: f.Name, Type: Common(f.Type, g.Type), Nullable: f.Nullable || g.Nullable, Metadata: f.Metadata}
}

func nullable(f arrow.Field) arrow.Field {
	f.Nullable = true
	return f
}

// FieldsSorted reports whether fs are in Spark's field order.
func FieldsSorted(fs []arrow.Field) bool {
	for i := 1; i < len(fs); i++ {
		if Compare(fs[i-1].Name, fs[i].Name) > 0 {
			return false
		}
	}
	return true
}

func isInteger(id arrow.Type) bool {
	switch id {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return true
	}
	return false
}

func isFloat(id arrow.Type) bool {
	return id == arrow.FLOAT16 || id == arrow.FLOAT32 || id == arrow.FLOAT64
}

func isDecimal(id arrow.Type) bool {
	return id == arrow.DECIMAL128 || id == arrow.DECIMAL256
}

func isNumeric(id arrow.Type) bool {
	return isInteger(id) || isFloat(id) || isDecimal(id)
}
