package query_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// The expected answers below are Spark 3.5's (spark.sql.ansi.enabled=false)
// for the same data and query: its golden files where they have the case
// (the file is named), else its documented rules.

func testTables(t *testing.T) query.Tables {
	emp := frame(t, `{"name":"ann","dept":1,"sal":100.0,"tags":["a","b"]}
{"name":"bob","dept":1,"sal":50.0,"tags":[]}
{"name":"cy","dept":2,"sal":70.0,"tags":["c"]}
{"name":"dee","dept":null,"sal":null,"tags":null}
`)
	depts := frame(t, `{"id":1,"title":"eng"}
{"id":3,"title":"ops"}
`)
	// using-join.sql's nt1 and nt2.
	nt1 := frame(t, `{"k":"one","v1":1}
{"k":"two","v1":2}
{"k":"three","v1":3}
`)
	nt2 := frame(t, `{"k":"one","v2":1}
{"k":"two","v2":22}
{"k":"one","v2":5}
`)
	return tables(map[string]*dataframe.Frame{"emp": emp, "depts": depts, "nt1": nt1, "nt2": nt2})
}

type qcase struct {
	q      string
	schema string
	rows   []string
}

func check(t *testing.T, r query.Resolver, cases []qcase) {
	t.Helper()
	for _, c := range cases {
		res, err := run(t, c.q, r)
		require.NoError(t, err, c.q)
		if c.schema != "" {
			require.Equal(t, c.schema, res.schema, c.q)
		}
		require.Equal(t, c.rows, res.rows, c.q)
	}
}

// Spark's generated column names (ResolveAliases, toPrettySQL).
func TestGeneratedNames(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT 1, 'a', NULL, true", schema: "struct<1:int,a:string,NULL:void,true:boolean>", rows: []string{"1\ta\tNULL\ttrue"}},
		{q: "SELECT CAST('1.23' AS int), CAST(NULL AS LONG)", schema: "struct<CAST(1.23 AS INT):int,CAST(NULL AS BIGINT):bigint>", rows: []string{"1\tNULL"}},
		// bitwise.sql: a NULL cast to a nested type is named NULL.
		{q: "SELECT CAST(NULL AS ARRAY<ARRAY<INT>>), CAST(NULL AS MAP<INT, ARRAY<INT>>)", schema: "struct<NULL:array<array<int>>,NULL:map<int,array<int>>>", rows: []string{"NULL\tNULL"}},
		{q: "SELECT COUNT(dept), count(*), Sum(e.sal) FROM emp e", schema: "struct<count(dept):bigint,count(1):bigint,sum(sal):double>", rows: []string{"3\t4\t220.0"}},
		{q: "SELECT dept + 1, dept * dept, -dept FROM emp WHERE name = 'cy'", schema: "struct<(dept + 1):bigint,(dept * dept):bigint,(- dept):bigint>", rows: []string{"3\t4\t-2"}},
		{q: "SELECT CASE WHEN dept = 1 THEN 'x' END, CASE dept WHEN 2 THEN 'y' ELSE 'z' END FROM emp WHERE name = 'cy'",
			schema: "struct<CASE WHEN (dept = 1) THEN x END:string,CASE WHEN (dept = 2) THEN y ELSE z END:string>", rows: []string{"NULL\ty"}},
		{q: "SELECT name || '!', name ILIKE 'C%', name LIKE 'c%' FROM emp WHERE name = 'cy'",
			schema: "struct<concat(name, !):string,ilike(name, C%):boolean,name LIKE c%:boolean>", rows: []string{"cy!\ttrue\ttrue"}},
		{q: "SELECT CAST(dept AS STRING), upper(name), name IS NULL, dept IN (1, 2), dept <> 1 FROM emp WHERE name = 'cy'",
			schema: "struct<dept:string,upper(name):string,(name IS NULL):boolean,(dept IN (1, 2)):boolean,(NOT (dept = 1)):boolean>", rows: []string{"2\tCY\tfalse\ttrue\ttrue"}},
		{q: "SELECT dept BETWEEN 1 AND 2, NOT dept > 1 FROM emp WHERE name = 'cy'",
			schema: "struct<((dept >= 1) AND (dept <= 2)):boolean,(NOT (dept > 1)):boolean>", rows: []string{"true\tfalse"}},
		{q: "SELECT tags[0], count(DISTINCT dept) FROM emp GROUP BY tags[0] ORDER BY 1 LIMIT 1", schema: "struct<tags[0]:string,count(DISTINCT dept):bigint>", rows: []string{"NULL\t1"}},
	})
}

