package query_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// fakeScans is a ScanResolver over frames that does what a database
// connector does with a scan.Request: it evaluates the filters it
// understands (here: all, except those naming a column in skip), keeps only
// the asked columns, applies the limit when it applied every filter, and
// says so. It records every request.
type fakeScans struct {
	frames map[string]*dataframe.Frame
	skip   map[string]bool // columns whose filters it "cannot" evaluate
	noCols bool            // returns every column whatever is asked
	sorts  bool            // applies a top-N's Order (else ignores it, and the limit with it)
	legacy bool            // applies the limit even with an Order it ignores (a reader older than scan.Request.Order)

	mu   sync.Mutex
	reqs []scan.Request
}

func (f *fakeScans) Table(_ context.Context, name []string) (query.Table, error) {
	fr, ok := f.frames[strings.ToLower(strings.Join(name, "."))]
	if !ok {
		return nil, fmt.Errorf("unknown table %s", strings.Join(name, "."))
	}
	return query.FrameTable(fr), nil
}

func (f *fakeScans) ScanTable(_ context.Context, name []string, req scan.Request) (query.ScannedTable, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	fr := f.frames[strings.ToLower(strings.Join(name, "."))]
	rows := frameRows(fr)
	applied := scan.Applied{Filters: make([]bool, len(req.Filters))}
	all := true
	for i, e := range req.Filters {
		if f.names(e) {
			all = false
			continue
		}
		applied.Filters[i] = true
		var kept []map[string]any
		for _, r := range rows {
			if truth(e, r) == 1 {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	switch {
	case len(req.Order) > 0 && f.sorts && all && req.Limit > 0:
		sort.SliceStable(rows, func(i, j int) bool { return orderLess(req.Order, rows[i], rows[j]) })
		applied.Order = true
	case len(req.Order) > 0 && !f.legacy:
		all = false
	}
	if all && req.Limit > 0 && int64(len(rows)) > req.Limit {
		rows = rows[:req.Limit]
		applied.Limit = true
	}
	cols := fr.Schema().Fields()
	if req.Columns != nil && !f.noCols {
		cols = nil
		for _, c := range req.Columns {
			i := fr.Schema().FieldIndices(c)
			cols = append(cols, fr.Schema().Field(i[0]))
		}
	}
	return &scannedFrame{f: buildFrame(cols, rows), applied: applied}, nil
}

// orderLess is Spark's order of two rows by keys (NaN above every number).
func orderLess(keys []scan.SortKey, a, b map[string]any) bool {
	for _, k := range keys {
		x, y := a[k.Column], b[k.Column]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return k.NullsFirst
		case y == nil:
			return !k.NullsFirst
		}
		c := cmpValues(x, y)
		if fx, ok := x.(float64); ok {
			fy := y.(float64)
			switch {
			case math.IsNaN(fx) && math.IsNaN(fy):
				c = 0
			case math.IsNaN(fx):
				c = 1
			case math.IsNaN(fy):
				c = -1
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

// names says whether e names a column the fake cannot filter on.
func (f *fakeScans) names(e scan.Expr) bool {
	for _, c := range scan.Columns(e) {
		if f.skip[c] {
			return true
		}
	}
	return false
}

type scannedFrame struct {
	f       *dataframe.Frame
	applied scan.Applied
}

func (s *scannedFrame) Schema() *arrow.Schema { return s.f.Schema() }
func (s *scannedFrame) Open(context.Context) (array.RecordReader, error) {
	return array.NewRecordReader(s.f.Schema(), s.f.Records())
}
func (s *scannedFrame) Applied() scan.Applied { return s.applied }

// frameRows reads a flat frame of long, double, string and boolean columns
// into rows.
func frameRows(f *dataframe.Frame) []map[string]any {
	var out []map[string]any
	for _, rec := range f.Records() {
		for i := 0; i < int(rec.NumRows()); i++ {
			r := map[string]any{}
			for c, col := range rec.Columns() {
				name := rec.Schema().Field(c).Name
				if col.IsNull(i) {
					r[name] = nil
					continue
				}
				switch a := col.(type) {
				case *array.Int64:
					r[name] = a.Value(i)
				case *array.Float64:
					r[name] = a.Value(i)
				case *array.String:
					r[name] = a.Value(i)
				case *array.Boolean:
					r[name] = a.Value(i)
				}
			}
			out = append(out, r)
		}
	}
	return out
}

func buildFrame(fields []arrow.Field, rows []map[string]any) *dataframe.Frame {
	vals := make([][]any, len(rows))
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	for i, r := range rows {
		for _, n := range names {
			vals[i] = append(vals[i], r[n])
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, row := range vals {
		for c, v := range row {
			fb := b.Field(c)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.StringBuilder:
				x.Append(v.(string))
			case *array.BooleanBuilder:
				x.Append(v.(bool))
			}
		}
	}
	rec := b.NewRecord() // the frame takes it over
	f, err := dataframe.New(rec.Schema(), rec)
	if err != nil {
		panic(err)
	}
	return f
}

// truth evaluates a scan.Expr over a row with SQL's three-valued logic:
// 1 true, 0 false, -1 NULL.
func truth(e scan.Expr, r map[string]any) int {
	switch x := e.(type) {
	case scan.Compare:
		a, b := value(x.Left, r), value(x.Right, r)
		if x.Op == "<=>" {
			if a == nil || b == nil {
				return b3(a == nil && b == nil)
			}
			return b3(cmpValues(a, b) == 0)
		}
		if a == nil || b == nil {
			return -1
		}
		c := cmpValues(a, b)
		switch x.Op {
		case "=":
			return b3(c == 0)
		case "<>":
			return b3(c != 0)
		case "<":
			return b3(c < 0)
		case "<=":
			return b3(c <= 0)
		case ">":
			return b3(c > 0)
		case ">=":
			return b3(c >= 0)
		}
	case scan.In:
		v := value(x.Expr, r)
		if v == nil {
			return -1
		}
		res := 0
		for _, l := range x.List {
			switch {
			case l.Value == nil:
				res = -1
			case cmpValues(v, l.Value) == 0:
				res = 1
			}
			if res == 1 {
				break
			}
		}
		if x.Not && res >= 0 {
			return 1 - res
		}
		return res
	case scan.IsNull:
		return b3((value(x.Expr, r) == nil) != x.Not)
	case scan.Between:
		return truth(scan.And{Left: scan.Compare{Op: ">=", Left: x.Expr, Right: x.Lo}, Right: scan.Compare{Op: "<=", Left: x.Expr, Right: x.Hi}}, r)
	case scan.And:
		a, b := truth(x.Left, r), truth(x.Right, r)
		switch {
		case a == 0 || b == 0:
			return 0
		case a == -1 || b == -1:
			return -1
		}
		return 1
	case scan.Or:
		a, b := truth(x.Left, r), truth(x.Right, r)
		switch {
		case a == 1 || b == 1:
			return 1
		case a == -1 || b == -1:
			return -1
		}
		return 0
	case scan.Not:
		v := truth(x.Expr, r)
		if v < 0 {
			return v
		}
		return 1 - v
	case scan.Literal:
		if b, ok := x.Value.(bool); ok {
			return b3(b)
		}
		return -1
	case scan.Column:
		v := r[x.Name]
		if v == nil {
			return -1
		}
		return b3(v.(bool))
	}
	panic(fmt.Sprintf("truth: %T", e))
}

func b3(b bool) int {
	if b {
		return 1
	}
	return 0
}

func value(e scan.Expr, r map[string]any) any {
	switch x := e.(type) {
	case scan.Column:
		return r[x.Name]
	case scan.Literal:
		return x.Value
	}
	panic(fmt.Sprintf("value: %T", e))
}

func cmpValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return sign(float64(x) - float64(y))
	case float64:
		return sign(x - b.(float64))
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		return sign(float64(b2i(x) - b2i(y)))
	}
	panic(fmt.Sprintf("cmp %T", a))
}

func sign(f float64) int {
	switch {
	case f < 0:
		return -1
	case f > 0:
		return 1
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

const pushTable = `{"id":1,"k":3,"x":1.5,"s":"ant","b":true}
{"id":2,"k":null,"x":2.5,"s":"Bee","b":false}
{"id":3,"k":7,"x":null,"s":"cat","b":null}
{"id":4,"k":3,"x":-1.0,"s":null,"b":true}
{"id":5,"k":10,"x":0.0,"s":"dog","b":false}
{"id":6,"k":-2,"x":9.75,"s":"ant","b":true}
{"id":7,"k":0,"x":3.0,"s":"eel","b":null}
`

func TestScanRequest(t *testing.T) {
	t.Parallel()
	tbl := frame(t, pushTable)
	dim := frame(t, `{"k":3,"name":"three"}
{"k":7,"name":"seven"}
`)
	fs := &fakeScans{frames: map[string]*dataframe.Frame{"t": tbl, "d": dim}}
	res := mustRun(t, "SELECT id, s FROM t WHERE k = 3 AND x > 0 AND upper(s) = 'ANT' LIMIT 5", fs)
	require.Equal(t, []string{"1\tant"}, res.rows)
	require.Len(t, fs.reqs, 1)
	req := fs.reqs[0]
	require.ElementsMatch(t, []string{"id", "s", "k", "x"}, req.Columns)
	require.Len(t, req.Filters, 2, "upper(s) = 'ANT' does not translate")
	require.Equal(t, "(`k` = 3)", req.Filters[0].String())
	require.Equal(t, "(`x` > 0)", req.Filters[1].String())
	require.Zero(t, req.Limit, "a conjunct stays above the scan: no limit")

	// Every conjunct translates and nothing between changes rows: the
	// limit goes down too.
	fs.reqs = nil
	res = mustRun(t, "SELECT id FROM t WHERE k IN (3, 7) OR s IS NULL LIMIT 2", fs)
	require.Len(t, res.rows, 2)
	require.Equal(t, int64(2), fs.reqs[0].Limit)
	require.Equal(t, "((`k` IN (3, 7)) OR (`s` IS NULL))", fs.reqs[0].Filters[0].String())

	// A join: each side gets its own conjuncts, no limit.
	fs.reqs = nil
	res = mustRun(t, "SELECT t.id, d.name FROM t JOIN d ON t.k = d.k WHERE d.name <> 'seven' AND t.id < 4 LIMIT 10", fs)
	require.Equal(t, []string{"1\tthree"}, res.rows)
	require.Len(t, fs.reqs, 2)
	for _, r := range fs.reqs {
		require.Zero(t, r.Limit)
		require.Len(t, r.Filters, 1)
	}

	// NOT IN, BETWEEN (as two comparisons), <=> and a boolean column.
	fs.reqs = nil
	mustRun(t, "SELECT id FROM t WHERE k NOT IN (3) AND x BETWEEN 0 AND 5 AND k <=> 7 AND b", fs)
	var got []string
	for _, f := range fs.reqs[0].Filters {
		got = append(got, f.String())
	}
	require.Equal(t, []string{"(`k` NOT IN (3))", "(`x` >= 0)", "(`x` <= 5)", "(`k` <=> 7)", "`b`"}, got)
}

// A table that applies only some filters, or returns more columns than
// asked, gets the rest applied above it.
func TestScanRequestPartial(t *testing.T) {
	t.Parallel()
	tbl := frame(t, pushTable)
	fs := &fakeScans{frames: map[string]*dataframe.Frame{"t": tbl}, skip: map[string]bool{"x": true}, noCols: true}
	res := mustRun(t, "SELECT id FROM t WHERE k = 3 AND x > 0 LIMIT 5", fs)
	require.Equal(t, []string{"1"}, res.rows)
	require.Equal(t, int64(5), fs.reqs[0].Limit)
	plan, err := query.Compile(context.Background(), parse(t, "SELECT id FROM t WHERE k = 3 AND x > 0"), fs, query.Options{})
	require.NoError(t, err)
	require.Contains(t, plan.Explain(), "Filter (x > 0)")
	require.Contains(t, plan.Explain(), "pushed: (`k` = 3) (applied) AND (`x` > 0)")
	require.NotContains(t, plan.Explain(), "Filter (k = 3)")
}

// A top-N over a scan — through a filter and projections that pick or
// rename columns — asks the table for its first n + offset rows in the
// sort's order; the sort and the limit stay above. A key that is an
// expression, or a filter that stays above the scan, asks for neither.
func TestScanTopN(t *testing.T) {
	t.Parallel()
	tbl := frame(t, pushTable)
	frames := map[string]*dataframe.Frame{"t": tbl}
	plain := tables(frames)
	for _, tc := range []struct {
		sql   string
		order string // the request's Order; "": none, and no limit
		limit int64
	}{
		{"SELECT id, s FROM t ORDER BY x DESC, id LIMIT 2", "`x` DESC NULLS LAST, `id` NULLS FIRST", 2},
		{"SELECT * FROM t WHERE k > 0 ORDER BY s NULLS LAST, id DESC LIMIT 3", "`s` NULLS LAST, `id` DESC NULLS LAST", 3},
		{"SELECT id FROM t ORDER BY k DESC NULLS FIRST, id LIMIT 2 OFFSET 3", "`k` DESC NULLS FIRST, `id` NULLS FIRST", 5},
		{"SELECT a, c FROM (SELECT id AS a, k AS c, s FROM t) ORDER BY c, a LIMIT 4", "`k` NULLS FIRST, `id` NULLS FIRST", 4},
		{"SELECT id FROM t ORDER BY x + 1, id LIMIT 2", "", 0},
		{"SELECT id FROM t WHERE upper(s) = 'ANT' ORDER BY id LIMIT 1", "", 0},
		{"SELECT k, count(*) FROM t GROUP BY k ORDER BY k LIMIT 2", "", 0},
	} {
		want := mustRun(t, tc.sql, plain)
		fs := &fakeScans{frames: frames, sorts: true}
		got := mustRun(t, tc.sql, fs)
		require.Equal(t, want.rows, got.rows, tc.sql)
		require.Len(t, fs.reqs, 1, tc.sql)
		req := fs.reqs[0]
		var keys []string
		for _, k := range req.Order {
			keys = append(keys, k.String())
		}
		require.Equal(t, tc.order, strings.Join(keys, ", "), tc.sql)
		require.Equal(t, tc.limit, req.Limit, tc.sql)
		plan, err := query.Compile(context.Background(), parse(t, tc.sql), fs, query.Options{})
		require.NoError(t, err)
		ex := plan.Explain()
		if tc.order != "" {
			require.Contains(t, ex, fmt.Sprintf("order: %s (applied) limit %d (applied)", tc.order, tc.limit), tc.sql)
			require.Contains(t, ex, fmt.Sprintf("TopN %d by", tc.limit), "the top-N stays above the scan")
		}

		// A table that cannot sort: the same answer, read whole.
		fs = &fakeScans{frames: frames}
		got = mustRun(t, tc.sql, fs)
		require.Equal(t, want.rows, got.rows, tc.sql)
		require.Len(t, fs.reqs, 1, tc.sql)
		// One that cuts the rows without sorting them (written before
		// Request.Order) is read again without the limit.
		fs = &fakeScans{frames: frames, legacy: true}
		got = mustRun(t, tc.sql, fs)
		require.Equal(t, want.rows, got.rows, tc.sql)
		if tc.order != "" {
			require.Len(t, fs.reqs, 2, tc.sql)
			require.Zero(t, fs.reqs[1].Limit, tc.sql)
			require.Nil(t, fs.reqs[1].Order, tc.sql)
		}
	}
}

// FuzzScanPushdown: for random filters over a small table the answer with
// a ScanResolver (filters, columns and limit pushed, some filters refused)
// is the answer without one.
func FuzzScanPushdown(f *testing.F) {
	for _, seed := range []int64{1, 2, 3, 42, 1234} {
		f.Add(seed)
	}
	tbl := frame(f, pushTable)
	frames := map[string]*dataframe.Frame{"t": tbl}
	plain := tables(frames)
	f.Fuzz(func(t *testing.T, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		where := randomFilter(rng, 3)
		skip := map[string]bool{}
		for _, c := range []string{"k", "x", "s", "b"} {
			if rng.Intn(3) == 0 {
				skip[c] = true
			}
		}
		fs := &fakeScans{frames: frames, skip: skip, noCols: rng.Intn(2) == 0}
		q := "SELECT id, k, x, s, b FROM t WHERE " + where
		want, werr := run(t, q, plain)
		got, gerr := run(t, q, fs)
		require.Equal(t, werr == nil, gerr == nil, "%s: %v / %v", q, werr, gerr)
		if werr != nil {
			return
		}
		require.Equal(t, want.schema, got.schema, q)
		sort.Strings(want.rows)
		sort.Strings(got.rows)
		require.Equal(t, want.rows, got.rows, q)
		// With a limit: as many rows, each an answer of the full query.
		n := rng.Intn(4)
		lim, err := run(t, fmt.Sprintf("%s LIMIT %d", q, n), fs)
		require.NoError(t, err)
		require.Len(t, lim.rows, min(n, len(want.rows)), q)
		for _, r := range lim.rows {
			require.Contains(t, want.rows, r, q)
		}
	})
}

// randomFilter is a WHERE condition over pushTable's columns: comparisons,
// IN, IS NULL, BETWEEN, <=>, boolean columns, AND, OR, NOT, and conditions
// that do not translate (functions, string casts).
func randomFilter(rng *rand.Rand, depth int) string {
	atoms := []func() string{
		func() string {
			return fmt.Sprintf("k %s %d", pick(rng, "=", "<>", "<", "<=", ">", ">=", "<=>"), rng.Intn(12)-3)
		},
		func() string {
			return fmt.Sprintf("x %s %.1f", pick(rng, "=", "!=", "<", ">="), float64(rng.Intn(8))-1.5)
		},
		func() string {
			return fmt.Sprintf("s %s '%s'", pick(rng, "=", "<", ">", "<>"), pick(rng, "ant", "Bee", "cat", "zzz", ""))
		},
		func() string {
			return fmt.Sprintf("k %sIN (%d, %d%s)", pick(rng, "", "NOT "), rng.Intn(8), rng.Intn(8), pick(rng, "", ", NULL"))
		},
		func() string {
			return fmt.Sprintf("%s IS %sNULL", pick(rng, "k", "x", "s", "b"), pick(rng, "", "NOT "))
		},
		func() string {
			return fmt.Sprintf("x %sBETWEEN %d AND %d", pick(rng, "", "NOT "), rng.Intn(3)-1, rng.Intn(5))
		},
		func() string { return pick(rng, "b", "NOT b", "b = true", "b <=> NULL") },
		func() string { return fmt.Sprintf("upper(s) = '%s'", pick(rng, "ANT", "DOG")) },
		func() string { return fmt.Sprintf("s = %d", rng.Intn(3)) },
		func() string { return fmt.Sprintf("k + 1 > %d", rng.Intn(6)) },
		func() string { return pick(rng, "NULL", "true", "false", "k = NULL") },
	}
	if depth == 0 || rng.Intn(3) == 0 {
		return atoms[rng.Intn(len(atoms))]()
	}
	switch rng.Intn(3) {
	case 0:
		return "(" + randomFilter(rng, depth-1) + " AND " + randomFilter(rng, depth-1) + ")"
	case 1:
		return "(" + randomFilter(rng, depth-1) + " OR " + randomFilter(rng, depth-1) + ")"
	}
	return "NOT (" + randomFilter(rng, depth-1) + ")"
}

func pick(rng *rand.Rand, xs ...string) string { return xs[rng.Intn(len(xs))] }
