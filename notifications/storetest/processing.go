package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// runProcessing checks processing: claiming batches under a lease, saving outcomes, the job locks.
func runProcessing(t *testing.T, tg Target, open opener) {
	t.Run("Claim", func(t *testing.T) {
		t.Parallel()
		clock := NewClock(T0)
		s, _ := open(t, Options{Clock: clock.Now, ClaimLease: time.Minute})
		now := T0.Add(time.Hour)
		stored(t, s, "wbh-p2", "usr-1", T0.Add(2*time.Second), queue.StatusPending)
		stored(t, s, "wbh-p1", "usr-2", T0.Add(1*time.Second), queue.StatusPending)
		due := Delivery("wbh-r-due", "usr-3", T0.Add(3*time.Second))
		due.Status, due.RetryCounter, due.NextRetryDate = queue.StatusRetrying, 1, ptr(now)
		require.NoError(t, s.Insert(Ctx(t), due))
		later := Delivery("wbh-r-later", "usr-4", T0)
		later.Status, later.RetryCounter, later.NextRetryDate = queue.StatusRetrying, 1, ptr(now.Add(time.Millisecond))
		require.NoError(t, s.Insert(Ctx(t), later))
		for i, st := range []queue.Status{queue.StatusSuccess, queue.StatusFailed, queue.StatusOutdated} {
			stored(t, s, fmt.Sprintf("wbh-t%d", i), fmt.Sprintf("usr-t%d", i), T0, st)
		}
		undated := Delivery("wbh-r-undated", "usr-6", T0.Add(5*time.Second)) // e.g. replaced by a manager
		undated.Status, undated.RetryCounter = queue.StatusRetrying, 2
		require.NoError(t, s.Insert(Ctx(t), undated))
		pendingFuture := Delivery("wbh-p-future", "usr-5", T0.Add(4*time.Second))
		pendingFuture.Status, pendingFuture.NextRetryDate = queue.StatusPending, ptr(now.Add(time.Hour))
		require.NoError(t, s.Insert(Ctx(t), pendingFuture))

		got, err := s.Claim(Ctx(t), now, 2)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-p1", "wbh-p2"}, tokens(got))
		require.Equal(t, []byte(`{"token":"wbh-p1"}`), got[0].Payload)

		got2, err := s.Claim(Ctx(t), now, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-r-due", "wbh-r-undated"}, tokens(got2), "claimed records are leased")

		none, err := s.Claim(Ctx(t), now, 10)
		require.NoError(t, err)
		require.Empty(t, none)

		// Finish clears the lease of the one, the others come back once
		// their lease expires (a crashed run is done again).
		r := got[0]
		r.Status = queue.StatusRetrying
		r.RetryCounter = 1
		r.LastRetryDate = ptr(now)
		r.NextRetryDate = ptr(now.Add(30 * time.Second))
		ok, err := s.Finish(Ctx(t), &r)
		require.NoError(t, err)
		require.True(t, ok)
		clock.Advance(time.Minute)
		again, err := s.Claim(Ctx(t), now.Add(30*time.Second), 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-r-later", "wbh-p1", "wbh-p2", "wbh-r-due", "wbh-r-undated"}, tokens(again))

		_, err = s.Claim(Ctx(t), now, 0)
		require.Error(t, err)
	})

	t.Run("ClaimIsExclusiveAcrossStores", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		a, b := openAt(t, tg, dsn, Options{}), openAt(t, tg, dsn, Options{})
		for i := range 50 {
			enqueue(t, a, Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), T0.Add(time.Duration(i)*time.Millisecond)))
		}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for _, s := range []queue.Store{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					recs, err := s.Claim(Ctx(t), T0.Add(time.Hour), 3)
					if !assertNoErr(t, err) {
						return
					}
					mu.Lock()
					for _, r := range recs {
						seen[r.WebhookToken]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		require.Len(t, seen, 50)
		for tok, n := range seen {
			require.Equal(t, 1, n, tok)
		}
	})

	t.Run("Finish", func(t *testing.T) {
		t.Parallel()
		clock := NewClock(T0)
		dsn := tg.NewDSN(t)
		s := openAt(t, tg, dsn, Options{Clock: clock.Now, ClaimLease: time.Minute})
		other := openAt(t, tg, dsn, Options{Clock: clock.Now, ClaimLease: time.Minute})
		now := T0.Add(time.Hour)
		enqueue(t, s, Delivery("wbh-ok", "usr-1", T0))
		enqueue(t, s, Delivery("wbh-outdated", "usr-2", T0))
		enqueue(t, s, Delivery("wbh-deleted", "usr-3", T0))
		enqueue(t, s, Delivery("wbh-stale", "usr-4", T0))
		claimed, err := s.Claim(Ctx(t), now, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 4)
		by := map[string]queue.Record{}
		for _, r := range claimed {
			by[r.WebhookToken] = r
		}

		ok := by["wbh-ok"]
		ok.Status, ok.LastRetryDate = queue.StatusSuccess, ptr(now)
		done, err := s.Finish(Ctx(t), &ok)
		require.NoError(t, err)
		require.True(t, done)
		got := mustGet(t, s, "wbh-ok")
		require.Equal(t, queue.StatusSuccess, got.Status)
		require.True(t, got.LastRetryDate.Equal(now))
		again := ok
		done, err = s.Finish(Ctx(t), &again) // terminal now
		require.NoError(t, err)
		require.False(t, done)

		require.Equal(t, 1, enqueue(t, s, Delivery("wbh-newer", "usr-2", T0.Add(time.Second))).Outdated)
		od := by["wbh-outdated"]
		od.Status = queue.StatusSuccess
		done, err = s.Finish(Ctx(t), &od)
		require.NoError(t, err)
		require.False(t, done)
		require.Equal(t, queue.StatusOutdated, mustGet(t, s, "wbh-outdated").Status)

		require.NoError(t, s.Remove(Ctx(t), "wbh-deleted"))
		del := by["wbh-deleted"]
		del.Status = queue.StatusSuccess
		done, err = s.Finish(Ctx(t), &del)
		require.NoError(t, err)
		require.False(t, done)

		// The lease expires and another sidecar claims the record: the first
		// claimer's late Finish must not overwrite the new claim's work.
		clock.Advance(2 * time.Minute)
		reclaimed, err := other.Claim(Ctx(t), now, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-stale", "wbh-newer"}, tokens(reclaimed))
		stale := by["wbh-stale"]
		stale.Status = queue.StatusFailed
		done, err = s.Finish(Ctx(t), &stale)
		require.NoError(t, err)
		require.False(t, done)
		fresh := reclaimed[0]
		fresh.Status = queue.StatusSuccess
		done, err = other.Finish(Ctx(t), &fresh)
		require.NoError(t, err)
		require.True(t, done)

		// Never claimed: not finished.
		enqueue(t, s, Delivery("wbh-unclaimed", "usr-9", T0))
		un := mustGet(t, s, "wbh-unclaimed")
		un.Status = queue.StatusSuccess
		done, err = s.Finish(Ctx(t), &un)
		require.NoError(t, err)
		require.False(t, done)
		require.Equal(t, queue.StatusPending, mustGet(t, s, "wbh-unclaimed").Status)

		_, err = s.Finish(Ctx(t), &queue.Record{Status: queue.StatusSuccess})
		require.Error(t, err)
	})

	t.Run("Lock", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		a, b := openAt(t, tg, dsn, Options{}), openAt(t, tg, dsn, Options{})
		held, unlock, err := a.Lock(Ctx(t), "process")
		require.NoError(t, err)
		require.NoError(t, held.Err(), "the job runs while the lock is held")
		_, _, err = a.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked)
		_, _, err = b.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked)
		_, unlockCleanup, err := b.Lock(Ctx(t), "cleanup") // other job, other lock
		require.NoError(t, err)
		unlockCleanup()
		unlock()
		require.ErrorIs(t, held.Err(), context.Canceled, "unlock ends the job's context")
		require.NotErrorIs(t, context.Cause(held), queue.ErrLockLost)
		unlock() // idempotent
		_, unlockB, err := b.Lock(Ctx(t), "process")
		require.NoError(t, err)
		_, _, err = a.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked)
		unlockB()
		_, _, err = a.Lock(Ctx(t), "")
		require.Error(t, err)

		// The held context is the caller's child.
		parent, cancel := context.WithCancel(Ctx(t))
		held, unlock, err = a.Lock(parent, "process")
		require.NoError(t, err)
		cancel()
		require.ErrorIs(t, held.Err(), context.Canceled)
		_, _, err = b.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked, "the lock stays held until unlock")
		unlock()
	})

	t.Run("LockFreedWhenHolderCloses", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		a, b := openAt(t, tg, dsn, Options{}), openAt(t, tg, dsn, Options{})
		held, _, err := a.Lock(Ctx(t), "process")
		require.NoError(t, err)
		require.NoError(t, a.Close())
		require.ErrorIs(t, context.Cause(held), queue.ErrLockLost, "the job of a closed store stops")
		_, unlock, err := b.Lock(Ctx(t), "process")
		require.NoError(t, err)
		unlock()
	})

	// A holder that loses its lock (its lease taken over, its session
	// gone) is told through the held context, so its job stops before
	// another holder's run overlaps it.
	t.Run("LockLost", func(t *testing.T) {
		t.Parallel()
		if tg.LoseLock == nil {
			t.Skip("the target cannot make a store lose its lock")
		}
		dsn := tg.NewDSN(t)
		o := Options{LockLease: 300 * time.Millisecond}
		a, b := openAt(t, tg, dsn, o), openAt(t, tg, dsn, o)
		held, unlock, err := a.Lock(Ctx(t), "process")
		require.NoError(t, err)
		tg.LoseLock(t, a, dsn, "process")
		select {
		case <-held.Done():
		case <-Ctx(t).Done():
			t.Fatal("the held context did not end after the lock was lost")
		}
		require.ErrorIs(t, context.Cause(held), queue.ErrLockLost)
		// Another holder gets the lock; the loser's unlock leaves it alone.
		var unlockB func()
		require.Eventually(t, func() bool {
			_, unlockB, err = b.Lock(Ctx(t), "process")
			return err == nil
		}, 30*time.Second, 20*time.Millisecond, "the lost lock is free: %v", err)
		unlock()
		_, _, err = a.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked, "the loser's unlock did not release the new holder's lock")
		unlockB()
	})
}
