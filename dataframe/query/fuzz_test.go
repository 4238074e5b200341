package query_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// The planner fuzz: random valid queries from a small grammar over two
// small tables. Every query gives a result or an error (never a panic), and
// equivalent forms agree:
//   - the plan with the rewrites (filters pushed, columns pruned) and the
//     plan without them;
//   - `WHERE p AND q` and a filter q over a subquery filtered by p;
//   - a query and the UNION ALL of its rows where p is true, false and
//     NULL;
//   - subqueries decorrelated into joins and run once per outer row (the
//     plan without rewrites runs every subquery on its own).

const fuzzA = `{"id":1,"g":1,"x":1.5,"s":"ant","b":true}
{"id":2,"g":null,"x":2.5,"s":"Bee","b":false}
{"id":3,"g":2,"x":null,"s":"cat","b":null}
{"id":4,"g":1,"x":-1.0,"s":null,"b":true}
{"id":5,"g":3,"x":0.0,"s":"dog","b":false}
{"id":6,"g":2,"x":9.75,"s":"ant","b":true}
`

const fuzzC = `{"id":10,"g":1,"y":0.5,"t":"one"}
{"id":11,"g":2,"y":null,"t":"two"}
{"id":12,"g":2,"y":2.0,"t":null}
{"id":13,"g":null,"y":3.0,"t":"none"}
`

type qgen struct {
	rng  *rand.Rand
	cols []string // numeric columns in scope
	strs []string // string columns in scope
	bols []string // boolean columns in scope
}

func (g *qgen) pick(xs ...string) string { return xs[g.rng.Intn(len(xs))] }

func (g *qgen) num(depth int) string {
	if depth <= 0 || g.rng.Intn(3) == 0 {
		if g.rng.Intn(4) == 0 {
			return g.pick("1", "2", "0", "-1", "1.5", "NULL", "2L")
		}
		return g.pick(g.cols...)
	}
	switch g.rng.Intn(5) {
	case 0:
		return "(" + g.num(depth-1) + " " + g.pick("+", "-", "*", "/", "%") + " " + g.num(depth-1) + ")"
	case 1:
		return "CASE WHEN " + g.pred(depth-1) + " THEN " + g.num(depth-1) + " ELSE " + g.num(depth-1) + " END"
	case 2:
		return "-(" + g.num(depth-1) + ")"
	case 3:
		return "CAST(" + g.num(depth-1) + " AS " + g.pick("INT", "BIGINT", "DOUBLE", "DECIMAL(10,2)") + ")"
	}
	return g.pick(g.cols...)
}

func (g *qgen) pred(depth int) string {
	if depth <= 0 || g.rng.Intn(3) == 0 {
		switch g.rng.Intn(8) {
		case 0:
			return g.num(0) + " " + g.pick("=", "<>", "<", "<=", ">", ">=", "<=>") + " " + g.num(0)
		case 1:
			return g.pick(append(append([]string{}, g.cols...), g.strs...)...) + " IS " + g.pick("", "NOT ") + "NULL"
		case 2:
			return g.num(0) + " " + g.pick("", "NOT ") + "IN (1, 2, " + g.pick("3", "NULL") + ")"
		case 3:
			return g.num(0) + " " + g.pick("", "NOT ") + "BETWEEN " + g.pick("0", "1") + " AND " + g.pick("2", "5")
		case 4:
			return g.pick(g.strs...) + " " + g.pick("LIKE", "NOT LIKE", "ILIKE") + " '" + g.pick("a%", "%t", "_o%", "%") + "'"
		case 5:
			if len(g.bols) > 0 {
				return g.pick(g.bols...)
			}
		case 6:
			return g.subquery()
		}
		return g.pick("true", "false", "NULL")
	}
	switch g.rng.Intn(3) {
	case 0:
		return "(" + g.pred(depth-1) + " AND " + g.pred(depth-1) + ")"
	case 1:
		return "(" + g.pred(depth-1) + " OR " + g.pred(depth-1) + ")"
	}
	return "NOT (" + g.pred(depth-1) + ")"
}

