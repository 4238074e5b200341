// Package storetest is the conformance suite every notification store runs
// (see notifications/sqlstore): the intake rules, claiming and leases, the
// job locks, the management operations, paging and the failure modes, on a
// fresh database per subtest. A store's test calls Run with a Target.
package storetest

import (
	"context"
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
	// LoseLock makes s lose the job lock it holds for job, as a stalled or
	// cut-off holder would (SQLite: another holder takes the lease row;
	// Postgres: the holding session is terminated). The suite opens s with
	// Options.LockLease short, so the store notices within a second.
	LoseLock func(t *testing.T, s queue.Store, dsn, job string)
}

// Options are the store settings the suite varies.
type Options struct {
	// Clock replaces the store's clock when set.
	Clock func() time.Time
	// ClaimLease replaces the store's claim lease when positive.
	ClaimLease time.Duration
	// LockLease replaces the store's job lock lease (and the period it is
	// renewed or checked at, a third of it) when positive.
	LockLease time.Duration
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
// opener opens a store on a fresh database and returns its DSN.
type opener func(t *testing.T, o Options) (queue.Store, string)

// Run runs the conformance suite against tg, its subtests in parallel. The
// suite is split by topic, one file each (as River's riverdrivertest):
// intake, processing, ranges, management, records, sources and schema.
func Run(t *testing.T, tg Target) {
	open := func(t *testing.T, o Options) (queue.Store, string) {
		t.Helper()
		dsn := tg.NewDSN(t)
		return openAt(t, tg, dsn, o), dsn
	}
	runIntake(t, tg, open)
	runProcessing(t, tg, open)
	runRanges(t, tg, open)
	runManagement(t, tg, open)
	runRecords(t, tg, open)
	runSources(t, tg, open)
	runSchema(t, tg, open)
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
