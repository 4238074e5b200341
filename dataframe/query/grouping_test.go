package query_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The expected answers are Spark 3.5's: its documentation's examples and
// its golden files (group-analytics.sql.out, grouping_set.sql.out,
// group-by-all.sql.out, group-by-filter.sql.out, percentiles.sql.out),
// which the golden runner checks in full (catalog).

// group-analytics.sql.out's courseSales.
const courseSales = `VALUES ("dotNET", 2012, 10000), ("Java", 2012, 20000), ("dotNET", 2012, 5000), ("dotNET", 2013, 48000), ("Java", 2013, 30000)
	AS courseSales(course, year, earnings)`

func TestGroupingSets(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	check(t, r, []qcase{
		{q: "SELECT course, year, SUM(earnings) FROM " + courseSales + " GROUP BY ROLLUP(course, year) ORDER BY course, year",
			schema: "struct<course:string,year:int,sum(earnings):bigint>",
			rows: []string{"NULL\tNULL\t113000", "Java\tNULL\t50000", "Java\t2012\t20000", "Java\t2013\t30000",
				"dotNET\tNULL\t63000", "dotNET\t2012\t15000", "dotNET\t2013\t48000"}},
		{q: "SELECT course, year, SUM(earnings) FROM " + courseSales + " GROUP BY CUBE(course, year) ORDER BY course, year",
			rows: []string{"NULL\tNULL\t113000", "NULL\t2012\t35000", "NULL\t2013\t78000", "Java\tNULL\t50000",
				"Java\t2012\t20000", "Java\t2013\t30000", "dotNET\tNULL\t63000", "dotNET\t2012\t15000", "dotNET\t2013\t48000"}},
		{q: "SELECT course, year, SUM(earnings) FROM " + courseSales + " GROUP BY course, year GROUPING SETS(course, year) ORDER BY course, year",
			rows: []string{"NULL\t2012\t35000", "NULL\t2013\t78000", "Java\tNULL\t50000", "dotNET\tNULL\t63000"}},
		{q: "SELECT course, year, GROUPING(course), GROUPING(year), GROUPING_ID(course, year) FROM " + courseSales +
			" GROUP BY CUBE(course, year) ORDER BY GROUPING(course), GROUPING(year), course, year",
			schema: "struct<course:string,year:int,grouping(course):tinyint,grouping(year):tinyint,grouping_id(course, year):bigint>",
			rows: []string{"Java\t2012\t0\t0\t0", "Java\t2013\t0\t0\t0", "dotNET\t2012\t0\t0\t0", "dotNET\t2013\t0\t0\t0",
				"Java\tNULL\t0\t1\t1", "dotNET\tNULL\t0\t1\t1", "NULL\t2012\t1\t0\t2", "NULL\t2013\t1\t0\t2", "NULL\tNULL\t1\t1\t3"}},
		{q: "SELECT course, year FROM " + courseSales + " GROUP BY CUBE(course, year) HAVING GROUPING(year) = 1 AND GROUPING_ID(course, year) > 0 ORDER BY course, year",
			rows: []string{"NULL\tNULL", "Java\tNULL", "dotNET\tNULL"}},
		// A plain key times a ROLLUP, and WITH ROLLUP.
		{q: "SELECT course, year, count(*) FROM " + courseSales + " GROUP BY course, ROLLUP(year) ORDER BY course, year",
			rows: []string{"Java\tNULL\t2", "Java\t2012\t1", "Java\t2013\t1", "dotNET\tNULL\t3", "dotNET\t2012\t2", "dotNET\t2013\t1"}},
		{q: "SELECT course, year, count(*) FROM " + courseSales + " GROUP BY course, year WITH ROLLUP ORDER BY course, year",
			rows: []string{"NULL\tNULL\t5", "Java\tNULL\t2", "Java\t2012\t1", "Java\t2013\t1", "dotNET\tNULL\t3", "dotNET\t2012\t2", "dotNET\t2013\t1"}},
		// Aggregates read the keys' own values, not the NULLs of the set.
		{q: "SELECT year, sum(year), grouping__id FROM " + courseSales + " GROUP BY ROLLUP(year) ORDER BY year",
			rows: []string{"NULL\t10062\t1", "2012\t6036\t0", "2013\t4026\t0"}},
		// A repeated set gives its groups twice.
		{q: "SELECT year, count(*) FROM " + courseSales + " GROUP BY GROUPING SETS((year), (year)) ORDER BY year",
			rows: []string{"2012\t3", "2012\t3", "2013\t2", "2013\t2"}},
		// GROUP BY ALL.
		{q: "SELECT course, count(*) AS n, sum(earnings) + 1 FROM " + courseSales + " GROUP BY ALL ORDER BY course",
			schema: "struct<course:string,n:bigint,(sum(earnings) + 1):bigint>",
			rows:   []string{"Java\t2\t50001", "dotNET\t3\t63001"}},
		{q: "SELECT count(*) FROM " + courseSales + " WHERE year > 3000 GROUP BY ALL", rows: []string{"0"}},
		// FILTER.
		{q: "SELECT course, count(*) FILTER (WHERE year = 2012), sum(earnings) FILTER (WHERE earnings > 10000) FROM " + courseSales + " GROUP BY course ORDER BY course",
			schema: "struct<course:string,count(1) FILTER (WHERE (year = 2012)):bigint,sum(earnings) FILTER (WHERE (earnings > 10000)):bigint>",
			rows:   []string{"Java\t1\t50000", "dotNET\t2\t48000"}},
	})
	for q, want := range map[string]string{
		"SELECT course, grouping(course) FROM " + courseSales + " GROUP BY course":       "can only be used with GROUPING SETS",
		"SELECT course, grouping(year) FROM " + courseSales + " GROUP BY ROLLUP(course)": "not a group key",
		"SELECT year + count(*) FROM " + courseSales + " GROUP BY ALL":                   "GROUP BY ALL cannot tell the group keys",
		"SELECT count(*) FILTER (WHERE sum(year) > 1) FROM " + courseSales:               "cannot contain an aggregate",
	} {
		_, err := run(t, q, r)
		require.Error(t, err, q)
		require.Contains(t, err.Error(), want, q)
	}
}

