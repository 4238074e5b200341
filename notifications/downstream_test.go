package notifications_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// statusServer answers every call with status (and Retry-After when set).
func statusServer(t *testing.T, status func(token string) (int, string)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		code, retryAfter := status(r.Header.Get("X-Sluice-Webhook-Token"))
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestDefaultsKeepPlainBackoff(t *testing.T) {
	t.Parallel()
	cfg := notifications.DefaultConfig()
	require.False(t, cfg.FailFast4xx)
	require.Zero(t, cfg.RetryJitter)
	require.Zero(t, cfg.BreakerFailures)
	srv, _ := statusServer(t, func(string) (int, string) { return 400, "" })
	cfg = testConfig()
	cfg.MarketplaceURL = srv.URL
	clk := newClock()
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	deliver(t, svc, "wbh-1", "usr-1", "")
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	r := mustGet(t, st, "wbh-1")
	require.Equal(t, notifications.StatusRetrying, r.Status, "a 4xx retries unless CONN_FAIL_FAST_4XX")
	require.Equal(t, clk.Now().Add(time.Minute), *r.NextRetryDate)
}

func TestFailFast4xx(t *testing.T) {
	t.Parallel()
	codes := map[string]int{"wbh-400": 400, "wbh-404": 404, "wbh-408": 408, "wbh-409": 409, "wbh-425": 425, "wbh-429": 429, "wbh-500": 500}
	srv, _ := statusServer(t, func(tok string) (int, string) { return codes[tok], "" })
	cfg := testConfig()
	cfg.MarketplaceURL = srv.URL
	cfg.FailFast4xx = true
	cfg.BatchSize = 100
	st := openStore(t)
	svc := newService(t, cfg, st)
	for tok := range codes {
		deliver(t, svc, tok, "usr-"+tok, "")
	}
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	for tok, code := range codes {
		want := notifications.StatusRetrying
		if code == 400 || code == 404 {
			want = notifications.StatusFailed
		}
		r := mustGet(t, st, tok)
		require.Equal(t, want, r.Status, tok)
		require.Equal(t, 1, r.RetryCounter, tok)
	}
}

func TestRetryAfterAndJitter(t *testing.T) {
	t.Parallel()
	srv, _ := statusServer(t, func(tok string) (int, string) {
		switch {
		case tok == "wbh-429":
			return 429, "3600"
		case tok == "wbh-503":
			return 503, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).Format(http.TimeFormat)
		case tok == "wbh-500":
			return 500, "3600" // only 429 and 503 are read
		}
		return 500, ""
	})
	cfg := testConfig()
	cfg.MarketplaceURL = srv.URL
	cfg.RetryJitter = 0.5
	cfg.BatchSize = 100
	clk := newClock()
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	for _, tok := range []string{"wbh-429", "wbh-503", "wbh-500"} {
		deliver(t, svc, tok, "usr-"+tok, "")
	}
	for i := range 20 {
		deliver(t, svc, fmt.Sprintf("wbh-j%d", i), fmt.Sprintf("usr-j%d", i), "")
	}
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	now := clk.Now()
	require.Equal(t, now.Add(time.Hour), *mustGet(t, st, "wbh-429").NextRetryDate)
	// The HTTP date is read against the real clock: at least the back-off.
	require.False(t, mustGet(t, st, "wbh-503").NextRetryDate.Before(now.Add(30*time.Second)))
	spread := map[time.Duration]bool{}
	for i := range 20 {
		d := mustGet(t, st, fmt.Sprintf("wbh-j%d", i)).NextRetryDate.Sub(now)
		require.GreaterOrEqual(t, d, 30*time.Second)
		require.LessOrEqual(t, d, 90*time.Second)
		spread[d] = true
	}
	require.Greater(t, len(spread), 1, "jitter spreads the delays")
	d := mustGet(t, st, "wbh-500").NextRetryDate.Sub(now)
	require.LessOrEqual(t, d, 90*time.Second)
}

func TestCircuitBreaker(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	srv, calls := statusServer(t, func(string) (int, string) {
		if failing.Load() {
			return 503, ""
		}
		return 200, ""
	})
	cfg := testConfig()
	cfg.MarketplaceURL = srv.URL
	cfg.BreakerFailures = 2
	cfg.BreakerCooldown = time.Hour
	st := openStore(t)
	svc := newService(t, cfg, st)
	for i := range 5 {
		deliver(t, svc, fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), fmt.Sprintf("2024-05-01T09:00:0%dZ", i))
	}
	stats, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, stats.Retrying)
	require.Equal(t, 3, stats.Deferred)
	require.EqualValues(t, 2, calls.Load(), "no call while the breaker is open")
	for i := 2; i < 5; i++ {
		r := mustGet(t, st, fmt.Sprintf("wbh-%d", i))
		require.Equal(t, notifications.StatusPending, r.Status, "left as it was")
		require.Zero(t, r.RetryCounter, "not counted as an attempt")
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	code, body := do(t, svc, "GET", "/health", "")
	require.Equal(t, 200, code)
	require.Contains(t, body, `"downstream":{"`+host+`":{"state":"OPEN"`)
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_downstream_breaker_open{host="`+host+`"} 1`)
	require.Contains(t, metrics, `sluice_notifications_attempts_total{outcome="retrying",source="notifications",type="USR"} 2`)
	require.Contains(t, metrics, "sluice_processing_duration_seconds_count 2")
	require.Contains(t, metrics, `sluice_intake_duration_seconds_count{source="notifications"} 5`)
}
