package pipelines

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	q, err := ParseQuery("select a.b as x, `weird name` y, c FROM ns.tbl where (c >= 2 OR c IS NULL) AND NOT a.b = 'it''s' limit 10;")
	require.NoError(t, err)
	require.Equal(t, []Projection{{"a.b", "x"}, {"weird name", "y"}, {"c", ""}}, q.Columns)
	require.Equal(t, "ns.tbl", q.From)
	require.Equal(t, int64(10), q.Limit)
	require.Equal(t, "((c >= 2 OR c IS NULL) AND NOT a.b = 'it''s')", q.Where.String())

	q, err = ParseQuery("SELECT * FROM items -- all of it\n")
	require.NoError(t, err)
	require.True(t, q.Star)
	require.Nil(t, q.Where)
	require.Equal(t, int64(-1), q.Limit)
}

func TestParseQueryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"SELEC a FROM b", "line 1, column 1: expected SELECT, found \"SELEC\""},
		{"SELECT FROM b", "line 1, column 8: expected a column, found \"FROM\""},
		{"SELECT a b c FROM t", "line 1, column 12: expected FROM, found \"c\""},
		{"SELECT a FROM t WHERE a = 'x", "line 1, column 27: unterminated string"},
		{"SELECT a\nFROM t\nWHERE a ! 1", "line 3, column 9: unexpected '!'"},
		{"SELECT a FROM t LIMIT -1", "line 1, column 23: LIMIT wants a non-negative integer"},
		{"SELECT a FROM t; SELECT b FROM t", "line 1, column 18: unexpected \"SELECT\" (one SELECT per sql step)"},
		{"SELECT a FROM t WHERE a IS 3", "line 1, column 28: expected NULL after IS"},
		{"SELECT a FROM t WHERE (a = 1", "line 1, column 29: expected ')', found end of query"},
		{"SELECT a FROM t WHERE a + 1 = 2", "line 1, column 25: unexpected \"+\" (arithmetic is not supported)"},
	}
	for _, tt := range tests {
		_, err := ParseQuery(tt.src)
		require.Error(t, err, tt.src)
		require.ErrorContains(t, err, tt.want, tt.src)
		var se *SyntaxError
		require.ErrorAs(t, err, &se)
	}
}

func TestExprEval(t *testing.T) {
	t.Parallel()
	ts := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	row := map[string]any{
		"s": "FAILED", "n": int64(3), "i": int32(2), "f": 2.5, "b": true, "null": nil, "t": ts,
		"num": "12", "nested.x": "deep",
	}
	get := func(p string) (any, error) { return row[p], nil }
	tests := []struct {
		expr string
		want any // true, false or nil (unknown)
	}{
		{"s = 'FAILED'", true},
		{"s != 'FAILED'", false},
		{"s <> 'x'", true},
		{"s < 'G'", true},
		{"n = 3", true},
		{"n > 2.5", true},
		{"i <= 2", true},
		{"f >= 2.5", true},
		{"n = i", false},
		{"num = 12", true}, // string cast to number
		{"s = 12", nil},    // failed cast: unknown
		{"b = TRUE", true},
		{"b", true},
		{"NOT b", false},
		{"null = 1", nil},
		{"null <> 'a'", nil}, // NULL <> 'a' is not true
		{"null IS NULL", true},
		{"s IS NOT NULL", true},
		{"null IS NOT NULL", false},
		{"null = 1 AND FALSE", false},
		{"null = 1 AND TRUE", nil},
		{"null = 1 OR TRUE", true},
		{"null = 1 OR FALSE", nil},
		{"NOT null = 1", nil},
		{"t = '2024-05-01T10:00:00.000Z'", true},
		{"t > '2024-04-30'", true},
		{"t < '2024-05-01 09:00:00'", false},
		{"nested.x = 'deep'", true},
		{"(n = 3 OR s = 'x') AND NOT (f < 1)", true},
		{"n = -3", false},
		{"f = 25e-1", true},
	}
	for _, tt := range tests {
		e, err := ParseExpr(tt.expr)
		require.NoError(t, err, tt.expr)
		got, err := e.eval(get)
		require.NoError(t, err, tt.expr)
		require.Equal(t, tt.want, got, tt.expr)
	}

	e, err := ParseExpr("s = b2")
	require.NoError(t, err)
	row["b2"] = map[string]any{"x": 1}
	_, err = e.eval(get)
	require.ErrorContains(t, err, "cannot compare a string with a struct")

	e, err = ParseExpr("n AND b")
	require.NoError(t, err)
	_, err = e.eval(get)
	require.ErrorContains(t, err, "n is not a boolean")
}
