package notifications_test

// Black-box acceptance tests written from docs/http-api.md,
// docs/environment.md and docs/stores.md, sentence by sentence, over real HTTP against a
// started Service and a real SQLite store (and Postgres when
// SLUICE_TEST_POSTGRES_DSN is set). They read only what a client sees: the
// HTTP answers, the marketplace's and provider's requests, the SMTP
// messages. Helper names start with acc so they stay apart from the white
// box tests' helpers.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// accSidecar is one started sidecar and what it talks to.
type accSidecar struct {
	svc   *notifications.Service
	store notifications.Store
	base  string
	clock *clock
}

type accOpt struct {
	store notifications.Store
	mut   func(*notifications.Config)
	opts  []notifications.Option
}

// accStart starts a sidecar on a free loopback port over a fresh SQLite
// store, with schedules off, a settable clock at 2024-05-01T10:00:00Z.
func accStart(t *testing.T, o accOpt) *accSidecar {
	t.Helper()
	st := o.store
	if st == nil {
		var err error
		st, err = sqlstore.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "n.db"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
	}
	cfg := notifications.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.ProcessingCron = "off"
	cfg.CleanupCron = "off"
	cfg.DownstreamTimeout = 5 * time.Second
	if o.mut != nil {
		o.mut(&cfg)
	}
	ck := newClock()
	opts := append([]notifications.Option{notifications.WithLogger(quietLogger()), notifications.WithClock(ck.Now)}, o.opts...)
	svc, err := notifications.New(cfg, st, opts...)
	require.NoError(t, err)
	require.NoError(t, svc.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	})
	return &accSidecar{svc: svc, store: st, base: "http://" + svc.Addr(), clock: ck}
}

var accClient = &http.Client{Timeout: 30 * time.Second}

// req sends one real HTTP request; header is name, value pairs.
func (a *accSidecar) req(t *testing.T, method, path, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	rq, err := http.NewRequest(method, a.base+path, r)
	require.NoError(t, err)
	if body != "" {
		rq.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		rq.Header.Set(header[i], header[i+1])
	}
	resp, err := accClient.Do(rq)
	require.NoError(t, err, "%s %s", method, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), resp.Header
}

// post delivers a webhook body and requires 200 with an empty body.
func (a *accSidecar) post(t *testing.T, body string) {
	t.Helper()
	code, out, _ := a.req(t, "POST", "/webhooks/notifications", body)
	require.Equal(t, 200, code, out)
	require.Empty(t, out)
}

func accHook(token, object, createdOn string) string {
	m := map[string]any{"token": token, "type": "USERS.UPDATED", "foo": []int{1, 2}}
	if createdOn != "" {
		m["createdOn"] = createdOn
	}
	if object != "" {
		m["object"] = map[string]any{"token": object, "programToken": "prg-" + object, "status": "ACTIVATED"}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// all returns every record, by the date-range endpoint.
func (a *accSidecar) all(t *testing.T) []map[string]any {
	t.Helper()
	code, out, _ := a.req(t, "GET", "/webhooks/notifications?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z", "")
	require.Equal(t, 200, code, out)
	var recs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &recs), out)
	return recs
}

// byToken returns the record with that webhookToken, or nil.
func (a *accSidecar) byToken(t *testing.T, token string) map[string]any {
	t.Helper()
	for _, r := range a.all(t) {
		if r["webhookToken"] == token {
			return r
		}
	}
	return nil
}

func (a *accSidecar) status(t *testing.T, token string) string {
	t.Helper()
	r := a.byToken(t, token)
	require.NotNil(t, r, "record %s", token)
	return r["status"].(string)
}

func (a *accSidecar) process(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := a.svc.RunProcessing(ctx)
	require.NoError(t, err)
}

// accMarket is a marketplace recording the raw bodies it gets.
type accMarket struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
	code   int
}

func newAccMarket(t *testing.T) *accMarket {
	m := &accMarket{code: 200}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies = append(m.bodies, string(b))
		code := m.code
		m.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *accMarket) setCode(c int) { m.mu.Lock(); m.code = c; m.mu.Unlock() }

func (m *accMarket) got() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bodies...)
}

func (m *accMarket) tokens(t *testing.T) []string {
	var out []string
	for _, b := range m.got() {
		var v struct {
			Notification struct {
				WebhookToken string `json:"webhookToken"`
			} `json:"notification"`
		}
		require.NoError(t, json.Unmarshal([]byte(b), &v), b)
		out = append(out, v.Notification.WebhookToken)
	}
	return out
}

// docs/http-api.md#record: the record's exact JSON shape and date format.
func TestAcceptanceRecordShape(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	a.post(t, accHook("wbh-1", "usr-1", "2024-04-30T08:15:30"))
	code, out, h := a.req(t, "GET", "/webhooks/notifications?from=2024-05-01T10:00:00&to=2024-05-01T10:00:00", "")
	require.Equal(t, 200, code, out)
	require.Contains(t, h.Get("Content-Type"), "application/json")
	var recs []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &recs))
	require.Len(t, recs, 1, "from = to = receptionDate matches")
	var m map[string]any
	require.NoError(t, json.Unmarshal(recs[0], &m))
	id, ok := m["id"].(float64)
	require.True(t, ok, "id is a number: %s", recs[0])
	require.Equal(t, map[string]any{
		"id": id, "webhookToken": "wbh-1", "objectToken": "usr-1",
		"creationDate": "2024-04-30T08:15:30.000Z", "receptionDate": "2024-05-01T10:00:00.000Z",
		"notificationType": "USR", "status": "PENDING", "retryCounter": float64(0),
		"lastRetryDate": nil, "nextRetryDate": nil, "program": "prg-usr-1", "source": "notifications",
	}, m)
	// The keys come in the contract's order.
	keys := []string{`"id"`, `"webhookToken"`, `"objectToken"`, `"creationDate"`, `"receptionDate"`, `"notificationType"`,
		`"status"`, `"retryCounter"`, `"lastRetryDate"`, `"nextRetryDate"`, `"program"`}
	last := -1
	for _, k := range keys {
		i := bytes.Index(recs[0], []byte(k))
		require.Greater(t, i, last, "key %s in order: %s", k, recs[0])
		last = i
	}
}

// docs/http-api.md#intake: 200 with an empty body on both paths, also for discards.
func TestAcceptanceIntakeAnswers(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{mut: func(c *notifications.Config) { c.MaxBodyBytes = 2048 }})
	for _, p := range []string{"/webhook/notifications", "/webhooks/notifications", "/webhooks/notifications/"} {
		code, out, _ := a.req(t, "POST", p, accHook("wbh-"+p, "usr-"+p, "2024-05-01T09:00:00Z"))
		require.Equal(t, 200, code, p)
		require.Empty(t, out, p)
	}
	// A duplicate and an obsolete delivery are acknowledged the same way.
	a.post(t, accHook("wbh-/webhook/notifications", "usr-x", ""))
	a.post(t, accHook("wbh-old", "usr-/webhook/notifications", "2024-05-01T08:00:00Z"))
	require.Len(t, a.all(t), 3)

	bad := []struct{ name, body string }{
		{"empty", ""},
		{"blank", "  \n"},
		{"malformed", `{"token":"wbh-9"`},
		{"not an object", `["wbh-9"]`},
		{"a string", `"wbh-9"`},
		{"no token", `{"type":"USERS.CREATED","object":{"token":"usr-9"}}`},
		{"null token", `{"token":null}`},
		{"empty token", `{"token":""}`},
		{"numeric token", `{"token":9}`},
		{"createdOn text", `{"token":"wbh-9","createdOn":"yesterday"}`},
		{"createdOn empty", `{"token":"wbh-9","createdOn":""}`},
		{"createdOn number", `{"token":"wbh-9","createdOn":1714557600000}`},
		{"createdOn bool", `{"token":"wbh-9","createdOn":true}`},
		{"createdOn object", `{"token":"wbh-9","createdOn":{}}`},
		{"createdOn bad day", `{"token":"wbh-9","createdOn":"2024-02-30T10:00:00Z"}`},
	}
	for _, b := range bad {
		code, out, h := a.req(t, "POST", "/webhooks/notifications", b.body)
		require.Equal(t, 400, code, b.name)
		require.Contains(t, h.Get("Content-Type"), "application/json", b.name)
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &e), b.name)
		require.Len(t, e, 1, b.name)
		msg, _ := e["errorMessage"].(string)
		require.NotEmpty(t, msg, b.name)
	}
	require.Len(t, a.all(t), 3, "nothing stored by a 400")

	// Over CONN_MAX_BODY_BYTES: 413; at the limit: accepted.
	big := `{"token":"wbh-big","pad":"` + strings.Repeat("x", 2100) + `"}`
	code, out, _ := a.req(t, "POST", "/webhooks/notifications", big)
	require.Equal(t, 413, code, out)
	fit := `{"token":"wbh-fit","pad":"` + strings.Repeat("x", 2048-len(`{"token":"wbh-fit","pad":""}`)) + `"}`
	require.Len(t, fit, 2048)
	a.post(t, fit)
	require.Len(t, a.all(t), 4)
}

