package functions_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// TestNullInNullOut calls every function with a NULL in each argument
// (typed columns holding only NULL) and checks the documented result:
// NULL, except where the function says otherwise.
func TestNullInNullOut(t *testing.T) {
	t.Parallel()
	l := arrowList(i64)
	m := arrow.MapOf(str, i64)
	st := arrowStruct()
	sig := map[string][]arrow.DataType{
		"lower": {str}, "lcase": {str}, "upper": {str}, "ucase": {str}, "length": {str}, "char_length": {str}, "character_length": {str},
		"trim": {str, str}, "ltrim": {str, str}, "rtrim": {str, str}, "substr": {str, i32, i32}, "substring": {str, i32, i32},
		"concat": {str, str}, "split": {str, str, i32}, "replace": {str, str, str}, "regexp_extract": {str, str, i32},
		"regexp_replace": {str, str, str, i32}, "lpad": {str, i32, str}, "rpad": {str, i32, str},
		"coalesce": {i64, i64}, "greatest": {i64, f64}, "least": {str, str},
		"abs": {f64}, "round": {f64}, "floor": {f64}, "ceil": {f64}, "ceiling": {f64},
		"array_contains": {l, i64}, "element_at": {l, i32},
		"to_timestamp": {str, str}, "to_date": {str, str}, "date_trunc": {str, ts}, "year": {date}, "month": {date},
		"day": {date}, "dayofmonth": {date}, "hour": {ts}, "minute": {ts}, "second": {ts},
		"unix_timestamp": {str, str}, "from_unixtime": {i64, str}, "date_format": {ts, str},
		"get_json_object": {str, str}, "to_json": {st},
	}
	// Functions whose NULL behaviour is not "any NULL in, NULL out".
	special := map[string]string{
		"concat_ws":         "NULL only when the separator is NULL (TestStringFunctions)",
		"size":              "-1 for NULL (below)",
		"cardinality":       "-1 for NULL (below)",
		"if":                "a NULL condition takes the else branch (TestConditionalFunctions)",
		"nullif":            "nullif(a, NULL) is a (TestConditionalFunctions)",
		"current_timestamp": "no arguments",
		"now":               "no arguments",
		"from_json":         "the schema is a literal (TestJSONFunctions)",
		"array":             "NULL arguments are NULL elements (TestConstructors)",
		"map":               "a NULL key is an error, a NULL value an entry (TestConstructors)",
		"named_struct":      "NULL values are NULL fields (TestConstructors)",
	}
	for _, name := range fn.Names() {
		if why, ok := special[name]; ok {
			require.NotEmpty(t, why)
			continue
		}
		types, ok := sig[name]
		require.True(t, ok, "function %s has no NULL case", name)
		for k := range types {
			args := make([]in, len(types))
			for j, typ := range types {
				v := any(nil)
				if j != k {
					v = sampleValue(typ)
				}
				args[j] = col(typ, v, v)
			}
			if name == "coalesce" || name == "greatest" || name == "least" {
				// These skip NULLs: only all-NULL gives NULL.
				args = []in{col(types[0], nil, nil), col(types[1], nil, nil)}
			}
			runCases(t, []fcase{{name: "null arg", fn: name, args: args, want: []any{nil, nil}}})
		}
	}
	runCases(t, []fcase{
		{name: "null", fn: "size", args: []in{col(m, nil)}, want: []any{int32(-1)}},
		{name: "null", fn: "cardinality", args: []in{col(l, nil)}, want: []any{int32(-1)}},
	})
}

// sampleValue is a valid non-NULL value of typ for TestNullInNullOut.
func sampleValue(typ arrow.DataType) any {
	switch typ.ID() {
	case arrow.STRING:
		return "1"
	case arrow.INT32, arrow.INT64:
		return 1
	case arrow.FLOAT64:
		return 1.0
	case arrow.TIMESTAMP, arrow.DATE32:
		return tm("2020-01-01 00:00:00")
	case arrow.LIST:
		return []any{1}
	case arrow.STRUCT:
		return []any{1}
	}
	panic(typ.String())
}
