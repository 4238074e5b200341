package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// recordJSON is Record's wire form (see docs/http-api.md#record): dates as text, null
// when unset.
type recordJSON struct {
	ID               int64   `json:"id"`
	WebhookToken     string  `json:"webhookToken"`
	ObjectToken      *string `json:"objectToken"`
	CreationDate     *string `json:"creationDate"`
	ReceptionDate    *string `json:"receptionDate"`
	NotificationType string  `json:"notificationType"`
	Status           Status  `json:"status"`
	RetryCounter     int     `json:"retryCounter"`
	LastRetryDate    *string `json:"lastRetryDate"`
	NextRetryDate    *string `json:"nextRetryDate"`
	Program          *string `json:"program"`
	Source           string  `json:"source"`
}

// DateText is t as the contract date text, nil when unset.
func DateText(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := FormatDate(t)
	return &s
}

func dateTextPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return DateText(*t)
}

// MarshalJSON renders the record as docs/http-api.md#record (dates RFC 3339 UTC with
// milliseconds, unset dates, objectToken and program null). The payload is
// not part of it.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{
		ID: r.ID, WebhookToken: r.WebhookToken, ObjectToken: optional(r.ObjectToken),
		CreationDate: DateText(r.CreationDate), ReceptionDate: DateText(r.ReceptionDate),
		NotificationType: r.NotificationType, Status: r.Status, RetryCounter: r.RetryCounter,
		LastRetryDate: dateTextPtr(r.LastRetryDate), NextRetryDate: dateTextPtr(r.NextRetryDate),
		Program: optional(r.Program), Source: r.SourceName(),
	})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	out := Record{ID: j.ID, WebhookToken: j.WebhookToken, ObjectToken: deref(j.ObjectToken),
		NotificationType: j.NotificationType, Status: j.Status, RetryCounter: j.RetryCounter, Program: deref(j.Program),
		Source: j.Source}
	for _, d := range []struct {
		name string
		src  *string
		dst  func(time.Time)
	}{
		{"creationDate", j.CreationDate, func(t time.Time) { out.CreationDate = t }},
		{"receptionDate", j.ReceptionDate, func(t time.Time) { out.ReceptionDate = t }},
		{"lastRetryDate", j.LastRetryDate, func(t time.Time) { out.LastRetryDate = &t }},
		{"nextRetryDate", j.NextRetryDate, func(t time.Time) { out.NextRetryDate = &t }},
	} {
		if d.src == nil {
			continue
		}
		t, err := ParseDateTime(*d.src)
		if err != nil {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		d.dst(t)
	}
	*r = out
	return nil
}

// optional is s, or nil when empty (a record without an object has a null
// objectToken, one without a program a null program).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// AppendRecordJSON appends r's JSON form to b, as MarshalJSON writes it,
// without reflection over the record: the dataset export and the
// marketplace call run it once per record.
func AppendRecordJSON(b []byte, r *Record) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, r.ID, 10)
	b = append(b, `,"webhookToken":`...)
	b = AppendJSONString(b, r.WebhookToken)
	b = append(b, `,"objectToken":`...)
	if r.ObjectToken == "" {
		b = append(b, "null"...)
	} else {
		b = AppendJSONString(b, r.ObjectToken)
	}
	b = append(b, `,"creationDate":`...)
	b = appendDate(b, r.CreationDate)
	b = append(b, `,"receptionDate":`...)
	b = appendDate(b, r.ReceptionDate)
	b = append(b, `,"notificationType":`...)
	b = AppendJSONString(b, r.NotificationType)
	b = append(b, `,"status":`...)
	b = AppendJSONString(b, string(r.Status))
	b = append(b, `,"retryCounter":`...)
	b = strconv.AppendInt(b, int64(r.RetryCounter), 10)
	b = append(b, `,"lastRetryDate":`...)
	b = appendDatePtr(b, r.LastRetryDate)
	b = append(b, `,"nextRetryDate":`...)
	b = appendDatePtr(b, r.NextRetryDate)
	b = append(b, `,"program":`...)
	if r.Program == "" {
		b = append(b, "null"...)
	} else {
		b = AppendJSONString(b, r.Program)
	}
	b = append(b, `,"source":`...)
	b = AppendJSONString(b, r.SourceName())
	return append(b, '}')
}

// AppendJSONString appends s as a JSON string. Printable ASCII without
// quotes or backslashes is copied as is; anything else goes through
// encoding/json (control characters escaped, invalid UTF-8 as U+FFFD).
func AppendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

func appendDate(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, DateLayout)
	return append(b, '"')
}

func appendDatePtr(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendDate(b, *t)
}

// ParseDateTime parses an ISO-8601 date-time from a client (createdOn,
// from/to, management dates) with the ISO forms of Sluice's one timestamp
// list (sparktype.ParseISODateTime, see docs/inference.md#timestamps);
// without an offset it is UTC. The result is in UTC, truncated to
// milliseconds as the stores keep it.
func ParseDateTime(s string) (time.Time, error) {
	v := strings.TrimSpace(s)
	// A '+' offset sent unencoded in a query string arrives as a space.
	if i := strings.LastIndexByte(v, ' '); i > 10 {
		v = v[:i] + "+" + v[i+1:]
	}
	if len(v) > 10 && v[10] == 't' {
		v = v[:10] + "T" + v[11:]
	}
	if strings.HasSuffix(v, "z") {
		v = v[:len(v)-1] + "Z"
	}
	if t, err := sparktype.ParseISODateTime(v); err == nil {
		return Truncate(t), nil
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO-8601 date-time (e.g. 2024-05-01T10:00:00Z)", s)
}
