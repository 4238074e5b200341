package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sources.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

var testEnv = map[string]string{"STRIPE_SECRET": "whsec_from_env", "EMPTY": " "}

func getenv(k string) string { return testEnv[k] }

func TestLoadFile(t *testing.T) {
	t.Parallel()
	p := writeFile(t, `sources:
  - name: stripe
    scheme: stripe
    secrets:
      - ${env:STRIPE_SECRET}
      - whsec_previous
    tolerance: PT2M
    mapping:
      objectToken: data.object.id
    marketplace: https://shop.example/stripe?key=k1
  - name: partner
    path: /in/partner/
    scheme: hmac-sha256
    header: x-partner-signature
    encoding: base64
    prefix: "sha256="
    secrets: "a-secret, another-secret"
    mapping: {token: event.id, type: header:X-Event}
`)
	srcs, err := LoadFile(p, getenv)
	require.NoError(t, err)
	require.Len(t, srcs, 2)
	s := srcs[0]
	require.Equal(t, "stripe", s.Name)
	require.Equal(t, "/webhooks/stripe", s.Path)
	require.Equal(t, "https://shop.example/stripe?key=k1", s.Marketplace)
	require.True(t, s.JSONOnly)
	st := s.Scheme.(*stripe)
	require.Equal(t, [][]byte{[]byte("whsec_from_env"), []byte("whsec_previous")}, st.keys)
	require.Equal(t, 2*time.Minute, st.tol)
	require.Equal(t, MappingConfig{Token: "id", Type: "type", CreatedOn: "created", ObjectToken: "data.object.id"},
		s.Mapping.Config(), "the scheme's defaults fill the keys left out")

	p2 := srcs[1]
	require.Equal(t, "/in/partner", p2.Path, "a trailing slash is dropped")
	h := p2.Scheme.(*hmacSHA256)
	require.Equal(t, "X-Partner-Signature", h.header)
	require.True(t, h.base64)
	require.Equal(t, "sha256=", h.prefix)
	require.Len(t, h.keys, 2, "a text of comma-separated secrets")
	require.Equal(t, MappingConfig{Token: "event.id", Type: "header:X-Event"}, p2.Mapping.Config())
}

