package notifications_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// The providers' own signing code (npm, pinned in
// testdata/signers/package.json and .ci/run) signs every delivery of these
// tests; testdata/signers/sign.mjs says which function of which package.

// signJob is one delivery for the node signer to sign.
type signJob struct {
	Scheme    string `json:"scheme"`
	Secret    string `json:"secret"`
	Body      string `json:"body"`
	ID        string `json:"id"`
	Timestamp int64  `json:"timestamp"`
}

// nodeSigner runs testdata/signers/sign.mjs with the packages installed in
// SLUICE_WEBHOOK_SIGNERS_DIR, or skips the test saying how to run it.
func nodeSigner(t *testing.T) func(jobs []signJob) []map[string]string {
	t.Helper()
	dir := os.Getenv("SLUICE_WEBHOOK_SIGNERS_DIR")
	if dir == "" {
		t.Skip("SLUICE_WEBHOOK_SIGNERS_DIR is not set: the providers' npm signers are not installed " +
			"(.ci/run installs them; by hand: npm install in a directory with the versions of testdata/signers/package.json " +
			"and point SLUICE_WEBHOOK_SIGNERS_DIR at it)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the providers' npm signers cannot run")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks")); err != nil {
		t.Skipf("SLUICE_WEBHOOK_SIGNERS_DIR=%s has no node_modules/standardwebhooks: install the signers there", dir)
	}
	// The script resolves its packages from its own directory.
	work := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")))
	for _, f := range []string{"sign.mjs", "package.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "signers", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, f), b, 0o644))
	}
	return func(jobs []signJob) []map[string]string {
		t.Helper()
		in, err := json.Marshal(jobs)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, "sign.mjs")
		cmd.Dir = work
		cmd.Stdin = strings.NewReader(string(in))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "node signer: %s", stderr.String())
		var headers []map[string]string
		require.NoError(t, json.Unmarshal(out, &headers))
		require.Len(t, headers, len(jobs))
		return headers
	}
}

// provider describes one scheme's test: its config file (testdata/sources,
// shown in docs/webhooks/), its secrets and deliveries as its provider
// documents them.
type provider struct {
	scheme  string
	env     map[string]string // the file's ${env:…} secrets: current, previous
	current string            // variable of the current secret
	prev    string            // variable of the previous one
	stamped bool              // the scheme signs a timestamp
	// delivery n: its body, the headers the provider sends besides the
	// signature, its id (standard's webhook-id) and the record it becomes.
	body    func(n int) string
	headers func(n int) map[string]string
	id      func(n int) string
	want    func(n int) notifications.Record
	// sign, when set, signs in Go (the sluice scheme is Sluice's own).
	sign func(secret string, ts int64, body string) map[string]string
}

// A fixed instant the deliveries are dated at, before the test's clock.
var created = time.Date(2024, 5, 1, 9, 59, 0, 0, time.UTC)

