package notifications_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

func TestProcessingEligibilityOrderAndBatchSize(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.BatchSize = 2
	st := openStore(t)
	svc := newService(t, cfg, st)
	ctx := context.Background()

	deliver(t, svc, "wbh-c", "usr-3", "2024-05-01T09:00:03Z")
	deliver(t, svc, "wbh-a", "usr-1", "2024-05-01T09:00:01Z")
	deliver(t, svc, "wbh-b", "stk-2", "2024-05-01T09:00:02Z")
	deliver(t, svc, "wbh-old", "usr-1", "2024-05-01T09:00:00Z") // obsolete: never processed

	st1, err := svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, st1.Batches)
	require.Equal(t, 2, st1.Succeeded)
	require.Equal(t, []string{"wbh-a", "wbh-b"}, m.tokens(), "ascending creationDate, batch size 2")

	_, err = svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"wbh-a", "wbh-b", "wbh-c"}, m.tokens())
	st3, err := svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Zero(t, st3.Claimed, "terminal records are never touched again")

	rec := mustGet(t, st, "wbh-a")
	require.Equal(t, notifications.StatusSuccess, rec.Status)
	require.Zero(t, rec.RetryCounter)
	require.Nil(t, rec.LastRetryDate)

	// The marketplace got {"notification":{record},"payload":{body}}.
	m.mu.Lock()
	call := m.calls[0]
	m.mu.Unlock()
	require.Equal(t, "wbh-a", call.Notification.WebhookToken)
	require.Equal(t, "usr-1", call.Notification.ObjectToken)
	require.Equal(t, "USR", call.Notification.NotificationType)
	require.Equal(t, "prg-1", call.Notification.Program)
	require.Equal(t, notifications.StatusPending, call.Notification.Status)
	require.JSONEq(t, webhook("wbh-a", "usr-1", "2024-05-01T09:00:01Z"), string(call.Payload))
}

func TestProcessingDrain(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.BatchSize = 3
	cfg.Drain = true
	st := openStore(t)
	svc := newService(t, cfg, st)
	for i := range 10 {
		deliver(t, svc, fmt.Sprintf("wbh-%02d", i), fmt.Sprintf("usr-%d", i), fmt.Sprintf("2024-05-01T09:00:%02dZ", i))
	}
	stats, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, 4, stats.Batches)
	require.Equal(t, 10, stats.Succeeded)
	require.Len(t, m.tokens(), 10)
	for i, tok := range m.tokens() {
		require.Equal(t, fmt.Sprintf("wbh-%02d", i), tok)
	}
}

func TestProcessingConcurrencyKeepsPerObjectOrder(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.BatchSize = 200
	cfg.Concurrency = 8
	st := openStore(t)
	var seq atomic.Int64
	var mu sync.Mutex
	seen := map[string][]string{}
	active := map[string]int{}
	var overlap, parallel atomic.Int64
	var running atomic.Int64
	svc := newService(t, cfg, st, notifications.WithDefaultHandler(notifications.HandlerFunc(
		func(ctx context.Context, rec *notifications.Record, payload []byte) error {
			seq.Add(1)
			if running.Add(1) > 1 {
				parallel.Add(1)
			}
			mu.Lock()
			active[rec.ObjectToken]++
			if active[rec.ObjectToken] > 1 {
				overlap.Add(1)
			}
			seen[rec.ObjectToken] = append(seen[rec.ObjectToken], rec.WebhookToken)
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			active[rec.ObjectToken]--
			mu.Unlock()
			running.Add(-1)
			return nil
		})))
	// Different types of one object are not superseded by each other, so
	// one objectToken gets several live records: usr-k (USR) and pmt with
	// the same target would differ in token; use UNK objects sharing a token.
	for obj := range 10 {
		for i := range 5 {
			// Types differ per record (object token shared) so none is outdated.
			tok := fmt.Sprintf("wbh-%d-%d", obj, i)
			body := fmt.Sprintf(`{"token":%q,"createdOn":"2024-05-01T09:%02d:%02dZ","object":{"token":"obj%d-x"}}`, tok, i, obj, obj)
			code, _ := do(t, svc, "POST", "/webhooks/notifications", body)
			require.Equal(t, 200, code)
		}
	}
	// Records of one object and type supersede each other; restore them as
	// live via management-style inserts would change status, so instead
	// requeue the outdated ones: they become PENDING again with their dates.
	recs, err := st.List(context.Background(), notifications.Range{})
	require.NoError(t, err)
	for _, r := range recs {
		if r.Status == notifications.StatusOutdated {
			_, err := st.Requeue(context.Background(), r.WebhookToken)
			require.NoError(t, err)
		}
	}
	stats, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, 50, stats.Succeeded)
	require.Zero(t, overlap.Load(), "records of one objectToken never run concurrently")
	require.Positive(t, parallel.Load(), "different objectTokens do run in parallel")
	for obj := range 10 {
		want := make([]string, 5)
		for i := range 5 {
			want[i] = fmt.Sprintf("wbh-%d-%d", obj, i)
		}
		require.Equal(t, want, seen[fmt.Sprintf("obj%d-x", obj)], "order kept for object %d", obj)
	}
}