// docs/http-api.md#intake: store unavailable → 503 (and /health 503).
func TestAcceptanceStoreUnavailable(t *testing.T) {
	t.Parallel()
	st, err := sqlstore.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "n.db"))
	require.NoError(t, err)
	accStoreUnavailable(t, st)
}

func TestAcceptanceStoreUnavailablePostgres(t *testing.T) {
	t.Parallel()
	accStoreUnavailable(t, openPostgres(t))
}

func accStoreUnavailable(t *testing.T, st notifications.Store) {
	a := accStart(t, accOpt{store: st})
	code, out, _ := a.req(t, "GET", "/health", "")
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"status":"UP"}`, out)
	require.NoError(t, st.Close())
	code, out, _ = a.req(t, "POST", "/webhooks/notifications", accHook("wbh-1", "usr-1", ""))
	require.Equal(t, 503, code, out)
	require.Contains(t, out, `"errorMessage"`)
	code, _, _ = a.req(t, "GET", "/health", "")
	require.Equal(t, 503, code)
}

// docs/http-api.md#intake: type derivation, createdOn forms.
func TestAcceptanceIntakeDerivation(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	types := []struct{ body, want string }{
		{`{"token":"t1","object":{"token":"usr-1"}}`, "USR"},
		{`{"token":"t2","object":{"token":"Stk-1"}}`, "STK"},
		{`{"token":"t3","object":{"token":"pmt-a-b"}}`, "PMT"},
		{`{"token":"t4","object":{"token":"trm-1"}}`, "TRM"},
		{`{"token":"t5","object":{"token":"act-1"}}`, "UNK"},
		{`{"token":"t6","object":{"token":""}}`, "UNK"},
		{`{"token":"t7","object":{"programToken":"prg-1"}}`, "UNK"},
		{`{"token":"t8"}`, "UNK"},
		{`{"token":"t9","object":null}`, "UNK"},
		{`{"token":"t10","object":{"token":"usrx-1"}}`, "UNK"},
		{`{"token":"t13","object":{"token":"trm"}}`, "TRM"}, // no '-': the whole token
		{`{"token":"t14","object":{"token":"-usr-1"}}`, "UNK"},
		// Only empty/malformed JSON and a missing token are refused: an
		// object or object token of another JSON type counts as missing.
		{`{"token":"t11","object":"usr-1"}`, "UNK"},
		{`{"token":"t12","object":{"token":5,"programToken":["p"]}}`, "UNK"},
	}
	for _, tt := range types {
		a.post(t, tt.body)
	}
	for _, tt := range types {
		var tok struct{ Token string }
		require.NoError(t, json.Unmarshal([]byte(tt.body), &tok))
		require.Equal(t, tt.want, a.byToken(t, tok.Token)["notificationType"], tt.body)
	}
	r := a.byToken(t, "t7")
	require.Equal(t, "prg-1", r["program"])

	dates := []struct{ createdOn, want string }{
		{`"2024-04-01T10:00:00"`, "2024-04-01T10:00:00.000Z"},
		{`"2024-04-01T10:00:00.123"`, "2024-04-01T10:00:00.123Z"},
		{`"2024-04-01T10:00:00Z"`, "2024-04-01T10:00:00.000Z"},
		{`"2024-04-01T12:00:00+02:00"`, "2024-04-01T10:00:00.000Z"},
		{`"2024-04-01T12:00:00+0200"`, "2024-04-01T10:00:00.000Z"},
		{`"2024-04-01T12:00:00+02"`, "2024-04-01T10:00:00.000Z"},
		{`"2024-04-01T05:30:00.5-04:30"`, "2024-04-01T10:00:00.500Z"},
		{`null`, "2024-05-01T10:00:00.000Z"},
		{``, "2024-05-01T10:00:00.000Z"},
	}
	for i, d := range dates {
		tok := fmt.Sprintf("d%d", i)
		body := fmt.Sprintf(`{"token":%q,"createdOn":%s,"object":{"token":"usr-d%d"}}`, tok, d.createdOn, i)
		if d.createdOn == "" {
			body = fmt.Sprintf(`{"token":%q,"object":{"token":"usr-d%d"}}`, tok, i)
		}
		a.post(t, body)
		r := a.byToken(t, tok)
		require.Equal(t, d.want, r["creationDate"], body)
		require.Equal(t, "2024-05-01T10:00:00.000Z", r["receptionDate"])
	}
}

// docs/http-api.md#intake: concurrent identical deliveries store exactly one record.
func TestAcceptanceConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := accClient.Post(a.base+"/webhooks/notifications", "application/json",
				strings.NewReader(accHook("wbh-same", "usr-1", "2024-05-01T09:00:00Z")))
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	for _, c := range codes {
		require.Equal(t, 200, c)
	}
	require.Len(t, a.all(t), 1)
}

// docs/http-api.md#intake enqueue rules on a given store.
func accEnqueueRules(t *testing.T, st notifications.Store) {
	m := newAccMarket(t)
	a := accStart(t, accOpt{store: st, mut: func(c *notifications.Config) {
		c.MarketplaceURL = m.srv.URL
		c.MaxAttempts = 1
		c.ManagementAPI = true
	}})
	// Duplicate: the first stays as it was.
	a.post(t, accHook("dup", "usr-dup", "2024-05-01T09:00:00Z"))
	a.post(t, accHook("dup", "usr-other", "2024-05-01T09:30:00Z"))
	require.Len(t, a.all(t), 1)
	require.Equal(t, "usr-dup", a.byToken(t, "dup")["objectToken"])

	// Strictly later record exists (PENDING) → discard.
	a.post(t, accHook("late-new", "usr-a", "2024-05-01T09:00:00Z"))
	a.post(t, accHook("late-old", "usr-a", "2024-05-01T08:59:59.999Z"))
	require.Nil(t, a.byToken(t, "late-old"))
	require.Equal(t, "PENDING", a.status(t, "late-new"))

	// Strictly later record in a terminal status (SUCCESS) → discard.
	a.post(t, accHook("succ-new", "stk-b", "2024-05-01T09:00:00Z"))
	a.process(t)
	require.Equal(t, "SUCCESS", a.status(t, "succ-new"))
	a.post(t, accHook("succ-old", "stk-b", "2024-05-01T08:00:00Z"))
	require.Nil(t, a.byToken(t, "succ-old"))

	// Strictly later FAILED record → discard.
	m.setCode(500)
	a.post(t, accHook("fail-new", "pmt-c", "2024-05-01T09:00:00Z"))
	a.process(t)
	require.Equal(t, "FAILED", a.status(t, "fail-new"))
	a.post(t, accHook("fail-old", "pmt-c", "2024-05-01T08:00:00Z"))
	require.Nil(t, a.byToken(t, "fail-old"))
	// An earlier FAILED/SUCCESS record is not superseded: both stay.
	a.post(t, accHook("fail-newer", "pmt-c", "2024-05-01T09:30:00Z"))
	require.Equal(t, "FAILED", a.status(t, "fail-new"))
	require.Equal(t, "PENDING", a.status(t, "fail-newer"))
	a.post(t, accHook("succ-newer", "stk-b", "2024-05-01T09:30:00Z"))
	require.Equal(t, "SUCCESS", a.status(t, "succ-new"))

	// Supersede: earlier PENDING and RETRYING become OUTDATED.
	code, out, _ := a.req(t, "PUT", "/management/failed-notifications/",
		`[{"notificationToken":"retr-1","target":"trm-d","creationDate":"2024-05-01T07:00:00Z","status":"RETRYING","retryCounter":1}]`)
	require.Equal(t, 200, code, out)
	a.post(t, accHook("pend-1", "trm-d", "2024-05-01T08:00:00Z"))
	require.Equal(t, "OUTDATED", a.status(t, "retr-1"), "RETRYING with an earlier date is superseded")
	a.post(t, accHook("pend-2", "trm-d", "2024-05-01T09:00:00Z"))
	require.Equal(t, "OUTDATED", a.status(t, "pend-1"))
	r := a.byToken(t, "pend-2")
	require.Equal(t, "PENDING", r["status"])
	require.Equal(t, float64(0), r["retryCounter"])

	// Equal creationDate: neither discarded nor superseding.
	a.post(t, accHook("eq-2", "trm-d", "2024-05-01T09:00:00Z"))
	require.Equal(t, "PENDING", a.status(t, "pend-2"))
	require.Equal(t, "PENDING", a.status(t, "eq-2"))

	// Another objectToken is not affected.
	a.post(t, accHook("other", "trm-e", "2024-05-01T10:00:00Z"))
	require.Equal(t, "PENDING", a.status(t, "eq-2"))
}

func TestAcceptanceEnqueueRules(t *testing.T) {
	t.Parallel()
	accEnqueueRules(t, nil)
}

func TestAcceptanceEnqueueRulesPostgres(t *testing.T) {
	t.Parallel()
	accEnqueueRules(t, openPostgres(t))
}

// docs/http-api.md#processing: eligibility, order, batch size, drain.
func TestAcceptanceProcessingSelection(t *testing.T) {
	t.Parallel()
	m := newAccMarket(t)
	a := accStart(t, accOpt{mut: func(c *notifications.Config) {
		c.MarketplaceURL = m.srv.URL
		c.BatchSize = 2
	}})
	a.post(t, accHook("c3", "usr-3", "2024-05-01T03:00:00Z"))
	a.post(t, accHook("c1", "usr-1", "2024-05-01T01:00:00Z"))
	a.post(t, accHook("c4", "usr-4", "2024-05-01T04:00:00Z"))
	a.post(t, accHook("c2", "usr-2", "2024-05-01T02:00:00Z"))
	a.post(t, accHook("c5", "usr-5", "2024-05-01T05:00:00Z"))
	a.process(t)
	require.Equal(t, []string{"c1", "c2"}, m.tokens(t), "one batch of 2, oldest creationDate first")
	a.process(t)
	require.Equal(t, []string{"c1", "c2", "c3", "c4"}, m.tokens(t))

	// A failed record waits for its nextRetryDate.
	m.setCode(503)
	a.process(t) // c5 fails: RETRYING, next = now + 1m
	require.Equal(t, "RETRYING", a.status(t, "c5"))
	a.process(t)
	require.Len(t, m.got(), 5, "not eligible before nextRetryDate")
	a.clock.Add(59 * time.Second)
	a.process(t)
	require.Len(t, m.got(), 5)
	a.clock.Add(time.Second)
	m.setCode(204)
	a.process(t)
	require.Len(t, m.got(), 6, "eligible at nextRetryDate = now")
	require.Equal(t, "SUCCESS", a.status(t, "c5"))

	// The HTTP trigger runs one batch too.
	m2 := newAccMarket(t)
	b := accStart(t, accOpt{mut: func(c *notifications.Config) {
		c.MarketplaceURL = m2.srv.URL
		c.BatchSize = 2
		c.Drain = true
	}})
	for i := range 5 {
		b.post(t, accHook(fmt.Sprintf("e%d", i), fmt.Sprintf("usr-%d", i), fmt.Sprintf("2024-05-01T0%d:00:00Z", 5-i)))
	}
	code, out, _ := b.req(t, "POST", "/job/process-notifications", "")
	require.Equal(t, 202, code)
	require.Empty(t, out)
	eventually(t, "drained", func() bool { return len(m2.got()) == 5 })
	require.Equal(t, []string{"e4", "e3", "e2", "e1", "e0"}, m2.tokens(t), "drain takes every batch, oldest first")
}

// docs/http-api.md#processing: back-off, max attempts, FAILED, one mail.
func accBackoff(t *testing.T, st notifications.Store) {
	m := newAccMarket(t)
	m.setCode(500)
	smtp := newSMTPServer(t, false, "")
	a := accStart(t, accOpt{store: st, mut: func(c *notifications.Config) {
		c.MarketplaceURL = m.srv.URL
		c.MaxAttempts = 4
		c.InitialRetryDelay = 90 * time.Second
		c.BackoffMultiplier = 3
		c.Mail.Host = "127.0.0.1"
		c.Mail.Port = smtp.port()
		c.Mail.StartTLS = "false"
		c.Mail.From = "conn@example.com"
		c.Mail.Recipients = []string{"ops@example.com", "dev@example.com"}
	}})
	a.post(t, accHook("wbh-b", "usr-b", "2024-05-01T09:00:00Z"))
	t0 := a.clock.Now()
	wantDelays := []time.Duration{90 * time.Second, 270 * time.Second, 810 * time.Second}
	for i, d := range wantDelays {
		a.process(t)
		r := a.byToken(t, "wbh-b")
		now := a.clock.Now()
		require.Equal(t, "RETRYING", r["status"], "attempt %d", i+1)
		require.Equal(t, float64(i+1), r["retryCounter"])
		require.Equal(t, notifications.FormatDate(now), r["lastRetryDate"])
		require.Equal(t, notifications.FormatDate(now.Add(d)), r["nextRetryDate"], "attempt %d", i+1)
		a.clock.Add(d)
	}
	require.Empty(t, smtp.messages())
	a.process(t)
	r := a.byToken(t, "wbh-b")
	require.Equal(t, "FAILED", r["status"])
	require.Equal(t, float64(4), r["retryCounter"])
	require.Nil(t, r["nextRetryDate"])
	require.Equal(t, notifications.FormatDate(t0.Add(90*time.Second+270*time.Second+810*time.Second)), r["lastRetryDate"])
	eventually(t, "the alert", func() bool { return len(smtp.messages()) == 1 })
	msg := smtp.messages()[0]
	require.Equal(t, "conn@example.com", msg.From)
	require.ElementsMatch(t, []string{"ops@example.com", "dev@example.com"}, msg.To)
	require.Contains(t, msg.Data, "Subject: [CONN] Technical error occurred when processing the notification wbh-b\r\n")
	require.Contains(t, msg.Data, "There was an error processing the notification wbh-b and the operation could not be completed. "+
		"The maximum number of attempts (4) has been reached, therefore it will not try to re-process the notification anymore.\r\n"+
		"Please check the logs for further information.")
	// Terminal: never touched again, no second mail.
	a.clock.Add(24 * time.Hour)
	a.process(t)
	require.Len(t, m.got(), 4)
	require.Equal(t, "FAILED", a.status(t, "wbh-b"))
	require.Len(t, smtp.messages(), 1)
}

func TestAcceptanceBackoff(t *testing.T) {
	t.Parallel()
	accBackoff(t, nil)
}

func TestAcceptanceBackoffPostgres(t *testing.T) {
	t.Parallel()
	accBackoff(t, openPostgres(t))
}

// docs/http-api.md: max attempts 1 fails at once; success keeps retryCounter and
// lastRetryDate; no marketplace = failure.
func TestAcceptanceAttemptsAndSuccess(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{mut: func(c *notifications.Config) { c.MaxAttempts = 1 }})
	a.post(t, accHook("wbh-1", "usr-1", ""))
	a.process(t)
	r := a.byToken(t, "wbh-1")
	require.Equal(t, "FAILED", r["status"], "no marketplace configured is a failure")
	require.Equal(t, float64(1), r["retryCounter"])
	require.Nil(t, r["nextRetryDate"])

	m := newAccMarket(t)
	m.setCode(502)
	b := accStart(t, accOpt{mut: func(c *notifications.Config) { c.MarketplaceURL = m.srv.URL }})
	b.post(t, accHook("wbh-2", "usr-2", ""))
	b.process(t)
	before := b.byToken(t, "wbh-2")
	require.Equal(t, "RETRYING", before["status"])
	b.clock.Add(time.Hour)
	m.setCode(200)
	b.process(t)
	after := b.byToken(t, "wbh-2")
	require.Equal(t, "SUCCESS", after["status"])
	require.Equal(t, before["retryCounter"], after["retryCounter"])
	require.Equal(t, before["lastRetryDate"], after["lastRetryDate"])
}

// docs/http-api.md#processing: the marketplace body and the provider re-fetch.
func TestAcceptanceMarketplaceBodyAndProviderFetch(t *testing.T) {
	t.Parallel()
	m := newAccMarket(t)
	var provMu sync.Mutex
	var provPaths []string
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		provMu.Lock()
		provPaths = append(provPaths, r.Method+" "+r.URL.Path)
		provMu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token":%q,"fetched":true}`, strings.TrimPrefix(r.URL.Path, "/api/webhook-notifications/"))
	}))
	t.Cleanup(prov.Close)
	a := accStart(t, accOpt{mut: func(c *notifications.Config) {
		c.MarketplaceURL = m.srv.URL
		c.ProviderAPIURL = prov.URL + "/api"
		c.ManagementAPI = true
	}})
	hook := `{"token":"wbh-1","type":"USERS.CREATED","createdOn":"2024-05-01T09:00:00.250","object":{"token":"usr-1","programToken":"prg-9","n":[1,{"a":null}]},"extra":"é"}`
	a.post(t, hook)
	stored := a.byToken(t, "wbh-1")
	a.process(t)
	require.Len(t, m.got(), 1)
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(m.got()[0]), &got))
	require.Len(t, got, 2, m.got()[0])
	require.JSONEq(t, hook, string(got["payload"]))
	var n map[string]any
	require.NoError(t, json.Unmarshal(got["notification"], &n))
	require.Equal(t, stored, n, "the notification is the record as stored")
	provMu.Lock()
	require.Empty(t, provPaths, "a stored body is not fetched")
	provMu.Unlock()

	// A record without a stored body (management POST) is fetched.
	code, out, _ := a.req(t, "POST", "/management/failed-notifications", `{"notificationToken":"wbh-2","target":"usr-2"}`)
	require.Equal(t, 201, code, out)
	code, out, _ = a.req(t, "POST", "/management/failed-notifications/wbh-2/retry", "")
	require.Equal(t, 200, code, out)
	a.process(t)
	require.Len(t, m.got(), 2)
	require.NoError(t, json.Unmarshal([]byte(m.got()[1]), &got))
	require.JSONEq(t, `{"token":"wbh-2","fetched":true}`, string(got["payload"]))
	provMu.Lock()
	require.Equal(t, []string{"GET /api/webhook-notifications/wbh-2"}, provPaths)
	provMu.Unlock()
	require.Equal(t, "SUCCESS", a.status(t, "wbh-2"))
}

