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

// runRanges checks the date-range operations: cleanup, delete, list and scan, at millisecond bounds and in chunks.
func runRanges(t *testing.T, tg Target, open opener) {
	t.Run("Cleanup", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		cutoff := T0.Add(time.Hour)
		for i, st := range queue.Statuses {
			old := Delivery(fmt.Sprintf("old-%s", st), fmt.Sprintf("usr-%d", i), T0)
			old.Status = st
			old.ReceptionDate = cutoff.Add(-time.Millisecond)
			require.NoError(t, s.Insert(Ctx(t), old))
			at := Delivery(fmt.Sprintf("at-%s", st), fmt.Sprintf("usr-a%d", i), T0)
			at.Status = st
			at.ReceptionDate = cutoff
			require.NoError(t, s.Insert(Ctx(t), at))
		}
		n, err := s.Cleanup(Ctx(t), cutoff)
		require.NoError(t, err)
		require.EqualValues(t, 3, n)
		for _, st := range queue.Statuses {
			_, err := s.Get(Ctx(t), "old-"+string(st))
			if st.Terminal() {
				require.ErrorIs(t, err, queue.ErrNotFound, st)
			} else {
				require.NoError(t, err, st)
			}
			mustGet(t, s, "at-"+string(st))
		}
		// Retention 0: everything terminal goes, live records never.
		n, err = s.Cleanup(Ctx(t), cutoff.Add(24*time.Hour))
		require.NoError(t, err)
		require.EqualValues(t, 3, n)
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.EqualValues(t, 2, st.ByStatus[queue.StatusPending])
		require.EqualValues(t, 2, st.ByStatus[queue.StatusRetrying])
	})

	t.Run("CleanupAndDeleteInChunks", func(t *testing.T) {
		t.Parallel()
		s, dsn := open(t, Options{})
		// 2 × deleteChunk old terminal records (an exact multiple of the
		// chunk), 100 old live ones among them, and 100 newer terminal ones.
		fill := map[string]string{
			"sqlite": `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < 10200)
				INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
					reception_date, status)
				SELECT 'wbh-' || x, 'usr-' || x, 'USR', 1714557600000, 1714557600000 + x,
					CASE WHEN x > 10100 THEN 'SUCCESS' WHEN x % 101 = 0 THEN 'PENDING' ELSE 'FAILED' END FROM g`,
			"postgres": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
					reception_date, status)
				SELECT 'wbh-' || x, 'usr-' || x, 'USR', '2024-05-01T10:00:00Z',
					'2024-05-01T10:00:00Z'::timestamptz + x * interval '1 millisecond',
					CASE WHEN x > 10100 THEN 'SUCCESS' WHEN x % 101 = 0 THEN 'PENDING' ELSE 'FAILED' END
				FROM generate_series(1, 10200) x`,
		}
		tg.Exec(t, dsn, fill[tg.Dialect])
		n, err := s.Cleanup(Ctx(t), T0.Add(10101*time.Millisecond))
		require.NoError(t, err)
		require.EqualValues(t, 10100-10100/101, n) // several delete chunks
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.EqualValues(t, 100, st.ByStatus[queue.StatusPending])
		require.EqualValues(t, 100, st.ByStatus[queue.StatusSuccess])
		require.Zero(t, st.ByStatus[queue.StatusFailed])
		from := T0.Add(10150 * time.Millisecond)
		n, err = s.Delete(Ctx(t), queue.Range{From: &from})
		require.NoError(t, err)
		require.EqualValues(t, 51, n)
		n, err = s.Delete(Ctx(t), queue.Range{})
		require.NoError(t, err)
		require.EqualValues(t, 100+49, n)
	})

	t.Run("RangesAreInclusiveAtMilliseconds", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		for i := range 3 {
			r := Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), T0)
			r.ReceptionDate = T0.Add(time.Duration(i) * time.Millisecond)
			enqueue(t, s, r)
		}
		at := func(d time.Duration) *time.Time { return ptr(T0.Add(d)) }
		tests := []struct {
			name string
			r    queue.Range
			want []string
		}{
			{"open", queue.Range{}, []string{"wbh-0", "wbh-1", "wbh-2"}},
			{"from = to = receptionDate", queue.Range{From: at(time.Millisecond), To: at(time.Millisecond)}, []string{"wbh-1"}},
			{"both ends inclusive", queue.Range{From: at(0), To: at(2 * time.Millisecond)}, []string{"wbh-0", "wbh-1", "wbh-2"}},
			{"from only", queue.Range{From: at(time.Millisecond)}, []string{"wbh-1", "wbh-2"}},
			{"to only", queue.Range{To: at(time.Millisecond)}, []string{"wbh-0", "wbh-1"}},
			{"sub-millisecond from excludes the millisecond below", queue.Range{From: at(500 * time.Microsecond)}, []string{"wbh-1", "wbh-2"}},
			{"sub-millisecond to includes the millisecond below", queue.Range{To: at(1500 * time.Microsecond)}, []string{"wbh-0", "wbh-1"}},
			{"empty", queue.Range{From: at(time.Hour)}, nil},
		}
		for _, tt := range tests {
			got, err := s.List(Ctx(t), tt.r)
			require.NoError(t, err, tt.name)
			require.Equal(t, tt.want, tokens(got), tt.name)
			var scanned []string
			require.NoError(t, s.Scan(Ctx(t), tt.r, func(r *queue.Record) error {
				scanned = append(scanned, r.WebhookToken)
				return nil
			}), tt.name)
			require.Equal(t, tt.want, scanned, tt.name)
		}
		n, err := s.Delete(Ctx(t), queue.Range{From: at(time.Millisecond), To: at(time.Millisecond)})
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		n, err = s.Delete(Ctx(t), queue.Range{})
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
	})

	t.Run("ListOrdersByReceptionThenID", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		for i, d := range []time.Duration{2, 0, 1, 0} {
			r := Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), T0)
			r.ReceptionDate = T0.Add(d * time.Second)
			enqueue(t, s, r)
		}
		got, err := s.List(Ctx(t), queue.Range{})
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-1", "wbh-3", "wbh-2", "wbh-0"}, tokens(got))
	})

	t.Run("ScanManyRecords", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		scanPage := tg.ScanPage
		if scanPage == 0 {
			scanPage = 1000
		}
		n := 2*scanPage + 37
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += 8 {
					r := Delivery(fmt.Sprintf("wbh-%05d", i), fmt.Sprintf("usr-%d", i), T0)
					r.ReceptionDate = T0.Add(time.Duration(i%100) * time.Second)
					if _, err := s.Enqueue(Ctx(t), r); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		var last int64
		count := 0
		require.NoError(t, s.Scan(Ctx(t), queue.Range{}, func(r *queue.Record) error {
			require.Greater(t, r.ID, last)
			last = r.ID
			count++
			return nil
		}))
		require.Equal(t, n, count)
		count = 0
		from, to := T0.Add(10*time.Second), T0.Add(19*time.Second)
		require.NoError(t, s.Scan(Ctx(t), queue.Range{From: &from, To: &to}, func(r *queue.Record) error {
			require.False(t, r.ReceptionDate.Before(from) || r.ReceptionDate.After(to))
			count++
			return nil
		}))
		require.Equal(t, n/100*10+min(n%100, 20)-min(n%100, 10), count)
		stop := errors.New("stop")
		seen := 0
		err := s.Scan(Ctx(t), queue.Range{}, func(*queue.Record) error {
			seen++
			if seen == scanPage+5 {
				return stop
			}
			return nil
		})
		require.ErrorIs(t, err, stop)
		require.Equal(t, scanPage+5, seen)
	})
}
