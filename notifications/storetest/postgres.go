package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// PostgresDSN returns SLUICE_TEST_POSTGRES_DSN pointed (through
// search_path) at a fresh scratch schema that is dropped after the test, or
// skips the test when the variable is not set. Tests sharing one database
// never see each other's tables or migration versions.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv("SLUICE_TEST_POSTGRES_DSN")
	if base == "" {
		t.Skip("SLUICE_TEST_POSTGRES_DSN is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable): skipping the Postgres test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "sluice_t_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, base)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+schema)
	conn.Close(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if c, err := pgx.Connect(ctx, base); err == nil {
			_, _ = c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
