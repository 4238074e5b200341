package jdbc

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// In a database whose encoding is not UTF-8, COLLATE "C" compares other
// bytes than Spark's: string columns take no pushed comparison or order;
// numbers still do.
func TestPostgresNonUTF8StringsNotPushed(t *testing.T) {
	dsn := os.Getenv("SLUICE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("SLUICE_TEST_POSTGRES_DSN is not set: no PostgreSQL to create a LATIN1 database in")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer admin.Close(ctx)
	name := fmt.Sprintf("sluice_latin1_%d", time.Now().UnixNano())
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")
	require.NoError(t, err)
	defer func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}()
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	u.Path = "/" + name
	tgt, err := parseURL(u.String())
	require.NoError(t, err)
	c, err := postgres{}.open(ctx, tgt, 30*time.Second, func(string) {})
	require.NoError(t, err)
	defer c.close()
	_, err = c.exec(ctx, "CREATE TABLE t (s text, n bigint)")
	require.NoError(t, err)
	cols, err := c.describe(ctx, "SELECT * FROM t", nil)
	require.NoError(t, err)
	require.Equal(t, "string", cols[0].Spark)
	require.False(t, cols[0].pushable, "a LATIN1 text column")
	require.True(t, cols[1].pushable, "a bigint column")
	_, ok := postgres{}.exactOperand(`"s"`, cols[0])
	require.False(t, ok)
}
