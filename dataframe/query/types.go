package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Spark's implicit type rules (spark.sql.ansi.enabled=false, TypeCoercion
// and DecimalPrecision with allowPrecisionLoss=true) as the analyser applies
// them; see docs/sql.md#types-and-implicit-casts.

var (
	tBool   = arrow.FixedWidthTypes.Boolean
	tByte   = arrow.PrimitiveTypes.Int8
	tShort  = arrow.PrimitiveTypes.Int16
	tInt    = arrow.PrimitiveTypes.Int32
	tLong   = arrow.PrimitiveTypes.Int64
	tFloat  = arrow.PrimitiveTypes.Float32
	tDouble = arrow.PrimitiveTypes.Float64
	tString = arrow.BinaryTypes.String
	tBinary = arrow.BinaryTypes.Binary
	tDate   = arrow.FixedWidthTypes.Date32
	tTime   = sparktype.TimestampType
	tNull   = arrow.Null
)

// maxPrecision is the widest decimal (Spark's and Arrow's decimal128).
const maxPrecision = fn.MaxDecimalPrecision

func typeName(dt arrow.DataType) string { return sparktype.Name(dt) }

func isNull(dt arrow.DataType) bool { return dt == nil || dt.ID() == arrow.NULL }

// numRank orders the numeric types as Spark's numericPrecedence (byte <
// short < int < long < float < double), decimals between long and float;
// 0 is not numeric. Unsigned integers rank with the signed type that holds
// them.
func numRank(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.INT8:
		return 1
	case arrow.INT16, arrow.UINT8:
		return 2
	case arrow.INT32, arrow.UINT16:
		return 3
	case arrow.INT64, arrow.UINT32, arrow.UINT64:
		return 4
	case arrow.DECIMAL128, arrow.DECIMAL256:
		return 5
	case arrow.FLOAT16, arrow.FLOAT32:
		return 6
	case arrow.FLOAT64:
		return 7
	}
	return 0
}

func isNumeric(dt arrow.DataType) bool    { return numRank(dt) > 0 }
func isIntegral(dt arrow.DataType) bool   { r := numRank(dt); return r >= 1 && r <= 4 }
func isFractional(dt arrow.DataType) bool { return numRank(dt) >= 6 }
func isDecimal(dt arrow.DataType) bool    { return numRank(dt) == 5 }
func isString(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	case arrow.DICTIONARY:
		return isString(dt.(*arrow.DictionaryType).ValueType)
	}
	return false
}
func isBinary(dt arrow.DataType) bool {
	return dt.ID() == arrow.BINARY || dt.ID() == arrow.LARGE_BINARY
}
func isTemporal(dt arrow.DataType) bool {
	return dt.ID() == arrow.TIMESTAMP || dt.ID() == arrow.DATE32
}
func isAtomic(dt arrow.DataType) bool {
	return isNumeric(dt) || isString(dt) || isTemporal(dt) || dt.ID() == arrow.BOOL || isBinary(dt)
}

// plainType is the one Arrow type Sluice computes a Spark type in: unsigned
// integers as the signed type that holds them, large and dictionary strings
// as strings. (Timestamps keep their unit: two units meet in tTime.)
func plainType(dt arrow.DataType) arrow.DataType {
	switch dt.ID() {
	case arrow.UINT8:
		return tShort
	case arrow.UINT16:
		return tInt
	case arrow.UINT32:
		return tLong
	case arrow.UINT64:
		return &arrow.Decimal128Type{Precision: 20, Scale: 0}
	case arrow.FLOAT16:
		return tFloat
	case arrow.LARGE_STRING, arrow.STRING_VIEW:
		return tString
	case arrow.LARGE_BINARY:
		return tBinary
	case arrow.DICTIONARY:
		return plainType(dt.(*arrow.DictionaryType).ValueType)
	case arrow.DATE64:
		return tDate
	}
	return dt
}

// sameType says whether a and b are one Spark type.
func sameType(a, b arrow.DataType) bool {
	return sameArrowType(plainType(a), plainType(b))
}

// decimalParts is the precision and scale of a decimal, or of the decimal
// that holds every value of an integral type (DecimalType.forType).
func decimalParts(dt arrow.DataType) (p, s int32, ok bool) {
	if d, isDec := dt.(arrow.DecimalType); isDec {
		return d.GetPrecision(), d.GetScale(), true
	}
	switch numRank(dt) {
	case 1:
		return 3, 0, true
	case 2:
		return 5, 0, true
	case 3:
		return 10, 0, true
	case 4:
		return 20, 0, true
	}
	return 0, 0, false
}