func TestCountNull(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT count(NULL), count(name), count(*) FROM emp", schema: "struct<count(NULL):bigint,count(name):bigint,count(1):bigint>", rows: []string{"0\t4\t4"}},
	})
}

// using-join.sql: USING gives the key of the side that has it; each side's
// own key stays reachable by its qualifier.
func TestUsingJoinKeys(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT * FROM nt1 LEFT JOIN nt2 USING (k) ORDER BY v1, v2", schema: "struct<k:string,v1:bigint,v2:bigint>",
			rows: []string{"one\t1\t1", "one\t1\t5", "two\t2\t22", "three\t3\tNULL"}},
		{q: "SELECT nt1.k, nt2.k FROM nt1 LEFT JOIN nt2 USING (k) ORDER BY nt1.k, nt2.k", schema: "struct<k:string,k:string>",
			rows: []string{"one\tone", "one\tone", "three\tNULL", "two\ttwo"}},
		{q: "SELECT k, nt1.k, nt2.k FROM nt1 RIGHT JOIN nt2 USING (k) ORDER BY v2",
			rows: []string{"one\tone\tone", "one\tone\tone", "two\ttwo\ttwo"}},
		{q: "SELECT k, nt1.k, nt2.k FROM nt1 FULL JOIN nt2 USING (k) WHERE nt2.k IS NULL",
			rows: []string{"three\tthree\tNULL"}},
		{q: "SELECT * FROM nt1 NATURAL JOIN nt2 WHERE v2 > 2 ORDER BY v2", schema: "struct<k:string,v1:bigint,v2:bigint>",
			rows: []string{"one\t1\t5", "two\t2\t22"}},
		{q: "SELECT * FROM nt1 LEFT SEMI JOIN nt2 USING (k) ORDER BY v1", schema: "struct<k:string,v1:bigint>", rows: []string{"one\t1", "two\t2"}},
		{q: "SELECT * FROM nt1 LEFT ANTI JOIN nt2 ON nt1.k = nt2.k", schema: "struct<k:string,v1:bigint>", rows: []string{"three\t3"}},
	})
}

// A LEFT SEMI/ANTI JOIN without a condition keeps a left row when the right
// side has any row (semi) or none (anti): against an empty right side, semi
// gives no rows and anti every left row, as Spark's PropagateEmptyRelation
// and its udf-join-empty-relation golden file (the same joins with ON) give.
func TestSemiAntiJoinWithoutCondition(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT * FROM nt1 LEFT SEMI JOIN (SELECT k FROM nt2 WHERE false) ORDER BY v1", schema: "struct<k:string,v1:bigint>"},
		{q: "SELECT * FROM nt1 LEFT ANTI JOIN (SELECT k FROM nt2 WHERE false) ORDER BY v1", schema: "struct<k:string,v1:bigint>",
			rows: []string{"one\t1", "two\t2", "three\t3"}},
		{q: "SELECT * FROM nt1 LEFT SEMI JOIN nt2 ORDER BY v1", schema: "struct<k:string,v1:bigint>",
			rows: []string{"one\t1", "two\t2", "three\t3"}},
		{q: "SELECT * FROM nt1 LEFT ANTI JOIN nt2 ORDER BY v1", schema: "struct<k:string,v1:bigint>"},
		{q: "SELECT * FROM (SELECT k FROM nt2 WHERE false) e LEFT ANTI JOIN nt1", schema: "struct<k:string>"},
	})
}