func TestProcessingBackoffFailedAndOneMail(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	m.setStatus(func(string) int { return 500 })
	smtp := newSMTPServer(t, false, "")
	clk := newClock()
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.MaxAttempts = 4
	cfg.InitialRetryDelay = time.Minute
	cfg.BackoffMultiplier = 2
	cfg.Mail.Host = "127.0.0.1"
	cfg.Mail.Port = smtp.port()
	cfg.Mail.From = "conn@example.com"
	cfg.Mail.Recipients = []string{"ops@example.com", "oncall@example.com"}
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	ctx := context.Background()
	deliver(t, svc, "wbh-x", "usr-1", "2024-05-01T09:00:00Z")

	wantDelays := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute}
	for attempt := 1; attempt <= 3; attempt++ {
		stats, err := svc.RunProcessing(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, stats.Retrying, "attempt %d", attempt)
		rec := mustGet(t, st, "wbh-x")
		now := notifications.Truncate(clk.Now())
		require.Equal(t, notifications.StatusRetrying, rec.Status)
		require.Equal(t, attempt, rec.RetryCounter)
		require.Equal(t, now, *rec.LastRetryDate)
		require.Equal(t, now.Add(wantDelays[attempt-1]), *rec.NextRetryDate)

		// Not eligible before nextRetryDate.
		clk.Add(wantDelays[attempt-1] - time.Second)
		stats, err = svc.RunProcessing(ctx)
		require.NoError(t, err)
		require.Zero(t, stats.Claimed)
		clk.Add(time.Second)
	}
	stats, err := svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, stats.Failed)
	rec := mustGet(t, st, "wbh-x")
	require.Equal(t, notifications.StatusFailed, rec.Status)
	require.Equal(t, 4, rec.RetryCounter)
	require.Nil(t, rec.NextRetryDate)

	clk.Add(24 * time.Hour)
	stats, err = svc.RunProcessing(ctx)
	require.NoError(t, err)
	require.Zero(t, stats.Claimed, "FAILED is terminal")
	require.Len(t, m.tokens(), 4)

	msgs := smtp.messages()
	require.Len(t, msgs, 1, "exactly one mail")
	require.Equal(t, "conn@example.com", msgs[0].From)
	require.Equal(t, []string{"ops@example.com", "oncall@example.com"}, msgs[0].To)
	require.Contains(t, msgs[0].Data, "Subject: [CONN] Technical error occurred when processing the notification wbh-x\r\n")
	require.Contains(t, msgs[0].Data, "To: ops@example.com, oncall@example.com\r\n")
	body := msgs[0].Data[strings.Index(msgs[0].Data, "\r\n\r\n")+4:]
	require.Equal(t, "There was an error processing the notification wbh-x and the operation could not be completed. "+
		"The maximum number of attempts (4) has been reached, therefore it will not try to re-process the notification anymore.\r\n"+
		"Please check the logs for further information.\r\n", body)

	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_processed_total{outcome="retrying",source="notifications"} 3`)
	require.Contains(t, metrics, `sluice_notifications_processed_total{outcome="failed",source="notifications"} 1`)
}

func TestProcessingSuccessAfterRetryKeepsCounters(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	var fail atomic.Bool
	fail.Store(true)
	m.setStatus(func(string) int {
		if fail.Load() {
			return 503
		}
		return 204
	})
	clk := newClock()
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.InitialRetryDelay = 0
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	deliver(t, svc, "wbh-1", "usr-1", "")
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	before := mustGet(t, st, "wbh-1")
	require.Equal(t, 1, before.RetryCounter)
	fail.Store(false)
	clk.Add(time.Minute)
	_, err = svc.RunProcessing(context.Background())
	require.NoError(t, err)
	after := mustGet(t, st, "wbh-1")
	require.Equal(t, notifications.StatusSuccess, after.Status)
	require.Equal(t, 1, after.RetryCounter)
	require.Equal(t, before.LastRetryDate, after.LastRetryDate)
}

func TestProcessingFailuresWithoutMarketplace(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxAttempts = 1
	cfg.Mail.Host = "127.0.0.1"
	cfg.Mail.Port = closedPort(t) // the mail fails: logged, the record stays FAILED
	cfg.Mail.Recipients = []string{"ops@example.com"}
	st := openStore(t)
	svc := newService(t, cfg, st)
	deliver(t, svc, "wbh-1", "usr-1", "")
	stats, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, stats.Failed)
	rec := mustGet(t, st, "wbh-1")
	require.Equal(t, notifications.StatusFailed, rec.Status)
	require.Equal(t, 1, rec.RetryCounter)
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_alerts_total{result="error"} 1`)
}

func closedPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}

func TestProcessingFetchesPayloadFromProviderAndCustomHandler(t *testing.T) {
	t.Parallel()
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/rest/v4/webhook-notifications/wbh-m" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"token":"wbh-m","object":{"token":"pmt-9","amount":"1.00"}}`)
	}))
	defer provider.Close()
	cfg := testConfig()
	cfg.ProviderAPIURL = provider.URL + "/rest/v4"
	cfg.ManagementAPI = true
	st := openStore(t)
	var got sync.Map
	svc := newService(t, cfg, st, notifications.WithHandler("pmt", notifications.HandlerFunc(
		func(ctx context.Context, rec *notifications.Record, payload []byte) error {
			got.Store(rec.WebhookToken, string(payload))
			return nil
		})))
	// A management-created record has no stored body.
	code, body := do(t, svc, "POST", "/management/failed-notifications", `{"notificationToken":"wbh-m","target":"pmt-9"}`)
	require.Equal(t, 201, code, body)
	code, _ = do(t, svc, "POST", "/management/failed-notifications/wbh-m/retry", "")
	require.Equal(t, 200, code)
	stats, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, stats.Succeeded)
	p, ok := got.Load("wbh-m")
	require.True(t, ok)
	require.JSONEq(t, `{"token":"wbh-m","object":{"token":"pmt-9","amount":"1.00"}}`, p.(string))

	// Handle replaces the handler while running; a returned error is a failure.
	svc.Handle("PMT", notifications.HandlerFunc(func(context.Context, *notifications.Record, []byte) error {
		return fmt.Errorf("downstream rejected it")
	}))
	deliver(t, svc, "wbh-p2", "pmt-10", "")
	_, err = svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, notifications.StatusRetrying, mustGet(t, st, "wbh-p2").Status)
}

func TestTriggerCoalescesIntoOneMoreRun(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	st := openStore(t)
	release := make(chan struct{})
	started := make(chan string, 10)
	svc := newService(t, cfg, st, notifications.WithDefaultHandler(notifications.HandlerFunc(
		func(ctx context.Context, rec *notifications.Record, _ []byte) error {
			started <- rec.WebhookToken
			if rec.WebhookToken == "wbh-1" {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return nil
		})))
	deliver(t, svc, "wbh-1", "usr-1", "")
	code, _ := do(t, svc, "POST", "/job/process-notifications", "")
	require.Equal(t, 202, code)
	require.Equal(t, "wbh-1", <-started)
	deliver(t, svc, "wbh-2", "usr-2", "")
	for range 3 {
		code, body := do(t, svc, "POST", "/job/process-notifications", "")
		require.Equal(t, 202, code)
		require.Empty(t, body)
	}
	close(release)
	select {
	case tok := <-started:
		require.Equal(t, "wbh-2", tok, "the coalesced run picks up what arrived meanwhile")
	case <-time.After(10 * time.Second):
		t.Fatal("no follow-up run")
	}
	eventually(t, "two processing runs", func() bool {
		_, m := do(t, svc, "GET", "/metrics", "")
		return strings.Contains(m, `sluice_notifications_job_runs_total{job="processing",result="ok"} 2`)
	})
	_, m := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, m, `sluice_notifications_job_runs_total{job="processing",result="ok"} 2`, "three triggers, one extra run")
}

