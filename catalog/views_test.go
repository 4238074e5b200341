package catalog_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Temporary views: session-scoped names for queries, as Spark's
// CREATE TEMPORARY VIEW (the golden files set up their tables this way).
func TestTemporaryViews(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	exec(t, s, `CREATE TEMPORARY VIEW nt1 AS SELECT * FROM VALUES ('one', 1), ('two', 2), ('three', 3) AS nt1(k, v1);
		CREATE OR REPLACE TEMP VIEW nt2(k, v2) AS VALUES ('one', 1), ('two', 22), ('one', 5)`)
	require.Empty(t, exec(t, s, "SELECT * FROM nt1 WHERE false"))
	require.Equal(t, []string{
		`{"k":"one","v1":1,"v2":1}`,
		`{"k":"one","v1":1,"v2":5}`,
		`{"k":"three","v1":3,"v2":null}`,
		`{"k":"two","v1":2,"v2":22}`,
	}, exec(t, s, "SELECT * FROM nt1 LEFT JOIN nt2 USING (k) ORDER BY k, v2"))
	// A view is analysed where it is used: another view over it sees its
	// replacement.
	exec(t, s, "CREATE TEMPORARY VIEW big AS SELECT k FROM nt2 WHERE v2 > 4")
	require.Equal(t, []string{`{"k":"two"}`, `{"k":"one"}`}, exec(t, s, "SELECT * FROM big"))
	exec(t, s, "CREATE OR REPLACE TEMPORARY VIEW nt2 AS SELECT 'x' AS k, 9 AS v2")
	require.Equal(t, []string{`{"k":"x"}`}, exec(t, s, "SELECT * FROM big"))
	require.Equal(t, []string{
		`{"namespace":"","tableName":"big","isTemporary":true}`,
		`{"namespace":"","tableName":"nt1","isTemporary":true}`,
		`{"namespace":"","tableName":"nt2","isTemporary":true}`,
	}, exec(t, s, "SHOW TABLES"))

	for q, want := range map[string]string{
		"CREATE TEMPORARY VIEW nt1 AS SELECT 1":           "temporary view nt1 already exists",
		"CREATE TEMPORARY VIEW v(a, b) AS SELECT 1":       "view v has 1 columns but the alias list names 2",
		"CREATE TEMPORARY VIEW v AS SELECT nope FROM nt1": "unknown column nope",
		"DROP VIEW nope":            "temporary view nope does not exist",
		"CREATE VIEW v AS SELECT 1": "use CREATE TEMPORARY VIEW",
		"CREATE OR REPLACE TEMPORARY VIEW nt2 AS SELECT * FROM big": "views nest more than",
	} {
		_, err := s.ExecuteBatch(context.Background(), q)
		require.ErrorContains(t, err, want, q)
	}
	exec(t, s, "CREATE TEMPORARY VIEW IF NOT EXISTS nt1 AS SELECT 1; DROP VIEW big; DROP VIEW IF EXISTS big")
	_, err := s.ExecuteBatch(context.Background(), "SELECT * FROM big")
	require.ErrorContains(t, err, "big")
	// Views belong to their session.
	other, _ := newSession(t)
	_, err = other.ExecuteBatch(context.Background(), "SELECT * FROM nt1")
	require.Error(t, err)
}
