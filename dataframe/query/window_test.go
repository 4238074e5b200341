package query_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// The expected answers are Spark 3.5's: the examples of its function
// documentation (ExpressionDescription) and its golden window.sql.out,
// whose window cases the golden runner also checks (catalog).

const tab = "VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)"

func TestWindowRanking(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	check(t, r, []qcase{
		{q: "SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY b) FROM " + tab + " ORDER BY a, b",
			schema: "struct<a:string,b:int,row_number() OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW):int>",
			rows:   []string{"A1\t1\t1", "A1\t1\t2", "A1\t2\t3", "A2\t3\t1"}},
	})
	for _, c := range []struct {
		fn, name string
		typ      string
		vals     []string
	}{
		{"rank()", "RANK()", "int", []string{"1", "1", "3", "1"}},
		{"dense_rank()", "DENSE_RANK()", "int", []string{"1", "1", "2", "1"}},
		{"percent_rank()", "PERCENT_RANK()", "double", []string{"0.0", "0.0", "1.0", "0.0"}},
		{"cume_dist()", "cume_dist()", "double", []string{"0.6666666666666666", "0.6666666666666666", "1.0", "1.0"}},
		{"ntile(2)", "ntile(2)", "int", []string{"1", "1", "2", "1"}},
	} {
		frame := "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		if c.fn == "cume_dist()" {
			frame = "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
		}
		res := mustRun(t, "SELECT a, b, "+c.fn+" OVER (PARTITION BY a ORDER BY b) FROM "+tab+" ORDER BY a, b", r)
		require.Equal(t, "struct<a:string,b:int,"+c.name+" OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST "+frame+"):"+c.typ+">", res.schema, c.fn)
		want := []string{"A1\t1\t" + c.vals[0], "A1\t1\t" + c.vals[1], "A1\t2\t" + c.vals[2], "A2\t3\t" + c.vals[3]}
		require.Equal(t, want, res.rows, c.fn)
	}
}

func TestWindowOffsetAndValue(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	check(t, r, []qcase{
		{q: "SELECT a, b, lag(b) OVER (PARTITION BY a ORDER BY b) FROM " + tab + " ORDER BY a, b",
			schema: "struct<a:string,b:int,lag(b, 1, NULL) OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING):int>",
			rows:   []string{"A1\t1\tNULL", "A1\t1\t1", "A1\t2\t1", "A2\t3\tNULL"}},
		{q: "SELECT a, b, lead(b) OVER (PARTITION BY a ORDER BY b) FROM " + tab + " ORDER BY a, b",
			schema: "struct<a:string,b:int,lead(b, 1, NULL) OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING):int>",
			rows:   []string{"A1\t1\t1", "A1\t1\t2", "A1\t2\tNULL", "A2\t3\tNULL"}},
		{q: "SELECT a, b, lead(b, 2, -1) OVER (PARTITION BY a ORDER BY b) AS l FROM " + tab + " ORDER BY a, b",
			rows: []string{"A1\t1\t2", "A1\t1\t-1", "A1\t2\t-1", "A2\t3\t-1"}},
		{q: "SELECT a, b, nth_value(b, 2) OVER (PARTITION BY a ORDER BY b) FROM " + tab + " ORDER BY a, b",
			schema: "struct<a:string,b:int,nth_value(b, 2) OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW):int>",
			rows:   []string{"A1\t1\t1", "A1\t1\t1", "A1\t2\t1", "A2\t3\tNULL"}},
		{q: "SELECT a, b, first_value(b) OVER w AS f, last_value(b) OVER w AS l FROM " + tab +
			" WINDOW w AS (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY a, b",
			rows: []string{"A1\t1\t1\t2", "A1\t1\t1\t2", "A1\t2\t1\t2", "A2\t3\t3\t3"}},
	})
	// window.sql.out: IGNORE NULLS over test_ignore_null.
	ign := "VALUES ('a', 0, null), ('a', 1, 'x'), ('b', 2, null), ('c', 3, null), ('a', 4, 'y'), ('b', 5, null), ('a', 6, 'z'), ('a', 7, 'v'), ('a', 8, null) AS t(content, id, v)"
	check(t, r, []qcase{{
		q: "SELECT id, lead(v, 1) IGNORE NULLS OVER w, lag(v, 2) IGNORE NULLS OVER w, nth_value(v, 2) IGNORE NULLS OVER w, " +
			"first_value(v) IGNORE NULLS OVER w, last_value(v) IGNORE NULLS OVER w FROM " + ign + " WINDOW w AS (ORDER BY id) ORDER BY id",
		rows: []string{
			"0\tx\tNULL\tNULL\tNULL\tNULL", "1\ty\tNULL\tNULL\tx\tx", "2\ty\tNULL\tNULL\tx\tx",
			"3\ty\tNULL\tNULL\tx\tx", "4\tz\tNULL\ty\tx\ty", "5\tz\tx\ty\tx\ty",
			"6\tv\tx\ty\tx\tz", "7\tNULL\ty\ty\tx\tv", "8\tNULL\tz\ty\tx\tv"},
	}, {
		q: "SELECT id, nth_value(v, 2) IGNORE NULLS OVER w, last_value(v) IGNORE NULLS OVER w FROM " + ign +
			" WINDOW w AS (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) ORDER BY id",
		rows: []string{"0\tNULL\tx", "1\tNULL\tx", "2\ty\ty", "3\ty\ty", "4\tz\tz",
			"5\tz\tv", "6\tz\tv", "7\tv\tv", "8\tv\tv"},
	}})
}

