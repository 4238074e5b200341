package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// target is one store implementation under the conformance suite.
type target struct {
	dialect string
	// newDSN returns the DSN of a fresh, empty database (a file or a schema).
	newDSN func(t *testing.T) string
	// exec runs raw SQL on the database behind dsn (to break it on purpose).
	exec func(t *testing.T, dsn, sql string)
}

// fakeClock is a settable clock shared by store instances in a test.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

var t0 = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

func openAt(t *testing.T, dsn string, opts ...Option) notifications.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, dsn, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func tctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func delivery(token, object string, created time.Time) *notifications.Record {
	return &notifications.Record{
		WebhookToken:     token,
		ObjectToken:      object,
		NotificationType: notifications.TypeOf(object),
		CreationDate:     created,
		ReceptionDate:    t0,
		Program:          "prg-1",
		Payload:          []byte(`{"token":"` + token + `"}`),
	}
}

func enqueue(t *testing.T, s notifications.Store, r *notifications.Record) notifications.EnqueueResult {
	t.Helper()
	res, err := s.Enqueue(tctx(t), r)
	require.NoError(t, err)
	return res
}

func mustGet(t *testing.T, s notifications.Store, token string) notifications.Record {
	t.Helper()
	r, err := s.Get(tctx(t), token)
	require.NoError(t, err)
	return r
}

func ptr[T any](v T) *T { return &v }

// stored inserts a record as given (any status), as the management API does.
func stored(t *testing.T, s notifications.Store, token, object string, created time.Time, st notifications.Status) notifications.Record {
	t.Helper()
	r := delivery(token, object, created)
	r.Status = st
	require.NoError(t, s.Insert(tctx(t), r))
	return *r
}

