package storetest_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// The suite itself, run against the SQLite store from its own package
// (notifications/sqlstore runs it with its batch functions and Postgres).
func TestSuiteOnSQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Target{
		Dialect: "sqlite",
		NewDSN:  func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "n.db") },
		Exec: func(t *testing.T, dsn, q string) {
			t.Helper()
			db, err := sql.Open("sqlite", dsn[len("sqlite:"):]+"?_busy_timeout=10000")
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec(q)
			require.NoError(t, err)
		},
		Open: func(ctx context.Context, dsn string, o storetest.Options) (queue.Store, error) {
			var opts []sqlstore.Option
			if o.Clock != nil {
				opts = append(opts, sqlstore.WithClock(o.Clock))
			}
			if o.ClaimLease > 0 {
				opts = append(opts, sqlstore.WithClaimLease(o.ClaimLease))
			}
			return sqlstore.Open(ctx, dsn, opts...)
		},
	})
}

func TestClock(t *testing.T) {
	t.Parallel()
	c := storetest.NewClock(storetest.T0)
	require.Equal(t, storetest.T0, c.Now())
	c.Advance(90e9)
	require.Equal(t, storetest.T0.Add(90e9), c.Now())
	c.Set(storetest.T0)
	require.Equal(t, storetest.T0, c.Now())
	d := storetest.Delivery("wbh-1", "usr-1", storetest.T0)
	require.Equal(t, "USR", d.NotificationType)
	require.Empty(t, d.Source, "the HMC source")
}