func decimalType(p, s int32) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: p, Scale: s}
}

// boundedDecimal is DecimalType.bounded: precision and scale cut at 38.
func boundedDecimal(p, s int32) *arrow.Decimal128Type {
	return decimalType(min(p, maxPrecision), min(s, maxPrecision))
}

// widerDecimal is the decimal that holds both (DecimalPrecision's
// widerDecimalType).
func widerDecimal(p1, s1, p2, s2 int32) *arrow.Decimal128Type {
	scale := max(s1, s2)
	rng := max(p1-s1, p2-s2)
	return boundedDecimal(rng+scale, scale)
}

// decimalWiderThan says whether decimal d holds every value of t (an
// integral type or a decimal): DecimalType.isWiderThan.
func decimalWiderThan(d, t arrow.DataType) bool {
	p1, s1, _ := decimalParts(d)
	p2, s2, ok := decimalParts(t)
	return ok && p1-s1 >= p2-s2 && s1 >= s2
}

// tightestType is Spark's findTightestCommonType: a type both widen to
// without losing anything (NULL gives way, numbers up the precedence
// except decimals, date to timestamp, nested types of one shape), or nil.
func tightestType(a, b arrow.DataType) arrow.DataType {
	a, b = plainType(a), plainType(b)
	switch {
	case isDayTime(a) && isDayTime(b):
		// Arrow's types are equal; Spark's fields widen: interval day
		// and interval hour give interval day to hour.
		return widerDayTime(a, b)
	case isYearMonth(a) && isYearMonth(b):
		return widerYearMonth(a, b)
	case arrow.TypeEqual(a, b):
		return a
	case isNull(a):
		return b
	case isNull(b):
		return a
	case isIntegral(a) && isDecimal(b) && decimalWiderThan(b, a):
		return b
	case isDecimal(a) && isIntegral(b) && decimalWiderThan(a, b):
		return a
	case isNumeric(a) && isNumeric(b) && !isDecimal(a) && !isDecimal(b):
		if numRank(a) >= numRank(b) {
			return a
		}
		return b
	case isTemporal(a) && isTemporal(b):
		return tTime
	}
	return complexCommon(a, b, tightestType)
}

// widerType is findWiderTypeForTwo: the tightest type, else a decimal wide
// enough for both (or double with a float), else — when strs — string for
// a string and another atomic type (not binary or boolean), else nested
// types merged element by element; nil when the two do not mix.
func widerType(a, b arrow.DataType, strs bool) arrow.DataType {
	if t := tightestType(a, b); t != nil {
		return t
	}
	a, b = plainType(a), plainType(b)
	if isNumeric(a) && isNumeric(b) && (isDecimal(a) || isDecimal(b)) {
		if isFractional(a) || isFractional(b) {
			return tDouble
		}
		p1, s1, _ := decimalParts(a)
		p2, s2, _ := decimalParts(b)
		return widerDecimal(p1, s1, p2, s2)
	}
	if strs {
		switch {
		case isString(a) && isAtomic(b) && !isBinary(b) && b.ID() != arrow.BOOL,
			isString(b) && isAtomic(a) && !isBinary(a) && a.ID() != arrow.BOOL:
			return tString
		}
	}
	return complexCommon(a, b, func(x, y arrow.DataType) arrow.DataType { return widerType(x, y, strs) })
}

// widerTypes folds widerType over ts (NULL when ts are all NULL), or nil.
func widerTypes(ts []arrow.DataType, strs bool) arrow.DataType {
	var out arrow.DataType = tNull
	for _, t := range ts {
		if out = widerType(out, t, strs); out == nil {
			return nil
		}
	}
	return out
}

// complexCommon merges two arrays, maps or structs of the same shape
// with elem for their elements, or gives nil.
func complexCommon(a, b arrow.DataType, elem func(x, y arrow.DataType) arrow.DataType) arrow.DataType {
	switch x := a.(type) {
	case *arrow.ListType:
		y, ok := b.(*arrow.ListType)
		if !ok {
			return nil
		}
		if e := elem(x.Elem(), y.Elem()); e != nil {
			return arrow.ListOf(e)
		}
	case *arrow.MapType:
		y, ok := b.(*arrow.MapType)
		if !ok {
			return nil
		}
		k, v := elem(x.KeyType(), y.KeyType()), elem(x.ItemType(), y.ItemType())
		if k != nil && v != nil {
			return arrow.MapOf(k, v)
		}
	case *arrow.StructType:
		y, ok := b.(*arrow.StructType)
		if !ok || x.NumFields() != y.NumFields() {
			return nil
		}
		fs := make([]arrow.Field, x.NumFields())
		for i := range fs {
			fx, fy := x.Field(i), y.Field(i)
			if !strings.EqualFold(fx.Name, fy.Name) {
				return nil
			}
			t := elem(fx.Type, fy.Type)
			if t == nil {
				return nil
			}
			fs[i] = arrow.Field{Name: fx.Name, Type: t, Nullable: true}
		}
		return arrow.StructOf(fs...)
	}
	return nil
}

