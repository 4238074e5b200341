package source

import (
	"errors"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/sluicedata/sluice/internal/suggest"
	"github.com/sluicedata/sluice/notifications/queue"
)

// Source is one webhook source (docs/sidecar.md#sources): the path its
// deliveries are POSTed to, the scheme that verifies them, the mapping
// that makes them records and where they are delivered. Sources are data:
// every one goes through the same intake pipeline.
type Source struct {
	// Name names the source in records, metrics, filters and the default
	// path.
	Name string
	// Path is where deliveries are POSTed (/webhooks/<name>).
	Path string
	// Scheme verifies signatures.
	Scheme Scheme
	// Mapping turns a verified body into a record.
	Mapping *Mapping
	// Marketplace, when set, receives this source's records instead of
	// CONN_MARKETPLACE_URL (unless a Go handler is registered).
	Marketplace string
	// JSONOnly answers 415 to form-encoded bodies (every configured
	// source; the HMC source keeps its §6 answers).
	JSONOnly bool
}

// HMC is the default source `notifications` (docs/http-api.md#intake):
// the HMC body, unsigned without secrets, else the sluice scheme with
// CONN_WEBHOOK_SECRET and CONN_WEBHOOK_TOLERANCE.
func HMC(secrets []string, tolerance time.Duration) (*Source, error) {
	s := &Source{Name: queue.DefaultSource, Path: "/webhooks/" + queue.DefaultSource, Scheme: unsigned{}, Mapping: hmcMapping}
	if len(secrets) > 0 {
		sc, err := newSluice(SchemeConfig{Secrets: secrets, Tolerance: tolerance})
		if err != nil {
			return nil, err
		}
		sc.(*sluice).hint = ": CONN_WEBHOOK_SECRET requires signed deliveries"
		s.Scheme = sc
	}
	return s, nil
}

// Config declares a source as the config file writes it
// (docs/sidecar.md#config-file).
type Config struct {
	// Name names the source: letters, digits, '.', '_' and '-'. Required.
	Name string
	// Path is where deliveries are POSTed. Defaults to /webhooks/<name>.
	Path string
	// Scheme is standard, stripe, github, shopify, slack, hmac-sha256 or
	// sluice. Required.
	Scheme string
	// Secrets verify signatures; any of them does (to rotate). Required.
	Secrets []string
	// Tolerance is how far a signed timestamp may be from now (schemes
	// with timestamps). Defaults to 5m.
	Tolerance time.Duration
	// Header, Encoding (hex or base64) and Prefix configure hmac-sha256.
	// Encoding defaults to hex, Prefix to none.
	Header   string
	Encoding string
	Prefix   string
	// Mapping says where the record's fields come from; keys left out take
	// the scheme's defaults.
	Mapping MappingConfig
	// Marketplace receives this source's records. Defaults to
	// CONN_MARKETPLACE_URL.
	Marketplace string
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// reservedPaths are the sidecar's own endpoints: a source path on or under
// one of them would shadow it or be shadowed.
var reservedPaths = []string{"/health", "/metrics", "/job", "/datasets", "/management", "/ui",
	"/webhook/notifications", "/webhooks/notifications"}

// Build checks c and makes the source. The error names the key at fault.
func (c Config) Build() (*Source, error) {
	if strings.TrimSpace(c.Name) == "" {
		return nil, errors.New("name is required")
	}
	if !namePattern.MatchString(c.Name) {
		return nil, fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", c.Name)
	}
	if c.Name == queue.DefaultSource {
		return nil, fmt.Errorf("name %q is the HMC source, which keeps its path and rules and cannot be redefined (docs/sidecar.md#sources)", c.Name)
	}
	spec, ok := schemes[c.Scheme]
	if !ok {
		if c.Scheme == "" {
			return nil, fmt.Errorf("scheme is required (one of %s)", strings.Join(SchemeNames(), ", "))
		}
		return nil, fmt.Errorf("unknown scheme %q%s (want one of %s)", c.Scheme, suggest.Phrase(c.Scheme, SchemeNames()),
			strings.Join(SchemeNames(), ", "))
	}
	if len(c.Secrets) == 0 {
		return nil, errors.New("secrets: at least one secret is required (every source is signed)")
	}
	if c.Tolerance < 0 {
		return nil, errors.New("tolerance must be positive")
	}
	if c.Tolerance > 0 && !spec.timestamps {
		return nil, fmt.Errorf("tolerance: scheme %s signs no timestamp (a replay is caught by its delivery id)", c.Scheme)
	}
	if !spec.hmacKeys {
		for k, v := range map[string]string{"header": c.Header, "encoding": c.Encoding, "prefix": c.Prefix} {
			if v != "" {
				return nil, fmt.Errorf("%s applies to scheme hmac-sha256 only", k)
			}
		}
	}
	sc, err := spec.build(SchemeConfig{Secrets: c.Secrets, Tolerance: c.Tolerance, Header: c.Header, Encoding: c.Encoding, Prefix: c.Prefix})
	if err != nil {
		return nil, fmt.Errorf("scheme %s: %w", c.Scheme, err)
	}
	if spec.needsToken && strings.TrimSpace(c.Mapping.Token) == "" {
		return nil, fmt.Errorf("mapping.token is required for scheme %s: it sends no delivery id (map the event's id, e.g. event_id)", c.Scheme)
	}
	m, err := NewMapping(c.Mapping.withDefaults(sc.Defaults()))
	if err != nil {
		return nil, err
	}
	path := c.Path
	if path == "" {
		path = "/webhooks/" + c.Name
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if c.Marketplace != "" {
		if err := CheckHTTPURL(c.Marketplace); err != nil {
			return nil, fmt.Errorf("marketplace: %w", err)
		}
	}
	return &Source{Name: c.Name, Path: strings.TrimSuffix(path, "/"), Scheme: sc, Mapping: m,
		Marketplace: c.Marketplace, JSONOnly: true}, nil
}

// checkPath refuses a path no request could reach, or one that would take
// a built-in endpoint's place.
func checkPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q must start with /", p)
	case strings.ContainsAny(p, "?#"):
		return fmt.Errorf("path %q can never match a request: a query or fragment is not part of the path", p)
	case strings.ContainsAny(p, ":*+ \t%\\"):
		return fmt.Errorf("path %q can never match a request: use plain segments (no :, *, +, %%, spaces)", p)
	case strings.Contains(p, "//"):
		return fmt.Errorf("path %q has an empty segment", p)
	case len(p) > 200:
		return fmt.Errorf("path %q is longer than 200 bytes", p)
	}
	t := strings.TrimSuffix(p, "/")
	if t == "" {
		return fmt.Errorf("path %q would take every request", p)
	}
	for _, seg := range strings.Split(t[1:], "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("path %q can never match a request: a client resolves %q away", p, seg)
		}
	}
	for _, r := range reservedPaths {
		if t == r || strings.HasPrefix(t, r+"/") || strings.HasPrefix(r, t+"/") {
			return fmt.Errorf("path %q collides with the sidecar's endpoint %s", p, r)
		}
	}
	return nil
}