// window.sql.out's windowTestData, without its date and timestamp columns.
const windowTestData = `VALUES (null, 1L, 1.0D, "a"), (1, 1L, 1.0D, "a"), (1, 2L, 2.5D, "a"), (2, 2147483650L, 100.001D, "a"),
	(1, null, 1.0D, "b"), (2, 3L, 3.3D, "b"), (3, 2147483650L, 100.001D, "b"), (null, null, null, null), (3, 1L, 1.0D, null)
	AS windowTestData(val, val_long, val_double, cate)`

func TestWindowFrames(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	check(t, r, []qcase{
		{q: "SELECT val, cate, count(val) OVER(PARTITION BY cate ORDER BY val ROWS CURRENT ROW) FROM " + windowTestData + " ORDER BY cate, val",
			schema: "struct<val:int,cate:string,count(val) OVER (PARTITION BY cate ORDER BY val ASC NULLS FIRST ROWS BETWEEN CURRENT ROW AND CURRENT ROW):bigint>",
			rows:   []string{"NULL\tNULL\t0", "3\tNULL\t1", "NULL\ta\t0", "1\ta\t1", "1\ta\t1", "2\ta\t1", "1\tb\t1", "2\tb\t1", "3\tb\t1"}},
		{q: "SELECT val, cate, sum(val) OVER(PARTITION BY cate ORDER BY val ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) FROM " + windowTestData + " ORDER BY cate, val",
			rows: []string{"NULL\tNULL\t3", "3\tNULL\t3", "NULL\ta\t1", "1\ta\t2", "1\ta\t4", "2\ta\t4", "1\tb\t3", "2\tb\t6", "3\tb\t6"}},
		{q: "SELECT val, cate, count(val) OVER(PARTITION BY cate ORDER BY val RANGE 1 PRECEDING) FROM " + windowTestData + " ORDER BY cate, val",
			schema: "struct<val:int,cate:string,count(val) OVER (PARTITION BY cate ORDER BY val ASC NULLS FIRST RANGE BETWEEN 1 PRECEDING AND CURRENT ROW):bigint>",
			rows:   []string{"NULL\tNULL\t0", "3\tNULL\t1", "NULL\ta\t0", "1\ta\t2", "1\ta\t2", "2\ta\t3", "1\tb\t1", "2\tb\t2", "3\tb\t2"}},
		{q: "SELECT val, cate, sum(val) OVER(PARTITION BY cate ORDER BY val DESC RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM " + windowTestData + " ORDER BY cate, val",
			rows: []string{"NULL\tNULL\tNULL", "3\tNULL\t3", "NULL\ta\tNULL", "1\ta\t2", "1\ta\t2", "2\ta\t4", "1\tb\t1", "2\tb\t3", "3\tb\t5"}},
		{q: "SELECT val_double, cate, sum(val_double) OVER(PARTITION BY cate ORDER BY val_double RANGE BETWEEN CURRENT ROW AND 2.5 FOLLOWING) FROM " + windowTestData + " ORDER BY cate, val_double",
			schema: "struct<val_double:double,cate:string,sum(val_double) OVER (PARTITION BY cate ORDER BY val_double ASC NULLS FIRST RANGE BETWEEN CURRENT ROW AND 2.5 FOLLOWING):double>",
			rows:   []string{"NULL\tNULL\tNULL", "1.0\tNULL\t1.0", "1.0\ta\t4.5", "1.0\ta\t4.5", "2.5\ta\t2.5", "100.001\ta\t100.001", "1.0\tb\t4.3", "3.3\tb\t3.3", "100.001\tb\t100.001"}},
		{q: "SELECT val, cate, sum(val) OVER(), avg(val) OVER() FROM " + windowTestData + " ORDER BY cate, val",
			schema: "struct<val:int,cate:string,sum(val) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING):bigint,avg(val) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING):double>",
			rows: []string{"NULL\tNULL\t13\t1.8571428571428572", "3\tNULL\t13\t1.8571428571428572", "NULL\ta\t13\t1.8571428571428572",
				"1\ta\t13\t1.8571428571428572", "1\ta\t13\t1.8571428571428572", "2\ta\t13\t1.8571428571428572",
				"1\tb\t13\t1.8571428571428572", "2\tb\t13\t1.8571428571428572", "3\tb\t13\t1.8571428571428572"}},
		{q: "SELECT cate, sum(val) OVER (w) FROM " + windowTestData + " WHERE val is not null WINDOW w AS (PARTITION BY cate ORDER BY val) ORDER BY cate, val",
			schema: "struct<cate:string,sum(val) OVER (PARTITION BY cate ORDER BY val ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW):bigint>",
			rows:   []string{"NULL\t3", "a\t2", "a\t2", "a\t4", "b\t1", "b\t3", "b\t6"}},
		// A running total, a moving average and a window over an aggregate.
		{q: "SELECT cate, sum(val), rank() OVER (ORDER BY sum(val) DESC), sum(sum(val)) OVER (ORDER BY cate ROWS UNBOUNDED PRECEDING) FROM " + windowTestData + " GROUP BY cate ORDER BY cate",
			schema: "struct<cate:string,sum(val):bigint,RANK() OVER (ORDER BY sum(val) DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW):int,sum(sum(val)) OVER (ORDER BY cate ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW):bigint>",
			rows:   []string{"NULL\t3\t3\t3", "a\t4\t2\t7", "b\t6\t1\t13"}},
		{q: "SELECT val, avg(val) OVER (ORDER BY val ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS m FROM " + windowTestData + " WHERE cate = 'b' ORDER BY val",
			rows: []string{"1\t1.5", "2\t2.0", "3\t2.5"}},
		{q: "SELECT val, collect_list(val) OVER (ORDER BY val ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS l FROM " + windowTestData + " WHERE cate = 'b' ORDER BY val",
			rows: []string{"1\t[1, 2, 3]", "2\t[2, 3]", "3\t[3]"}},
	})
}