// count_min_sketch is Spark's CountMinSketchImpl serialization: version 1,
// total count, depth, width, the seed's multipliers, the table.
func TestCountMinSketch(t *testing.T) {
	t.Parallel()
	const head = "00000001" // version
	check(t, testTables(t), []qcase{
		// The empty sketch: no NULL for a group without values.
		{q: "SELECT hex(count_min_sketch(v1, 0.5d, 0.5d, 1)) FROM nt1 WHERE v1 > 9", schema: "struct<hex(count_min_sketch(v1, 0.5, 0.5, 1)):string>",
			rows: []string{head + "0000000000000000" + "00000001" + "00000004" + "000000005D8D6AB9" + strings.Repeat("0", 64)}},
	})
	// Strings: every row of the table counts each value once.
	res := mustRun(t, "SELECT hex(count_min_sketch(k, 0.1d, 0.9d, 7)), hex(count_min_sketch(CAST(k AS BINARY), 0.1d, 0.9d, 7)) FROM nt1", testTables(t))
	require.Len(t, res.rows, 1)
	cells := strings.Split(res.rows[0], "\t")
	require.Equal(t, cells[0], cells[1], "a string hashes as its UTF-8 bytes")
	b, err := hex.DecodeString(cells[0])
	require.NoError(t, err)
	depth, width := int(binary.BigEndian.Uint32(b[12:])), int(binary.BigEndian.Uint32(b[16:]))
	require.Equal(t, []int{4, 20}, []int{depth, width}) // ⌈−ln 0.1 / ln 2⌉, ⌈2/0.1⌉
	require.Equal(t, uint64(3), binary.BigEndian.Uint64(b[4:]))
	table := b[20+8*depth:]
	require.Len(t, table, 8*depth*width)
	for d := 0; d < depth; d++ {
		var sum uint64
		for w := 0; w < width; w++ {
			sum += binary.BigEndian.Uint64(table[8*(d*width+w):])
		}
		require.Equal(t, uint64(3), sum, "row %d", d)
	}
	// Its Murmur3 of bytes is Spark's hashUnsafeBytes, which hash() uses
	// with seed 42; "three" has a byte past its last whole word.
	res = mustRun(t, "SELECT k, hash(k) FROM nt1", testTables(t))
	for _, row := range res.rows {
		kv := strings.Split(row, "\t")
		require.Equal(t, kv[1], fmt.Sprint(int32(query.SparkMurmur3Bytes([]byte(kv[0]), 42))), kv[0])
	}
	for _, q := range []string{
		"SELECT count_min_sketch(v1, 0d, 0.5d, 1) FROM nt1",
		"SELECT count_min_sketch(v1, 0.5d, 1d, 1) FROM nt1",
		"SELECT count_min_sketch(v1, v1, 0.5d, 1) FROM nt1",
		"SELECT count_min_sketch(1.5d, 0.5d, 0.5d, 1) FROM nt1",
	} {
		_, err := run(t, q, testTables(t))
		require.Error(t, err, q)
	}
}

// SELECT * over a join keeps both same-named columns; t.* picks a side.
func TestStarOverJoin(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT * FROM nt1 JOIN nt2 ON nt1.k = nt2.k WHERE v2 = 22", schema: "struct<k:string,v1:bigint,k:string,v2:bigint>", rows: []string{"two\t2\ttwo\t22"}},
		{q: "SELECT nt2.*, nt1.v1 FROM nt1 JOIN nt2 ON nt1.k = nt2.k WHERE v2 = 22", schema: "struct<k:string,v2:bigint,v1:bigint>", rows: []string{"two\t22\t2"}},
		{q: "SELECT count(*) FROM nt1 JOIN nt2", rows: []string{"9"}},
	})
	_, err := run(t, "SELECT k FROM nt1 JOIN nt2 ON nt1.k = nt2.k", testTables(t))
	require.ErrorContains(t, err, "column k is ambiguous")
}

func TestSetOperations(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT dept FROM emp UNION SELECT id FROM depts ORDER BY 1", rows: []string{"NULL", "1", "2", "3"}},
		{q: "SELECT dept FROM emp INTERSECT SELECT id FROM depts", rows: []string{"1"}},
		{q: "SELECT dept FROM emp INTERSECT ALL SELECT dept FROM emp WHERE dept = 1", rows: []string{"1", "1"}},
		{q: "SELECT dept FROM emp EXCEPT SELECT id FROM depts ORDER BY 1", rows: []string{"NULL", "2"}},
		{q: "SELECT dept FROM emp EXCEPT ALL SELECT 1 ORDER BY 1", rows: []string{"NULL", "1", "2"}},
		// The UNION ALL with an aggregate and a literal row (once a panic).
		{q: "SELECT 1 AS x UNION ALL SELECT sum(1) FROM emp ORDER BY x", schema: "struct<x:bigint>", rows: []string{"1", "4"}},
		{q: "SELECT 'a' UNION SELECT 1 ORDER BY 1", schema: "struct<a:string>", rows: []string{"1", "a"}},
	})
	_, err := run(t, "SELECT true UNION SELECT 'a'", testTables(t))
	require.ErrorContains(t, err, "column 1 is boolean on one side and string on the other")
}

