package catalog_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/sluicedata/sluice/dataframe/query"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func runSQL(t *testing.T, text string, frames map[string]*dataframe.Frame) (*dataframe.Frame, error) {
	t.Helper()
	st, err := sqlparse.ParseOne(text)
	if err != nil {
		return nil, err
	}
	return catalog.QueryFrames(context.Background(), nil, st.(*sqlparse.Select).Query, frames)
}

func ndjson(t *testing.T, s string) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.ReadNDJSON([]byte(s), jsonframe.Options{})
	require.NoError(t, err)
	return f
}

func queryJSON(t *testing.T, f *dataframe.Frame) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, fileio.WriteNDJSON(&b, f))
	return b.String()
}

// Expected results are Spark 3.5's for the same data and query.
func TestQueryEngine(t *testing.T) {
	t.Parallel()
	emp := ndjson(t, `{"name":"ann","dept":1,"sal":100.0,"tags":["a","b"]}
{"name":"bob","dept":1,"sal":50.0,"tags":[]}
{"name":"cy","dept":2,"sal":70.0,"tags":["c"]}
{"name":"dee","dept":null,"sal":null,"tags":null}
`)
	defer emp.Release()
	depts := ndjson(t, `{"id":1,"title":"eng"}
{"id":3,"title":"ops"}
`)
	defer depts.Release()
	frames := map[string]*dataframe.Frame{"emp": emp, "depts": depts}
	for _, tc := range []struct{ q, want string }{
		{"SELECT dept, count(*) AS n, sum(sal), avg(sal) FROM emp GROUP BY dept ORDER BY 2 DESC, dept",
			`{"dept":1,"n":2,"sum(sal)":150.0,"avg(sal)":75.0}` + "\n" + `{"dept":null,"n":1,"sum(sal)":null,"avg(sal)":null}` + "\n" + `{"dept":2,"n":1,"sum(sal)":70.0,"avg(sal)":70.0}` + "\n"},
		{"SELECT count(*), count(dept), count(DISTINCT dept), min(name), max(sal) FROM emp",
			`{"count(1)":4,"count(dept)":3,"count(DISTINCT dept)":2,"min(name)":"ann","max(sal)":100.0}` + "\n"},
		{"SELECT name FROM emp WHERE name LIKE '_o%' OR dept IN (2) ORDER BY name DESC",
			`{"name":"cy"}` + "\n" + `{"name":"bob"}` + "\n"},
		{"SELECT e.name, d.title FROM emp e LEFT JOIN depts d ON e.dept = d.id ORDER BY e.name",
			`{"name":"ann","title":"eng"}` + "\n" + `{"name":"bob","title":"eng"}` + "\n" + `{"name":"cy","title":null}` + "\n" + `{"name":"dee","title":null}` + "\n"},
		{"SELECT name, t FROM emp LATERAL VIEW explode(tags) x AS t",
			`{"name":"ann","t":"a"}` + "\n" + `{"name":"ann","t":"b"}` + "\n" + `{"name":"cy","t":"c"}` + "\n"},
		{"SELECT name, sal / 0 AS z, sal % 30 AS m, CASE WHEN sal > 60 THEN 'hi' ELSE 'lo' END AS b FROM emp ORDER BY sal DESC LIMIT 2",
			`{"name":"ann","z":null,"m":10.0,"b":"hi"}` + "\n" + `{"name":"cy","z":null,"m":10.0,"b":"hi"}` + "\n"},
		{"WITH d AS (SELECT DISTINCT dept FROM emp WHERE dept IS NOT NULL) SELECT dept FROM d UNION ALL SELECT 9 ORDER BY dept",
			`{"dept":1}` + "\n" + `{"dept":2}` + "\n" + `{"dept":9}` + "\n"},
		{"SELECT name, tags[0] AS first FROM emp ORDER BY name NULLS FIRST LIMIT 2 OFFSET 1",
			`{"name":"bob","first":null}` + "\n" + `{"name":"cy","first":"c"}` + "\n"},
	} {
		f, err := runSQL(t, tc.q, frames)
		require.NoError(t, err, tc.q)
		require.Equal(t, tc.want, queryJSON(t, f), tc.q)
		f.Release()
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT nme FROM emp", "line 1, column 8: unknown column nme (did you mean name?)"},
		{"SELECT * FROM emps", "line 1, column 15: unknown table emps (did you mean emp?)"},
		{"SELECT counte(*) FROM emp", "line 1, column 8: unknown function counte (did you mean count?)"},
		{"SELECT name, count(*) FROM emp GROUP BY dept", "line 1, column 8: column name is neither in GROUP BY nor inside an aggregate function"},
		{"SELECT name FROM emp WHERE sum(sal) > 1", "line 1, column 28: aggregate function sum is not allowed in WHERE"},
	} {
		_, err := runSQL(t, tc.q, frames)
		require.Error(t, err, tc.q)
		require.Equal(t, tc.want, err.Error(), tc.q)
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT a FROM t PIVOT (sum(a) FOR b IN (1))", "PIVOT is not supported"},
		{"SELECT a FROM t QUALIFY rank() OVER (ORDER BY a) = 1", "QUALIFY is not supported"},
		{"SELECT a FROM t NATURAL JOIN u USING (a)", "a NATURAL JOIN takes no USING list"},
	} {
		_, err := sqlparse.ParseOne(tc.q)
		require.ErrorContains(t, err, tc.want, tc.q)
	}
}

