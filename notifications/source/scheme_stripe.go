package source

import (
	"fmt"
	"strings"
	"time"
)

// stripe is Stripe's webhook signature (docs/webhooks/stripe.md): the
// header
//
//	Stripe-Signature: t=1492774577,v1=<hex>[,v1=<hex>…][,v0=…]
//
// where each v1 is the hex HMAC-SHA256 of "<t>.<body>" keyed with the
// endpoint's signing secret as written (whsec_…). Several v1 entries come
// while a secret is rolled. A timestamp older than the tolerance is refused
// (Stripe's libraries do not refuse one ahead of the clock). Stripe sends
// no delivery id header: the event's id is the default token.
type stripe struct {
	keys [][]byte
	tol  time.Duration
}

const stripeSignature = "Stripe-Signature"

func newStripe(c SchemeConfig) (Scheme, error) {
	keys, err := rawKeys(c.Secrets)
	if err != nil {
		return nil, err
	}
	return &stripe{keys: keys, tol: c.tolerance()}, nil
}

func (*stripe) Name() string { return "stripe" }

func (s *stripe) Verify(h Headers, body []byte, now time.Time) error {
	header := h.Get(stripeSignature)
	if header == "" {
		return fmt.Errorf("missing %s", stripeSignature)
	}
	var ts string
	var sigs [][]byte
	for _, item := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(item), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b := decodeHex(v); b != nil {
				sigs = append(sigs, b)
			}
		}
	}
	if ts == "" {
		return fmt.Errorf("%s has no timestamp (t=)", stripeSignature)
	}
	t, ts, err := signedTime(stripeSignature+" t", ts)
	if err != nil {
		return err
	}
	if len(sigs) == 0 {
		return fmt.Errorf("%s has no v1 signature", stripeSignature)
	}
	if !signedBy(s.keys, sigs, []byte(ts), []byte{'.'}, body) {
		return noMatch(stripeSignature)
	}
	// As Stripe's libraries: the signature first, then the age.
	return checkAge(stripeSignature+" t", t, now, s.tol, false)
}

func (*stripe) Defaults() MappingConfig {
	return MappingConfig{Token: "id", Type: "type", CreatedOn: "created"}
}

func (*stripe) SignatureHeaders() []string { return []string{stripeSignature} }
