package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// runManagement checks the management operations: get, insert, update, remove, requeue, the failed listing, the list replace and the stats.
func runManagement(t *testing.T, tg Target, open opener) {
	t.Run("Management", func(t *testing.T) {
		t.Parallel()
		clock := NewClock(T0.Add(time.Hour))
		s, _ := open(t, Options{Clock: clock.Now})
		ctx := Ctx(t)

		_, err := s.Get(ctx, "nope")
		require.ErrorIs(t, err, queue.ErrNotFound)
		require.NotErrorIs(t, err, queue.ErrUnavailable)

		// Insert stores as given; receptionDate defaults to now.
		in := &queue.Record{WebhookToken: "wbh-m", ObjectToken: "usr-1", Status: queue.StatusFailed,
			RetryCounter: 5, CreationDate: T0, Program: "prg-9", LastRetryDate: ptr(T0.Add(time.Minute))}
		require.NoError(t, s.Insert(ctx, in))
		require.NotZero(t, in.ID)
		got := mustGet(t, s, "wbh-m")
		require.Equal(t, queue.StatusFailed, got.Status)
		require.Equal(t, 5, got.RetryCounter)
		require.Equal(t, "USR", got.NotificationType)
		require.True(t, got.ReceptionDate.Equal(clock.Now()))
		require.True(t, got.LastRetryDate.Equal(T0.Add(time.Minute)))
		require.ErrorIs(t, s.Insert(ctx, in), queue.ErrExists)
		require.ErrorIs(t, s.Insert(ctx, &queue.Record{WebhookToken: "x", Status: "BOGUS"}), queue.ErrInvalid)
		require.ErrorIs(t, s.Insert(ctx, &queue.Record{Status: queue.StatusFailed}), queue.ErrInvalid)

		// Update: patch semantics, status never changes.
		up, err := s.Update(ctx, "wbh-m", queue.Patch{Program: ptr("prg-2"), RetryCounter: ptr(1),
			CreationDate: ptr(T0.Add(time.Second + 400*time.Microsecond))})
		require.NoError(t, err)
		require.Equal(t, "prg-2", up.Program)
		require.Equal(t, 1, up.RetryCounter)
		require.Equal(t, "usr-1", up.ObjectToken)
		require.Equal(t, queue.StatusFailed, up.Status)
		require.True(t, up.CreationDate.Equal(T0.Add(time.Second)))
		require.Equal(t, up, mustGet(t, s, "wbh-m"))
		up, err = s.Update(ctx, "wbh-m", queue.Patch{ObjectToken: ptr("stk-2"), NotificationType: ptr("STK")})
		require.NoError(t, err)
		require.Equal(t, "stk-2", up.ObjectToken)
		require.Equal(t, "STK", up.NotificationType)
		require.Equal(t, "prg-2", up.Program)
		_, err = s.Update(ctx, "nope", queue.Patch{Program: ptr("x")})
		require.ErrorIs(t, err, queue.ErrNotFound)
		_, err = s.Update(ctx, "wbh-m", queue.Patch{RetryCounter: ptr(-1)})
		require.Error(t, err)

		// Requeue: back to PENDING, claimable.
		rq, err := s.Requeue(ctx, "wbh-m")
		require.NoError(t, err)
		require.Equal(t, queue.StatusPending, rq.Status)
		require.Zero(t, rq.RetryCounter)
		require.Nil(t, rq.LastRetryDate)
		require.Nil(t, rq.NextRetryDate)
		claimed, err := s.Claim(ctx, clock.Now(), 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-m"}, tokens(claimed))
		rq, err = s.Requeue(ctx, "wbh-m") // clears the lease too
		require.NoError(t, err)
		claimed, err = s.Claim(ctx, clock.Now(), 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-m"}, tokens(claimed))
		_, err = s.Requeue(ctx, "nope")
		require.ErrorIs(t, err, queue.ErrNotFound)

		require.NoError(t, s.Remove(ctx, "wbh-m"))
		require.ErrorIs(t, s.Remove(ctx, "wbh-m"), queue.ErrNotFound)
		_, err = s.Get(ctx, "wbh-m")
		require.ErrorIs(t, err, queue.ErrNotFound)
	})

	t.Run("ListFailed", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		ctx := Ctx(t)
		mk := func(tok, obj, typ string, created time.Duration, st queue.Status) {
			r := Delivery(tok, obj, T0.Add(created))
			r.NotificationType, r.Status = typ, st
			require.NoError(t, s.Insert(ctx, r))
		}
		mk("f1", "usr-1", "USR", 1*time.Second, queue.StatusFailed)
		mk("r2", "usr-1", "USR", 2*time.Second, queue.StatusRetrying)
		mk("f3", "stk-1", "STK", 3*time.Second, queue.StatusFailed)
		mk("f3b", "usr-2", "USR", 3*time.Second, queue.StatusFailed) // tie: id desc
		mk("p", "usr-1", "USR", 4*time.Second, queue.StatusPending)
		mk("s", "usr-1", "USR", 4*time.Second, queue.StatusSuccess)
		mk("o", "usr-1", "USR", 4*time.Second, queue.StatusOutdated)
		mk("u", "zzz", "UNK", 0, queue.StatusFailed)
		tests := []struct {
			name          string
			f             queue.FailedFilter
			offset, limit int
			want          []string
			total         int64
		}{
			{"all", queue.FailedFilter{}, 0, 20, []string{"f3b", "f3", "r2", "f1", "u"}, 5},
			{"page", queue.FailedFilter{}, 1, 2, []string{"f3", "r2"}, 5},
			{"past the end", queue.FailedFilter{}, 10, 2, nil, 5},
			{"type", queue.FailedFilter{Type: "USR"}, 0, 20, []string{"f3b", "r2", "f1"}, 3},
			{"target", queue.FailedFilter{Target: "usr-1"}, 0, 20, []string{"r2", "f1"}, 2},
			{"both", queue.FailedFilter{Type: "STK", Target: "stk-1"}, 0, 20, []string{"f3"}, 1},
			{"unknown type", queue.FailedFilter{Type: "UNK"}, 0, 20, []string{"u"}, 1},
			{"none", queue.FailedFilter{Target: "nobody"}, 0, 20, nil, 0},
		}
		for _, tt := range tests {
			got, total, err := s.ListFailed(ctx, tt.f, tt.offset, tt.limit)
			require.NoError(t, err, tt.name)
			require.Equal(t, tt.want, tokens(got), tt.name)
			require.Equal(t, tt.total, total, tt.name)
		}
		_, _, err := s.ListFailed(ctx, queue.FailedFilter{}, -1, 10)
		require.Error(t, err)
		_, _, err = s.ListFailed(ctx, queue.FailedFilter{}, 0, 0)
		require.Error(t, err)
	})

	t.Run("ReplaceFailed", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		ctx := Ctx(t)
		old := stored(t, s, "f-keep", "usr-1", T0, queue.StatusFailed)
		stored(t, s, "f-drop", "usr-2", T0, queue.StatusFailed)
		stored(t, s, "r-drop", "usr-3", T0, queue.StatusRetrying)
		stored(t, s, "pending", "usr-4", T0, queue.StatusPending)
		stored(t, s, "success", "usr-5", T0, queue.StatusSuccess)
		snapshot := func() []queue.Record {
			all, err := s.List(ctx, queue.Range{})
			require.NoError(t, err)
			return all
		}
		before := snapshot()

		dupe := []queue.Record{
			{WebhookToken: "new-1", ObjectToken: "usr-9", Status: queue.StatusFailed, CreationDate: T0},
			{WebhookToken: "new-1", ObjectToken: "usr-9", Status: queue.StatusFailed, CreationDate: T0},
		}
		require.ErrorIs(t, s.ReplaceFailed(ctx, dupe), queue.ErrDuplicate)
		require.Equal(t, before, snapshot())
		for _, tok := range []string{"pending", "success"} {
			conflict := []queue.Record{
				{WebhookToken: "new-1", ObjectToken: "usr-9", Status: queue.StatusFailed, CreationDate: T0},
				{WebhookToken: tok, ObjectToken: "usr-9", Status: queue.StatusFailed, CreationDate: T0},
			}
			require.ErrorIs(t, s.ReplaceFailed(ctx, conflict), queue.ErrConflict, tok)
			require.Equal(t, before, snapshot())
		}
		require.Error(t, s.ReplaceFailed(ctx, []queue.Record{{WebhookToken: "x", Status: "NOPE"}}))
		require.Equal(t, before, snapshot())

		require.NoError(t, s.ReplaceFailed(ctx, []queue.Record{
			{WebhookToken: "f-keep", ObjectToken: "usr-1", NotificationType: "USR", Status: queue.StatusRetrying,
				RetryCounter: 2, CreationDate: T0.Add(time.Second), Program: "prg-x"},
			{WebhookToken: "new-1", ObjectToken: "usr-9", Status: queue.StatusFailed, CreationDate: T0,
				ReceptionDate: T0.Add(time.Hour)},
		}))
		failed, total, err := s.ListFailed(ctx, queue.FailedFilter{}, 0, 100)
		require.NoError(t, err)
		require.EqualValues(t, 2, total)
		require.Equal(t, []string{"f-keep", "new-1"}, tokens(failed))
		keep := mustGet(t, s, "f-keep")
		require.Equal(t, old.ID, keep.ID, "a kept token keeps its id")
		require.Equal(t, old.Payload, keep.Payload, "and its stored body")
		require.True(t, keep.ReceptionDate.Equal(old.ReceptionDate))
		require.Equal(t, queue.StatusRetrying, keep.Status)
		require.Equal(t, 2, keep.RetryCounter)
		require.Equal(t, "prg-x", keep.Program)
		require.Equal(t, "USR", mustGet(t, s, "new-1").NotificationType)
		mustGet(t, s, "pending")
		mustGet(t, s, "success")
		for _, tok := range []string{"f-drop", "r-drop"} {
			_, err := s.Get(ctx, tok)
			require.ErrorIs(t, err, queue.ErrNotFound, tok)
		}
		require.NoError(t, s.ReplaceFailed(ctx, nil))
		_, total, err = s.ListFailed(ctx, queue.FailedFilter{}, 0, 100)
		require.NoError(t, err)
		require.Zero(t, total)
	})

	t.Run("Stats", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		ctx := Ctx(t)
		st, err := s.Stats(ctx)
		require.NoError(t, err)
		require.Len(t, st.ByStatus, len(queue.Statuses))
		require.Nil(t, st.OldestPending)
		for i, status := range []queue.Status{queue.StatusPending, queue.StatusPending,
			queue.StatusRetrying, queue.StatusFailed, queue.StatusFailed, queue.StatusFailed} {
			r := Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), T0)
			r.Status = status
			r.ReceptionDate = T0.Add(time.Duration(10-i) * time.Second)
			if i%2 == 1 {
				r.Source = "stripe"
			}
			require.NoError(t, s.Insert(ctx, r))
		}
		st, err = s.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, map[queue.Status]int64{
			queue.StatusPending: 2, queue.StatusRetrying: 1, queue.StatusFailed: 3,
			queue.StatusSuccess: 0, queue.StatusOutdated: 0,
		}, st.ByStatus)
		require.Equal(t, map[string]map[queue.Status]int64{
			queue.DefaultSource: {queue.StatusPending: 1, queue.StatusRetrying: 1, queue.StatusFailed: 1},
			"stripe":            {queue.StatusPending: 1, queue.StatusFailed: 2},
		}, st.BySource)
		require.NotNil(t, st.OldestPending)
		require.True(t, st.OldestPending.Equal(T0.Add(9*time.Second)))
		require.NoError(t, s.Ping(ctx))
	})
}