// subquery is a predicate with a subquery over c (as c2), correlated with
// a or not: the shapes the rewrites turn into joins and the ones that run
// per outer row.
func (g *qgen) subquery() string {
	corr := g.pick("", " WHERE c2.g = a.g", " WHERE c2.g = a.g AND c2.y > a.x", " WHERE c2.y > a.x", " WHERE c2.g <=> a.g")
	switch g.rng.Intn(5) {
	case 0:
		return g.num(0) + " " + g.pick("", "NOT ") + "IN (SELECT c2.id - " + g.pick("9", "10") + " FROM c c2" + corr + ")"
	case 1:
		return g.pick("", "NOT ") + "EXISTS (SELECT 1 FROM c c2" + corr + ")"
	case 2:
		return g.num(0) + " " + g.pick("<", ">=", "=") + " (SELECT " + g.pick("max(c2.y)", "count(*)", "count(c2.y) + 1", "sum(c2.id)") + " FROM c c2" + corr + ")"
	case 3:
		return "(a.g, a.id) " + g.pick("", "NOT ") + "IN (SELECT c2.g, c2.id - 9 FROM c c2" + corr + ")"
	}
	return "EXISTS (SELECT c2.g FROM c c2" + corr + " GROUP BY c2.g HAVING count(*) > " + g.pick("0", "1") + ")"
}

// gq is a random query's parts.
type gq struct {
	items, from, where, group string
	single                    bool // FROM a alone
	// windowed: window functions or grouping sets, whose answers depend
	// on the whole input (no split checks).
	windowed bool
}

func (q gq) text(extra string) string {
	w := q.where
	if extra != "" {
		if w == "" {
			w = extra
		} else {
			w = extra + " AND (" + w + ")"
		}
	}
	s := "SELECT " + q.items + " FROM " + q.from
	if w != "" {
		s += " WHERE " + w
	}
	if q.group != "" {
		s += " GROUP BY " + q.group
	}
	return s
}

func (g *qgen) query() gq {
	q := gq{from: "a", single: true}
	g.cols, g.strs, g.bols = []string{"a.id", "a.g", "a.x"}, []string{"a.s"}, []string{"a.b"}
	switch g.rng.Intn(4) {
	case 0:
		q.from = "a " + g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN") + " c ON a.g = c.g"
		if g.rng.Intn(2) == 0 {
			q.from += " AND " + g.pick("c.y > a.x", "c.id > 10", "a.id < 5")
		}
		q.single = false
		if !strings.Contains(q.from, "SEMI") && !strings.Contains(q.from, "ANTI") {
			g.cols = append(g.cols, "c.id", "c.y")
			g.strs = append(g.strs, "c.t")
		}
	case 1:
		q.from = "a, c"
		g.cols = append(g.cols, "c.id", "c.y")
		g.strs = append(g.strs, "c.t")
		q.single = false
	}
	if g.rng.Intn(4) > 0 {
		q.where = g.pred(2)
	}
	if q.single && g.rng.Intn(3) == 0 {
		return g.windowed(q)
	}
	if g.rng.Intn(3) == 0 {
		key := g.pick(g.cols...)
		q.items = fmt.Sprintf("%s AS k, count(*) AS n, sum(%s) AS s1, max(%s) AS m", key, g.num(1), g.pick(g.strs...))
		q.group = key
		return q
	}
	q.items = g.pick(g.cols...) + " AS c1, " + g.num(2) + " AS c2, " + g.pick(g.strs...) + " AS c3"
	return q
}

