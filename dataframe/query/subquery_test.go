package query_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// The answers follow Spark 3.5's subquery semantics (its golden files
// subquery/in-subquery/*, exists-subquery/*, scalar-subquery/* run the same
// shapes over their tables: see catalog/testdata/spark).

func subqueryTables(t *testing.T) query.Tables {
	t1 := frame(t, `{"a":1,"b":10}
{"a":2,"b":20}
{"a":null,"b":30}
{"a":4,"b":null}
`)
	t2 := frame(t, `{"x":1,"y":100}
{"x":1,"y":101}
{"x":3,"y":300}
{"x":null,"y":400}
`)
	return tables(map[string]*dataframe.Frame{"t1": t1, "t2": t2})
}

var subqueryCases = []qcase{
	// IN: true on a match, NULL when a NULL might match, else false.
	{q: "SELECT a FROM t1 WHERE a IN (SELECT x FROM t2) ORDER BY a", rows: []string{"1"}},
	{q: "SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2)", rows: nil},
	{q: "SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2 WHERE x IS NOT NULL) ORDER BY a", rows: []string{"2", "4"}},
	{
		q:      "SELECT a, a IN (SELECT x FROM t2), a NOT IN (SELECT x FROM t2 WHERE x > 100) FROM t1 ORDER BY b",
		schema: "struct<a:bigint,(a IN (listquery())):boolean,(NOT (a IN (listquery()))):boolean>",
		rows:   []string{"4\tNULL\ttrue", "1\ttrue\ttrue", "2\tNULL\ttrue", "NULL\tNULL\ttrue"},
	},
	{q: "SELECT NULL IN (SELECT x FROM t2 WHERE x > 100), NULL NOT IN (SELECT x FROM t2 WHERE x > 100)", rows: []string{"false\ttrue"}},
	// Rows of values: NOT IN keeps a row only where every row of the
	// subquery differs in a non-NULL value.
	{
		q:    "SELECT a, b FROM t1 WHERE (a, b) NOT IN (SELECT * FROM VALUES (1, 10), (NULL, 20) AS v(x, y))",
		rows: []string{"NULL\t30"},
	},
	{q: "SELECT a, b FROM t1 WHERE (a, b) IN (SELECT x, y - 90 FROM t2) ORDER BY a", rows: []string{"1\t10"}},
	// Correlated IN and [NOT] EXISTS.
	{q: "SELECT a FROM t1 WHERE b IN (SELECT y - 90 FROM t2 WHERE t2.x = t1.a)", rows: []string{"1"}},
	{q: "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a) ORDER BY a", rows: []string{"1"}},
	{q: "SELECT a FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a) ORDER BY a", rows: []string{"NULL", "2", "4"}},
	{q: "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x > t1.a) ORDER BY a", rows: []string{"1", "2"}},
	{
		q:      "SELECT a, EXISTS (SELECT 1 FROM t2 WHERE x = a) FROM t1 ORDER BY b",
		schema: "struct<a:bigint,exists(a):boolean>",
		rows:   []string{"4\tfalse", "1\ttrue", "2\tfalse", "NULL\tfalse"},
	},
	{q: "SELECT a FROM t1 WHERE a = 2 OR EXISTS (SELECT 1 FROM t2 WHERE x = a) ORDER BY a", rows: []string{"1", "2"}},
	// Scalar subqueries: NULL over no row; correlated, an aggregate of no
	// rows is the aggregate's value there (count 0).
	{
		q:      "SELECT a, (SELECT count(*) FROM t2 WHERE t2.x = t1.a) FROM t1 ORDER BY b",
		schema: "struct<a:bigint,scalarsubquery(a):bigint>",
		rows:   []string{"4\t0", "1\t2", "2\t0", "NULL\t0"},
	},
	{q: "SELECT a, (SELECT sum(y) FROM t2 WHERE x = a) s FROM t1 ORDER BY b", rows: []string{"4\tNULL", "1\t201", "2\tNULL", "NULL\tNULL"}},
	{q: "SELECT a, (SELECT count(*) + 10 FROM t2 WHERE x = a) FROM t1 ORDER BY b", rows: []string{"4\t10", "1\t12", "2\t10", "NULL\t10"}},
	{q: "SELECT a, (SELECT max(y) + a FROM t2 WHERE x = a) FROM t1 ORDER BY b", rows: []string{"4\tNULL", "1\t102", "2\tNULL", "NULL\tNULL"}},
	{q: "SELECT a, (SELECT count(*) FROM t2 WHERE t2.x < t1.a) FROM t1 ORDER BY b", rows: []string{"4\t3", "1\t0", "2\t2", "NULL\t0"}},
	{q: "SELECT a FROM t1 WHERE a < (SELECT max(x) FROM t2) ORDER BY a", rows: []string{"1", "2"}},
	{q: "SELECT a FROM t1 WHERE b > (SELECT count(*) FROM t2 WHERE x = a) * 15 ORDER BY a", rows: []string{"NULL", "2"}},
	{q: "SELECT (SELECT y FROM t2 WHERE x = 7)", schema: "struct<scalarsubquery():bigint>", rows: []string{"NULL"}},
	{q: "SELECT a, (SELECT a) FROM t1 WHERE b = 10", schema: "struct<a:bigint,scalarsubquery(a):bigint>", rows: []string{"1\t1"}},
	// cte-nested.sql: an outer column read only by an unreferenced WITH
	// query still names the subquery, ahead of the plan's own.
	{q: "SELECT (WITH unreferenced AS (SELECT b) SELECT a) FROM t1 WHERE b = 10", schema: "struct<scalarsubquery(b, a):bigint>", rows: []string{"1"}},
	{q: "SELECT x, count(*) FROM t2 GROUP BY x HAVING count(*) > (SELECT count(*) FROM t1 WHERE a = 4)", rows: []string{"1\t2"}},
	{q: "SELECT sum((SELECT max(y) FROM t2))", rows: []string{"400"}},
	// Nested, correlated two levels out; an aggregate of the outer query.
	{
		q:    "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE x = a AND EXISTS (SELECT 1 FROM t2 t3 WHERE t3.y = t2.y + 1 AND t3.x = t1.a))",
		rows: []string{"1"},
	},
	{q: "SELECT x FROM t2 GROUP BY x HAVING EXISTS (SELECT 1 FROM t1 WHERE t1.b < min(t2.y) / 10) ORDER BY x", rows: []string{"NULL", "3"}},
	// A correlated subquery grouped, limited, in a join.
	{q: "SELECT a FROM t1 WHERE EXISTS (SELECT x FROM t2 WHERE x = a GROUP BY x HAVING count(*) > 1)", rows: []string{"1"}},
	{q: "SELECT a FROM t1 WHERE 100 IN (SELECT y FROM t2 WHERE x = a ORDER BY y LIMIT 1)", rows: []string{"1"}},
	{q: "SELECT a, (SELECT sum(t2.y) FROM t2 JOIN t1 u ON t2.x = u.a WHERE u.b = t1.b) FROM t1 ORDER BY b", rows: []string{"4\tNULL", "1\t201", "2\tNULL", "NULL\tNULL"}},
	{q: "WITH q AS (SELECT x FROM t2 WHERE y > 200) SELECT a FROM t1 WHERE a IN (SELECT * FROM q)", rows: nil},
	{q: "WITH q AS (SELECT x FROM t2 WHERE y < 200) SELECT a FROM t1 WHERE a IN (SELECT * FROM q)", rows: []string{"1"}},
	// Anywhere an expression may be: ON, ORDER BY, GROUP BY (by ordinal),
	// a lambda's body (reading its variable), a generator's argument.
	{q: "SELECT a FROM t1 LEFT JOIN t2 ON t1.a = t2.x AND EXISTS (SELECT 1 FROM t2 z WHERE z.x = t1.a) ORDER BY b", rows: []string{"4", "1", "1", "2", "NULL"}},
	{q: "SELECT a FROM t1 ORDER BY (SELECT count(*) FROM t2 WHERE x = a), a", rows: []string{"NULL", "2", "4", "1"}},
	{q: "SELECT a IN (SELECT x FROM t2), count(*) FROM t1 GROUP BY 1 ORDER BY 2", rows: []string{"true\t1", "NULL\t3"}},
	{q: "SELECT transform(array(1, 2), v -> (SELECT count(*) FROM t2 WHERE x = v)) FROM t1 WHERE a = 1", rows: []string{"[2, 0]"}},
	{q: "SELECT a, (SELECT transform(array(1), v -> v + t1.a)) FROM t1 WHERE a = 2", rows: []string{"2\t[3]"}},
	{q: "SELECT explode(array(a, (SELECT max(x) FROM t2))) FROM t1 WHERE a = 2", rows: []string{"2", "3"}},
	{q: "SELECT (SELECT count(*) FROM t2 WHERE x = a HAVING count(*) > 0) FROM t1 ORDER BY b", rows: []string{"NULL", "2", "NULL", "NULL"}},
	{q: "SELECT (SELECT sum(y) FROM t2 WHERE x = a GROUP BY x) FROM t1 ORDER BY b", rows: []string{"NULL", "201", "NULL", "NULL"}},
}

