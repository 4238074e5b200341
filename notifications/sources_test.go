package notifications_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/source"
)

// The intake pipeline every configured source goes through (limits →
// decode → verify → map → store), driven with Standard Webhooks
// signatures made here (the schemes themselves are checked against the
// providers' own code in providers_test.go).

const acmeSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// standardHeaders signs body as a Standard Webhooks sender does.
func standardHeaders(id string, ts int64, body []byte) []string {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(acmeSecret, "whsec_"))
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s.%d.", id, ts)
	m.Write(body)
	return []string{"webhook-id", id, "webhook-timestamp", strconv.FormatInt(ts, 10),
		"webhook-signature", "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))}
}

func acmeSource(t *testing.T, mut func(c *source.Config)) *source.Source {
	t.Helper()
	c := source.Config{Name: "acme", Scheme: "standard", Secrets: []string{acmeSecret},
		Mapping: source.MappingConfig{ObjectToken: "data.id"}}
	if mut != nil {
		mut(&c)
	}
	src, err := c.Build()
	require.NoError(t, err)
	return src
}

func acmeBody(id, typ, created string) string {
	return fmt.Sprintf(`{"type":%q,"timestamp":%q,"data":{"id":%q,"amount":1200}}`, typ, created, id)
}

func TestSourceIntakePipeline(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.MaxBodyBytes = 512
	cfg.Sources = []*source.Source{acmeSource(t, nil)}
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	ts := clk.Now().Unix()
	post := func(body string, h ...string) (int, string) { return do(t, svc, "POST", "/webhooks/acme", body, h...) }
	errorOf := func(body string) string {
		t.Helper()
		var e struct {
			ErrorMessage string `json:"errorMessage"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		return e.ErrorMessage
	}
	nothingStored := func(token string) {
		t.Helper()
		_, err := st.Get(context.Background(), token)
		require.ErrorIs(t, err, notifications.ErrNotFound)
	}

	// Stored, mapped, with its source.
	b := acmeBody("inv_1", "invoice.paid", "2024-05-01T09:00:00Z")
	code, body := post(b, standardHeaders("msg_1", ts, []byte(b))...)
	require.Equal(t, 200, code, body)
	rec := mustGet(t, st, "msg_1")
	require.Equal(t, "acme", rec.Source)
	require.Equal(t, "invoice.paid", rec.NotificationType)
	require.Equal(t, "inv_1", rec.ObjectToken)
	require.Equal(t, time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC), rec.CreationDate)
	require.Empty(t, rec.Program, "no program mapped")

	// 401: unsigned, nothing stored; the HMC path is not the source's.
	code, body = post(acmeBody("inv_2", "invoice.paid", "2024-05-01T09:00:00Z"), "webhook-id", "msg_2")
	require.Equal(t, 401, code, body)
	require.Contains(t, errorOf(body), "webhook-timestamp")
	nothingStored("msg_2")

	// 415: a form-encoded body, signed.
	form := "type=invoice.paid&id=inv_3"
	code, body = post(form, append(standardHeaders("msg_3", ts, []byte(form)), "Content-Type", "application/x-www-form-urlencoded")...)
	require.Equal(t, 415, code, body)
	require.Contains(t, errorOf(body), "takes JSON bodies")
	nothingStored("msg_3")

	// 415: an unknown Content-Encoding.
	code, body = post(b, append(standardHeaders("msg_4", ts, []byte(b)), "Content-Encoding", "zstd")...)
	require.Equal(t, 415, code, body)
	nothingStored("msg_4")

	// 413: over CONN_MAX_BODY_BYTES.
	big := acmeBody(strings.Repeat("x", 600), "invoice.paid", "2024-05-01T09:00:00Z")
	code, body = post(big, standardHeaders("msg_5", ts, []byte(big))...)
	require.Equal(t, 413, code, body)
	nothingStored("msg_5")

	// A gzip body is verified and mapped decoded.
	gb := acmeBody("inv_6", "invoice.paid", "2024-05-01T09:00:00Z")
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write([]byte(gb))
	require.NoError(t, zw.Close())
	code, body = post(zipped.String(), append(standardHeaders("msg_6", ts, []byte(gb)), "Content-Encoding", "gzip")...)
	require.Equal(t, 200, code, body)
	require.Equal(t, gb, string(mustGet(t, st, "msg_6").Payload))

	// 400: signed but unreadable: quarantined under the source, without
	// its signature; reparsed with a corrected body it is stored.
	bad := `{"type":"invoice.paid","timestamp":"yesterday","data":{"id":"inv_7"}}`
	code, body = post(bad, append(standardHeaders("msg_7", ts, []byte(bad)), "X-Trace", "t-7")...)
	require.Equal(t, 400, code, body)
	require.Contains(t, errorOf(body), `"timestamp" (mapping.createdOn)`)
	nothingStored("msg_7")
	code, body = do(t, svc, "GET", "/management/quarantine", "")
	require.Equal(t, 200, code, body)
	var q struct {
		Items []struct {
			ID      int64             `json:"id"`
			Source  string            `json:"source"`
			Headers map[string]string `json:"headers"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &q), body)
	require.Len(t, q.Items, 1)
	require.Equal(t, "acme", q.Items[0].Source)
	require.Equal(t, "t-7", q.Items[0].Headers["X-Trace"])
	require.Equal(t, "msg_7", q.Items[0].Headers["Webhook-Id"], "mapped headers are kept for reparse")
	require.NotContains(t, q.Items[0].Headers, "Webhook-Signature")
	code, body = do(t, svc, "POST", fmt.Sprintf("/management/quarantine/%d/reparse", q.Items[0].ID),
		acmeBody("inv_7", "invoice.paid", "2024-05-01T09:00:00Z"))
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"webhookToken":"msg_7","source":"acme","outcome":"stored"}`, body)
	require.Equal(t, "acme", mustGet(t, st, "msg_7").Source)

	// 400: a field of the wrong kind names the mapping.
	arr := `{"type":["invoice.paid"],"timestamp":"2024-05-01T09:00:00Z","data":{"id":"inv_8"}}`
	code, body = post(arr, standardHeaders("msg_8", ts, []byte(arr))...)
	require.Equal(t, 400, code, body)
	require.Contains(t, errorOf(body), `"type" (mapping.type) must be a string or a number, got a JSON array`)

	_, metrics := do(t, svc, "GET", "/metrics", "")
	for _, want := range []string{
		`sluice_notifications_received_total{source="acme"} 3`,
		`sluice_notifications_unauthenticated_total{source="acme"} 1`,
		`sluice_notifications_rejected_total{source="acme"} 2`,
		`sluice_notifications_received_total{source="notifications"} 0`,
	} {
		require.Contains(t, metrics, want+"\n")
	}
}

// The obsolete and supersede rules compare records of one source: the
// same object and type from two sources do not touch each other.
func TestSourceRulesArePerSource(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cfg := testConfig()
	other := acmeSource(t, func(c *source.Config) { c.Name = "acme-eu" })
	cfg.Sources = []*source.Source{acmeSource(t, nil), other}
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	ts := clk.Now().Unix()
	send := func(path, id, created string) {
		b := acmeBody("inv_1", "invoice.updated", created)
		code, body := do(t, svc, "POST", path, b, standardHeaders(id, ts, []byte(b))...)
		require.Equal(t, 200, code, body)
	}
	send("/webhooks/acme", "msg_a1", "2024-05-01T09:00:00Z")
	send("/webhooks/acme-eu", "msg_b1", "2024-05-01T09:30:00Z") // later, other source: supersedes nothing
	send("/webhooks/acme", "msg_a0", "2024-05-01T08:00:00Z")    // earlier, same source: obsolete
	require.Equal(t, notifications.StatusPending, mustGet(t, st, "msg_a1").Status)
	require.Equal(t, notifications.StatusPending, mustGet(t, st, "msg_b1").Status)
	_, err := st.Get(context.Background(), "msg_a0")
	require.ErrorIs(t, err, notifications.ErrNotFound)
	code, body := do(t, svc, "GET", "/webhooks/notifications/msg_a0", "")
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"discarded":{"source":"acme","token":"msg_a0","reason":"obsolete","winner":"msg_a1","at":"2024-05-01T10:00:00.000Z"}}`, body)
	send("/webhooks/acme", "msg_a2", "2024-05-01T10:00:00Z") // later, same source: supersedes a1
	require.Equal(t, notifications.StatusOutdated, mustGet(t, st, "msg_a1").Status)
	require.Equal(t, notifications.StatusPending, mustGet(t, st, "msg_b1").Status)
}

