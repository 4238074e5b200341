package notifications_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

func TestRecordAttemptsAndLastError(t *testing.T) {
	t.Parallel()
	m := newMarketplace(t)
	m.setStatus(func(string) int { return 503 })
	cfg := testConfig()
	// A secret in the marketplace URL must not reach a stored error.
	cfg.MarketplaceURL = m.URL + "/hook?api_key=s3cr3t-value"
	cfg.MaxAttempts = 2
	cfg.InitialRetryDelay = 0
	st := openStore(t)
	svc := newService(t, cfg, st)
	deliver(t, svc, "wbh-1", "usr-1", "2024-05-01T10:00:00Z")
	for range 2 {
		_, err := svc.RunProcessing(context.Background())
		require.NoError(t, err)
	}
	code, body := do(t, svc, "GET", "/webhooks/notifications/wbh-1", "")
	require.Equal(t, 200, code, body)
	var got struct {
		WebhookToken string  `json:"webhookToken"`
		Status       string  `json:"status"`
		LastError    *string `json:"lastError"`
		Attempts     []struct {
			Attempt    int     `json:"attempt"`
			At         string  `json:"at"`
			Outcome    string  `json:"outcome"`
			HTTPStatus *int    `json:"httpStatus"`
			DurationMS *int64  `json:"durationMs"`
			Error      *string `json:"error"`
		} `json:"attempts"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	require.Equal(t, "FAILED", got.Status)
	require.Len(t, got.Attempts, 2)
	require.Equal(t, []string{"retrying", "failed"}, []string{got.Attempts[0].Outcome, got.Attempts[1].Outcome})
	for i, a := range got.Attempts {
		require.Equal(t, i+1, a.Attempt)
		require.Equal(t, 503, *a.HTTPStatus)
		require.NotNil(t, a.DurationMS)
		require.NotEmpty(t, a.At)
		require.Contains(t, *a.Error, "marketplace answered 503")
	}
	require.NotNil(t, got.LastError)
	require.Equal(t, *got.Attempts[1].Error, *got.LastError)
	require.NotContains(t, body, "s3cr3t-value")

	// Success: the history grows, lastError is null.
	m.setStatus(func(string) int { return 200 })
	_, err := st.Requeue(context.Background(), "wbh-1")
	require.NoError(t, err)
	_, err = svc.RunProcessing(context.Background())
	require.NoError(t, err)
	code, body = do(t, svc, "GET", "/webhooks/notifications/wbh-1", "")
	require.Equal(t, 200, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	require.Equal(t, "SUCCESS", got.Status)
	require.Nil(t, got.LastError)
	require.Len(t, got.Attempts, 3)
	require.Equal(t, "success", got.Attempts[2].Outcome)
	require.Nil(t, got.Attempts[2].Error)

	code, body = do(t, svc, "GET", "/webhooks/notifications/nope", "")
	require.Equal(t, 404, code, body)
	require.Contains(t, body, `"errorMessage"`)
	for _, bad := range []string{"a%00b", "%FF%FE", strings.Repeat("t", 256)} {
		code, body = do(t, svc, "GET", "/webhooks/notifications/"+bad, "")
		require.Equal(t, 400, code, bad+": "+body)
	}
}

func TestDiscardLedgerThroughAPI(t *testing.T) {
	t.Parallel()
	svc := newService(t, testConfig(), openStore(t))
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T10:00:01Z")
	deliver(t, svc, "wbh-new", "usr-1", "2024-05-01T10:00:01Z") // duplicate
	deliver(t, svc, "wbh-old", "usr-1", "2024-05-01T10:00:00Z") // obsolete

	code, body := do(t, svc, "GET", "/webhooks/notifications/wbh-old", "")
	require.Equal(t, 200, code, body)
	var d struct {
		Discarded map[string]any `json:"discarded"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &d))
	require.Equal(t, "wbh-old", d.Discarded["token"])
	require.Equal(t, "obsolete", d.Discarded["reason"])
	require.Equal(t, "wbh-new", d.Discarded["winner"])
	require.NotEmpty(t, d.Discarded["at"])

	// The stored record wins over its own duplicate's entry.
	code, body = do(t, svc, "GET", "/webhooks/notifications/wbh-new", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"webhookToken":"wbh-new"`)

	// Metrics count the reasons as before.
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_discarded_total{reason="duplicate",source="notifications"} 1`)
	require.Contains(t, metrics, `sluice_notifications_discarded_total{reason="obsolete",source="notifications"} 1`)
}

