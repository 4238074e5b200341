package jdbc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// A pushed-down filter never changes a result: for random filters, the
// rows ReadScan returns, filtered further by the filters it did not apply,
// are exactly the rows of the whole table that satisfy every filter as
// Spark evaluates it (three-valued logic, binary string comparison).
func TestPushdownNeverChangesResults(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		pf := newPushdownFixture(t, db)
		for seed := int64(1); seed <= 150; seed++ {
			pf.check(t, seed)
		}
		// The translator is not trivially refusing: most filters push down.
		require.Greater(t, pf.applied*2, pf.total, "%d of %d filters applied", pf.applied, pf.total)
	})
}

func FuzzPushdown(f *testing.F) {
	for _, s := range []int64{1, 7, 42, 1000} {
		f.Add(s)
	}
	pf := newPushdownFixture(f, jdbctest.Postgres(f))
	f.Fuzz(func(t *testing.T, seed int64) {
		pf.check(t, seed)
	})
}

type pushdownFixture struct {
	applied, total int
	ds             *connectors.Dataset
	all            []map[string]any
	cols           []string
}

var fuzzStrings = []string{"a", "A", "a ", "b", "ab", "é", "E", "", "a\tb", "Zz"}

func newPushdownFixture(t testing.TB, db *jdbctest.DB) *pushdownFixture {
	typ := map[string]string{"postgres": "boolean", "mysql": "boolean"}[db.Dialect]
	db.Exec(t, "CREATE TABLE f (id int PRIMARY KEY, i int, l bigint, d double precision, n decimal(6,2), s varchar(8), b "+typ+", da date, ts timestamp NULL, e double precision, u varchar(8))")
	r := rand.New(rand.NewSource(99))
	var vals []string
	for id := 1; id <= 120; id++ {
		null := func(s string) string {
			if r.Intn(6) == 0 {
				return "NULL"
			}
			return s
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s)", id,
			null(fmt.Sprint(r.Intn(21)-10)), null(fmt.Sprint(int64(r.Intn(5))*1_000_000_000_000)),
			null(fmt.Sprint(float64(r.Intn(40)-20)/4)), null(fmt.Sprintf("%d.%02d", r.Intn(20)-10, r.Intn(4)*25)),
			null("'"+strings.ReplaceAll(fuzzStrings[r.Intn(len(fuzzStrings))], "\t", "\\t")+"'"), null([]string{"true", "false"}[r.Intn(2)]),
			null(fmt.Sprintf("'2024-01-%02d'", r.Intn(5)+1)), null(fmt.Sprintf("'2024-01-01 00:00:%02d.5'", r.Intn(5)))))
	}
	if db.Dialect == "postgres" {
		for i := range vals {
			vals[i] = strings.ReplaceAll(vals[i], `\t`, `'||chr(9)||'`)
		}
	}
	// e: doubles with NaN and infinities where the database stores them
	// (PostgreSQL; MySQL has neither); u: strings beyond the BMP.
	es := []string{"NULL", "-1.5", "0", "2", "1e300"}
	if db.Dialect == "postgres" {
		es = append(es, "'NaN'", "'Infinity'", "'-Infinity'")
	}
	us := []string{"NULL", "'a'", "'\U0001F600'", "'\uFFFD'", "'\u00e9'", "'Z'", "''"}
	for i := range vals {
		vals[i] = strings.TrimSuffix(vals[i], ")") + ", " + es[r.Intn(len(es))] + ", " + us[r.Intn(len(us))] + ")"
	}
	db.Exec(t, "INSERT INTO f VALUES "+strings.Join(vals, ", "))
	pf := &pushdownFixture{ds: dataset(db, jdbc.PropDBTable, "f"), cols: []string{"i", "l", "d", "n", "s", "b", "da", "ts"}}
	pf.all = pf.read(t, scan.Request{})
	require.Len(t, pf.all, 120)
	return pf
}

func (pf *pushdownFixture) read(t testing.TB, req scan.Request) []map[string]any {
	s, _, err := (&jdbc.Connector{}).ReadScan(ctxTB(t), pf.ds, req)
	require.NoError(t, err)
	defer s.Release()
	f, err := dataframe.Collect(s)
	require.NoError(t, err)
	defer f.Release()
	var out []map[string]any
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		m := map[string]any{}
		dec := json.NewDecoder(bytes.NewReader(obj))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}))
	return out
}

