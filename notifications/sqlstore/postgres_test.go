package sqlstore

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/storetest"
	"github.com/stretchr/testify/require"
)

// postgresTarget gives each test its own schema in the database named by
// SLUICE_TEST_POSTGRES_DSN (storetest.PostgresDSN), dropped after.
func postgresTarget(t *testing.T) storetest.Target {
	t.Helper()
	if os.Getenv("SLUICE_TEST_POSTGRES_DSN") == "" {
		t.Skip("SLUICE_TEST_POSTGRES_DSN is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	return storetest.Target{
		Dialect: "postgres", Open: openStore, Batches: batches, ScanPage: scanPage, FirstMigration: firstMigration("postgres"),
		NewDSN: func(t *testing.T) string {
			t.Helper()
			return storetest.PostgresDSN(t)
		},
		Exec:     pgExec,
		LoseLock: pgLoseLock,
	}
}

// pgLoseLock terminates the session holding s's lock for job, as a
// connection cut or an administrator's pg_terminate_backend would.
func pgLoseLock(t *testing.T, s queue.Store, dsn, job string) {
	t.Helper()
	key := s.(*pgStore).lockKey("job", job)
	pgExec(t, dsn, fmt.Sprintf(`SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 1
		AND ((classid::bigint << 32) | objid::bigint) = %d`, key))
}

func pgExec(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	require.NoError(t, err)
}

func TestPostgresStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, postgresTarget(t))
}

func TestPostgresRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	tg := postgresTarget(t)
	dsn := tg.NewDSN(t)
	s, err := Open(context.Background(), dsn)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	tg.Exec(t, dsn, `INSERT INTO schema_migrations (version) VALUES (9999)`)
	_, err = Open(context.Background(), dsn)
	require.ErrorContains(t, err, "version 9999")
}

func TestPostgresMissingSchema(t *testing.T) {
	t.Parallel()
	tg := postgresTarget(t)
	u, err := url.Parse(os.Getenv("SLUICE_TEST_POSTGRES_DSN"))
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", "sluice_no_such_schema")
	u.RawQuery = q.Encode()
	_ = tg
	_, err = Open(context.Background(), u.String())
	require.ErrorContains(t, err, "search_path names no existing schema")
}
