package sqlstore

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/storetest"
)

func sqliteTarget() storetest.Target {
	return storetest.Target{
		Dialect: "sqlite", Open: openStore, Batches: batches, ScanPage: scanPage, FirstMigration: firstMigration("sqlite"),
		NewDSN: func(t *testing.T) string {
			t.Helper()
			return "sqlite:" + filepath.Join(t.TempDir(), "sub", "notifications.db")
		},
		LoseLock: func(t *testing.T, _ queue.Store, dsn, job string) {
			t.Helper()
			// As when another holder took the lease over after it expired
			// and has released it since.
			sqliteTarget().Exec(t, dsn, fmt.Sprintf(`DELETE FROM job_leases WHERE job = '%s'`, job))
		},
		Exec: func(t *testing.T, dsn, q string) {
			t.Helper()
			path := strings.TrimPrefix(dsn, "sqlite:")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			db, err := sql.Open("sqlite", path+"?_busy_timeout=10000")
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec(q)
			require.NoError(t, err)
		},
	}
}

func TestSQLiteStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, sqliteTarget())
}

func TestSQLitePragmas(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	s := openAt(t, dsn).(*sqliteStore)
	for _, db := range []*sql.DB{s.wdb, s.rdb} {
		var mode string
		var sync, busy int
		require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
		require.NoError(t, db.QueryRow(`PRAGMA synchronous`).Scan(&sync))
		require.NoError(t, db.QueryRow(`PRAGMA busy_timeout`).Scan(&busy))
		require.Equal(t, "wal", mode)
		require.Equal(t, 2, sync, "synchronous=FULL")
		require.Equal(t, 10000, busy)
		var autockpt int
		require.NoError(t, db.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&autockpt))
		require.Equal(t, 20000, autockpt, "checkpoints run in the background")
	}
	var cache int
	require.NoError(t, s.wdb.QueryRow(`PRAGMA cache_size`).Scan(&cache))
	require.Equal(t, -65536, cache)
	var queryOnly int
	require.NoError(t, s.rdb.QueryRow(`PRAGMA query_only`).Scan(&queryOnly))
	require.Equal(t, 1, queryOnly, "readers cannot write")
	var versions []int
	rows, err := s.rdb.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	require.NoError(t, err)
	for rows.Next() {
		var v int
		require.NoError(t, rows.Scan(&v))
		versions = append(versions, v)
	}
	require.NoError(t, rows.Err())
	ms, err := loadMigrations("sqlite")
	require.NoError(t, err)
	require.Len(t, versions, len(ms))
	require.Equal(t, latestVersion(ms), versions[len(versions)-1])
}

func TestSQLiteRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	s, err := Open(context.Background(), dsn)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	sqliteTarget().Exec(t, dsn, `INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)`)
	_, err = Open(context.Background(), dsn)
	require.ErrorContains(t, err, "version 9999")
}

func TestSQLiteLockLeaseExpires(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	clockA, clockB := storetest.NewClock(storetest.T0), storetest.NewClock(storetest.T0.Add(3*time.Minute))
	a := openAt(t, dsn, WithClock(clockA.Now)) // a holder that stopped renewing (crashed)
	b := openAt(t, dsn, WithClock(clockB.Now))
	_, _, err := a.Lock(storetest.Ctx(t), "process")
	require.NoError(t, err)
	clockB.Set(storetest.T0.Add(2*time.Minute - time.Millisecond))
	_, _, err = b.Lock(storetest.Ctx(t), "process")
	require.ErrorIs(t, err, queue.ErrLocked, "not yet expired")
	clockB.Set(storetest.T0.Add(2 * time.Minute))
	_, unlockB, err := b.Lock(storetest.Ctx(t), "process")
	require.NoError(t, err, "an expired lease is taken over")
	defer unlockB()
	c := openAt(t, dsn, WithClock(clockB.Now))
	_, _, err = c.Lock(storetest.Ctx(t), "process")
	require.ErrorIs(t, err, queue.ErrLocked)
}

