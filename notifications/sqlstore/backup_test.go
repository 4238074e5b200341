package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/storetest"
)

// The online backups docs/production.md#backups recommends — VACUUM INTO
// from another connection, and sqlite3's .backup when the CLI is installed
// — taken from a store that keeps acknowledging deliveries meanwhile: each
// copy passes SQLite's integrity check, opens as a store, and holds every
// delivery acknowledged before the backup began.
func TestSQLiteOnlineBackup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live := filepath.Join(dir, "live", "notifications.db")
	s := openAt(t, "sqlite:"+live)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tok := fmt.Sprintf("bk-%d-%d", g, i)
				if _, err := s.Enqueue(ctx, storetest.Delivery(tok, "usr-"+tok, storetest.T0)); err != nil {
					t.Errorf("enqueue %s: %v", tok, err)
					return
				}
				mu.Lock()
				acked = append(acked, tok)
				mu.Unlock()
			}
		}()
	}
	ackedNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), acked...)
	}
	require.Eventually(t, func() bool { return len(ackedNow()) >= 500 }, time.Minute, 5*time.Millisecond)

	type backup struct {
		name   string
		before []string
		path   string
	}
	var backups []backup

	// VACUUM INTO, as `sqlite3 live.db "VACUUM INTO 'copy.db'"` runs it.
	before := ackedNow()
	vacuumed := filepath.Join(dir, "vacuum-into.db")
	db, err := sql.Open("sqlite", "file:"+live+"?_busy_timeout=10000")
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, vacuumed)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	backups = append(backups, backup{"VACUUM INTO", before, vacuumed})

	if cli, err := exec.LookPath("sqlite3"); err == nil {
		before := ackedNow()
		copied := filepath.Join(dir, "dot-backup.db")
		out, err := exec.CommandContext(ctx, cli, live, ".timeout 10000", ".backup '"+copied+"'").CombinedOutput()
		require.NoError(t, err, "%s", out)
		backups = append(backups, backup{"sqlite3 .backup", before, copied})
	} else {
		t.Log("sqlite3 is not installed: the .backup copy is not checked")
	}
	require.Eventually(t, func() bool { return len(ackedNow()) > len(before)+100 }, time.Minute, 5*time.Millisecond,
		"intake goes on during and after the backup")
	close(stop)
	wg.Wait()

	for _, b := range backups {
		t.Run(b.name, func(t *testing.T) {
			db, err := sql.Open("sqlite", "file:"+b.path)
			require.NoError(t, err)
			var check string
			require.NoError(t, db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check))
			require.NoError(t, db.Close())
			require.Equal(t, "ok", check)
			restored := openAt(t, "sqlite:"+b.path)
			st, err := restored.Stats(ctx)
			require.NoError(t, err)
			require.GreaterOrEqual(t, st.ByStatus["PENDING"], int64(len(b.before)))
			for _, tok := range b.before {
				_, err := restored.Get(ctx, tok)
				require.NoError(t, err, "a delivery acknowledged before the backup began: %s", tok)
			}
		})
	}
}
