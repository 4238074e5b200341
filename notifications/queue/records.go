package queue

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"
)

// ErrSettled refuses a retry or delete of a SUCCESS or OUTDATED record
// (docs/records-api.md#management).
var ErrSettled = errors.New("notification is SUCCESS or OUTDATED")

// SettledError is ErrSettled naming the record's status.
type SettledError struct{ Status Status }

func (e *SettledError) Error() string { return "notification is " + string(e.Status) }

// Is makes errors.Is(err, ErrSettled) hold.
func (e *SettledError) Is(target error) bool { return target == ErrSettled }

// Attempt is one processing attempt of a record
// (docs/records-api.md#attempts).
type Attempt struct {
	// Attempt numbers the record's attempts from 1; the store assigns it.
	Attempt int
	// At is when the attempt started.
	At time.Time
	// Outcome is OutcomeSuccess, OutcomeRetrying or OutcomeFailed.
	Outcome string
	// HTTPStatus is the downstream answer's status; 0 when there was none
	// (a transport error, a handler of the embedder's own).
	HTTPStatus int
	// DurationMS is how long the attempt took.
	DurationMS int64
	// Error is the failure, redacted and cut to MaxAttemptError bytes; ""
	// on success.
	Error string
}

// Processing outcomes: an Attempt's Outcome (success, retrying, failed),
// and the values of the sidecar's processed_total outcome label, which also
// counts skipped records (see docs/http-api.md#metrics).
const (
	OutcomeSuccess  = "success"
	OutcomeRetrying = "retrying"
	OutcomeFailed   = "failed"
	// OutcomeSkipped: the record stopped being live while it was processed
	// (outdated, deleted or requeued meanwhile), so its result was dropped.
	OutcomeSkipped = "skipped"
)

// MaxAttemptError bounds the error text an attempt keeps.
const MaxAttemptError = 1024

// Discard reasons, the values of the ledger's reason and of the discarded
// metric's label.
const (
	ReasonDuplicate = "duplicate"
	ReasonObsolete  = "obsolete"
)

// Discard is the ledger entry of a delivery acknowledged but not stored
// (docs/records-api.md#discard-ledger).
type Discard struct {
	Source string    // the source it came in through
	Token  string    // the discarded delivery's webhook token
	Reason string    // ReasonDuplicate or ReasonObsolete
	Winner string    // the stored record's token that made it redundant
	At     time.Time // when the delivery was received
}

// Cursor is a position in the paged record listing: receptionDate, then id.
type Cursor struct {
	Reception time.Time
	ID        int64
}

// Query selects a page of records (GET /webhooks/notifications). Empty
// filters match anything.
type Query struct {
	Range
	Source      string
	Status      Status
	Type        string
	ObjectToken string
	// After starts the page after this position (exclusive).
	After *Cursor
	// Limit bounds the page (at least 1).
	Limit int
	// Newest orders by receptionDate then id descending (the operator
	// page); else ascending.
	Newest bool
}

// Quarantined is an intake body refused with 400, kept for inspection and
// re-parsing (docs/records-api.md#quarantine).
type Quarantined struct {
	ID         int64
	ReceivedAt time.Time
	// Source names the source whose intake refused the body; "" is
	// DefaultSource.
	Source string
	Reason string
	// Headers are the request's headers without credentials or
	// signatures.
	Headers map[string]string
	// Body is the refused body as received (in a listing, its first bytes).
	Body []byte
	// Size is the whole body's length in bytes.
	Size int
}

// RecordStore is what the attempt history, paged listing, guarded
// management, quarantine and discard ledger need from a store. Both stores
// of notifications/sqlstore implement it as part of Store.
type RecordStore interface {
	// Page returns records matching q, in (receptionDate, id) order.
	Page(ctx context.Context, q Query) ([]Record, error)
	// Attempts returns the attempts of the record with that token, oldest
	// first: ErrNotFound when there is no such record.
	Attempts(ctx context.Context, token string) ([]Attempt, error)
	// RequeueLive is Requeue refusing SUCCESS and OUTDATED records
	// (ErrSettled).
	RequeueLive(ctx context.Context, token string) (Record, error)
	// RemoveLive is Remove refusing SUCCESS and OUTDATED records
	// (ErrSettled).
	RemoveLive(ctx context.Context, token string) error

	// Discarded returns the ledger entry of a discarded delivery:
	// ErrNotFound when there is none.
	Discarded(ctx context.Context, token string) (Discard, error)
	// CleanupLedger deletes ledger entries received before cutoff.
	CleanupLedger(ctx context.Context, cutoff time.Time) (int64, error)

	// Quarantine keeps q (ID and ReceivedAt are set on return), then drops
	// the oldest entries beyond keep.
	Quarantine(ctx context.Context, q *Quarantined, keep int) error
	// ListQuarantine returns up to limit entries with an id below before
	// (0: from the newest), newest first, without their bodies' text
	// beyond excerpt bytes.
	ListQuarantine(ctx context.Context, before int64, limit, excerpt int) ([]Quarantined, error)
	// GetQuarantined returns one entry: ErrNotFound.
	GetQuarantined(ctx context.Context, id int64) (Quarantined, error)
	// RemoveQuarantined deletes one entry: ErrNotFound.
	RemoveQuarantined(ctx context.Context, id int64) error
	// CleanupQuarantine deletes entries received before cutoff.
	CleanupQuarantine(ctx context.Context, cutoff time.Time) (int64, error)
}

// Excerpt cuts s to at most n bytes on a rune boundary, marking the cut.
func Excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}
