package connectors

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/internal/propref"
)

// Mask is what a secret value prints as.
const Mask = "***"

// IsSecretKey reports whether a property's value is a secret. A property a
// registered connector declares is secret when its declaration says so
// (svc.restapi.auth.token is, svc.restapi.fanout.token is not), and so is
// a misspelling of it under a connector that admits no other names
// (svc.jdbc.passwrd is, svc.jdbc.merge_key is not); any other name is
// secret when it contains key, token, secret or password (any case), or is
// an Authorization header property. See docs/properties.md.
func IsSecretKey(name string) bool {
	for _, s := range declaredSets() {
		if secret, declared := s.IsSecret(name); declared {
			return secret
		}
	}
	return looksSecret(name)
}

// looksSecret is the rule for undeclared names.
func looksSecret(name string) bool {
	l := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "password", "authorization"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// RedactValue returns Mask for a secret key's value, else the value. A
// value made of ${env:…}/${file:…} references alone holds no secret and
// shows as written (docs/catalog.md#secret-references).
func RedactValue(key, value string) string {
	if IsSecretKey(key) && value != "" && !propref.Only(value) {
		return Mask
	}
	return value
}

// Redacted returns a copy of p with secret values masked.
func (p Props) Redacted() Props {
	c := make(Props, len(p))
	for k, v := range p {
		c[k] = RedactValue(k, v)
	}
	return c
}

// Redactor masks every secret value of a property set wherever it appears
// in a string: in a URL, an error message, a log line.
type Redactor struct {
	secrets []string // longest first, so a secret containing another is masked whole
}

// NewRedactor collects the secret values of the given property sets.
func NewRedactor(sets ...map[string]string) *Redactor {
	seen := map[string]bool{}
	r := &Redactor{}
	for _, p := range sets {
		for k, v := range p {
			if !IsSecretKey(k) || v == "" || propref.Only(v) {
				// A URL may carry secrets of its own: a password
				// (http://u:pw@host) or a query parameter such as key=….
				for _, sec := range urlSecrets(v) {
					if !seen[sec] {
						seen[sec] = true
						r.secrets = append(r.secrets, sec)
					}
				}
				continue
			}
			forms := []string{v}
			// Authorization values like "Bearer abc": mask the credential alone too.
			if i := strings.IndexByte(v, ' '); i > 0 && i+1 < len(v) {
				forms = append(forms, v[i+1:])
			}
			// A server echoing a request (an error body, a redirect) may show
			// the secret encoded: mask its URL- and JSON-escaped forms too.
			for _, f := range append([]string(nil), forms...) {
				forms = append(forms, url.QueryEscape(f), url.PathEscape(f), jsonEscape(f))
			}
			for _, f := range forms {
				if f != "" && !seen[f] {
					seen[f] = true
					r.secrets = append(r.secrets, f)
				}
			}
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// String masks every known secret in s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
}

// Error wraps err so that its message is redacted; errors.Is/As still see
// the original chain.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil || len(r.secrets) == 0 {
		return err
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// urlSecrets returns the secrets written into a URL in v: the password of
// its userinfo (`scheme://user:password@host`, or a MySQL DSN's
// `user:password@tcp(host)`) and the values of query
// parameters whose names IsSecretKey would mask (`?key=…&access_token=…`),
// as written and decoded. {token} placeholders are not secrets themselves.
func urlSecrets(v string) []string {
	var out []string
	add := func(s string) {
		if s != "" && !strings.ContainsAny(s, "{}") {
			out = append(out, s)
			if d, err := url.QueryUnescape(s); err == nil && d != s {
				out = append(out, d)
			}
		}
	}
	i := strings.Index(v, "://")
	if i < 0 {
		// go-sql-driver/mysql's DSN, user:password@tcp(host:port)/db
		// (docs/jdbc.md#urls).
		for _, proto := range []string{"@tcp(", "@unix("} {
			if at := strings.LastIndex(v, proto); at >= 0 {
				if _, pw, ok := strings.Cut(v[:at], ":"); ok {
					add(pw)
				}
				break
			}
		}
		return out
	}
	rest := v[i+3:]
	host := rest
	if end := strings.IndexAny(host, "/?#"); end >= 0 {
		host = host[:end]
	}
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		if _, pw, ok := strings.Cut(host[:at], ":"); ok {
			add(pw)
		}
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		query := rest[q+1:]
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query = query[:h]
		}
		for _, seg := range strings.Split(query, "&") {
			name, val, ok := strings.Cut(seg, "=")
			if !ok {
				continue
			}
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			if IsSecretKey(name) {
				add(val)
			}
		}
	}
	return out
}

// jsonEscape is s as it appears inside a JSON string.
func jsonEscape(s string) string {
	b, err := json.Marshal(s)
	if err != nil || len(b) < 2 {
		return s
	}
	return string(b[1 : len(b)-1])
}
