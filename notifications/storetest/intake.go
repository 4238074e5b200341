package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// runIntake checks the intake rules and the group commit: what Enqueue stores, discards and refuses, alone, in batches and concurrently, and how a broken database fails.
func runIntake(t *testing.T, tg Target, open opener) {
	t.Run("EnqueueStoresPending", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		r := Delivery("wbh-1", "usr-1", T0.Add(-time.Minute+123*time.Microsecond))
		r.Status, r.RetryCounter = queue.StatusFailed, 7 // ignored by intake
		res := enqueue(t, s, r)
		require.Equal(t, queue.Stored, res.Outcome)
		require.NotZero(t, res.ID)
		require.Equal(t, res.ID, r.ID)
		got := mustGet(t, s, "wbh-1")
		require.Equal(t, queue.StatusPending, got.Status)
		require.Equal(t, 0, got.RetryCounter)
		require.Equal(t, "USR", got.NotificationType)
		require.Equal(t, "usr-1", got.ObjectToken)
		require.Equal(t, "prg-1", got.Program)
		require.True(t, got.CreationDate.Equal(T0.Add(-time.Minute)), "creationDate truncated to ms: %s", got.CreationDate)
		require.True(t, got.ReceptionDate.Equal(T0))
		require.Equal(t, time.UTC, got.CreationDate.Location())
		require.Nil(t, got.LastRetryDate)
		require.Nil(t, got.NextRetryDate)
		require.Equal(t, []byte(`{"token":"wbh-1"}`), got.Payload)
	})

	t.Run("EnqueueDefaults", func(t *testing.T) {
		t.Parallel()
		clock := NewClock(T0.Add(time.Hour + 7*time.Millisecond))
		s, _ := open(t, Options{Clock: clock.Now})
		r := &queue.Record{WebhookToken: "wbh-d", ObjectToken: "stk-9"}
		require.Equal(t, queue.Stored, enqueue(t, s, r).Outcome)
		got := mustGet(t, s, "wbh-d")
		require.True(t, got.ReceptionDate.Equal(clock.Now()))
		require.True(t, got.CreationDate.Equal(got.ReceptionDate), "creationDate defaults to receptionDate")
		require.Equal(t, "STK", got.NotificationType)
		require.Nil(t, got.Payload)
	})

	t.Run("EnqueueRejectsBadInput", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		for name, r := range map[string]*queue.Record{
			"no token":    {ObjectToken: "usr-1"},
			"nul byte":    {WebhookToken: "wbh-\x00", ObjectToken: "usr-1"},
			"bad utf8":    {WebhookToken: "wbh-1", ObjectToken: "usr-\xff"},
			"nil record":  nil,
			"bad program": {WebhookToken: "wbh-2", Program: "a\x00b"},
		} {
			_, err := s.Enqueue(Ctx(t), r)
			require.ErrorIs(t, err, queue.ErrInvalid, name)
			require.NotErrorIs(t, err, queue.ErrUnavailable, name)
		}
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.Zero(t, st.ByStatus[queue.StatusPending])
	})

	t.Run("EnqueueCancelledContext", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.Enqueue(ctx, Delivery("wbh-c", "usr-1", T0))
		require.ErrorIs(t, err, context.Canceled)
		_, err = s.Get(Ctx(t), "wbh-c")
		require.ErrorIs(t, err, queue.ErrNotFound)
	})

	t.Run("Rules", func(t *testing.T) {
		t.Parallel()
		type step struct {
			rec          *queue.Record
			want         queue.Outcome
			wantOutdated int
		}
		tests := []struct {
			name  string
			setup func(t *testing.T, s queue.Store)
			steps []step
			// final statuses by token
			want map[string]queue.Status
		}{
			{
				name: "duplicate token is discarded even with other content",
				steps: []step{
					{rec: Delivery("wbh-1", "usr-1", T0), want: queue.Stored},
					{rec: Delivery("wbh-1", "usr-2", T0.Add(time.Hour)), want: queue.DiscardedDuplicate},
				},
				want: map[string]queue.Status{"wbh-1": queue.StatusPending},
			},
			{
				name: "duplicate of a terminal record is discarded and the record untouched",
				setup: func(t *testing.T, s queue.Store) {
					stored(t, s, "wbh-1", "usr-1", T0, queue.StatusSuccess)
				},
				steps: []step{{rec: Delivery("wbh-1", "usr-1", T0), want: queue.DiscardedDuplicate}},
				want:  map[string]queue.Status{"wbh-1": queue.StatusSuccess},
			},
			{
				name: "later creationDate of a live record makes the delivery obsolete",
				steps: []step{
					{rec: Delivery("wbh-new", "usr-1", T0.Add(time.Second)), want: queue.Stored},
					{rec: Delivery("wbh-old", "usr-1", T0), want: queue.DiscardedObsolete},
				},
				want: map[string]queue.Status{"wbh-new": queue.StatusPending},
			},
			{
				name: "later creationDate in any status makes the delivery obsolete",
				setup: func(t *testing.T, s queue.Store) {
					stored(t, s, "wbh-s", "usr-1", T0.Add(time.Millisecond), queue.StatusSuccess)
					stored(t, s, "wbh-o", "usr-2", T0.Add(time.Millisecond), queue.StatusOutdated)
					stored(t, s, "wbh-f", "usr-3", T0.Add(time.Millisecond), queue.StatusFailed)
				},
				steps: []step{
					{rec: Delivery("wbh-1", "usr-1", T0), want: queue.DiscardedObsolete},
					{rec: Delivery("wbh-2", "usr-2", T0), want: queue.DiscardedObsolete},
					{rec: Delivery("wbh-3", "usr-3", T0), want: queue.DiscardedObsolete},
				},
				want: map[string]queue.Status{
					"wbh-s": queue.StatusSuccess, "wbh-o": queue.StatusOutdated, "wbh-f": queue.StatusFailed,
				},
			},
			{
				name: "newer delivery outdates only live earlier records of the same object and type",
				setup: func(t *testing.T, s queue.Store) {
					stored(t, s, "wbh-p", "usr-1", T0, queue.StatusPending)
					stored(t, s, "wbh-r", "usr-1", T0.Add(time.Millisecond), queue.StatusRetrying)
					stored(t, s, "wbh-s", "usr-1", T0, queue.StatusSuccess)
					stored(t, s, "wbh-f", "usr-1", T0, queue.StatusFailed)
					other := Delivery("wbh-t", "usr-1", T0) // same object, other type
					other.NotificationType = queue.TypeUnknown
					other.Status = queue.StatusPending
					require.NoError(t, s.Insert(Ctx(t), other))
					stored(t, s, "wbh-x", "usr-2", T0, queue.StatusPending) // other object
				},
				steps: []step{{rec: Delivery("wbh-new", "usr-1", T0.Add(time.Second)), want: queue.Stored, wantOutdated: 2}},
				want: map[string]queue.Status{
					"wbh-p": queue.StatusOutdated, "wbh-r": queue.StatusOutdated,
					"wbh-s": queue.StatusSuccess, "wbh-f": queue.StatusFailed,
					"wbh-t": queue.StatusPending, "wbh-x": queue.StatusPending,
					"wbh-new": queue.StatusPending,
				},
			},
			{
				name: "equal creationDate neither discards nor supersedes",
				steps: []step{
					{rec: Delivery("wbh-a", "usr-1", T0), want: queue.Stored},
					{rec: Delivery("wbh-b", "usr-1", T0), want: queue.Stored},
				},
				want: map[string]queue.Status{"wbh-a": queue.StatusPending, "wbh-b": queue.StatusPending},
			},
			{
				name: "a chain of newer deliveries leaves only the newest live",
				steps: []step{
					{rec: Delivery("wbh-1", "pmt-1", T0), want: queue.Stored},
					{rec: Delivery("wbh-2", "pmt-1", T0.Add(1*time.Millisecond)), want: queue.Stored, wantOutdated: 1},
					{rec: Delivery("wbh-3", "pmt-1", T0.Add(2*time.Millisecond)), want: queue.Stored, wantOutdated: 1},
				},
				want: map[string]queue.Status{
					"wbh-1": queue.StatusOutdated, "wbh-2": queue.StatusOutdated, "wbh-3": queue.StatusPending,
				},
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				s, _ := open(t, Options{})
				if tt.setup != nil {
					tt.setup(t, s)
				}
				for i, st := range tt.steps {
					res := enqueue(t, s, st.rec)
					require.Equal(t, st.want, res.Outcome, "step %d", i)
					require.Equal(t, st.wantOutdated, res.Outdated, "step %d", i)
					if st.want != queue.Stored {
						require.Zero(t, res.ID, "step %d", i)
					}
				}
				for tok, want := range tt.want {
					require.Equal(t, want, mustGet(t, s, tok).Status, tok)
				}
				all, err := s.List(Ctx(t), queue.Range{})
				require.NoError(t, err)
				require.Len(t, all, len(tt.want))
			})
		}
	})

	t.Run("RulesApplyInArrivalOrderWithinABatch", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		// Many deliveries of one object at once: whatever the batching, at
		// most the newest stays live and every other ends OUTDATED or discarded.
		const n = 40
		var wg sync.WaitGroup
		results := make([]queue.EnqueueResult, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = s.Enqueue(Ctx(t), Delivery(fmt.Sprintf("wbh-%02d", i), "trm-1", T0.Add(time.Duration(i)*time.Millisecond)))
			}()
		}
		wg.Wait()
		outdated := 0
		storedN := 0
		for i := range n {
			require.NoError(t, errs[i])
			outdated += results[i].Outdated
			if results[i].Outcome == queue.Stored {
				storedN++
			}
		}
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.EqualValues(t, 1, st.ByStatus[queue.StatusPending])
		require.EqualValues(t, outdated, st.ByStatus[queue.StatusOutdated])
		require.Equal(t, storedN-1, outdated)
		require.Equal(t, queue.StatusPending, mustGet(t, s, fmt.Sprintf("wbh-%02d", n-1)).Status)
	})

	t.Run("DeliveriesWithoutObjectAreUnrelated", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		// One at a time, in every date order: none is obsolete, none supersedes.
		for _, d := range []struct {
			token string
			hours int
		}{{"n1", 1}, {"n2", 2}, {"n0", 0}} {
			res := enqueue(t, s, Delivery(d.token, "", T0.Add(time.Duration(d.hours)*time.Hour)))
			require.Equal(t, queue.Stored, res.Outcome, d.token)
			require.Zero(t, res.Outdated, d.token)
		}
		// Many at once, so that Postgres applies them as one set-based batch.
		const n = 40
		var wg sync.WaitGroup
		errs := make([]error, n)
		results := make([]queue.EnqueueResult, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = s.Enqueue(Ctx(t), Delivery(fmt.Sprintf("nobj-%02d", i), "", T0.Add(time.Duration(n-i)*time.Minute)))
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, queue.Stored, results[i].Outcome, i)
			require.Zero(t, results[i].Outdated, i)
		}
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.EqualValues(t, n+3, st.ByStatus[queue.StatusPending])
		require.Zero(t, st.ByStatus[queue.StatusOutdated])
	})

	t.Run("BatchEqualsOneByOne", func(t *testing.T) {
		t.Parallel()
		// Random deliveries over few tokens, objects and dates, on top of
		// random stored records: committing them as one batch must give
		// exactly what committing them one at a time gives.
		seq, _ := open(t, Options{})
		batched, _ := open(t, Options{})
		if tg.Batches == nil {
			t.Skip("the store has no batch commit")
		}
		variants := tg.Batches(batched)
		rng := rand.New(rand.NewPCG(1, 2))
		for round := range 12 {
			p := fmt.Sprintf("r%d-", round)
			variant := variants[round%len(variants)]
			date := func() time.Time { return T0.Add(time.Duration(rng.IntN(4)) * time.Millisecond) }
			obj := func() string { return p + []string{"usr-1", "usr-2", "pmt-1"}[rng.IntN(3)] }
			for i := range rng.IntN(5) {
				st := queue.Statuses[rng.IntN(len(queue.Statuses))]
				o, d := obj(), date()
				stored(t, seq, fmt.Sprintf("%sold-%d", p, i), o, d, st)
				stored(t, batched, fmt.Sprintf("%sold-%d", p, i), o, d, st)
			}
			var reqs []*queue.Record
			var want []queue.EnqueueResult
			for range 25 {
				tok := fmt.Sprintf("%swbh-%d", p, rng.IntN(12))
				if rng.IntN(8) == 0 {
					tok = fmt.Sprintf("%sold-%d", p, rng.IntN(5))
				}
				r := Delivery(tok, obj(), date())
				if rng.IntN(6) == 0 {
					r.NotificationType = queue.TypeUnknown
				}
				if rng.IntN(3) == 0 {
					r.Source = "acme" // the rules compare records of one source
				}
				res := enqueue(t, seq, r)
				res.ID = 0
				want = append(want, res)
				reqs = append(reqs, r)
			}
			got, err := variant(Ctx(t), T0, reqs)
			require.NoError(t, err)
			for i := range got {
				if got[i].Outcome == queue.Stored {
					require.NotZero(t, got[i].ID)
				}
				got[i].ID = 0
			}
			require.Equal(t, want, got, "round %d", round)
			from, to := T0.Add(-time.Hour), T0.Add(time.Hour)
			a, err := seq.List(Ctx(t), queue.Range{From: &from, To: &to})
			require.NoError(t, err)
			b, err := batched.List(Ctx(t), queue.Range{From: &from, To: &to})
			require.NoError(t, err)
			require.Equal(t, statusByToken(a), statusByToken(b), "round %d", round)
		}
	})

	t.Run("ConcurrentIdenticalDeliveriesStoreOne", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		a := openAt(t, tg, dsn, Options{})
		b := openAt(t, tg, dsn, Options{}) // a second sidecar on the same database
		const n = 40
		var wg sync.WaitGroup
		outcomes := make([]queue.Outcome, n)
		errs := make([]error, n)
		for i := range n {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(Ctx(t), Delivery("wbh-same", "usr-1", T0))
				outcomes[i], errs[i] = res.Outcome, err
			}()
		}
		wg.Wait()
		storedN := 0
		for i := range n {
			require.NoError(t, errs[i])
			if outcomes[i] == queue.Stored {
				storedN++
			} else {
				require.Equal(t, queue.DiscardedDuplicate, outcomes[i])
			}
		}
		require.Equal(t, 1, storedN)
		all, err := a.List(Ctx(t), queue.Range{})
		require.NoError(t, err)
		require.Len(t, all, 1)
	})

	t.Run("ConcurrentDistinctDeliveriesAllStored", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		const n = 300
		var wg sync.WaitGroup
		ids := make([]int64, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := s.Enqueue(Ctx(t), Delivery(fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), T0))
				ids[i], errs[i] = res.ID, err
				if err == nil && res.Outcome != queue.Stored {
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
		st, err := s.Stats(Ctx(t))
		require.NoError(t, err)
		require.EqualValues(t, n, st.ByStatus[queue.StatusPending])
	})

	t.Run("FailedBatchLosesNobody", func(t *testing.T) {
		t.Parallel()
		s, dsn := open(t, Options{})
		tg.Exec(t, dsn, poisonTrigger[tg.Dialect])
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
				_, errs[i] = s.Enqueue(Ctx(t), Delivery(tok, fmt.Sprintf("usr-%d", i), T0))
			}()
		}
		wg.Wait()
		for i := range n {
			if i == n/2 {
				require.ErrorIs(t, errs[i], queue.ErrUnavailable)
				continue
			}
			require.NoError(t, errs[i])
			mustGet(t, s, fmt.Sprintf("wbh-%d", i))
		}
		_, err := s.Get(Ctx(t), "poison")
		require.ErrorIs(t, err, queue.ErrNotFound)
	})

	t.Run("BrokenDatabaseIsUnavailable", func(t *testing.T) {
		t.Parallel()
		s, dsn := open(t, Options{})
		tg.Exec(t, dsn, "DROP TABLE notification_attempts; DROP TABLE notifications")
		_, err := s.Enqueue(Ctx(t), Delivery("wbh-1", "usr-1", T0))
		require.ErrorIs(t, err, queue.ErrUnavailable)
		_, err = s.Get(Ctx(t), "wbh-1")
		require.ErrorIs(t, err, queue.ErrUnavailable)
		_, err = s.Claim(Ctx(t), T0, 10)
		require.ErrorIs(t, err, queue.ErrUnavailable)
		_, err = s.Stats(Ctx(t))
		require.ErrorIs(t, err, queue.ErrUnavailable)
	})
}