func (pf *pushdownFixture) check(t testing.TB, seed int64) {
	r := rand.New(rand.NewSource(seed))
	var filters []scan.Expr
	for n := r.Intn(3) + 1; n > 0; n-- {
		filters = append(filters, pf.randExpr(r, 2))
	}
	req := scan.Request{Filters: filters}
	s, applied, err := (&jdbc.Connector{}).ReadScan(ctxTB(t), pf.ds, req)
	require.NoError(t, err)
	s.Release()
	for _, a := range applied.Filters {
		pf.total++
		if a {
			pf.applied++
		}
	}
	got := pf.read(t, req)
	var kept []string
	for _, row := range got {
		ok := true
		for i, f := range filters {
			if !applied.Filters[i] {
				ok = ok && eval(f, row) == tvTrue
			}
		}
		if ok {
			kept = append(kept, fmt.Sprint(row["id"]))
		}
	}
	var want []string
	for _, row := range pf.all {
		ok := true
		for _, f := range filters {
			ok = ok && eval(f, row) == tvTrue
		}
		if ok {
			want = append(want, fmt.Sprint(row["id"]))
		}
	}
	sort.Strings(kept)
	sort.Strings(want)
	require.Equal(t, want, kept, "seed %d: %v (applied %v)", seed, filters, applied.Filters)
}

// A pushed-down top-N never changes a result: for random filters and
// random sort keys (ending with the unique id, so the answer is one), the
// rows ReadScan returns when it says it applied the order are the first n
// rows, in Spark's order, of the whole table's rows that satisfy every
// filter (docs/jdbc.md#pushdown).
func TestTopNPushdownNeverChangesResults(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		pf := newPushdownFixture(t, db)
		pushed, total := 0, 0
		for seed := int64(1); seed <= 150; seed++ {
			if pf.checkTopN(t, seed) {
				pushed++
			}
			total++
		}
		require.Greater(t, pushed*3, total, "%d of %d top-Ns pushed", pushed, total)

		// A partitioned read (several ranges, several statements) is not
		// sorted in the database, and so not cut either.
		ds := dataset(db, jdbc.PropDBTable, "f", jdbc.PropPartitionColumn, "id", jdbc.PropNumPartitions, "3",
			jdbc.PropLowerBound, "1", jdbc.PropUpperBound, "120")
		s, applied, err := (&jdbc.Connector{}).ReadScan(ctxTB(t), ds, scan.Request{Order: []scan.SortKey{{Column: "i"}}, Limit: 5})
		require.NoError(t, err)
		s.Release()
		require.False(t, applied.Order)
		require.False(t, applied.Limit)
	})
}

func (pf *pushdownFixture) checkTopN(t testing.TB, seed int64) bool {
	r := rand.New(rand.NewSource(seed))
	var filters []scan.Expr
	for n := r.Intn(2); n > 0; n-- {
		filters = append(filters, pf.randExpr(r, 1))
	}
	keyCols := append([]string{"e", "u"}, pf.cols...)
	var order []scan.SortKey
	for n := r.Intn(3) + 1; n > 0; n-- {
		order = append(order, scan.SortKey{Column: keyCols[r.Intn(len(keyCols))], Desc: r.Intn(2) == 0, NullsFirst: r.Intn(2) == 0})
	}
	order = append(order, scan.SortKey{Column: "id", Desc: r.Intn(2) == 0})
	limit := int64(r.Intn(30) + 1)
	req := scan.Request{Filters: filters, Order: order, Limit: limit}
	s, applied, err := (&jdbc.Connector{}).ReadScan(ctxTB(t), pf.ds, req)
	require.NoError(t, err)
	s.Release()
	if !applied.Order {
		require.False(t, applied.Limit, "seed %d: a limit without the order", seed)
		return false
	}
	require.True(t, applied.Limit, "seed %d", seed)
	for _, a := range applied.Filters {
		require.True(t, a, "seed %d: the order applied under a filter that was not", seed)
	}
	var got []string
	for _, row := range pf.read(t, req) {
		got = append(got, fmt.Sprint(row["id"]))
	}
	var want []map[string]any
	for _, row := range pf.all {
		ok := true
		for _, f := range filters {
			ok = ok && eval(f, row) == tvTrue
		}
		if ok {
			want = append(want, row)
		}
	}
	sort.SliceStable(want, func(i, j int) bool { return sparkLess(order, want[i], want[j]) })
	var ids []string
	for i := 0; i < len(want) && int64(i) < limit; i++ {
		ids = append(ids, fmt.Sprint(want[i]["id"]))
	}
	require.Equal(t, ids, got, "seed %d: %v order %v limit %d", seed, filters, order, limit)
	return true
}