func runStoreSuite(t *testing.T, tg target) {
	open := func(t *testing.T, opts ...Option) (notifications.Store, string) {
		t.Helper()
		dsn := tg.newDSN(t)
		return openAt(t, dsn, opts...), dsn
	}

	t.Run("EnqueueStoresPending", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		r := delivery("wbh-1", "usr-1", t0.Add(-time.Minute+123*time.Microsecond))
		r.Status, r.RetryCounter = notifications.StatusFailed, 7 // ignored by intake
		res := enqueue(t, s, r)
		require.Equal(t, notifications.Stored, res.Outcome)
		require.NotZero(t, res.ID)
		require.Equal(t, res.ID, r.ID)
		got := mustGet(t, s, "wbh-1")
		require.Equal(t, notifications.StatusPending, got.Status)
		require.Equal(t, 0, got.RetryCounter)
		require.Equal(t, "USR", got.NotificationType)
		require.Equal(t, "usr-1", got.ObjectToken)
		require.Equal(t, "prg-1", got.Program)
		require.True(t, got.CreationDate.Equal(t0.Add(-time.Minute)), "creationDate truncated to ms: %s", got.CreationDate)
		require.True(t, got.ReceptionDate.Equal(t0))
		require.Equal(t, time.UTC, got.CreationDate.Location())
		require.Nil(t, got.LastRetryDate)
		require.Nil(t, got.NextRetryDate)
		require.Equal(t, []byte(`{"token":"wbh-1"}`), got.Payload)
	})

	t.Run("EnqueueDefaults", func(t *testing.T) {
		t.Parallel()
		clock := newFakeClock(t0.Add(time.Hour + 7*time.Millisecond))
		s, _ := open(t, WithClock(clock.Now))
		r := &notifications.Record{WebhookToken: "wbh-d", ObjectToken: "stk-9"}
		require.Equal(t, notifications.Stored, enqueue(t, s, r).Outcome)
		got := mustGet(t, s, "wbh-d")
		require.True(t, got.ReceptionDate.Equal(clock.Now()))
		require.True(t, got.CreationDate.Equal(got.ReceptionDate), "creationDate defaults to receptionDate")
		require.Equal(t, "STK", got.NotificationType)
		require.Nil(t, got.Payload)
	})

	t.Run("EnqueueRejectsBadInput", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		for name, r := range map[string]*notifications.Record{
			"no token":    {ObjectToken: "usr-1"},
			"nul byte":    {WebhookToken: "wbh-\x00", ObjectToken: "usr-1"},
			"bad utf8":    {WebhookToken: "wbh-1", ObjectToken: "usr-\xff"},
			"nil record":  nil,
			"bad program": {WebhookToken: "wbh-2", Program: "a\x00b"},
		} {
			_, err := s.Enqueue(tctx(t), r)
			require.ErrorIs(t, err, notifications.ErrInvalid, name)
			require.NotErrorIs(t, err, notifications.ErrUnavailable, name)
		}
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.Zero(t, st.ByStatus[notifications.StatusPending])
	})

	t.Run("EnqueueCancelledContext", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.Enqueue(ctx, delivery("wbh-c", "usr-1", t0))
		require.ErrorIs(t, err, context.Canceled)
		_, err = s.Get(tctx(t), "wbh-c")
		require.ErrorIs(t, err, notifications.ErrNotFound)
	})

	t.Run("Rules", func(t *testing.T) {
		t.Parallel()
		type step struct {
			rec          *notifications.Record
			want         notifications.Outcome
			wantOutdated int
		}
		tests := []struct {
			name  string
			setup func(t *testing.T, s notifications.Store)
			steps []step
			// final statuses by token
			want map[string]notifications.Status
		}{
			{
				name: "duplicate token is discarded even with other content",
				steps: []step{
					{rec: delivery("wbh-1", "usr-1", t0), want: notifications.Stored},
					{rec: delivery("wbh-1", "usr-2", t0.Add(time.Hour)), want: notifications.DiscardedDuplicate},
				},
				want: map[string]notifications.Status{"wbh-1": notifications.StatusPending},
			},
			{
				name: "duplicate of a terminal record is discarded and the record untouched",
				setup: func(t *testing.T, s notifications.Store) {
					stored(t, s, "wbh-1", "usr-1", t0, notifications.StatusSuccess)
				},
				steps: []step{{rec: delivery("wbh-1", "usr-1", t0), want: notifications.DiscardedDuplicate}},
				want:  map[string]notifications.Status{"wbh-1": notifications.StatusSuccess},
			},
			{
				name: "later creationDate of a live record makes the delivery obsolete",
				steps: []step{
					{rec: delivery("wbh-new", "usr-1", t0.Add(time.Second)), want: notifications.Stored},
					{rec: delivery("wbh-old", "usr-1", t0), want: notifications.DiscardedObsolete},
				},
				want: map[string]notifications.Status{"wbh-new": notifications.StatusPending},
			},
			{
				name: "later creationDate in any status makes the delivery obsolete",
				setup: func(t *testing.T, s notifications.Store) {
					stored(t, s, "wbh-s", "usr-1", t0.Add(time.Millisecond), notifications.StatusSuccess)
					stored(t, s, "wbh-o", "usr-2", t0.Add(time.Millisecond), notifications.StatusOutdated)
					stored(t, s, "wbh-f", "usr-3", t0.Add(time.Millisecond), notifications.StatusFailed)
				},
				steps: []step{
					{rec: delivery("wbh-1", "usr-1", t0), want: notifications.DiscardedObsolete},
					{rec: delivery("wbh-2", "usr-2", t0), want: notifications.DiscardedObsolete},
					{rec: delivery("wbh-3", "usr-3", t0), want: notifications.DiscardedObsolete},
				},
				want: map[string]notifications.Status{
					"wbh-s": notifications.StatusSuccess, "wbh-o": notifications.StatusOutdated, "wbh-f": notifications.StatusFailed,
				},
			},
			{
				name: "newer delivery outdates only live earlier records of the same object and type",
				setup: func(t *testing.T, s notifications.Store) {
					stored(t, s, "wbh-p", "usr-1", t0, notifications.StatusPending)
					stored(t, s, "wbh-r", "usr-1", t0.Add(time.Millisecond), notifications.StatusRetrying)
					stored(t, s, "wbh-s", "usr-1", t0, notifications.StatusSuccess)
					stored(t, s, "wbh-f", "usr-1", t0, notifications.StatusFailed)
					other := delivery("wbh-t", "usr-1", t0) // same object, other type
					other.NotificationType = notifications.TypeUnknown
					other.Status = notifications.StatusPending
					require.NoError(t, s.Insert(tctx(t), other))
					stored(t, s, "wbh-x", "usr-2", t0, notifications.StatusPending) // other object
				},
				steps: []step{{rec: delivery("wbh-new", "usr-1", t0.Add(time.Second)), want: notifications.Stored, wantOutdated: 2}},
				want: map[string]notifications.Status{
					"wbh-p": notifications.StatusOutdated, "wbh-r": notifications.StatusOutdated,
					"wbh-s": notifications.StatusSuccess, "wbh-f": notifications.StatusFailed,
					"wbh-t": notifications.StatusPending, "wbh-x": notifications.StatusPending,
					"wbh-new": notifications.StatusPending,
				},
			},
			{
				name: "equal creationDate neither discards nor supersedes",
				steps: []step{
					{rec: delivery("wbh-a", "usr-1", t0), want: notifications.Stored},
					{rec: delivery("wbh-b", "usr-1", t0), want: notifications.Stored},
				},
				want: map[string]notifications.Status{"wbh-a": notifications.StatusPending, "wbh-b": notifications.StatusPending},
			},
			{
				name: "a chain of newer deliveries leaves only the newest live",
				steps: []step{
					{rec: delivery("wbh-1", "pmt-1", t0), want: notifications.Stored},
					{rec: delivery("wbh-2", "pmt-1", t0.Add(1*time.Millisecond)), want: notifications.Stored, wantOutdated: 1},
					{rec: delivery("wbh-3", "pmt-1", t0.Add(2*time.Millisecond)), want: notifications.Stored, wantOutdated: 1},
				},
				want: map[string]notifications.Status{
					"wbh-1": notifications.StatusOutdated, "wbh-2": notifications.StatusOutdated, "wbh-3": notifications.StatusPending,
				},
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				s, _ := open(t)
				if tt.setup != nil {
					tt.setup(t, s)
				}
				for i, st := range tt.steps {
					res := enqueue(t, s, st.rec)
					require.Equal(t, st.want, res.Outcome, "step %d", i)
					require.Equal(t, st.wantOutdated, res.Outdated, "step %d", i)
					if st.want != notifications.Stored {
						require.Zero(t, res.ID, "step %d", i)
					}
				}
				for tok, want := range tt.want {
					require.Equal(t, want, mustGet(t, s, tok).Status, tok)
				}
				all, err := s.List(tctx(t), notifications.Range{})
				require.NoError(t, err)
				require.Len(t, all, len(tt.want))
			})
		}
	})

	t.Run("RulesApplyInArrivalOrderWithinABatch", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		// Many deliveries of one object at once: whatever the batching, at
		// most the newest stays live and every other ends OUTDATED or discarded.
		const n = 40
		var wg sync.WaitGroup
		results := make([]notifications.EnqueueResult, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = s.Enqueue(tctx(t), delivery(fmt.Sprintf("wbh-%02d", i), "trm-1", t0.Add(time.Duration(i)*time.Millisecond)))
			}()
		}
		wg.Wait()
		outdated := 0
		storedN := 0
		for i := range n {
			require.NoError(t, errs[i])
			outdated += results[i].Outdated
			if results[i].Outcome == notifications.Stored {
				storedN++
			}
		}
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.EqualValues(t, 1, st.ByStatus[notifications.StatusPending])
		require.EqualValues(t, outdated, st.ByStatus[notifications.StatusOutdated])
		require.Equal(t, storedN-1, outdated)
		require.Equal(t, notifications.StatusPending, mustGet(t, s, fmt.Sprintf("wbh-%02d", n-1)).Status)
	})

	t.Run("DeliveriesWithoutObjectAreUnrelated", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		// One at a time, in every date order: none is obsolete, none supersedes.
		for _, d := range []struct {
			token string
			hours int
		}{{"n1", 1}, {"n2", 2}, {"n0", 0}} {
			res := enqueue(t, s, delivery(d.token, "", t0.Add(time.Duration(d.hours)*time.Hour)))
			require.Equal(t, notifications.Stored, res.Outcome, d.token)
			require.Zero(t, res.Outdated, d.token)
		}
		// Many at once, so that Postgres applies them as one set-based batch.
		const n = 40
		var wg sync.WaitGroup
		errs := make([]error, n)
		results := make([]notifications.EnqueueResult, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = s.Enqueue(tctx(t), delivery(fmt.Sprintf("nobj-%02d", i), "", t0.Add(time.Duration(n-i)*time.Minute)))
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, notifications.Stored, results[i].Outcome, i)
			require.Zero(t, results[i].Outdated, i)
		}
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.EqualValues(t, n+3, st.ByStatus[notifications.StatusPending])
		require.Zero(t, st.ByStatus[notifications.StatusOutdated])
	})

	t.Run("BatchEqualsOneByOne", func(t *testing.T) {
		t.Parallel()
		// Random deliveries over few tokens, objects and dates, on top of
		// random stored records: committing them as one batch must give
		// exactly what committing them one at a time gives.
		seq, _ := open(t)
		batched, _ := open(t)
		variants := batchVariants(batched)
		rng := rand.New(rand.NewPCG(1, 2))
		for round := range 12 {
			p := fmt.Sprintf("r%d-", round)
			variant := variants[round%len(variants)]
			date := func() time.Time { return t0.Add(time.Duration(rng.IntN(4)) * time.Millisecond) }
			obj := func() string { return p + []string{"usr-1", "usr-2", "pmt-1"}[rng.IntN(3)] }
			for i := range rng.IntN(5) {
				st := notifications.Statuses[rng.IntN(len(notifications.Statuses))]
				o, d := obj(), date()
				stored(t, seq, fmt.Sprintf("%sold-%d", p, i), o, d, st)
				stored(t, batched, fmt.Sprintf("%sold-%d", p, i), o, d, st)
			}
			var reqs []*intakeReq
			var want []notifications.EnqueueResult
			for range 25 {
				tok := fmt.Sprintf("%swbh-%d", p, rng.IntN(12))
				if rng.IntN(8) == 0 {
					tok = fmt.Sprintf("%sold-%d", p, rng.IntN(5))
				}
				r := delivery(tok, obj(), date())
				if rng.IntN(6) == 0 {
					r.NotificationType = notifications.TypeUnknown
				}
				res := enqueue(t, seq, r)
				res.ID = 0
				want = append(want, res)
				pr, err := prepareIntake(r, t0)
				require.NoError(t, err)
				reqs = append(reqs, &intakeReq{ctx: context.Background(), rec: pr})
			}
			got, err := variant(tctx(t), reqs)
			require.NoError(t, err)
			for i := range got {
				if got[i].Outcome == notifications.Stored {
					require.NotZero(t, got[i].ID)
				}
				got[i].ID = 0
			}
			require.Equal(t, want, got, "round %d", round)
			from, to := t0.Add(-time.Hour), t0.Add(time.Hour)
			a, err := seq.List(tctx(t), notifications.Range{From: &from, To: &to})
			require.NoError(t, err)
			b, err := batched.List(tctx(t), notifications.Range{From: &from, To: &to})
			require.NoError(t, err)
			require.Equal(t, statusByToken(a), statusByToken(b), "round %d", round)
		}
	})

	t.Run("ConcurrentIdenticalDeliveriesStoreOne", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		a := openAt(t, dsn)
		b := openAt(t, dsn) // a second sidecar on the same database
		const n = 40
		var wg sync.WaitGroup
		outcomes := make([]notifications.Outcome, n)
		errs := make([]error, n)
		for i := range n {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(tctx(t), delivery("wbh-same", "usr-1", t0))
				outcomes[i], errs[i] = res.Outcome, err
			}()
		}
		wg.Wait()
		storedN := 0
		for i := range n {
			require.NoError(t, errs[i])
			if outcomes[i] == notifications.Stored {
				storedN++
			} else {
				require.Equal(t, notifications.DiscardedDuplicate, outcomes[i])
			}
		}
		require.Equal(t, 1, storedN)
		all, err := a.List(tctx(t), notifications.Range{})
		require.NoError(t, err)
		require.Len(t, all, 1)
	})

	t.Run("ConcurrentDistinctDeliveriesAllStored", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		const n = 300
		var wg sync.WaitGroup
		ids := make([]int64, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(tctx(t), delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), t0))
				ids[i], errs[i] = res.ID, err
				if err == nil && res.Outcome != notifications.Stored {
					errs[i] = fmt.Errorf("outcome %d", res.Outcome)
				}
			}()
		}
		wg.Wait()
		seen := map[int64]bool{}
		for i := range n {
			require.NoError(t, errs[i])
			require.False(t, seen[ids[i]], "id %d twice", ids[i])
			seen[ids[i]] = true
		}
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.EqualValues(t, n, st.ByStatus[notifications.StatusPending])
	})

	t.Run("FailedBatchLosesNobody", func(t *testing.T) {
		t.Parallel()
		s, dsn := open(t)
		tg.exec(t, dsn, poisonTrigger[tg.dialect])
		const n = 60
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok := fmt.Sprintf("wbh-%d", i)
				if i == n/2 {
					tok = "poison"
				}
				_, errs[i] = s.Enqueue(tctx(t), delivery(tok, fmt.Sprintf("usr-%d", i), t0))
			}()
		}
		wg.Wait()
		for i := range n {
			if i == n/2 {
				require.ErrorIs(t, errs[i], notifications.ErrUnavailable)
				continue
			}
			require.NoError(t, errs[i])
			mustGet(t, s, fmt.Sprintf("wbh-%d", i))
		}
		_, err := s.Get(tctx(t), "poison")
		require.ErrorIs(t, err, notifications.ErrNotFound)
	})

	t.Run("BrokenDatabaseIsUnavailable", func(t *testing.T) {
		t.Parallel()
		s, dsn := open(t)
		tg.exec(t, dsn, "DROP TABLE notification_attempts; DROP TABLE notifications")
		_, err := s.Enqueue(tctx(t), delivery("wbh-1", "usr-1", t0))
		require.ErrorIs(t, err, notifications.ErrUnavailable)
		_, err = s.Get(tctx(t), "wbh-1")
		require.ErrorIs(t, err, notifications.ErrUnavailable)
		_, err = s.Claim(tctx(t), t0, 10)
		require.ErrorIs(t, err, notifications.ErrUnavailable)
		_, err = s.Stats(tctx(t))
		require.ErrorIs(t, err, notifications.ErrUnavailable)
	})

	t.Run("Claim", func(t *testing.T) {
		t.Parallel()
		clock := newFakeClock(t0)
		s, _ := open(t, WithClock(clock.Now), WithClaimLease(time.Minute))
		now := t0.Add(time.Hour)
		stored(t, s, "wbh-p2", "usr-1", t0.Add(2*time.Second), notifications.StatusPending)
		stored(t, s, "wbh-p1", "usr-2", t0.Add(1*time.Second), notifications.StatusPending)
		due := delivery("wbh-r-due", "usr-3", t0.Add(3*time.Second))
		due.Status, due.RetryCounter, due.NextRetryDate = notifications.StatusRetrying, 1, ptr(now)
		require.NoError(t, s.Insert(tctx(t), due))
		later := delivery("wbh-r-later", "usr-4", t0)
		later.Status, later.RetryCounter, later.NextRetryDate = notifications.StatusRetrying, 1, ptr(now.Add(time.Millisecond))
		require.NoError(t, s.Insert(tctx(t), later))
		for i, st := range []notifications.Status{notifications.StatusSuccess, notifications.StatusFailed, notifications.StatusOutdated} {
			stored(t, s, fmt.Sprintf("wbh-t%d", i), fmt.Sprintf("usr-t%d", i), t0, st)
		}
		undated := delivery("wbh-r-undated", "usr-6", t0.Add(5*time.Second)) // e.g. replaced by a manager
		undated.Status, undated.RetryCounter = notifications.StatusRetrying, 2
		require.NoError(t, s.Insert(tctx(t), undated))
		pendingFuture := delivery("wbh-p-future", "usr-5", t0.Add(4*time.Second))
		pendingFuture.Status, pendingFuture.NextRetryDate = notifications.StatusPending, ptr(now.Add(time.Hour))
		require.NoError(t, s.Insert(tctx(t), pendingFuture))

		got, err := s.Claim(tctx(t), now, 2)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-p1", "wbh-p2"}, tokens(got))
		require.Equal(t, []byte(`{"token":"wbh-p1"}`), got[0].Payload)

		got2, err := s.Claim(tctx(t), now, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-r-due", "wbh-r-undated"}, tokens(got2), "claimed records are leased")

		none, err := s.Claim(tctx(t), now, 10)
		require.NoError(t, err)
		require.Empty(t, none)

		// Finish clears the lease of the one, the others come back once
		// their lease expires (a crashed run is done again).
		r := got[0]
		r.Status = notifications.StatusRetrying
		r.RetryCounter = 1
		r.LastRetryDate = ptr(now)
		r.NextRetryDate = ptr(now.Add(30 * time.Second))
		ok, err := s.Finish(tctx(t), &r)
		require.NoError(t, err)
		require.True(t, ok)
		clock.Advance(time.Minute)
		again, err := s.Claim(tctx(t), now.Add(30*time.Second), 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-r-later", "wbh-p1", "wbh-p2", "wbh-r-due", "wbh-r-undated"}, tokens(again))

		_, err = s.Claim(tctx(t), now, 0)
		require.Error(t, err)
	})

	t.Run("ClaimIsExclusiveAcrossStores", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		a, b := openAt(t, dsn), openAt(t, dsn)
		for i := range 50 {
			enqueue(t, a, delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), t0.Add(time.Duration(i)*time.Millisecond)))
		}
		var mu sync.Mutex
		seen := map[string]int{}
		var wg sync.WaitGroup
		for _, s := range []notifications.Store{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					recs, err := s.Claim(tctx(t), t0.Add(time.Hour), 3)
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
		clock := newFakeClock(t0)
		dsn := tg.newDSN(t)
		s := openAt(t, dsn, WithClock(clock.Now), WithClaimLease(time.Minute))
		other := openAt(t, dsn, WithClock(clock.Now), WithClaimLease(time.Minute))
		now := t0.Add(time.Hour)
		enqueue(t, s, delivery("wbh-ok", "usr-1", t0))
		enqueue(t, s, delivery("wbh-outdated", "usr-2", t0))
		enqueue(t, s, delivery("wbh-deleted", "usr-3", t0))
		enqueue(t, s, delivery("wbh-stale", "usr-4", t0))
		claimed, err := s.Claim(tctx(t), now, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 4)
		by := map[string]notifications.Record{}
		for _, r := range claimed {
			by[r.WebhookToken] = r
		}

		ok := by["wbh-ok"]
		ok.Status, ok.LastRetryDate = notifications.StatusSuccess, ptr(now)
		done, err := s.Finish(tctx(t), &ok)
		require.NoError(t, err)
		require.True(t, done)
		got := mustGet(t, s, "wbh-ok")
		require.Equal(t, notifications.StatusSuccess, got.Status)
		require.True(t, got.LastRetryDate.Equal(now))
		again := ok
		done, err = s.Finish(tctx(t), &again) // terminal now
		require.NoError(t, err)
		require.False(t, done)

		require.Equal(t, 1, enqueue(t, s, delivery("wbh-newer", "usr-2", t0.Add(time.Second))).Outdated)
		od := by["wbh-outdated"]
		od.Status = notifications.StatusSuccess
		done, err = s.Finish(tctx(t), &od)
		require.NoError(t, err)
		require.False(t, done)
		require.Equal(t, notifications.StatusOutdated, mustGet(t, s, "wbh-outdated").Status)

		require.NoError(t, s.Remove(tctx(t), "wbh-deleted"))
		del := by["wbh-deleted"]
		del.Status = notifications.StatusSuccess
		done, err = s.Finish(tctx(t), &del)
		require.NoError(t, err)
		require.False(t, done)

		// The lease expires and another sidecar claims the record: the first
		// claimer's late Finish must not overwrite the new claim's work.
		clock.Advance(2 * time.Minute)
		reclaimed, err := other.Claim(tctx(t), now, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-stale", "wbh-newer"}, tokens(reclaimed))
		stale := by["wbh-stale"]
		stale.Status = notifications.StatusFailed
		done, err = s.Finish(tctx(t), &stale)
		require.NoError(t, err)
		require.False(t, done)
		fresh := reclaimed[0]
		fresh.Status = notifications.StatusSuccess
		done, err = other.Finish(tctx(t), &fresh)
		require.NoError(t, err)
		require.True(t, done)

		// Never claimed: not finished.
		enqueue(t, s, delivery("wbh-unclaimed", "usr-9", t0))
		un := mustGet(t, s, "wbh-unclaimed")
		un.Status = notifications.StatusSuccess
		done, err = s.Finish(tctx(t), &un)
		require.NoError(t, err)
		require.False(t, done)
		require.Equal(t, notifications.StatusPending, mustGet(t, s, "wbh-unclaimed").Status)

		_, err = s.Finish(tctx(t), &notifications.Record{Status: notifications.StatusSuccess})
		require.Error(t, err)
	})

	t.Run("Lock", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		a, b := openAt(t, dsn), openAt(t, dsn)
		unlock, err := a.Lock(tctx(t), "process")
		require.NoError(t, err)
		_, err = a.Lock(tctx(t), "process")
		require.ErrorIs(t, err, notifications.ErrLocked)
		_, err = b.Lock(tctx(t), "process")
		require.ErrorIs(t, err, notifications.ErrLocked)
		unlockCleanup, err := b.Lock(tctx(t), "cleanup") // other job, other lock
		require.NoError(t, err)
		unlockCleanup()
		unlock()
		unlock() // idempotent
		unlockB, err := b.Lock(tctx(t), "process")
		require.NoError(t, err)
		_, err = a.Lock(tctx(t), "process")
		require.ErrorIs(t, err, notifications.ErrLocked)
		unlockB()
		_, err = a.Lock(tctx(t), "")
		require.Error(t, err)
	})

	t.Run("LockFreedWhenHolderCloses", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		a, b := openAt(t, dsn), openAt(t, dsn)
		_, err := a.Lock(tctx(t), "process")
		require.NoError(t, err)
		require.NoError(t, a.Close())
		unlock, err := b.Lock(tctx(t), "process")
		require.NoError(t, err)
		unlock()
	})

	t.Run("Cleanup", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		cutoff := t0.Add(time.Hour)
		for i, st := range notifications.Statuses {
			old := delivery(fmt.Sprintf("old-%s", st), fmt.Sprintf("usr-%d", i), t0)
			old.Status = st
			old.ReceptionDate = cutoff.Add(-time.Millisecond)
			require.NoError(t, s.Insert(tctx(t), old))
			at := delivery(fmt.Sprintf("at-%s", st), fmt.Sprintf("usr-a%d", i), t0)
			at.Status = st
			at.ReceptionDate = cutoff
			require.NoError(t, s.Insert(tctx(t), at))
		}
		n, err := s.Cleanup(tctx(t), cutoff)
		require.NoError(t, err)
		require.EqualValues(t, 3, n)
		for _, st := range notifications.Statuses {
			_, err := s.Get(tctx(t), "old-"+string(st))
			if st.Terminal() {
				require.ErrorIs(t, err, notifications.ErrNotFound, st)
			} else {
				require.NoError(t, err, st)
			}
			mustGet(t, s, "at-"+string(st))
		}
		// Retention 0: everything terminal goes, live records never.
		n, err = s.Cleanup(tctx(t), cutoff.Add(24*time.Hour))
		require.NoError(t, err)
		require.EqualValues(t, 3, n)
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.EqualValues(t, 2, st.ByStatus[notifications.StatusPending])
		require.EqualValues(t, 2, st.ByStatus[notifications.StatusRetrying])
	})

	t.Run("CleanupAndDeleteInChunks", func(t *testing.T) {
		t.Parallel()
		s, dsn := open(t)
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
		tg.exec(t, dsn, fill[tg.dialect])
		require.Equal(t, 2*deleteChunk, 10100-10100/101)
		n, err := s.Cleanup(tctx(t), t0.Add(10101*time.Millisecond))
		require.NoError(t, err)
		require.EqualValues(t, 2*deleteChunk, n)
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.EqualValues(t, 100, st.ByStatus[notifications.StatusPending])
		require.EqualValues(t, 100, st.ByStatus[notifications.StatusSuccess])
		require.Zero(t, st.ByStatus[notifications.StatusFailed])
		from := t0.Add(10150 * time.Millisecond)
		n, err = s.Delete(tctx(t), notifications.Range{From: &from})
		require.NoError(t, err)
		require.EqualValues(t, 51, n)
		n, err = s.Delete(tctx(t), notifications.Range{})
		require.NoError(t, err)
		require.EqualValues(t, 100+49, n)
	})

	t.Run("RangesAreInclusiveAtMilliseconds", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		for i := range 3 {
			r := delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), t0)
			r.ReceptionDate = t0.Add(time.Duration(i) * time.Millisecond)
			enqueue(t, s, r)
		}
		at := func(d time.Duration) *time.Time { return ptr(t0.Add(d)) }
		tests := []struct {
			name string
			r    notifications.Range
			want []string
		}{
			{"open", notifications.Range{}, []string{"wbh-0", "wbh-1", "wbh-2"}},
			{"from = to = receptionDate", notifications.Range{From: at(time.Millisecond), To: at(time.Millisecond)}, []string{"wbh-1"}},
			{"both ends inclusive", notifications.Range{From: at(0), To: at(2 * time.Millisecond)}, []string{"wbh-0", "wbh-1", "wbh-2"}},
			{"from only", notifications.Range{From: at(time.Millisecond)}, []string{"wbh-1", "wbh-2"}},
			{"to only", notifications.Range{To: at(time.Millisecond)}, []string{"wbh-0", "wbh-1"}},
			{"sub-millisecond from excludes the millisecond below", notifications.Range{From: at(500 * time.Microsecond)}, []string{"wbh-1", "wbh-2"}},
			{"sub-millisecond to includes the millisecond below", notifications.Range{To: at(1500 * time.Microsecond)}, []string{"wbh-0", "wbh-1"}},
			{"empty", notifications.Range{From: at(time.Hour)}, nil},
		}
		for _, tt := range tests {
			got, err := s.List(tctx(t), tt.r)
			require.NoError(t, err, tt.name)
			require.Equal(t, tt.want, tokens(got), tt.name)
			var scanned []string
			require.NoError(t, s.Scan(tctx(t), tt.r, func(r *notifications.Record) error {
				scanned = append(scanned, r.WebhookToken)
				return nil
			}), tt.name)
			require.Equal(t, tt.want, scanned, tt.name)
		}
		n, err := s.Delete(tctx(t), notifications.Range{From: at(time.Millisecond), To: at(time.Millisecond)})
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		n, err = s.Delete(tctx(t), notifications.Range{})
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
	})

	t.Run("ListOrdersByReceptionThenID", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		for i, d := range []time.Duration{2, 0, 1, 0} {
			r := delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), t0)
			r.ReceptionDate = t0.Add(d * time.Second)
			enqueue(t, s, r)
		}
		got, err := s.List(tctx(t), notifications.Range{})
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-1", "wbh-3", "wbh-2", "wbh-0"}, tokens(got))
	})

	t.Run("Management", func(t *testing.T) {
		t.Parallel()
		clock := newFakeClock(t0.Add(time.Hour))
		s, _ := open(t, WithClock(clock.Now))
		ctx := tctx(t)

		_, err := s.Get(ctx, "nope")
		require.ErrorIs(t, err, notifications.ErrNotFound)
		require.NotErrorIs(t, err, notifications.ErrUnavailable)

		// Insert stores as given; receptionDate defaults to now.
		in := &notifications.Record{WebhookToken: "wbh-m", ObjectToken: "usr-1", Status: notifications.StatusFailed,
			RetryCounter: 5, CreationDate: t0, Program: "prg-9", LastRetryDate: ptr(t0.Add(time.Minute))}
		require.NoError(t, s.Insert(ctx, in))
		require.NotZero(t, in.ID)
		got := mustGet(t, s, "wbh-m")
		require.Equal(t, notifications.StatusFailed, got.Status)
		require.Equal(t, 5, got.RetryCounter)
		require.Equal(t, "USR", got.NotificationType)
		require.True(t, got.ReceptionDate.Equal(clock.Now()))
		require.True(t, got.LastRetryDate.Equal(t0.Add(time.Minute)))
		require.ErrorIs(t, s.Insert(ctx, in), notifications.ErrExists)
		require.ErrorIs(t, s.Insert(ctx, &notifications.Record{WebhookToken: "x", Status: "BOGUS"}), notifications.ErrInvalid)
		require.ErrorIs(t, s.Insert(ctx, &notifications.Record{Status: notifications.StatusFailed}), notifications.ErrInvalid)

		// Update: patch semantics, status never changes.
		up, err := s.Update(ctx, "wbh-m", notifications.Patch{Program: ptr("prg-2"), RetryCounter: ptr(1),
			CreationDate: ptr(t0.Add(time.Second + 400*time.Microsecond))})
		require.NoError(t, err)
		require.Equal(t, "prg-2", up.Program)
		require.Equal(t, 1, up.RetryCounter)
		require.Equal(t, "usr-1", up.ObjectToken)
		require.Equal(t, notifications.StatusFailed, up.Status)
		require.True(t, up.CreationDate.Equal(t0.Add(time.Second)))
		require.Equal(t, up, mustGet(t, s, "wbh-m"))
		up, err = s.Update(ctx, "wbh-m", notifications.Patch{ObjectToken: ptr("stk-2"), NotificationType: ptr("STK")})
		require.NoError(t, err)
		require.Equal(t, "stk-2", up.ObjectToken)
		require.Equal(t, "STK", up.NotificationType)
		require.Equal(t, "prg-2", up.Program)
		_, err = s.Update(ctx, "nope", notifications.Patch{Program: ptr("x")})
		require.ErrorIs(t, err, notifications.ErrNotFound)
		_, err = s.Update(ctx, "wbh-m", notifications.Patch{RetryCounter: ptr(-1)})
		require.Error(t, err)

		// Requeue: back to PENDING, claimable.
		rq, err := s.Requeue(ctx, "wbh-m")
		require.NoError(t, err)
		require.Equal(t, notifications.StatusPending, rq.Status)
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
		require.ErrorIs(t, err, notifications.ErrNotFound)

		require.NoError(t, s.Remove(ctx, "wbh-m"))
		require.ErrorIs(t, s.Remove(ctx, "wbh-m"), notifications.ErrNotFound)
		_, err = s.Get(ctx, "wbh-m")
		require.ErrorIs(t, err, notifications.ErrNotFound)
	})

	t.Run("ListFailed", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		ctx := tctx(t)
		mk := func(tok, obj, typ string, created time.Duration, st notifications.Status) {
			r := delivery(tok, obj, t0.Add(created))
			r.NotificationType, r.Status = typ, st
			require.NoError(t, s.Insert(ctx, r))
		}
		mk("f1", "usr-1", "USR", 1*time.Second, notifications.StatusFailed)
		mk("r2", "usr-1", "USR", 2*time.Second, notifications.StatusRetrying)
		mk("f3", "stk-1", "STK", 3*time.Second, notifications.StatusFailed)
		mk("f3b", "usr-2", "USR", 3*time.Second, notifications.StatusFailed) // tie: id desc
		mk("p", "usr-1", "USR", 4*time.Second, notifications.StatusPending)
		mk("s", "usr-1", "USR", 4*time.Second, notifications.StatusSuccess)
		mk("o", "usr-1", "USR", 4*time.Second, notifications.StatusOutdated)
		mk("u", "zzz", "UNK", 0, notifications.StatusFailed)
		tests := []struct {
			name          string
			f             notifications.FailedFilter
			offset, limit int
			want          []string
			total         int64
		}{
			{"all", notifications.FailedFilter{}, 0, 20, []string{"f3b", "f3", "r2", "f1", "u"}, 5},
			{"page", notifications.FailedFilter{}, 1, 2, []string{"f3", "r2"}, 5},
			{"past the end", notifications.FailedFilter{}, 10, 2, nil, 5},
			{"type", notifications.FailedFilter{Type: "USR"}, 0, 20, []string{"f3b", "r2", "f1"}, 3},
			{"target", notifications.FailedFilter{Target: "usr-1"}, 0, 20, []string{"r2", "f1"}, 2},
			{"both", notifications.FailedFilter{Type: "STK", Target: "stk-1"}, 0, 20, []string{"f3"}, 1},
			{"unknown type", notifications.FailedFilter{Type: "UNK"}, 0, 20, []string{"u"}, 1},
			{"none", notifications.FailedFilter{Target: "nobody"}, 0, 20, nil, 0},
		}
		for _, tt := range tests {
			got, total, err := s.ListFailed(ctx, tt.f, tt.offset, tt.limit)
			require.NoError(t, err, tt.name)
			require.Equal(t, tt.want, tokens(got), tt.name)
			require.Equal(t, tt.total, total, tt.name)
		}
		_, _, err := s.ListFailed(ctx, notifications.FailedFilter{}, -1, 10)
		require.Error(t, err)
		_, _, err = s.ListFailed(ctx, notifications.FailedFilter{}, 0, 0)
		require.Error(t, err)
	})

	t.Run("ReplaceFailed", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		ctx := tctx(t)
		old := stored(t, s, "f-keep", "usr-1", t0, notifications.StatusFailed)
		stored(t, s, "f-drop", "usr-2", t0, notifications.StatusFailed)
		stored(t, s, "r-drop", "usr-3", t0, notifications.StatusRetrying)
		stored(t, s, "pending", "usr-4", t0, notifications.StatusPending)
		stored(t, s, "success", "usr-5", t0, notifications.StatusSuccess)
		snapshot := func() []notifications.Record {
			all, err := s.List(ctx, notifications.Range{})
			require.NoError(t, err)
			return all
		}
		before := snapshot()

		dupe := []notifications.Record{
			{WebhookToken: "new-1", ObjectToken: "usr-9", Status: notifications.StatusFailed, CreationDate: t0},
			{WebhookToken: "new-1", ObjectToken: "usr-9", Status: notifications.StatusFailed, CreationDate: t0},
		}
		require.ErrorIs(t, s.ReplaceFailed(ctx, dupe), notifications.ErrDuplicate)
		require.Equal(t, before, snapshot())
		for _, tok := range []string{"pending", "success"} {
			conflict := []notifications.Record{
				{WebhookToken: "new-1", ObjectToken: "usr-9", Status: notifications.StatusFailed, CreationDate: t0},
				{WebhookToken: tok, ObjectToken: "usr-9", Status: notifications.StatusFailed, CreationDate: t0},
			}
			require.ErrorIs(t, s.ReplaceFailed(ctx, conflict), notifications.ErrConflict, tok)
			require.Equal(t, before, snapshot())
		}
		require.Error(t, s.ReplaceFailed(ctx, []notifications.Record{{WebhookToken: "x", Status: "NOPE"}}))
		require.Equal(t, before, snapshot())

		require.NoError(t, s.ReplaceFailed(ctx, []notifications.Record{
			{WebhookToken: "f-keep", ObjectToken: "usr-1", NotificationType: "USR", Status: notifications.StatusRetrying,
				RetryCounter: 2, CreationDate: t0.Add(time.Second), Program: "prg-x"},
			{WebhookToken: "new-1", ObjectToken: "usr-9", Status: notifications.StatusFailed, CreationDate: t0,
				ReceptionDate: t0.Add(time.Hour)},
		}))
		failed, total, err := s.ListFailed(ctx, notifications.FailedFilter{}, 0, 100)
		require.NoError(t, err)
		require.EqualValues(t, 2, total)
		require.Equal(t, []string{"f-keep", "new-1"}, tokens(failed))
		keep := mustGet(t, s, "f-keep")
		require.Equal(t, old.ID, keep.ID, "a kept token keeps its id")
		require.Equal(t, old.Payload, keep.Payload, "and its stored body")
		require.True(t, keep.ReceptionDate.Equal(old.ReceptionDate))
		require.Equal(t, notifications.StatusRetrying, keep.Status)
		require.Equal(t, 2, keep.RetryCounter)
		require.Equal(t, "prg-x", keep.Program)
		require.Equal(t, "USR", mustGet(t, s, "new-1").NotificationType)
		mustGet(t, s, "pending")
		mustGet(t, s, "success")
		for _, tok := range []string{"f-drop", "r-drop"} {
			_, err := s.Get(ctx, tok)
			require.ErrorIs(t, err, notifications.ErrNotFound, tok)
		}
		require.NoError(t, s.ReplaceFailed(ctx, nil))
		_, total, err = s.ListFailed(ctx, notifications.FailedFilter{}, 0, 100)
		require.NoError(t, err)
		require.Zero(t, total)
	})

	t.Run("Stats", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		ctx := tctx(t)
		st, err := s.Stats(ctx)
		require.NoError(t, err)
		require.Len(t, st.ByStatus, len(notifications.Statuses))
		require.Nil(t, st.OldestPending)
		for i, status := range []notifications.Status{notifications.StatusPending, notifications.StatusPending,
			notifications.StatusRetrying, notifications.StatusFailed, notifications.StatusFailed, notifications.StatusFailed} {
			r := delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), t0)
			r.Status = status
			r.ReceptionDate = t0.Add(time.Duration(10-i) * time.Second)
			require.NoError(t, s.Insert(ctx, r))
		}
		st, err = s.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, map[notifications.Status]int64{
			notifications.StatusPending: 2, notifications.StatusRetrying: 1, notifications.StatusFailed: 3,
			notifications.StatusSuccess: 0, notifications.StatusOutdated: 0,
		}, st.ByStatus)
		require.NotNil(t, st.OldestPending)
		require.True(t, st.OldestPending.Equal(t0.Add(9*time.Second)))
		require.NoError(t, s.Ping(ctx))
	})

	t.Run("ScanManyRecords", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t)
		const n = 2*scanPage + 37
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += 8 {
					r := delivery(fmt.Sprintf("wbh-%05d", i), fmt.Sprintf("usr-%d", i), t0)
					r.ReceptionDate = t0.Add(time.Duration(i%100) * time.Second)
					if _, err := s.Enqueue(tctx(t), r); err != nil {
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
		require.NoError(t, s.Scan(tctx(t), notifications.Range{}, func(r *notifications.Record) error {
			require.Greater(t, r.ID, last)
			last = r.ID
			count++
			return nil
		}))
		require.Equal(t, n, count)
		count = 0
		from, to := t0.Add(10*time.Second), t0.Add(19*time.Second)
		require.NoError(t, s.Scan(tctx(t), notifications.Range{From: &from, To: &to}, func(r *notifications.Record) error {
			require.False(t, r.ReceptionDate.Before(from) || r.ReceptionDate.After(to))
			count++
			return nil
		}))
		require.Equal(t, n/100*10+min(n%100, 20)-min(n%100, 10), count)
		stop := errors.New("stop")
		seen := 0
		err := s.Scan(tctx(t), notifications.Range{}, func(*notifications.Record) error {
			seen++
			if seen == scanPage+5 {
				return stop
			}
			return nil
		})
		require.ErrorIs(t, err, stop)
		require.Equal(t, scanPage+5, seen)
	})

	t.Run("DurableAcrossReopen", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		ctx := tctx(t)
		s, err := Open(ctx, dsn)
		require.NoError(t, err)
		payload := []byte{0x00, 0xff, 0xfe, '{', '}', 0x80, '\n', 0x00}
		r := delivery("wbh-bin", "usr-1", t0.Add(123*time.Millisecond))
		r.Payload = payload
		enqueue(t, s, r)
		const n = 100
		var wg sync.WaitGroup
		acked := make([]bool, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(ctx, delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i+10), t0))
				acked[i] = err == nil && res.Outcome == notifications.Stored
			}()
		}
		wg.Wait()
		require.NoError(t, s.Close())
		require.NoError(t, s.Close(), "Close is idempotent")
		_, err = s.Enqueue(ctx, delivery("late", "usr-1", t0))
		require.ErrorIs(t, err, notifications.ErrUnavailable)

		s2 := openAt(t, dsn) // migrations are idempotent on reopen
		got := mustGet(t, s2, "wbh-bin")
		require.Equal(t, payload, got.Payload)
		require.True(t, got.CreationDate.Equal(t0.Add(123*time.Millisecond)))
		for i := range n {
			require.True(t, acked[i])
			mustGet(t, s2, fmt.Sprintf("wbh-%d", i))
		}
		s3 := openAt(t, dsn)
		require.NoError(t, s3.Ping(ctx))
	})

	t.Run("CloseDrainsQueuedEnqueues", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		s, err := Open(tctx(t), dsn)
		require.NoError(t, err)
		const n = 200
		var wg sync.WaitGroup
		acked := make([]bool, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(tctx(t), delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), t0))
				if err != nil && !errors.Is(err, notifications.ErrUnavailable) {
					t.Errorf("enqueue %d during Close: %v", i, err)
				}
				acked[i] = err == nil && res.Outcome == notifications.Stored
			}()
		}
		require.NoError(t, s.Close())
		wg.Wait()
		s2 := openAt(t, dsn)
		for i := range n {
			if acked[i] {
				mustGet(t, s2, fmt.Sprintf("wbh-%d", i))
			}
		}
	})

	t.Run("UpgradesFromVersion1", func(t *testing.T) {
		t.Parallel()
		ms, err := loadMigrations(tg.dialect)
		require.NoError(t, err)
		require.Greater(t, len(ms), 1)
		dsn := tg.newDSN(t)
		// A database left by a Sluice that knew only migration 1, with data.
		tg.exec(t, dsn, map[string]string{
			"sqlite":   `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`,
			"postgres": `CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
		}[tg.dialect])
		tg.exec(t, dsn, ms[0].sql)
		tg.exec(t, dsn, map[string]string{
			"sqlite":   `INSERT INTO schema_migrations (version, applied_at) VALUES (1, 0)`,
			"postgres": `INSERT INTO schema_migrations (version) VALUES (1)`,
		}[tg.dialect])
		old := map[string]string{
			"sqlite": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
				reception_date, status, program, payload) VALUES ('wbh-old', 'usr-1', 'USR', 1714557600000,
				1714557600000, 'PENDING', 'prg-1', x'7b7d')`,
			"postgres": `INSERT INTO notifications (webhook_token, object_token, notification_type, creation_date,
				reception_date, status, program, payload) VALUES ('wbh-old', 'usr-1', 'USR', '2024-05-01T10:00:00Z',
				'2024-05-01T10:00:00Z', 'PENDING', 'prg-1', '\x7b7d')`,
		}
		tg.exec(t, dsn, old[tg.dialect])
		s := openAt(t, dsn)
		got := mustGet(t, s, "wbh-old")
		require.Equal(t, []byte("{}"), got.Payload)
		require.True(t, got.ReceptionDate.Equal(t0))
		st, err := s.Stats(tctx(t))
		require.NoError(t, err)
		require.True(t, st.OldestPending.Equal(t0))
		require.Equal(t, notifications.Stored, enqueue(t, s, delivery("wbh-new", "usr-1", t0.Add(time.Second))).Outcome)
		require.Equal(t, notifications.StatusOutdated, mustGet(t, s, "wbh-old").Status)
	})

	t.Run("ConcurrentFirstOpenMigratesOnce", func(t *testing.T) {
		t.Parallel()
		dsn := tg.newDSN(t)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(tctx(t), dsn)
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
		s := openAt(t, dsn)
		enqueue(t, s, delivery("wbh-1", "usr-1", t0))
	})
}

