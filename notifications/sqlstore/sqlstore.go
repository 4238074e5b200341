package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluicedata/sluice/notifications/queue"
)

// Option configures a store opened by Open.
type Option func(*options)

type options struct {
	lockLease   time.Duration
	claimLease  time.Duration
	maxBatch    int
	queueSize   int
	clock       func() time.Time
	synchronous string
	busyTimeout time.Duration
	readers     int
	logger      *slog.Logger
	durableOut  bool
	pgWriters   int
	// checkpointEvery is the SQLite background checkpointer's period
	// (tests shorten it).
	checkpointEvery time.Duration
}

func defaultOptions() options {
	return options{
		lockLease:   2 * time.Minute,
		claimLease:  5 * time.Minute,
		maxBatch:    1024,
		queueSize:   8192,
		clock:       time.Now,
		synchronous: "FULL",
		busyTimeout: 10 * time.Second,
		readers:     4,
		pgWriters:   4,
		logger:      slog.New(slog.DiscardHandler),

		checkpointEvery: 250 * time.Millisecond,
	}
}

func (o *options) validate() error {
	switch {
	case o.lockLease < 100*time.Millisecond:
		return fmt.Errorf("sqlstore: WithLockLease(%s): want at least 100ms", o.lockLease)
	case o.claimLease <= 0:
		return fmt.Errorf("sqlstore: WithClaimLease(%s): want a positive duration", o.claimLease)
	case o.maxBatch < 1:
		return fmt.Errorf("sqlstore: WithMaxBatch(%d): want at least 1", o.maxBatch)
	case o.queueSize < 1:
		return fmt.Errorf("sqlstore: WithQueueSize(%d): want at least 1", o.queueSize)
	case o.clock == nil:
		return errors.New("sqlstore: WithClock(nil): want a clock")
	case o.busyTimeout < 0:
		return fmt.Errorf("sqlstore: WithBusyTimeout(%s): want a duration ≥ 0", o.busyTimeout)
	case o.readers < 1:
		return fmt.Errorf("sqlstore: WithReaders(%d): want at least 1", o.readers)
	case o.pgWriters < 1 || o.pgWriters > 16:
		return fmt.Errorf("sqlstore: WithPostgresWriters(%d): want 1 to 16", o.pgWriters)
	case o.logger == nil:
		return errors.New("sqlstore: WithLogger(nil): want a logger")
	}
	switch o.synchronous {
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return fmt.Errorf("sqlstore: WithSQLiteSynchronous(%q): want OFF, NORMAL, FULL or EXTRA", o.synchronous)
	}
	return nil
}

// WithLockLease sets how long a SQLite job lease lasts without renewal: a
// crashed holder's lock frees itself after this long. The holder renews it
// every third of the lease; a lease it loses (not renewed in time, taken
// over) cancels the job's context (see queue.Store.Lock). Postgres advisory
// locks need no lease (they end with the holder's session); the holder
// checks its session every third of this duration. Defaults to 2 minutes.
func WithLockLease(d time.Duration) Option { return func(o *options) { o.lockLease = d } }

// WithClaimLease sets how long a claimed record stays invisible to other
// claimers before it becomes eligible again (at-least-once after a crash).
// It must exceed the time a processing run takes for one batch.
// Defaults to 5 minutes.
func WithClaimLease(d time.Duration) Option { return func(o *options) { o.claimLease = d } }

// WithMaxBatch bounds how many Enqueue requests the writer commits in one
// transaction. Defaults to 1024.
func WithMaxBatch(n int) Option { return func(o *options) { o.maxBatch = n } }

// WithQueueSize bounds how many Enqueue requests may wait for the writer;
// further callers block (honouring their context). Defaults to 8192.
func WithQueueSize(n int) Option { return func(o *options) { o.queueSize = n } }

// WithClock sets the clock used for receptionDate defaults, job leases and
// claim leases (tests move it forward). Defaults to time.Now.
func WithClock(now func() time.Time) Option { return func(o *options) { o.clock = now } }

// WithSQLiteSynchronous sets SQLite's synchronous pragma: OFF, NORMAL, FULL
// or EXTRA. Only FULL and EXTRA make an acknowledged write survive power
// loss. Defaults to FULL.
func WithSQLiteSynchronous(mode string) Option {
	return func(o *options) { o.synchronous = strings.ToUpper(mode) }
}

// WithBusyTimeout sets how long a SQLite writer waits for another process
// holding the write lock before the operation fails as unavailable.
// Defaults to 10 seconds.
func WithBusyTimeout(d time.Duration) Option { return func(o *options) { o.busyTimeout = d } }

// WithPostgresWriters sets how many group-commit writers a Postgres store
// runs side by side, each on its own connection: one gathers and sends a
// batch while another waits for its commit. SQLite always has one (the file
// has a single write lock). Defaults to 4.
func WithPostgresWriters(n int) Option { return func(o *options) { o.pgWriters = n } }