// sparkLess is Spark's order of two rows: NULLs where the key says, NaN
// above every number, strings byte by byte, false before true.
func sparkLess(keys []scan.SortKey, a, b map[string]any) bool {
	for _, k := range keys {
		x, y := a[k.Column], b[k.Column]
		var c int
		switch {
		case x == nil && y == nil:
			continue
		case x == nil || y == nil:
			if (x == nil) == k.NullsFirst {
				return true
			}
			return false
		case x == "NaN" && y == "NaN":
			continue
		case x == "NaN":
			c = 1
		case y == "NaN":
			c = -1
		case x == "Infinity" || y == "-Infinity":
			c = 1
			if x == y {
				c = 0
			}
		case y == "Infinity" || x == "-Infinity":
			c = -1
		default:
			var ok bool
			c, ok = compare(x, y)
			if !ok {
				panic(fmt.Sprintf("sort %s: %v and %v", k.Column, x, y))
			}
		}
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return false
}

func (pf *pushdownFixture) randExpr(r *rand.Rand, depth int) scan.Expr {
	if depth > 0 && r.Intn(3) == 0 {
		switch r.Intn(3) {
		case 0:
			return scan.And{Left: pf.randExpr(r, depth-1), Right: pf.randExpr(r, depth-1)}
		case 1:
			return scan.Or{Left: pf.randExpr(r, depth-1), Right: pf.randExpr(r, depth-1)}
		default:
			return scan.Not{Expr: pf.randExpr(r, depth-1)}
		}
	}
	col := pf.cols[r.Intn(len(pf.cols))]
	c := scan.Column{Name: col}
	switch r.Intn(6) {
	case 0:
		return scan.IsNull{Expr: c, Not: r.Intn(2) == 0}
	case 1:
		list := []scan.Literal{randLiteral(r, col), randLiteral(r, col)}
		return scan.In{Expr: c, List: list, Not: r.Intn(3) == 0}
	case 2:
		return scan.Between{Expr: c, Lo: randLiteral(r, col), Hi: randLiteral(r, col), Not: r.Intn(3) == 0}
	}
	ops := []string{"=", "<>", "<", "<=", ">", ">=", "<=>"}
	cmp := scan.Compare{Op: ops[r.Intn(len(ops))], Left: c, Right: randLiteral(r, col)}
	if r.Intn(2) == 0 {
		cmp.Left, cmp.Right = cmp.Right, cmp.Left
	}
	if r.Intn(8) == 0 {
		other := pf.cols[r.Intn(len(pf.cols))]
		cmp.Right = scan.Column{Name: other}
	}
	return cmp
}

func randLiteral(r *rand.Rand, col string) scan.Literal {
	switch col {
	case "i":
		return scan.Literal{Value: int64(r.Intn(21) - 10), Type: "integer"}
	case "l":
		if r.Intn(2) == 0 {
			return scan.Literal{Value: float64(r.Intn(5)) * 1e12, Type: "double"}
		}
		return scan.Literal{Value: int64(r.Intn(5)) * 1_000_000_000_000, Type: "long"}
	case "d":
		return scan.Literal{Value: float64(r.Intn(40)-20) / 4, Type: "double"}
	case "n":
		return scan.Literal{Value: fmt.Sprintf("%d.%d", r.Intn(20)-10, r.Intn(4)*25), Type: "decimal(4,2)"}
	case "s":
		if r.Intn(10) == 0 {
			return scan.Literal{Value: int64(1), Type: "integer"} // not pushable: Spark casts
		}
		return scan.Literal{Value: fuzzStrings[r.Intn(len(fuzzStrings))], Type: "string"}
	case "b":
		return scan.Literal{Value: r.Intn(2) == 0, Type: "boolean"}
	case "da":
		return scan.Literal{Value: time.Date(2024, 1, r.Intn(5)+1, 0, 0, 0, 0, time.UTC), Type: "date"}
	}
	return scan.Literal{Value: time.Date(2024, 1, 1, 0, 0, r.Intn(5), 500_000_000, time.UTC), Type: "timestamp"}
}

// tv is SQL's three-valued truth.
type tv int

const (
	tvFalse tv = iota
	tvTrue
	tvNull
)

func eval(e scan.Expr, row map[string]any) tv {
	switch x := e.(type) {
	case scan.Compare:
		a, b := value(x.Left, row), value(x.Right, row)
		if x.Op == "<=>" {
			if a == nil || b == nil {
				return boolTV(a == nil && b == nil)
			}
			c, ok := compare(a, b)
			return boolTV(ok && c == 0)
		}
		if a == nil || b == nil {
			return tvNull
		}
		c, ok := compare(a, b)
		if !ok {
			return tvNull // Spark casts; such filters are never pushed
		}
		switch x.Op {
		case "=":
			return boolTV(c == 0)
		case "<>":
			return boolTV(c != 0)
		case "<":
			return boolTV(c < 0)
		case "<=":
			return boolTV(c <= 0)
		case ">":
			return boolTV(c > 0)
		}
		return boolTV(c >= 0)
	case scan.In:
		v := value(x.Expr, row)
		if v == nil {
			return tvNull
		}
		res := tvFalse
		for _, l := range x.List {
			if c, ok := compare(v, l.Value); ok && c == 0 {
				res = tvTrue
			}
		}
		if x.Not {
			return not(res)
		}
		return res
	case scan.IsNull:
		return boolTV((value(x.Expr, row) == nil) != x.Not)
	case scan.Between:
		res := eval(scan.And{Left: scan.Compare{Op: ">=", Left: x.Expr, Right: x.Lo}, Right: scan.Compare{Op: "<=", Left: x.Expr, Right: x.Hi}}, row)
		if x.Not {
			return not(res)
		}
		return res
	case scan.And:
		a, b := eval(x.Left, row), eval(x.Right, row)
		switch {
		case a == tvFalse || b == tvFalse:
			return tvFalse
		case a == tvTrue && b == tvTrue:
			return tvTrue
		}
		return tvNull
	case scan.Or:
		a, b := eval(x.Left, row), eval(x.Right, row)
		switch {
		case a == tvTrue || b == tvTrue:
			return tvTrue
		case a == tvFalse && b == tvFalse:
			return tvFalse
		}
		return tvNull
	case scan.Not:
		return not(eval(x.Expr, row))
	}
	panic(fmt.Sprintf("eval %T", e))
}

func not(v tv) tv {
	switch v {
	case tvTrue:
		return tvFalse
	case tvFalse:
		return tvTrue
	}
	return tvNull
}

func boolTV(b bool) tv {
	if b {
		return tvTrue
	}
	return tvFalse
}

func value(e scan.Expr, row map[string]any) any {
	switch x := e.(type) {
	case scan.Column:
		return row[x.Name]
	case scan.Literal:
		return x.Value
	}
	panic("value")
}

// compare orders two values of one family; ok is false across families.
func compare(a, b any) (int, bool) {
	if ra, ok := rat(a); ok {
		if rb, ok := rat(b); ok {
			return ra.Cmp(rb), true
		}
		return 0, false
	}
	if ta, ok := instant(a); ok {
		if tb, ok := instant(b); ok {
			return ta.Compare(tb), true
		}
		return 0, false
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0, true
			case !x:
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

func rat(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(x.String())
		return r, ok
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float64:
		return new(big.Rat).SetFloat64(x), true
	case string:
		if r, ok := new(big.Rat).SetString(x); ok && strings.ContainsAny(x, "0123456789") && !strings.ContainsAny(x, "-:T") || ok && strings.HasPrefix(x, "-") && !strings.Contains(x, ":") && strings.Count(x, "-") == 1 {
			return r, true
		}
	}
	return nil, false
}

func instant(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t, true
		}
		if t, err := time.Parse(time.DateOnly, x); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
