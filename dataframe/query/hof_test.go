package query_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sluicedata/sluice/dataframe"

	"github.com/stretchr/testify/require"
)

// Spark 3.5's answers from its golden file higher-order-functions.sql.out
// (the same with ANSI mode on or off), over its table `nested`, printed as
// CAST(… AS STRING) prints them; the other cases follow Spark's documented
// examples (docs/sql-functions.md).

const nested = `WITH nested AS (SELECT * FROM VALUES
  (1, array(32, 97), array(array(12, 99), array(123, 42), array(1))),
  (2, array(77, -76), array(array(6, 96, 65), array(-1, -2))),
  (3, array(12), array(array(17)))
  AS t(x, ys, zs)) `

const nestedMaps = `WITH nested AS (SELECT * FROM VALUES
  (1, map(1, 1, 2, 2, 3, 3)),
  (2, map(4, 4, 5, 5, 6, 6))
  AS t(x, ys)) `

func TestHigherOrderFunctions(t *testing.T) {
	t.Parallel()
	r := testTables(t)
	check(t, r, []qcase{
		{q: nested + "select transform(zs, z -> z) as v from nested ORDER BY x", schema: "struct<v:array<array<int>>>",
			rows: []string{`[[12, 99], [123, 42], [1]]`, `[[6, 96, 65], [-1, -2]]`, `[[17]]`}},
		{q: nested + "select transform(ys, y -> y * y) as v from nested ORDER BY x", schema: "struct<v:array<int>>",
			rows: []string{`[1024, 9409]`, `[5929, 5776]`, `[144]`}},
		{q: nested + "select transform(ys, (y, i) -> y + i) as v from nested ORDER BY x", rows: []string{`[32, 98]`, `[77, -75]`, `[12]`}},
		{q: nested + "select transform(zs, z -> concat(ys, z)) as v from nested ORDER BY x",
			rows: []string{`[[32, 97, 12, 99], [32, 97, 123, 42], [32, 97, 1]]`, `[[77, -76, 6, 96, 65], [77, -76, -1, -2]]`, `[[12, 17]]`}},
		{q: nested + "select transform(ys, 0) as v from nested ORDER BY x", rows: []string{`[0, 0]`, `[0, 0]`, `[0]`}},
		{q: "select transform(cast(null as array<int>), x -> x + 1) as v", schema: "struct<v:array<int>>", rows: []string{"NULL"}},
		{q: nested + "select filter(ys, y -> y > 30) as v from nested ORDER BY x", rows: []string{`[32, 97]`, `[77]`, `[]`}},
		{q: "select filter(cast(null as array<int>), y -> true) as v", rows: []string{"NULL"}},
		{q: nested + "select transform(zs, z -> filter(z, zz -> zz > 50)) as v from nested ORDER BY x",
			rows: []string{`[[99], [123], []]`, `[[96, 65], []]`, `[[]]`}},
		{q: nested + "select aggregate(ys, 0, (y, a) -> y + a + x) as v from nested ORDER BY x", schema: "struct<v:int>",
			rows: []string{"131", "5", "15"}},
		{q: nested + "select aggregate(ys, (0 as sum, 0 as n), (acc, x) -> (acc.sum + x, acc.n + 1), acc -> acc.sum / acc.n) as v from nested ORDER BY x",
			schema: "struct<v:double>", rows: []string{"64.5", "0.5", "12.0"}},
		{q: nested + "select transform(zs, z -> aggregate(z, 1, (acc, val) -> acc * val * size(z))) as v from nested ORDER BY x",
			rows: []string{`[4752, 20664, 1]`, `[1010880, 8]`, `[17]`}},
		{q: "select aggregate(cast(null as array<int>), 0, (a, y) -> a + y + 1, a -> a + 2) as v", rows: []string{"NULL"}},
		{q: nested + "select exists(ys, y -> y > 30) as v from nested ORDER BY x", schema: "struct<v:boolean>", rows: []string{"true", "true", "false"}},
		{q: "select exists(cast(null as array<int>), y -> y > 30) as v", rows: []string{"NULL"}},
		{q: nested + "select zip_with(ys, zs, (a, b) -> a + size(b)) as v from nested ORDER BY x", rows: []string{`[34, 99, null]`, `[80, -74]`, `[13]`}},
		{q: "select zip_with(array('a', 'b', 'c'), array('d', 'e', 'f'), (x, y) -> concat(x, y)) as v", rows: []string{`[ad, be, cf]`}},
		{q: "select zip_with(array('a'), array('d', null, 'f'), (x, y) -> coalesce(x, y)) as v", rows: []string{`[a, null, f]`}},
		{q: nestedMaps + "select transform_keys(ys, (k, v) -> k) as v from nested ORDER BY x", schema: "struct<v:map<int,int>>",
			rows: []string{`{1 -> 1, 2 -> 2, 3 -> 3}`, `{4 -> 4, 5 -> 5, 6 -> 6}`}},
		{q: nestedMaps + "select transform_keys(ys, (k, v) -> k + 1) as v from nested ORDER BY x", rows: []string{`{2 -> 1, 3 -> 2, 4 -> 3}`, `{5 -> 4, 6 -> 5, 7 -> 6}`}},
		{q: nestedMaps + "select transform_keys(ys, (k, v) -> k + v) as v from nested ORDER BY x", rows: []string{`{2 -> 1, 4 -> 2, 6 -> 3}`, `{8 -> 4, 10 -> 5, 12 -> 6}`}},
		{q: nestedMaps + "select transform_values(ys, (k, v) -> v) as v from nested ORDER BY x", rows: []string{`{1 -> 1, 2 -> 2, 3 -> 3}`, `{4 -> 4, 5 -> 5, 6 -> 6}`}},
		{q: nestedMaps + "select transform_values(ys, (k, v) -> v + 1) as v from nested ORDER BY x", rows: []string{`{1 -> 2, 2 -> 3, 3 -> 4}`, `{4 -> 5, 5 -> 6, 6 -> 7}`}},
		{q: nestedMaps + "select transform_values(ys, (k, v) -> k + v) as v from nested ORDER BY x", rows: []string{`{1 -> 2, 2 -> 4, 3 -> 6}`, `{4 -> 8, 5 -> 10, 6 -> 12}`}},
		{q: "select transform(ys, all -> all * all) as v from values (array(32, 97)) as t(ys)", rows: []string{`[1024, 9409]`}},
		{q: "select transform(ys, (all, i) -> all + i) as v from values (array(32, 97)) as t(ys)", rows: []string{`[32, 98]`}},
		{q: "select aggregate(array('a', ''), array(array('')), (acc, x) -> array(array(x)))",
			schema: "struct<aggregate(array(a, ), array(array()), lambdafunction(array(array(namedlambdavariable())), namedlambdavariable(), namedlambdavariable()), lambdafunction(namedlambdavariable(), namedlambdavariable())):array<array<string>>>",
			rows:   []string{`[[]]`}},
		// Spark's documentation (functions.html).
		{q: "SELECT transform(array(1, 2, 3), x -> x + 1)", schema: "struct<transform(array(1, 2, 3), lambdafunction((namedlambdavariable() + 1), namedlambdavariable())):array<int>>",
			rows: []string{`[2, 3, 4]`}},
		{q: "SELECT filter(array(0, 2, 3), (x, i) -> x > i)", rows: []string{`[2, 3]`}},
		{q: "SELECT filter(array(0, null, 2, 3, null), x -> x IS NOT NULL)", rows: []string{`[0, 2, 3]`}},
		{q: "SELECT exists(array(1, null, 3), x -> x % 2 == 0), exists(array(0, null, 2, 3, null), x -> x IS NULL), exists(array(1, 2, 3), x -> x % 2 == 0)",
			rows: []string{"NULL\ttrue\ttrue"}},
		{q: "SELECT forall(array(1, 2, 3), x -> x % 2 == 0), forall(array(2, 4, 8), x -> x % 2 == 0), forall(array(1, null, 3), x -> x % 2 == 0), forall(array(2, null, 8), x -> x % 2 == 0)",
			rows: []string{"false\ttrue\tfalse\tNULL"}},
		{q: "SELECT reduce(array(1, 2, 3), 0, (acc, x) -> acc + x), reduce(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)", rows: []string{"6\t60"}},
		{q: "SELECT zip_with(array(1, 2), array(3, 4), (x, y) -> x + y)", rows: []string{`[4, 6]`}},
		{q: "SELECT map_filter(map(1, 0, 2, 2, 3, -1), (k, v) -> k > v)", rows: []string{`{1 -> 0, 3 -> -1}`}},
		{q: "SELECT map_zip_with(map(1, 'a', 2, 'b'), map(1, 'x', 2, 'y'), (k, v1, v2) -> concat(v1, v2))", rows: []string{`{1 -> ax, 2 -> by}`}},
		{q: "SELECT map_zip_with(map(1, 'a', 2, 'b'), map(3, 'x', 1, 'y'), (k, v1, v2) -> coalesce(v1, '') || coalesce(v2, ''))",
			rows: []string{`{1 -> ay, 2 -> b, 3 -> x}`}},
		{q: "SELECT array_sort(array(5, 6, 1), (left, right) -> case when left < right then -1 when left > right then 1 else 0 end)", rows: []string{`[1, 5, 6]`}},
		{q: "SELECT array_sort(array('bc', 'ab', 'dc'), (left, right) -> case when left is null and right is null then 0 when left is null then -1 when right is null then 1 when left < right then 1 when left > right then -1 else 0 end)",
			rows: []string{`[dc, bc, ab]`}},
		// Outer columns, nested lambdas, shadowing, a lambda over an outer
		// lambda's variable.
		{q: "SELECT name, transform(tags, t -> concat(name, ':', t)) FROM emp ORDER BY name",
			rows: []string{`ann	[ann:a, ann:b]`, "bob\t[]", `cy	[cy:c]`, "dee\tNULL"}},
		{q: "SELECT transform(array(1, 2), name -> name * 10) FROM emp WHERE name = 'ann'", rows: []string{`[10, 20]`}},
		{q: "SELECT transform(array(1, 2), x -> transform(array(10, 20), y -> x + y))", rows: []string{`[[11, 21], [12, 22]]`}},
		{q: "SELECT transform(array(1, 2), x -> transform(array(10, 20), x -> x + 1))", rows: []string{`[[11, 21], [11, 21]]`}},
		{q: "SELECT aggregate(array(1, 2, 3), 0L, (acc, x) -> acc + x) + 1", rows: []string{"7"}},
		{q: "SELECT dept, sum(size(filter(tags, t -> t <> 'b'))) FROM emp GROUP BY dept ORDER BY dept", rows: []string{"NULL\t-1", "1\t1", "2\t1"}}, // size(NULL) is -1,
	})
	for _, c := range []struct{ q, want string }{
		{"select upper(x -> x) as v", "a lambda function is only allowed as an argument of a higher-order function"},
		{"SELECT transform(array(1), (x, y, z) -> x)", "the lambda function has 3 argument(s), transform expects 1 or 2"},
		{"SELECT exists(array(1), (x, i) -> x > i)", "expects 1"},
		{"SELECT transform(array(1), (x, x) -> x)", "distinct names"},
		{"SELECT filter(array(1), x -> x + 1)", "must give a boolean"},
		{"SELECT transform(1, x -> x)", "argument 1 must be an array"},
		{"SELECT aggregate(array(1L, 2L), 0, (acc, x) -> acc + x)", "the merge function gives long, the initial value is integer"},
		{"SELECT transform_keys(map(1, 1, 2, 2), (k, v) -> 0)", "duplicate map key 0"},
		{"SELECT array_sort(array(1, 2), (l, r) -> CAST(NULL AS INT))", "the comparator gave NULL"},
		{"SELECT transform(array(1), x -> max(x))", "not allowed in a lambda function"},
		{"SELECT transfrom(array(1), x -> x)", "did you mean transform?"},
	} {
		_, err := run(t, c.q, r)
		require.Error(t, err, c.q)
		require.Contains(t, err.Error(), c.want, c.q)
	}
}

// TestHigherOrderFunctionsLong checks the batch paths over rows of many
// elements: aggregate steps through the longest row, array_sort sorts a
// long row one comparison at a time.
func TestHigherOrderFunctionsLong(t *testing.T) {
	t.Parallel()
	nums := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(i + 1)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	r := tables(map[string]*dataframe.Frame{"t": frame(t, `{"id":1,"xs":`+nums(1000)+`}
{"id":2,"xs":[1]}
{"id":3,"xs":`+nums(300)+`}
`)})
	check(t, r, []qcase{
		{q: "SELECT id, aggregate(xs, 0L, (acc, x) -> acc + x) FROM t ORDER BY id", rows: []string{"1\t500500", "2\t1", "3\t45150"}},
		{q: "SELECT id, array_sort(xs, (l, r) -> CASE WHEN l > r THEN -1 WHEN l < r THEN 1 ELSE 0 END)[0] FROM t ORDER BY id", rows: []string{"1\t1000", "2\t1", "3\t300"}},
	})
}