func TestOrderByAndLimit(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT name AS n FROM emp ORDER BY sal DESC NULLS FIRST LIMIT 2 OFFSET 1", rows: []string{"ann", "cy"}},
		{q: "SELECT name FROM emp ORDER BY length(name), name DESC LIMIT 1 + 1", rows: []string{"cy", "dee"}},
		{q: "SELECT dept, count(*) FROM emp GROUP BY dept ORDER BY count(*) DESC, dept", rows: []string{"1\t2", "NULL\t1", "2\t1"}},
		{q: "SELECT upper(name) u FROM emp ORDER BY u DESC LIMIT 1", rows: []string{"DEE"}},
		{q: "SELECT dept AS d, sum(sal) FROM emp GROUP BY dept ORDER BY d + 0 DESC", rows: []string{"2\t70.0", "1\t150.0", "NULL\tNULL"}},
	})
	for q, want := range map[string]string{
		"SELECT name FROM emp LIMIT -1":              "must be 0 or more",
		"SELECT name FROM emp LIMIT 1.5":             "must be an integer",
		"SELECT name FROM emp LIMIT dept":            "unknown column dept",
		"SELECT name FROM emp ORDER BY 3":            "ORDER BY position 3 is not in the select list (1 to 1)",
		"SELECT DISTINCT name FROM emp ORDER BY sal": "with SELECT DISTINCT the sort keys must be in the select list",
	} {
		_, err := run(t, q, testTables(t))
		require.ErrorContains(t, err, want, q)
	}
}

func TestGrouping(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT dept, count(*) AS n FROM emp GROUP BY dept HAVING n > 1", rows: []string{"1\t2"}},
		{q: "SELECT dept + 1 AS d, max(name) FROM emp GROUP BY dept + 1 ORDER BY 1", rows: []string{"NULL\tdee", "2\tbob", "3\tcy"}},
		{q: "SELECT e.dept, count(*) FROM emp e GROUP BY dept ORDER BY 1 LIMIT 1", rows: []string{"NULL\t1"}},
		{q: "SELECT count(*) FROM emp WHERE false", rows: []string{"0"}},
		{q: "SELECT count(*) FROM emp HAVING count(*) > 10", rows: nil},
	})
	_, err := run(t, "SELECT name, count(*) FROM emp GROUP BY dept", testTables(t))
	require.EqualError(t, err, "line 1, column 8: column name is neither in GROUP BY nor inside an aggregate function")
	_, err = run(t, "SELECT name FROM emp HAVING dept > 1", testTables(t))
	require.ErrorContains(t, err, "neither in GROUP BY nor inside an aggregate function")
}

func TestExplainShowsRewrites(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	plan, err := query.Compile(context.Background(), parse(t, "SELECT e.name FROM emp e, depts d WHERE e.dept = d.id AND d.title = 'eng' AND e.sal > 1"), r, query.Options{})
	require.NoError(t, err)
	require.Equal(t, `HashJoin INNER keys: dept = id
  Filter (sal > 1)
    Scan emp [dept, name, sal]
  Filter (title = eng)
    Scan depts
`, plan.Explain())
}

