package pipelines

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// runOver runs a filter's query over frames with the run's error mapping.
func runOver(ctx context.Context, s catalog.TableReader, q query.Query, frames map[string]*dataframe.Frame, prefix string) (*dataframe.Frame, error) {
	f, err := catalog.QueryFrames(ctx, s, q, frames)
	if err != nil {
		return nil, queryErr(err, prefix)
	}
	return f, nil
}

func TestParseQuery(t *testing.T) {
	t.Parallel()
	q, err := parseQuery("select a.b as x, `weird name` y, c FROM ns.tbl where (c >= 2 OR c IS NULL) AND NOT a.b = 'it''s' limit 10;")
	require.NoError(t, err)
	require.Equal(t, "ns.tbl", q.From)
	require.True(t, q.FromTable)
	sel := q.ast.(*query.Select)
	require.Equal(t, "10", sel.Limit.String())
	require.Len(t, sel.Items, 3)

	q, err = parseQuery("SELECT * FROM items -- all of it\n")
	require.NoError(t, err)
	require.Equal(t, "items", q.From)
	require.False(t, q.FromTable)

	q, err = parseQuery("SELECT i.id, t.n FROM items i JOIN ns.tags t ON i.id = t.id UNION ALL SELECT id, 1 FROM items")
	require.NoError(t, err)
	require.Equal(t, []string{"items", "ns.tags"}, q.Tables)

	// The steps and tables subqueries read are inputs too.
	q, err = parseQuery("SELECT id, (SELECT max(n) FROM counts c WHERE c.id = i.id) FROM items i " +
		"WHERE id IN (SELECT id FROM ns.keep) AND NOT EXISTS (SELECT 1 FROM drops d JOIN ns.why w ON d.r = w.r WHERE d.id = i.id)")
	require.NoError(t, err)
	require.Equal(t, []string{"items", "counts", "ns.keep", "drops", "ns.why"}, q.Tables)
}

func TestQueryAndFilterErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src, want string
		filter    bool
	}{
		{src: "SELEC a FROM b", want: "line 1, column 1: "},
		{src: "SELECT a FROM t WHERE a = 'x", want: "line 1, column 27: "},
		{src: "SELECT a\nFROM t\nWHERE a ! 1", want: "line 3, column 9: "},
		{src: "SELECT a FROM t; SELECT b FROM t", want: "want exactly one statement"},
		{src: "SET a=b", want: "an sql step runs one SELECT"},
		{src: "a = = 1", want: "line 1, column 5: ", filter: true},
		{src: "a = 1\n  AND = 2", want: "line 2, column 7: ", filter: true},
		{src: "a = 1 LIMIT 3", want: "a filter is a WHERE expression only", filter: true},
		{src: "a CLUSTER BY b", want: "line 1, column 3: CLUSTER BY is not supported", filter: true},
	}
	for _, tt := range tests {
		var err error
		if tt.filter {
			_, err = parseFilter(tt.src)
		} else {
			_, err = parseQuery(tt.src)
		}
		require.Error(t, err, tt.src)
		require.ErrorContains(t, err, tt.want, tt.src)
	}
}

// TestFilterSemantics runs WHERE expressions over a real frame: SQL's
// three-valued logic, numbers across widths, timestamps against strings.
func TestFilterSemantics(t *testing.T) {
	t.Parallel()
	ts := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	f, err := jsonframe.FromValues([]string{"id", "s", "n", "f", "b", "t"}, [][]any{
		{int64(1), "FAILED", int64(3), 2.5, true, ts},
		{int64(2), "SUCCESS", int64(1), 0.5, false, ts.Add(-48 * time.Hour)},
		{int64(3), nil, nil, nil, nil, nil},
	})
	require.NoError(t, err)
	defer f.Release()
	tests := []struct {
		expr string
		want []int64
	}{
		{"s = 'FAILED'", []int64{1}},
		{"s <> 'FAILED'", []int64{2}}, // NULL <> 'FAILED' is not true
		{"s != 'x' OR s IS NULL", []int64{1, 2, 3}},
		{"n > 2", []int64{1}},
		{"n >= 1 AND f < 1", []int64{2}},
		{"NOT (n = 3)", []int64{2}},
		{"b = TRUE", []int64{1}},
		{"b", []int64{1}},
		{"NOT b", []int64{2}},
		{"n IS NULL", []int64{3}},
		{"f = 2.5", []int64{1}},
		{"t > '2024-04-30'", []int64{1}},
		{"t = '2024-05-01T10:00:00.000Z'", []int64{1}},
	}
	for _, tt := range tests {
		where, err := parseFilter(tt.expr)
		require.NoError(t, err, tt.expr)
		g, err := runOver(context.Background(), nil, where, map[string]*dataframe.Frame{"_": f}, filterPrefix)
		require.NoError(t, err, tt.expr)
		var got []int64
		require.NoError(t, g.EachRowJSON(func(_ int64, obj []byte) error {
			var id int64
			_, err := fmtSscanID(string(obj), &id)
			got = append(got, id)
			return err
		}))
		g.Release()
		require.Equal(t, tt.want, got, tt.expr)
	}
	where, err := parseFilter("ids = 1")
	require.NoError(t, err)
	_, err = runOver(context.Background(), nil, where, map[string]*dataframe.Frame{"_": f}, filterPrefix)
	require.EqualError(t, err, `line 1, column 1: unknown column ids (did you mean id?)`)
	where, err = parseFilter("n + 'x' > 1 AND 1")
	require.NoError(t, err)
	_, err = runOver(context.Background(), nil, where, map[string]*dataframe.Frame{"_": f}, filterPrefix)
	require.EqualError(t, err, `line 1, column 17: 1 is integer, not a boolean`)
}

// fmtSscanID reads the leading {"id":N of a row's JSON.
func fmtSscanID(obj string, id *int64) (int, error) {
	return fmt.Sscanf(obj, `{"id":%d`, id)
}
