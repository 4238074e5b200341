// Package storetest is the conformance suite every notification store runs
// (see notifications/sqlstore): the intake rules, claiming and leases, the
// job locks, the management operations, paging and the failure modes, on a
// fresh database per subtest. A store's test calls Run with a Target.
package storetest

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

	"github.com/sluicedata/sluice/notifications/queue"
)

// Target is one store implementation under the conformance suite.
type Target struct {
	// Dialect is "sqlite" or "postgres": it picks the raw SQL the suite
	// runs through Exec to break a database on purpose.
	Dialect string
	// NewDSN returns the DSN of a fresh, empty database (a file or a schema).
	NewDSN func(t *testing.T) string
	// Exec runs raw SQL on the database behind dsn.
	Exec func(t *testing.T, dsn, sql string)
	// Open opens the store at dsn with o; the suite closes it.
	Open func(ctx context.Context, dsn string, o Options) (queue.Store, error)
	// Batches are the store's ways to commit several deliveries in one
	// transaction (group commit), each checked against one-by-one Enqueue.
	Batches func(s queue.Store) []BatchFunc
	// ScanPage is how many records the store's Scan reads at a time, so
	// that the suite crosses page boundaries; 0 means 1000.
	ScanPage int
	// FirstMigration is the SQL of the store's schema migration 1: the
	// suite checks that a database left at version 1 upgrades with its
	// data. Empty skips that check.
	FirstMigration string
}

// Options are the store settings the suite varies.
type Options struct {
	// Clock replaces the store's clock when set.
	Clock func() time.Time
	// ClaimLease replaces the store's claim lease when positive.
	ClaimLease time.Duration
}

// BatchFunc commits deliveries received at now in one transaction, in
// order, as Enqueue would one at a time.
type BatchFunc func(ctx context.Context, now time.Time, recs []*queue.Record) ([]queue.EnqueueResult, error)

// Clock is a settable clock shared by store instances in a test.
type Clock struct{ ns atomic.Int64 }

// NewClock is a Clock set to t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.ns.Store(t.UnixNano())
	return c
}

// Now is the clock's time.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

// Set sets the clock to t.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// T0 is the suite's reference time.
var T0 = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

func openAt(t *testing.T, tg Target, dsn string, o Options) queue.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := tg.Open(ctx, dsn, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Ctx is a context bounded for one store call of a test on a slow machine.
func Ctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Delivery is a webhook delivery of token for object, created at created.
func Delivery(token, object string, created time.Time) *queue.Record {
	return &queue.Record{
		WebhookToken:     token,
		ObjectToken:      object,
		NotificationType: queue.TypeOf(object),
		CreationDate:     created,
		ReceptionDate:    T0,
		Program:          "prg-1",
		Payload:          []byte(`{"token":"` + token + `"}`),
	}
}

func enqueue(t *testing.T, s queue.Store, r *queue.Record) queue.EnqueueResult {
	t.Helper()
	res, err := s.Enqueue(Ctx(t), r)
	require.NoError(t, err)
	return res
}

func mustGet(t *testing.T, s queue.Store, token string) queue.Record {
	t.Helper()
	r, err := s.Get(Ctx(t), token)
	require.NoError(t, err)
	return r
}

func ptr[T any](v T) *T { return &v }

// stored inserts a record as given (any status), as the management API does.
func stored(t *testing.T, s queue.Store, token, object string, created time.Time, st queue.Status) queue.Record {
	t.Helper()
	r := Delivery(token, object, created)
	r.Status = st
	require.NoError(t, s.Insert(Ctx(t), r))
	return *r
}

// Run runs the conformance suite against tg, its subtests in parallel.
func Run(t *testing.T, tg Target) {
	open := func(t *testing.T, o Options) (queue.Store, string) {
		t.Helper()
		dsn := tg.NewDSN(t)
		return openAt(t, tg, dsn, o), dsn
	}
	runRecords(t, tg, open)

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
		unlock, err := a.Lock(Ctx(t), "process")
		require.NoError(t, err)
		_, err = a.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked)
		_, err = b.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked)
		unlockCleanup, err := b.Lock(Ctx(t), "cleanup") // other job, other lock
		require.NoError(t, err)
		unlockCleanup()
		unlock()
		unlock() // idempotent
		unlockB, err := b.Lock(Ctx(t), "process")
		require.NoError(t, err)
		_, err = a.Lock(Ctx(t), "process")
		require.ErrorIs(t, err, queue.ErrLocked)
		unlockB()
		_, err = a.Lock(Ctx(t), "")
		require.Error(t, err)
	})

	t.Run("LockFreedWhenHolderCloses", func(t *testing.T) {
		t.Parallel()
		dsn := tg.NewDSN(t)
		a, b := openAt(t, tg, dsn, Options{}), openAt(t, tg, dsn, Options{})
		_, err := a.Lock(Ctx(t), "process")
		require.NoError(t, err)
		require.NoError(t, a.Close())
		unlock, err := b.Lock(Ctx(t), "process")
		require.NoError(t, err)
		unlock()
	})

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
			require.NoError(t, s.Insert(ctx, r))
		}
		st, err = s.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, map[queue.Status]int64{
			queue.StatusPending: 2, queue.StatusRetrying: 1, queue.StatusFailed: 3,
			queue.StatusSuccess: 0, queue.StatusOutdated: 0,
		}, st.ByStatus)
		require.NotNil(t, st.OldestPending)
		require.True(t, st.OldestPending.Equal(T0.Add(9*time.Second)))
		require.NoError(t, s.Ping(ctx))
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

// assertNoErr reports err from a goroutine without FailNow.
func assertNoErr(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

func statusByToken(rs []queue.Record) map[string]queue.Status {
	m := make(map[string]queue.Status, len(rs))
	for _, r := range rs {
		m[r.WebhookToken] = r.Status
	}
	return m
}

func tokens(rs []queue.Record) []string {
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
