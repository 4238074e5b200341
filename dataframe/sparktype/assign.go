package sparktype

import (
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Assignable reports whether a value of type from may be stored in a column
// of type to without a cast that changes values (see
// docs/inference.md#assignment): the same type; null into anything;
// anything into string (Spark's ANSI store assignment renders it);
// a narrower number into a wider one on the lattice (integers into long,
// any integer or float into double, an integer into a decimal that holds
// it, a decimal into a wider decimal or double); timestamps of any unit;
// structs field by field (by name) and lists element-wise.
func Assignable(from, to arrow.DataType) bool {
	if from == nil || to == nil {
		return false
	}
	fi, ti := from.ID(), to.ID()
	switch {
	case arrow.TypeEqual(from, to), fi == arrow.NULL, isString(ti):
		return true
	case isNumeric(fi) && isNumeric(ti):
		return arrow.TypeEqual(Common(from, to), to) || isInteger(fi) && ti == arrow.INT64 ||
			fi == arrow.INT16 && ti == arrow.INT32 || fi == arrow.INT8 && (ti == arrow.INT16 || ti == arrow.INT32)
	case fi == arrow.TIMESTAMP && ti == arrow.TIMESTAMP, fi == arrow.DATE32 && ti == arrow.TIMESTAMP:
		return true
	case fi == arrow.STRUCT && ti == arrow.STRUCT:
		fs, ts := from.(*arrow.StructType), to.(*arrow.StructType)
		for _, f := range fs.Fields() {
			t, ok := ts.FieldByName(f.Name)
			if !ok || !Assignable(f.Type, t.Type) {
				return false
			}
		}
		return true
	case fi == arrow.LIST && ti == arrow.LIST:
		return Assignable(from.(*arrow.ListType).Elem(), to.(*arrow.ListType).Elem())
	}
	return false
}

// AssignableNames is Assignable for Spark type names ("long", "int",
// "decimal(20,0)", "array<string>"), case-insensitive. A name that does not
// parse is assignable only to the same name.
func AssignableNames(from, to string) bool {
	if strings.EqualFold(from, to) {
		return true
	}
	ft, err1 := ParseType(from)
	tt, err2 := ParseType(to)
	switch {
	case err2 != nil:
		return false
	case err1 != nil:
		// A type Spark has no name for still renders into a string.
		return isString(tt.ID())
	}
	return Assignable(ft, tt)
}

func isString(id arrow.Type) bool {
	return id == arrow.STRING || id == arrow.LARGE_STRING || id == arrow.STRING_VIEW
}
