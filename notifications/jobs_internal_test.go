package notifications

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/internal/metrics"
	"github.com/sluicedata/sluice/notifications/queue"
)

func TestBreaker(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	var changes []string
	b := newBreaker(3, 30*time.Second, func() time.Time { return now }, func(host string, open bool) {
		changes = append(changes, fmt.Sprintf("%s:%v", host, open))
	})
	for range 2 {
		b.record("m.example", false)
	}
	require.True(t, b.allow("m.example"))
	b.record("m.example", true) // a success resets the count
	for range 2 {
		b.record("m.example", false)
	}
	require.True(t, b.allow("m.example"))
	b.record("m.example", false)
	require.False(t, b.allow("m.example"), "open after 3 consecutive failures")
	require.True(t, b.allow("other.example"), "per host")
	require.Equal(t, map[string]time.Time{"m.example": now.Add(30 * time.Second)}, b.open())
	now = now.Add(31 * time.Second)
	require.True(t, b.allow("m.example"), "half open after the cooldown")
	b.record("m.example", false)
	require.False(t, b.allow("m.example"), "one more failure opens it again")
	require.Equal(t, []string{"m.example:true", "m.example:false", "m.example:true"}, changes)

	off := newBreaker(0, time.Second, time.Now, func(string, bool) { t.Fatal("no change when off") })
	for range 10 {
		off.record("m.example", false)
	}
	require.True(t, off.allow("m.example"))
}

// The marketplace handler: one POST, 2xx is success with its status; a
// refusal keeps the status and the body's size, never the body; redirects
// are not followed.
func TestMarketplaceHandler(t *testing.T) {
	t.Parallel()
	var got struct {
		body  string
		token string
		ctype string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.body, got.token, got.ctype = string(b), r.Header.Get("X-Sluice-Webhook-Token"), r.Header.Get("Content-Type")
		switch r.URL.Path {
		case "/ok":
			w.WriteHeader(202)
		case "/refuse":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(503)
			_, _ = io.WriteString(w, "maintenance: "+r.URL.Query().Get("key"))
		case "/move":
			http.Redirect(w, r, "/ok", http.StatusFound)
		}
	}))
	t.Cleanup(srv.Close)
	rec := &queue.Record{ID: 1, Source: "acme", WebhookToken: "msg\x01", NotificationType: "invoice.paid", Status: queue.StatusPending}
	h := &MarketplaceHandler{URL: srv.URL + "/ok", Client: srv.Client()}
	status, err := h.HandleStatus(context.Background(), rec, []byte(`{"a":1}`))
	require.NoError(t, err)
	require.Equal(t, 202, status)
	require.Equal(t, "application/json", got.ctype)
	require.Equal(t, "msg%01", got.token, "a control character is escaped in the header")
	require.JSONEq(t, `{"notification":`+string(queue.AppendRecordJSON(nil, rec))+`,"payload":{"a":1}}`, got.body)
	_, _ = h.HandleStatus(context.Background(), rec, nil)
	require.Contains(t, got.body, `"payload":null`)

	h.URL = srv.URL + "/refuse?key=s3cr3t-value"
	status, err = h.HandleStatus(context.Background(), rec, nil)
	require.Equal(t, 503, status)
	var de *DownstreamError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 503, de.StatusCode)
	require.Equal(t, 2*time.Minute, de.RetryAfter)
	require.Equal(t, "marketplace answered 503 (25-byte body)", err.Error())

	h.URL = srv.URL + "/move"
	status, err = h.HandleStatus(context.Background(), rec, nil)
	require.Equal(t, 302, status, "a redirect is not followed: only a 2xx to this POST succeeds")
	require.Error(t, err)

	_, err = (&MarketplaceHandler{Client: srv.Client()}).HandleStatus(context.Background(), rec, nil)
	require.ErrorIs(t, err, ErrNoMarketplace)

	// A transport error names no password and no query value.
	h.URL = "http://user:pa55word@127.0.0.1:1/x?token=abc123"
	_, err = h.HandleStatus(context.Background(), rec, nil)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "pa55word")
	require.NotContains(t, err.Error(), "abc123")
}