// The fused operators (an aggregate grouping a join's build rows, a top-N
// reading its sort keys first) answer as the plain ones do.
func TestFusedOperatorsAgree(t *testing.T) {
	t.Parallel()
	fact := frame(t, `{"k":1,"x":1.0,"s":"p"}
{"k":2,"x":2.0,"s":"q"}
{"k":3,"x":4.0,"s":"r"}
{"k":null,"x":8.0,"s":"s"}
{"k":1,"x":16.0,"s":"t"}
{"k":9,"x":32.0,"s":"u"}
{"k":4,"x":64.0,"s":"v"}
`)
	dim := frame(t, `{"k":1,"name":"a","g":10}
{"k":2,"name":"b","g":10}
{"k":3,"name":null,"g":null}
{"k":null,"name":"n","g":30}
{"k":1,"name":"a2","g":10}
{"k":5,"name":"unmatched","g":50}
{"k":4,"name":"b","g":20}
`)
	r := query.Tables{"fact": lateTable{query.FrameTable(fact), fact}, "dim": query.FrameTable(dim)}
	for q, fused := range map[string]string{
		"SELECT d.name, count(*) AS n, sum(f.x) AS sx FROM fact f JOIN dim d ON f.k = d.k GROUP BY d.name":                   "(grouped by build row)",
		"SELECT d.g, d.name, count(*) AS n, max(f.x) AS mx FROM fact f JOIN dim d ON f.k = d.k GROUP BY d.g, d.name":         "(grouped by build row)",
		"SELECT d.g, collect_list(d.name) AS names FROM fact f JOIN dim d ON d.k = f.k GROUP BY d.g":                         "(grouped by build row)",
		"SELECT count(DISTINCT d.g) AS n FROM fact f JOIN dim d ON d.k = f.k GROUP BY d.name HAVING count(DISTINCT d.g) > 0": "(grouped by build row)",
		"SELECT d.name, sum(f.x) AS sx FROM fact f JOIN dim d ON f.k = d.k AND f.x < d.g GROUP BY d.name":                    "(grouped by build row)",
		"SELECT d.name, count(*) AS n FROM fact f JOIN dim d ON f.k = d.k WHERE f.s <> 't' GROUP BY d.name":                  "(grouped by build row)",
		"SELECT k, s, x FROM fact ORDER BY x DESC LIMIT 3":                                                                   "(sort keys first)",
		"SELECT k, s, x * 2 FROM fact ORDER BY x * 2 LIMIT 2 OFFSET 1":                                                       "(sort keys first)",
	} {
		plan, err := query.Compile(context.Background(), parse(t, q), r, query.Options{})
		require.NoError(t, err, q)
		require.Contains(t, plan.Explain(), fused, q)
		plain, err := query.CompileUnrewritten(context.Background(), parse(t, q), r)
		require.NoError(t, err, q)
		require.NotContains(t, plain.Explain(), fused, q)
		a, err := plan.Frame(context.Background())
		require.NoError(t, err, q)
		b, err := plain.Frame(context.Background())
		require.NoError(t, err, q)
		require.Equal(t, rowsOf(b), rowsOf(a), q)
		a.Release()
		b.Release()
	}
}

// lateTable is a frame as a LateTable: it reads some columns, or some rows
// by position.
type lateTable struct {
	query.Table
	f *dataframe.Frame
}

func (l lateTable) OpenColumns(ctx context.Context, cols []string) (array.RecordReader, error) {
	var idx []int
	for i, fd := range l.f.Schema().Fields() {
		for _, c := range cols {
			if strings.EqualFold(c, fd.Name) {
				idx = append(idx, i)
			}
		}
	}
	f, err := dataframe.KeepColumns(l.f, idx)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return f.Stream(), nil
}

func (l lateTable) OpenRows(context.Context, []int64) (array.RecordReader, bool, error) {
	return nil, false, nil
}

// RowPositions is true: the late top-N tries OpenRows, which refuses, so
// the fallback (reading everything) is what these tests exercise.
func (l lateTable) RowPositions() bool { return true }

// The wrong answers and refusals issue 21 lists, one case each (the
// USING join and count(NULL) are above).
func TestIssueRegressions(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		// int UNION decimal(2,1) is decimal(11,1) (typeCoercion/widenSetOperationTypes).
		{q: "SELECT 1 AS a UNION SELECT 1.5 ORDER BY 1", schema: "struct<a:decimal(11,1)>", rows: []string{"1.0", "1.5"}},
		// Decimal arithmetic stays decimal (decimalArithmeticOperations).
		{q: "SELECT 10.3 * 3.0, 10.3000 * 3.0, 1.0 / 3, 7.5 % 2", schema: "struct<(10.3 * 3.0):decimal(6,2),(10.3000 * 3.0):decimal(9,5),(1.0 / 3):decimal(7,6),(7.5 % 2):decimal(2,1)>",
			rows: []string{"30.90\t30.90000\t0.333333\t1.5"}},
		// Overflow is NULL.
		{q: "SELECT 12345678901234567890.0 * 12345678901234567890.0", schema: "struct<(12345678901234567890.0 * 12345678901234567890.0):decimal(38,2)>", rows: []string{"NULL"}},
		// Spark's literals.
		{q: "SELECT 1Y, 1S, 1L, 1.5D, 1.5F, 1.5BD, X'0A', DATE '2016-03-12', 9223372036854775808",
			schema: "struct<1:tinyint,1:smallint,1:bigint,1.5:double,1.5:float,1.5:decimal(2,1),X'0A':binary,DATE '2016-03-12':date,9223372036854775808:decimal(19,0)>",
			rows:   []string{"1\t1\t1\t1.5\t1.5\t1.5\t\n\t2016-03-12\t9223372036854775808"}},
		{q: "WITH t(x) AS (SELECT 1) SELECT x FROM t", rows: []string{"1"}},
		{q: "SELECT a, b FROM (SELECT 1, 2) AS t(a, b)", rows: []string{"1\t2"}},
		{q: "SELECT * FROM VALUES (1, 'a'), (2, 'b') AS v(n, s) ORDER BY n DESC LIMIT 2 - 1", schema: "struct<n:int,s:string>", rows: []string{"2\tb"}},
		{q: "SELECT name || '-' FROM emp WHERE dept = 2", schema: "struct<concat(name, -):string>", rows: []string{"cy-"}},
		// A NULL of a type with void parts is a constant like any other.
		{q: "SELECT if(dept > 1, NULL, named_struct('a', NULL)), if(dept > 1, NULL, map(1, NULL)) FROM emp WHERE dept IS NOT NULL ORDER BY name",
			rows: []string{"{null}\t{1 -> null}", "{null}\t{1 -> null}", "NULL\tNULL"}},
		// struct() and arrays_zip name fields after named arguments.
		{q: "SELECT struct(name, dept), arrays_zip(tags, tags) FROM emp WHERE dept = 2",
			schema: "struct<struct(name, dept):struct<name:string,dept:long>,arrays_zip(tags, tags):array<struct<tags:string,tags:string>>>",
			rows:   []string{"{cy, 2}\t[{c, c}]"}},
		// rand() and uuid() are evaluated per row, never folded.
		{q: "SELECT count(DISTINCT rand()), count(DISTINCT uuid()), count(DISTINCT shuffle(array(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))) > 1 FROM emp",
			rows: []string{"4\t4\ttrue"}},
		{q: "SELECT equal_null(dept, 1) FROM emp WHERE name = 'ann'", schema: "struct<(dept <=> 1):boolean>", rows: []string{"true"}},
	})
	_, err := sqlparse.ParseOne("SELECT 1 FROM emp, depts WHERE DATE '2020-01-01x' IS NULL")
	require.ErrorContains(t, err, "'2020-01-01x' is not a valid DATE literal")
}

// Spark's implicit casts: comparisons, IN lists, CASE and set operations,
// arithmetic of mixed types.
func TestCoercion(t *testing.T) {
	t.Parallel()
	check(t, testTables(t), []qcase{
		{q: "SELECT '1.5' = 1, '1' = 1, 1 = 1.0, 1.5 = 1.50, 'a' < 'b'", rows: []string{"true\ttrue\ttrue\ttrue\ttrue"}},
		{q: "SELECT '1' IN (1, 2), 1 IN (1.0, 2), NULL IN (1), 2 IN (1, NULL), 1 IN (1, NULL)", rows: []string{"true\ttrue\tNULL\tNULL\ttrue"}},
		{q: "SELECT CASE WHEN true THEN 1 ELSE 2L END, CASE WHEN false THEN 1 ELSE 'x' END, coalesce(NULL, 2)",
			schema: "struct<CASE WHEN true THEN 1 ELSE 2 END:bigint,CASE WHEN false THEN 1 ELSE x END:string,coalesce(NULL, 2):int>", rows: []string{"1\tx\t2"}},
		{q: "SELECT 1 + 1L, 1Y + 1S, 1 + 1.5D, 1 + 1.5F, '2' + 1, 1 / 2, 5 % 3L",
			schema: "struct<(1 + 1):bigint,(1 + 1):smallint,(1 + 1.5):double,(1 + 1.5):float,(2 + 1):double,(1 / 2):double,(5 % 3):bigint>",
			rows:   []string{"2\t2\t2.5\t2.5\t3.0\t0.5\t2"}},
		{q: "SELECT DATE '2020-01-01' < TIMESTAMP '2020-01-01 00:00:01', DATE '2020-01-02' = '2020-01-02'", rows: []string{"true\ttrue"}},
		{q: "SELECT 5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 3, -8 >> 1, -8 >>> 28", schema: "struct<(5 & 3):int,(5 | 3):int,(5 ^ 3):int,~5:int,(1 << 3):int,(-8 >> 1):int,(-8 >>> 28):int>",
			rows: []string{"1\t7\t6\t-6\t8\t-4\t15"}},
	})
	for q, want := range map[string]string{
		"SELECT array(1) = 'a'":          "cannot compare array<integer> with string",
		"SELECT 1 - INTERVAL '2' SECOND": "adds only to a date, a timestamp or a string",
		"SELECT true UNION SELECT 1.5":   "column 1 is boolean on one side and decimal(2,1) on the other",
		"SELECT CAST(array(1) AS INT)":   "cannot cast array<integer> to integer",
		"SELECT 1 + true":                "+ needs numbers, got integer and boolean",
	} {
		_, err := run(t, q, testTables(t))
		require.ErrorContains(t, err, want, q)
	}
}

