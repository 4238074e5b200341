package catalog_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// FuzzQuery parses, plans and runs arbitrary text over two small frames:
// never a panic (not even one the engine recovers as an internal error),
// and every parse or planning error has a position.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT dept, count(*), sum(sal) FROM emp GROUP BY dept HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 3",
		"SELECT e.name, d.title FROM emp e LEFT JOIN depts d ON e.dept = d.id WHERE e.sal BETWEEN 1 AND 100",
		"WITH x AS (SELECT DISTINCT dept FROM emp) SELECT * FROM x UNION SELECT id FROM depts",
		"SELECT name, t FROM emp LATERAL VIEW OUTER posexplode(tags) x AS p, t WHERE t LIKE 'a%' ESCAPE '!'",
		"SELECT CASE WHEN sal > 1 THEN 'a' ELSE NULL END, CAST(sal AS int), tags[0], name || '-' FROM emp",
		"SELECT upper(name), coalesce(sal, 0) / 0, sal % 3, -sal FROM emp WHERE name IN ('a', 'b') OR sal IS NULL",
		"SELECT count(DISTINCT dept), collect_set(name), first(sal, true) FROM emp",
		"SELECT * FROM emp NATURAL JOIN depts INTERSECT ALL SELECT * FROM VALUES (1, 'a', 2.5, NULL) AS v(a, b, c, d)",
		"WITH t(x, y) AS (SELECT dept, 1.5BD * 2 FROM emp) SELECT t.*, x DIV 2, y % 1 FROM t LEFT SEMI JOIN depts ON x = id",
		"SELECT name LIKE ANY ('a%', name), (dept, sal), count(emp.*) FROM emp GROUP BY ALL LIMIT 1 + 1",
		"SELECT id & 3 | 4, ~id << 2, X'0A', DATE '2020-01-01' + 1 FROM depts, range(3) r",
		"SELECT name, rank() OVER w, lag(sal, 1, 0) IGNORE NULLS OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), sum(sal) OVER (ORDER BY sal RANGE 10 PRECEDING) FROM emp WINDOW w AS (PARTITION BY dept ORDER BY sal DESC NULLS FIRST)",
		"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY dept ORDER BY sal DESC) AS rn FROM emp) WHERE rn = 1",
		"SELECT dept, name, grouping_id(), count(*) FILTER (WHERE sal > 1), percentile_cont(0.5) WITHIN GROUP (ORDER BY sal) FROM emp GROUP BY ROLLUP(dept, name) HAVING grouping(dept) = 0",
		"SELECT name, (SELECT count(*) FROM depts d WHERE d.id = e.dept) FROM emp e WHERE dept IN (SELECT id FROM depts) OR NOT EXISTS (SELECT 1 FROM depts WHERE id > e.sal)",
		"SELECT (dept, sal) NOT IN (SELECT id, 1.0 FROM depts), transform(tags, (t, i) -> t || i), aggregate(tags, '', (a, t) -> a || t, a -> upper(a)) FROM emp",
		"SELECT explode(map(name, sal)) AS (k, v) FROM emp LATERAL VIEW stack(2, dept, 1) s LATERAL VIEW inline_outer(array(named_struct('x', 1))) i",
	} {
		f.Add(s)
	}
	emp := mustFrame(f, `{"name":"ann","dept":1,"sal":100.0,"tags":["a","b"]}
{"name":"bob","dept":null,"sal":null,"tags":null}
`)
	depts := mustFrame(f, `{"id":1,"title":"eng"}
`)
	frames := map[string]*dataframe.Frame{"emp": emp, "depts": depts}
	f.Fuzz(func(t *testing.T, text string) {
		st, err := sqlparse.ParseOne(text)
		if err != nil {
			var se *sqlparse.SyntaxError
			if errors.As(err, &se) && (se.Pos.Line < 1 || se.Pos.Col < 1) {
				t.Fatalf("syntax error without a position: %v", err)
			}
			return
		}
		sel, ok := st.(*sqlparse.Select)
		if !ok {
			return
		}
		out, err := catalog.QueryFrames(context.Background(), nil, sel.Query, frames)
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("a panic, recovered: %v", err)
		}
		if err != nil {
			var qe *query.Error
			if errors.As(err, &qe) && qe.Pos.Line < 1 {
				t.Fatalf("query error without a position: %v", err)
			}
			return
		}
		out.Release()
	})
}

func mustFrame(tb testing.TB, ndjson string) *dataframe.Frame {
	tb.Helper()
	f, err := jsonframe.ReadNDJSON([]byte(ndjson), jsonframe.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
