package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// IntakeError is a webhook body the intake refuses (400).
type IntakeError struct{ Msg string }

func (e *IntakeError) Error() string { return e.Msg }

// delivery is the part of the provider's webhook body the sidecar reads;
// every other field is ignored (but kept in the stored body).
type delivery struct {
	Token     *string         `json:"token"`
	CreatedOn json.RawMessage `json:"createdOn"`
	Object    *deliveryObject `json:"object"`
}

type deliveryObject struct {
	Token        *string `json:"token"`
	ProgramToken *string `json:"programToken"`
}

// ParseDelivery turns a provider webhook body into a PENDING record
// received at now (see docs/http-api.md#intake). The record's Payload is a copy of body.
// A body that is empty, not a JSON object, without a string `token`, or
// with an unparseable `createdOn` gives an *IntakeError saying what.
func ParseDelivery(body []byte, now time.Time) (Record, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Record{}, &IntakeError{"empty body: want the provider's webhook JSON object"}
	}
	d, err := decodeDelivery(body)
	if err != nil {
		return Record{}, &IntakeError{"malformed webhook JSON: " + DescribeJSONError(err)}
	}
	if d.Token == nil || *d.Token == "" {
		return Record{}, &IntakeError{`missing "token": the webhook token is required`}
	}
	now = Truncate(now)
	rec := Record{
		WebhookToken:  *d.Token,
		ReceptionDate: now,
		CreationDate:  now,
		Status:        StatusPending,
	}
	if len(d.CreatedOn) > 0 && string(d.CreatedOn) != "null" {
		var s string
		if err := json.Unmarshal(d.CreatedOn, &s); err != nil {
			return Record{}, &IntakeError{fmt.Sprintf(`"createdOn" must be an ISO-8601 date-time string, got %s`, TruncateText(string(d.CreatedOn), 64))}
		}
		t, err := ParseDateTime(s)
		if err != nil {
			return Record{}, &IntakeError{`"createdOn": ` + TruncateText(err.Error(), 128)}
		}
		rec.CreationDate = t
	}
	if o := d.Object; o != nil {
		if o.Token != nil {
			rec.ObjectToken = *o.Token
		}
		if o.ProgramToken != nil {
			rec.Program = *o.ProgramToken
		}
	}
	// No store keeps NUL bytes faithfully (Postgres refuses them), and an
	// index row has a size limit: the same tokens are refused everywhere.
	if err := CheckTokens(&rec); err != nil {
		return Record{}, &IntakeError{err.Error()}
	}
	rec.NotificationType = TypeOf(rec.ObjectToken)
	rec.Payload = bytes.Clone(body)
	return rec, nil
}

// DescribeJSONError says what a JSON decoding error found, and where.
func DescribeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte offset %d", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %q must not be a JSON %s", te.Field, te.Value)
		}
		return fmt.Sprintf("want a JSON object, got a JSON %s", te.Value)
	}
	return err.Error()
}

// TruncateText cuts s to n bytes, marking the cut with "…".
func TruncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