// A top-N gives the first n rows of the full (stable) sort, NULLs, NaN
// and ties included, batch after batch.
func TestTopNIsTheSortedPrefix(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 3000; i++ {
		x := fmt.Sprint(rng.Intn(50))
		switch rng.Intn(20) {
		case 0:
			x = "null"
		case 1:
			x = `"NaN"`
		}
		fmt.Fprintf(&b, `{"i":%d,"x":%s,"s":"%c"}`+"\n", i, x, 'a'+rune(rng.Intn(3)))
	}
	f, err := jsonframe.ReadNDJSON([]byte(b.String()), jsonframe.Options{})
	require.NoError(t, err)
	t.Cleanup(f.Release)
	r := query.Tables{"t": query.FrameTable(slicedFrame(t, f, 256))}
	for _, order := range []string{"CAST(x AS DOUBLE) DESC", "CAST(x AS DOUBLE)", "CAST(x AS DOUBLE) DESC NULLS FIRST", "s, CAST(x AS DOUBLE) DESC", "CAST(x AS BIGINT)"} {
		all := mustRun(t, "SELECT i FROM t ORDER BY "+order, r)
		for _, n := range []int{1, 7, 100} {
			top := mustRun(t, fmt.Sprintf("SELECT i FROM t ORDER BY %s LIMIT %d", order, n), r)
			require.Equal(t, all.rows[:n], top.rows, "ORDER BY %s LIMIT %d", order, n)
		}
	}
}

// slicedFrame is f in batches of n rows.
func slicedFrame(t testing.TB, f *dataframe.Frame, n int64) *dataframe.Frame {
	t.Helper()
	var recs []arrow.Record
	for _, rec := range f.Records() {
		for lo := int64(0); lo < rec.NumRows(); lo += n {
			recs = append(recs, rec.NewSlice(lo, min(lo+n, rec.NumRows())))
		}
	}
	out, err := dataframe.New(f.Schema(), recs...)
	require.NoError(t, err)
	t.Cleanup(out.Release)
	return out
}

