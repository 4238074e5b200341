package notifications_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file (run go test -update)")
	require.Equal(t, string(want), got)
}

// goldenService holds the four webhook fixtures, received one minute apart,
// one of them processed into RETRYING, one FAILED.
func goldenService(t *testing.T) *notifications.Service {
	t.Helper()
	clk := newClock()
	cfg := testConfig()
	cfg.ManagementAPI = true
	cfg.MaxAttempts = 2
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now),
		notifications.WithDefaultHandler(notifications.HandlerFunc(func(_ context.Context, r *notifications.Record, _ []byte) error {
			if r.NotificationType == notifications.TypePayment || r.NotificationType == notifications.TypeUnknown {
				return fmt.Errorf("refused")
			}
			return nil
		})))
	for _, f := range []string{"user-activated", "payment-completed", "transfer-method-no-date", "unknown-object"} {
		b, err := os.ReadFile(filepath.Join("testdata", "webhooks", f+".json"))
		require.NoError(t, err)
		code, body := do(t, svc, "POST", "/webhooks/notifications", string(b))
		require.Equal(t, 200, code, body)
		clk.Add(time.Minute)
	}
	_, err := svc.RunProcessing(context.Background()) // USR, TRM succeed; PMT, UNK retry
	require.NoError(t, err)
	clk.Add(time.Hour)
	_, err = svc.RunProcessing(context.Background()) // PMT, UNK fail
	require.NoError(t, err)
	deliver(t, svc, "wbh-late", "stk-1", "2024-05-01T12:00:00.5+01:00")
	return svc
}

var hostRE = regexp.MustCompile(`http://[^/"]+/`)

func TestGoldenOutputs(t *testing.T) {
	t.Parallel()
	svc := goldenService(t)
	for _, g := range []struct{ name, path string }{
		{"dataset.ndjson", "/datasets/notifications"},
		{"dataset.csv", "/datasets/notifications?format=csv"},
		{"range.json", "/webhooks/notifications?from=2024-05-01T10:01:00Z&to=2024-05-01T10:03:00Z"},
		{"failed-page.json", "/management/failed-notifications/?size=1&page=1"},
	} {
		code, body := do(t, svc, "GET", g.path, "")
		require.Equal(t, 200, code, body)
		golden(t, g.name, hostRE.ReplaceAllString(body, "http://HOST/"))
	}
}
