package query_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// frame builds a frame from JSON lines (Spark's inference: integers are
// long, decimals double).
func frame(t testing.TB, ndjson string) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.ReadNDJSON([]byte(ndjson), jsonframe.Options{})
	require.NoError(t, err)
	t.Cleanup(f.Release)
	return f
}

// tables is a resolver over frames by name.
func tables(fs map[string]*dataframe.Frame) query.Tables {
	m := query.Tables{}
	for k, f := range fs {
		m[strings.ToLower(k)] = query.FrameTable(f)
	}
	return m
}

// parse reads one SELECT.
func parse(t testing.TB, text string) query.Query {
	t.Helper()
	st, err := sqlparse.ParseOne(text)
	require.NoError(t, err, text)
	sel, ok := st.(*sqlparse.Select)
	require.True(t, ok, text)
	return sel.Query
}

// result is a query's answer as Spark's golden files print it: the schema
// as struct<name:type,…> and one line per row, values tab-separated as
// CAST(x AS STRING) gives them, NULL for null.
type result struct {
	schema string
	rows   []string
}

func sparkSchema(s *arrow.Schema) string {
	parts := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		parts[i] = f.Name + ":" + sqlType(f.Type)
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

// sqlType is the type as Spark's golden files name it (catalogString).
func sqlType(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.INT8:
		return "tinyint"
	case arrow.INT16:
		return "smallint"
	case arrow.INT32:
		return "int"
	case arrow.INT64:
		return "bigint"
	case arrow.LIST:
		return "array<" + sqlType(dt.(*arrow.ListType).Elem()) + ">"
	case arrow.MAP:
		m := dt.(*arrow.MapType)
		return "map<" + sqlType(m.KeyType()) + "," + sqlType(m.ItemType()) + ">"
	}
	return sparktype.Name(dt)
}

func rowsOf(f *dataframe.Frame) []string {
	var out []string
	for _, rec := range f.Records() {
		for i := 0; i < int(rec.NumRows()); i++ {
			vals := make([]string, rec.NumCols())
			for c, col := range rec.Columns() {
				if col.IsNull(i) || col.DataType().ID() == arrow.NULL {
					vals[c] = "NULL"
				} else {
					vals[c] = string(fn.AppendSparkString(nil, col, i, nil))
				}
			}
			out = append(out, strings.Join(vals, "\t"))
		}
	}
	return out
}

// run plans and runs a query over r with a checked allocator.
func run(t testing.TB, text string, r query.Resolver) (result, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	plan, err := query.Compile(context.Background(), parse(t, text), r, query.Options{Mem: mem})
	if err != nil {
		return result{}, err
	}
	f, err := plan.Frame(context.Background())
	if err != nil {
		return result{}, err
	}
	res := result{schema: sparkSchema(f.Schema()), rows: rowsOf(f)}
	f.Release()
	mem.AssertSize(t, 0)
	return res, nil
}

// mustRun is run that fails the test on an error.
func mustRun(t testing.TB, text string, r query.Resolver) result {
	t.Helper()
	res, err := run(t, text, r)
	require.NoError(t, err, text)
	return res
}
