package source

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// BenchmarkVerifyAndMap is the CPU of the verify and map stages per
// delivery: the HMC body (unsigned) against a Standard Webhooks delivery
// (HMAC-SHA256 checked, then mapped).
func BenchmarkVerifyAndMap(b *testing.B) {
	now := time.Now()
	hmcBody := []byte(`{"token":"wbh-1","type":"USERS.UPDATED.STATUS.ACTIVATED","createdOn":"2024-05-01T10:00:00.000Z",` +
		`"object":{"token":"usr-1","programToken":"prg-bench","status":"ACTIVATED","country":"FR"}}`)
	stdBody := []byte(`{"type":"user.activated","timestamp":"2024-05-01T10:00:00.000Z",` +
		`"data":{"id":"usr-1","program":"prg-bench","status":"ACTIVATED","country":"FR"}}`)
	hmc, err := HMC(nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	std, err := Config{Name: "acme", Scheme: "standard", Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		Mapping: MappingConfig{ObjectToken: "data.id"}}.Build()
	if err != nil {
		b.Fatal(err)
	}
	key := std.Scheme.(*standard).keys[0]
	ts := strconv.FormatInt(now.Unix(), 10)
	h := http.Header{}
	h.Set("webhook-id", "msg_1")
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+b64(mac(key, []byte("msg_1."+ts+"."), stdBody)))
	for _, c := range []struct {
		name string
		src  *Source
		body []byte
		h    http.Header
	}{{"hmc", hmc, hmcBody, nil}, {"standard", std, stdBody, h}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				if err := c.src.Verify(c.h, c.body, now); err != nil {
					b.Fatal(err)
				}
				if _, err := c.src.Map(c.body, c.h, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