func TestDownstreamBodyOverLimit(t *testing.T) {
	t.Parallel()
	resp := &http.Response{StatusCode: 500, Body: io.NopCloser(strings.NewReader(strings.Repeat("x", countedBody+10)))}
	e := downstreamError("provider API", resp)
	require.Equal(t, fmt.Sprintf("provider API answered 500 (body over %d bytes)", countedBody), e.Error())
}

func TestDownstreamHelpers(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	require.Equal(t, 30*time.Second, parseRetryAfter("30", now))
	require.Equal(t, 24*time.Hour, parseRetryAfter("999999", now), "at most a day")
	require.Equal(t, time.Minute, parseRetryAfter(now.Add(time.Minute).Format(http.TimeFormat), now))
	require.Zero(t, parseRetryAfter("soon", now))
	require.Zero(t, parseRetryAfter("-5", now))

	u, err := providerURL("https://api.example/v1?tenant=t1", "wbh-1")
	require.NoError(t, err)
	require.Equal(t, "https://api.example/v1/webhook-notifications/wbh-1?tenant=t1", u, "the base's query stays after the path")

	red := urlRedactor("https://u:pw-123@api.example/x?key=k-secret&a=1")
	err = redactURLError(&url.Error{Op: "Get", URL: "https://u:pw-123@api.example/x?key=k-secret", Err: errors.New("echo k-secret")}, red)
	require.NotContains(t, err.Error(), "k-secret")
	require.NotContains(t, err.Error(), "pw-123")
	require.Contains(t, err.Error(), "api.example")

	first, _ := http.NewRequest("GET", "https://a.example/x", nil)
	next, _ := http.NewRequest("GET", "https://b.example/y", nil)
	next.Header.Set("Authorization", "Bearer t")
	next.Header.Set("Referer", "https://a.example/x?key=1")
	require.NoError(t, stripOnRedirect(next, []*http.Request{first}))
	require.Empty(t, next.Header.Get("Authorization"), "no credentials to another host")
	require.Empty(t, next.Header.Get("Referer"))
}

func testRunner(t *testing.T, cfg runnerConfig, d runnerDeps) *runner {
	t.Helper()
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	d.Now, d.Stopping = time.Now, func() bool { return false }
	d.Metrics = metrics.New(metrics.Source{Ctx: context.Background(), Now: time.Now, Log: d.Log,
		Stats: func(context.Context) (queue.Stats, error) { return queue.Stats{}, nil }})
	return newRunner(cfg, d)
}

type named string

func (n named) Handle(context.Context, *queue.Record, []byte) error { return nil }

// A record's handler: its source and type's, its source's for every type,
// its source's marketplace, else the fallback.
func TestHandlerFor(t *testing.T) {
	t.Parallel()
	r := testRunner(t, runnerConfig{}, runnerDeps{
		Handlers: map[string]Handler{"pmt": named("hmc-pmt")},
		Sources:  map[string]Handler{"acme": named("acme-market")},
		Fallback: named("fallback"),
	})
	r.HandleSource("acme", "invoice.voided", named("acme-voided"))
	r.HandleSource("ops", "", named("ops-all"))
	for _, tt := range []struct {
		source, typ string
		want        named
	}{
		{"", "PMT", "hmc-pmt"}, {queue.DefaultSource, "PMT", "hmc-pmt"}, {"", "USR", "fallback"},
		{"acme", "invoice.voided", "acme-voided"}, {"acme", "invoice.paid", "acme-market"},
		{"ops", "anything", "ops-all"}, {"other", "PMT", "fallback"},
	} {
		require.Equal(t, tt.want, r.handlerFor(&queue.Record{Source: tt.source, NotificationType: tt.typ}), "%+v", tt)
	}
	r.Handle("PMT", nil)
	require.Equal(t, named("fallback"), r.handlerFor(&queue.Record{NotificationType: "PMT"}))
	r.HandleSource("ops", "", nil)
	require.Equal(t, named("fallback"), r.handlerFor(&queue.Record{Source: "ops", NotificationType: "x"}))
}

