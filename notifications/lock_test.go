package notifications_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// A processing run whose job lock the store loses stops: the handler
// running is cancelled, no further record of the batch is handed to a
// handler, no further batch is claimed; every record stays PENDING for the
// new holder, which claims them all once their claim lease ends; the loss
// is logged once and counted.
func TestProcessingStopsWhenJobLockIsLost(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var dsn, appName string
			var steal func(holder notifications.Store)
			switch backend {
			case "sqlite":
				dsn = "sqlite:" + filepath.Join(t.TempDir(), "notifications.db")
				// A second sidecar on the same file, its clock an hour ahead:
				// to it the first one's lease has expired, so it takes it.
				steal = func(notifications.Store) {}
			case "postgres":
				dsn = storetest.PostgresDSN(t)
				var b [6]byte
				_, _ = rand.Read(b[:])
				appName = "sluice-lost-" + hex.EncodeToString(b[:])
				u, err := url.Parse(dsn)
				require.NoError(t, err)
				q := u.Query()
				q.Set("application_name", appName)
				u.RawQuery = q.Encode()
				dsn = u.String()
				// The session holding the advisory lock ends (a cut
				// connection, an administrator's pg_terminate_backend).
				steal = func(notifications.Store) {
					conn, err := pgx.Connect(ctx, dsn)
					require.NoError(t, err)
					defer conn.Close(context.Background())
					var n int
					require.NoError(t, conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(a.pid))
						FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
						WHERE a.application_name = $1 AND l.locktype = 'advisory' AND l.granted`, appName).Scan(&n))
					require.Equal(t, 1, n, "one session holds the job lock")
				}
			}
			a, err := sqlstore.Open(ctx, dsn, sqlstore.WithLockLease(300*time.Millisecond))
			require.NoError(t, err)
			t.Cleanup(func() { _ = a.Close() })

			var logs syncBuffer
			cfg := testConfig()
			cfg.Drain, cfg.BatchSize, cfg.Concurrency = true, 3, 1
			cfg.DownstreamTimeout = time.Minute // longer than noticing the loss takes
			started := make(chan struct{})
			var calls atomic.Int32
			handler := notifications.HandlerFunc(func(hctx context.Context, rec *notifications.Record, _ []byte) error {
				if calls.Add(1) == 1 {
					close(started)
				}
				select { // a slow downstream call, cut short by the loss
				case <-hctx.Done():
					return hctx.Err()
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			svc := newService(t, cfg, a, notifications.WithDefaultHandler(handler),
				notifications.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			for i := range 7 {
				deliver(t, svc, fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), fmt.Sprintf("2024-05-01T10:00:0%dZ", i))
			}

			type result struct {
				st  notifications.RunStats
				err error
			}
			done := make(chan result, 1)
			go func() {
				st, err := svc.RunProcessing(ctx)
				done <- result{st, err}
			}()
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the handler was never called")
			}

			// Another sidecar gets the lock.
			dsnB := dsn
			if appName != "" {
				dsnB = strings.Replace(dsn, appName, appName+"-b", 1)
			}
			b, err := sqlstore.Open(ctx, dsnB,
				sqlstore.WithClock(func() time.Time { return time.Now().Add(time.Hour) }))
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			steal(a)
			var unlockB func()
			require.Eventually(t, func() bool {
				_, unlockB, err = b.Lock(ctx, notifications.ProcessingJob)
				return err == nil
			}, time.Minute, 10*time.Millisecond, "the second sidecar takes the lock: %v", err)
			defer unlockB()

			var res result
			select {
			case res = <-done:
			case <-ctx.Done():
				t.Fatal("the processing run did not stop after its lock was lost")
			}
			require.ErrorIs(t, res.err, notifications.ErrLockLost)
			require.Equal(t, 1, res.st.Batches, "no further batch claimed")
			require.Equal(t, 3, res.st.Claimed)
			require.Equal(t, 3, res.st.Errors, "the batch's records were left without an outcome")
			require.Zero(t, res.st.Succeeded+res.st.Retrying+res.st.Failed)
			require.EqualValues(t, 1, calls.Load(), "no record of the batch was handed to a handler after the loss")

			// Nothing was lost: every record is as delivered, and the new
			// holder claims them all (its clock is past their claim lease).
			for i := range 7 {
				rec := mustGet(t, a, fmt.Sprintf("wbh-%d", i))
				require.Equal(t, notifications.StatusPending, rec.Status, rec.WebhookToken)
				require.Zero(t, rec.RetryCounter, rec.WebhookToken)
			}
			claimed, err := b.Claim(ctx, time.Now().Add(time.Hour), 100)
			require.NoError(t, err)
			require.Len(t, claimed, 7)

			require.Equal(t, 1, strings.Count(logs.String(), "the store lost its job lock"), logs.String())
			_, metrics := do(t, svc, "GET", "/metrics", "")
			require.Contains(t, metrics, `sluice_notifications_job_runs_total{job="processing",result="lost"} 1`)

			// The first sidecar's next run finds the lock taken.
			_, err = svc.RunProcessing(ctx)
			require.ErrorIs(t, err, notifications.ErrLocked)
		})
	}
}

// A handler that completes its delivery although its run lost the job lock
// meanwhile has its success saved: the record is not delivered twice.
func TestLockLostKeepsACompletedSuccess(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "notifications.db")
	a, err := sqlstore.Open(ctx, dsn, sqlstore.WithLockLease(300*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	b, err := sqlstore.Open(ctx, dsn, sqlstore.WithClock(func() time.Time { return time.Now().Add(time.Hour) }))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })

	cfg := testConfig()
	cfg.BatchSize, cfg.Concurrency = 2, 1
	cfg.DownstreamTimeout = time.Minute
	var calls atomic.Int32
	handler := notifications.HandlerFunc(func(hctx context.Context, rec *notifications.Record, _ []byte) error {
		calls.Add(1)
		// The second sidecar takes the lock while this delivery is under
		// way; the delivery itself completes.
		var unlock func()
		require.Eventually(t, func() bool {
			_, unlock, err = b.Lock(ctx, notifications.ProcessingJob)
			return err == nil
		}, time.Minute, 10*time.Millisecond)
		t.Cleanup(unlock)
		select {
		case <-hctx.Done():
		case <-ctx.Done():
		}
		return nil
	})
	svc := newService(t, cfg, a, notifications.WithDefaultHandler(handler))
	deliver(t, svc, "wbh-1", "usr-1", "2024-05-01T10:00:01Z")
	deliver(t, svc, "wbh-2", "usr-2", "2024-05-01T10:00:02Z")
	st, err := svc.RunProcessing(ctx)
	require.ErrorIs(t, err, notifications.ErrLockLost)
	require.EqualValues(t, 1, calls.Load())
	require.Equal(t, 1, st.Succeeded)
	require.Equal(t, 1, st.Errors)
	require.Equal(t, notifications.StatusSuccess, mustGet(t, a, "wbh-1").Status)
	require.Equal(t, notifications.StatusPending, mustGet(t, a, "wbh-2").Status)
}
