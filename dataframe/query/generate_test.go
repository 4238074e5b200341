package query_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// Spark 3.5's answers from its golden file generators.sql.out (testData
// below is its table; its struct(…) is named_struct here) and its
// documentation of LATERAL VIEW.

const testData = `WITH testData AS (SELECT * FROM VALUES
  (1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2), (null, 1), (3, null), (null, null) AS testData(a, b)) `

func TestGenerators(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	sorted := []qcase{
		{q: testData + "SELECT explode(array(a, b)) AS elem FROM testData", schema: "struct<elem:int>",
			rows: []string{"1", "1", "1", "1", "1", "1", "2", "2", "2", "2", "2", "3", "3", "3", "NULL", "NULL", "NULL", "NULL"}},
		{q: testData + "SELECT explode(array(a, b)) AS elem, 'Spark' FROM testData WHERE a = 3", schema: "struct<elem:int,Spark:string>",
			rows: []string{"1\tSpark", "2\tSpark", "3\tSpark", "3\tSpark", "3\tSpark", "NULL\tSpark"}},
		{q: "SELECT explode(map(1, 'a', 2, 'b'))", schema: "struct<key:int,value:string>", rows: []string{"1\ta", "2\tb"}},
		{q: "SELECT explode_outer(map(1, 'a', 2, 'b'))", schema: "struct<key:int,value:string>", rows: []string{"1\ta", "2\tb"}},
		{q: "SELECT explode(cast (null as array<int>))", schema: "struct<col:int>", rows: nil},
		{q: "SELECT explode_outer(cast (null as array<int>))", schema: "struct<col:int>", rows: []string{"NULL"}},
		{q: testData + "SELECT posexplode(array(a, b)) AS (elem, elem2) FROM testData WHERE b = 2", schema: "struct<elem:int,elem2:int>",
			rows: []string{"0\t1", "0\t2", "0\t3", "1\t2", "1\t2", "1\t2"}},
		{q: "SELECT posexplode(map(1, 'a', 2, 'b'))", schema: "struct<pos:int,key:int,value:string>", rows: []string{"0\t1\ta", "1\t2\tb"}},
		{q: "SELECT posexplode(cast (null as array<int>))", schema: "struct<pos:int,col:int>", rows: nil},
		{q: "SELECT posexplode_outer(cast (null as array<int>))", schema: "struct<pos:int,col:int>", rows: []string{"NULL\tNULL"}},
		{q: "SELECT inline(array(named_struct('col1', 1, 'col2', 'a')))", schema: "struct<col1:int,col2:string>", rows: []string{"1\ta"}},
		{q: testData + "SELECT inline(array(named_struct('a', a, 'col2', 'a'), named_struct('a', a, 'col2', 'b'))) FROM testData WHERE b = 1",
			schema: "struct<a:int,col2:string>", rows: []string{"1\ta", "1\tb", "2\ta", "2\tb", "3\ta", "3\tb", "NULL\ta", "NULL\tb"}},
		{q: "SELECT inline_outer(cast(null as array<struct<x:int,y:string>>))", schema: "struct<x:int,y:string>", rows: []string{"NULL\tNULL"}},
		{q: "SELECT inline(array(named_struct('x', 1), null))", rows: []string{"1", "NULL"}},
		{q: "select stack(1, 1, 2, 3)", schema: "struct<col0:int,col1:int,col2:int>", rows: []string{"1\t2\t3"}},
		{q: "select stack(2, 1, 1.1, 'a', 2, 2.2, 'b')", schema: "struct<col0:int,col1:decimal(2,1),col2:string>", rows: []string{"1\t1.1\ta", "2\t2.2\tb"}},
		{q: "select stack(2, 1, 1.1, null, 2, null, 'b')", schema: "struct<col0:int,col1:decimal(2,1),col2:string>", rows: []string{"1\t1.1\tNULL", "2\tNULL\tb"}},
		{q: "SELECT stack(2, 1, 2, 3)", schema: "struct<col0:int,col1:int>", rows: []string{"1\t2", "3\tNULL"}},
		// LATERAL VIEW [OUTER], every generator; other columns kept.
		{q: "SELECT name, t.k, t.v FROM emp LATERAL VIEW explode(map('x', dept, 'y', 2)) t AS k, v WHERE name = 'ann'",
			schema: "struct<name:string,k:string,v:bigint>", rows: []string{"ann\tx\t1", "ann\ty\t2"}},
		{q: "SELECT name, tag FROM emp LATERAL VIEW OUTER explode(tags) t AS tag", rows: []string{"ann\ta", "ann\tb", "bob\tNULL", "cy\tc", "dee\tNULL"}},
		{q: "SELECT name, p, tag FROM emp LATERAL VIEW posexplode(tags) t AS p, tag", rows: []string{"ann\t0\ta", "ann\t1\tb", "cy\t0\tc"}},
		{q: "SELECT name, x, y FROM emp LATERAL VIEW inline(array(named_struct('x', dept, 'y', name))) t WHERE dept = 2", rows: []string{"cy\t2\tcy"}},
		{q: "SELECT name, col0 FROM emp LATERAL VIEW stack(2, dept, dept * 10) s WHERE dept = 2", rows: []string{"cy\t2", "cy\t20"}},
		{q: "SELECT name, t.col0, u.c FROM emp LATERAL VIEW stack(1, sal) t LATERAL VIEW explode(tags) u AS c WHERE name = 'ann'",
			rows: []string{"ann\t100.0\ta", "ann\t100.0\tb"}},
		{q: "SELECT name, explode(tags) FROM emp", schema: "struct<name:string,col:string>", rows: []string{"ann\ta", "ann\tb", "cy\tc"}},
	}
	for _, c := range sorted {
		res, err := run(t, c.q, r)
		require.NoError(t, err, c.q)
		if c.schema != "" {
			require.Equal(t, c.schema, res.schema, c.q)
		}
		got := append([]string(nil), res.rows...)
		want := append([]string(nil), c.rows...)
		sort.Strings(got)
		sort.Strings(want)
		require.Equal(t, want, got, c.q)
	}
	for _, c := range []struct{ q, want string }{
		{"SELECT explode(1)", "the argument is integer, not an array or a map"},
		{"SELECT explode(null)", "not an array or a map"},
		{testData + "SELECT posexplode(array(a, b)) AS elem FROM testData", "UDTF_ALIAS_NUMBER_MISMATCH"},
		{"SELECT posexplode(array(1, 2)) AS (a, b, c)", "gives 2 column(s), the aliases name 3"},
		{"SELECT inline(1)", "not an array of structs"},
		{"SELECT inline(array(1, 2))", "not an array of structs"},
		{"SELECT inline(named_struct('a', 1))", "not an array of structs"},
		{"select stack()", "stack takes the number of rows and at least one value"},
		{"select stack(2, explode(array(1, 2, 3)))", "explode is only allowed as a select item or in LATERAL VIEW"},
		{"select stack(2, 1, 'a')", "column col0 has values of types integer and string"},
		{"select stack(0, 1)", "the number of rows must be a constant integer of 1 or more"},
		{"SELECT explode(array(1)), explode(array(2))", "only one generator is allowed in a select list"},
		{"SELECT explode(array(1)) + 1", "a generator inside an expression is not supported"},
		{"SELECT explode(collect_list(name)) FROM emp", "a generator over an aggregate; aggregate in a subquery"},
	} {
		_, err := run(t, c.q, r)
		require.Error(t, err, c.q)
		require.Contains(t, err.Error(), c.want, c.q)
	}
}