var providers = []provider{
	{
		scheme:  "standard",
		env:     map[string]string{"ACME_WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "ACME_WEBHOOK_SECRET_PREVIOUS": "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"},
		current: "ACME_WEBHOOK_SECRET", prev: "ACME_WEBHOOK_SECRET_PREVIOUS", stamped: true,
		// A Standard Webhooks event: type, timestamp, data (standardwebhooks.com).
		body: func(n int) string {
			return fmt.Sprintf(`{"type":"invoice.paid","timestamp":"2024-05-01T09:59:00Z","data":{"id":"inv_%d","account":"acct_7","amount":1200,"currency":"EUR"}}`, n)
		},
		id: func(n int) string { return fmt.Sprintf("msg_2KWPBgLlAfxdpx2AI54pPJ85f%d", n) },
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("msg_2KWPBgLlAfxdpx2AI54pPJ85f%d", n), NotificationType: "invoice.paid",
				CreationDate: created, Program: "acct_7"}
		},
	},
	{
		scheme:  "stripe",
		env:     map[string]string{"STRIPE_WEBHOOK_SECRET": "whsec_test_5c2b8e0a1f3d4c6b9e7a", "STRIPE_WEBHOOK_SECRET_PREVIOUS": "whsec_test_old_0a9b8c7d6e5f4a3b"},
		current: "STRIPE_WEBHOOK_SECRET", prev: "STRIPE_WEBHOOK_SECRET_PREVIOUS", stamped: true,
		// A Stripe event object (docs.stripe.com/api/events/object).
		body: func(n int) string {
			return fmt.Sprintf(`{"id":"evt_1NG8Du2eZvKYlo2CUI79vXW%d","object":"event","account":"acct_1032D82eZvKYlo2C","api_version":"2024-06-20",`+
				`"created":1714557540,"data":{"object":{"id":"pi_3MtwBwLkdIwHu7ix28a3tqP%d","object":"payment_intent","amount":2000,`+
				`"currency":"usd","status":"succeeded"}},"livemode":false,"pending_webhooks":1,`+
				`"request":{"id":"req_8dHx1Qt2d4","idempotency_key":"c2f1a7e0"},"type":"payment_intent.succeeded"}`, n, n)
		},
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("evt_1NG8Du2eZvKYlo2CUI79vXW%d", n), NotificationType: "payment_intent.succeeded",
				CreationDate: time.Unix(1714557540, 0).UTC(), ObjectToken: fmt.Sprintf("pi_3MtwBwLkdIwHu7ix28a3tqP%d", n), Program: "acct_1032D82eZvKYlo2C"}
		},
	},
	{
		scheme:  "github",
		env:     map[string]string{"GITHUB_WEBHOOK_SECRET": "It's a Secret to Everybody", "GITHUB_WEBHOOK_SECRET_PREVIOUS": "an older secret, still accepted"},
		current: "GITHUB_WEBHOOK_SECRET", prev: "GITHUB_WEBHOOK_SECRET_PREVIOUS",
		// An issues event (docs.github.com/en/webhooks/webhook-events-and-payloads#issues).
		body: func(n int) string {
			return fmt.Sprintf(`{"action":"opened","issue":{"id":%d,"node_id":"I_kwDOABCD5M5%d","number":%d,"title":"Found a bug",`+
				`"state":"open","created_at":"2024-05-01T09:59:00Z"},"repository":{"id":1296269,"full_name":"octocat/Hello-World"},`+
				`"sender":{"login":"octocat","id":1}}`, 1000+n, n, n)
		},
		headers: func(n int) map[string]string {
			return map[string]string{"X-GitHub-Event": "issues", "X-GitHub-Delivery": fmt.Sprintf("72d3162e-cc78-11e3-81ab-4c9367dc%04d", n),
				"X-GitHub-Hook-ID": "292430182", "User-Agent": "GitHub-Hookshot/044aadd"}
		},
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("72d3162e-cc78-11e3-81ab-4c9367dc%04d", n), NotificationType: "issues",
				Program: "octocat/Hello-World"}
		},
	},
	{
		scheme:  "shopify",
		env:     map[string]string{"SHOPIFY_CLIENT_SECRET": "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", "SHOPIFY_CLIENT_SECRET_PREVIOUS": "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"},
		current: "SHOPIFY_CLIENT_SECRET", prev: "SHOPIFY_CLIENT_SECRET_PREVIOUS",
		// An orders/create webhook: the order as the body, the topic and ids
		// in headers (shopify.dev/docs/apps/build/webhooks).
		body: func(n int) string {
			return fmt.Sprintf(`{"id":82098291194615450%d,"admin_graphql_api_id":"gid://shopify/Order/82098291194615450%d",`+
				`"created_at":"2024-05-01T05:59:00-04:00","currency":"USD","total_price":"199.65","financial_status":"paid",`+
				`"line_items":[{"id":866550311766439020,"quantity":1,"sku":"IPOD2008BLACK"}]}`, n, n)
		},
		headers: func(n int) map[string]string {
			return map[string]string{"X-Shopify-Topic": "orders/create", "X-Shopify-Webhook-Id": fmt.Sprintf("b54557e4-bdd9-4b37-8a5f-bf7d70bc%04d", n),
				"X-Shopify-Triggered-At": "2024-05-01T09:59:00.877041743Z", "X-Shopify-Shop-Domain": "example.myshopify.com",
				"X-Shopify-API-Version": "2024-04", "X-Shopify-Event-Id": fmt.Sprintf("98880550-7158-44d4-b7cd-2c97c8a0%04d", n)}
		},
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("b54557e4-bdd9-4b37-8a5f-bf7d70bc%04d", n), NotificationType: "orders/create",
				CreationDate: time.Date(2024, 5, 1, 9, 59, 0, 877e6, time.UTC), ObjectToken: fmt.Sprintf("gid://shopify/Order/82098291194615450%d", n),
				Program: "example.myshopify.com"}
		},
	},
	{
		scheme:  "slack",
		env:     map[string]string{"SLACK_SIGNING_SECRET": "8f742231b10e8888abcd99yyyzzz85a5", "SLACK_SIGNING_SECRET_PREVIOUS": "5a58zzzyyy99dcba8888e01b132247f8"},
		current: "SLACK_SIGNING_SECRET", prev: "SLACK_SIGNING_SECRET_PREVIOUS", stamped: true,
		// An Events API event_callback (api.slack.com/apis/events-api#callback-field).
		body: func(n int) string {
			return fmt.Sprintf(`{"token":"XXYYZZ","team_id":"T061EG9R6","api_app_id":"A0PNCHHK2","event":{"type":"app_mention",`+
				`"user":"U061F7AUR","text":"<@U0LAN0Z89> is it everything a river should be?","ts":"1515449522.000016",`+
				`"channel":"C123ABC456","event_ts":"1515449522000016"},"type":"event_callback","event_id":"Ev0PV52K2%d",`+
				`"event_time":1714557540,"authed_users":["U061F7AUR"]}`, n)
		},
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("Ev0PV52K2%d", n), NotificationType: "app_mention",
				CreationDate: time.Unix(1714557540, 0).UTC(), Program: "T061EG9R6"}
		},
	},
	{
		scheme:  "hmac-sha256",
		env:     map[string]string{"CARRIER_WEBHOOK_SECRET": "carrier-secret-2024", "CARRIER_WEBHOOK_SECRET_PREVIOUS": "carrier-secret-2023"},
		current: "CARRIER_WEBHOOK_SECRET", prev: "CARRIER_WEBHOOK_SECRET_PREVIOUS",
		body: func(n int) string {
			return fmt.Sprintf(`{"event":{"id":"evt_%d","type":"shipment.delivered","created_at":1714557540000},"data":{"shipment_id":"shp_%d","carrier":"DHL"}}`, n, n)
		},
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("evt_%d", n), NotificationType: "shipment.delivered",
				CreationDate: time.UnixMilli(1714557540000).UTC(), ObjectToken: fmt.Sprintf("shp_%d", n)}
		},
	},
	{
		scheme:  "sluice",
		env:     map[string]string{"BILLING_WEBHOOK_SECRET": "billing-secret-0123456789", "BILLING_WEBHOOK_SECRET_PREVIOUS": "billing-secret-old-0123456789"},
		current: "BILLING_WEBHOOK_SECRET", prev: "BILLING_WEBHOOK_SECRET_PREVIOUS", stamped: true,
		body: func(n int) string {
			return fmt.Sprintf(`{"token":"wbh-%d","type":"PAYMENT.COMPLETED","createdOn":"2024-05-01T09:59:00Z","object":{"token":"pmt-%d","programToken":"prg-1"}}`, n, n)
		},
		want: func(n int) notifications.Record {
			return notifications.Record{WebhookToken: fmt.Sprintf("wbh-%d", n), NotificationType: "PAYMENT.COMPLETED",
				CreationDate: created, ObjectToken: fmt.Sprintf("pmt-%d", n), Program: "prg-1"}
		},
		// Sluice's own scheme: signed in Go, as a Sluice sender does.
		sign: func(secret string, ts int64, body string) map[string]string {
			return map[string]string{notifications.HeaderTimestamp: strconv.FormatInt(ts, 10),
				notifications.HeaderSignature: notifications.SignWebhook(secret, ts, []byte(body))}
		},
	},
}

