package catalog_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

// TestInsertOverwrite: INSERT OVERWRITE [TABLE] t SELECT … replaces the
// table's rows, whatever its write mode (docs/sql.md#statements).
func TestInsertOverwrite(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	ctx := context.Background()
	dir := t.TempDir()
	exec(t, s, "CREATE TABLE m (id int, s string) USING parquet")
	exec(t, s, fmt.Sprintf(`CREATE TABLE lake.e (id int, s string) TBLPROPERTIES ('svc.storage.type'='PARQUET',
		'svc.parquet.path'='%s/e/', 'svc.parquet.mode'='append')`, dir))
	for _, table := range []string{"m", "lake.e"} {
		exec(t, s, "INSERT INTO "+table+" VALUES (1, 'a'), (2, 'b')")
		exec(t, s, "INSERT INTO "+table+" SELECT 3, 'c'")
		require.Equal(t, []string{`{"n":3}`}, exec(t, s, "SELECT count(*) AS n FROM "+table))
		require.Equal(t, []string{`{"num_affected_rows":1,"num_inserted_rows":1}`},
			exec(t, s, "INSERT OVERWRITE TABLE "+table+" SELECT id * 10, s FROM "+table+" WHERE id = 2"))
		require.Equal(t, []string{`{"id":20,"s":"b"}`}, exec(t, s, "SELECT * FROM "+table), table)
		exec(t, s, "INSERT OVERWRITE "+table+" VALUES (7, 'x')")
		exec(t, s, "INSERT INTO "+table+" (s, id) VALUES ('y', 8)")
		require.Equal(t, []string{`{"id":7,"s":"x"}`, `{"id":8,"s":"y"}`}, exec(t, s, "SELECT * FROM "+table+" ORDER BY id"), table)
		// Overwriting with no rows empties the table.
		exec(t, s, "INSERT OVERWRITE "+table+" SELECT * FROM "+table+" WHERE id < 0")
		require.Equal(t, []string{`{"n":0}`}, exec(t, s, "SELECT count(*) AS n FROM "+table))
	}

	// A table that cannot replace its rows refuses, writing nothing.
	exec(t, s, `CREATE TABLE api.events TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/events')`)
	_, err := s.ExecuteBatch(ctx, "INSERT OVERWRITE api.events SELECT 1 AS id")
	require.ErrorContains(t, err, "INSERT OVERWRITE api.events: a RESTAPI table cannot replace its rows")

	for _, bad := range []string{"INSERT OVERWRITE m PARTITION (id = 1) SELECT 's'", "INSERT m SELECT 1, 'a'"} {
		_, err := sqlparse.Parse(bad)
		require.Error(t, err, bad)
	}
}

// TestInsertOverwriteJDBC: INSERT OVERWRITE into a database table replaces
// its rows, the table itself (definition, grants) staying.
func TestInsertOverwriteJDBC(t *testing.T) {
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		s, _ := newSession(t)
		db.Exec(t, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO items VALUES (1, 'old'), (2, 'old')")
		exec(t, s, fmt.Sprintf(`CREATE TABLE db.items TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='%s',
			'svc.jdbc.dbtable'='items')`, db.URL))
		exec(t, s, "INSERT OVERWRITE TABLE db.items SELECT 5 AS id, 'new' AS name UNION ALL SELECT 6, 'new'")
		require.Equal(t, [][]string{{"5", "new"}, {"6", "new"}}, db.Query(t, "SELECT id, name FROM items ORDER BY id"))
		exec(t, s, "INSERT INTO db.items VALUES (7, 'more')")
		require.Equal(t, [][]string{{"3"}}, db.Query(t, "SELECT COUNT(*) FROM items"))
	})
}