// WithReaders sets the size of the SQLite read connection pool; a Postgres
// store's pool holds this many connections plus its writers, two for job
// locks and a spare. Defaults to 4.
func WithReaders(n int) Option { return func(o *options) { o.readers = n } }

// WithLogger sets where the store logs lost leases and batch retries.
// Defaults to discarding logs.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithDurableOutcomes makes Claim and Finish wait for the disk flush like
// Enqueue does. By default they commit without it (SQLite synchronous=NORMAL
// for that transaction, Postgres synchronous_commit=off): the outcome is
// visible at once and survives the sidecar being killed, and a power loss
// can only undo the last outcomes, whose records are then processed again
// (at least once) — which lets one sidecar finish thousands of records a
// second instead of one per disk flush. Defaults to false.
func WithDurableOutcomes(on bool) Option { return func(o *options) { o.durableOut = on } }

// DefaultDSN is the store used when none is configured.
const DefaultDSN = "sqlite:.sluice/notifications.db"

// Open opens (creating and migrating when needed) the store a DSN names:
// "sqlite:<path>" (parent directories are created) or "postgres://…" /
// "postgresql://…". The schema is migrated before Open returns.
func Open(ctx context.Context, dsn string, opts ...Option) (queue.Store, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/@ ") {
		return nil, errors.New("sqlstore: store DSN has no scheme (want sqlite:<path> or postgres://…)")
	}
	switch strings.ToLower(scheme) {
	case "sqlite", "sqlite3":
		return openSQLite(ctx, sqlitePath(rest), o)
	case "postgres", "postgresql":
		return openPostgres(ctx, dsn, o)
	}
	return nil, fmt.Errorf("sqlstore: unsupported store DSN scheme %q (want sqlite:<path> or postgres://…)", scheme)
}

// sqlitePath accepts sqlite:path, sqlite:/abs/path and sqlite:///abs/path.
func sqlitePath(rest string) string {
	if strings.HasPrefix(rest, "//") {
		return rest[2:]
	}
	return rest
}

// redactDSN hides the password of a URL-form DSN for error messages.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "<unparseable DSN>"
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// storeErr wraps a database failure so that callers see ErrUnavailable
// (the intake answers 503), except for a cancelled or expired context,
// which is the caller's doing.
func storeErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if errors.Is(err, queue.ErrUnavailable) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, queue.ErrUnavailable, err)
}

var errClosed = fmt.Errorf("store is closed: %w", queue.ErrUnavailable)

// invalidf reports a record or argument the store refuses as given.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("sqlstore: "+format+": %w", append(args, queue.ErrInvalid)...)
}

// checkText rejects text the databases cannot store faithfully (Postgres
// refuses NUL bytes and invalid UTF-8), so that one bad delivery cannot
// fail the batch it travels in.
func checkText(field, s string) error {
	// Same limit on both stores: a Postgres index row cannot hold ~2.7 KB.
	if len(s) > queue.MaxTokenBytes {
		return invalidf("%s is %d bytes long; at most %d are allowed", field, len(s), queue.MaxTokenBytes)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalidf("%s contains a NUL byte", field)
	}
	if !utf8.ValidString(s) {
		return invalidf("%s is not valid UTF-8", field)
	}
	return nil
}

// enqueueVia is both stores' Enqueue: it checks rec, hands it to the store's
// group-commit writer and, when it was stored, fills rec in as stored (ID
// and defaults).
func enqueueVia(ctx context.Context, w *writer, now time.Time, rec *queue.Record) (queue.EnqueueResult, error) {
	r, err := prepareIntake(rec, now)
	if err != nil {
		return queue.EnqueueResult{}, err
	}
	res, err := w.submit(ctx, r)
	if err == nil && res.Outcome == queue.Stored {
		r.ID = res.ID
		r.Payload = rec.Payload
		*rec = *r
	}
	return res, err
}

// prepareIntake validates a delivery and fills the defaults Enqueue
// documents, on a copy the writer may keep after the caller gave up.
func prepareIntake(rec *queue.Record, now time.Time) (*queue.Record, error) {
	if rec == nil {
		return nil, invalidf("enqueue: nil record")
	}
	r := *rec
	if r.WebhookToken == "" {
		return nil, invalidf("enqueue: webhookToken is empty")
	}
	if err := checkRecordText(&r); err != nil {
		return nil, fmt.Errorf("enqueue: %w", err)
	}
	if r.ReceptionDate.IsZero() {
		r.ReceptionDate = now
	}
	r.ReceptionDate = queue.Truncate(r.ReceptionDate)
	if r.CreationDate.IsZero() {
		r.CreationDate = r.ReceptionDate
	}
	r.CreationDate = queue.Truncate(r.CreationDate)
	r.Source = r.SourceName()
	if r.NotificationType == "" && r.Source == queue.DefaultSource {
		// The HMC source derives it; another source keeps what it sent.
		r.NotificationType = queue.TypeOf(r.ObjectToken)
	}
	r.ID = 0
	r.Status = queue.StatusPending
	r.RetryCounter = 0
	r.LastRetryDate, r.NextRetryDate = nil, nil
	if r.Payload != nil {
		r.Payload = append([]byte(nil), r.Payload...)
	}
	return &r, nil
}

