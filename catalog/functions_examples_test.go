package catalog_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// TestFunctionExamples runs every example of docs/sql-functions.md (the
// Examples of each registered function, aliases under their own names) as
// `SELECT <example>` and compares the value with the result Spark prints.
// Examples the SQL front end cannot run yet are listed in
// functionExampleSkips with the reason; one of them that starts to pass
// fails the test, so the list only shrinks.
func TestFunctionExamples(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	ctx := context.Background()
	seenSkip := map[string]bool{}
	for _, name := range fn.Names() {
		f, _ := fn.Lookup(name)
		for _, e := range f.Examples {
			t.Run(name+"/"+e.SQL, func(t *testing.T) {
				got, err := exampleValue(ctx, s, e.SQL)
				reason, skipped := functionExampleSkips[e.SQL]
				if skipped {
					seenSkip[e.SQL] = true
					if err == nil && got == e.Result {
						t.Fatalf("%s now gives Spark's %q: remove it from functionExampleSkips (%s)", e.SQL, e.Result, reason)
					}
					t.Skip(reason)
				}
				require.NoError(t, err, "SELECT %s", e.SQL)
				require.Equal(t, e.Result, got, "SELECT %s", e.SQL)
			})
		}
	}
	for sql := range functionExampleSkips {
		require.True(t, seenSkip[sql], "functionExampleSkips names %q, which no function has as an example", sql)
	}
}

// exampleValue runs SELECT sql and renders its one value as spark-sql
// prints it.
func exampleValue(ctx context.Context, s *catalog.Session, sql string) (string, error) {
	f, err := s.ExecuteBatch(ctx, "SELECT "+sql)
	if err != nil {
		return "", err
	}
	defer f.Release()
	if f.NumCols() != 1 || f.NumRows() != 1 {
		return "", fmt.Errorf("want one value, got %d columns and %d rows", f.NumCols(), f.NumRows())
	}
	for _, rec := range f.Records() {
		if rec.NumRows() == 1 {
			return string(appendHiveString(nil, rec.Column(0), 0, false)), nil
		}
	}
	return "", fmt.Errorf("no row")
}

// appendHiveString renders value i of arr as spark-sql's command line does
// (Spark's HiveResult.toHiveString): NULL, strings as they are at the top
// and quoted inside arrays, maps and structs, decimals in full, map entries
// sorted.
func appendHiveString(dst []byte, arr arrow.Array, i int, nested bool) []byte {
	if _, void := arr.(*array.Null); void || arr.IsNull(i) {
		if nested {
			return append(dst, "null"...)
		}
		return append(dst, "NULL"...)
	}
	switch a := arr.(type) {
	case *array.String:
		if nested {
			return append(append(append(dst, '"'), a.Value(i)...), '"')
		}
		return append(dst, a.Value(i)...)
	case *array.Binary:
		return append(dst, a.Value(i)...)
	case *array.List:
		s, e := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ',')
			}
			dst = appendHiveString(dst, a.ListValues(), int(j), true)
		}
		return append(dst, ']')
	case *array.Map:
		s, e := a.ValueOffsets(i)
		var entries []string
		for j := s; j < e; j++ {
			k := appendHiveString(nil, a.Keys(), int(j), true)
			v := appendHiveString(nil, a.Items(), int(j), true)
			entries = append(entries, string(k)+":"+string(v))
		}
		sort.Strings(entries)
		return append(append(append(dst, '{'), strings.Join(entries, ",")...), '}')
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(append(dst, '"'), st.Field(k).Name...), `":`...)
			dst = appendHiveString(dst, a.Field(k), i, true)
		}
		return append(dst, '}')
	case *array.Timestamp:
		us := fn.TimestampMicros(a, i)
		return fn.AppendTimestamp(dst, us, nil)
	case *array.Duration, *array.MonthInterval:
		// ANSI intervals print as spark-sql shows them: 1 02:03:04.000000000, 1-2.
		var sb strings.Builder
		writeHive(&sb, arr, i, nested, time.UTC)
		return append(dst, sb.String()...)
	}
	return fn.AppendSparkString(dst, arr, i, nil)
}

// functionExampleSkips are the documented examples whose Spark answer
// Sluice does not give, with the reason.
var functionExampleSkips = map[string]string{}