func TestPagedListing(t *testing.T) {
	t.Parallel()
	svc := newService(t, testConfig(), openStore(t))
	for i := range 7 {
		obj := "usr-"
		if i%2 == 1 {
			obj = "pmt-"
		}
		deliver(t, svc, fmt.Sprintf("wbh-%d", i), fmt.Sprintf("%s%d", obj, i), "2024-05-01T10:00:00Z")
	}
	const rng = "/webhooks/notifications?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z"
	var all []string
	path := rng + "&limit=3"
	for page := 0; page < 10 && path != ""; page++ {
		code, body, h := doH(t, svc, "GET", path, "")
		require.Equal(t, 200, code, body)
		var recs []notifications.Record
		require.NoError(t, json.Unmarshal([]byte(body), &recs))
		for _, r := range recs {
			all = append(all, r.WebhookToken)
		}
		path = ""
		if next := h.Get("Next"); next != "" {
			link := h.Get("Link")
			require.Contains(t, link, `rel="next"`)
			u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(strings.Split(link, ";")[0], "<"), ">"))
			require.NoError(t, err)
			require.Equal(t, next, u.Query().Get("after"))
			require.Equal(t, "3", u.Query().Get("limit"))
			path = u.RequestURI()
		}
	}
	require.Equal(t, []string{"wbh-0", "wbh-1", "wbh-2", "wbh-3", "wbh-4", "wbh-5", "wbh-6"}, all)

	code, body, h := doH(t, svc, "GET", rng+"&type=pmt&status=pending", "")
	require.Equal(t, 200, code, body)
	require.Empty(t, h.Get("Link"))
	var recs []notifications.Record
	require.NoError(t, json.Unmarshal([]byte(body), &recs))
	require.Len(t, recs, 3)
	code, body = do(t, svc, "GET", rng+"&objectToken=usr-2", "")
	require.Equal(t, 200, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &recs))
	require.Len(t, recs, 1)

	for param, q := range map[string]string{
		"limit":       "&limit=0",
		"limit ":      "&limit=10001",
		"status":      "&status=DONE",
		"type":        "&type=%00",
		"after":       "&after=!!!",
		"objectToken": "&objectToken=%00",
	} {
		code, body := do(t, svc, "GET", rng+q, "")
		require.Equal(t, 400, code, q)
		require.Contains(t, body, `\"`+strings.TrimSpace(param)+`\"`, body)
	}
}