// Spark's keyword forms and named struct fields, with the names and
// answers of its golden files (struct.sql, date.sql, bitwise.sql,
// string-functions.sql).
func TestSparkSyntaxForms(t *testing.T) {
	t.Parallel()
	st := frame(t, `{"id":1,"st":{"c":"gamma","d":"delta"}}
`)
	r := tables(map[string]*dataframe.Frame{"tbl_x": st})
	check(t, r, []qcase{
		{q: "SELECT STRUCT('alpha' AS A, 'beta' AS B) ST", rows: []string{"{alpha, beta}"}},
		{q: "SELECT ID, STRUCT(ST.*, CAST(ID AS STRING) AS E) NST FROM tbl_x", rows: []string{"1\t{gamma, delta, 1}"}},
		{q: "SELECT ID, STRUCT(ST.C as STC, ST.D as STD).STD FROM tbl_x", schema: "struct<id:bigint,struct(st.c AS STC, st.d AS STD).STD:string>", rows: []string{"1\tdelta"}},
		{q: "SELECT st.* FROM tbl_x", schema: "struct<c:string,d:string>", rows: []string{"gamma\tdelta"}},
		{q: "SELECT dateadd(HOUR, -1, timestamp'2022-02-25 01:02:03')", schema: "struct<timestampadd(HOUR, -1, TIMESTAMP '2022-02-25 01:02:03'):timestamp>",
			rows: []string{"2022-02-25 00:02:03"}},
		{q: "SELECT datediff(QUARTER, date'2022-02-25', date'2023-05-25')", schema: "struct<timestampdiff(QUARTER, DATE '2022-02-25', DATE '2023-05-25'):bigint>",
			rows: []string{"5"}},
		{q: "SELECT position('bar' IN 'foobarbar'), substring('Spark SQL' FROM 5 FOR 1), overlay('Spark SQL' PLACING '_' FROM 6)",
			schema: "struct<position(bar, foobarbar, 1):int,substring(Spark SQL, 5, 1):string,overlay(Spark SQL, _, 6, -1):string>",
			rows:   []string{"4\tk\tSpark_SQL"}},
		{q: "SELECT left('Spark SQL', 3), right('Spark SQL', 3), rlike('1a 2b 14m', '\\\\d+b'), regexp('1a', '(a)\\\\1?')",
			schema: "struct<left(Spark SQL, 3):string,right(Spark SQL, 3):string,RLIKE(1a 2b 14m, \\d+b):boolean,REGEXP(1a, (a)\\1?):boolean>",
			rows:   []string{"Spa\tSQL\ttrue\ttrue"}},
		{q: "SELECT bit_and(x), bit_or(x), bit_xor(x), bit_xor(DISTINCT x), bit_xor(CAST(x AS TINYINT)) FROM VALUES (1), (3), (3), (NULL) AS t(x)",
			schema: "struct<bit_and(x):int,bit_or(x):int,bit_xor(x):int,bit_xor(DISTINCT x):int,bit_xor(CAST(x AS TINYINT)):tinyint>",
			rows:   []string{"1\t3\t1\t2\t1"}},
		{q: "SELECT bit_xor(x) FROM VALUES (1) AS t(x) WHERE x > 1", rows: []string{"NULL"}},
	})
	for _, bad := range []string{
		"SELECT bit_xor(1.5)", // integral only
		"SELECT date_add('2011-11-11', id) FROM (SELECT '1' AS id)", // a string column of days
	} {
		_, err := run(t, bad, r)
		require.Error(t, err, bad)
	}
}

// TestErrorsWrap: an error a query reports keeps the error it comes from
// (the regular expression engine's syntax error is at the end of its chain).
func TestErrorsWrap(t *testing.T) {
	t.Parallel()
	_, err := run(t, "SELECT 'a' RLIKE '('", testTables(t))
	require.Error(t, err)
	var qe *query.Error
	require.ErrorAs(t, err, &qe)
	inner := err
	for errors.Unwrap(inner) != nil {
		inner = errors.Unwrap(inner)
	}
	require.NotSame(t, err, inner)
	require.Equal(t, "error parsing regexp: missing closing ) in `(`", inner.Error())
}

// TestSharedCTE: a WITH query calling rand() that is read twice gives both
// readers the same rows (cte.sql: 4, not 8); read once it is inlined.
func TestSharedCTE(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	check(t, r, []qcase{
		{q: "SELECT count(*) FROM (WITH q1(x) AS (SELECT random() FROM range(1, 5)) SELECT * FROM q1 UNION SELECT * FROM q1) ss", rows: []string{"4"}},
		{q: "WITH q AS (SELECT name, rand() AS r FROM emp) SELECT count(*) FROM q a JOIN q b ON a.r = b.r", rows: []string{"4"}},
		{q: "WITH q AS (SELECT rand() AS r FROM emp) SELECT count(*) FROM q WHERE r IN (SELECT r FROM q)", rows: []string{"4"}},
	})
	for q, shared := range map[string]bool{
		"WITH q AS (SELECT rand() AS r FROM emp) SELECT * FROM q UNION ALL SELECT * FROM q": true,
		"WITH q AS (SELECT rand() AS r FROM emp) SELECT * FROM q":                           false,
		"WITH q AS (SELECT sal AS r FROM emp) SELECT * FROM q UNION ALL SELECT * FROM q":    false,
	} {
		plan, err := query.Compile(context.Background(), parse(t, q), r, query.Options{})
		require.NoError(t, err, q)
		require.Equal(t, shared, strings.Contains(plan.Explain(), "Shared q"), q)
	}
}
