package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Signed intake (CONN_WEBHOOK_SECRET; see docs/http-api.md#signed-intake),
// after Standard Webhooks: the sender signs timestamp + "." + body with
// HMAC-SHA256 and sends
//
//	X-Sluice-Timestamp: <Unix seconds>
//	X-Sluice-Signature: v1=<hex> [v1=<hex> …]
//
// Several signatures let a sender sign with old and new secrets while
// rotating; several secrets let the sidecar accept either.
const (
	HeaderTimestamp = "X-Sluice-Timestamp"
	HeaderSignature = "X-Sluice-Signature"
)

// Sign returns the v1 signature of body at ts with secret.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// verifySignature checks the request's signature over body; the error
// says what is missing or wrong, never echoing a signature.
func (s *API) verifySignature(c *fiber.Ctx, body []byte) error {
	tsText := strings.TrimSpace(c.Get(HeaderTimestamp))
	if tsText == "" {
		return fmt.Errorf("missing %s (Unix seconds): CONN_WEBHOOK_SECRET requires signed deliveries", HeaderTimestamp)
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%s %s is not Unix seconds", HeaderTimestamp, quoteHeader(tsText))
	}
	now := s.now().Unix()
	tol := int64(s.cfg.WebhookTolerance / time.Second)
	if ts < now-tol || ts > now+tol {
		return fmt.Errorf("%s %d is more than %s from now: re-sign the delivery", HeaderTimestamp, ts, s.cfg.WebhookTolerance)
	}
	sigs := strings.Fields(strings.ReplaceAll(c.Get(HeaderSignature), ",", " "))
	if len(sigs) == 0 {
		return fmt.Errorf("missing %s: CONN_WEBHOOK_SECRET requires signed deliveries", HeaderSignature)
	}
	// Every secret against every v1 signature, each compared in constant time.
	ok := 0
	for _, secret := range s.cfg.WebhookSecrets {
		want := []byte(Sign(secret, ts, body))
		for _, sig := range sigs {
			ok |= hmacEqual(want, []byte(sig))
		}
	}
	if ok != 1 {
		return fmt.Errorf("no valid v1 signature in %s", HeaderSignature)
	}
	return nil
}

func hmacEqual(a, b []byte) int {
	if hmac.Equal(a, b) {
		return 1
	}
	return 0
}
