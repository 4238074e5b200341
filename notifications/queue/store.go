package queue

import (
	"context"
	"errors"
	"time"
)

// Store errors. Implementations wrap them so callers can use errors.Is.
var (
	ErrNotFound    = errors.New("notification not found")
	ErrExists      = errors.New("notification already exists")
	ErrConflict    = errors.New("notification is not FAILED or RETRYING")
	ErrDuplicate   = errors.New("duplicate notification token in list")
	ErrUnavailable = errors.New("notification store unavailable")
	ErrLocked      = errors.New("job is already running")
	// ErrLockLost is the cause of a job lock's context ending because the
	// store lost the lock while the job ran (see Store.Lock).
	ErrLockLost = errors.New("job lock lost")
	// ErrInvalid reports a record a store refuses as given (no webhook
	// token, a NUL byte or invalid UTF-8 in a text field, an unknown
	// status): sending it again cannot succeed.
	ErrInvalid = errors.New("invalid notification record")
)

// Outcome is what Enqueue did with a delivery.
type Outcome int

// Enqueue outcomes.
const (
	Stored             Outcome = iota // saved PENDING
	DiscardedDuplicate                // the webhook token was already stored
	DiscardedObsolete                 // a newer record of that object and type exists
)

// EnqueueResult reports an Enqueue.
type EnqueueResult struct {
	Outcome  Outcome
	ID       int64 // of the stored record, when Stored
	Outdated int   // live records that became OUTDATED
	// Winner is, for a discarded delivery, the token of the stored record
	// that made it redundant (its own token for a duplicate).
	Winner string
}

// Range is an inclusive receptionDate range; a nil bound is open.
type Range struct {
	From, To *time.Time
}

// FailedFilter selects records for the management listing. Empty fields
// match anything; Type compares to notificationType.
type FailedFilter struct {
	Source string
	Type   string
	Target string // objectToken
}

// Patch lists the fields a management PUT changes; nil fields stay.
// Status is never changed through a patch.
type Patch struct {
	NotificationType *string
	ObjectToken      *string
	Program          *string
	RetryCounter     *int
	CreationDate     *time.Time
}

// Stats are the figures /metrics reports from the store.
type Stats struct {
	// ByStatus counts the records of every status (0 included).
	ByStatus map[Status]int64
	// BySource counts the records of each source the store holds, by
	// status (a status the source has no record of is absent).
	BySource      map[string]map[Status]int64
	OldestPending *time.Time // receptionDate of the oldest PENDING record; nil when none
}

// Add counts n records of source in status.
func (st *Stats) Add(source string, status Status, n int64) {
	st.ByStatus[status] += n
	if st.BySource == nil {
		st.BySource = map[string]map[Status]int64{}
	}
	if st.BySource[source] == nil {
		st.BySource[source] = map[Status]int64{}
	}
	st.BySource[source][status] += n
}

// Store keeps notification records durably. Implementations: SQLite and
// Postgres, in package notifications/sqlstore (sqlstore.Open(ctx, dsn)). Every method is safe for concurrent use.
type Store interface {
	RecordStore

	// Enqueue applies the intake rules (duplicate, obsolete, supersede) and
	// stores rec as PENDING with retryCounter 0, all in one transaction.
	// Tokens are unique across sources; the obsolete and supersede rules
	// compare records of one source only.
	// It returns once the outcome is durably committed.
	Enqueue(ctx context.Context, rec *Record) (EnqueueResult, error)

	// Lock takes the named job lock (one holder across every process
	// sharing the store). It returns ErrLocked when another holder has it.
	// The job runs under the returned context, a child of ctx that the
	// store cancels, with a cause wrapping ErrLockLost, when it loses the
	// lock before unlock: a SQLite lease that could not be renewed before it
	// expired or that another holder took over, a Postgres session that
	// ended, the store closed. The job then stops; records it claimed and did
	// not finish are claimed again once their claim lease ends. unlock
	// releases the lock (once; later calls do nothing) and cancels the
	// context.
	Lock(ctx context.Context, job string) (held context.Context, unlock func(), err error)

	// Claim returns up to limit live records (PENDING or RETRYING) whose
	// nextRetryDate is null or ≤ now, in ascending creationDate, with their
	// payloads. The caller must hold the processing lock.
	Claim(ctx context.Context, now time.Time, limit int) ([]Record, error)

	// Finish saves the outcome of processing rec (status, retryCounter,
	// lastRetryDate, nextRetryDate). It changes nothing and returns false
	// when the record is no longer live (outdated or deleted meanwhile).
	Finish(ctx context.Context, rec *Record) (bool, error)

	// Cleanup deletes terminal records received before cutoff.
	Cleanup(ctx context.Context, cutoff time.Time) (int64, error)

	// List returns records received within r, by receptionDate then id.
	List(ctx context.Context, r Range) ([]Record, error)
	// Scan calls fn for each record received within r, in id order, without
	// holding them all in memory (the dataset export).
	Scan(ctx context.Context, r Range, fn func(*Record) error) error
	// Delete deletes records received within r.
	Delete(ctx context.Context, r Range) (int64, error)

	// Get returns the record with that webhook token (any status).
	Get(ctx context.Context, token string) (Record, error)
	// ListFailed returns a page of FAILED and RETRYING records, newest
	// creationDate first, and their total count.
	ListFailed(ctx context.Context, f FailedFilter, offset, limit int) ([]Record, int64, error)
	// Insert stores rec as given (management POST): ErrExists if its token is taken.
	Insert(ctx context.Context, rec *Record) error
	// Update applies p to the record with that token: ErrNotFound.
	Update(ctx context.Context, token string, p Patch) (Record, error)
	// ReplaceFailed atomically replaces all FAILED and RETRYING records by
	// recs: ErrDuplicate for a repeated token, ErrConflict for a token held
	// by a PENDING, SUCCESS or OUTDATED record; nothing changes on error.
	ReplaceFailed(ctx context.Context, recs []Record) error
	// Remove deletes the record with that token: ErrNotFound.
	Remove(ctx context.Context, token string) error
	// Requeue sets the record back to PENDING, retryCounter 0, retry dates
	// null: ErrNotFound.
	Requeue(ctx context.Context, token string) (Record, error)

	// Stats counts records by status and finds the oldest PENDING one.
	Stats(ctx context.Context) (Stats, error)
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	// Close flushes pending writes and closes the store.
	Close() error
}