// Slack's signed url_verification is answered with its challenge and
// stores nothing.
func TestSlackChallenge(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cfg := testConfig()
	src, err := source.Config{Name: "slack", Scheme: "slack", Secrets: []string{"8f742231b10e8888abcd99yyyzzz85a5"},
		Mapping: source.MappingConfig{Token: "event_id"}}.Build()
	require.NoError(t, err)
	cfg.Sources = []*source.Source{src}
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	body := `{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`
	ts := strconv.FormatInt(clk.Now().Unix(), 10)
	m := hmac.New(sha256.New, []byte("8f742231b10e8888abcd99yyyzzz85a5"))
	m.Write([]byte("v0:" + ts + ":" + body))
	sig := fmt.Sprintf("v0=%x", m.Sum(nil))
	code, out, h := doH(t, svc, "POST", "/webhooks/slack", body, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig)
	require.Equal(t, 200, code, out)
	require.Contains(t, h.Get("Content-Type"), "application/json")
	require.JSONEq(t, `{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}`, out)
	recs, err := st.List(context.Background(), notifications.Range{})
	require.NoError(t, err)
	require.Empty(t, recs)
	// Unsigned, the handshake is refused like any delivery.
	code, _ = do(t, svc, "POST", "/webhooks/slack", body, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", "v0=00")
	require.Equal(t, 401, code)
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_challenges_total{source="slack"} 1`+"\n")
}

// Delivery: a source's marketplace gets its records, the HMC source's go
// to CONN_MARKETPLACE_URL, a Go handler for a source (and type) wins; a
// success records its HTTP status.
func TestSourceDelivery(t *testing.T) {
	t.Parallel()
	clk := newClock()
	hmcMarket, acmeMarket := newMarketplace(t), newMarketplace(t)
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.MarketplaceURL = hmcMarket.URL
	cfg.Sources = []*source.Source{
		acmeSource(t, func(c *source.Config) { c.Marketplace = acmeMarket.URL + "/acme" }),
		acmeSource(t, func(c *source.Config) { c.Name = "ops" }),
	}
	st := openStore(t)
	var mu sync.Mutex
	var handled []string
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now),
		notifications.WithSourceHandler("ops", "", notifications.HandlerFunc(func(_ context.Context, r *notifications.Record, _ []byte) error {
			mu.Lock()
			defer mu.Unlock()
			handled = append(handled, r.WebhookToken)
			return nil
		})))
	ts := clk.Now().Unix()
	for _, d := range []struct{ path, id, typ string }{
		{"/webhooks/acme", "msg_1", "invoice.paid"}, {"/webhooks/acme", "msg_2", "invoice.voided"}, {"/webhooks/ops", "msg_3", "job.done"},
	} {
		b := acmeBody("inv_"+d.id, d.typ, "2024-05-01T09:00:00Z")
		code, body := do(t, svc, "POST", d.path, b, standardHeaders(d.id, ts, []byte(b))...)
		require.Equal(t, 200, code, body)
	}
	deliver(t, svc, "wbh-hmc", "usr-1", "2024-05-01T09:00:00Z")
	var typed []string
	svc.HandleSource("acme", "invoice.voided", notifications.HandlerFunc(func(_ context.Context, r *notifications.Record, _ []byte) error {
		typed = append(typed, r.WebhookToken)
		return nil
	}))
	st2, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, 4, st2.Succeeded)
	require.Equal(t, []string{"msg_1"}, acmeMarket.tokens())
	require.Equal(t, []string{"wbh-hmc"}, hmcMarket.tokens())
	require.Equal(t, []string{"msg_3"}, handled)
	require.Equal(t, []string{"msg_2"}, typed)
	acmeMarket.mu.Lock()
	call := acmeMarket.calls[0]
	acmeMarket.mu.Unlock()
	require.Equal(t, "acme", call.Notification.Source)
	require.JSONEq(t, acmeBody("inv_msg_1", "invoice.paid", "2024-05-01T09:00:00Z"), string(call.Payload))

	code, body := do(t, svc, "GET", "/webhooks/notifications/msg_1", "")
	require.Equal(t, 200, code, body)
	var detail struct {
		Source   string `json:"source"`
		Attempts []struct {
			Outcome    string  `json:"outcome"`
			HTTPStatus *int    `json:"httpStatus"`
			Error      *string `json:"error"`
		} `json:"attempts"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &detail), body)
	require.Equal(t, "acme", detail.Source)
	require.Len(t, detail.Attempts, 1)
	require.Equal(t, "success", detail.Attempts[0].Outcome)
	require.NotNil(t, detail.Attempts[0].HTTPStatus, "a success records its HTTP status")
	require.Equal(t, 200, *detail.Attempts[0].HTTPStatus)
	require.Nil(t, detail.Attempts[0].Error)
	// A Go handler tells no status.
	code, body = do(t, svc, "GET", "/webhooks/notifications/msg_3", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"httpStatus":null`)
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_processed_total{outcome="success",source="acme"} 2`+"\n")
	require.Contains(t, metrics, `sluice_notifications_attempts_total{outcome="success",source="ops",type="job.done"} 1`+"\n")
}

