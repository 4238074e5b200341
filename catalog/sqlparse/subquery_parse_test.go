package sqlparse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query"
)

// TestParseSubqueriesAndLambdas checks the shapes subqueries, rows of
// values and lambdas parse into.
func TestParseSubqueriesAndLambdas(t *testing.T) {
	t.Parallel()
	where := func(t *testing.T, text string) query.Expr {
		t.Helper()
		st, err := ParseOne(text)
		require.NoError(t, err)
		return st.(*Select).Query.(*query.Select).Where
	}
	item := func(t *testing.T, text string) query.Expr {
		t.Helper()
		st, err := ParseOne(text)
		require.NoError(t, err)
		return st.(*Select).Query.(*query.Select).Items[0].Expr
	}

	in := where(t, "SELECT a FROM t WHERE a NOT IN (SELECT b FROM u)").(*query.InSubquery)
	require.True(t, in.Not)
	require.Len(t, in.X, 1)

	multi := where(t, "SELECT a FROM t WHERE (a, b + 1) IN (SELECT c, d FROM u)").(*query.InSubquery)
	require.Len(t, multi.X, 2)
	require.IsType(t, &query.Binary{}, multi.X[1])

	set := where(t, "SELECT a FROM t WHERE a IN ((SELECT b FROM u) UNION (SELECT c FROM v))").(*query.InSubquery)
	require.IsType(t, &query.SetOp{}, set.Query)

	list := where(t, "SELECT a FROM t WHERE a IN (1, 2)").(*query.In)
	require.Len(t, list.List, 2)

	not := where(t, "SELECT a FROM t WHERE NOT EXISTS (WITH q AS (SELECT 1) SELECT * FROM q)").(*query.Unary)
	require.IsType(t, &query.Exists{}, not.X)

	scalar := item(t, "SELECT (SELECT max(b) FROM u) + 1 FROM t").(*query.Binary)
	require.IsType(t, &query.ScalarSubquery{}, scalar.L)

	hof := item(t, "SELECT exists(xs, x -> x > 1) FROM t").(*query.Call)
	require.Equal(t, "exists", hof.Name)
	lam := hof.Args[1].(*query.Lambda)
	require.Equal(t, []string{"x"}, lam.Params)

	agg := item(t, "SELECT aggregate(xs, 0, (acc, x) -> acc + x, acc -> acc * 10) FROM t").(*query.Call)
	require.Len(t, agg.Args, 4)
	require.Equal(t, []string{"acc", "x"}, agg.Args[2].(*query.Lambda).Params)
	require.Equal(t, "acc -> (acc * 10)", agg.Args[3].String())

	st, err := ParseOne("SELECT k, v FROM t LATERAL VIEW explode(m) x k, v LATERAL VIEW OUTER inline(a) y AS p, q WHERE k > 1")
	require.NoError(t, err)
	lv := st.(*Select).Query.(*query.Select).From.(*query.LateralView)
	require.Equal(t, []string{"p", "q"}, lv.Columns)
	require.True(t, lv.Outer)
	require.Equal(t, []string{"k", "v"}, lv.Input.(*query.LateralView).Columns)

	tuple := item(t, "SELECT (1, 'a') FROM t").(*query.Tuple)
	require.Len(t, tuple.Items, 2)

	for _, bad := range []string{
		"SELECT a FROM t WHERE a IN (SELECT b FROM u",
		"SELECT a FROM t WHERE EXISTS (SELECT 1",
		"SELECT a FROM t WHERE EXISTS",
		"SELECT transform(xs, (x, ) -> x) FROM t",
		"SELECT transform(xs, x ->) FROM t",
		"SELECT (1, 2 FROM t",
	} {
		_, err := Parse(bad)
		require.Error(t, err, bad)
	}
}
