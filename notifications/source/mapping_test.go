package source

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

func b64(b []byte) string  { return base64.StdEncoding.EncodeToString(b) }
func hexs(b []byte) string { return hex.EncodeToString(b) }

var now = time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.UTC)

func TestMapping(t *testing.T) {
	t.Parallel()
	m, err := NewMapping(MappingConfig{Token: "id", Type: "header:X-Event", CreatedOn: "data.created",
		ObjectToken: "data.object.id", Program: `meta.a\.b`})
	require.NoError(t, err)
	body := `{"id":"evt_1","data":{"created":"2024-05-01T09:00:00+02:00","object":{"id":12345678901234567890}},` +
		`"meta":{"a.b":"prg-1"}}`
	rec, err := m.Apply([]byte(body), http.Header{"X-Event": {"order.paid"}}, now)
	require.NoError(t, err)
	require.Equal(t, queue.Record{WebhookToken: "evt_1", NotificationType: "order.paid",
		CreationDate: time.Date(2024, 5, 1, 7, 0, 0, 0, time.UTC), ReceptionDate: queue.Truncate(now),
		ObjectToken: "12345678901234567890", Program: "prg-1", Status: queue.StatusPending, Payload: []byte(body)}, rec,
		"a number keeps its digits; \\. is a dot inside a key")

	// The whole key first: `data.created` as one key.
	m2, err := NewMapping(MappingConfig{Token: "id", CreatedOn: "data.created"})
	require.NoError(t, err)
	rec, err = m2.Apply([]byte(`{"id":"e","data":{"created":1714550000},"data.created":1714557540123}`), nil, now)
	require.NoError(t, err)
	require.Equal(t, time.UnixMilli(1714557540123).UTC(), rec.CreationDate, "milliseconds from 10^11 on")
	require.Empty(t, rec.NotificationType, "no type mapped: empty, as received")
}

func TestMappingCreatedOn(t *testing.T) {
	t.Parallel()
	m, err := NewMapping(MappingConfig{Token: "id", CreatedOn: "t"})
	require.NoError(t, err)
	for _, tt := range []struct {
		v    string
		want time.Time
		err  string
	}{
		{`"2024-05-01T09:00:00Z"`, time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC), ""},
		{`"2024-05-01T09:00:00.5"`, time.Date(2024, 5, 1, 9, 0, 0, 5e8, time.UTC), ""},
		{`1714557540`, time.Unix(1714557540, 0).UTC(), ""},
		{`1714557540.25`, time.UnixMilli(1714557540250).UTC(), ""},
		{`1714557540123`, time.UnixMilli(1714557540123).UTC(), ""},
		{`"1714557540"`, time.Unix(1714557540, 0).UTC(), ""},
		{`null`, queue.Truncate(now), ""},
		{`"yesterday"`, time.Time{}, `"t" (mapping.createdOn) must be an RFC 3339 date-time or Unix seconds or milliseconds, got "yesterday"`},
		{`-5`, time.Time{}, "is not a Unix time"},
		{`true`, time.Time{}, "got a JSON boolean"},
		{`{}`, time.Time{}, "got a JSON object"},
	} {
		rec, err := m.Apply([]byte(`{"id":"e","t":`+tt.v+`}`), nil, now)
		if tt.err != "" {
			require.ErrorContains(t, err, tt.err, tt.v)
			var ie *queue.IntakeError
			require.True(t, errors.As(err, &ie), tt.v)
			continue
		}
		require.NoError(t, err, tt.v)
		require.Equal(t, tt.want, rec.CreationDate, tt.v)
	}
}

func TestMappingErrors(t *testing.T) {
	t.Parallel()
	m, err := NewMapping(MappingConfig{Token: "event.id", Type: "event.type", ObjectToken: "header:X-Object"})
	require.NoError(t, err)
	for _, tt := range []struct{ body, err string }{
		{``, "empty body: want a JSON object"},
		{`[1]`, "malformed webhook JSON: want a JSON object"},
		{`{"event":`, "malformed webhook JSON: unexpected end of JSON input"},
		{`{"event":{}}`, `missing the token at "event.id" (mapping.token): the de-duplication key is required`},
		{`{"event":{"id":null}}`, `missing the token at "event.id"`},
		{`{"event":"e1"}`, `missing the token at "event.id"`},
		{`{"event":{"id":{"x":1}}}`, `"event.id" (mapping.token) must be a string or a number, got a JSON object`},
		{`{"event":{"id":"e","type":false}}`, `"event.type" (mapping.type) must be a string or a number, got a JSON boolean`},
		{`{"event":{"id":"` + strings.Repeat("x", 300) + `"}}`, `"mapping.token" is 300 bytes long`},
		{`{"event":{"id":"a\u0000b"}}`, `"mapping.token" contains a NUL character`},
	} {
		_, err := m.Apply([]byte(tt.body), http.Header{}, now)
		require.ErrorContains(t, err, tt.err, tt.body)
	}
	_, err = NewMapping(MappingConfig{Type: "type"})
	require.ErrorContains(t, err, "mapping.token is required")
}

// The generic mapping reads what encoding/json reads: the last of a
// repeated key, exact (case-sensitive, unescaped) keys, nested objects.
func FuzzMappingMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":"x"},"c":1}`, `{"a":{"b":1},"a":{"c":2}}`, `{"a":[{"b":"x"}],"c":"y"}`, `{"\u0061":{"b":"esc"},"c":"z"}`,
		`{"A":{"b":"case"},"c":"q"}`, `{"a.b":"whole","a":{"b":"nested"},"c":"w"}`, `{"a":{"b":null},"c":"n"}`,
	} {
		f.Add([]byte(s))
	}
	m, err := NewMapping(MappingConfig{Token: "c", ObjectToken: "a.b"})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec, err := m.Apply(body, nil, now)
		var top map[string]json.RawMessage
		if json.Unmarshal(body, &top) != nil || top == nil {
			require.Error(t, err)
			return
		}
		text := func(raw json.RawMessage) (string, bool) {
			if raw == nil || string(raw) == "null" {
				return "", true
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return s, true
			}
			var n json.Number
			if json.Unmarshal(raw, &n) == nil {
				return strings.TrimSpace(string(raw)), true
			}
			return "", false
		}
		tok, ok := text(top["c"])
		if !ok || tok == "" {
			require.Error(t, err)
			return
		}
		want := ""
		if raw, ok := top["a.b"]; ok {
			want, ok = text(raw)
			if !ok {
				require.Error(t, err)
				return
			}
		} else {
			var a map[string]json.RawMessage
			if json.Unmarshal(top["a"], &a) == nil && a != nil {
				if want, ok = text(a["b"]); !ok {
					require.Error(t, err)
					return
				}
			}
		}
		if queue.CheckToken("t", tok) != nil || queue.CheckToken("o", want) != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err, "%q", body)
		require.Equal(t, tok, rec.WebhookToken)
		require.Equal(t, want, rec.ObjectToken)
	})
}