// A refusing marketplace's answer body never reaches a stored error or the
// log: its status and size do. URL query values are masked too.
func TestDownstreamBodyAndQueryRedacted(t *testing.T) {
	t.Parallel()
	clk := newClock()
	const echoed = "card=4242424242424242&api_key=sk_live_SECRETSECRET"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		_, _ = fmt.Fprintf(w, "bad gateway: %s (you sent key=%s)", echoed, r.URL.Query().Get("key"))
	}))
	t.Cleanup(srv.Close)
	var logs syncBuffer
	cfg := testConfig()
	cfg.MarketplaceURL = srv.URL + "/hook?key=q1"
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now), notifications.WithLogger(jsonLogger(&logs)))
	deliver(t, svc, "wbh-r", "usr-1", "")
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	attempts, err := st.Attempts(context.Background(), "wbh-r")
	require.NoError(t, err)
	require.Len(t, attempts, 1)
	a := attempts[0]
	require.Equal(t, 502, a.HTTPStatus)
	n := len(fmt.Sprintf("bad gateway: %s (you sent key=q1)", echoed))
	require.Equal(t, fmt.Sprintf("marketplace answered 502 (%d-byte body)", n), a.Error)
	for _, secret := range []string{"4242424242424242", "sk_live_SECRETSECRET", "key=q1", "bad gateway"} {
		require.NotContains(t, a.Error, secret)
		require.NotContains(t, logs.String(), secret)
	}
	require.Contains(t, logs.String(), "marketplace answered 502")
}

