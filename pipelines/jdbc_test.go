package pipelines_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	_ "github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/pipelines"
)

// A pipeline from a JDBC table read incrementally (streamed) into a JDBC
// table written with `mode: merge, key: [id]`: the write sets the
// connector's mode and key, and the source's state is committed with the
// rows in the target database (docs/jdbc.md#exactly-once-end-to-end).
func TestRunJDBCIncrementalIntoJDBC(t *testing.T) {
	t.Parallel()
	src := jdbctest.Postgres(t)
	dst := jdbctest.MySQL(t)
	src.Exec(t, "CREATE TABLE orders (id int PRIMARY KEY, amount numeric(8,2), at timestamptz)",
		"INSERT INTO orders VALUES (1, 10.50, '2024-01-01T00:00:00Z'), (2, 20.00, '2024-01-02T00:00:00Z')")
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "cat"))
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = s.ExecuteBatch(ctx, fmt.Sprintf(`
		CREATE TABLE src.orders TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='%s',
		  'svc.jdbc.dbtable'='orders', 'svc.jdbc.incremental.cursor'='at');
		CREATE TABLE dwh.orders TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='%s', 'svc.jdbc.dbtable'='orders')`, src.URL, dst.URL))
	require.NoError(t, err)
	p, err := pipelines.Parse("orders.yaml", []byte(`name: orders
steps:
  - id: o
    read: {table: src.orders}
  - sql: SELECT id, amount * 2 AS doubled, at FROM o
  - write: {table: dwh.orders, mode: merge, key: [id]}
`), nil)
	require.NoError(t, err)
	run := func() {
		res, err := pipelines.Run(ctx, p, pipelines.Options{Session: s, DiscardOutput: true})
		require.NoError(t, err)
		_ = res
	}
	run()
	require.Equal(t, [][]string{{"1", "21.00"}, {"2", "40.00"}}, dst.Query(t, "SELECT id, CAST(doubled AS DECIMAL(8,2)) FROM orders ORDER BY id"))
	st, where, err := s.State(ctx, "src.orders")
	require.NoError(t, err)
	require.Equal(t, "dwh.orders", where)
	require.Equal(t, "2024-01-02T00:00:00Z", st.LastValue)
	require.Equal(t, [][]string{{"src.orders"}}, dst.Query(t, "SELECT table_name FROM sluice_state"))
	// The primary key came from the created table's merge key.
	require.Equal(t, [][]string{{"id"}}, dst.Query(t, "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders' AND CONSTRAINT_NAME = 'PRIMARY'"))

	src.Exec(t, "UPDATE orders SET amount = 25, at = '2024-01-03T00:00:00Z' WHERE id = 2", "INSERT INTO orders VALUES (3, 1, '2024-01-03T00:00:00Z')")
	run()
	require.Equal(t, [][]string{{"1", "21.00"}, {"2", "50.00"}, {"3", "2.00"}}, dst.Query(t, "SELECT id, CAST(doubled AS DECIMAL(8,2)) FROM orders ORDER BY id"))
	st, _, err = s.State(ctx, "src.orders")
	require.NoError(t, err)
	require.Equal(t, "2024-01-03T00:00:00Z", st.LastValue)
	require.ElementsMatch(t, []string{"2", "3"}, st.KeysAtLastValue)
}
