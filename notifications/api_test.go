package notifications_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// rangeService stores three records received at known instants.
func rangeService(t *testing.T, cfg notifications.Config) (*notifications.Service, notifications.Store, *clock) {
	t.Helper()
	clk := newClock() // 2024-05-01T10:00:00Z
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	deliver(t, svc, "wbh-1", "usr-1", "2024-05-01T09:00:00Z")
	clk.Add(time.Hour + 250*time.Millisecond) // 11:00:00.250
	deliver(t, svc, "wbh-2", "stk-2", "")
	clk.Add(time.Hour) // 12:00:00.250
	deliver(t, svc, "wbh-3", "pmt-3", "2024-05-01T09:00:00")
	return svc, st, clk
}

func tokensOf(t *testing.T, body string) []string {
	t.Helper()
	var recs []notifications.Record
	require.NoError(t, json.Unmarshal([]byte(body), &recs), body)
	out := []string{}
	for _, r := range recs {
		out = append(out, r.WebhookToken)
	}
	return out
}

func TestDateRangeQueries(t *testing.T) {
	t.Parallel()
	svc, _, _ := rangeService(t, testConfig())
	q := func(from, to string) string {
		return "/webhooks/notifications?from=" + url.QueryEscape(from) + "&to=" + url.QueryEscape(to)
	}
	tests := []struct {
		from, to string
		want     []string
	}{
		{"2024-05-01T10:00:00Z", "2024-05-01T12:00:00.250Z", []string{"wbh-1", "wbh-2", "wbh-3"}}, // inclusive both ends
		{"2024-05-01T11:00:00.250", "2024-05-01T11:00:00.250", []string{"wbh-2"}},                 // from = to = receptionDate
		{"2024-05-01T13:00:00+02:00", "2024-05-01T11:30:00Z", []string{"wbh-2"}},                  // offsets honoured
		{"2024-05-01T10:00:00.001Z", "2024-05-01T12:00:00.249Z", []string{"wbh-2"}},
		{"2024-06-01T00:00:00", "2024-06-02T00:00:00", []string{}},
	}
	for _, tt := range tests {
		code, body := do(t, svc, "GET", q(tt.from, tt.to), "")
		require.Equal(t, 200, code, body)
		require.Equal(t, tt.want, tokensOf(t, body), "%s..%s", tt.from, tt.to)
	}
	// The record form of docs/http-api.md#record.
	_, body := do(t, svc, "GET", q("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"), "")
	var raw []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &raw))
	require.Len(t, raw, 1)
	require.Equal(t, "2024-05-01T10:00:00.000Z", raw[0]["receptionDate"])
	require.Equal(t, "2024-05-01T09:00:00.000Z", raw[0]["creationDate"])
	require.Nil(t, raw[0]["lastRetryDate"])
	require.Contains(t, raw[0], "nextRetryDate")
	require.Equal(t, "PENDING", raw[0]["status"])
	require.Equal(t, "prg-1", raw[0]["program"])

	for _, bad := range []struct{ path, want string }{
		{"/webhooks/notifications?to=2024-05-01T10:00:00Z", `query parameter \"from\" is required`},
		{"/webhooks/notifications?from=2024-05-01T10:00:00Z", `query parameter \"to\" is required`},
		{"/webhooks/notifications?from=yesterday&to=2024-05-01T10:00:00Z", `query parameter \"from\"`},
		{q("2024-05-02T10:00:00+02:00", "2024-05-01T10:00:00.999"),
			`{"errorMessage":"[From] date [2024-05-02T08:00:00] can not be later than [To] date [2024-05-01T10:00:00]"}`},
	} {
		code, body := do(t, svc, "GET", bad.path, "")
		require.Equal(t, 400, code, bad.path)
		require.Contains(t, body, bad.want)
		code, _ = do(t, svc, "DELETE", bad.path, "")
		require.Equal(t, 400, code, bad.path)
	}

	code, body := do(t, svc, "DELETE", q("2024-05-01T11:00:00Z", "2024-05-01T12:00:00.250Z"), "")
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"deleted":2}`, body)
	_, body = do(t, svc, "GET", q("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"), "")
	require.Equal(t, []string{"wbh-1"}, tokensOf(t, body))
}

func TestHealthMetricsAndAuth(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.APIToken = "tok-secret"
	svc, _, clk := rangeService(t, cfg)
	clk.Add(90 * time.Second) // oldest PENDING received 2 h 1.5 min ago

	code, body := do(t, svc, "GET", "/health", "")
	require.Equal(t, 200, code, "health needs no token")
	require.JSONEq(t, `{"status":"UP"}`, body)

	for _, p := range []struct{ method, path string }{
		{"GET", "/metrics"}, {"GET", "/webhooks/notifications?from=2024-01-01T00:00:00&to=2024-01-01T00:00:00"},
		{"DELETE", "/webhooks/notifications?from=2024-01-01T00:00:00&to=2024-01-01T00:00:00"},
		{"POST", "/job/process-notifications"}, {"POST", "/job/cleanup-notifications"},
		{"GET", "/datasets/notifications"}, {"GET", "/management/failed-notifications"},
		{"GET", "/management/failed-notifications/"}, {"GET", "/Management/failed-notifications"},
	} {
		code, body := do(t, svc, p.method, p.path, "")
		require.Equal(t, 401, code, "%s %s", p.method, p.path)
		require.Contains(t, body, "errorMessage")
		require.NotContains(t, body, "tok-secret")
		code, _ = do(t, svc, p.method, p.path, "", "Authorization", "Bearer wrong")
		require.Equal(t, 401, code)
	}
	// 401 comes before 403 (management is off here); with the token, 403.
	code, body = do(t, svc, "GET", "/management/failed-notifications", "", "Authorization", "Bearer tok-secret")
	require.Equal(t, 403, code)
	require.JSONEq(t, `{"errorMessage":"management API is disabled"}`, body)
	code, _ = do(t, svc, "GET", "/management/failed-notifications/x/", "", "Authorization", "bearer tok-secret")
	require.Equal(t, 403, code, "the scheme is case-insensitive")
	code, _ = do(t, svc, "GET", "/metrics", "", "Authorization", "Basic dG9rLXNlY3JldA==")
	require.Equal(t, 401, code)
	// Intake needs no token.
	code, _ = do(t, svc, "POST", "/webhook/notifications", webhook("wbh-9", "usr-9", ""))
	require.Equal(t, 200, code)

	code, metrics := do(t, svc, "GET", "/metrics", "", "Authorization", "Bearer tok-secret")
	require.Equal(t, 200, code)
	for _, want := range []string{
		`sluice_notifications_received_total{source="notifications"} 4`,
		`sluice_notifications_discarded_total{reason="duplicate",source="notifications"} 0`,
		`sluice_notifications_discarded_total{reason="obsolete",source="notifications"} 0`,
		`sluice_notifications_processed_total{outcome="success",source="notifications"} 0`,
		`sluice_notifications_queue_depth{source="notifications",status="PENDING"} 4`,
		`sluice_notifications_queue_depth{source="notifications",status="FAILED"} 0`,
		"sluice_notifications_oldest_pending_age_seconds 7290.25",
	} {
		require.Contains(t, metrics, want+"\n")
	}
}

func TestDatasetFormats(t *testing.T) {
	t.Parallel()
	svc, st, _ := rangeService(t, testConfig())
	code, body := do(t, svc, "GET", "/datasets/notifications", "")
	require.Equal(t, 200, code)
	lines := strings.Split(strings.TrimSpace(body), "\n")
	require.Len(t, lines, 3)
	all, err := st.List(context.Background(), notifications.Range{})
	require.NoError(t, err)
	want, _ := json.Marshal(all[0])
	require.JSONEq(t, string(want), lines[0])

	code, body = do(t, svc, "GET", "/datasets/notifications?format=csv&from=2024-05-01T11:00:00Z", "")
	require.Equal(t, 200, code)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"id", "webhookToken", "objectToken", "creationDate", "receptionDate", "notificationType",
		"status", "retryCounter", "lastRetryDate", "nextRetryDate", "program", "source"}, rows[0])
	require.Len(t, rows, 3)
	require.Equal(t, "wbh-2", rows[1][1])
	require.Equal(t, "2024-05-01T11:00:00.250Z", rows[1][4])
	require.Equal(t, "0", rows[1][7])
	require.Equal(t, "", rows[1][8])

	req := httptest.NewRequest("GET", "/datasets/notifications?format=parquet&to=2024-05-01T11:00:00.250Z", nil)
	resp, err := svc.App().Test(req, -1)
	require.NoError(t, err)
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	f, err := parquet.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	require.EqualValues(t, 2, f.NumRows())
	kinds := map[string]parquet.Kind{}
	logical := map[string]string{}
	for _, fld := range f.Schema().Fields() {
		kinds[fld.Name()] = fld.Type().Kind()
		logical[fld.Name()] = fld.Type().String()
	}
	require.Len(t, kinds, 12)
	require.Equal(t, parquet.Int64, kinds["id"], "id long")
	require.Equal(t, parquet.Int32, kinds["retryCounter"], "counters integer")
	require.Equal(t, parquet.ByteArray, kinds["webhookToken"])
	for _, d := range []string{"creationDate", "receptionDate", "lastRetryDate", "nextRetryDate"} {
		require.Contains(t, logical[d], "TIMESTAMP", d)
	}
	type row struct {
		ID            int64      `parquet:"id"`
		WebhookToken  string     `parquet:"webhookToken"`
		ReceptionDate *time.Time `parquet:"receptionDate,optional,timestamp(millisecond:utc)"`
		LastRetryDate *time.Time `parquet:"lastRetryDate,optional,timestamp(millisecond:utc)"`
		RetryCounter  int32      `parquet:"retryCounter"`
	}
	got, err := parquet.Read[row](bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	require.Equal(t, "wbh-1", got[0].WebhookToken)
	require.Equal(t, "wbh-2", got[1].WebhookToken)
	require.True(t, got[1].ReceptionDate.Equal(time.Date(2024, 5, 1, 11, 0, 0, 250e6, time.UTC)))
	require.Nil(t, got[1].LastRetryDate)

	for _, bad := range []string{"?format=xml", "?from=nope", "?from=2024-05-02T00:00:00Z&to=2024-05-01T00:00:00Z"} {
		code, body := do(t, svc, "GET", "/datasets/notifications"+bad, "")
		require.Equal(t, 400, code, bad)
		require.Contains(t, body, "errorMessage")
	}
}

// scanFailsAfter is the real store with a fault injected into Scan after n
// records: the export must then end as an incomplete download.
type scanFailsAfter struct {
	notifications.Store
	n int
}

func (s scanFailsAfter) Scan(ctx context.Context, r notifications.Range, fn func(*notifications.Record) error) error {
	seen := 0
	return s.Store.Scan(ctx, r, func(rec *notifications.Record) error {
		if seen == s.n {
			return errors.New("disk on fire")
		}
		seen++
		return fn(rec)
	})
}

func TestDatasetFailures(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	loader := newService(t, testConfig(), st)
	for i := range 300 {
		deliver(t, loader, fmt.Sprintf("wbh-%03d", i), fmt.Sprintf("usr-%d", i), "")
	}

	// A failure before the first 64 KiB: a proper error status.
	early := newService(t, testConfig(), scanFailsAfter{Store: st, n: 2})
	code, body := do(t, early, "GET", "/datasets/notifications", "")
	require.Equal(t, 500, code)
	require.Contains(t, body, "errorMessage")

	// A failure after bytes went out: the download is visibly incomplete.
	late := newService(t, testConfig(), scanFailsAfter{Store: st, n: 280})
	require.NoError(t, late.Start(context.Background()))
	resp, err := http.Get("http://" + late.Addr() + "/datasets/notifications?format=ndjson")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	_, err = io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "no final chunk: the client knows the export is incomplete")

	// Without the fault the same large download completes.
	ok := newService(t, testConfig(), st)
	require.NoError(t, ok.Start(context.Background()))
	resp, err = http.Get("http://" + ok.Addr() + "/datasets/notifications?format=ndjson")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Len(t, strings.Split(strings.TrimSpace(string(b)), "\n"), 300)
}