func TestJobLockAcrossServices(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	release := make(chan struct{})
	inside := make(chan struct{}, 1)
	a := newService(t, testConfig(), st, notifications.WithDefaultHandler(notifications.HandlerFunc(
		func(ctx context.Context, _ *notifications.Record, _ []byte) error {
			inside <- struct{}{}
			<-release
			return nil
		})))
	b := newService(t, testConfig(), st)
	deliver(t, a, "wbh-1", "usr-1", "")
	done := make(chan error, 1)
	go func() { _, err := a.RunProcessing(context.Background()); done <- err }()
	<-inside
	_, err := b.RunProcessing(context.Background())
	require.ErrorIs(t, err, notifications.ErrLocked, "one run at a time across services sharing a store")
	close(release)
	require.NoError(t, <-done)
}

func TestCleanup(t *testing.T) {
	t.Parallel()
	for _, days := range []int{0, 30} {
		t.Run(fmt.Sprint(days), func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			cfg := testConfig()
			cfg.RetentionDays = days
			cfg.ManagementAPI = true
			st := openStore(t)
			svc := newService(t, cfg, st, notifications.WithClock(clk.Now),
				notifications.WithDefaultHandler(notifications.HandlerFunc(func(_ context.Context, r *notifications.Record, _ []byte) error {
					if r.ObjectToken == "usr-fail" {
						return fmt.Errorf("no")
					}
					return nil
				})))
			deliver(t, svc, "wbh-success", "usr-ok", "2024-01-01T00:00:00Z")
			deliver(t, svc, "wbh-outdated", "usr-2", "2024-01-01T00:00:00Z")
			deliver(t, svc, "wbh-newer", "usr-2", "2024-01-02T00:00:00Z")
			deliver(t, svc, "wbh-retrying", "usr-fail", "2024-01-01T00:00:00Z")
			_, err := svc.RunProcessing(context.Background())
			require.NoError(t, err)
			deliver(t, svc, "wbh-pending", "stk-1", "2024-01-01T00:00:00Z")
			code, _ := do(t, svc, "POST", "/management/failed-notifications", `{"notificationToken":"wbh-failed","target":"usr-9"}`)
			require.Equal(t, 201, code)

			clk.Add(31 * 24 * time.Hour)
			deliver(t, svc, "wbh-recent-outdated", "trm-1", "2024-01-01T00:00:00Z")
			deliver(t, svc, "wbh-recent", "trm-1", "2024-01-02T00:00:00Z")
			code, _ = do(t, svc, "POST", "/job/cleanup-notifications", "")
			require.Equal(t, 202, code)
			eventually(t, "cleanup run", func() bool {
				_, m := do(t, svc, "GET", "/metrics", "")
				return strings.Contains(m, `sluice_notifications_job_runs_total{job="cleanup",result="ok"} 1`)
			})
			left := map[string]bool{}
			recs, err := st.List(context.Background(), notifications.Range{})
			require.NoError(t, err)
			for _, r := range recs {
				left[r.WebhookToken] = true
			}
			require.True(t, left["wbh-pending"], "PENDING is never cleaned")
			require.True(t, left["wbh-retrying"], "RETRYING is never cleaned")
			require.True(t, left["wbh-recent"])
			require.False(t, left["wbh-success"])
			require.False(t, left["wbh-outdated"])
			require.False(t, left["wbh-failed"])
			require.Equal(t, days == 30, left["wbh-recent-outdated"], "retention keeps recent terminal records")
		})
	}
}

