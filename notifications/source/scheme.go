package source

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Headers reads a request's headers by name, case-insensitively
// (http.Header does; the sidecar passes Fiber's).
type Headers interface {
	Get(name string) string
}

// Scheme verifies the signature of a delivery: the verify stage of intake
// (docs/sidecar.md#schemes). Each scheme is one small type in its own file,
// exactly as its provider documents it.
type Scheme interface {
	// Name is the scheme's name in the config file.
	Name() string
	// Verify checks the signature of body, received with headers h at
	// now. The error says what is missing or wrong; it never quotes a
	// secret or a signature.
	Verify(h Headers, body []byte, now time.Time) error
	// Defaults are the mapping keys a source of this scheme leaves out
	// (the provider's delivery id as token, its event type, …).
	Defaults() MappingConfig
	// SignatureHeaders name the headers carrying signatures, kept out of
	// quarantined headers.
	SignatureHeaders() []string
}

// challenger answers a provider's handshake instead of storing it (Slack's
// url_verification), after the signature is verified.
type challenger interface {
	Challenge(body []byte) (answer []byte, ok bool)
}

// aliaser reads a header under another name when absent (Shopify's
// X-Shopify-* and Shopify-*).
type aliaser interface {
	Alias(name string) string
}

// SchemeConfig is what a scheme is built from (docs/sidecar.md#config-file).
type SchemeConfig struct {
	Secrets   []string
	Tolerance time.Duration // 0: DefaultTolerance
	// Header, Encoding and Prefix configure hmac-sha256.
	Header   string
	Encoding string
	Prefix   string
}

// DefaultTolerance is how far a signed timestamp may be from now by default.
const DefaultTolerance = 5 * time.Minute

// schemeSpec declares a scheme: how it is built and which optional keys
// apply to it.
type schemeSpec struct {
	build      func(c SchemeConfig) (Scheme, error)
	timestamps bool // tolerance applies
	hmacKeys   bool // header, encoding, prefix apply
	needsToken bool // no delivery id: mapping.token must be set
}

// schemes are the schemes a config file may name.
var schemes = map[string]schemeSpec{
	"standard":    {build: newStandard, timestamps: true},
	"stripe":      {build: newStripe, timestamps: true},
	"github":      {build: newGitHub},
	"shopify":     {build: newShopify},
	"slack":       {build: newSlack, timestamps: true, needsToken: true},
	"hmac-sha256": {build: newHMAC, hmacKeys: true, needsToken: true},
	"sluice":      {build: newSluice, timestamps: true},
}

// SchemeNames lists the schemes a config file may name, sorted.
func SchemeNames() []string {
	out := make([]string, 0, len(schemes))
	for n := range schemes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (c *SchemeConfig) tolerance() time.Duration {
	if c.Tolerance <= 0 {
		return DefaultTolerance
	}
	return c.Tolerance
}

// rawKeys are secrets used as written (UTF-8 bytes), as Stripe, GitHub,
// Shopify, Slack and hmac-sha256 take them.
func rawKeys(secrets []string) ([][]byte, error) {
	if len(secrets) == 0 {
		return nil, errors.New("no secrets")
	}
	keys := make([][]byte, len(secrets))
	for i, s := range secrets {
		if s == "" {
			return nil, fmt.Errorf("secrets[%d] is empty", i)
		}
		keys[i] = []byte(s)
	}
	return keys, nil
}

// mac is HMAC-SHA256(key, parts…).
func mac(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// signedBy reports whether any of sigs is the HMAC-SHA256 of parts keyed
// with any of keys (rotation on both sides).
func signedBy(keys, sigs [][]byte, parts ...[]byte) bool {
	expected := make([][]byte, len(keys))
	for i, k := range keys {
		expected[i] = mac(k, parts...)
	}
	return anyMatch(expected, sigs)
}

// anyMatch reports whether any candidate signature equals any expected
// one, comparing every pair in constant time (hmac.Equal): no early exit
// tells a sender how far a guess got.
func anyMatch(expected, candidates [][]byte) bool {
	ok := 0
	for _, e := range expected {
		for _, c := range candidates {
			if hmac.Equal(e, c) {
				ok = 1
			}
		}
	}
	return ok == 1
}

// decodeHex decodes a hex signature; an undecodable one matches nothing.
func decodeHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return b
}

// decodeBase64 decodes a base64 signature, padded or not, standard or URL
// alphabet; an undecodable one matches nothing.
func decodeBase64(s string) []byte {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	return nil
}

// signedTime reads a signature timestamp header: an integer, Unix seconds,
// or milliseconds from 10^11 on (docs/sidecar.md#timestamps). text is the
// integer as it is signed.
func signedTime(header, v string) (t time.Time, text string, err error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, "", fmt.Errorf("missing %s", header)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, "", fmt.Errorf("%s %s is not a Unix time", header, quote(v))
	}
	t, err = UnixTime(float64(n))
	if err != nil {
		return time.Time{}, "", fmt.Errorf("%s %s is not a Unix time", header, quote(v))
	}
	return t, strconv.FormatInt(n, 10), nil
}

// checkAge refuses a timestamp older than tol, and with future one dated
// more than tol ahead.
func checkAge(header string, t, now time.Time, tol time.Duration, future bool) error {
	if now.Sub(t) > tol {
		return fmt.Errorf("%s is %s old, more than the tolerance of %s: the delivery is stale (re-send it)",
			header, now.Sub(t).Truncate(time.Second), tol)
	}
	if future && t.Sub(now) > tol {
		return fmt.Errorf("%s is %s ahead of this clock, more than the tolerance of %s", header, t.Sub(now).Truncate(time.Second), tol)
	}
	return nil
}

// quote renders a header value for a message: quoted, escaped, cut short.
func quote(v string) string {
	if len(v) > 64 {
		v = v[:64] + "…"
	}
	return strconv.QuoteToASCII(v)
}

// noMatch is the error of a signature that matches no secret.
func noMatch(header string) error {
	return fmt.Errorf("no signature in %s matches a secret of this source", header)
}
