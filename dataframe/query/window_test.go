package query_test

import (
	"testing"
)

func TestWindowDebug(t *testing.T) {
	for _, q := range []string{
		"SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY b DESC) rn, rank() OVER (ORDER BY a) FROM VALUES (1, 2), (1, 3), (2, 5), (1, 3), (2, NULL) AS t(a, b)",
		"SELECT a, b, rank() OVER (ORDER BY a), lag(b) OVER (PARTITION BY a ORDER BY b) FROM VALUES (1, 2), (1, 3), (2, 5), (1, 3), (2, NULL) AS t(a, b)",
		"SELECT a, b, lag(b) OVER (PARTITION BY a ORDER BY b), rank() OVER (ORDER BY a) FROM VALUES (1, 2), (1, 3), (2, 5), (1, 3), (2, NULL) AS t(a, b)",
	} {
		res, err := run(t, q, testTables(t))
		t.Log(q, res, err)
	}
}
