package source

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func build(t *testing.T, c Config) *Source {
	t.Helper()
	if c.Name == "" {
		c.Name = "src"
	}
	s, err := c.Build()
	require.NoError(t, err)
	return s
}

// The examples the providers publish verify (and fail with one byte
// changed); providers_test.go signs with the providers' own code.
func TestPublishedVectors(t *testing.T) {
	t.Parallel()
	// Standard Webhooks' libraries' test vector.
	std := build(t, Config{Scheme: "standard", Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}})
	at := time.Unix(1614265330, 0)
	body := []byte(`{"test": 2432232314}`)
	h := hdr("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp", "1614265330",
		"webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	require.NoError(t, std.Verify(h, body, at))
	require.Error(t, std.Verify(h, []byte(`{"test": 2432232315}`), at))
	// Several signatures, space-delimited, an asymmetric one ignored.
	h.Set("webhook-signature", "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE= v1,bm9wZQ== v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	require.NoError(t, std.Verify(h, body, at))
	h.Set("webhook-signature", "v1a,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	require.ErrorContains(t, std.Verify(h, body, at), "want v1,<base64>", "only symmetric signatures")

	// GitHub's documented example (docs.github.com, validating webhook deliveries).
	gh := build(t, Config{Scheme: "github", Secrets: []string{"It's a Secret to Everybody"}})
	require.NoError(t, gh.Verify(hdr("X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"),
		[]byte("Hello, World!"), time.Now()))
	require.Error(t, gh.Verify(hdr("X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"),
		[]byte("Hello, World?"), time.Now()))
	require.ErrorContains(t, gh.Verify(hdr("X-Hub-Signature", "sha1=00"), []byte("x"), time.Now()), "SHA-1 is not accepted")
}

// Timestamps: stale ones are refused by every scheme that signs one; ones
// ahead of the clock only by standard and sluice (as their providers
// document); a number from 10^11 on is milliseconds.
func TestTolerance(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	body := []byte(`{"id":"e1"}`)
	sign := func(scheme string, ts time.Time, ms bool) http.Header {
		n := ts.Unix()
		if ms {
			n = ts.UnixMilli()
		}
		text := strconv.FormatInt(n, 10)
		switch scheme {
		case "standard":
			key := []byte("0123456789abcdef0123456789abcdef")
			sig := mac(key, []byte("msg_1."+text+"."), body)
			return hdr("webhook-id", "msg_1", "webhook-timestamp", text, "webhook-signature", "v1,"+b64(sig))
		case "stripe":
			return hdr("Stripe-Signature", "t="+text+",v1="+hexs(mac([]byte("whsec_x"), []byte(text+"."), body)))
		case "slack":
			return hdr("X-Slack-Request-Timestamp", text, "X-Slack-Signature", "v0="+hexs(mac([]byte("slack-secret"), []byte("v0:"+text+":"), body)))
		default:
			return hdr(HeaderTimestamp, text, HeaderSignature, Sign("sluice-secret-0123456789", n, body))
		}
	}
	srcs := map[string]*Source{
		"standard": build(t, Config{Scheme: "standard", Secrets: []string{"whsec_" + b64([]byte("0123456789abcdef0123456789abcdef"))}}),
		"stripe":   build(t, Config{Scheme: "stripe", Secrets: []string{"whsec_x"}}),
		"slack":    build(t, Config{Scheme: "slack", Secrets: []string{"slack-secret"}, Mapping: MappingConfig{Token: "id"}}),
		"sluice":   build(t, Config{Scheme: "sluice", Secrets: []string{"sluice-secret-0123456789"}}),
	}
	for name, src := range srcs {
		require.NoError(t, src.Verify(sign(name, now.Add(-4*time.Minute), false), body, now), name)
		require.NoError(t, src.Verify(sign(name, now.Add(-4*time.Minute), true), body, now), "%s: milliseconds", name)
		require.Error(t, src.Verify(sign(name, now.Add(-6*time.Minute), false), body, now), "%s: stale", name)
		future := src.Verify(sign(name, now.Add(6*time.Minute), false), body, now)
		if name == "standard" || name == "sluice" {
			require.Error(t, future, "%s refuses a timestamp ahead", name)
		} else {
			require.NoError(t, future, "%s takes a timestamp ahead, as its provider's library does", name)
		}
	}
}

// Rotation: any configured secret verifies, and a sender's several
// signatures (Stripe while rolling a secret) are all tried.
func TestRotation(t *testing.T) {
	t.Parallel()
	now := time.Unix(1714557540, 0)
	body := []byte(`{"id":"evt_1"}`)
	s := build(t, Config{Scheme: "stripe", Secrets: []string{"whsec_new", "whsec_old"}})
	old := hexs(mac([]byte("whsec_old"), []byte("1714557540."), body))
	other := hexs(mac([]byte("whsec_other"), []byte("1714557540."), body))
	require.NoError(t, s.Verify(hdr("Stripe-Signature", "t=1714557540,v1="+other+",v1="+old+",v0=abc"), body, now))
	require.ErrorContains(t, s.Verify(hdr("Stripe-Signature", "t=1714557540,v1="+other), body, now), "matches a secret")
	require.ErrorContains(t, s.Verify(hdr("Stripe-Signature", "v1="+old), body, now), "no timestamp")
	require.ErrorContains(t, s.Verify(hdr("Stripe-Signature", "t=1714557540,v0="+old), body, now), "no v1 signature")
	require.ErrorContains(t, s.Verify(hdr(), body, now), "missing Stripe-Signature")
}

// Shopify: the newer header names without X- are read for the signature
// and for header: mappings.
func TestShopifyHeaderNames(t *testing.T) {
	t.Parallel()
	s := build(t, Config{Scheme: "shopify", Secrets: []string{"shpss_x"}})
	body := []byte(`{"id":1,"admin_graphql_api_id":"gid://shopify/Order/1"}`)
	sig := b64(mac([]byte("shpss_x"), body))
	now := time.Now()
	for _, prefix := range []string{"X-Shopify-", "Shopify-"} {
		h := hdr(prefix+"Hmac-Sha256", sig, prefix+"Webhook-Id", "wh-1", prefix+"Topic", "orders/create",
			prefix+"Triggered-At", "2024-05-01T09:59:00.877041743Z")
		require.NoError(t, s.Verify(h, body, now), prefix)
		rec, err := s.Map(body, h, now)
		require.NoError(t, err, prefix)
		require.Equal(t, "wh-1", rec.WebhookToken, prefix)
		require.Equal(t, "orders/create", rec.NotificationType, prefix)
		require.Equal(t, time.Date(2024, 5, 1, 9, 59, 0, 877e6, time.UTC), rec.CreationDate, prefix)
		require.Equal(t, "src", rec.Source)
	}
	require.ErrorContains(t, s.Verify(hdr(), body, now), "missing X-Shopify-Hmac-Sha256 (or Shopify-Hmac-Sha256)")
}

func TestHMACSHA256(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":{"id":"e1"}}`)
	now := time.Now()
	raw := mac([]byte("k1"), body)
	for _, tt := range []struct {
		encoding, prefix, value string
	}{
		{"hex", "", hexs(raw)},
		{"hex", "sha256=", "sha256=" + hexs(raw)},
		{"base64", "", b64(raw)},
		{"base64", "v1=", "v1=" + b64(raw)},
	} {
		s := build(t, Config{Scheme: "hmac-sha256", Header: "X-Signature", Encoding: tt.encoding, Prefix: tt.prefix,
			Secrets: []string{"k0", "k1"}, Mapping: MappingConfig{Token: "event.id"}})
		require.NoError(t, s.Verify(hdr("X-Signature", tt.value), body, now), "%+v", tt)
		require.Error(t, s.Verify(hdr("X-Signature", tt.value), append(body, ' '), now), "%+v", tt)
		if tt.prefix != "" {
			require.ErrorContains(t, s.Verify(hdr("X-Signature", tt.value[len(tt.prefix):]), body, now), "must start with")
		}
	}
}

// Every signature header is kept out of quarantine.
func TestSignatureHeaders(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{
		{Scheme: "standard", Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}},
		{Scheme: "stripe", Secrets: []string{"x"}}, {Scheme: "github", Secrets: []string{"x"}},
		{Scheme: "shopify", Secrets: []string{"x"}}, {Scheme: "slack", Secrets: []string{"x"}, Mapping: MappingConfig{Token: "id"}},
		{Scheme: "hmac-sha256", Header: "X-Hook-Auth", Secrets: []string{"x"}, Mapping: MappingConfig{Token: "id"}},
		{Scheme: "sluice", Secrets: []string{"sluice-secret-0123456789"}},
	} {
		s := build(t, c)
		require.NotEmpty(t, s.Scheme.SignatureHeaders(), c.Scheme)
		for _, h := range s.Scheme.SignatureHeaders() {
			require.True(t, s.IsSignatureHeader(h), c.Scheme)
		}
	}
	require.True(t, build(t, Config{Scheme: "hmac-sha256", Header: "X-Hook-Auth", Secrets: []string{"x"},
		Mapping: MappingConfig{Token: "id"}}).IsSignatureHeader("x-hook-auth"))
}

func TestMediaType(t *testing.T) {
	t.Parallel()
	s := build(t, Config{Scheme: "github", Secrets: []string{"x"}})
	require.Empty(t, s.RefusesMediaType("application/json; charset=utf-8"))
	require.Empty(t, s.RefusesMediaType(""))
	require.NotEmpty(t, s.RefusesMediaType("application/x-www-form-urlencoded"))
	require.NotEmpty(t, s.RefusesMediaType("multipart/form-data; boundary=x"))
	hmc, err := HMC(nil, 0)
	require.NoError(t, err)
	require.Empty(t, hmc.RefusesMediaType("application/x-www-form-urlencoded"), "the HMC source keeps its answers")
}