// providerService serves the scheme's config file from testdata/sources.
func providerService(t *testing.T, p provider, now time.Time) (*notifications.Service, notifications.Store, string) {
	t.Helper()
	srcs, err := notifications.LoadSources(filepath.Join("testdata", "sources", p.scheme+".yaml"), func(k string) string { return p.env[k] })
	require.NoError(t, err)
	require.Len(t, srcs, 1)
	cfg := testConfig()
	cfg.Sources = srcs
	cfg.ManagementAPI = true
	st := openStore(t)
	svc := newService(t, cfg, st, notifications.WithClock(func() time.Time { return now }))
	return svc, st, srcs[0].Path
}

// One test per scheme × {valid, wrong secret, tampered body, expired
// timestamp, rotated secret, replay}, each delivery signed by the
// provider's own code.
func TestProviders(t *testing.T) {
	t.Parallel()
	sign := nodeSigner(t)
	for _, p := range providers {
		t.Run(p.scheme, func(t *testing.T) {
			t.Parallel()
			now := time.Now().UTC().Truncate(time.Second)
			svc, st, path := providerService(t, p, now)
			cases := []struct {
				name   string
				n      int
				secret string
				age    time.Duration
			}{
				{"valid", 1, p.env[p.current], 0},
				{"wrong secret", 2, "not-the-secret-" + p.env[p.current], 0},
				{"tampered body", 3, p.env[p.current], 0},
				{"expired timestamp", 4, p.env[p.current], 10 * time.Minute},
				{"rotated secret", 5, p.env[p.prev], 0},
				{"replay", 6, p.env[p.current], 0},
			}
			if p.scheme == "standard" {
				cases[1].secret = "whsec_bm90LXRoZS1zZWNyZXQtYXQtYWxsLTEyMzQ1Ng=="
			}
			signed := make([]map[string]string, len(cases))
			var jobs []signJob
			for _, c := range cases {
				j := signJob{Scheme: p.scheme, Secret: c.secret, Body: p.body(c.n), Timestamp: now.Add(-c.age).Unix()}
				if p.id != nil {
					j.ID = p.id(c.n)
				}
				jobs = append(jobs, j)
			}
			if p.sign != nil {
				for i, j := range jobs {
					signed[i] = p.sign(j.Secret, j.Timestamp, j.Body)
				}
			} else {
				signed = sign(jobs)
			}
			send := func(n int, body string, sig map[string]string) (int, string) {
				var h []string
				if p.headers != nil {
					for k, v := range p.headers(n) {
						h = append(h, k, v)
					}
				}
				for k, v := range sig {
					h = append(h, k, v)
				}
				return do(t, svc, "POST", path, body, h...)
			}
			stored := func(n int) (notifications.Record, error) {
				return st.Get(context.Background(), p.want(n).WebhookToken)
			}
			check := func(n int) {
				t.Helper()
				got, err := stored(n)
				require.NoError(t, err)
				w := p.want(n)
				if w.CreationDate.IsZero() {
					w.CreationDate = now
				}
				require.Equal(t, w.WebhookToken, got.WebhookToken)
				require.Equal(t, w.NotificationType, got.NotificationType, "type as received")
				require.Equal(t, w.CreationDate, got.CreationDate, "createdOn")
				require.Equal(t, w.ObjectToken, got.ObjectToken)
				require.Equal(t, w.Program, got.Program)
				require.Equal(t, now, got.ReceptionDate)
				require.Equal(t, p.body(n), string(got.Payload), "the body is stored as received")
				require.Equal(t, svc.Sources()[1].Name, got.Source)
			}
			refused := func(n int, code int, body, msg string) {
				t.Helper()
				require.Equal(t, 401, code, body)
				var e struct{ ErrorMessage string }
				require.NoError(t, json.Unmarshal([]byte(body), &e), body)
				require.Contains(t, e.ErrorMessage, msg)
				for _, sig := range signed {
					for _, v := range sig {
						if len(v) > 12 {
							require.NotContains(t, body, v, "a signature is never echoed")
						}
					}
				}
				_, err := stored(n)
				require.ErrorIs(t, err, notifications.ErrNotFound, "nothing stored")
			}

			t.Run("valid", func(t *testing.T) {
				code, body := send(1, p.body(1), signed[0])
				require.Equal(t, 200, code, body)
				require.Empty(t, body)
				check(1)
			})
			mismatch, stale := "matches a secret", "tolerance"
			if p.scheme == "sluice" {
				mismatch, stale = "no valid v1 signature", "from now"
			}
			t.Run("wrong secret", func(t *testing.T) {
				code, body := send(2, p.body(2), signed[1])
				refused(2, code, body, mismatch)
			})
			t.Run("tampered body", func(t *testing.T) {
				tampered := strings.Replace(p.body(3), `"`, `" `, 1) // the same JSON, other bytes
				code, body := send(3, tampered, signed[2])
				refused(3, code, body, mismatch)
			})
			t.Run("expired timestamp", func(t *testing.T) {
				if !p.stamped {
					// Nothing to expire: such a provider's replays are caught by
					// their delivery id (see "replay").
					t.Skipf("%s signs no timestamp", p.scheme)
				}
				code, body := send(4, p.body(4), signed[3])
				refused(4, code, body, stale)
			})
			t.Run("rotated secret", func(t *testing.T) {
				sig := signed[4]
				h := p.headers
				if p.scheme == "shopify" {
					// Shopify's newer deliveries name their headers without X-.
					renamed := map[string]string{}
					for k, v := range sig {
						renamed[strings.TrimPrefix(k, "X-")] = v
					}
					sig = renamed
					p.headers = func(n int) map[string]string {
						out := map[string]string{}
						for k, v := range h(n) {
							out[strings.TrimPrefix(k, "X-")] = v
						}
						return out
					}
					defer func() { p.headers = h }()
				}
				code, body := send(5, p.body(5), sig)
				require.Equal(t, 200, code, body)
				check(5)
			})
			t.Run("replay", func(t *testing.T) {
				for range 2 {
					code, body := send(6, p.body(6), signed[5])
					require.Equal(t, 200, code, body)
				}
				check(6)
				code, body := do(t, svc, "GET", "/webhooks/notifications/"+p.want(6).WebhookToken, "")
				require.Equal(t, 200, code, body)
				recs, err := st.List(context.Background(), notifications.Range{})
				require.NoError(t, err)
				n := 0
				for _, r := range recs {
					if r.WebhookToken == p.want(6).WebhookToken {
						n++
					}
				}
				require.Equal(t, 1, n, "a replayed delivery is stored once")
				_, metrics := do(t, svc, "GET", "/metrics", "")
				require.Contains(t, metrics, fmt.Sprintf(`sluice_notifications_discarded_total{reason="duplicate",source=%q} 1`, svc.Sources()[1].Name))
			})
		})
	}
}