func TestStopFinishesTheRunningBatch(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	st := openStore(t)
	inside := make(chan struct{}, 3)
	release := make(chan struct{})
	svc := newService(t, cfg, st, notifications.WithDefaultHandler(notifications.HandlerFunc(
		func(ctx context.Context, _ *notifications.Record, _ []byte) error {
			inside <- struct{}{}
			<-release
			return nil
		})))
	require.NoError(t, svc.Start(context.Background()))
	for i := range 3 {
		deliver(t, svc, fmt.Sprintf("wbh-%d", i), fmt.Sprintf("usr-%d", i), "")
	}
	svc.TriggerProcessing()
	<-inside
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- svc.Stop(ctx)
	}()
	close(release)
	require.NoError(t, <-stopped)
	for i := range 3 {
		require.Equal(t, notifications.StatusSuccess, mustGet(t, st, fmt.Sprintf("wbh-%d", i)).Status)
	}
	require.Nil(t, svc.Config().Mail.TLSConfig)
}

func TestMailStartTLSModesAndAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tls      bool
		mode     string
		wantErr  string
		wantTLS  bool
		username string
	}{
		{"auto with TLS", true, "auto", "", true, ""},
		{"auto without TLS", false, "auto", "", false, ""},
		{"required but not offered", false, "true", "does not offer STARTTLS", false, ""},
		{"required and auth", true, "true", "", true, "bot"},
		{"never", true, "false", "", false, ""},
		{"plain auth on loopback", false, "false", "", false, "bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			auth := ""
			if tt.username != "" {
				auth = tt.username + "\x00pw-secret"
			}
			srv := newSMTPServer(t, tt.tls, auth)
			cfg := testConfig()
			cfg.MaxAttempts = 1
			cfg.Mail = notifications.MailConfig{Host: "127.0.0.1", Port: srv.port(), StartTLS: tt.mode,
				From: "conn@example.com", Recipients: []string{"ops@example.com"}, Username: tt.username, Password: "pw-secret"}
			if tt.tls {
				cfg.Mail.TLSConfig = &tls.Config{RootCAs: srv.certPool()} // ServerName defaults to Host
			}
			st := openStore(t)
			svc := newService(t, cfg, st)
			deliver(t, svc, "wbh-m", "usr-1", "")
			_, err := svc.RunProcessing(context.Background())
			require.NoError(t, err)
			require.Equal(t, notifications.StatusFailed, mustGet(t, st, "wbh-m").Status)
			msgs := srv.messages()
			if tt.wantErr != "" {
				require.Empty(t, msgs)
				return
			}
			require.Len(t, msgs, 1)
			require.Equal(t, tt.wantTLS, msgs[0].TLS)
			require.Equal(t, auth, msgs[0].Auth)
		})
	}
}

func TestRecordJSON(t *testing.T) {
	t.Parallel()
	next := time.Date(2024, 5, 1, 10, 1, 0, 0, time.UTC)
	r := notifications.Record{ID: 7, WebhookToken: "wbh-1", ObjectToken: "usr-1",
		CreationDate: time.Date(2024, 5, 1, 10, 0, 0, 0, time.FixedZone("x", 3600)), ReceptionDate: time.Date(2024, 5, 1, 10, 0, 0, 5e6, time.UTC),
		NotificationType: "USR", Status: notifications.StatusRetrying, RetryCounter: 1, NextRetryDate: &next, Program: "prg-1"}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, `{"id":7,"webhookToken":"wbh-1","objectToken":"usr-1","creationDate":"2024-05-01T09:00:00.000Z",`+
		`"receptionDate":"2024-05-01T10:00:00.005Z","notificationType":"USR","status":"RETRYING","retryCounter":1,`+
		`"lastRetryDate":null,"nextRetryDate":"2024-05-01T10:01:00.000Z","program":"prg-1","source":"notifications"}`, string(b))
	var back notifications.Record
	require.NoError(t, json.Unmarshal(b, &back))
	require.True(t, back.CreationDate.Equal(r.CreationDate))
	require.Nil(t, back.LastRetryDate)
	require.True(t, back.NextRetryDate.Equal(next))
}

