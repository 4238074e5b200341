package restapi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// ErrUnresolvedToken is returned (wrapped in an *UnresolvedTokenError) when
// a URL template has a {token} with no property of that name.
var ErrUnresolvedToken = errors.New("unresolved token")

// ErrTokenCycle is returned (wrapped) when tokens refer to each other in a
// loop, so the URL never resolves.
var ErrTokenCycle = errors.New("token cycle")

// ErrNoURL is returned (wrapped) when neither svc.restapi.url nor a usable
// svc.restapi.url.pattern is set, or the result is not an absolute http(s) URL.
var ErrNoURL = errors.New("no usable URL")

// UnresolvedTokenError names the token that has no property and the pattern
// property it was found through.
type UnresolvedTokenError struct {
	Token   string // the token's text without braces: svc.restapi.channelId
	Pattern string // the pattern property resolved: svc.restapi.pattern.x
	In      string // the property whose value holds the token (Pattern or one it refers to)
}

func (e *UnresolvedTokenError) Error() string {
	msg := fmt.Sprintf("unresolved token {%s} in %s: no property %s is set", e.Token, e.Pattern, e.Token)
	if e.In != e.Pattern {
		msg = fmt.Sprintf("unresolved token {%s} in %s (used by %s): no property %s is set", e.Token, e.In, e.Pattern, e.Token)
	}
	return msg
}

func (e *UnresolvedTokenError) Unwrap() error { return ErrUnresolvedToken }

// Limits that keep a hostile or mistaken template from running away: tokens
// nest at most maxTokenDepth deep and a resolved value stays below
// maxResolvedLen bytes (a template {a}{a} with a={b}{b}… doubles each level).
const (
	maxTokenDepth  = 64
	maxResolvedLen = 1 << 20
)

// ResolveURL returns the request URL of a dataset: svc.restapi.url when set,
// else the template in the property named by svc.restapi.url.pattern. In
// either, each {property.name} token is replaced by that property's value,
// itself resolved the same way, until no token is left. Values are inserted
// literally: a template pre-encodes what needs encoding (%2C). The result
// must be an absolute http or https URL.
//
// The error may hold secret values of props; callers redact it.
func ResolveURL(props connectors.Props) (string, error) {
	root := PropURL
	if v, ok := props[PropURL]; !ok || strings.TrimSpace(v) == "" {
		name := strings.TrimSpace(props[PropURLPattern])
		if name == "" {
			return "", fmt.Errorf("%w: set %s, or %s to the name of a pattern property (%spattern.<name>)",
				ErrNoURL, PropURL, PropURLPattern, PropPrefix)
		}
		if _, ok := props[name]; !ok {
			return "", fmt.Errorf("%w: %s names the property %s, which is not set", ErrNoURL, PropURLPattern, name)
		}
		root = name
	}
	r := resolver{props: props, root: root, done: map[string]string{}}
	u, err := r.resolve(root, nil)
	if err != nil {
		return "", err
	}
	u = strings.TrimSpace(u)
	if err := checkAbsoluteHTTP(u); err != nil {
		// Not %q: escaping could alter a secret inside u so that the
		// caller's redaction no longer finds it.
		return "", fmt.Errorf("%w: %s resolves to \"%s\": %w", ErrNoURL, root, u, err)
	}
	return u, nil
}

type resolver struct {
	props connectors.Props
	root  string
	done  map[string]string // resolved values, so shared tokens are expanded once
}

// resolve expands the value of property name. chain holds the properties
// being expanded above it, to name a cycle.
func (r *resolver) resolve(name string, chain []string) (string, error) {
	if v, ok := r.done[name]; ok {
		return v, nil
	}
	for i, c := range chain {
		if c == name {
			loop := append(append([]string{}, chain[i:]...), name)
			return "", fmt.Errorf("%w: %s", ErrTokenCycle, strings.Join(loop, " → "))
		}
	}
	if len(chain) >= maxTokenDepth {
		return "", fmt.Errorf("%w: tokens nest deeper than %d starting at %s", ErrTokenCycle, maxTokenDepth, r.root)
	}
	chain = append(chain, name)
	val := r.props[name]
	var b strings.Builder
	for {
		open := strings.IndexByte(val, '{')
		if open < 0 {
			b.WriteString(val)
			break
		}
		end := strings.IndexByte(val[open+1:], '}')
		if end < 0 {
			return "", fmt.Errorf("%w: %s has a '{' without a closing '}'", ErrNoURL, name)
		}
		end += open + 1
		inner := val[open+1 : end]
		if k := strings.IndexByte(inner, '{'); k >= 0 {
			// "{a{b}" - the outer '{' is literal text without a match.
			return "", fmt.Errorf("%w: %s has a '{' without a closing '}' before {%s}", ErrNoURL, name, inner[k+1:])
		}
		b.WriteString(val[:open])
		if _, ok := r.props[inner]; !ok {
			return "", &UnresolvedTokenError{Token: inner, Pattern: r.root, In: name}
		}
		sub, err := r.resolve(inner, chain)
		if err != nil {
			return "", err
		}
		b.WriteString(sub)
		if b.Len() > maxResolvedLen {
			return "", fmt.Errorf("%w: %s resolves to more than %d bytes", ErrNoURL, r.root, maxResolvedLen)
		}
		val = val[end+1:]
	}
	out := b.String()
	r.done[name] = out
	return out, nil
}

func checkAbsoluteHTTP(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if strings.ContainsAny(s, "{}") {
		return errors.New("braces left in the URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		// url.Error repeats the URL; keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return err
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return errors.New("not an absolute URL (no http:// or https://)")
	default:
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	return nil
}

// withQueryParam sets query parameter param to value: it replaces the
// parameter where the URL already has it (every other part of the URL is
// kept byte for byte, as the pattern pre-encodes) and appends it otherwise.
func withQueryParam(rawURL, param, value string) string {
	frag := ""
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL, frag = rawURL[:i], rawURL[i:]
	}
	base, query, hasQuery := strings.Cut(rawURL, "?")
	pair := url.QueryEscape(param) + "=" + url.QueryEscape(value)
	var parts []string
	replaced := false
	if hasQuery && query != "" {
		for _, seg := range strings.Split(query, "&") {
			key, _, _ := strings.Cut(seg, "=")
			if k, err := url.QueryUnescape(key); err == nil {
				key = k
			}
			if key == param {
				if !replaced {
					parts = append(parts, pair)
					replaced = true
				}
				continue
			}
			parts = append(parts, seg)
		}
	}
	if !replaced {
		parts = append(parts, pair)
	}
	return base + "?" + strings.Join(parts, "&") + frag
}