// assertNoErr reports err from a goroutine without FailNow.
func assertNoErr(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

func statusByToken(rs []notifications.Record) map[string]notifications.Status {
	m := make(map[string]notifications.Status, len(rs))
	for _, r := range rs {
		m[r.WebhookToken] = r.Status
	}
	return m
}

// batchVariants are a store's ways to commit one batch of deliveries.
func batchVariants(s notifications.Store) []applyFunc {
	switch s := s.(type) {
	case *sqliteStore:
		return []applyFunc{s.applyBatch}
	case *pgStore:
		return []applyFunc{s.applyBatchSet, s.applyBatchPerRequest}
	}
	panic(fmt.Sprintf("unknown store %T", s))
}

func tokens(rs []notifications.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.WebhookToken)
	}
	return out
}

// poisonTrigger makes inserting the token "poison" fail inside the group
// commit transaction, to check that one bad request loses nobody else.
var poisonTrigger = map[string]string{
	"sqlite": `CREATE TRIGGER poison BEFORE INSERT ON notifications WHEN NEW.webhook_token = 'poison'
		BEGIN SELECT RAISE(ABORT, 'poisoned'); END`,
	"postgres": `CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.webhook_token = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER poison BEFORE INSERT ON notifications FOR EACH ROW EXECUTE FUNCTION poison()`,
}