func TestSubqueries(t *testing.T) {
	t.Parallel()
	check(t, subqueryTables(t), subqueryCases)
}

// TestSubqueriesUnrewritten checks that every subquery gives the same
// answer decorrelated into a join (Compile) as run once per outer row
// (CompileUnrewritten: no rewrite turns it into a join).
func TestSubqueriesUnrewritten(t *testing.T) {
	t.Parallel()
	r := subqueryTables(t)
	for _, c := range subqueryCases {
		plan, err := query.CompileUnrewritten(context.Background(), parse(t, c.q), r)
		require.NoError(t, err, c.q)
		f, err := plan.Frame(context.Background())
		require.NoError(t, err, c.q)
		got := rowsOf(f)
		f.Release()
		want := append([]string(nil), c.rows...)
		sort.Strings(got)
		sort.Strings(want)
		require.Equal(t, want, got, c.q)
	}
}

// TestSubqueryPlans checks which subqueries become joins.
func TestSubqueryPlans(t *testing.T) {
	t.Parallel()
	r := subqueryTables(t)
	for _, c := range []struct {
		q        string
		has, not []string
	}{
		{q: "SELECT a FROM t1 WHERE a IN (SELECT x FROM t2)", has: []string{"HashJoin LEFT SEMI keys: a = x"}},
		{q: "SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a)", has: []string{"HashJoin LEFT SEMI keys: a = x"}},
		{q: "SELECT a FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.x = t1.a AND t2.y > t1.b)", has: []string{"HashJoin LEFT ANTI keys: a = x filter: (y > b)"}},
		{q: "SELECT a FROM t1 WHERE EXISTS (SELECT x FROM t2 WHERE x = a GROUP BY x)", has: []string{"LEFT SEMI"}},
		{q: "SELECT a, (SELECT count(*) FROM t2 WHERE t2.x = t1.a) FROM t1", has: []string{"HashJoin LEFT keys: a = x", "HashAggregate keys: x"}},
		// NOT IN keeps its NULL semantics: a hashed set, not an anti join.
		{q: "SELECT a FROM t1 WHERE a NOT IN (SELECT x FROM t2)", not: []string{"ANTI", "SEMI"}},
		// A count over no rows is a row: EXISTS of it is not a join.
		{q: "SELECT a FROM t1 WHERE EXISTS (SELECT count(*) FROM t2 WHERE x = a)", not: []string{"SEMI"}},
	} {
		plan, err := query.Compile(context.Background(), parse(t, c.q), r, query.Options{})
		require.NoError(t, err, c.q)
		ex := plan.Explain()
		for _, s := range c.has {
			require.Contains(t, ex, s, c.q)
		}
		for _, s := range c.not {
			require.NotContains(t, ex, s, c.q)
		}
	}
	// EXISTS of an aggregate without GROUP BY is always true (Spark's
	// exists-count-bug).
	check(t, r, []qcase{{q: "SELECT a FROM t1 WHERE EXISTS (SELECT count(*) FROM t2 WHERE x = a) ORDER BY a", rows: []string{"NULL", "1", "2", "4"}}})
}

