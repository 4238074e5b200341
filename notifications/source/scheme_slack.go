package source

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// slack is Slack's request signature (docs/webhooks/slack.md):
//
//	X-Slack-Request-Timestamp: 1531420618
//	X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:<timestamp>:<body>")>
//
// A timestamp older than the tolerance is refused (as Slack's Bolt does).
// Slack sends no delivery id, so mapping.token must be set (event_id). A
// signed url_verification is answered with its challenge and stores
// nothing.
type slack struct {
	keys [][]byte
	tol  time.Duration
}

const (
	slackTimestamp = "X-Slack-Request-Timestamp"
	slackSignature = "X-Slack-Signature"
)

func newSlack(c SchemeConfig) (Scheme, error) {
	keys, err := rawKeys(c.Secrets)
	if err != nil {
		return nil, err
	}
	return &slack{keys: keys, tol: c.tolerance()}, nil
}

func (*slack) Name() string { return "slack" }

func (s *slack) Verify(h Headers, body []byte, now time.Time) error {
	t, ts, err := signedTime(slackTimestamp, h.Get(slackTimestamp))
	if err != nil {
		return err
	}
	if err := checkAge(slackTimestamp, t, now, s.tol, false); err != nil {
		return err
	}
	v := strings.TrimSpace(h.Get(slackSignature))
	if v == "" {
		return fmt.Errorf("missing %s", slackSignature)
	}
	hexSig, ok := strings.CutPrefix(v, "v0=")
	if !ok {
		return fmt.Errorf("%s must start with v0=", slackSignature)
	}
	if sig := decodeHex(hexSig); sig == nil || !signedBy(s.keys, [][]byte{sig}, []byte("v0:"+ts+":"), body) {
		return noMatch(slackSignature)
	}
	return nil
}

// Challenge answers Slack's url_verification with {"challenge": …}.
func (*slack) Challenge(body []byte) ([]byte, bool) {
	var v struct {
		Type      string  `json:"type"`
		Challenge *string `json:"challenge"`
	}
	if json.Unmarshal(body, &v) != nil || v.Type != "url_verification" || v.Challenge == nil {
		return nil, false
	}
	out, _ := json.Marshal(map[string]string{"challenge": *v.Challenge})
	return out, true
}

func (*slack) Defaults() MappingConfig {
	return MappingConfig{Type: "event.type", CreatedOn: "event_time"}
}

func (*slack) SignatureHeaders() []string { return []string{slackSignature} }
