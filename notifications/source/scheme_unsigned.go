package source

import "time"

// unsigned takes every delivery: the HMC source without
// CONN_WEBHOOK_SECRET (docs/http-api.md#intake). A config file cannot name
// it: every configured source is signed.
type unsigned struct{}

func (unsigned) Name() string                            { return "none" }
func (unsigned) Verify(Headers, []byte, time.Time) error { return nil }
func (unsigned) Defaults() MappingConfig                 { return MappingConfig{} }
func (unsigned) SignatureHeaders() []string              { return nil }