// CheckHTTPURL refuses anything but an absolute http(s) URL; the error
// never quotes the URL (it may hold credentials).
func CheckHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The URL may hold credentials: not quoted.
		return errors.New("must be an absolute http(s) URL")
	}
	return nil
}

// Set is the sidecar's sources: the HMC one first, then the configured
// ones in file order.
type Set struct {
	list   []*Source
	byName map[string]*Source
}

// NewSet checks that names and paths are unique.
func NewSet(hmc *Source, configured ...*Source) (*Set, error) {
	s := &Set{byName: map[string]*Source{}}
	paths := map[string]string{}
	for _, src := range append([]*Source{hmc}, configured...) {
		if _, dup := s.byName[src.Name]; dup {
			return nil, fmt.Errorf("source %q is defined twice", src.Name)
		}
		if other, dup := paths[src.Path]; dup {
			return nil, fmt.Errorf("source %q: path %s is source %q's already", src.Name, src.Path, other)
		}
		s.byName[src.Name], paths[src.Path] = src, src.Name
		s.list = append(s.list, src)
	}
	return s, nil
}

// All lists the sources, the HMC one first.
func (s *Set) All() []*Source { return s.list }

// Get returns the source of that name.
func (s *Set) Get(name string) (*Source, bool) {
	src, ok := s.byName[name]
	return src, ok
}

// Names lists the sources' names, the HMC one first.
func (s *Set) Names() []string {
	out := make([]string, len(s.list))
	for i, src := range s.list {
		out[i] = src.Name
	}
	return out
}

// Verify runs the source's scheme: the verify stage of intake.
func (s *Source) Verify(h Headers, body []byte, now time.Time) error {
	return s.Scheme.Verify(s.headers(h), body, now)
}

// Challenge answers a provider's handshake (Slack's url_verification)
// instead of storing it.
func (s *Source) Challenge(body []byte) ([]byte, bool) {
	if c, ok := s.Scheme.(challenger); ok {
		return c.Challenge(body)
	}
	return nil, false
}

// Map turns a verified body into a PENDING record of this source: the map
// stage of intake. Its error is a *queue.IntakeError (400).
func (s *Source) Map(body []byte, h Headers, now time.Time) (queue.Record, error) {
	rec, err := s.Mapping.Apply(body, s.headers(h), now)
	if err != nil {
		return rec, err
	}
	rec.Source = s.Name
	return rec, nil
}

// RefusesMediaType reports why a body of that Content-Type is refused
// with 415, or "" (docs/sidecar.md#intake-pipeline: bodies are JSON).
func (s *Source) RefusesMediaType(contentType string) string {
	if !s.JSONOnly || contentType == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	switch mt {
	case "application/x-www-form-urlencoded", "multipart/form-data":
		return fmt.Sprintf("Content-Type %s is not accepted: source %s takes JSON bodies", mt, s.Name)
	}
	return ""
}

// IsSignatureHeader reports whether a header carries this source's
// signature (kept out of quarantine).
func (s *Source) IsSignatureHeader(name string) bool {
	for _, h := range s.Scheme.SignatureHeaders() {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

func (s *Source) headers(h Headers) Headers {
	if a, ok := s.Scheme.(aliaser); ok && h != nil {
		return aliased{h, a}
	}
	return h
}

// aliased reads a header under its alias when it is absent.
type aliased struct {
	h Headers
	a aliaser
}

func (x aliased) Get(name string) string {
	if v := x.h.Get(name); v != "" {
		return v
	}
	if alt := x.a.Alias(name); alt != "" {
		return x.h.Get(alt)
	}
	return ""
}

// readHeader reads name from h with s's aliases.
func readHeader(s aliaser, h Headers, name string) string {
	return aliased{h, s}.Get(name)
}