func TestSQLiteLockLeaseIsRenewed(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	clock := storetest.NewClock(storetest.T0)
	a := openAt(t, dsn, WithClock(clock.Now), WithLockLease(150*time.Millisecond))
	held, unlock, err := a.Lock(storetest.Ctx(t), "process")
	require.NoError(t, err)
	clock.Advance(time.Hour)
	// The renewal goroutine moves the expiry past the new now.
	s := a.(*sqliteStore)
	require.Eventually(t, func() bool {
		var exp int64
		if err := s.rdb.QueryRow(`SELECT expires_at FROM job_leases WHERE job = 'process'`).Scan(&exp); err != nil {
			return false
		}
		return exp > clock.Now().UnixMilli()
	}, 20*time.Second, 20*time.Millisecond)
	b := openAt(t, dsn, WithClock(clock.Now), WithLockLease(150*time.Millisecond))
	_, _, err = b.Lock(storetest.Ctx(t), "process")
	require.ErrorIs(t, err, queue.ErrLocked)
	require.NoError(t, held.Err(), "a renewed lease is not lost")
	unlock()
	var n int
	require.NoError(t, s.rdb.QueryRow(`SELECT COUNT(*) FROM job_leases`).Scan(&n))
	require.Zero(t, n, "unlock deletes the lease row")
}

// A lease that cannot be renewed (another process holds the database's
// write lock) is lost once it has expired: the job's context ends, as
// another holder may take the lock from then on.
func TestSQLiteLockLostWhenRenewalFails(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	clock := storetest.NewClock(storetest.T0)
	a := openAt(t, dsn, WithClock(clock.Now), WithLockLease(150*time.Millisecond), WithBusyTimeout(0))
	held, unlock, err := a.Lock(storetest.Ctx(t), "process")
	require.NoError(t, err)
	defer unlock()

	db, err := sql.Open("sqlite", strings.TrimPrefix(dsn, "sqlite:"))
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(storetest.Ctx(t))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(storetest.Ctx(t), `BEGIN IMMEDIATE`)
	require.NoError(t, err)
	defer conn.ExecContext(context.Background(), `ROLLBACK`) //nolint:errcheck

	require.NoError(t, held.Err(), "failed renewals within the lease keep it")
	clock.Advance(time.Minute) // the lease has expired by the store's clock
	select {
	case <-held.Done():
	case <-storetest.Ctx(t).Done():
		t.Fatal("the held context did not end")
	}
	require.ErrorIs(t, context.Cause(held), queue.ErrLockLost)
	require.ErrorContains(t, context.Cause(held), "the lease expired while renewing it failed")
}

func TestOpenDSN(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name    string
		dsn     string
		wantErr string
		notIn   string
		file    string
	}{
		{"unknown scheme", "mysql://root:s3cret@db/x", `unsupported store DSN scheme "mysql"`, "s3cret", ""},
		{"no scheme", "/var/lib/x.db", "has no scheme", "", ""},
		{"empty", "", "has no scheme", "", ""},
		{"empty sqlite path", "sqlite:", "has no path", "", ""},
		{"memory", "sqlite::memory:", "not durable", "", ""},
		{"bad postgres", "postgres://u:s3cret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", "postgres", "s3cret", ""},
		{"sqlite path", "sqlite:" + filepath.Join(dir, "a", "b", "n.db"), "", "", filepath.Join(dir, "a", "b", "n.db")},
		{"sqlite triple slash", "sqlite://" + filepath.Join(dir, "c", "n.db"), "", "", filepath.Join(dir, "c", "n.db")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := Open(ctx, tt.dsn)
			if tt.wantErr == "" {
				require.NoError(t, err)
				require.NoError(t, s.Ping(ctx))
				require.NoError(t, s.Close())
				require.FileExists(t, tt.file, "created with its parent directories")
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			if tt.notIn != "" {
				require.NotContains(t, err.Error(), tt.notIn)
			}
		})
	}
}

func TestOpenOptionsAreValidated(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	for _, tt := range []struct {
		opt  Option
		want string
	}{
		{WithLockLease(time.Millisecond), "WithLockLease"},
		{WithClaimLease(0), "WithClaimLease"},
		{WithMaxBatch(0), "WithMaxBatch"},
		{WithQueueSize(0), "WithQueueSize"},
		{WithClock(nil), "WithClock"},
		{WithSQLiteSynchronous("sometimes"), "WithSQLiteSynchronous"},
		{WithBusyTimeout(-time.Second), "WithBusyTimeout"},
		{WithReaders(0), "WithReaders"},
		{WithPostgresWriters(0), "WithPostgresWriters"},
		{WithLogger(nil), "WithLogger"},
	} {
		_, err := Open(context.Background(), dsn, tt.opt)
		require.ErrorContains(t, err, tt.want)
	}
}

// TestSQLiteTwoProcesses runs a second sidecar process (this test binary)
// enqueueing into the same file: writes serialise, identical deliveries
// store one record, and everything acknowledged is there.
func TestSQLiteTwoProcesses(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	s := openAt(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSQLiteHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SLUICE_SQLSTORE_HELPER_DSN="+dsn)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())

	const n = 300
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Enqueue(ctx, storetest.Delivery(helperToken(i), "usr-"+strconv.Itoa(i), storetest.T0))
		}()
	}
	wg.Wait()
	require.NoError(t, cmd.Wait(), out.String())
	for i := range n {
		require.NoError(t, errs[i])
	}
	all, err := s.List(ctx, queue.Range{})
	require.NoError(t, err)
	require.Len(t, all, n+n/2, "shared tokens stored once; %s", out.String())
	require.Contains(t, out.String(), "helper ok")
}

// helperToken makes every even token also used by the helper process.
func helperToken(i int) string {
	if i%2 == 0 {
		return fmt.Sprintf("shared-%d", i)
	}
	return fmt.Sprintf("parent-%d", i)
}

func TestSQLiteHelperProcess(t *testing.T) {
	dsn := os.Getenv("SLUICE_SQLSTORE_HELPER_DSN")
	if dsn == "" {
		t.Skip("helper process for TestSQLiteTwoProcesses")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	var wg sync.WaitGroup
	errs := make([]error, 300)
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := fmt.Sprintf("child-%d", i)
			if i%2 == 0 {
				tok = helperToken(i)
			}
			_, errs[i] = s.Enqueue(ctx, storetest.Delivery(tok, "usr-"+strconv.Itoa(i), storetest.T0))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	fmt.Println("helper ok")
}

// TestSQLiteSurvivesKill9 kills a sidecar process (this test binary)
// while it enqueues: every delivery it acknowledged is in the file, payload
// bytes exact.
func TestSQLiteSurvivesKill9(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSQLiteKillHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SLUICE_SQLSTORE_KILL_DSN="+dsn)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var acked []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && len(acked) < 300 {
		if tok, ok := strings.CutPrefix(sc.Text(), "acked "); ok {
			acked = append(acked, tok)
		}
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no Close, no cleanup
	_ = cmd.Wait()
	require.Len(t, acked, 300, "the helper acknowledged deliveries before the kill")

	s := openAt(t, dsn)
	for _, tok := range acked {
		r, err := s.Get(storetest.Ctx(t), tok)
		require.NoError(t, err, tok)
		require.Equal(t, killPayload(tok), r.Payload, tok)
	}
}

func killPayload(tok string) []byte { return []byte("\x00body of " + tok + "\xff") }

func TestSQLiteKillHelperProcess(t *testing.T) {
	dsn := os.Getenv("SLUICE_SQLSTORE_KILL_DSN")
	if dsn == "" {
		t.Skip("helper process for TestSQLiteSurvivesKill9")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Open(ctx, dsn)
	require.NoError(t, err)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				tok := fmt.Sprintf("wbh-%d-%d", w, i)
				r := storetest.Delivery(tok, "usr-"+tok, storetest.T0)
				r.Payload = killPayload(tok)
				if _, err := s.Enqueue(ctx, r); err != nil {
					continue
				}
				mu.Lock()
				fmt.Println("acked", tok)
				mu.Unlock()
			}
		}()
	}
	wg.Wait() // until killed
}

// TestSQLiteWALRestartsUnderSteadyIntake: with deliveries arriving all the
// time, the checkpointer still makes the writer start the WAL over, so the
// file stays far below the autocheckpoint backstop (20,000 frames) that a
// single commit would otherwise pay for.
func TestSQLiteWALRestartsUnderSteadyIntake(t *testing.T) {
	t.Parallel()
	dsn := sqliteTarget().NewDSN(t)
	s := openAt(t, dsn, func(o *options) { o.checkpointEvery = 20 * time.Millisecond }).(*sqliteStore)
	// Each delivery takes about three WAL frames (its 8 KiB payload spills
	// to overflow pages); 12,000 of them write over 35,000 frames, well past
	// the backstop.
	payload := []byte(strings.Repeat("x", 8<<10))
	const senders, each = 32, 375
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := storetest.Delivery(fmt.Sprintf("wal-%d-%d", g, i), fmt.Sprintf("obj-%d-%d", g, i), time.Now())
				r.Payload = payload
				if _, err := s.Enqueue(context.Background(), r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	st, err := os.Stat(strings.TrimPrefix(dsn, "sqlite:") + "-wal")
	require.NoError(t, err)
	frames := st.Size() / (4096 + 24)
	require.Less(t, frames, int64(10000), "the WAL grew to %d frames: it was not restarted under load", frames)
}
