package restapi

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// Credentials go only to the table's origin — scheme, host and port of its
// URL — and to those svc.restapi.allowed.origins names (see
// docs/restapi.md#origins). A page URL the API hands out (next_url, Link)
// or a fan-out child URL on another origin is an error before any request
// goes there; a redirect there is followed without credentials.

// ErrOrigin matches (errors.Is) every *OriginError.
var ErrOrigin = errors.New("URL on another origin")

// OriginError is a page or child URL on an origin the table does not
// name.
type OriginError struct {
	What   string // "the next-page URL", "the fan-out child URL"
	URL    string // redacted
	Origin string // the URL's origin
	Table  string // the table's origin ("" when it has none: a fan-out value decides the host)
}

func (e *OriginError) Error() string {
	table := "the table's origin " + e.Table
	if e.Table == "" {
		table = "the parent table's origin (the fan-out value gives the host, and no parent table URL is known)"
	}
	return fmt.Sprintf("%s %s is on origin %s, not %s: nothing was sent to it (name it in %s to send it the table's requests and credentials)",
		e.What, e.URL, e.Origin, table, PropAllowedOrigins)
}

// Is makes errors.Is(err, ErrOrigin) true.
func (e *OriginError) Is(target error) bool { return target == ErrOrigin }

// origin is a URL's scheme://host:port, lower-case, the port always
// written (the scheme's default when the URL has none).
type origin string

// originOf is u's origin; "" when u has no host.
func originOf(u *url.URL) origin {
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = defaultPort(scheme)
	}
	return origin(scheme + "://" + net.JoinHostPort(host, port))
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// String is the origin as people write it: without the scheme's default
// port.
func (o origin) String() string {
	s := string(o)
	switch {
	case strings.HasPrefix(s, "http://") && strings.HasSuffix(s, ":80"):
		return strings.TrimSuffix(s, ":80")
	case strings.HasPrefix(s, "https://") && strings.HasSuffix(s, ":443"):
		return strings.TrimSuffix(s, ":443")
	}
	return s
}

// origins are the origins a read or write may send requests and
// credentials to: the table's, and those of svc.restapi.allowed.origins.
type origins struct {
	table   origin
	allowed map[origin]bool
}

// parseAllowedOrigins reads svc.restapi.allowed.origins: a comma list of
// scheme://host[:port], spaces ignored. Anything else is an error naming
// the property.
func parseAllowedOrigins(p connectors.Props) (map[origin]bool, error) {
	out := map[origin]bool{}
	for _, s := range strings.Split(p[PropAllowedOrigins], ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err == nil && (u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" || u.User != nil) {
			err = errors.New("an origin is scheme://host[:port], without a path")
		}
		if err == nil && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
			err = errors.New("not an http:// or https:// origin")
		}
		if err == nil && u.Host == "" {
			err = errors.New("no host")
		}
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return nil, fmt.Errorf("property %s: %q: %w", PropAllowedOrigins, s, err)
		}
		out[originOf(u)] = true
	}
	return out, nil
}

// newOrigins is the set of a table whose origin is that of tableURL ("" for
// none) plus the allowed ones.
func newOrigins(tableURL string, allowed map[origin]bool) *origins {
	o := &origins{allowed: allowed}
	if tableURL != "" {
		if u, err := url.Parse(tableURL); err == nil {
			o.table = originOf(u)
		}
	}
	return o
}

// admits reports whether u's origin gets requests and credentials.
func (o *origins) admits(u *url.URL) bool {
	og := originOf(u)
	return og != "" && (og == o.table || o.allowed[og])
}

// check is nil when rawURL may be requested; else an *OriginError saying
// what it is (what) on which origin. red redacts the URL.
func (o *origins) check(rawURL, what string, red *connectors.Redactor) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil // the request itself fails, naming the URL
	}
	if o.admits(u) {
		return nil
	}
	table := ""
	if o.table != "" {
		table = o.table.String()
	}
	return &OriginError{What: what, URL: red.String(rawURL), Origin: originOf(u).String(), Table: table}
}