// A query over a Parquet table reads only the columns it names; count(*)
// still counts every row, and a mistyped column is named with the whole
// table's columns as candidates.
func TestQueryParquetColumns(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	dir := t.TempDir()
	f := ndjson(t, `{"k":1,"s":"a","x":1.5}
{"k":2,"s":"b","x":2.5}
{"k":1,"s":"c","x":null}
`)
	defer f.Release()
	path := dir + "/t.parquet"
	require.NoError(t, fileio.WriteFile(context.Background(), path, f, fileio.FileOptions{}))
	exec(t, s, "CREATE TABLE p.t TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+path+"')")
	require.Equal(t, []string{`{"count(1)":3}`}, exec(t, s, "SELECT count(*) FROM p.t"))
	require.Equal(t, []string{`{"k":1,"n":2,"sx":1.5}`, `{"k":2,"n":1,"sx":2.5}`}, exec(t, s, "SELECT k, count(*) AS n, sum(x) AS sx FROM p.t GROUP BY k ORDER BY k"))
	_, err := s.ExecuteBatch(context.Background(), "SELECT kk FROM p.t")
	require.EqualError(t, err, "statement 1: line 1, column 8: unknown column kk")
}

func TestTrimForms(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"SELECT trim('  a  ') AS r":                    `{"r":"a"}`,
		"SELECT TRIM(BOTH 'x' FROM 'xxaxx') AS r":      `{"r":"a"}`,
		"SELECT TRIM(LEADING 'x' FROM 'xxaxx') AS r":   `{"r":"axx"}`,
		"SELECT TRIM(TRAILING FROM '  a  ') AS r":      `{"r":"  a"}`,
		"SELECT TRIM('x' FROM 'xxaxx') AS r":           `{"r":"a"}`,
		"SELECT TRIM(BOTH upper('x') FROM 'XaX') AS r": `{"r":"a"}`,
	} {
		f, err := runSQL(t, q, nil)
		require.NoError(t, err, q)
		require.Equal(t, want+"\n", queryJSON(t, f), q)
		f.Release()
	}
}

// Every aggregate over a group of only NULLs, a mixed group, and no rows at
// all, with Spark's results.
func TestAggregateNulls(t *testing.T) {
	t.Parallel()
	tbl := ndjson(t, `{"g":"nulls","v":null,"s":null}
{"g":"nulls","v":null,"s":null}
{"g":"mixed","v":null,"s":null}
{"g":"mixed","v":3,"s":"b"}
{"g":"mixed","v":1,"s":"a"}
{"g":"mixed","v":3,"s":"b"}
`)
	defer tbl.Release()
	frames := map[string]*dataframe.Frame{"t": tbl}
	q := `SELECT g, count(*) AS n, count(v) AS c, count(DISTINCT v) AS cd, sum(v) AS s, sum(DISTINCT v) AS sd,
		avg(v) AS a, min(v) AS mi, max(s) AS mx, collect_list(v) AS cl, collect_set(s) AS cs,
		first(v) AS f, first(v, true) AS fi, last(s) AS l, last(s, true) AS li FROM t %s GROUP BY g ORDER BY g`
	f, err := runSQL(t, fmt.Sprintf(q, ""), frames)
	require.NoError(t, err)
	require.Equal(t, `{"g":"mixed","n":4,"c":3,"cd":2,"s":7,"sd":4,"a":2.3333333333333335,"mi":1,"mx":"b","cl":[3,1,3],"cs":["b","a"],"f":null,"fi":3,"l":"b","li":"b"}
{"g":"nulls","n":2,"c":0,"cd":0,"s":null,"sd":null,"a":null,"mi":null,"mx":null,"cl":[],"cs":[],"f":null,"fi":null,"l":null,"li":null}
`, queryJSON(t, f))
	f.Release()
	// No rows and no GROUP BY: one row; with GROUP BY: none.
	f, err = runSQL(t, "SELECT count(*) AS n, count(v) AS c, sum(v) AS s, avg(v) AS a, max(v) AS m, collect_list(v) AS cl FROM t WHERE g = 'none'", frames)
	require.NoError(t, err)
	require.Equal(t, `{"n":0,"c":0,"s":null,"a":null,"m":null,"cl":[]}`+"\n", queryJSON(t, f))
	f.Release()
	f, err = runSQL(t, fmt.Sprintf(q, "WHERE g = 'none'"), frames)
	require.NoError(t, err)
	require.Equal(t, int64(0), f.NumRows())
	f.Release()
}