// docs/http-api.md#jobs: cleanup retention.
func TestAcceptanceCleanup(t *testing.T) {
	t.Parallel()
	for _, days := range []int{0, 3} {
		t.Run(fmt.Sprint(days), func(t *testing.T) {
			t.Parallel()
			m := newAccMarket(t)
			a := accStart(t, accOpt{mut: func(c *notifications.Config) {
				c.MarketplaceURL = m.srv.URL
				c.RetentionDays = days
				c.MaxAttempts = 2
				c.ManagementAPI = true
			}})
			// Old records in every status.
			a.post(t, accHook("succ", "usr-1", "2024-04-01T00:00:00Z"))
			a.process(t) // SUCCESS
			m.setCode(500)
			a.post(t, accHook("retr", "usr-2", "2024-04-01T00:00:00Z"))
			a.process(t) // RETRYING
			a.post(t, accHook("pend-old", "usr-3", "2024-04-01T00:00:00Z"))
			a.post(t, accHook("pend-new", "usr-3", "2024-04-02T00:00:00Z")) // pend-old OUTDATED
			code, out, _ := a.req(t, "POST", "/management/failed-notifications/", `{"notificationToken":"fail","target":"usr-4"}`)
			require.Equal(t, 201, code, out)
			a.clock.Add(3*24*time.Hour + time.Millisecond)
			// A terminal record received now is recent.
			code, out, _ = a.req(t, "POST", "/management/failed-notifications/", `{"notificationToken":"fail-recent","target":"usr-5"}`)
			require.Equal(t, 201, code, out)
			code, out, _ = a.req(t, "POST", "/job/cleanup-notifications", "")
			require.Equal(t, 202, code, out)
			want := []string{"pend-new", "retr"}
			if days > 0 {
				want = append(want, "fail-recent")
			}
			eventually(t, "cleanup", func() bool {
				var got []string
				for _, r := range a.all(t) {
					got = append(got, r["webhookToken"].(string))
				}
				sort.Strings(got)
				sort.Strings(want)
				return fmt.Sprint(got) == fmt.Sprint(want)
			})
		})
	}
}

