package sqlparse

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query"
)

func selectOf(t *testing.T, text string) *query.Select {
	t.Helper()
	st, err := ParseOne(text)
	require.NoError(t, err, text)
	s, ok := st.(*Select).Query.(*query.Select)
	require.True(t, ok, text)
	return s
}

func TestParseWindows(t *testing.T) {
	t.Parallel()
	s := selectOf(t, `SELECT a, sum(b) FILTER (WHERE b > 0), first(b IGNORE NULLS), lag(b, 2) IGNORE NULLS OVER w AS l,
		rank() OVER (PARTITION BY a ORDER BY b DESC NULLS FIRST ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING),
		count(*) OVER (w2 RANGE 3 PRECEDING), percentile_cont(0.5) WITHIN GROUP (ORDER BY b DESC) OVER ()
		FROM t WINDOW w AS (ORDER BY b), w2 AS (PARTITION BY a)`)
	require.Len(t, s.Items, 7)
	sum := s.Items[1].Expr.(*query.Call)
	require.NotNil(t, sum.Filter)
	require.Equal(t, "IGNORE", s.Items[2].Expr.(*query.Call).Nulls)
	lag := s.Items[3].Expr.(*query.Call)
	require.Equal(t, "IGNORE", lag.Nulls)
	require.Equal(t, "w", lag.Over.Ref)
	require.Equal(t, "l", s.Items[3].Alias)
	rank := s.Items[4].Expr.(*query.Call).Over
	require.Len(t, rank.PartitionBy, 1)
	require.True(t, rank.OrderBy[0].Desc)
	require.True(t, *rank.OrderBy[0].NullsFirst)
	require.True(t, rank.Frame.Rows)
	require.Equal(t, query.Preceding, rank.Frame.Start.Kind)
	require.Equal(t, query.UnboundedFollowing, rank.Frame.End.Kind)
	cnt := s.Items[5].Expr.(*query.Call).Over
	require.Equal(t, "w2", cnt.Ref)
	require.False(t, cnt.Frame.Rows)
	require.Equal(t, query.CurrentRow, cnt.Frame.End.Kind)
	pc := s.Items[6].Expr.(*query.Call)
	require.Len(t, pc.WithinGroup, 1)
	require.NotNil(t, pc.Over)
	require.Len(t, s.Windows, 2)
	require.Equal(t, "w2", s.Windows[1].Name)
}

func TestParseGroupingSets(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"SELECT 1 FROM t GROUP BY ROLLUP(a, (b, c))":                       "[ROLLUP((a), (b, c))]",
		"SELECT 1 FROM t GROUP BY a, CUBE(b, c)":                           "[a CUBE((b), (c))]",
		"SELECT 1 FROM t GROUP BY GROUPING SETS((a, b), (), a, ROLLUP(c))": "[GROUPING SETS((a, b), (), (a), (ROLLUP((c))))]",
		"SELECT 1 FROM t GROUP BY a, b WITH ROLLUP":                        "[ROLLUP((a), (b))]",
		"SELECT 1 FROM t GROUP BY a, b GROUPING SETS ((a), (b))":           "[GROUPING SETS((a), (b))]",
		"SELECT 1 FROM t GROUP BY ROLLUP((a + b) * 2, c)":                  "[ROLLUP((((a + b) * 2)), (c))]",
		"SELECT 1 FROM t GROUP BY ALL":                                     "[ALL]",
	} {
		s := selectOf(t, text)
		var parts []string
		for _, g := range s.GroupBy {
			parts = append(parts, g.String())
		}
		require.Equal(t, want, "["+join(parts)+"]", text)
	}
	for text, want := range map[string]string{
		"SELECT 1 FROM t GROUP BY ROLLUP(a, ())":                "an empty set () in ROLLUP is not supported",
		"SELECT 1 FROM t GROUP BY CUBE(a, b), c WITH ROLLUP":    "ROLLUP cannot be mixed with CUBE",
		"SELECT sum(a) OVER (ORDER BY a ROWS 1) FROM t":         "PRECEDING or FOLLOWING after a frame offset",
		"SELECT sum(a) OVER (ORDER BY a ROWS UNBOUNDED) FROM t": "PRECEDING or FOLLOWING after UNBOUNDED",
	} {
		_, err := ParseOne(text)
		require.ErrorContains(t, err, want, text)
	}
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += " "
		}
		out += p
	}
	return out
}
