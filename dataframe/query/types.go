package query

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Spark's implicit type rules (spark.sql.ansi.enabled=false) as the
// compiler needs them; see docs/sql.md#types.

var (
	tBool   = arrow.FixedWidthTypes.Boolean
	tInt    = arrow.PrimitiveTypes.Int32
	tLong   = arrow.PrimitiveTypes.Int64
	tDouble = arrow.PrimitiveTypes.Float64
	tString = arrow.BinaryTypes.String
)

func typeName(dt arrow.DataType) string { return sparktype.Name(dt) }

func isNull(dt arrow.DataType) bool { return dt == nil || dt.ID() == arrow.NULL }

// numRank orders the numeric types by width; 0 is not numeric.
func numRank(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16:
		return 2
	case arrow.INT32, arrow.UINT32:
		return 3
	case arrow.INT64, arrow.UINT64:
		return 4
	case arrow.DECIMAL128, arrow.DECIMAL256:
		return 5
	case arrow.FLOAT32:
		return 6
	case arrow.FLOAT64:
		return 7
	}
	return 0
}

func isNumeric(dt arrow.DataType) bool { return numRank(dt) > 0 }
func isString(dt arrow.DataType) bool {
	return dt.ID() == arrow.STRING || dt.ID() == arrow.LARGE_STRING
}
func isTemporal(dt arrow.DataType) bool {
	return dt.ID() == arrow.TIMESTAMP || dt.ID() == arrow.DATE32
}
func isAtomic(dt arrow.DataType) bool {
	return isNumeric(dt) || isString(dt) || isTemporal(dt) || dt.ID() == arrow.BOOL || dt.ID() == arrow.BINARY
}

// kernelNumeric is the type arithmetic runs in: the smaller integers widen
// to int, float and decimal to double.
func kernelNumeric(dt arrow.DataType) arrow.DataType {
	switch r := numRank(dt); {
	case r <= 3:
		return tInt
	case r == 4:
		return tLong
	}
	return tDouble
}

// widerNumeric is the common type of two numeric types for arithmetic.
func widerNumeric(a, b arrow.DataType) arrow.DataType {
	a, b = kernelNumeric(a), kernelNumeric(b)
	if numRank(a) >= numRank(b) {
		return a
	}
	return b
}

// comparisonType is the type both sides of a comparison are cast to
// (Spark's findCommonTypeForBinaryComparison), or nil when they do not
// compare.
func comparisonType(a, b arrow.DataType) arrow.DataType {
	switch {
	case isNull(a) && isNull(b):
		return tString
	case isNull(a):
		return b
	case isNull(b):
		return a
	case arrow.TypeEqual(a, b):
		return a
	case isNumeric(a) && isNumeric(b):
		if numRank(a) >= 5 || numRank(b) >= 5 {
			return tDouble
		}
		return widerNumeric(a, b)
	case isTemporal(a) && isTemporal(b):
		return sparktype.TimestampType
	case isString(a) && isString(b):
		return tString
	case isString(a) && isAtomic(b):
		if numRank(b) == 5 {
			return tDouble
		}
		return b
	case isString(b) && isAtomic(a):
		if numRank(a) == 5 {
			return tDouble
		}
		return a
	case a.ID() == b.ID() && (a.ID() == arrow.STRUCT || a.ID() == arrow.LIST):
		return a
	}
	return nil
}

// commonType is the type a CASE, coalesce or UNION column takes over all
// its inputs (Spark's wider common type; strings absorb other atomics), or
// nil.
func commonType(ts []arrow.DataType) arrow.DataType {
	var out arrow.DataType
	for _, t := range ts {
		switch {
		case isNull(t):
		case out == nil || arrow.TypeEqual(out, t):
			out = t
		case isNumeric(out) && isNumeric(t):
			if numRank(t) > numRank(out) {
				out = t
			}
			if numRank(out) == 5 && !arrow.TypeEqual(out, t) {
				out = tDouble
			}
		case isTemporal(out) && isTemporal(t):
			out = sparktype.TimestampType
		case isString(out) && isAtomic(t), isString(t) && isAtomic(out):
			out = tString
		default:
			return nil
		}
	}
	if out == nil {
		return arrow.Null
	}
	return out
}
