package notifications

import (
	"context"
	"io"
	"time"

	"github.com/sluicedata/sluice/notifications/internal/httpapi"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/source"
)

// The model and the store contract live in notifications/queue; these
// names keep the package's API whole for callers (see docs/http-api.md#record).
type (
	Record        = queue.Record
	Status        = queue.Status
	Store         = queue.Store
	Outcome       = queue.Outcome
	EnqueueResult = queue.EnqueueResult
	Range         = queue.Range
	FailedFilter  = queue.FailedFilter
	Patch         = queue.Patch
	Stats         = queue.Stats
	IntakeError   = queue.IntakeError
)

// The statuses.
const (
	StatusPending  = queue.StatusPending
	StatusRetrying = queue.StatusRetrying
	StatusSuccess  = queue.StatusSuccess
	StatusFailed   = queue.StatusFailed
	StatusOutdated = queue.StatusOutdated
)

// Statuses lists every status, live ones first.
var Statuses = queue.Statuses

// The notification types.
const (
	TypeUser     = queue.TypeUser
	TypeStore    = queue.TypeStore
	TypePayment  = queue.TypePayment
	TypeTransfer = queue.TypeTransfer
	TypeUnknown  = queue.TypeUnknown
)

// Enqueue outcomes.
const (
	Stored             = queue.Stored
	DiscardedDuplicate = queue.DiscardedDuplicate
	DiscardedObsolete  = queue.DiscardedObsolete
)

// Store errors.
var (
	ErrNotFound    = queue.ErrNotFound
	ErrExists      = queue.ErrExists
	ErrConflict    = queue.ErrConflict
	ErrDuplicate   = queue.ErrDuplicate
	ErrUnavailable = queue.ErrUnavailable
	ErrLocked      = queue.ErrLocked
	ErrLockLost    = queue.ErrLockLost
	ErrInvalid     = queue.ErrInvalid
)

// DateLayout formats stored dates: RFC 3339, UTC, milliseconds.
const DateLayout = queue.DateLayout

// TypeOf derives a notification type from an object token.
func TypeOf(objectToken string) string { return queue.TypeOf(objectToken) }

// FormatDate renders t as the contract's date text (UTC, milliseconds).
func FormatDate(t time.Time) string { return queue.FormatDate(t) }

// Truncate drops precision below the millisecond, as the stores keep it.
func Truncate(t time.Time) time.Time { return queue.Truncate(t) }

// ParseDateTime parses an ISO-8601 date-time; without an offset it is UTC.
func ParseDateTime(s string) (time.Time, error) { return queue.ParseDateTime(s) }

// ParseDelivery turns an HMC webhook body into a PENDING record of the HMC
// source received at now (see docs/http-api.md#intake).
func ParseDelivery(body []byte, now time.Time) (Record, error) { return source.ParseHMC(body, now) }

// DefaultSource is the HMC source's name, `notifications`.
const DefaultSource = queue.DefaultSource

// Processing outcomes: an attempt's outcome and the values of
// processed_total's outcome label (see docs/http-api.md#metrics).
const (
	OutcomeSuccess  = queue.OutcomeSuccess  // "success"
	OutcomeRetrying = queue.OutcomeRetrying // "retrying"
	OutcomeFailed   = queue.OutcomeFailed   // "failed"
	OutcomeSkipped  = queue.OutcomeSkipped  // "skipped": no longer live when its outcome was saved
)

// DTO is the management API's view of a record (see docs/records-api.md).
type DTO = queue.DTO

// ToDTO converts a record; a record without a program has a null one.
func ToDTO(r *Record) DTO { return queue.ToDTO(r) }

// Column is a dataset column: name, type, nullability and its value.
type Column = queue.Column

// DatasetColumns are the dataset's columns, declared once
// (docs/http-api.md#datasets).
var DatasetColumns = queue.Columns

// DatasetFormats are the formats WriteDataset knows: ndjson, csv, parquet.
var DatasetFormats = queue.DatasetFormats

// WriteDataset streams the records received within r to w in format
// (ndjson, csv or parquet), reading them with Store.Scan.
func WriteDataset(ctx context.Context, store Store, r Range, format string, w io.Writer) error {
	return httpapi.WriteDataset(ctx, store, r, format, w)
}

// Signature headers of signed intake (see docs/http-api.md#signed-intake).
const (
	HeaderTimestamp = source.HeaderTimestamp
	HeaderSignature = source.HeaderSignature
)

// SignWebhook returns the X-Sluice-Signature value ("v1=<hex>") of body
// sent at ts (Unix seconds) with secret: HMAC-SHA256 over ts + "." + body.
func SignWebhook(secret string, ts int64, body []byte) string { return source.Sign(secret, ts, body) }