// comparisonType is the type both sides of a comparison are cast to
// (findCommonTypeForBinaryComparison after the tightest type, decimals as
// DecimalPrecision widens them), or nil when they do not compare. A string
// against a number takes the number's type ('1.5' = 1 compares 1 with 1),
// against a decimal double, against a date a date.
func comparisonType(a, b arrow.DataType) arrow.DataType {
	if t := tightestType(a, b); t != nil {
		if isNull(t) {
			return tString
		}
		return t
	}
	a, b = plainType(a), plainType(b)
	switch {
	case isNumeric(a) && isNumeric(b):
		return widerType(a, b, false)
	case isString(a) && isDecimal(b), isDecimal(a) && isString(b):
		return tDouble
	case isString(a) && isAtomic(b):
		return b
	case isString(b) && isAtomic(a):
		return a
	}
	return complexCommon(a, b, comparisonType)
}

// literalDecimal is the narrowest decimal holding an integer literal
// (DataTypeUtils.fromLiteral), the type Spark gives it beside a decimal.
func literalDecimal(l *rLit) (arrow.DataType, bool) {
	if l.name != "" {
		return nil, false // folded from an expression: not a literal to Spark
	}
	n, ok := intConst(l.v)
	if !ok {
		return nil, false
	}
	digits := int32(len(fmt.Sprint(n)))
	if n < 0 {
		digits--
	}
	return decimalType(digits, 0), true
}

// arithTypes decides the types of l op r (+ - * / %): the type each
// operand is cast to, and the result type. A string operand is a double, a
// NULL takes the other side's type (double for two), `/` of non-decimals
// is double; a decimal with an integer computes in decimals (an integer
// literal as the narrowest decimal holding it), with a float in double.
func arithTypes(op string, l, r rex) (lt, rt, res arrow.DataType, err error) {
	lt, rt = plainType(l.Type()), plainType(r.Type())
	if isString(lt) {
		lt = tDouble
	}
	if isString(rt) {
		rt = tDouble
	}
	switch {
	case isNull(lt) && isNull(rt):
		lt, rt = tDouble, tDouble
	case isNull(lt):
		lt = rt
	case isNull(rt):
		rt = lt
	}
	if !isNumeric(lt) || !isNumeric(rt) {
		return nil, nil, nil, fmt.Errorf("%s needs numbers, got %s and %s", op, typeName(l.Type()), typeName(r.Type()))
	}
	if isDecimal(lt) || isDecimal(rt) {
		if isFractional(lt) || isFractional(rt) {
			return tDouble, tDouble, tDouble, nil
		}
		lt, rt = integralAsDecimal(l, lt), integralAsDecimal(r, rt)
		return lt, rt, decimalResult(op, lt, rt), nil
	}
	if op == "/" {
		return tDouble, tDouble, tDouble, nil
	}
	t := tightestType(lt, rt)
	return t, t, t, nil
}

// integralAsDecimal is the decimal an integer operand of decimal
// arithmetic takes: a literal's narrowest, else its type's (forType).
func integralAsDecimal(e rex, t arrow.DataType) arrow.DataType {
	if !isIntegral(t) {
		return t
	}
	if lit, ok := e.(*rLit); ok {
		if d, ok := literalDecimal(lit); ok {
			return d
		}
	}
	p, s, _ := decimalParts(t)
	return decimalType(p, s)
}

// decimalResult is the result type of a decimal operation
// (fn.DecimalArithmetic: DecimalPrecision, allowPrecisionLoss=true).
func decimalResult(op string, a, b arrow.DataType) arrow.DataType {
	p1, s1, _ := decimalParts(a)
	p2, s2, _ := decimalParts(b)
	return fn.DecimalArithmetic(op[0], decimalType(p1, s1), decimalType(p2, s2))
}

// intConst is an integer constant's value (int8 to int64).
func intConst(v any) (int64, bool) {
	switch n := v.(type) {
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}
