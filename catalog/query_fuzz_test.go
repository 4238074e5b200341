package catalog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sluicedata/sluice/catalog"
	csql "github.com/sluicedata/sluice/catalog/sql"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// FuzzQuery parses, plans and runs arbitrary text over two small frames:
// never a panic, and every parse or planning error has a position.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT dept, count(*), sum(sal) FROM emp GROUP BY dept HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 3",
		"SELECT e.name, d.title FROM emp e LEFT JOIN depts d ON e.dept = d.id WHERE e.sal BETWEEN 1 AND 100",
		"WITH x AS (SELECT DISTINCT dept FROM emp) SELECT * FROM x UNION SELECT id FROM depts",
		"SELECT name, t FROM emp LATERAL VIEW OUTER posexplode(tags) x AS p, t WHERE t LIKE 'a%' ESCAPE '!'",
		"SELECT CASE WHEN sal > 1 THEN 'a' ELSE NULL END, CAST(sal AS int), tags[0], name || '-' FROM emp",
		"SELECT upper(name), coalesce(sal, 0) / 0, sal % 3, -sal FROM emp WHERE name IN ('a', 'b') OR sal IS NULL",
		"SELECT count(DISTINCT dept), collect_set(name), first(sal, true) FROM emp",
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
		st, err := csql.ParseOne(text)
		if err != nil {
			var se *csql.SyntaxError
			if errors.As(err, &se) && (se.Pos.Line < 1 || se.Pos.Col < 1) {
				t.Fatalf("syntax error without a position: %v", err)
			}
			return
		}
		sel, ok := st.(*csql.Select)
		if !ok {
			return
		}
		out, err := catalog.QueryFrames(context.Background(), nil, sel.Query, frames)
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