// A bad file stops start-up with one error naming the file, the line and
// what is wrong, never a secret.
func TestLoadFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{"unknown key", "sources:\n  - name: s\n    scheme: stripe\n    secret: [whsec_1]\n",
			[]string{`line 4`, `source "s": unknown key "secret" (did you mean "secrets"?)`}},
		{"unknown top key", "source:\n  - name: s\n", []string{`line 1`, `unknown key "source" (did you mean "sources"?)`}},
		{"unknown mapping key", "sources:\n  - name: s\n    scheme: stripe\n    secrets: [x]\n    mapping:\n      tokn: id\n",
			[]string{`line 6`, `unknown key mapping.tokn (did you mean "token"?)`}},
		{"unknown scheme", "sources:\n  - name: s\n    scheme: stripey\n    secrets: [x]\n",
			[]string{`line 2`, `unknown scheme "stripey" (did you mean "stripe"?)`, "github, hmac-sha256"}},
		{"no scheme", "sources:\n  - name: s\n    secrets: [x]\n", []string{"scheme is required"}},
		{"no secrets", "sources:\n  - name: s\n    scheme: github\n", []string{`source "s": secrets: at least one secret is required`}},
		{"empty secrets", "sources:\n  - name: s\n    scheme: github\n    secrets: []\n", []string{"at least one secret"}},
		{"unset env secret", "sources:\n  - name: s\n    scheme: github\n    secrets:\n      - ${env:NOPE}\n",
			[]string{`line 5`, `secret ${env:NOPE}: the variable is not set`}},
		{"blank env secret", "sources:\n  - name: s\n    scheme: github\n    secrets:\n      - ${env:EMPTY}\n", []string{"${env:EMPTY}"}},
		{"duplicate name", "sources:\n  - name: s\n    scheme: github\n    secrets: [x]\n  - name: s\n    scheme: shopify\n    secrets: [y]\n",
			[]string{`line 5`, `source "s" is defined twice (first on line 2)`}},
		{"duplicate path", "sources:\n  - name: a\n    scheme: github\n    secrets: [x]\n  - name: b\n    path: /webhooks/a\n    scheme: github\n    secrets: [y]\n",
			[]string{`source "b": path /webhooks/a is source "a"'s already`}},
		{"HMC name", "sources:\n  - name: notifications\n    scheme: github\n    secrets: [x]\n", []string{"is the HMC source", "cannot be redefined"}},
		{"reserved path", "sources:\n  - name: a\n    path: /management/hooks\n    scheme: github\n    secrets: [x]\n",
			[]string{"collides with the sidecar's endpoint /management"}},
		{"path with a query", "sources:\n  - name: a\n    path: /in?x=1\n    scheme: github\n    secrets: [x]\n", []string{"can never match a request"}},
		{"path with a parameter", "sources:\n  - name: a\n    path: /in/:id\n    scheme: github\n    secrets: [x]\n", []string{"can never match a request"}},
		{"relative path", "sources:\n  - name: a\n    path: in\n    scheme: github\n    secrets: [x]\n", []string{"must start with /"}},
		{"bad name", "sources:\n  - name: a b\n    scheme: github\n    secrets: [x]\n", []string{`name "a b"`}},
		{"no name", "sources:\n  - scheme: github\n    secrets: [x]\n", []string{"source #1: name is required"}},
		{"tolerance without timestamps", "sources:\n  - name: g\n    scheme: github\n    secrets: [x]\n    tolerance: 1m\n",
			[]string{"tolerance: scheme github signs no timestamp"}},
		{"bad tolerance", "sources:\n  - name: g\n    scheme: stripe\n    secrets: [x]\n    tolerance: soon\n", []string{`tolerance "soon" is not a positive duration`}},
		{"header on stripe", "sources:\n  - name: g\n    scheme: stripe\n    secrets: [x]\n    header: X-Sig\n", []string{"header applies to scheme hmac-sha256 only"}},
		{"hmac without header", "sources:\n  - name: g\n    scheme: hmac-sha256\n    secrets: [x]\n    mapping: {token: id}\n", []string{"header is required"}},
		{"hmac bad encoding", "sources:\n  - name: g\n    scheme: hmac-sha256\n    header: X-S\n    encoding: base32\n    secrets: [x]\n    mapping: {token: id}\n",
			[]string{`encoding "base32" is not hex or base64`}},
		{"hmac without token", "sources:\n  - name: g\n    scheme: hmac-sha256\n    header: X-S\n    secrets: [x]\n", []string{"mapping.token is required for scheme hmac-sha256"}},
		{"slack without token", "sources:\n  - name: s\n    scheme: slack\n    secrets: [x]\n", []string{"mapping.token is required for scheme slack", "event_id"}},
		{"bad standard secret", "sources:\n  - name: s\n    scheme: standard\n    secrets: [\"whsec_not base64!\"]\n", []string{"secrets[0] is not whsec_ followed by base64"}},
		{"short sluice secret", "sources:\n  - name: s\n    scheme: sluice\n    secrets: [tiny-1]\n", []string{"secrets[0] is shorter than 16 bytes"}},
		{"bad mapping path", "sources:\n  - name: s\n    scheme: stripe\n    secrets: [x]\n    mapping: {objectToken: data..id}\n", []string{"mapping.objectToken", "empty key"}},
		{"bad mapping header", "sources:\n  - name: s\n    scheme: stripe\n    secrets: [x]\n    mapping: {type: \"header:\"}\n", []string{"does not name a header"}},
		{"mapping not a mapping", "sources:\n  - name: s\n    scheme: stripe\n    secrets: [x]\n    mapping: id\n", []string{"mapping must be a mapping"}},
		{"bad marketplace", "sources:\n  - name: s\n    scheme: stripe\n    secrets: [x]\n    marketplace: ftp://x\n", []string{"marketplace: must be an absolute http(s) URL"}},
		{"key twice", "sources:\n  - name: s\n    scheme: stripe\n    scheme: github\n    secrets: [x]\n", []string{`key "scheme" is given twice`}},
		{"not a list", "sources:\n  name: s\n", []string{"sources must be a list"}},
		{"not YAML", "sources: [\n", []string{"not YAML"}},
		{"empty", "", []string{"empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := writeFile(t, tt.text)
			_, err := LoadFile(p, getenv)
			require.Error(t, err)
			var fe *FileError
			require.True(t, errors.As(err, &fe), "%T", err)
			msg := err.Error()
			require.True(t, strings.HasPrefix(msg, "config "+p), msg)
			require.NotContains(t, msg, "\n", "one line")
			for _, w := range tt.want {
				require.Contains(t, msg, w)
			}
			for _, secret := range []string{"whsec_from_env", "whsec_not base64!", "tiny-1"} {
				if strings.Contains(tt.text, secret) {
					require.NotContains(t, msg, secret, "a secret is never quoted")
				}
			}
		})
	}
	_, err := LoadFile(filepath.Join(t.TempDir(), "missing.yaml"), getenv)
	require.ErrorContains(t, err, "missing.yaml: cannot read it: no such file or directory")
}
