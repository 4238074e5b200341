package notifications_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// Signed intake: HMAC-SHA256 over timestamp + "." + body, rotation,
// tolerance; 401 and nothing stored otherwise.
func TestSignedIntake(t *testing.T) {
	t.Parallel()
	clk := newClock()
	cfg := testConfig()
	oldSecret, newSecret := "old-secret-0123456789", "new-secret-0123456789"
	cfg.WebhookSecrets = []string{newSecret, oldSecret}
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(clk.Now))
	now := clk.Now().Unix()
	ts := strconv.FormatInt(now, 10)

	body := webhook("wbh-signed", "usr-1", "")
	sig := notifications.SignWebhook(oldSecret, now, []byte(body))
	code, resp := do(t, svc, "POST", "/webhooks/notifications", body,
		notifications.HeaderTimestamp, ts, notifications.HeaderSignature, "v1=deadbeef "+sig)
	require.Equal(t, 200, code, resp)
	mustGet(t, st, "wbh-signed")

	refused := []struct {
		name   string
		header []string
		msg    string
	}{
		{"no headers", nil, notifications.HeaderTimestamp},
		{"no signature", []string{notifications.HeaderTimestamp, ts}, notifications.HeaderSignature},
		{"wrong secret", []string{notifications.HeaderTimestamp, ts, notifications.HeaderSignature,
			notifications.SignWebhook("another-secret-0123456789", now, []byte(body))}, "no valid v1 signature"},
		{"other body", []string{notifications.HeaderTimestamp, ts, notifications.HeaderSignature,
			notifications.SignWebhook(newSecret, now, []byte(body+" "))}, "no valid v1 signature"},
		{"stale", []string{notifications.HeaderTimestamp, strconv.FormatInt(now-301, 10), notifications.HeaderSignature,
			notifications.SignWebhook(newSecret, now-301, []byte(body))}, "more than 5m0s"},
		{"future", []string{notifications.HeaderTimestamp, strconv.FormatInt(now+301, 10), notifications.HeaderSignature,
			notifications.SignWebhook(newSecret, now+301, []byte(body))}, "more than 5m0s"},
		{"bad timestamp", []string{notifications.HeaderTimestamp, "soon\x01", notifications.HeaderSignature, "v1=00"}, "is not Unix seconds"},
	}
	for i, r := range refused {
		b := strings.Replace(body, "wbh-signed", "wbh-refused-"+strconv.Itoa(i), 1)
		code, resp := do(t, svc, "POST", "/webhooks/notifications", b, r.header...)
		require.Equal(t, 401, code, "%s: %s", r.name, resp)
		require.Contains(t, resp, r.msg, r.name)
		_, err := st.Get(context.Background(), "wbh-refused-"+strconv.Itoa(i))
		require.ErrorIs(t, err, notifications.ErrNotFound, r.name)
	}
	// Within the tolerance and with the new secret.
	clk.Add(4 * time.Minute)
	b2 := webhook("wbh-signed-2", "usr-2", "")
	code, resp = do(t, svc, "POST", "/webhooks/notifications", b2,
		notifications.HeaderTimestamp, ts, notifications.HeaderSignature, notifications.SignWebhook(newSecret, now, []byte(b2)))
	require.Equal(t, 200, code, resp)
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_unauthenticated_total{source="notifications"} 7
`)
}

func TestWebhookSecretConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CONN_WEBHOOK_SECRET": " a-long-enough-secret-1 ,a-long-enough-secret-2", "CONN_WEBHOOK_TOLERANCE": "PT2M"}
	cfg, err := notifications.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, []string{"a-long-enough-secret-1", "a-long-enough-secret-2"}, cfg.WebhookSecrets)
	require.Equal(t, 2*time.Minute, cfg.WebhookTolerance)
	env["CONN_WEBHOOK_SECRET"] = "short"
	_, err = notifications.ConfigFromEnv(func(k string) string { return env[k] })
	require.ErrorContains(t, err, "CONN_WEBHOOK_SECRET")
	require.NotContains(t, err.Error(), "short")
}