func TestWindowErrors(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	for q, want := range map[string]string{
		"SELECT row_number() OVER (PARTITION BY cate) FROM " + windowTestData:                                                            "requires the window to be ordered",
		"SELECT sum(val) OVER w FROM " + windowTestData:                                                                                  "window specification w is not defined in the WINDOW clause",
		"SELECT count(val) OVER (PARTITION BY cate ROWS BETWEEN UNBOUNDED FOLLOWING AND 1 FOLLOWING) FROM " + windowTestData:             "cannot start at UNBOUNDED FOLLOWING",
		"SELECT count(val) OVER (PARTITION BY cate RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM " + windowTestData:                    "without ORDER BY",
		"SELECT count(val) OVER (PARTITION BY cate ORDER BY val, cate RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM " + windowTestData: "more than one ORDER BY key",
		"SELECT count(val) OVER (ORDER BY val RANGE BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM " + windowTestData:                         "lower bound of a window frame must be less than or equal to the upper bound",
		"SELECT sum(val_long) OVER (ORDER BY val_long ROWS BETWEEN CURRENT ROW AND 2147483648 FOLLOWING) FROM " + windowTestData:         "must be an int",
		"SELECT count(val) FILTER (WHERE val > 1) OVER (PARTITION BY cate) FROM " + windowTestData:                                       "FILTER",
		"SELECT val FROM " + windowTestData + " WHERE row_number() OVER (ORDER BY val) = 1":                                              "not allowed in WHERE",
		"SELECT rank() OVER (ORDER BY val ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM " + windowTestData:                              "must match the required frame",
		"SELECT val FROM " + windowTestData + " WINDOW w AS (ORDER BY val), w AS (ORDER BY cate)":                                        "repetitive",
		"SELECT row_number() FROM " + windowTestData:                                                                                     "needs OVER",
		"SELECT sum(DISTINCT val) OVER () FROM " + windowTestData:                                                                        "DISTINCT",
	} {
		_, err := run(t, q, r)
		require.Error(t, err, q)
		require.Contains(t, err.Error(), want, q)
	}
}

