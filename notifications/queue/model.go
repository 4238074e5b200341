package queue

import (
	"strings"
	"time"
)

// Status is a notification record's place in its life cycle.
type Status string

// The statuses. PENDING and RETRYING are live (the queue may process them);
// the others are terminal.
const (
	StatusPending  Status = "PENDING"
	StatusRetrying Status = "RETRYING"
	StatusSuccess  Status = "SUCCESS"
	StatusFailed   Status = "FAILED"
	StatusOutdated Status = "OUTDATED"
)

// Statuses lists every status, live ones first.
var Statuses = []Status{StatusPending, StatusRetrying, StatusSuccess, StatusFailed, StatusOutdated}

// Terminal reports whether the queue never touches a record in this status again.
func (s Status) Terminal() bool {
	return s == StatusSuccess || s == StatusFailed || s == StatusOutdated
}

// Valid reports whether s is one of the statuses.
func (s Status) Valid() bool {
	for _, x := range Statuses {
		if s == x {
			return true
		}
	}
	return false
}

// The notification types, derived from the object token's prefix.
const (
	TypeUser     = "USR"
	TypeStore    = "STK"
	TypePayment  = "PMT"
	TypeTransfer = "TRM"
	TypeUnknown  = "UNK"
)

// TypeOf derives a notification type from an object token: the part before
// its first '-' (the whole token when it has none, as HMC's
// split("-")[0]), upper-cased, when it is one of USR STK PMT TRM; else UNK.
func TypeOf(objectToken string) string {
	prefix := objectToken
	if i := strings.IndexByte(objectToken, '-'); i >= 0 {
		prefix = objectToken[:i]
	}
	switch p := strings.ToUpper(prefix); p {
	case TypeUser, TypeStore, TypePayment, TypeTransfer:
		return p
	}
	return TypeUnknown
}

// Record is one stored notification (see docs/http-api.md#record). Payload is the raw
// webhook body, kept with the record but not part of its JSON form.
type Record struct {
	ID int64 `json:"id"`
	// Source names the webhook source the delivery came in through
	// (docs/sidecar.md#sources); "" is DefaultSource.
	Source           string     `json:"source"`
	WebhookToken     string     `json:"webhookToken"`
	ObjectToken      string     `json:"objectToken"`
	CreationDate     time.Time  `json:"-"`
	ReceptionDate    time.Time  `json:"-"`
	NotificationType string     `json:"notificationType"`
	Status           Status     `json:"status"`
	RetryCounter     int        `json:"retryCounter"`
	LastRetryDate    *time.Time `json:"-"`
	NextRetryDate    *time.Time `json:"-"`
	Program          string     `json:"program"`
	Payload          []byte     `json:"-"`
	// LastError is the error of the latest processing attempt; "" when it
	// succeeded or none was made (docs/records-api.md#attempts).
	LastError string `json:"-"`
	// Attempt, when set on a record passed to Store.Finish, is appended to
	// its attempt history in the same transaction.
	Attempt *Attempt `json:"-"`
}

// DefaultSource is the HMC source: POST /webhooks/notifications, the
// provider body of docs/http-api.md#intake. Records without a source belong
// to it.
const DefaultSource = "notifications"

// SourceName is r's source, DefaultSource when unset.
func (r *Record) SourceName() string {
	if r.Source == "" {
		return DefaultSource
	}
	return r.Source
}

// DateLayout formats stored dates: RFC 3339, UTC, milliseconds.
const DateLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatDate renders t as the contract's date text (UTC, milliseconds).
func FormatDate(t time.Time) string { return t.UTC().Format(DateLayout) }

// Truncate drops precision below the millisecond, as the stores keep it.
func Truncate(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }
