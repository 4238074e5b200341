package notifications_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// openPostgres opens a store in a scratch schema of SLUICE_TEST_POSTGRES_DSN
// (dropped after the test), or skips.
func openPostgres(t *testing.T) notifications.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := sqlstore.Open(ctx, storetest.PostgresDSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// The service's rules hold on Postgres too: intake rules, back-off to
// FAILED with one mail, management, date range and dataset.
func TestServiceOnPostgres(t *testing.T) {
	t.Parallel()
	st := openPostgres(t)
	m := newMarketplace(t)
	m.setStatus(func(tok string) int {
		if tok == "wbh-bad" {
			return 500
		}
		return 200
	})
	smtp := newSMTPServer(t, false, "")
	clk := newClock()
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.MaxAttempts = 2
	cfg.Concurrency = 4
	cfg.Drain = true
	cfg.ManagementAPI = true
	cfg.Mail.Host, cfg.Mail.Port, cfg.Mail.Recipients = "127.0.0.1", smtp.port(), []string{"ops@example.com"}
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	ctx := context.Background()

	deliver(t, svc, "wbh-old", "usr-1", "2024-05-01T09:00:00Z")
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T09:01:00Z")
	deliver(t, svc, "wbh-older", "usr-1", "2024-05-01T08:00:00Z")
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T09:01:00Z")
	deliver(t, svc, "wbh-bad", "pmt-1", "2024-05-01T09:02:00Z")
	require.Equal(t, notifications.StatusOutdated, mustGet(t, st, "wbh-old").Status)
	_, err := st.Get(ctx, "wbh-older")
	require.ErrorIs(t, err, notifications.ErrNotFound)

	stats, err := svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Succeeded)
	require.Equal(t, 1, stats.Retrying)
	bad := mustGet(t, st, "wbh-bad")
	require.Equal(t, notifications.StatusRetrying, bad.Status)
	require.Equal(t, notifications.Truncate(clk.Now()).Add(time.Minute), *bad.NextRetryDate)
	clk.Add(time.Minute)
	stats, err = svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Failed)
	require.Len(t, smtp.messages(), 1)
	require.Contains(t, smtp.messages()[0].Data, "notification wbh-bad\r\n")

	p := getPage(t, svc, "?type=PMT")
	require.EqualValues(t, 1, p.Page.TotalElements)
	code, _ := do(t, svc, "POST", "/management/failed-notifications/wbh-bad/retry", "")
	require.Equal(t, 200, code)
	m.setStatus(func(string) int { return 200 })
	stats, err = svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Succeeded)

	code, body := do(t, svc, "GET", "/webhooks/notifications?from=2024-05-01T10:00:00Z&to=2024-05-01T10:00:00Z", "")
	require.Equal(t, 200, code)
	require.Len(t, tokensOf(t, body), 3)
	code, body = do(t, svc, "GET", "/datasets/notifications?format=ndjson", "")
	require.Equal(t, 200, code)
	require.Len(t, strings.Split(strings.TrimSpace(body), "\n"), 3)
	code, _ = do(t, svc, "GET", "/health", "")
	require.Equal(t, 200, code)
}
