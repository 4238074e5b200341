package source

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Sluice's own scheme (docs/http-api.md#signed-intake), after Standard
// Webhooks: the sender signs "<timestamp>.<body>" with HMAC-SHA256 and
// sends
//
//	X-Sluice-Timestamp: <Unix seconds>
//	X-Sluice-Signature: v1=<hex> [v1=<hex> …]
//
// Several signatures let a sender sign with old and new secrets while
// rotating; several secrets let the sidecar accept either. The timestamp
// may be neither older nor newer than the tolerance.
const (
	HeaderTimestamp = "X-Sluice-Timestamp"
	HeaderSignature = "X-Sluice-Signature"
)

// MinSluiceSecret is the shortest secret the sluice scheme accepts.
const MinSluiceSecret = 16

// Sign returns the X-Sluice-Signature value ("v1=<hex>") of body sent at
// ts (Unix seconds) with secret.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

type sluice struct {
	keys [][]byte
	tol  time.Duration
	// hint ends the messages of the HMC source, whose secrets come from
	// CONN_WEBHOOK_SECRET.
	hint string
}

func newSluice(c SchemeConfig) (Scheme, error) {
	keys, err := rawKeys(c.Secrets)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if len(k) < MinSluiceSecret {
			return nil, fmt.Errorf("secrets[%d] is shorter than %d bytes", i, MinSluiceSecret)
		}
	}
	return &sluice{keys: keys, tol: c.tolerance()}, nil
}

func (*sluice) Name() string { return "sluice" }

func (s *sluice) Verify(h Headers, body []byte, now time.Time) error {
	tsText := strings.TrimSpace(h.Get(HeaderTimestamp))
	if tsText == "" {
		return fmt.Errorf("missing %s (Unix seconds)%s", HeaderTimestamp, s.hint)
	}
	t, ts, err := signedTime(HeaderTimestamp, tsText)
	if err != nil {
		return fmt.Errorf("%s %s is not Unix seconds", HeaderTimestamp, quote(tsText))
	}
	if d := now.Sub(t); d > s.tol || -d > s.tol {
		return fmt.Errorf("%s %s is more than %s from now: re-sign the delivery", HeaderTimestamp, ts, s.tol)
	}
	var sigs [][]byte
	for _, f := range strings.Fields(strings.ReplaceAll(h.Get(HeaderSignature), ",", " ")) {
		if v, ok := strings.CutPrefix(f, "v1="); ok {
			if b := decodeHex(v); b != nil {
				sigs = append(sigs, b)
			}
		}
	}
	if len(sigs) == 0 {
		return fmt.Errorf("missing %s%s", HeaderSignature, s.hint)
	}
	if !signedBy(s.keys, sigs, []byte(ts), []byte{'.'}, body) {
		return fmt.Errorf("no valid v1 signature in %s", HeaderSignature)
	}
	return nil
}

func (*sluice) Defaults() MappingConfig {
	return MappingConfig{Token: "token", Type: "type", CreatedOn: "createdOn", ObjectToken: "object.token",
		Program: "object.programToken"}
}

func (*sluice) SignatureHeaders() []string { return []string{HeaderSignature, HeaderTimestamp} }