// TestFunctionNullArguments checks each function's NULL rule: every
// example that is one call of its function is run again with each argument
// in turn replaced by a NULL of that argument's type, and must give NULL,
// except where functionNullRules says otherwise.
func TestFunctionNullArguments(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	ctx := context.Background()
	for _, name := range fn.Names() {
		f, _ := fn.Lookup(name)
		if f.AliasOf != "" {
			continue
		}
		rule := functionNullRules[name]
		for _, e := range f.Examples {
			if _, skipped := functionExampleSkips[e.SQL]; skipped {
				continue
			}
			args, ok := splitCall(name, e.SQL)
			if !ok {
				continue
			}
			for k := range args {
				if strings.Contains(rule, "*") || strings.Contains(rule, fmt.Sprint(k+1)) {
					continue
				}
				typ, err := exampleValue(ctx, s, "typeof("+args[k]+")")
				if err != nil || strings.Contains(typ, "void") { // the executor cannot broadcast NULLs of void-holding types yet
					continue
				}
				with := append([]string(nil), args...)
				with[k] = "CAST(NULL AS " + typ + ")"
				sql := name + "(" + strings.Join(with, ", ") + ")"
				t.Run(sql, func(t *testing.T) {
					got, err := exampleValue(ctx, s, sql)
					require.NoError(t, err, "SELECT %s", sql)
					require.Equal(t, "NULL", got, "SELECT %s", sql)
				})
			}
		}
	}
}

// functionNullRules names, per function, the arguments (1-based; * for
// all) whose NULL does not make the result NULL, and why.
var functionNullRules = map[string]string{
	"array":            "* NULL arguments are NULL elements",
	"array_append":     "2 a NULL element is appended",
	"array_prepend":    "2 a NULL element is prepended",
	"array_insert":     "3 a NULL element is inserted",
	"array_repeat":     "1 NULL elements are repeated",
	"assert_true":      "* a NULL condition fails",
	"coalesce":         "* the first non-NULL argument",
	"concat_ws":        "2345 NULL strings are skipped",
	"decode":           "* decode(expr, search, …) compares NULL-safely",
	"elt":              "23 only the chosen input matters",
	"equal_null":       "* NULL equals NULL",
	"greatest":         "* NULLs are skipped",
	"hash":             "* NULLs are skipped",
	"if":               "* a NULL condition takes the else branch; only the chosen branch matters",
	"isnan":            "* false for NULL",
	"isnotnull":        "* false for NULL",
	"isnull":           "* true for NULL",
	"least":            "* NULLs are skipped",
	"locate":           "3 a NULL position gives 0",
	"map":              "* a NULL value is an entry, a NULL key an error",
	"format_string":    "* a NULL argument prints null",
	"mask":             "2345 a NULL replacement keeps the characters",
	"named_struct":     "* NULL values are NULL fields",
	"nanvl":            "2 only used for NaN",
	"nullif":           "2 nullif(a, NULL) is a",
	"nvl":              "* the first non-NULL argument",
	"nvl2":             "* it tests its first argument for NULL",
	"size":             "* -1 for NULL (spark.sql.legacy.sizeOfNull)",
	"struct":           "* NULL values are NULL fields",
	"xxhash64":         "* NULLs are skipped",
	"from_json":        "23 the schema is a literal; NULL options are the defaults",
	"to_json":          "2 options",
	"schema_of_json":   "* the JSON is a literal",
	"from_csv":         "23 the schema is a literal; NULL options are the defaults",
	"to_csv":           "2 options",
	"schema_of_csv":    "* the CSV is a literal",
	"timestampadd":     "1 the unit is a literal",
	"timestampdiff":    "1 the unit is a literal",
	"round":            "2 the scale is a literal",
	"bround":           "2 the scale is a literal",
	"floor":            "2 the scale is a literal",
	"ceil":             "2 the scale is a literal",
	"to_number":        "2 the format is a literal",
	"try_to_number":    "2 the format is a literal",
	"to_char":          "2 the format is a literal",
	"date_part":        "1 the field is a literal",
	"sort_array":       "2 the order is a literal",
	"like":             "3 the escape is a literal",
	"rand":             "* NULL seeds count as 0",
	"randn":            "* NULL seeds count as 0",
	"array_contains":   "",
	"arrays_overlap":   "",
	"to_binary":        "2 the format is a literal",
	"try_to_binary":    "2 the format is a literal",
	"format_number":    "",
	"regexp_extract":   "",
	"sentences":        "",
	"typeof":           "* the type of NULL",
	"bigint":           "",
	"current_timezone": "",
}

// splitCall splits `name(a, b, …)` into its top-level arguments; ok is
// false for any other shape.
func splitCall(name, sql string) ([]string, bool) {
	if !strings.HasPrefix(sql, name+"(") || !strings.HasSuffix(sql, ")") {
		return nil, false
	}
	inner := sql[len(name)+1 : len(sql)-1]
	var args []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, false
			}
		case c == ',' && depth == 0:
			args = append(args, strings.TrimSpace(inner[start:i]))
			start = i + 1
		}
	}
	if depth != 0 || quote != 0 {
		return nil, false
	}
	if strings.TrimSpace(inner) != "" {
		args = append(args, strings.TrimSpace(inner[start:]))
	}
	return args, true
}