func TestRetryRules(t *testing.T) {
	t.Parallel()
	r := testRunner(t, runnerConfig{InitialRetryDelay: time.Minute, BackoffMultiplier: 2, FailFast4xx: true, RetryJitter: 0.5}, runnerDeps{})
	for range 50 {
		d := r.retryDelay(2, errors.New("x"))
		require.GreaterOrEqual(t, d, time.Minute)
		require.LessOrEqual(t, d, 3*time.Minute)
	}
	require.Equal(t, time.Hour, r.retryDelay(1, &DownstreamError{StatusCode: 429, RetryAfter: time.Hour}), "never earlier than Retry-After")
	for code, want := range map[int]bool{400: true, 404: true, 422: true, 408: false, 409: false, 425: false, 429: false, 500: false} {
		require.Equal(t, want, r.failFast(&DownstreamError{StatusCode: code}), code)
	}
	require.True(t, isDownstreamFailure(&DownstreamError{StatusCode: 502}))
	require.False(t, isDownstreamFailure(&DownstreamError{StatusCode: 400}))
	require.True(t, isDownstreamFailure(&url.Error{Op: "Post", URL: "http://x", Err: errors.New("refused")}))
	require.False(t, isDownstreamFailure(nil))
}

// An attempt keeps the status of a success too, and an error redacted
// before it is cut.
func TestAttemptOf(t *testing.T) {
	t.Parallel()
	r := testRunner(t, runnerConfig{Secrets: map[string]string{"conn.api.token": "tok-12345"}}, runnerDeps{})
	start := time.Date(2024, 5, 1, 10, 0, 0, 123456789, time.UTC)
	a := r.attemptOf(&queue.Record{Status: queue.StatusSuccess}, start, 42*time.Millisecond, 204, nil)
	require.Equal(t, &queue.Attempt{At: queue.Truncate(start), Outcome: queue.OutcomeSuccess, HTTPStatus: 204, DurationMS: 42}, a)
	a = r.attemptOf(&queue.Record{Status: queue.StatusRetrying}, start, time.Second, 0,
		fmt.Errorf("handler said tok-12345 %s", strings.Repeat("x", 2000)))
	require.Equal(t, queue.OutcomeRetrying, a.Outcome)
	require.NotContains(t, a.Error, "tok-12345")
	require.LessOrEqual(t, len(a.Error), queue.MaxAttemptError)
	a = r.attemptOf(&queue.Record{Status: queue.StatusFailed}, start, time.Second, 0, &DownstreamError{What: "marketplace", StatusCode: 410})
	require.Equal(t, 410, a.HTTPStatus)
	require.Equal(t, "marketplace answered 410 (0-byte body)", a.Error)
}

func TestAlertText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "[CONN] Technical error occurred when processing the notification wbh-1", AlertSubject("wbh-1"))
	require.Contains(t, AlertBody("wbh-1", 5), "The maximum number of attempts (5) has been reached")
	m := &mailer{cfg: MailConfig{From: "sluice@ops.example", Recipients: []string{"a@x.example", "b@x.example"}}, now: time.Now}
	msg := string(m.message("subject\r\nBcc: evil@x", "line 1\nline 2"))
	require.Contains(t, msg, "Subject: subject  Bcc: evil@x\r\n", "no header injection")
	require.Contains(t, msg, "To: a@x.example, b@x.example\r\n")
	require.Contains(t, msg, "line 1\r\nline 2\r\n")
	require.Contains(t, msg, "@ops.example>")
}