// docs/http-api.md: date-range GET/DELETE.
func TestAcceptanceDateRange(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	a.post(t, accHook("r1", "usr-1", ""))
	a.clock.Add(1500 * time.Millisecond)
	a.post(t, accHook("r2", "usr-2", ""))
	a.clock.Add(time.Hour)
	a.post(t, accHook("r3", "usr-3", ""))

	get := func(q string) []string {
		code, out, _ := a.req(t, "GET", "/webhooks/notifications?"+q, "")
		require.Equal(t, 200, code, out)
		var recs []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &recs))
		var toks []string
		for _, r := range recs {
			toks = append(toks, r["webhookToken"].(string))
		}
		return toks
	}
	require.Equal(t, []string{"r1", "r2"}, get("from=2024-05-01T10:00:00&to=2024-05-01T10:00:01.500"))
	require.Equal(t, []string{"r2"}, get("from=2024-05-01T10:00:01.500Z&to=2024-05-01T10:00:01.500Z"))
	require.Equal(t, []string{"r2"}, get("from="+url.QueryEscape("2024-05-01T12:00:01.500+02:00")+"&to=2024-05-01T10:00:01.5Z"))
	require.Empty(t, get("from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z"))
	code, out, _ := a.req(t, "GET", "/webhook/notifications?from=2024-01-01T00:00:00&to=2024-05-01T10:00:00", "")
	require.Equal(t, 200, code)
	require.Contains(t, out, `"r1"`)

	for _, q := range []string{"", "from=2024-05-01T10:00:00Z", "to=2024-05-01T10:00:00Z", "from=x&to=2024-05-01T10:00:00Z",
		"from=2024-05-01T10:00:00Z&to=tomorrow", "from=&to="} {
		for _, method := range []string{"GET", "DELETE"} {
			code, out, _ := a.req(t, method, "/webhooks/notifications?"+q, "")
			require.Equal(t, 400, code, "%s %s", method, q)
			var e map[string]string
			require.NoError(t, json.Unmarshal([]byte(out), &e), out)
			require.NotEmpty(t, e["errorMessage"])
		}
	}
	for _, method := range []string{"GET", "DELETE"} {
		code, out, _ := a.req(t, method, "/webhooks/notifications?from=2024-05-01T12:30:00.900%2B02:00&to=2024-05-01T10:29:59.999", "")
		require.Equal(t, 400, code)
		require.JSONEq(t, `{"errorMessage":"[From] date [2024-05-01T10:30:00] can not be later than [To] date [2024-05-01T10:29:59]"}`, out, method)
	}
	// DELETE: inclusive, {"deleted":N}.
	code, out, _ = a.req(t, "DELETE", "/webhooks/notifications?from=2024-05-01T10:00:00Z&to=2024-05-01T10:00:01.500Z", "")
	require.Equal(t, 200, code, out)
	require.JSONEq(t, `{"deleted":2}`, out)
	code, out, _ = a.req(t, "DELETE", "/webhooks/notifications?from=2024-05-01T10:00:00Z&to=2024-05-01T10:00:01.500Z", "")
	require.Equal(t, 200, code, out)
	require.JSONEq(t, `{"deleted":0}`, out)
	require.Len(t, a.all(t), 1)
}