// An aggregate over an inner join whose keys are build-side columns groups
// the build rows once (docs/sql.md#performance); the result, group order
// included, is the same as over the joined rows. `WHERE true` puts a
// filter between join and aggregate, which turns that off.
func TestQueryAggregateOverJoinByBuildColumns(t *testing.T) {
	t.Parallel()
	fact := ndjson(t, `{"k":1,"x":1.0}
{"k":2,"x":2.0}
{"k":3,"x":4.0}
{"k":null,"x":8.0}
{"k":1,"x":16.0}
{"k":9,"x":32.0}
{"k":4,"x":64.0}
`)
	defer fact.Release()
	dim := ndjson(t, `{"k":1,"name":"a","g":10}
{"k":2,"name":"b","g":10}
{"k":3,"name":null,"g":null}
{"k":null,"name":"n","g":30}
{"k":1,"name":"a2","g":10}
{"k":5,"name":"unmatched","g":50}
{"k":4,"name":"b","g":20}
`)
	defer dim.Release()
	frames := map[string]*dataframe.Frame{"fact": fact, "dim": dim}
	for _, q := range []string{
		"SELECT d.name, count(*) AS n, sum(f.x) AS sx FROM fact f JOIN dim d ON f.k = d.k %s GROUP BY d.name",
		"SELECT d.g, d.name, count(*) AS n, max(f.x) AS mx FROM fact f JOIN dim d ON f.k = d.k %s GROUP BY d.g, d.name",
		"SELECT d.g, collect_list(d.name) AS names FROM fact f JOIN dim d ON d.k = f.k %s GROUP BY d.g",
		"SELECT count(DISTINCT d.g) AS n FROM fact f JOIN dim d ON d.k = f.k %s GROUP BY d.name HAVING count(DISTINCT d.g) > 0",
	} {
		// The plans compare with the unfused operators in
		// dataframe/query's TestFusedOperatorsAgree.
		st, err := sqlparse.ParseOne(fmt.Sprintf(q, ""))
		require.NoError(t, err)
		plan, err := query.Compile(context.Background(), st.(*sqlparse.Select).Query, query.Tables{"fact": query.FrameTable(fact), "dim": query.FrameTable(dim)}, query.Options{})
		require.NoError(t, err)
		require.Contains(t, plan.Explain(), "(grouped by build row)")
	}
	got, err := runSQL(t, "SELECT d.name, count(*) AS n, sum(f.x) AS sx FROM fact f JOIN dim d ON f.k = d.k GROUP BY d.name", frames)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, `{"name":"a","n":2,"sx":17.0}
{"name":"a2","n":2,"sx":17.0}
{"name":"b","n":2,"sx":66.0}
{"name":null,"n":1,"sx":4.0}
`, queryJSON(t, got))
}

// Generated column names are Spark's: a column's name, and an expression's
// text with the table qualifiers of its columns dropped.
func TestQueryGeneratedNames(t *testing.T) {
	t.Parallel()
	fact := ndjson(t, `{"k":1,"x":2.0,"st":{"a":1}}`)
	defer fact.Release()
	dim := ndjson(t, `{"k":1,"name":"a"}`)
	defer dim.Release()
	frames := map[string]*dataframe.Frame{"fact": fact, "dim": dim}
	tests := []struct{ sql, want string }{
		{"SELECT sum(f.x) FROM fact f", "sum(x)"},
		{"SELECT sum(fact.x), max(x) FROM fact", "sum(x), max(x)"},
		{"SELECT f.x + 1, f.k FROM fact f", "(x + 1), k"},
		{"SELECT f.st.a, upper(d.name), count(*) FROM fact f JOIN dim d ON f.k = d.k GROUP BY f.st.a, upper(d.name)", "a, upper(name), count(1)"},
		{"SELECT coalesce(f.x, 0) AS c, f.k FROM fact f", "c, k"},
		{"SELECT f.k, count(*) FROM fact f GROUP BY f.k", "k, count(1)"},
	}
	for _, tt := range tests {
		got, err := runSQL(t, tt.sql, frames)
		require.NoError(t, err, tt.sql)
		require.Equal(t, tt.want, strings.Join(got.ColumnNames(), ", "), tt.sql)
		got.Release()
	}
}

