package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecoveredPanicNamesItsSite(t *testing.T) {
	t.Parallel()
	err := func() (err error) {
		defer recoverError(&err)
		var m map[string]int
		m["x"]++ // a planner bug
		return nil
	}()
	require.ErrorContains(t, err, "query: internal error: assignment to entry in nil map (at panic_test.go:")
	require.ErrorContains(t, err, "please report it with the query")
}
