package source

import (
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"time"
)

// hmacSHA256 is the generic scheme for providers not listed
// (docs/webhooks/hmac-sha256.md): a named header carries the HMAC-SHA256 of
// the body keyed with the secret as written, hex or base64, after an
// optional prefix (`sha256=`). It signs no timestamp and has no delivery
// id: mapping.token must be set.
type hmacSHA256 struct {
	keys     [][]byte
	header   string
	base64   bool
	prefix   string
	encoding string
}

func newHMAC(c SchemeConfig) (Scheme, error) {
	keys, err := rawKeys(c.Secrets)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Header) == "" {
		return nil, errors.New("header is required: the header carrying the signature (e.g. X-Signature)")
	}
	if strings.ContainsAny(c.Header, " \t:()<>@,;\\\"/[]?={}") {
		return nil, fmt.Errorf("header %q is not a header name", c.Header)
	}
	s := &hmacSHA256{keys: keys, header: textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(c.Header)), prefix: c.Prefix}
	switch strings.ToLower(c.Encoding) {
	case "", "hex":
		s.encoding = "hex"
	case "base64":
		s.base64, s.encoding = true, "base64"
	default:
		return nil, fmt.Errorf("encoding %q is not hex or base64", c.Encoding)
	}
	return s, nil
}

func (*hmacSHA256) Name() string { return "hmac-sha256" }

func (s *hmacSHA256) Verify(h Headers, body []byte, _ time.Time) error {
	v := strings.TrimSpace(h.Get(s.header))
	if v == "" {
		return fmt.Errorf("missing %s", s.header)
	}
	v, ok := strings.CutPrefix(v, s.prefix)
	if !ok {
		return fmt.Errorf("%s must start with %s", s.header, quote(s.prefix))
	}
	var sig []byte
	if s.base64 {
		sig = decodeBase64(v)
	} else {
		sig = decodeHex(v)
	}
	if sig == nil || !signedBy(s.keys, [][]byte{sig}, body) {
		return fmt.Errorf("no %s signature in %s matches a secret of this source", s.encoding, s.header)
	}
	return nil
}

func (*hmacSHA256) Defaults() MappingConfig { return MappingConfig{Type: "type"} }

func (s *hmacSHA256) SignatureHeaders() []string { return []string{s.header} }
