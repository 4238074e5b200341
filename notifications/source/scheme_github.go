package source

import (
	"fmt"
	"strings"
	"time"
)

// github is GitHub's webhook signature (docs/webhooks/github.md):
//
//	X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>
//
// GitHub signs no timestamp: a replayed delivery is caught by its
// X-GitHub-Delivery id, the default token.
type github struct{ keys [][]byte }

const (
	githubSignature = "X-Hub-Signature-256"
	githubDelivery  = "X-GitHub-Delivery"
	githubEvent     = "X-GitHub-Event"
)

func newGitHub(c SchemeConfig) (Scheme, error) {
	keys, err := rawKeys(c.Secrets)
	if err != nil {
		return nil, err
	}
	return &github{keys: keys}, nil
}

func (*github) Name() string { return "github" }

func (g *github) Verify(h Headers, body []byte, _ time.Time) error {
	v := strings.TrimSpace(h.Get(githubSignature))
	if v == "" {
		return fmt.Errorf("missing %s (X-Hub-Signature with SHA-1 is not accepted)", githubSignature)
	}
	hexSig, ok := strings.CutPrefix(v, "sha256=")
	if !ok {
		return fmt.Errorf("%s must start with sha256=", githubSignature)
	}
	if sig := decodeHex(hexSig); sig == nil || !signedBy(g.keys, [][]byte{sig}, body) {
		return noMatch(githubSignature)
	}
	return nil
}

func (*github) Defaults() MappingConfig {
	return MappingConfig{Token: headerPrefix + githubDelivery, Type: headerPrefix + githubEvent}
}

func (*github) SignatureHeaders() []string { return []string{githubSignature, "X-Hub-Signature"} }