func TestSubqueryErrors(t *testing.T) {
	t.Parallel()
	r := subqueryTables(t)
	for _, c := range []struct{ q, want string }{
		{"SELECT (SELECT y FROM t2)", "more than one row returned by a subquery used as an expression"},
		{"SELECT (SELECT x, y FROM t2 WHERE x = 3)", "a scalar subquery must give one column, this one gives 2"},
		{"SELECT a FROM t1 WHERE a IN (SELECT x, y FROM t2)", "the left side has 1 value(s), the subquery gives 2 column(s)"},
		{"SELECT (SELECT y FROM t2 WHERE x = a) FROM t1", "MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY"},
		{"SELECT (SELECT max(y) FROM t2 GROUP BY a) FROM t1", "not allowed in GROUP BY"},
		{"SELECT (SELECT sum(y) FROM t2 WHERE x = a GROUP BY y) FROM t1", "NON_CORRELATED_COLUMNS_IN_GROUP_BY"},
		{"SELECT a FROM t1 WHERE EXISTS (SELECT x FROM t2 WHERE x = a UNION ALL SELECT 1)", "is on a path Spark cannot decorrelate"},
		{"SELECT (SELECT max(y + a) FROM t2) FROM t1", "refers to the outer query"},
		{"SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE nope = a)", "unknown column nope"},
		{"SELECT a FROM t1 WHERE (a, b) = 1", "cannot compare struct<a:long,b:long> with integer"},
	} {
		_, err := run(t, c.q, r)
		require.Error(t, err, c.q)
		require.Contains(t, err.Error(), c.want, c.q)
	}
}