func TestStopDeadlineInterruptsWithoutCountingAnAttempt(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	inside := make(chan struct{}, 1)
	svc := newService(t, testConfig(), st, notifications.WithDefaultHandler(notifications.HandlerFunc(
		func(ctx context.Context, _ *notifications.Record, _ []byte) error {
			inside <- struct{}{}
			<-ctx.Done() // a handler that only stops when cancelled
			return ctx.Err()
		})))
	deliver(t, svc, "wbh-1", "usr-1", "")
	svc.TriggerProcessing()
	<-inside
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, svc.Stop(ctx), context.DeadlineExceeded)
	rec := mustGet(t, st, "wbh-1")
	require.Equal(t, notifications.StatusPending, rec.Status, "left for the next run")
	require.Zero(t, rec.RetryCounter, "a shutdown is not a failed attempt")
}

func TestScheduleRunsBothJobs(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.ProcessingCron = "* * * * * ?" // every second
	cfg.CleanupCron = "*/1 * * * * *"
	cfg.RetentionDays = 0
	st := openStore(t)
	svc := newService(t, cfg, st)
	require.NoError(t, svc.Start(context.Background()))
	deliver(t, svc, "wbh-1", "usr-1", "")
	eventually(t, "the scheduled processing run", func() bool { return len(m.tokens()) == 1 })
	eventually(t, "the scheduled cleanup run", func() bool {
		_, err := st.Get(context.Background(), "wbh-1")
		return err != nil
	})
}

func TestRecordOutdatedWhileProcessingIsSkipped(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	inside := make(chan struct{})
	release := make(chan struct{})
	svc := newService(t, testConfig(), st, notifications.WithDefaultHandler(notifications.HandlerFunc(
		func(ctx context.Context, rec *notifications.Record, _ []byte) error {
			if rec.WebhookToken == "wbh-old" {
				close(inside)
				<-release
			}
			return nil
		})))
	deliver(t, svc, "wbh-old", "usr-1", "2024-05-01T09:00:00Z")
	done := make(chan notifications.RunStats, 1)
	go func() {
		st, _ := svc.RunProcessing(context.Background())
		done <- st
	}()
	<-inside
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T09:05:00Z") // supersedes the record being processed
	close(release)
	stats := <-done
	require.Equal(t, 1, stats.Skipped)
	require.Equal(t, notifications.StatusOutdated, mustGet(t, st, "wbh-old").Status, "the outcome does not overwrite OUTDATED")
	_, m := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, m, `sluice_notifications_processed_total{outcome="skipped",source="notifications"} 1`)
	require.Contains(t, m, `sluice_notifications_outdated_total{source="notifications"} 1`)
}

func TestProcessingDownstreamFailures(t *testing.T) {
	t.Parallel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	provider404 := httptest.NewServer(http.NotFoundHandler())
	defer provider404.Close()
	m := newMarketplace(t)

	tests := []struct {
		name        string
		market      string
		provider    string
		viaMgmt     bool // no stored body
		wantStatus  notifications.Status
		wantPayload string
	}{
		{"marketplace timeout", slow.URL, "", false, notifications.StatusRetrying, ""},
		{"provider API 404", m.URL, provider404.URL, true, notifications.StatusRetrying, ""},
		{"no body, no provider: payload null", m.URL, "", true, notifications.StatusSuccess, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.MarketplaceURL = tt.market
			cfg.ProviderAPIURL = tt.provider
			cfg.DownstreamTimeout = 200 * time.Millisecond
			cfg.ManagementAPI = true
			st := openStore(t)
			svc := newService(t, cfg, st)
			tok := "wbh-" + strings.ReplaceAll(tt.name, " ", "-")
			if tt.viaMgmt {
				code, body := do(t, svc, "POST", "/management/failed-notifications", fmt.Sprintf(`{"notificationToken":%q,"target":"usr-1"}`, tok))
				require.Equal(t, 201, code, body)
				code, _ = do(t, svc, "POST", "/management/failed-notifications/"+tok+"/retry", "")
				require.Equal(t, 200, code)
			} else {
				deliver(t, svc, tok, "usr-1", "")
			}
			_, err := svc.RunProcessing(context.Background())
			require.NoError(t, err)
			require.Equal(t, tt.wantStatus, mustGet(t, st, tok).Status)
			if tt.wantPayload != "" {
				m.mu.Lock()
				defer m.mu.Unlock()
				found := false
				for _, c := range m.calls {
					if c.Notification.WebhookToken == tok {
						found = true
						require.Equal(t, tt.wantPayload, string(c.Payload))
					}
				}
				require.True(t, found)
			}
		})
	}
}
