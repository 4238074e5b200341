package notifications_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

func TestParseDelivery(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.UTC)
	nowMS := notifications.Truncate(now)
	tests := []struct {
		name    string
		body    string
		want    notifications.Record
		wantErr string
	}{
		{"user", `{"token":"wbh-1","type":"USERS.CREATED","createdOn":"2024-04-30T08:00:00.5Z","object":{"token":"usr-abc","programToken":"prg-1","x":[1]}}`,
			notifications.Record{WebhookToken: "wbh-1", ObjectToken: "usr-abc", Program: "prg-1", NotificationType: "USR",
				CreationDate: time.Date(2024, 4, 30, 8, 0, 0, 500e6, time.UTC)}, ""},
		{"stk lower-case prefix", `{"token":"wbh-2","createdOn":"2024-04-30T08:00:00","object":{"token":"stk-1"}}`,
			notifications.Record{WebhookToken: "wbh-2", ObjectToken: "stk-1", NotificationType: "STK",
				CreationDate: time.Date(2024, 4, 30, 8, 0, 0, 0, time.UTC)}, ""},
		{"pmt with offset", `{"token":"wbh-3","createdOn":"2024-04-30T10:00:00+02:00","object":{"token":"pmt-1"}}`,
			notifications.Record{WebhookToken: "wbh-3", ObjectToken: "pmt-1", NotificationType: "PMT",
				CreationDate: time.Date(2024, 4, 30, 8, 0, 0, 0, time.UTC)}, ""},
		{"trm", `{"token":"wbh-4","createdOn":null,"object":{"token":"trm-1"}}`,
			notifications.Record{WebhookToken: "wbh-4", ObjectToken: "trm-1", NotificationType: "TRM", CreationDate: nowMS}, ""},
		{"unknown prefix", `{"token":"wbh-5","object":{"token":"abc-1"}}`,
			notifications.Record{WebhookToken: "wbh-5", ObjectToken: "abc-1", NotificationType: "UNK", CreationDate: nowMS}, ""},
		// Without a '-' the whole token is the prefix (HMC: split("-")[0]).
		{"no dash", `{"token":"wbh-6","object":{"token":"usr"}}`,
			notifications.Record{WebhookToken: "wbh-6", ObjectToken: "usr", NotificationType: "USR", CreationDate: nowMS}, ""},
		{"no dash unknown", `{"token":"wbh-6","object":{"token":"usr1"}}`,
			notifications.Record{WebhookToken: "wbh-6", ObjectToken: "usr1", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"leading dash", `{"token":"wbh-6","object":{"token":"-usr"}}`,
			notifications.Record{WebhookToken: "wbh-6", ObjectToken: "-usr", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"missing object", `{"token":"wbh-7","unknown":{"a":1}}`,
			notifications.Record{WebhookToken: "wbh-7", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"object without token", `{"token":"wbh-8","object":{"programToken":"prg-9"}}`,
			notifications.Record{WebhookToken: "wbh-8", Program: "prg-9", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"empty", ``, notifications.Record{}, "empty body"},
		{"blank", " \n", notifications.Record{}, "empty body"},
		{"malformed", `{"token":`, notifications.Record{}, "malformed webhook JSON"},
		{"array", `[{"token":"x"}]`, notifications.Record{}, "malformed webhook JSON"},
		{"null", `null`, notifications.Record{}, "malformed webhook JSON"},
		{"no token", `{"object":{"token":"usr-1"}}`, notifications.Record{}, `missing "token"`},
		{"empty token", `{"token":""}`, notifications.Record{}, `missing "token"`},
		{"numeric token", `{"token":12}`, notifications.Record{}, `field "token"`},
		{"bad createdOn", `{"token":"a","createdOn":"yesterday"}`, notifications.Record{}, `"createdOn"`},
		{"numeric createdOn", `{"token":"a","createdOn":1714557600}`, notifications.Record{}, `"createdOn" must be an ISO-8601`},
		{"NUL in token", `{"token":"a\u0000b"}`, notifications.Record{}, `"token" contains a NUL character`},
		{"NUL in program", `{"token":"a","object":{"programToken":"\u0000"}}`, notifications.Record{}, `"object.programToken" contains a NUL`},
		// docs/http-api.md#intake refuses only empty or malformed JSON and a missing
		// token; an object (or its tokens) of another JSON type counts as
		// missing: type UNK.
		{"object not object", `{"token":"a","object":"usr-1"}`,
			notifications.Record{WebhookToken: "a", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"object array", `{"token":"a","object":[{"token":"usr-1"}]}`,
			notifications.Record{WebhookToken: "a", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"object token not string", `{"token":"a","object":{"token":5,"programToken":"prg-1"}}`,
			notifications.Record{WebhookToken: "a", Program: "prg-1", NotificationType: "UNK", CreationDate: nowMS}, ""},
		{"program not string", `{"token":"a","object":{"token":"usr-1","programToken":{"x":1}}}`,
			notifications.Record{WebhookToken: "a", ObjectToken: "usr-1", NotificationType: "USR", CreationDate: nowMS}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := notifications.ParseDelivery([]byte(tt.body), now)
			if tt.wantErr != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.body, string(got.Payload))
			tt.want.ReceptionDate = nowMS
			tt.want.Status = notifications.StatusPending
			tt.want.Payload = got.Payload
			require.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseDelivery(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/webhooks/*.json")
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{``, `{}`, `{"token":"a"}`, `{"token":"a","createdOn":"2024-01-01T00:00:00"}`,
		`{"token":"a","object":{"token":"usr-1"}}`, `{"token":"a","createdOn":5}`, `[1]`, `{"token":"\u0000"}`} {
		f.Add([]byte(s))
	}
	now := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec, err := notifications.ParseDelivery(body, now)
		if err != nil {
			var ie *notifications.IntakeError
			require.ErrorAs(t, err, &ie)
			return
		}
		require.NotEmpty(t, rec.WebhookToken)
		require.Equal(t, notifications.TypeOf(rec.ObjectToken), rec.NotificationType)
		require.Equal(t, body, rec.Payload)
		require.False(t, rec.CreationDate.IsZero())
		require.Equal(t, time.UTC, rec.CreationDate.Location())
	})
}

func TestIntakeStatuses(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	svc := newService(t, testConfig(), st)
	fixture, err := os.ReadFile("testdata/webhooks/user-activated.json")
	require.NoError(t, err)

	for _, path := range []string{"/webhook/notifications", "/webhooks/notifications"} {
		code, body := do(t, svc, "POST", path, webhook("wbh-"+path, "usr-1", "2024-05-01T09:00:00"))
		require.Equal(t, 200, code)
		require.Empty(t, body)
	}
	code, body := do(t, svc, "POST", "/webhooks/notifications", string(fixture))
	require.Equal(t, 200, code, body)
	require.Empty(t, body)
	rec := mustGet(t, st, "wbh-0c1d3e5f-7a9b-4c2d-8e1f-3a5b7c9d1e2f")
	require.Equal(t, "USR", rec.NotificationType)
	require.Equal(t, "usr-3f1c6a2e-9b7d-4e8a-a1b2-c3d4e5f6a7b8", rec.ObjectToken)
	require.Equal(t, "prg-2b6e8f0a-1c3d-4e5f-9a7b-8c6d4e2f0a1b", rec.Program)
	require.Equal(t, "2024-04-30T18:22:41.000Z", notifications.FormatDate(rec.CreationDate))
	require.JSONEq(t, string(fixture), string(rec.Payload), "the raw body is stored")

	// A duplicate is acknowledged but not stored twice.
	code, _ = do(t, svc, "POST", "/webhooks/notifications", string(fixture))
	require.Equal(t, 200, code)

	for _, tt := range []struct{ name, body, msg string }{
		{"empty", "", "empty body"},
		{"malformed", "{nope", "malformed"},
		{"no token", `{"object":{"token":"usr-1"}}`, "token"},
		{"bad createdOn", `{"token":"wbh-bad","createdOn":"31/12/2024"}`, "createdOn"},
	} {
		code, body := do(t, svc, "POST", "/webhooks/notifications", tt.body)
		require.Equal(t, 400, code, tt.name)
		require.Contains(t, body, `"errorMessage"`, tt.name)
		require.Contains(t, body, tt.msg, tt.name)
	}
	_, err = st.Get(context.Background(), "wbh-bad")
	require.ErrorIs(t, err, notifications.ErrNotFound, "nothing stored for a 400")

	recs, err := st.List(context.Background(), notifications.Range{})
	require.NoError(t, err)
	require.Len(t, recs, 3)
}

// Fiber's app.Test errors on an over-limit body, so 413 is checked over a
// real listener.
func TestIntakeBodyTooLarge(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxBodyBytes = 1024
	st := openStore(t)
	svc := newService(t, cfg, st)
	require.NoError(t, svc.Start(context.Background()))
	url := "http://" + svc.Addr() + "/webhooks/notifications"

	big := fmt.Sprintf(`{"token":"wbh-big","pad":"%s"}`, strings.Repeat("x", 2000))
	resp, err := http.Post(url, "application/json", strings.NewReader(big))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 413, resp.StatusCode)
	require.Contains(t, string(b), `"errorMessage"`)
	require.Contains(t, string(b), "CONN_MAX_BODY_BYTES")
	_, err = st.Get(context.Background(), "wbh-big")
	require.ErrorIs(t, err, notifications.ErrNotFound)

	resp, err = http.Post(url, "application/json", strings.NewReader(webhook("wbh-small", "usr-1", "")))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
}

func TestIntakeStoreUnavailable(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	svc := newService(t, testConfig(), st)
	require.NoError(t, st.Close())
	code, body := do(t, svc, "POST", "/webhooks/notifications", webhook("wbh-1", "usr-1", ""))
	require.Equal(t, 503, code)
	require.Contains(t, body, "errorMessage")
	code, body = do(t, svc, "GET", "/health", "")
	require.Equal(t, 503, code)
	// The health answer now says why (docs/http-api.md#health).
	var h map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &h))
	require.Equal(t, "DOWN", h["status"])
	require.Contains(t, h["reason"], "store is closed")
}

func TestIntakeRules(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	svc := newService(t, testConfig(), st)
	ctx := context.Background()
	deliver(t, svc, "wbh-old", "usr-1", "2024-05-01T09:00:00Z")
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T09:05:00Z")   // supersedes wbh-old
	deliver(t, svc, "wbh-older", "usr-1", "2024-05-01T08:00:00Z") // obsolete: discarded
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T09:05:00Z")   // duplicate: discarded
	deliver(t, svc, "wbh-other", "stk-1", "2024-05-01T08:00:00Z") // another object

	require.Equal(t, notifications.StatusOutdated, mustGet(t, st, "wbh-old").Status)
	require.Equal(t, notifications.StatusPending, mustGet(t, st, "wbh-new").Status)
	require.Equal(t, notifications.StatusPending, mustGet(t, st, "wbh-other").Status)
	_, err := st.Get(ctx, "wbh-older")
	require.ErrorIs(t, err, notifications.ErrNotFound)

	_, body := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, body, `sluice_notifications_received_total{source="notifications"} 5`)
	require.Contains(t, body, `sluice_notifications_discarded_total{reason="duplicate",source="notifications"} 1`)
	require.Contains(t, body, `sluice_notifications_discarded_total{reason="obsolete",source="notifications"} 1`)
}

func TestIntakeConcurrentIdenticalDeliveries(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	svc := newService(t, testConfig(), st)
	require.NoError(t, svc.Start(context.Background()))
	body := []byte(webhook("wbh-same", "usr-1", "2024-05-01T09:00:00Z"))
	errs := make(chan error, 20)
	for range 20 {
		go func() {
			resp, err := http.Post("http://"+svc.Addr()+"/webhooks/notifications", "application/json", bytes.NewReader(body))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			errs <- err
		}()
	}
	for range 20 {
		require.NoError(t, <-errs)
	}
	recs, err := st.List(context.Background(), notifications.Range{})
	require.NoError(t, err)
	require.Len(t, recs, 1)
}

// parseDeliveryOracle is ParseDelivery's contract written with
// encoding/json maps (exact keys, last duplicate wins): the reference the
// single-pass scanner is fuzzed against.
func parseDeliveryOracle(body []byte, now time.Time) (notifications.Record, bool) {
	if !json.Valid(body) {
		return notifications.Record{}, false
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return notifications.Record{}, false
	}
	str := func(raw json.RawMessage) (string, bool) {
		if raw == nil || string(raw) == "null" {
			return "", true
		}
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err == nil
	}
	rec := notifications.Record{ReceptionDate: notifications.Truncate(now), CreationDate: notifications.Truncate(now),
		Status: notifications.StatusPending, Payload: body}
	var ok bool
	if rec.WebhookToken, ok = str(top["token"]); !ok || rec.WebhookToken == "" {
		return notifications.Record{}, false
	}
	if raw := top["createdOn"]; raw != nil && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return notifications.Record{}, false
		}
		t, err := notifications.ParseDateTime(s)
		if err != nil {
			return notifications.Record{}, false
		}
		rec.CreationDate = t
	}
	if raw := top["object"]; raw != nil && string(raw) != "null" {
		// Not an object, or tokens of another type: missing (UNK).
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			if s, ok := str(obj["token"]); ok {
				rec.ObjectToken = s
			}
			if s, ok := str(obj["programToken"]); ok {
				rec.Program = s
			}
		}
	}
	for _, v := range []string{rec.WebhookToken, rec.ObjectToken, rec.Program} {
		if strings.Contains(v, "\x00") {
			return notifications.Record{}, false
		}
	}
	rec.NotificationType = notifications.TypeOf(rec.ObjectToken)
	return rec, true
}

func FuzzParseDeliveryMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"token":"a","object":{"token":"usr-1","programToken":"p"}}`,
		`{"token":1,"token":"b"}`, `{"token":"b","token":1}`, `{"tok\u0065n":"esc","object":{"tok\u0065n":"pmt-\u00e9"}}`,
		`{"Token":"case"}`, `{"token":"a","object":[1,{"token":"x"}],"object":{"token":"stk-2"}}`,
		"{\"token\":\"\xff\xfe\"}", `{"token":"a","links":[{"params":{"rel":"self"},"href":"h"}],"n":-1.5e3,"t":true}`,
		`{"token":"a","createdOn":"2024-05-01T10:00:00+02:00"}`, `{"token":"a","object":{"token":null}}`, ` {"token":"a"} `,
		`{"":{"":""},"token":"a"}`, `{"a":"\"}","token":"q"}`,
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := notifications.ParseDelivery(body, now)
		want, ok := parseDeliveryOracle(body, now)
		if !ok {
			require.Error(t, err, "oracle refuses %q", body)
			return
		}
		require.NoError(t, err, "oracle accepts %q", body)
		require.Equal(t, want, got)
	})
}
