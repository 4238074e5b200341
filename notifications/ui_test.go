package notifications_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// browser starts headless Chromium (Debian's chromium package) or skips
// when it truly cannot start.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, p := range []string{os.Getenv("SLUICE_TEST_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if found, err := exec.LookPath(p); err == nil {
			path = found
			break
		}
	}
	if path == "" {
		t.Skip("no chromium on PATH (apt-get install -y chromium): skipping the operator page browser test")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	// The first run starts the browser and must not carry a timeout (it
	// would end the browser); the test's steps get one.
	if err := chromedp.Do(ctx); err != nil {
		t.Skipf("chromium at %s cannot start: %v", path, err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	return tctx
}

// apiGet reads a JSON answer with the bearer token.
func apiGet(t *testing.T, base, token, path string, v any) int {
	t.Helper()
	req, err := http.NewRequest("GET", base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if v != nil && resp.StatusCode == 200 {
		require.NoError(t, json.Unmarshal(b, v), string(b))
	}
	return resp.StatusCode
}

func TestOperatorPageInBrowser(t *testing.T) {
	const apiToken = "ui-test-token"
	m := newMarketplace(t)
	m.setStatus(func(tok string) int {
		if strings.HasPrefix(tok, "wbh-bad") {
			return 502
		}
		return 200
	})
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.APIToken = apiToken
	cfg.MarketplaceURL = m.URL
	cfg.MaxAttempts = 1
	cfg.Drain = true
	svc := newService(t, cfg, openStore(t))
	require.NoError(t, svc.Start(context.Background()))
	base := "http://" + svc.Addr()

	for i := range 3 {
		deliver(t, svc, fmt.Sprintf("wbh-ok-%d", i), fmt.Sprintf("usr-%d", i), "2024-05-01T10:00:00Z")
	}
	deliver(t, svc, "wbh-bad-1", "pmt-1", "2024-05-01T10:00:00Z")
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	deliver(t, svc, "wbh-new-1", "stk-1", "2024-05-01T10:00:00Z") // stays PENDING

	// Same auth as the management API: no bearer token, no page.
	resp, err := http.Get(base + "/ui/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode)

	ctx := browser(t)
	shot := os.Getenv("SLUICE_UI_SCREENSHOT")
	rowsJS := `[...document.querySelectorAll('#records tr.record')].map(e => e.dataset.token)`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders,
				network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Bearer " + apiToken}})
			return err
		}),
		chromedp.Navigate(base+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS("#depth")),
	))
	depth, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('#depth .count[data-status]')].map(e => [e.dataset.status, e.querySelector('.n').textContent]))`))
	require.NoError(t, err)
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](rowsJS))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"PENDING": "1", "RETRYING": "0", "SUCCESS": "3", "FAILED": "1", "OUTDATED": "0"}, depth)
	require.Len(t, rows, 5)
	require.Equal(t, "wbh-new-1", rows[0], "newest first")

	// A filter narrows the list.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#f-status"), "FAILED"),
		chromedp.Click(chromedp.CSS("#f-apply")),
		chromedp.WaitReady(chromedp.CSS(`#f-status option[value="FAILED"][selected]`)),
	))
	rows, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](rowsJS))
	require.NoError(t, err)
	require.Equal(t, []string{"wbh-bad-1"}, rows)

	// The record's attempts show.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#records tr[data-token="wbh-bad-1"] a`)),
		chromedp.WaitVisible(chromedp.CSS("#attempts")),
	))
	attempts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#attempts tr.attempt')].map(e => e.innerText)`))
	require.NoError(t, err)
	require.Len(t, attempts, 1)
	require.Contains(t, attempts[0], "failed")
	require.Contains(t, attempts[0], "502")
	require.Contains(t, attempts[0], "marketplace answered 502")
	if shot != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(shot, png, 0o644))
	}

	// Retry through the button: the record is PENDING again (checked
	// through the API).
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#retry")),
		chromedp.WaitVisible(chromedp.CSS("#flash")),
	))
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#d-status")))
	require.NoError(t, err)
	require.Equal(t, "PENDING", strings.TrimSpace(status))
	var rec struct {
		Status       string `json:"status"`
		RetryCounter int    `json:"retryCounter"`
		Attempts     []any  `json:"attempts"`
	}
	require.Equal(t, 200, apiGet(t, base, apiToken, "/webhooks/notifications/wbh-bad-1", &rec))
	require.Equal(t, "PENDING", rec.Status)
	require.Equal(t, 0, rec.RetryCounter)
	require.Len(t, rec.Attempts, 1, "the history stays")

	// A POST without or with a wrong CSRF token is refused, from the
	// browser's own context (its cookie) and from outside.
	codes, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`Promise.all([
		fetch('/ui/records/wbh-ok-1/retry', {method: 'POST', body: new URLSearchParams({force: 'true'})}).then(r => r.status),
		fetch('/ui/records/wbh-ok-1/retry', {method: 'POST', body: new URLSearchParams({force: 'true', csrf: 'f00'})}).then(r => r.status)])`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Equal(t, []int{403, 403}, codes)
	req, err := http.NewRequest("POST", base+"/ui/records/wbh-ok-1/retry", strings.NewReader(url.Values{"csrf": {"x"}, "force": {"true"}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "sluice_csrf", Value: strings.Repeat("a", 64)})
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 403, resp.StatusCode)
	require.Equal(t, 200, apiGet(t, base, apiToken, "/webhooks/notifications/wbh-ok-1", &rec))
	require.Equal(t, "SUCCESS", rec.Status, "the refused POSTs changed nothing")

	// Live refresh picks up a new delivery without a reload.
	deliver(t, svc, "wbh-late-1", "pmt-9", "2024-05-01T10:00:00Z")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(base+"/ui/"),
		chromedp.WaitVisible(chromedp.CSS("#depth")),
	))
	deliver(t, svc, "wbh-late-2", "pmt-10", "2024-05-01T10:00:00Z")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#records tr[data-token="wbh-late-2"]`))))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#records tr.record').length`))
	require.NoError(t, err)
	require.Equal(t, 7, n)
}
