package source

import (
	"fmt"
	"strings"
	"time"
)

// shopify is Shopify's webhook signature (docs/webhooks/shopify.md):
//
//	X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256(client secret, body)>
//
// Shopify's newer deliveries name their headers without the X- (
// Shopify-Hmac-Sha256, Shopify-Webhook-Id, …): both are read, for the
// signature and for header: mappings. Shopify signs no timestamp: a replay
// is caught by X-Shopify-Webhook-Id, the default token (map
// header:X-Shopify-Event-Id to de-duplicate by event instead).
type shopify struct{ keys [][]byte }

const shopifyHmac = "X-Shopify-Hmac-Sha256"

func newShopify(c SchemeConfig) (Scheme, error) {
	keys, err := rawKeys(c.Secrets)
	if err != nil {
		return nil, err
	}
	return &shopify{keys: keys}, nil
}

func (*shopify) Name() string { return "shopify" }

// Alias maps X-Shopify-Name to Shopify-Name and back.
func (*shopify) Alias(name string) string {
	if len(name) > 10 && strings.EqualFold(name[:10], "x-shopify-") {
		return "Shopify-" + name[10:]
	}
	if len(name) > 8 && strings.EqualFold(name[:8], "shopify-") {
		return "X-Shopify-" + name[8:]
	}
	return ""
}

func (s *shopify) Verify(h Headers, body []byte, _ time.Time) error {
	v := strings.TrimSpace(readHeader(s, h, shopifyHmac))
	if v == "" {
		return fmt.Errorf("missing %s (or Shopify-Hmac-Sha256)", shopifyHmac)
	}
	if sig := decodeBase64(v); sig == nil || !signedBy(s.keys, [][]byte{sig}, body) {
		return noMatch(shopifyHmac)
	}
	return nil
}

func (*shopify) Defaults() MappingConfig {
	return MappingConfig{Token: headerPrefix + "X-Shopify-Webhook-Id", Type: headerPrefix + "X-Shopify-Topic",
		CreatedOn: headerPrefix + "X-Shopify-Triggered-At"}
}

func (*shopify) SignatureHeaders() []string { return []string{shopifyHmac, "Shopify-Hmac-Sha256"} }