// windowed makes q (over a alone) a window query, the latest row per key
// (a per-key top-1 with the rewrites, a window without) or a grouping-set
// aggregate.
func (g *qgen) windowed(q gq) gq {
	q.windowed = true
	key := g.pick("a.g", "a.s", "a.b", "a.id % 2")
	switch g.rng.Intn(3) {
	case 0:
		fn := g.pick("row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()", "ntile(2)",
			"lag(%s)", "lead(%s, 2, 0)", "first_value(%s) IGNORE NULLS", "last_value(%s)", "nth_value(%s, 2)",
			"sum(%s)", "count(%s)", "avg(%s)", "min(%s)", "max(%s)", "stddev(%s)", "collect_list(%s)")
		if strings.Contains(fn, "%s") {
			fn = fmt.Sprintf(fn, g.num(1))
		}
		frame := g.pick("", "", " ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING", " ROWS UNBOUNDED PRECEDING",
			" RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", " ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
			" RANGE BETWEEN 1 PRECEDING AND CURRENT ROW")
		order := g.pick("a.x", "a.x DESC", "a.g NULLS LAST", "a.s DESC")
		if !strings.Contains(frame, "RANGE BETWEEN 1") {
			order += ", a.id" // a total order: ties do not depend on the plan
		}
		part := ""
		if g.rng.Intn(4) > 0 {
			part = "PARTITION BY " + key + " "
		}
		q.items = "a.id AS c1, " + g.num(1) + " AS c2, " + fn + " OVER (" + part + "ORDER BY " + order + frame + ") AS w"
	case 1:
		fn := g.pick("row_number()", "rank()", "dense_rank()")
		q.from = "(SELECT a.*, " + fn + " OVER (PARTITION BY " + key + " ORDER BY " + g.num(1) + " " + g.pick("ASC", "DESC") +
			", a.id) AS rn FROM a) a"
		cond := g.pick("rn = 1", "rn <= 1", "1 = rn", "rn < 2")
		if q.where == "" {
			q.where = cond
		} else {
			q.where = cond + " AND (" + q.where + ")"
		}
		q.items = "a.id AS c1, a.g AS c2, a.s AS c3, rn"
	default:
		k2 := g.pick("a.b", "a.s", "a.id % 3")
		q.group = g.pick("ROLLUP("+key+", "+k2+")", "CUBE("+key+", "+k2+")", "GROUPING SETS(("+key+"), ("+k2+"), ())",
			key+", ROLLUP("+k2+")")
		q.items = key + " AS k1, " + k2 + " AS k2, count(*) AS n, sum(" + g.num(1) + ") AS s1, grouping(" + key + ") AS g1, " +
			g.pick("max", "min", "count_if", "bool_or") + "(" + g.pred(1) + ") AS m"
	}
	return q
}

func sortedRows(res result) []string {
	out := append([]string(nil), res.rows...)
	sort.Strings(out)
	return out
}

func FuzzPlanner(f *testing.F) {
	for _, seed := range []int64{0, 1, 2, 3, 4, 5, 6, 7, 99, 1234} {
		f.Add(seed)
	}
	r := tables(map[string]*dataframe.Frame{"a": frame(f, fuzzA), "c": frame(f, fuzzC)})
	f.Fuzz(func(t *testing.T, seed int64) {
		g := &qgen{rng: rand.New(rand.NewSource(seed))}
		gen := g.query()
		q := gen.text("")
		got, err := run(t, q, r)
		if err != nil {
			require.NotContains(t, err.Error(), "internal error", q)
			return
		}
		// With and without the rewrites.
		plan, err := query.CompileUnrewritten(context.Background(), parse(t, q), r)
		require.NoError(t, err, q)
		fr, err := plan.Frame(context.Background())
		require.NoError(t, err, q)
		plain := result{schema: sparkSchema(fr.Schema()), rows: rowsOf(fr)}
		fr.Release()
		require.Equal(t, plain.schema, got.schema, q)
		require.Equal(t, sortedRows(plain), sortedRows(got), "%s\n%s", q, plan.Explain())
		if gen.group != "" || gen.windowed {
			return
		}
		p := g.pred(2)
		// The rows where p is true, false and NULL are all the rows.
		var parts []string
		for _, cond := range []string{"(%s)", "NOT (%s)", "(%s) IS NULL"} {
			parts = append(parts, gen.text(fmt.Sprintf(cond, p)))
		}
		union, err := run(t, strings.Join(parts, " UNION ALL "), r)
		require.NoError(t, err, parts)
		require.Equal(t, sortedRows(got), sortedRows(union), "%s\nsplit on %s", q, p)
		if !gen.single {
			return
		}
		// WHERE p AND q as a filter over a subquery filtered by p.
		nested := gen
		nested.from = "(SELECT * FROM a WHERE " + p + ") a"
		want, err := run(t, parts[0], r)
		require.NoError(t, err, parts[0])
		sub, err := run(t, nested.text(""), r)
		require.NoError(t, err, nested.text(""))
		require.Equal(t, sortedRows(want), sortedRows(sub), "%s\n%s", parts[0], nested.text(""))
	})
}