func TestAggregateFunctions(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	// The examples of Spark's function documentation.
	check(t, r, []qcase{
		{q: "SELECT count_if(col % 2 = 0) FROM VALUES (NULL), (0), (1), (2), (3) AS tab(col)",
			schema: "struct<count_if(((col % 2) = 0)):bigint>", rows: []string{"2"}},
		{q: "SELECT bool_and(col), every(col) FROM VALUES (true), (false), (true) AS tab(col)", rows: []string{"false\tfalse"}},
		{q: "SELECT bool_and(col) FROM VALUES (NULL), (true), (true) AS tab(col)", rows: []string{"true"}},
		{q: "SELECT bool_or(col), any(col), some(col) FROM VALUES (false), (false), (NULL) AS tab(col)", rows: []string{"false\tfalse\tfalse"}},
		{q: "SELECT bool_or(col) FROM VALUES (NULL), (true), (false) AS tab(col)", rows: []string{"true"}},
		{q: "SELECT min_by(x, y), max_by(x, y) FROM VALUES ('a', 10), ('b', 50), ('c', 20) AS tab(x, y)",
			schema: "struct<min_by(x, y):string,max_by(x, y):string>", rows: []string{"a\tb"}},
		{q: "SELECT stddev(col), stddev_pop(col), var_pop(col), var_samp(col), variance(col) FROM VALUES (1), (2), (3) AS tab(col)",
			schema: "struct<stddev(col):double,stddev_pop(col):double,var_pop(col):double,var_samp(col):double,variance(col):double>",
			rows:   []string{"1.0\t0.816496580927726\t0.6666666666666666\t1.0\t1.0"}},
		{q: "SELECT stddev_samp(col), var_samp(col), stddev_pop(col) FROM VALUES (1) AS tab(col)", rows: []string{"NULL\tNULL\t0.0"}},
		{q: "SELECT skewness(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col)",
			rows: []string{"1.1135657469022011"}},
		{q: "SELECT corr(c1, c2) FROM VALUES (3, 2), (3, 3), (6, 4) as tab(c1, c2)", rows: []string{"0.8660254037844387"}},
		{q: "SELECT covar_pop(c1, c2), covar_samp(c1, c2) FROM VALUES (1,1), (2,2), (3,3) AS tab(c1, c2)",
			rows: []string{"0.6666666666666666\t1.0"}},
		{q: "SELECT percentile(col, 0.3), median(col) FROM VALUES (0), (10) AS tab(col)",
			schema: "struct<percentile(col, 0.3, 1):double,median(col):double>", rows: []string{"3.0\t5.0"}},
		{q: "SELECT percentile(col, 0.5, f) FROM VALUES (0, 1), (10, 3) AS tab(col, f)", rows: []string{"10.0"}},
		{q: "SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY col), percentile_disc(0.25) WITHIN GROUP (ORDER BY col) FROM VALUES (0), (10) AS tab(col)",
			schema: "struct<percentile_cont(0.25) WITHIN GROUP (ORDER BY v):double,percentile_disc(0.25) WITHIN GROUP (ORDER BY v):double>",
			rows:   []string{"2.5\t0.0"}},
		{q: "SELECT percentile_approx(col, 0.5, 100) FROM VALUES (0), (6), (7), (9), (10) AS tab(col)",
			schema: "struct<percentile_approx(col, 0.5, 100):int>", rows: []string{"7"}},
		{q: "SELECT approx_count_distinct(col1) FROM VALUES (1), (1), (2), (2), (3) tab(col1)",
			schema: "struct<approx_count_distinct(col1):bigint>", rows: []string{"3"}},
		// count.sql.out: several arguments, DISTINCT tuples.
		{q: "SELECT count(a, b), count(DISTINCT a, b), count(DISTINCT 3, 2) FROM VALUES (1, 1), (1, 2), (2, 1), (1, 1), (null, 2), (1, null), (null, null) AS testData(a, b)",
			schema: "struct<count(a, b):bigint,count(DISTINCT a, b):bigint,count(DISTINCT 3, 2):bigint>", rows: []string{"4\t3\t1"}},
		// Decimals: sum(decimal(p,s)) is decimal(p+10,s), avg decimal(p+4,s+4), in a window too.
		{q: "SELECT sum(d), avg(d), sum(d) OVER (), avg(d) OVER (ORDER BY d ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS m FROM VALUES (CAST(1 AS DECIMAL(5,2))), (2.5) AS t(d) GROUP BY d ORDER BY d",
			schema: "struct<sum(d):decimal(15,2),avg(d):decimal(9,6),sum(d) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING):decimal(15,2),m:decimal(9,6)>",
			rows:   []string{"1.00\t1.000000\t3.50\t1.000000", "2.50\t2.500000\t3.50\t1.750000"}},
		// Over no rows.
		{q: "SELECT count_if(a > 0), bool_and(a > 0), stddev(a), percentile(a, 0.5), min_by(a, a), approx_count_distinct(a) FROM VALUES (1) AS t(a) WHERE a > 5",
			rows: []string{"0\tNULL\tNULL\tNULL\tNULL\t0"}},
	})
	// Spark's example gives -0.7014368047529627: its rows were summed in
	// two partitions and merged, which rounds differently from one pass.
	res := mustRun(t, "SELECT kurtosis(col) FROM VALUES (-10), (-20), (100), (1000) AS tab(col)", r)
	k, err := strconv.ParseFloat(res.rows[0], 64)
	require.NoError(t, err)
	require.InDelta(t, -0.7014368047529627, k, 1e-12)
	for q, want := range map[string]string{
		"SELECT percentile(col, 1.5) FROM VALUES (1) AS tab(col)":                 "between 0.0 and 1.0",
		"SELECT percentile_cont(0.5) FROM VALUES (1) AS tab(col)":                 "WITHIN GROUP",
		"SELECT sum(col) WITHIN GROUP (ORDER BY col) FROM VALUES (1) AS tab(col)": "does not take WITHIN GROUP",
		"SELECT stddev(col) FROM VALUES (true) AS tab(col)":                       "needs numbers",
		"SELECT count(col) IGNORE NULLS FROM VALUES (1) AS tab(col)":              "does not take IGNORE NULLS",
	} {
		_, err := run(t, q, r)
		require.Error(t, err, q)
		require.Contains(t, err.Error(), want, q)
	}
}
