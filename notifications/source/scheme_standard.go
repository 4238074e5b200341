package source

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// standard is Standard Webhooks (docs/webhooks/standard.md): the sender
// signs "<webhook-id>.<webhook-timestamp>.<body>" with HMAC-SHA256 and
// sends
//
//	webhook-id: msg_2KWPBgLlAfxdpx2AI54pPJ85f4W
//	webhook-timestamp: 1674087231
//	webhook-signature: v1,<base64> [v1,<base64> …]
//
// The secret is "whsec_" and the base64 of the key. Only symmetric ("v1,")
// signatures are accepted; the timestamp may be neither older nor newer
// than the tolerance. The webhook-id is the default token.
type standard struct {
	keys [][]byte
	tol  time.Duration
}

const (
	standardID        = "webhook-id"
	standardTimestamp = "webhook-timestamp"
	standardSignature = "webhook-signature"
	standardPrefix    = "whsec_"
)

func newStandard(c SchemeConfig) (Scheme, error) {
	if len(c.Secrets) == 0 {
		return nil, fmt.Errorf("no secrets")
	}
	s := &standard{tol: c.tolerance()}
	for i, sec := range c.Secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sec, standardPrefix))
		if err != nil || len(key) == 0 {
			// The value is a secret: not quoted.
			return nil, fmt.Errorf("secrets[%d] is not %s followed by base64 (as the provider shows it)", i, standardPrefix)
		}
		s.keys = append(s.keys, key)
	}
	return s, nil
}

func (*standard) Name() string { return "standard" }

func (s *standard) Verify(h Headers, body []byte, now time.Time) error {
	id := h.Get(standardID)
	if id == "" {
		return fmt.Errorf("missing %s", standardID)
	}
	t, ts, err := signedTime(standardTimestamp, h.Get(standardTimestamp))
	if err != nil {
		return err
	}
	if err := checkAge(standardTimestamp, t, now, s.tol, true); err != nil {
		return err
	}
	var sigs [][]byte
	for _, f := range strings.Fields(h.Get(standardSignature)) {
		if v, ok := strings.CutPrefix(f, "v1,"); ok {
			if b := decodeBase64(v); b != nil {
				sigs = append(sigs, b)
			}
		}
	}
	if len(sigs) == 0 {
		return fmt.Errorf("missing %s: want v1,<base64>", standardSignature)
	}
	if !signedBy(s.keys, sigs, []byte(id), []byte{'.'}, []byte(ts), []byte{'.'}, body) {
		return noMatch(standardSignature)
	}
	return nil
}

func (*standard) Defaults() MappingConfig {
	return MappingConfig{Token: headerPrefix + standardID, Type: "type", CreatedOn: "timestamp"}
}

func (*standard) SignatureHeaders() []string { return []string{standardSignature} }