// bigIDs is a frame of n ids, from+0 … from+n-1 (in batches of 64K rows).
func bigIDs(b *testing.B, n, from int) *dataframe.Frame {
	b.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var recs []arrow.Record
	for lo := 0; lo < n; lo += 1 << 16 {
		hi := min(lo+1<<16, n)
		bld := array.NewInt64Builder(memory.DefaultAllocator)
		for i := lo; i < hi; i++ {
			bld.Append(int64(from + i))
		}
		col := bld.NewArray()
		bld.Release()
		recs = append(recs, array.NewRecord(schema, []arrow.Array{col}, int64(hi-lo)))
		col.Release()
	}
	f, err := dataframe.New(schema, recs...) // takes the records over
	require.NoError(b, err)
	b.Cleanup(f.Release)
	return f
}

// BenchmarkInSubquery is `WHERE id IN (SELECT id FROM big)` over 1M rows
// each side, half of them matching: a hash semi join.
func BenchmarkInSubquery(b *testing.B) {
	const n = 1 << 20
	r := tables(map[string]*dataframe.Frame{"t": bigIDs(b, n, 0), "big": bigIDs(b, n, n/2)})
	for _, q := range []string{
		"SELECT count(*) FROM t WHERE id IN (SELECT id FROM big)",
		"SELECT count(*) FROM t WHERE id NOT IN (SELECT id FROM big)",
		"SELECT count(*) FROM t JOIN big ON t.id = big.id",
	} {
		b.Run(q, func(b *testing.B) {
			st := parse(b, q)
			for i := 0; i < b.N; i++ {
				plan, err := query.Compile(context.Background(), st, r, query.Options{})
				require.NoError(b, err)
				f, err := plan.Frame(context.Background())
				require.NoError(b, err)
				require.Equal(b, fmt.Sprint(n/2), rowsOf(f)[0])
				f.Release()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