// runWith runs a query with options (a sort memory that spills, say).
func runWith(t *testing.T, text string, r query.Resolver, opts query.Options) (result, string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	opts.Mem = mem
	plan, err := query.Compile(context.Background(), parse(t, text), r, opts)
	require.NoError(t, err, text)
	f, err := plan.Frame(context.Background())
	require.NoError(t, err, text)
	res := result{schema: sparkSchema(f.Schema()), rows: rowsOf(f)}
	f.Release()
	mem.AssertSize(t, 0)
	return res, plan.Explain()
}

// events is n rows of (id, ts, v) over keys ids, with ties in ts and
// NULLs, in several batches.
func events(t *testing.T, n, keys int, seed uint64) query.Tables {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for i := 0; i < n; i++ {
		ts := fmt.Sprint(rng.IntN(50))
		if rng.IntN(20) == 0 {
			ts = "null"
		}
		fmt.Fprintf(&b, `{"id":%d,"ts":%s,"v":%d}`+"\n", rng.IntN(keys), ts, i)
	}
	f := frame(t, b.String())
	return tables(map[string]*dataframe.Frame{"events": rebatch(t, f, 97)})
}

// rebatch cuts f into batches of n rows.
func rebatch(t *testing.T, f *dataframe.Frame, n int64) *dataframe.Frame {
	t.Helper()
	rec := f.Records()[0]
	var parts []arrow.Record
	for lo := int64(0); lo < rec.NumRows(); lo += n {
		parts = append(parts, rec.NewSlice(lo, min(lo+n, rec.NumRows())))
	}
	out, err := dataframe.New(f.Schema(), parts...)
	require.NoError(t, err)
	t.Cleanup(out.Release)
	return out
}

// The latest row per key: the per-key top-1 gives the window's answer,
// ties included for rank, through spilling sorts too.
func TestWindowLatestRowPerKey(t *testing.T) {
	t.Parallel()
	r := events(t, 3000, 300, 1)
	sorted := func(rows []string) []string {
		out := append([]string(nil), rows...)
		sort.Strings(out)
		return out
	}
	for _, fn := range []string{"row_number()", "rank()", "dense_rank()"} {
		for _, order := range []string{"ts DESC", "ts", "ts DESC NULLS FIRST", "ts, v DESC"} {
			inner := "SELECT *, " + fn + " OVER (PARTITION BY id ORDER BY " + order + ") AS rn FROM events"
			top, plan := runWith(t, "SELECT * FROM ("+inner+") WHERE rn = 1", r, query.Options{})
			require.Contains(t, plan, "TopOnePerKey", fn)
			// rn + 0 = 1 is not the rewrite's shape: the window computes it.
			win, plan2 := runWith(t, "SELECT * FROM ("+inner+") WHERE rn + 0 = 1", r, query.Options{SortMemory: 16 << 10})
			require.NotContains(t, plan2, "TopOnePerKey")
			require.Equal(t, top.schema, win.schema)
			if fn == "row_number()" && !strings.Contains(order, "v") {
				// Ties in ts: any one of the tied rows is Spark's answer;
				// compare the keys and order values only.
				require.Equal(t, sorted(keysAndTs(top.rows)), sorted(keysAndTs(win.rows)), order)
				continue
			}
			require.Equal(t, sorted(top.rows), sorted(win.rows), fn+" "+order)
		}
	}
	// Other conjuncts stay; rn <= 1 and 1 = rn are the same filter.
	a, plan := runWith(t, "SELECT id, v FROM (SELECT *, rank() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM events) WHERE 1 = rn AND v > 100", r, query.Options{})
	require.Contains(t, plan, "TopOnePerKey")
	b, _ := runWith(t, "SELECT id, v FROM (SELECT *, rank() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM events) WHERE rn <= 1 AND v > 100", r, query.Options{})
	require.Equal(t, sorted(a.rows), sorted(b.rows))
}

func keysAndTs(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		f := strings.Split(r, "\t")
		out[i] = f[0] + "\t" + f[1]
	}
	return out
}

// A window over more rows than the sort memory spills sorted runs to disk
// and merges them: the same answer as in memory.
func TestWindowSpills(t *testing.T) {
	t.Parallel()
	r := events(t, 5000, 40, 2)
	q := "SELECT id, ts, v, row_number() OVER w, sum(v) OVER w, lag(v) OVER w FROM events WINDOW w AS (PARTITION BY id ORDER BY ts, v) ORDER BY id, ts, v"
	inMem, _ := runWith(t, q, r, query.Options{})
	spilled, _ := runWith(t, q, r, query.Options{SortMemory: 8 << 10})
	require.Equal(t, inMem.rows, spilled.rows)
	require.Len(t, inMem.rows, 5000)
}