// The records API, the management listing, the dataset and the operator
// page filter and show the source; program is null when the body has
// none.
func TestSourceFilters(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.Sources = []*source.Source{acmeSource(t, nil)}
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	ts := clk.Now().Unix()
	b := acmeBody("inv_1", "invoice.paid", "2024-05-01T09:00:00Z")
	code, body := do(t, svc, "POST", "/webhooks/acme", b, standardHeaders("msg_1", ts, []byte(b))...)
	require.Equal(t, 200, code, body)
	deliver(t, svc, "wbh-1", "usr-1", "")
	code, body = do(t, svc, "POST", "/webhooks/notifications", `{"token":"wbh-noprog","object":{"token":"pmt-9"}}`)
	require.Equal(t, 200, code, body)
	rng := "/webhooks/notifications?from=2024-05-01T00:00:00Z&to=2024-05-02T00:00:00Z"
	list := func(q string) []map[string]any {
		t.Helper()
		code, body := do(t, svc, "GET", rng+q, "")
		require.Equal(t, 200, code, body)
		var out []map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &out), body)
		return out
	}
	acme := list("&source=acme")
	require.Len(t, acme, 1)
	require.Equal(t, "msg_1", acme[0]["webhookToken"])
	require.Equal(t, "acme", acme[0]["source"])
	require.Nil(t, acme[0]["program"], "program is null when the body has none")
	require.Len(t, list("&source=notifications"), 2)
	require.Len(t, list("&type=invoice.paid"), 1, "the type filter takes any value")
	require.Len(t, list("&type=usr"), 1, "HMC's types in any case")
	code, body = do(t, svc, "GET", rng+"&source=acmee", "")
	require.Equal(t, 400, code)
	require.Contains(t, body, `no source \"acmee\" (did you mean \"acme\"?)`)

	// Management: the DTO carries the source; ?source= filters.
	code, body = do(t, svc, "POST", "/management/failed-notifications/", `{"notificationToken":"f-acme","type":"invoice.failed","source":"acme"}`)
	require.Equal(t, 201, code, body)
	require.JSONEq(t, `{"notificationToken":"f-acme","type":"invoice.failed","target":"","program":null,"retryCounter":0,`+
		`"creationDate":"2024-05-01T10:00:00.000Z","status":"FAILED","source":"acme"}`, body)
	code, body = do(t, svc, "POST", "/management/failed-notifications/", `{"notificationToken":"f-hmc","target":"pmt-1"}`)
	require.Equal(t, 201, code, body)
	code, body = do(t, svc, "GET", "/management/failed-notifications/?source=acme&type=invoice.failed", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"f-acme"`)
	require.NotContains(t, body, `"f-hmc"`)
	code, body = do(t, svc, "POST", "/management/failed-notifications/", `{"notificationToken":"f-x","source":"nope"}`)
	require.Equal(t, 400, code, body)

	// Dataset: the source column.
	code, body = do(t, svc, "GET", "/datasets/notifications?format=csv", "")
	require.Equal(t, 200, code)
	require.True(t, strings.HasPrefix(body, "id,webhookToken,objectToken,creationDate,receptionDate,notificationType,status,retryCounter,lastRetryDate,nextRetryDate,program,source\n"), body)
	require.Contains(t, body, ",invoice.paid,PENDING,0,,,,acme\n")

	// The operator page: a source filter, the source of each record.
	code, body = do(t, svc, "GET", "/ui/?source=acme", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `<option value="acme" selected>acme</option>`)
	require.Contains(t, body, `data-token="msg_1"`)
	require.NotContains(t, body, `data-token="wbh-1"`)
	require.Contains(t, body, `<td class="source">acme</td>`)
	depth := func(body, status string) string {
		t.Helper()
		m := regexp.MustCompile(`data-status="` + status + `"><span class="n">(\d+)</span>`).FindStringSubmatch(body)
		require.NotNil(t, m, body)
		return m[1]
	}
	require.Equal(t, "1", depth(body, "PENDING"), "the counts are the source's")
	require.Equal(t, "1", depth(body, "FAILED"))
	code, body = do(t, svc, "GET", "/ui/", "")
	require.Equal(t, 200, code, body)
	require.Equal(t, "3", depth(body, "PENDING"), "unfiltered, the store's")
	require.Equal(t, "2", depth(body, "FAILED"))

	// Metrics: queue depth by source.
	_, metrics := do(t, svc, "GET", "/metrics", "")
	for _, want := range []string{
		`sluice_notifications_queue_depth{source="acme",status="PENDING"} 1`,
		`sluice_notifications_queue_depth{source="acme",status="FAILED"} 1`,
		`sluice_notifications_queue_depth{source="notifications",status="PENDING"} 2`,
		`sluice_notifications_queue_depth{source="notifications",status="SUCCESS"} 0`,
	} {
		require.Contains(t, metrics, want+"\n")
	}
}
