package jdbctest_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

func TestMySQLConfig(t *testing.T) {
	t.Parallel()
	for dsn, want := range map[string][4]string{
		"mysql://root@127.0.0.1:3306/test":      {"root", "", "127.0.0.1:3306", "test"},
		"jdbc:mysql://u:p%40ss@db.example/shop": {"u", "p@ss", "db.example:3306", "shop"},
		"root:pw@tcp(127.0.0.1:3307)/warehouse": {"root", "pw", "127.0.0.1:3307", "warehouse"},
		"mariadb://etl@[::1]:3306/orders":       {"etl", "", "[::1]:3306", "orders"},
	} {
		cfg, err := jdbctest.MySQLConfig(dsn)
		require.NoError(t, err, dsn)
		require.Equal(t, want, [4]string{cfg.User, cfg.Passwd, cfg.Addr, cfg.DBName}, dsn)
	}
	_, err := jdbctest.MySQLConfig("root@tcp(127.0.0.1:3306")
	require.Error(t, err)
}

// A scratch database exists for its test, and is gone after it.
func TestScratchDatabaseDropped(t *testing.T) {
	t.Parallel()
	for _, srv := range []struct {
		name   string
		open   func(testing.TB) *jdbctest.DB
		exists func(t *testing.T, name string) bool
	}{
		{"postgres", jdbctest.Postgres, func(t *testing.T, name string) bool {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := pgx.Connect(ctx, os.Getenv(jdbctest.PostgresEnv))
			require.NoError(t, err)
			defer c.Close(ctx)
			var n int
			require.NoError(t, c.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n))
			return n == 1
		}},
		{"mysql", jdbctest.MySQL, func(t *testing.T, name string) bool {
			cfg, err := jdbctest.MySQLConfig(os.Getenv(jdbctest.MySQLEnv))
			require.NoError(t, err)
			cfg.DBName = ""
			conn, err := mysql.NewConnector(cfg)
			require.NoError(t, err)
			db := sql.OpenDB(conn)
			defer db.Close()
			var n int
			require.NoError(t, db.QueryRow("SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n))
			return n == 1
		}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			var name string
			t.Run("scratch", func(t *testing.T) {
				db := srv.open(t)
				name = db.Name
				db.Exec(t, "CREATE TABLE x (a int)", "INSERT INTO x VALUES (1), (NULL)")
				require.Equal(t, [][]string{{"1"}, {"NULL"}}, db.Query(t, "SELECT a FROM x ORDER BY a IS NULL, a"))
				require.True(t, srv.exists(t, name))
				require.Contains(t, db.String(), name)
			})
			if name == "" {
				t.Skip("no server configured")
			}
			require.False(t, srv.exists(t, name), "dropped after its test")
		})
	}
}
