package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// runRecords checks the attempt history, the paged listing, the guarded
// management calls, the discard ledger and the quarantine
// (docs/records-api.md).
func runRecords(t *testing.T, tg Target, open func(t *testing.T, o Options) (queue.Store, string)) {
	t.Run("AttemptHistory", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		now := T0.Add(time.Hour)
		enqueue(t, s, Delivery("wbh-a", "usr-1", T0))
		_, err := s.Attempts(Ctx(t), "nope")
		require.ErrorIs(t, err, queue.ErrNotFound)
		got, err := s.Attempts(Ctx(t), "wbh-a")
		require.NoError(t, err)
		require.Empty(t, got)

		fail := func(n int, status queue.Status) {
			t.Helper()
			claimed, err := s.Claim(Ctx(t), now.Add(time.Duration(n)*time.Hour), 10)
			require.NoError(t, err)
			require.Len(t, claimed, 1)
			r := claimed[0]
			r.Status, r.RetryCounter, r.LastRetryDate = status, n, ptr(now)
			msg := fmt.Sprintf("marketplace answered 503: attempt %d \u00e9", n)
			r.Attempt = &queue.Attempt{At: now.Add(time.Duration(n) * time.Second), Outcome: "retrying", HTTPStatus: 503,
				DurationMS: int64(10 * n), Error: msg}
			if status == queue.StatusSuccess {
				r.Attempt.Outcome, r.Attempt.HTTPStatus, r.Attempt.Error = "success", 200, ""
			}
			done, err := s.Finish(Ctx(t), &r)
			require.NoError(t, err)
			require.True(t, done)
		}
		fail(1, queue.StatusRetrying)
		rec := mustGet(t, s, "wbh-a")
		require.Equal(t, "marketplace answered 503: attempt 1 \u00e9", rec.LastError)
		fail(2, queue.StatusRetrying)
		fail(3, queue.StatusSuccess)
		rec = mustGet(t, s, "wbh-a")
		require.Empty(t, rec.LastError, "a success clears lastError")
		got, err = s.Attempts(Ctx(t), "wbh-a")
		require.NoError(t, err)
		require.Len(t, got, 3)
		for i, a := range got {
			require.Equal(t, i+1, a.Attempt)
			require.True(t, a.At.Equal(now.Add(time.Duration(i+1)*time.Second)), a.At)
			require.Equal(t, int64(10*(i+1)), a.DurationMS)
		}
		require.Equal(t, 503, got[0].HTTPStatus)
		require.Equal(t, "retrying", got[1].Outcome)
		require.Equal(t, "success", got[2].Outcome)
		require.Empty(t, got[2].Error)

		// A Finish without an attempt keeps the history and lastError; a
		// Finish that saves nothing records no attempt.
		stale := rec
		stale.Attempt = &queue.Attempt{At: now, Outcome: "failed", Error: "late"}
		done, err := s.Finish(Ctx(t), &stale)
		require.NoError(t, err)
		require.False(t, done)
		got, err = s.Attempts(Ctx(t), "wbh-a")
		require.NoError(t, err)
		require.Len(t, got, 3)

		// The history goes with its record.
		require.NoError(t, s.Remove(Ctx(t), "wbh-a"))
		enqueue(t, s, Delivery("wbh-a2", "usr-1", T0.Add(time.Second)))
		got, err = s.Attempts(Ctx(t), "wbh-a2")
		require.NoError(t, err)
		require.Empty(t, got)
	})

	t.Run("Page", func(t *testing.T) {
		t.Parallel()
		clock := NewClock(T0)
		s, _ := open(t, Options{Clock: clock.Now})
		// 25 records, three per millisecond of reception, mixed types and statuses.
		var want []string
		for i := range 25 {
			obj := []string{"usr-", "pmt-", "stk-"}[i%3] + fmt.Sprint(i)
			r := Delivery(fmt.Sprintf("wbh-%02d", i), obj, T0)
			r.ReceptionDate = T0.Add(time.Duration(i/3) * time.Millisecond)
			enqueue(t, s, r)
			want = append(want, r.WebhookToken)
		}
		failed := Delivery("wbh-failed", "usr-x", T0)
		failed.Status, failed.ReceptionDate = queue.StatusFailed, T0.Add(-time.Hour) // outside r
		require.NoError(t, s.Insert(Ctx(t), failed))

		walk := func(q queue.Query) []string {
			t.Helper()
			var out []string
			for range 100 {
				page, err := s.Page(Ctx(t), q)
				require.NoError(t, err)
				for _, r := range page {
					out = append(out, r.WebhookToken)
				}
				if len(page) < q.Limit {
					return out
				}
				last := page[len(page)-1]
				q.After = &queue.Cursor{Reception: last.ReceptionDate, ID: last.ID}
			}
			t.Fatal("paging does not end")
			return nil
		}
		r := queue.Range{From: ptr(T0), To: ptr(T0.Add(time.Second))}
		require.Equal(t, want, walk(queue.Query{Range: r, Limit: 4}))
		newest := walk(queue.Query{Range: r, Limit: 7, Newest: true})
		require.Len(t, newest, 25)
		for i := range newest {
			require.Equal(t, want[len(want)-1-i], newest[i])
		}
		pmts := walk(queue.Query{Type: queue.TypePayment, Limit: 2})
		require.Len(t, pmts, 8)
		for _, tok := range pmts {
			require.Contains(t, []string{"wbh-01", "wbh-04", "wbh-07", "wbh-10", "wbh-13", "wbh-16", "wbh-19", "wbh-22"}, tok)
		}
		require.Equal(t, []string{"wbh-failed"}, walk(queue.Query{Status: queue.StatusFailed, Limit: 10}))
		require.Equal(t, []string{"wbh-07"}, walk(queue.Query{ObjectToken: "pmt-7", Limit: 10}))
		require.Empty(t, walk(queue.Query{ObjectToken: "pmt-7", Status: queue.StatusSuccess, Limit: 10}))

		for _, bad := range []queue.Query{{Limit: 0}, {Limit: 1, Status: "DONE"}, {Limit: 1, ObjectToken: "a\x00b"}, {Limit: 1, Type: "\xff"}} {
			_, err := s.Page(Ctx(t), bad)
			require.ErrorIs(t, err, queue.ErrInvalid, "%+v", bad)
		}
	})

	t.Run("GuardedRequeueAndRemove", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		for _, st := range queue.Statuses {
			stored(t, s, "wbh-"+string(st), "usr-"+string(st), T0, st)
		}
		for _, st := range queue.Statuses {
			tok := "wbh-" + string(st)
			settled := st == queue.StatusSuccess || st == queue.StatusOutdated
			r, err := s.RequeueLive(Ctx(t), tok)
			if settled {
				require.ErrorIs(t, err, queue.ErrSettled, tok)
				var se *queue.SettledError
				require.ErrorAs(t, err, &se)
				require.Equal(t, st, se.Status)
				require.Equal(t, st, mustGet(t, s, tok).Status, "unchanged")
				require.ErrorIs(t, s.RemoveLive(Ctx(t), tok), queue.ErrSettled)
				mustGet(t, s, tok)
				continue
			}
			require.NoError(t, err, tok)
			require.Equal(t, queue.StatusPending, r.Status)
			require.NoError(t, s.RemoveLive(Ctx(t), tok))
			_, err = s.Get(Ctx(t), tok)
			require.ErrorIs(t, err, queue.ErrNotFound)
		}
		_, err := s.RequeueLive(Ctx(t), "nope")
		require.ErrorIs(t, err, queue.ErrNotFound)
		require.ErrorIs(t, s.RemoveLive(Ctx(t), "nope"), queue.ErrNotFound)
	})

	t.Run("DiscardLedger", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		enqueue(t, s, Delivery("wbh-new", "usr-1", T0.Add(time.Minute)))
		dup := Delivery("wbh-new", "usr-1", T0.Add(time.Minute))
		dup.ReceptionDate = T0.Add(time.Hour)
		res := enqueue(t, s, dup)
		require.Equal(t, queue.DiscardedDuplicate, res.Outcome)
		require.Equal(t, "wbh-new", res.Winner)
		old := Delivery("wbh-old", "usr-1", T0)
		old.ReceptionDate = T0.Add(2 * time.Hour)
		res = enqueue(t, s, old)
		require.Equal(t, queue.DiscardedObsolete, res.Outcome)
		require.Equal(t, "wbh-new", res.Winner)

		d, err := s.Discarded(Ctx(t), "wbh-old")
		require.NoError(t, err)
		require.Equal(t, queue.Discard{Source: queue.DefaultSource, Token: "wbh-old", Reason: queue.ReasonObsolete, Winner: "wbh-new", At: T0.Add(2 * time.Hour)}, d)
		d, err = s.Discarded(Ctx(t), "wbh-new")
		require.NoError(t, err)
		require.Equal(t, queue.Discard{Source: queue.DefaultSource, Token: "wbh-new", Reason: queue.ReasonDuplicate, Winner: "wbh-new", At: T0.Add(time.Hour)}, d)
		_, err = s.Discarded(Ctx(t), "wbh-stored-only")
		require.ErrorIs(t, err, queue.ErrNotFound)

		// A later discard of the same token replaces its entry.
		old.ReceptionDate = T0.Add(3 * time.Hour)
		enqueue(t, s, old)
		d, err = s.Discarded(Ctx(t), "wbh-old")
		require.NoError(t, err)
		require.True(t, d.At.Equal(T0.Add(3*time.Hour)))

		// Within one group commit too (the batch paths).
		if tg.Batches != nil {
			for _, batch := range tg.Batches(s) {
				recs := []*queue.Record{Delivery("wbh-b1", "usr-9", T0.Add(time.Minute)), Delivery("wbh-b1", "usr-9", T0.Add(time.Minute)),
					Delivery("wbh-b2", "usr-9", T0), Delivery("wbh-b2", "usr-9", T0)}
				for _, r := range recs {
					r.ReceptionDate = T0.Add(4 * time.Hour)
				}
				res, err := batch(Ctx(t), T0.Add(4*time.Hour), recs)
				require.NoError(t, err)
				require.Equal(t, "wbh-b1", res[1].Winner)
				require.Equal(t, "wbh-b1", res[2].Winner)
				d, err := s.Discarded(Ctx(t), "wbh-b2")
				require.NoError(t, err)
				require.Equal(t, "wbh-b1", d.Winner)
				require.Contains(t, []string{queue.ReasonObsolete, queue.ReasonDuplicate}, d.Reason)
				break // later batch funcs would find wbh-b1 stored
			}
		}

		n, err := s.CleanupLedger(Ctx(t), T0.Add(3*time.Hour))
		require.NoError(t, err)
		require.Equal(t, int64(1), n, "wbh-new's entry (received T0+1h) is older than the cutoff")
		_, err = s.Discarded(Ctx(t), "wbh-new")
		require.ErrorIs(t, err, queue.ErrNotFound)
		_, err = s.Discarded(Ctx(t), "wbh-old")
		require.NoError(t, err, "received exactly at the cutoff: kept")
	})

	t.Run("Quarantine", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		bodies := [][]byte{[]byte(`{"token":`), {0xff, 0x00, 'x'}, nil, []byte(strings.Repeat("y", 3000))}
		var ids []int64
		for i, b := range bodies {
			q := &queue.Quarantined{ReceivedAt: T0.Add(time.Duration(i) * time.Hour), Reason: fmt.Sprintf("reason %d \x00\xff", i),
				Headers: map[string]string{"Content-Type": "application/json", "X-Odd": "\xfe"}, Body: b}
			require.NoError(t, s.Quarantine(Ctx(t), q, 3))
			require.Positive(t, q.ID)
			ids = append(ids, q.ID)
		}
		// keep 3: the oldest went.
		_, err := s.GetQuarantined(Ctx(t), ids[0])
		require.ErrorIs(t, err, queue.ErrNotFound)
		got, err := s.GetQuarantined(Ctx(t), ids[1])
		require.NoError(t, err)
		require.Equal(t, []byte{0xff, 0x00, 'x'}, got.Body, "raw bytes kept")
		require.Equal(t, 3, got.Size)
		require.Equal(t, "reason 1 \uFFFD\uFFFD", got.Reason)
		require.Equal(t, "application/json", got.Headers["Content-Type"])
		require.True(t, got.ReceivedAt.Equal(T0.Add(time.Hour)))
		empty, err := s.GetQuarantined(Ctx(t), ids[2])
		require.NoError(t, err)
		require.Empty(t, empty.Body)
		require.Zero(t, empty.Size)

		list, err := s.ListQuarantine(Ctx(t), 0, 2, 10)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, ids[3], list[0].ID, "newest first")
		require.Equal(t, 3000, list[0].Size)
		require.Equal(t, []byte("yyyyyyyyyy"), list[0].Body, "an excerpt")
		rest, err := s.ListQuarantine(Ctx(t), list[1].ID, 2, 10)
		require.NoError(t, err)
		require.Len(t, rest, 1)
		require.Equal(t, ids[1], rest[0].ID)

		require.NoError(t, s.RemoveQuarantined(Ctx(t), ids[2]))
		require.ErrorIs(t, s.RemoveQuarantined(Ctx(t), ids[2]), queue.ErrNotFound)
		n, err := s.CleanupQuarantine(Ctx(t), T0.Add(3*time.Hour))
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		list, err = s.ListQuarantine(Ctx(t), 0, 10, 0)
		require.NoError(t, err)
		require.Len(t, list, 1)
		require.Empty(t, list[0].Body)

		require.ErrorIs(t, s.Quarantine(Ctx(t), &queue.Quarantined{}, 0), queue.ErrInvalid)
	})
}
