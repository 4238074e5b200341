package notifications

import (
	"context"
	"io"
	"time"

	"github.com/sluicedata/sluice/notifications/internal/httpapi"
	"github.com/sluicedata/sluice/notifications/internal/jobs"
	"github.com/sluicedata/sluice/notifications/internal/metrics"
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

// Processing: handlers and their outcomes live in internal/jobs.
type (
	Handler            = jobs.Handler
	HandlerFunc        = jobs.HandlerFunc
	MarketplaceHandler = jobs.MarketplaceHandler
	DownstreamError    = jobs.DownstreamError
	RunStats           = jobs.RunStats
)

// ErrNoMarketplace fails processing when CONN_MARKETPLACE_URL is unset.
var ErrNoMarketplace = jobs.ErrNoMarketplace

// Processing outcomes, the values of processed_total's outcome label.
const (
	OutcomeSuccess  = metrics.OutcomeSuccess
	OutcomeRetrying = metrics.OutcomeRetrying
	OutcomeFailed   = metrics.OutcomeFailed
	OutcomeSkipped  = metrics.OutcomeSkipped
)

// AlertSubject is the FAILED alert's subject (see docs/http-api.md#e-mail-alert).
func AlertSubject(webhookToken string) string { return jobs.AlertSubject(webhookToken) }

// AlertBody is the FAILED alert's plain-text body.
func AlertBody(webhookToken string, maxAttempts int) string {
	return jobs.AlertBody(webhookToken, maxAttempts)
}

// DTO is the management API's view of a record.
type DTO = httpapi.DTO

// ToDTO converts a record.
func ToDTO(r *Record) DTO { return httpapi.ToDTO(r) }

// Column is a dataset column: name, type, nullability and its value.
type Column = queue.Column

// DatasetColumns are the dataset's columns, declared once
// (docs/http-api.md#datasets).
var DatasetColumns = queue.Columns

// DatasetFormats are the formats WriteDataset knows.
var DatasetFormats = httpapi.DatasetFormats

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

// StatusHandler is a Handler that tells the downstream answer's HTTP
// status, which the attempt history keeps.
type StatusHandler = jobs.StatusHandler
