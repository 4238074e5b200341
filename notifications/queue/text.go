package queue

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxTokenBytes bounds every token (webhook, object, program): longer
// ones are refused with 400 by every store alike (see docs/http-api.md#intake).
const MaxTokenBytes = 255

// ValidUTF8 returns b with each byte of an invalid UTF-8 sequence replaced
// by U+FFFD, as encoding/json decodes them.
func ValidUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// CheckToken refuses a token a store could not keep as given: longer than
// MaxTokenBytes, holding a NUL, or not UTF-8. The error names the field
// and never echoes the value.
func CheckToken(field, v string) error {
	switch {
	case len(v) > MaxTokenBytes:
		return fmt.Errorf("%q is %d bytes long; at most %d are allowed", field, len(v), MaxTokenBytes)
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%q contains a NUL character", field)
	case !utf8.ValidString(v):
		return fmt.Errorf("%q is not valid UTF-8", field)
	}
	return nil
}

// CheckTokens applies CheckToken to a record's tokens.
func CheckTokens(r *Record) error {
	for _, f := range []struct{ name, v string }{
		{"token", r.WebhookToken}, {"object.token", r.ObjectToken}, {"object.programToken", r.Program},
	} {
		if err := CheckToken(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}