// The documented regex examples work as written, with Spark's escapes.
func TestQueryStringEscapesEndToEnd(t *testing.T) {
	t.Parallel()
	got, err := runSQL(t, `SELECT regexp_extract('100-200', '(\\d+)-(\\d+)', 1) AS a, regexp_replace('100-200', '(\\d+)-(\\d+)', '$2-$1') AS b, 'a\tb' AS c, 'x' LIKE '\x' AS d, '50%' LIKE '50\%' AS e`, nil)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, `{"a":"100","b":"200-100","c":"a\tb","d":true,"e":true}`+"\n", queryJSON(t, got))
}

// HAVING may name a select-list alias, as in Spark; a name that is neither
// an alias nor grouped is still an error.
func TestQueryHavingAlias(t *testing.T) {
	t.Parallel()
	emp := ndjson(t, `{"dept":1,"sal":100.0}
{"dept":1,"sal":50.0}
{"dept":2,"sal":70.0}
`)
	defer emp.Release()
	frames := map[string]*dataframe.Frame{"emp": emp}
	got, err := runSQL(t, "SELECT dept, count(*) AS n, sum(sal) AS total FROM emp GROUP BY dept HAVING n > 1 AND total >= 150 ORDER BY dept", frames)
	require.NoError(t, err)
	require.Equal(t, `{"dept":1,"n":2,"total":150.0}`+"\n", queryJSON(t, got))
	got.Release()
	got, err = runSQL(t, "SELECT dept AS d, max(sal) AS m FROM emp GROUP BY dept HAVING d = 2", frames)
	require.NoError(t, err)
	require.Equal(t, `{"d":2,"m":70.0}`+"\n", queryJSON(t, got))
	got.Release()
	_, err = runSQL(t, "SELECT dept, count(*) AS n FROM emp GROUP BY dept HAVING sal > 1", frames)
	require.ErrorContains(t, err, "column sal is neither in GROUP BY nor inside an aggregate function")
}

// sum and avg of decimals are exact decimals of Spark's result types:
// sum(decimal(p,s)) is decimal(p+10,s), avg is decimal(p+4,s+4) rounded
// half up; an overflowing sum is NULL (ANSI off).
func TestQueryDecimalSumAvg(t *testing.T) {
	t.Parallel()
	f := ndjson(t, `{"g":1,"v":"1.10"}
{"g":1,"v":"2.25"}
{"g":1,"v":null}
{"g":2,"v":"-1"}
{"g":2,"v":"-2"}
{"g":2,"v":"-2"}
{"g":3,"v":null}
`)
	defer f.Release()
	frames := map[string]*dataframe.Frame{"t": f}
	got, err := runSQL(t, `SELECT g, sum(CAST(v AS decimal(10,2))) AS s, avg(CAST(v AS decimal(10,2))) AS a,
		sum(CAST(v AS decimal(3,0))) AS s0, avg(CAST(v AS decimal(3,0))) AS a0 FROM t GROUP BY g ORDER BY g`, frames)
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, "root\n |-- g: long (nullable = true)\n |-- s: decimal(20,2) (nullable = true)\n |-- a: decimal(14,6) (nullable = true)\n |-- s0: decimal(13,0) (nullable = true)\n |-- a0: decimal(7,4) (nullable = true)\n",
		dataframe.SchemaString(got.Schema()))
	require.Equal(t, `{"g":1,"s":3.35,"a":1.675000,"s0":3,"a0":1.5000}
{"g":2,"s":-5.00,"a":-1.666667,"s0":-5,"a0":-1.6667}
{"g":3,"s":null,"a":null,"s0":null,"a0":null}
`, queryJSON(t, got))

	big := ndjson(t, `{"v":"99999999999999999999999999999999999999"}
{"v":"1"}
`)
	defer big.Release()
	got2, err := runSQL(t, "SELECT sum(CAST(v AS decimal(38,0))) AS s, avg(CAST(v AS decimal(38,0))) AS a FROM t", map[string]*dataframe.Frame{"t": big})
	require.NoError(t, err)
	defer got2.Release()
	require.Equal(t, `{"s":null,"a":null}`+"\n", queryJSON(t, got2))
}