// prepareStored validates a record stored as given (Insert, ReplaceFailed).
func prepareStored(rec *queue.Record, now time.Time) (queue.Record, error) {
	r := *rec
	if r.WebhookToken == "" {
		return r, invalidf("webhookToken is empty")
	}
	if !r.Status.Valid() {
		return r, invalidf("record %s: invalid status %q", r.WebhookToken, r.Status)
	}
	if r.RetryCounter < 0 {
		return r, invalidf("record %s: negative retryCounter %d", r.WebhookToken, r.RetryCounter)
	}
	if err := checkRecordText(&r); err != nil {
		return r, err
	}
	if r.ReceptionDate.IsZero() {
		r.ReceptionDate = now
	}
	r.ReceptionDate = queue.Truncate(r.ReceptionDate)
	if r.CreationDate.IsZero() {
		r.CreationDate = r.ReceptionDate
	}
	r.CreationDate = queue.Truncate(r.CreationDate)
	r.Source = r.SourceName()
	if r.NotificationType == "" && r.Source == queue.DefaultSource {
		r.NotificationType = queue.TypeOf(r.ObjectToken)
	}
	r.LastRetryDate = truncPtr(r.LastRetryDate)
	r.NextRetryDate = truncPtr(r.NextRetryDate)
	return r, nil
}

func checkRecordText(r *queue.Record) error {
	for _, f := range []struct{ name, v string }{
		{"webhookToken", r.WebhookToken},
		{"objectToken", r.ObjectToken},
		{"notificationType", r.NotificationType},
		{"program", r.Program},
		{"source", r.Source},
	} {
		if err := checkText(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

func truncPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	x := queue.Truncate(*t)
	return &x
}

// applyPatch applies a management patch; status is never patched.
func applyPatch(r *queue.Record, p queue.Patch) error {
	if p.NotificationType != nil {
		r.NotificationType = *p.NotificationType
	}
	if p.ObjectToken != nil {
		r.ObjectToken = *p.ObjectToken
	}
	if p.Program != nil {
		r.Program = *p.Program
	}
	if p.RetryCounter != nil {
		if *p.RetryCounter < 0 {
			return invalidf("update %s: negative retryCounter %d", r.WebhookToken, *p.RetryCounter)
		}
		r.RetryCounter = *p.RetryCounter
	}
	if p.CreationDate != nil {
		r.CreationDate = queue.Truncate(*p.CreationDate)
	}
	return checkRecordText(r)
}

// checkReplace validates a ReplaceFailed list before any write.
func checkReplace(recs []queue.Record, now time.Time) ([]queue.Record, error) {
	out := make([]queue.Record, len(recs))
	seen := make(map[string]struct{}, len(recs))
	for i := range recs {
		r, err := prepareStored(&recs[i], now)
		if err != nil {
			return nil, fmt.Errorf("replace failed: %w", err)
		}
		if _, dup := seen[r.WebhookToken]; dup {
			return nil, fmt.Errorf("replace failed: token %s: %w", r.WebhookToken, queue.ErrDuplicate)
		}
		seen[r.WebhookToken] = struct{}{}
		out[i] = r
	}
	return out, nil
}

func checkLimit(limit int) error {
	if limit < 1 {
		return invalidf("claim: limit %d: want at least 1", limit)
	}
	return nil
}

// scanPage is how many records Scan reads per keyset page.
const scanPage = 1000

// scanPages is Scan's keyset walk, shared by both stores: fetch returns the
// next page of records with ids above after (at most scanPage, in id
// order); fn sees each record, with no read transaction open.
func scanPages(after int64, fetch func(after int64) ([]queue.Record, error), fn func(*queue.Record) error) error {
	for {
		page, err := fetch(after)
		if err != nil {
			return err
		}
		for i := range page {
			if err := fn(&page[i]); err != nil {
				return err
			}
		}
		if len(page) < scanPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

var liveStatuses = []queue.Status{queue.StatusPending, queue.StatusRetrying}

func emptyStats() queue.Stats {
	st := queue.Stats{ByStatus: make(map[queue.Status]int64, len(queue.Statuses))}
	for _, s := range queue.Statuses {
		st.ByStatus[s] = 0
	}
	return st
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }
