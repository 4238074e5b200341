package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// runSchema checks durability and the schema: reopening, closing with queued deliveries, upgrading an old database, sidecars migrating one new database together.
func runSchema(t *testing.T, tg Target, open opener) {
	t.Run("DurableAcrossReopen", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		ctx := Ctx(t)
		s, err := tg.Open(ctx, dsn, Options{})
		require.NoError(t, err)
		payload := []byte{0x00, 0xff, 0xfe, '{', '}', 0x80, '\n', 0x00}
		r := Delivery("wbh-bin", "usr-1", T0.Add(123*time.Millisecond))
		r.Payload = payload
		enqueue(t, s, r)
		const n = 100
		var wg sync.WaitGroup
		acked := make([]bool, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(ctx, Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i+10), T0))
				acked[i] = err == nil && res.Outcome == queue.Stored
			}()
		}
		wg.Wait()
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "Close is idempotent")
		_, err = s.Enqueue(ctx, Delivery("late", "usr-1", T0))
		require.ErrorIs(t, err, queue.ErrUnavailable)

		s2 := openAt(t, tg, dsn, Options{}) // migrations are idempotent on reopen
		got := mustGet(t, s2, "wbh-bin")
		require.Equal(t, payload, got.Payload)
		require.True(t, got.CreationDate.Equal(T0.Add(123*time.Millisecond)))
		for i := range n {
			require.True(t, acked[i])
			mustGet(t, s2, fmt.Sprintf("wbh-%d", i))
		}
		s3 := openAt(t, tg, dsn, Options{})
		require.NoError(t, s3.Ping(ctx))
	})

	t.Run("CloseDrainsQueuedEnqueues", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		s, err := tg.Open(Ctx(t), dsn, Options{})
		require.NoError(t, err)
		const n = 200
		var wg sync.WaitGroup
		acked := make([]bool, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(Ctx(t), Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), T0))
				if err != nil && !errors.Is(err, queue.ErrUnavailable) {
					t.Errorf("enqueue %d during Close: %v", i, err)
				}
				acked[i] = err == nil && res.Outcome == queue.Stored
			}()
		}
		require.NoError(t, s.Close())
		wg.Wait()
		s2 := openAt(t, tg, dsn, Options{})
		for i := range n {
			if acked[i] {
				mustGet(t, s2, fmt.Sprintf("wbh-%d", i))
			}
		}
	})

	t.Run("UpgradesFromVersion1", func(t *testing.T) {
		t.Parallel()
		if tg.FirstMigration == "" {
			t.Skip("no first migration given")
		}
		dsn := tg.NewDSN(t)
		// A database left by a Sluice that knew only migration 1, with data.
		tg.Exec(t, dsn, map[string]string{
			"sqlite":   `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`,
			"postgres": `CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
		}[tg.Dialect])
		tg.Exec(t, dsn, tg.FirstMigration)
		tg.Exec(t, dsn, map[string]string{
			"sqlite":   `INSERT INTO schema_migrations (version, applied_at) VALUES (1, 0)`,
			"postgres": `INSERT INTO schema_migrations (version) VALUES (1)`,
		}[tg.Dialect])
		old := map[string]string{
			"sqlite": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
				reception_date, status, program, payload) VALUES ('wbh-old', 'usr-1', 'USR', 1714557600000,
				1714557600000, 'PENDING', 'prg-1', x'7b7d')`,
			"postgres": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
				reception_date, status, program, payload) VALUES ('wbh-old', 'usr-1', 'USR', '2024-05-01T10:00:00Z',
				'2024-05-01T10:00:00Z', 'PENDING', 'prg-1', '\x7b7d')`,
		}
		tg.Exec(t, dsn, old[tg.Dialect])
		s := openAt(t, tg, dsn, Options{})
		got := mustGet(t, s, "wbh-old")
		require.Equal(t, []byte("{}"), got.Payload)
		require.Equal(t, queue.DefaultSource, got.Source, "an old record is the HMC source's")
		require.True(t, got.ReceptionDate.Equal(T0))
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.True(t, st.OldestPending.Equal(T0))
		require.Equal(t, queue.Stored, enqueue(t, s, Delivery("wbh-new", "usr-1", T0.Add(time.Second))).Outcome)
		require.Equal(t, queue.StatusOutdated, mustGet(t, s, "wbh-old").Status)
	})

	t.Run("ConcurrentFirstOpenMigratesOnce", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := tg.Open(Ctx(t), dsn, Options{})
				if err == nil {
					err = s.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		s := openAt(t, tg, dsn, Options{})
		enqueue(t, s, Delivery("wbh-1", "usr-1", T0))
	})
}
