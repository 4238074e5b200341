package sql

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mapRow resolves dotted paths through nested maps, as dataframe rows do.
type mapRow map[string]any

func (m mapRow) Get(path string) (any, error) {
	var cur any = map[string]any(m)
	for _, seg := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no field %q", path)
		}
		if cur, ok = obj[seg]; !ok {
			return nil, fmt.Errorf("no field %q", path)
		}
	}
	return cur, nil
}

func where(t *testing.T, cond string) Predicate {
	t.Helper()
	st, err := ParseOne("SELECT * FROM t WHERE " + cond)
	require.NoError(t, err)
	pl, err := st.(*Select).Plan()
	require.NoError(t, err)
	return pl.Where
}

func TestWhereThreeValuedLogic(t *testing.T) {
	t.Parallel()
	row := mapRow{
		"s": "a", "n": nil, "l": int64(5), "i": int32(5), "d": 2.5, "b": true, "f": false,
		"ts":   time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
		"page": map[string]any{"total": int64(7), "token": nil},
	}
	tests := []struct {
		cond string
		want bool
	}{
		{"s = 'a'", true},
		{"s != 'a'", false},
		{"s <> 'b'", true},
		{"n <> 'a'", false},     // NULL <> 'a' is unknown, not true
		{"NOT n <> 'a'", false}, // NOT unknown is unknown
		{"n = 'a'", false},
		{"n IS NULL", true},
		{"n IS NOT NULL", false},
		{"s IS NULL", false},
		{"n = NULL", false},
		{"NOT (n = NULL)", false},
		{"n <> 'a' OR TRUE", true}, // unknown OR true = true
		{"n <> 'a' OR FALSE", false},
		{"NOT (n <> 'a' AND FALSE)", true}, // unknown AND false = false
		{"NOT (n <> 'a' AND TRUE)", false},
		{"l = 5", true},
		{"l = 5.0", true},
		{"i = l", true},
		{"d < l", true},
		{"d >= 2.5", true},
		{"d > 2.5", false},
		{"l <= -1", false},
		{"page.total > 6", true},
		{"page.token IS NULL", true},
		{"b", true},
		{"f", false},
		{"NOT f", true},
		{"b = true AND f = false", true},
		{"f < b", true},
		{"ts = '2024-05-01T10:00:00Z'", true},
		{"ts > '2024-04-30'", true},
		{"s = 'a' AND (l = 1 OR d = 2.5)", true},
		{"s = 'a' AND l = 1 OR d = 2.5", true},
		{"s = 'b' AND (l = 1 OR d = 2.5)", false},
		{"'a' < 'b'", true},
		{"NULL", false},
		{"NOT NULL IS NULL", false},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			t.Parallel()
			got, err := where(t, tt.cond)(row)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestWhereErrors(t *testing.T) {
	t.Parallel()
	row := mapRow{"s": "a", "l": int64(5), "arr": []any{int64(1)}, "ts": time.Unix(0, 0).UTC()}
	tests := []struct {
		cond string
		want string
	}{
		{"s = 1", "WHERE: cannot compare column s (string) with 1 (long)"},
		{"l > 'x'", "WHERE: cannot compare column l (long) with 'x' (string)"},
		{"s = l", "WHERE: cannot compare column s (string) with column l (long)"},
		{"arr = 1", "WHERE: cannot compare column arr (array) with 1 (long)"},
		{"ts < 'yesterday'", "WHERE: cannot compare column ts (timestamp) with 'yesterday' (string)"},
		{"s", "WHERE: column s is string, not boolean"},
		{"missing = 1", `WHERE: column missing: no field "missing"`},
		{"s = 'a' AND nope.x = 1", `WHERE: column nope.x: no field "nope.x"`},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			t.Parallel()
			_, err := where(t, tt.cond)(row)
			require.EqualError(t, err, tt.want)
		})
	}
}

func BenchmarkParseBatch100(b *testing.B) {
	kinds := []string{
		"CREATE EXTERNAL TABLE IF NOT EXISTS yt.subs%d (payload string) TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url.pattern'='svc.restapi.pattern.subs')",
		"SET svc.restapi.pattern.subs=https://{svc.restapi.baseURL}/youtube/v3/subscriptions?part=snippet%%2CcontentDetails&channelId=%d",
		"SELECT id, snippet.title AS title, pageInfo.totalResults FROM yt.subs%d WHERE (snippet.title <> 'x' AND pageInfo.totalResults >= 5) OR id IS NULL LIMIT 10",
		"INSERT INTO yt.out%d VALUES ('{\"a\":1}'), ('{\"b\":2}'), (NULL)",
		"DESCRIBE TABLE yt.subs%d",
	}
	var sb strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&sb, kinds[i%len(kinds)]+";\n", i)
	}
	batch := sb.String()
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stmts, _, err := PlanBatch(batch)
		if err != nil || len(stmts) != 100 {
			b.Fatal(err, len(stmts))
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "statements/s")
}

func TestTableQualifiers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sql   string
		paths []string // projection paths
		where string   // the WHERE column path the row sees
	}{
		{"SELECT s.id, s.snippet.title FROM yt.subs s WHERE s.kind = 'k'", []string{"id", "snippet.title"}, "kind"},
		{"SELECT x.id FROM yt.subs AS x WHERE x.kind = 'k'", []string{"id"}, "kind"},
		{"SELECT subs.id, yt.subs.snippet FROM yt.subs WHERE subs.kind = 'k'", []string{"id", "snippet"}, "kind"},
		{"SELECT id, snippet.title FROM yt.subs WHERE snippet.kind = 'k'", []string{"id", "snippet.title"}, "snippet.kind"},
		// With an alias the table name is an ordinary column again.
		{"SELECT subs.id FROM yt.subs s WHERE subs.kind = 'k'", []string{"subs.id"}, "subs.kind"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			t.Parallel()
			st, err := ParseOne(tt.sql)
			require.NoError(t, err)
			pl, err := st.(*Select).Plan()
			require.NoError(t, err)
			var paths []string
			for _, p := range pl.Projections {
				paths = append(paths, p.Path)
			}
			require.Equal(t, tt.paths, paths)
			var seen string
			ok, err := pl.Where(rowFunc(func(path string) (any, error) { seen = path; return "k", nil }))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, tt.where, seen)
		})
	}
}

type rowFunc func(path string) (any, error)

func (f rowFunc) Get(path string) (any, error) { return f(path) }
