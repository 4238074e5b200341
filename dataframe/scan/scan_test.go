package scan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	t.Parallel()
	e := And{
		Left: Compare{Op: ">=", Left: Column{Name: "d"}, Right: Literal{Value: time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC), Type: "date"}},
		Right: Or{
			Left:  In{Expr: Column{Name: "na`me"}, List: []Literal{{Value: "o'k", Type: "string"}, {Value: nil, Type: "string"}}, Not: true},
			Right: Not{Expr: IsNull{Expr: Column{Name: "amount"}, Not: true}},
		},
	}
	require.Equal(t, "((`d` >= DATE '2024-04-01') AND ((`na``me` NOT IN ('o''k', NULL)) OR (NOT (`amount` IS NOT NULL))))", e.String())
	require.Equal(t, []string{"d", "na`me", "amount"}, Columns(e))
	b := Between{Expr: Column{Name: "x"}, Lo: Literal{Value: int64(1), Type: "long"}, Hi: Literal{Value: "2.50", Type: "decimal(3,2)"}}
	require.Equal(t, "(`x` BETWEEN 1 AND 2.50)", b.String())
	require.Equal(t, []string{"x"}, Columns(b))
}