// docs/http-api.md: job triggers answer 202 and a trigger during a run is coalesced into
// exactly one more run.
func TestAcceptanceJobTriggersCoalesce(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
		w.WriteHeader(200)
	}))
	t.Cleanup(market.Close)
	a := accStart(t, accOpt{mut: func(c *notifications.Config) { c.MarketplaceURL = market.URL }})
	a.post(t, accHook("j1", "usr-1", "2024-05-01T01:00:00Z"))
	code, _, _ := a.req(t, "POST", "/job/process-notifications", "")
	require.Equal(t, 202, code)
	eventually(t, "the first run calls the marketplace", func() bool { mu.Lock(); defer mu.Unlock(); return calls == 1 })
	a.post(t, accHook("j2", "usr-2", "2024-05-01T02:00:00Z"))
	for range 3 {
		code, out, _ := a.req(t, "POST", "/job/process-notifications", "")
		require.Equal(t, 202, code, out)
	}
	close(release)
	eventually(t, "the follow-up run", func() bool { return a.status(t, "j2") == "SUCCESS" })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, a.svc.Stop(ctx))
	mu.Lock()
	require.Equal(t, 2, calls, "three triggers during a run make exactly one more run")
	mu.Unlock()
}

// docs/http-api.md: /health, /metrics, /datasets/notifications.
func TestAcceptanceHealthMetricsDataset(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	code, out, h := a.req(t, "GET", "/health", "")
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"status":"UP"}`, out)
	require.Contains(t, h.Get("Content-Type"), "application/json")

	a.post(t, accHook("m1", "usr-1", "2024-05-01T09:00:00Z"))
	a.post(t, accHook("m1", "usr-1", "2024-05-01T09:00:00Z"))
	a.post(t, accHook("m0", "usr-1", "2024-05-01T08:00:00Z"))
	a.clock.Add(90 * time.Second)
	a.process(t)
	code, out, h = a.req(t, "GET", "/metrics", "")
	require.Equal(t, 200, code)
	require.Contains(t, h.Get("Content-Type"), "text/plain")
	for _, want := range []string{
		`sluice_notifications_received_total{source="notifications"} 3`,
		`sluice_notifications_discarded_total{reason="duplicate",source="notifications"} 1`,
		`sluice_notifications_discarded_total{reason="obsolete",source="notifications"} 1`,
		`sluice_notifications_processed_total{outcome="retrying",source="notifications"} 1`,
		`sluice_notifications_queue_depth{source="notifications",status="PENDING"} 0`,
		`sluice_notifications_queue_depth{source="notifications",status="RETRYING"} 1`,
		"sluice_notifications_oldest_pending_age_seconds 0",
	} {
		require.Contains(t, out, want+"\n")
	}
	a.post(t, accHook("m2", "usr-2", ""))
	a.clock.Add(30 * time.Second)
	_, out, _ = a.req(t, "GET", "/metrics", "")
	require.Contains(t, out, "sluice_notifications_oldest_pending_age_seconds 30\n")

	// Dataset: ndjson default, csv, parquet; same filters; 400s.
	code, out, h = a.req(t, "GET", "/datasets/notifications", "")
	require.Equal(t, 200, code, out)
	require.Contains(t, h.Get("Content-Type"), "ndjson")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2)
	for i, l := range lines {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &r), l)
		require.Len(t, r, 12)
		require.Equal(t, []string{"m1", "m2"}[i], r["webhookToken"])
	}
	code, out, _ = a.req(t, "GET", "/datasets/notifications?format=ndjson&from=2024-05-01T10:01:00Z", "")
	require.Equal(t, 200, code)
	require.Equal(t, 1, strings.Count(out, "\n"))
	require.Contains(t, out, `"m2"`)
	code, out, _ = a.req(t, "GET", "/datasets/notifications?to=2024-05-01T10:00:00Z", "")
	require.Equal(t, 200, code)
	require.Contains(t, out, `"m1"`)
	require.NotContains(t, out, `"m2"`)
	code, out, h = a.req(t, "GET", "/datasets/notifications?format=csv", "")
	require.Equal(t, 200, code)
	require.Contains(t, h.Get("Content-Type"), "text/csv")
	require.True(t, strings.HasPrefix(out, "id,webhookToken,objectToken,creationDate,receptionDate,notificationType,status,retryCounter,lastRetryDate,nextRetryDate,program,source\n"), out)
	require.Equal(t, 3, strings.Count(out, "\n"))
	code, out, _ = a.req(t, "GET", "/datasets/notifications?format=parquet", "")
	require.Equal(t, 200, code)
	require.True(t, strings.HasPrefix(out, "PAR1") && strings.HasSuffix(out, "PAR1"))
	for _, q := range []string{"format=xml", "format=json", "from=nope", "to=2024-13-01T00:00:00Z",
		"from=2024-05-02T00:00:00Z&to=2024-05-01T00:00:00Z"} {
		code, out, _ := a.req(t, "GET", "/datasets/notifications?"+q, "")
		require.Equal(t, 400, code, q)
		require.Contains(t, out, `"errorMessage"`, q)
	}
}

// docs/http-api.md: the management API.
func TestAcceptanceManagementToggle(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	for _, c := range []struct{ method, path string }{
		{"GET", "/management/failed-notifications"}, {"GET", "/management/failed-notifications/"},
		{"GET", "/management/failed-notifications/x"}, {"PUT", "/management/failed-notifications/x/"},
		{"POST", "/management/failed-notifications/"}, {"PUT", "/management/failed-notifications"},
		{"DELETE", "/management/failed-notifications/x"}, {"POST", "/management/failed-notifications/x/retry"},
		{"GET", "/management/anything/else"}, {"GET", "/management"}, {"GET", "/management/"},
	} {
		code, out, _ := a.req(t, c.method, c.path, `{}`)
		require.Equal(t, 403, code, "%s %s", c.method, c.path)
		require.JSONEq(t, `{"errorMessage":"management API is disabled"}`, out)
	}
	// 401 before 403.
	b := accStart(t, accOpt{mut: func(c *notifications.Config) { c.APIToken = "s3cret" }})
	code, _, _ := b.req(t, "GET", "/management/failed-notifications/", "")
	require.Equal(t, 401, code)
	code, _, _ = b.req(t, "GET", "/management/failed-notifications/", "", "Authorization", "Bearer s3cret")
	require.Equal(t, 403, code)
}

func accMgmt(t *testing.T, st notifications.Store) {
	a := accStart(t, accOpt{store: st, mut: func(c *notifications.Config) { c.ManagementAPI = true }})
	dtoKeys := []string{"notificationToken", "type", "target", "program", "retryCounter", "creationDate", "status", "source"}
	checkDTO := func(out string) map[string]any {
		t.Helper()
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &d), out)
		var keys []string
		for k := range d {
			keys = append(keys, k)
		}
		require.ElementsMatch(t, dtoKeys, keys, out)
		return d
	}
	// POST: 201 FAILED, status ignored, type derived from target.
	code, out, _ := a.req(t, "POST", "/management/failed-notifications/",
		`{"notificationToken":"f1","target":"pmt-1","program":"prg-1","retryCounter":3,"creationDate":"2024-04-01T10:00:00","status":"PENDING"}`)
	require.Equal(t, 201, code, out)
	d := checkDTO(out)
	require.Equal(t, map[string]any{"notificationToken": "f1", "type": "PMT", "target": "pmt-1", "program": "prg-1",
		"retryCounter": float64(3), "creationDate": "2024-04-01T10:00:00.000Z", "status": "FAILED", "source": "notifications"}, d)
	r := a.byToken(t, "f1")
	require.Equal(t, "2024-05-01T10:00:00.000Z", r["receptionDate"], "receptionDate = now")
	code, out, _ = a.req(t, "POST", "/management/failed-notifications", `{"notificationToken":"f1"}`)
	require.Equal(t, 409, code, out)
	require.Contains(t, out, `"errorMessage"`)
	for _, body := range []string{`{"target":"usr-1"}`, `{"notificationToken":""}`, `{`, ``, `[]`, `{"notificationToken":"z","retryCounter":"x"}`,
		`{"notificationToken":"z","creationDate":"never"}`} {
		code, out, _ = a.req(t, "POST", "/management/failed-notifications", body)
		require.Equal(t, 400, code, body)
		require.Contains(t, out, `"errorMessage"`, body)
	}
	code, out, _ = a.req(t, "POST", "/management/failed-notifications", `{"notificationToken":"f2","target":"zzz-1","type":"usr","creationDate":"2024-04-03T10:00:00Z"}`)
	require.Equal(t, 201, code, out)
	require.Equal(t, "USR", checkDTO(out)["type"])
	code, out, _ = a.req(t, "POST", "/management/failed-notifications", `{"notificationToken":"f3","target":"act-1","creationDate":"2024-04-02T10:00:00Z"}`)
	require.Equal(t, 201, code, out)
	require.Equal(t, "UNK", checkDTO(out)["type"])
	a.post(t, accHook("p1", "usr-9", "2024-04-05T00:00:00Z")) // PENDING: not listed

	// GET one (any status), 404.
	code, out, _ = a.req(t, "GET", "/management/failed-notifications/p1", "")
	require.Equal(t, 200, code, out)
	require.Equal(t, "PENDING", checkDTO(out)["status"])
	code, out, _ = a.req(t, "GET", "/management/failed-notifications/f1/", "")
	require.Equal(t, 200, code, out)
	code, out, _ = a.req(t, "GET", "/management/failed-notifications/nope", "")
	require.Equal(t, 404, code, out)
	require.Contains(t, out, `"errorMessage"`)

	// The HAL page.
	type page struct {
		Embedded map[string][]map[string]any  `json:"_embedded"`
		Page     map[string]float64           `json:"page"`
		Links    map[string]map[string]string `json:"_links"`
	}
	list := func(q string) page {
		t.Helper()
		code, out, _ := a.req(t, "GET", "/management/failed-notifications/?"+q, "")
		require.Equal(t, 200, code, out)
		var p page
		require.NoError(t, json.Unmarshal([]byte(out), &p), out)
		require.Contains(t, out, `"_embedded":{"failed-notifications":[`, out)
		require.Contains(t, p.Links, "self")
		require.Contains(t, p.Links, "first")
		require.Contains(t, p.Links, "last")
		return p
	}
	toks := func(p page) []string {
		var out []string
		for _, d := range p.Embedded["failed-notifications"] {
			out = append(out, d["notificationToken"].(string))
		}
		return out
	}
	p := list("")
	require.Equal(t, []string{"f2", "f3", "f1"}, toks(p), "newest creationDate first")
	require.Equal(t, map[string]float64{"size": 20, "totalElements": 3, "totalPages": 1, "number": 0}, p.Page)
	require.NotContains(t, p.Links, "next")
	require.NotContains(t, p.Links, "prev")
	code, out, _ = a.req(t, "GET", "/management/failed-notifications?size=2&page=1", "")
	require.Equal(t, 200, code, out)
	require.NoError(t, json.Unmarshal([]byte(out), &p))
	require.Equal(t, []string{"f1"}, toks(p))
	require.Equal(t, map[string]float64{"size": 2, "totalElements": 3, "totalPages": 2, "number": 1}, p.Page)
	require.Contains(t, p.Links, "prev")
	require.NotContains(t, p.Links, "next")
	p = list("size=2&page=0")
	require.Contains(t, p.Links, "next")
	p = list("page=5")
	require.Empty(t, toks(p))
	p = list("type=FOO")
	require.Equal(t, []string{"f3"}, toks(p), "an unknown type matches UNK")
	p = list("type=usr")
	require.Equal(t, []string{"f2"}, toks(p))
	p = list("target=pmt-1")
	require.Equal(t, []string{"f1"}, toks(p))
	p = list("target=none")
	require.Empty(t, toks(p))
	require.Equal(t, float64(0), p.Page["totalElements"])
	list("size=1")
	list("size=1000")
	for _, q := range []string{"size=0", "size=1001", "size=-1", "size=x", "page=-1", "page=x", "page=1.5"} {
		code, out, _ := a.req(t, "GET", "/management/failed-notifications/?"+q, "")
		require.Equal(t, 400, code, q)
		require.Contains(t, out, `"errorMessage"`)
	}

	// PUT by token: present fields change, status never.
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/f1", `{"program":"prg-2","status":"SUCCESS"}`)
	require.Equal(t, 200, code, out)
	d = checkDTO(out)
	require.Equal(t, "prg-2", d["program"])
	require.Equal(t, "FAILED", d["status"])
	require.Equal(t, "pmt-1", d["target"])
	require.Equal(t, float64(3), d["retryCounter"])
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/p1/", `{"retryCounter":2,"creationDate":"2024-04-06T00:00:00+01:00"}`)
	require.Equal(t, 200, code, out)
	d = checkDTO(out)
	require.Equal(t, "PENDING", d["status"])
	require.Equal(t, float64(2), d["retryCounter"])
	require.Equal(t, "2024-04-05T23:00:00.000Z", d["creationDate"])
	code, _, _ = a.req(t, "PUT", "/management/failed-notifications/nope", `{"program":"x"}`)
	require.Equal(t, 404, code)
	code, _, _ = a.req(t, "PUT", "/management/failed-notifications/f1", `{"program":`)
	require.Equal(t, 400, code)

	// PUT the whole list: repeated token 400, foreign token 409, nothing changes.
	before := toks(list(""))
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/", `[{"notificationToken":"n1"},{"notificationToken":"n1"}]`)
	require.Equal(t, 400, code, out)
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/", `[{"notificationToken":"n1"},{"notificationToken":"p1"}]`)
	require.Equal(t, 409, code, out)
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/", `{"notificationToken":"n1"}`)
	require.Equal(t, 400, code, out)
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/", `null`)
	require.Equal(t, 400, code, "a null list is not an empty one: %s", out)
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications/f1", ` null `)
	require.Equal(t, 400, code, out)
	code, out, _ = a.req(t, "POST", "/management/failed-notifications/", `null`)
	require.Equal(t, 400, code, out)
	require.Equal(t, before, toks(list("")))
	require.Equal(t, "PENDING", a.status(t, "p1"))
	code, out, _ = a.req(t, "PUT", "/management/failed-notifications", `[{"notificationToken":"n1","target":"trm-1","creationDate":"2024-04-01T00:00:00Z"},{"notificationToken":"f1","target":"stk-1","creationDate":"2024-04-02T00:00:00Z"}]`)
	require.Equal(t, 200, code, out)
	require.Equal(t, []string{"f1", "n1"}, toks(list("")))
	require.Nil(t, a.byToken(t, "f2"), "replaced")
	code, out, _ = a.req(t, "GET", "/management/failed-notifications/f1", "")
	require.Equal(t, 200, code)
	require.Equal(t, "STK", checkDTO(out)["type"])

	// DELETE and retry.
	code, out, _ = a.req(t, "DELETE", "/management/failed-notifications/n1", "")
	require.Equal(t, 200, code, out)
	code, _, _ = a.req(t, "DELETE", "/management/failed-notifications/n1/", "")
	require.Equal(t, 404, code)
	code, out, _ = a.req(t, "POST", "/management/failed-notifications/f1/retry", "")
	require.Equal(t, 200, code, out)
	r = a.byToken(t, "f1")
	require.Equal(t, "PENDING", r["status"])
	require.Equal(t, float64(0), r["retryCounter"])
	require.Nil(t, r["nextRetryDate"])
	code, _, _ = a.req(t, "POST", "/management/failed-notifications/nope/retry/", "")
	require.Equal(t, 404, code)
	code, out, _ = a.req(t, "POST", "/management/failed-notifications/p1/retry", "")
	require.Equal(t, 200, code, "retry works in any status: %s", out)
	require.Equal(t, float64(0), checkDTO(out)["retryCounter"])
	require.Empty(t, toks(list("")))
}

func TestAcceptanceManagement(t *testing.T) {
	t.Parallel()
	accMgmt(t, nil)
}

func TestAcceptanceManagementPostgres(t *testing.T) {
	t.Parallel()
	accMgmt(t, openPostgres(t))
}

// docs/http-api.md: CONN_API_TOKEN guards every endpoint but intake and /health.
func TestAcceptanceAPIToken(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{mut: func(c *notifications.Config) { c.APIToken = "tok-123"; c.ManagementAPI = true }})
	a.post(t, accHook("w1", "usr-1", ""))
	code, out, _ := a.req(t, "POST", "/webhook/notifications", accHook("w2", "usr-2", ""))
	require.Equal(t, 200, code, out)
	code, _, _ = a.req(t, "GET", "/health", "")
	require.Equal(t, 200, code)
	guarded := []struct{ method, path string }{
		{"GET", "/webhooks/notifications?from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z"},
		{"DELETE", "/webhooks/notifications?from=2030-01-01T00:00:00Z&to=2030-01-01T00:00:00Z"},
		{"GET", "/webhook/notifications?from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z"},
		{"POST", "/job/process-notifications"}, {"POST", "/job/cleanup-notifications"},
		{"GET", "/metrics"}, {"GET", "/datasets/notifications"},
		{"GET", "/management/failed-notifications/"}, {"GET", "/management/failed-notifications/w1"},
	}
	for _, g := range guarded {
		for _, auth := range []string{"", "Bearer wrong", "tok-123", "Basic tok-123"} {
			var h []string
			if auth != "" {
				h = []string{"Authorization", auth}
			}
			code, out, _ := a.req(t, g.method, g.path, "", h...)
			require.Equal(t, 401, code, "%s %s %q", g.method, g.path, auth)
			require.Contains(t, out, `"errorMessage"`)
		}
		code, out, _ := a.req(t, g.method, g.path, "", "Authorization", "Bearer tok-123")
		require.Contains(t, []int{200, 202}, code, "%s %s: %s", g.method, g.path, out)
	}
}

// docs/environment.md: every variable and its default; invalid values name the variable.
func TestAcceptanceConfigFromEnv(t *testing.T) {
	t.Parallel()
	c, err := notifications.ConfigFromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Equal(t, 5, c.MaxAttempts)
	require.Equal(t, time.Minute, c.InitialRetryDelay)
	require.Equal(t, 2.0, c.BackoffMultiplier)
	require.Equal(t, "0/30 * * * * ?", c.ProcessingCron)
	require.Equal(t, 100, c.BatchSize)
	require.Equal(t, "0 0 1 * * ?", c.CleanupCron)
	require.Equal(t, 90, c.RetentionDays)
	require.Equal(t, "127.0.0.1:8080", c.Addr) // loopback by default since issue 11
	require.Equal(t, "sqlite:.sluice/notifications.db", c.Store)
	require.Equal(t, 1<<20, c.MaxBodyBytes)
	require.Equal(t, 10*time.Second, c.DownstreamTimeout)
	require.False(t, c.Drain)
	require.Equal(t, 1, c.Concurrency)
	require.False(t, c.ManagementAPI)
	require.Empty(t, c.APIToken)
	require.Equal(t, 25, c.Mail.Port)
	require.Equal(t, "auto", c.Mail.StartTLS)
	require.Empty(t, c.Mail.Host)

	env := map[string]string{
		"CONN_ADDR": "127.0.0.1:9000", "CONN_STORE": "postgres://u@h/db", "CONN_MAX_BODY_BYTES": "10",
		"CONN_MARKETPLACE_URL": "http://m.example/x", "PROVIDER_API_URL": "https://p.example/api",
		"CONN_DOWNSTREAM_TIMEOUT": "PT2.5S", "CONN_PROCESSING_DRAIN": "true", "CONN_PROCESSING_CONCURRENCY": "4",
		"CONN_TOGGLE_FEATURES_MANAGEMENT_API": "true", "CONN_API_TOKEN": "t",
		"CONN_MAIL_SMTP_HOST": "mail.example", "CONN_MAIL_SMTP_PORT": "2525", "CONN_MAIL_SMTP_USERNAME": "u",
		"CONN_MAIL_SMTP_PASSWORD": "p", "CONN_MAIL_SMTP_STARTTLS": "true", "CONN_MAIL_FROM": "a@b.c",
		"CONN_MAIL_RECIPIENT":                         "x@y.z, w@y.z",
		"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES": "1", "PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY": "90s",
		"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER":    "1.5",
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off", "PROVIDER_NOTIFICATIONS_BATCH_SIZE": "7",
		"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION": "0 15 2 ? * MON-FRI",
		"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS":  "0",
	}
	c, err = notifications.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, 2500*time.Millisecond, c.DownstreamTimeout)
	require.Equal(t, 90*time.Second, c.InitialRetryDelay)
	require.Equal(t, []string{"x@y.z", "w@y.z"}, c.Mail.Recipients)
	require.Equal(t, 0, c.RetentionDays)
	require.Equal(t, 1, c.MaxAttempts)
	require.True(t, c.Drain)
	require.Equal(t, 4, c.Concurrency)

	bad := map[string][]string{
		"CONN_ADDR":                                      {"nohost", "127.0.0.1:99999", "127.0.0.1:-1"},
		"CONN_STORE":                                     {"mysql://x"},
		"CONN_MAX_BODY_BYTES":                            {"1MB", "0", "-1"},
		"CONN_MARKETPLACE_URL":                           {"ftp://x", "not a url"},
		"PROVIDER_API_URL":                               {"x"},
		"CONN_DOWNSTREAM_TIMEOUT":                        {"ten", "0s", "-1s"},
		"CONN_PROCESSING_DRAIN":                          {"yes please"},
		"CONN_PROCESSING_CONCURRENCY":                    {"0", "many"},
		"CONN_TOGGLE_FEATURES_MANAGEMENT_API":            {"enabled"},
		"CONN_MAIL_SMTP_PORT":                            {"smtp", "0", "70000"},
		"CONN_API_TOKEN":                                 {" tok", "tok\n"},
		"CONN_MAIL_SMTP_HOST":                            {"smtp://mail.example", "mail example"},
		"CONN_MAIL_FROM":                                 {"nobody", "a@b.c\r\nBcc: x@y.z"},
		"CONN_MAIL_SMTP_STARTTLS":                        {"maybe"},
		"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES":    {"0", "-1", "five"},
		"PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY":      {"1 minute", "P1X"},
		"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER": {"double", "0.5", "NaN"},
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": {"* * * * *", "0 0 0 L * ?", "0 0 0 ? * 2#1",
			"0 0 0 15W * ?", "0 0 0 * * ? 2025", "0 0 0 ? * 6L", "never", "@every 1m"},
		"PROVIDER_NOTIFICATIONS_BATCH_SIZE":              {"0", "lots"},
		"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION": {"0 0 1 * * ? *", "0 0 1 L * ?"},
		"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS":  {"-1", "ninety"},
	}
	for name, values := range bad {
		for _, v := range values {
			_, err := notifications.ConfigFromEnv(func(k string) string {
				if k == name {
					return v
				}
				return ""
			})
			require.Error(t, err, "%s=%q", name, v)
			require.Contains(t, err.Error(), name, "%s=%q", name, v)
		}
	}
	// Cron: ? and off accepted; Quartz forms.
	for _, expr := range []string{"0/30 * * * * ?", "0 0 1 * * ?", "0 0 12 ? * WED", "0 0/5 14,18 * * ?", "0 15 10 ? * 2-6", "*/10 * * * * *", "off", "OFF"} {
		_, err := notifications.ParseCron(expr)
		require.NoError(t, err, expr)
	}
	// Durations in both forms.
	for _, d := range []struct {
		v    string
		want time.Duration
	}{{"PT1M", time.Minute}, {"1m", time.Minute}, {"PT10S", 10 * time.Second}, {"10s", 10 * time.Second}, {"PT1H30M", 90 * time.Minute}, {"1h30m", 90 * time.Minute}, {"PT0.5S", 500 * time.Millisecond}} {
		c, err := notifications.ConfigFromEnv(func(k string) string {
			if k == "PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY" || k == "CONN_DOWNSTREAM_TIMEOUT" {
				return d.v
			}
			return ""
		})
		require.NoError(t, err, d.v)
		require.Equal(t, d.want, c.InitialRetryDelay, d.v)
		require.Equal(t, d.want, c.DownstreamTimeout, d.v)
	}
}

// docs/http-api.md#processing and the README store section: one processing run at a time across sidecars sharing a store.
func accOneRunAcrossSidecars(t *testing.T, open func() notifications.Store) {
	release := make(chan struct{})
	entered := make(chan struct{}, 16)
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
	}))
	t.Cleanup(market.Close)
	mut := func(c *notifications.Config) { c.MarketplaceURL = market.URL }
	a := accStart(t, accOpt{store: open(), mut: mut})
	b := accStart(t, accOpt{store: open(), mut: mut})
	a.post(t, accHook("s1", "usr-1", "2024-05-01T01:00:00Z"))
	b.post(t, accHook("s2", "usr-2", "2024-05-01T02:00:00Z"))
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := a.svc.RunProcessing(ctx)
		done <- err
	}()
	select {
	case <-entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the first run did not reach the marketplace")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := b.svc.RunProcessing(ctx)
	require.ErrorIs(t, err, notifications.ErrLocked, "the other sidecar's run holds the job")
	close(release)
	require.NoError(t, <-done)
	require.Equal(t, "SUCCESS", a.status(t, "s1"))
	require.Equal(t, "SUCCESS", b.status(t, "s2"))
}

func TestAcceptanceOneRunAcrossSidecars(t *testing.T) {
	t.Parallel()
	path := "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
	accOneRunAcrossSidecars(t, func() notifications.Store {
		st, err := sqlstore.Open(context.Background(), path)
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		return st
	})
}

func TestAcceptanceOneRunAcrossSidecarsPostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)
	// Two stores (two sidecars) on one database.
	accOneRunAcrossSidecars(t, func() notifications.Store {
		st, err := sqlstore.Open(context.Background(), dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		return st
	})
}

// docs/http-api.md#e-mail-alert: a mail failure is logged and never changes the record.
func TestAcceptanceMailFailureKeepsRecord(t *testing.T) {
	t.Parallel()
	m := newAccMarket(t)
	m.setCode(500)
	a := accStart(t, accOpt{mut: func(c *notifications.Config) {
		c.MarketplaceURL = m.srv.URL
		c.MaxAttempts = 1
		c.Mail.Host = "127.0.0.1"
		c.Mail.Port = 1 // nothing listens there
		c.Mail.Recipients = []string{"ops@example.com"}
	}})
	a.post(t, accHook("wbh-m", "usr-1", ""))
	a.process(t)
	r := a.byToken(t, "wbh-m")
	require.Equal(t, "FAILED", r["status"])
	require.Equal(t, float64(1), r["retryCounter"])
	require.Nil(t, r["nextRetryDate"])
}

// Deliveries without an object are unrelated: the obsolete and supersede
// rules compare records of one objectToken, and there is none.
func TestAcceptanceObjectlessDeliveriesAreUnrelated(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	a.post(t, `{"token":"n1","createdOn":"2024-05-01T08:00:00Z"}`)
	a.post(t, `{"token":"n2","createdOn":"2024-05-01T09:00:00Z","object":{"programToken":"prg-1"}}`)
	a.post(t, `{"token":"n0","createdOn":"2024-05-01T07:00:00Z","object":null}`)
	for _, tok := range []string{"n0", "n1", "n2"} {
		r := a.byToken(t, tok)
		require.NotNil(t, r, "%s stored", tok)
		require.Equal(t, "PENDING", r["status"], tok)
	}
}

func TestAcceptanceConcurrentDuplicatesPostgres(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{store: openPostgres(t)})
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := accClient.Post(a.base+"/webhooks/notifications", "application/json",
				strings.NewReader(accHook("wbh-same", "usr-1", "2024-05-01T09:00:00Z")))
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	for _, c := range codes {
		require.Equal(t, 200, c)
	}
	require.Len(t, a.all(t), 1)
}

// docs/http-api.md: CONN_PROCESSING_CONCURRENCY runs different objectTokens in parallel;
// one objectToken's records never overlap and keep their order.
func TestAcceptanceProcessingConcurrency(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	active := map[string]int{}
	overlap := false
	var order []string
	bothIn := make(chan struct{})
	var once sync.Once
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v struct {
			Notification struct {
				WebhookToken string `json:"webhookToken"`
				ObjectToken  string `json:"objectToken"`
			} `json:"notification"`
		}
		_ = json.NewDecoder(r.Body).Decode(&v)
		obj := v.Notification.ObjectToken
		mu.Lock()
		active[obj]++
		if active[obj] > 1 {
			overlap = true
		}
		order = append(order, v.Notification.WebhookToken)
		if active["usr-a"] > 0 && active["usr-b"] > 0 {
			once.Do(func() { close(bothIn) })
		}
		mu.Unlock()
		if obj == "usr-a" || obj == "usr-b" {
			// Each waits for the other: only parallel processing gets past.
			select {
			case <-bothIn:
			case <-time.After(15 * time.Second):
				w.WriteHeader(504)
				mu.Lock()
				active[obj]--
				mu.Unlock()
				return
			}
		}
		mu.Lock()
		active[obj]--
		mu.Unlock()
	}))
	t.Cleanup(market.Close)
	a := accStart(t, accOpt{mut: func(c *notifications.Config) {
		c.MarketplaceURL = market.URL
		c.Concurrency = 4
	}})
	// Equal creationDates: neither supersedes the other, both stay live.
	a.post(t, accHook("a1", "usr-a", "2024-05-01T01:00:00Z"))
	a.post(t, accHook("a2", "usr-a", "2024-05-01T01:00:00Z"))
	a.post(t, accHook("b1", "usr-b", "2024-05-01T01:00:01Z"))
	a.process(t)
	for _, tok := range []string{"a1", "a2", "b1"} {
		require.Equal(t, "SUCCESS", a.status(t, tok), "%s: objectTokens processed in parallel", tok)
	}
	mu.Lock()
	defer mu.Unlock()
	require.False(t, overlap, "one objectToken's records never overlap")
	var as []string
	for _, tok := range order {
		if strings.HasPrefix(tok, "a") {
			as = append(as, tok)
		}
	}
	require.Equal(t, []string{"a1", "a2"}, as, "one objectToken's records keep their order")
}

// docs/http-api.md#processing: 2xx = success, anything else a failure: a redirect answer too (it
// is not followed into a GET that would look like a success).
func TestAcceptanceMarketplaceRedirectIsFailure(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/in" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(200)
	}))
	t.Cleanup(market.Close)
	a := accStart(t, accOpt{mut: func(c *notifications.Config) { c.MarketplaceURL = market.URL + "/in" }})
	a.post(t, accHook("wbh-r", "usr-1", ""))
	a.process(t)
	require.Equal(t, "RETRYING", a.status(t, "wbh-r"))
	mu.Lock()
	require.Equal(t, []string{"POST /in"}, got)
	mu.Unlock()
}

// docs/http-api.md#intake/the README store section: identical deliveries reaching two sidecars that share one SQLite
// file at the same time store exactly one record; a later one and an older
// one racing on the same object keep the rules too.
func TestAcceptanceDuplicatesAcrossSidecars(t *testing.T) {
	t.Parallel()
	path := "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
	open := func() notifications.Store {
		st, err := sqlstore.Open(context.Background(), path)
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	sidecars := []*accSidecar{accStart(t, accOpt{store: open()}), accStart(t, accOpt{store: open()})}
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := accHook(fmt.Sprintf("wbh-%d", i%2), "usr-1", "2024-05-01T09:00:00Z")
			if i%2 == 1 {
				body = accHook("wbh-1", "usr-1", "2024-05-01T10:00:00Z")
			}
			resp, err := accClient.Post(sidecars[i%2].base+"/webhooks/notifications", "application/json", strings.NewReader(body))
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	for _, c := range codes {
		require.Equal(t, 200, c)
	}
	recs := sidecars[0].all(t)
	status := map[string]string{}
	for _, r := range recs {
		status[r["webhookToken"].(string)] = r["status"].(string)
	}
	require.Equal(t, "PENDING", status["wbh-1"], "the later delivery is live")
	// wbh-0 (older) is either discarded (arrived after wbh-1) or OUTDATED.
	if s, ok := status["wbh-0"]; ok {
		require.Equal(t, "OUTDATED", s)
	}
	require.LessOrEqual(t, len(recs), 2)
}

// A graceful stop does not wait for connections that never sent a request
// (HTTP clients keep spares open): it returns once in-flight work is done.
func TestAcceptanceStopWithUnusedConnection(t *testing.T) {
	t.Parallel()
	a := accStart(t, accOpt{})
	a.post(t, accHook("w1", "usr-1", ""))
	conn, err := net.Dial("tcp", strings.TrimPrefix(a.base, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	require.NoError(t, a.svc.Stop(ctx), "an unused connection does not hold the shutdown until ReadTimeout (30 s)")
}