func TestRetryAndDeleteOfSettledRecords(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.ManagementAPI = true
	m := newMarketplace(t)
	cfg.MarketplaceURL = m.URL
	svc := newService(t, cfg, openStore(t))
	deliver(t, svc, "wbh-done", "usr-1", "2024-05-01T10:00:00Z")
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	deliver(t, svc, "wbh-a", "usr-2", "2024-05-01T10:00:00Z")
	deliver(t, svc, "wbh-b", "usr-2", "2024-05-01T10:00:01Z") // wbh-a → OUTDATED

	for _, tok := range []string{"wbh-done", "wbh-a"} {
		code, body := do(t, svc, "POST", "/management/failed-notifications/"+tok+"/retry", "")
		require.Equal(t, 409, code, body)
		require.Contains(t, body, "force=true")
		code, body = do(t, svc, "DELETE", "/management/failed-notifications/"+tok, "")
		require.Equal(t, 409, code, body)
	}
	code, body := do(t, svc, "POST", "/management/failed-notifications/wbh-done/retry?force=maybe", "")
	require.Equal(t, 400, code, body)
	require.Contains(t, body, `\"force\"`)
	code, body = do(t, svc, "POST", "/management/failed-notifications/wbh-done/retry?force=true", "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"status":"PENDING"`)
	code, body = do(t, svc, "DELETE", "/management/failed-notifications/wbh-b", "")
	require.Equal(t, 200, code, body)
}

func TestQuarantineAndReparse(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.QuarantineMax = 2
	st := openStore(t)
	svc := newService(t, cfg, st)
	bad := []string{`{"token":`, `{"type":"x"}`, `{"token":"wbh-q","createdOn":"yesterday"}`}
	for _, b := range bad {
		code, body := do(t, svc, "POST", "/webhooks/notifications", b,
			"Content-Type", "application/json", "Authorization", "Bearer nope", "X-Sluice-Signature", "v1=abc",
			"X-Api-Key", "k", "X-Trace", "t-1")
		require.Equal(t, 400, code, body)
	}
	code, body, h := doH(t, svc, "GET", "/management/quarantine?limit=1", "")
	require.Equal(t, 200, code, body)
	var page struct {
		Items []struct {
			ID         int64             `json:"id"`
			ReceivedAt string            `json:"receivedAt"`
			Reason     string            `json:"reason"`
			Headers    map[string]string `json:"headers"`
			Size       int               `json:"size"`
			Excerpt    string            `json:"excerpt"`
		} `json:"items"`
		Next *string `json:"next"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &page), body)
	require.Len(t, page.Items, 1)
	newest := page.Items[0]
	require.Contains(t, newest.Reason, "createdOn")
	require.Equal(t, bad[2], newest.Excerpt)
	require.Equal(t, len(bad[2]), newest.Size)
	require.Equal(t, "t-1", newest.Headers["X-Trace"])
	for _, secret := range []string{"Authorization", "X-Sluice-Signature", "X-Api-Key"} {
		require.NotContains(t, newest.Headers, secret)
	}
	require.NotNil(t, page.Next)
	require.Contains(t, h.Get("Link"), `rel="next"`)
	code, body = do(t, svc, "GET", "/management/quarantine?after="+*page.Next, "")
	require.Equal(t, 200, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &page), body)
	require.Len(t, page.Items, 1, "CONN_QUARANTINE_MAX=2 dropped the oldest")
	require.Equal(t, bad[1], page.Items[0].Excerpt)
	require.Nil(t, page.Next)

	// Reparse as kept: still refused, the entry stays.
	id := fmt.Sprint(newest.ID)
	code, body = do(t, svc, "POST", "/management/quarantine/"+id+"/reparse", "")
	require.Equal(t, 400, code, body)
	require.Contains(t, body, "still refused")
	// With a corrected body: stored, the entry goes.
	code, body = do(t, svc, "POST", "/management/quarantine/"+id+"/reparse", `{"token":"wbh-q","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-q"}}`)
	require.Equal(t, 200, code, body)
	require.JSONEq(t, `{"webhookToken":"wbh-q","source":"notifications","outcome":"stored"}`, body)
	mustGet(t, st, "wbh-q")
	code, _ = do(t, svc, "GET", "/management/quarantine/"+id, "")
	require.Equal(t, 404, code)

	code, body = do(t, svc, "GET", "/management/quarantine/"+fmt.Sprint(page.Items[0].ID), "")
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `"bodyBase64"`)
	for _, p := range []string{"/management/quarantine/abc", "/management/quarantine?limit=5000", "/management/quarantine?after=zz"} {
		code, body = do(t, svc, "GET", p, "")
		require.Equal(t, 400, code, p+": "+body)
	}
}

func TestCleanupExpiresQuarantineAndLedger(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.QuarantineRetentionDays = 7
	cfg.LedgerRetentionDays = 3
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	deliver(t, svc, "wbh-1", "usr-1", "2024-05-01T10:00:00Z")
	deliver(t, svc, "wbh-1", "usr-1", "2024-05-01T10:00:00Z") // ledger entry
	code, _ := do(t, svc, "POST", "/webhooks/notifications", `{"no":"token"}`)
	require.Equal(t, 400, code)

	clk.Add(4 * 24 * time.Hour) // past the ledger's retention only
	_, err := svc.RunCleanup(context.Background())
	require.NoError(t, err)
	_, err = st.Discarded(context.Background(), "wbh-1")
	require.ErrorIs(t, err, notifications.ErrNotFound)
	list, err := st.ListQuarantine(context.Background(), 0, 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)

	clk.Add(4 * 24 * time.Hour)
	_, err = svc.RunCleanup(context.Background())
	require.NoError(t, err)
	list, err = st.ListQuarantine(context.Background(), 0, 10, 0)
	require.NoError(t, err)
	require.Empty(t, list)
}
