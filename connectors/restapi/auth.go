package restapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/internal/propref"
)

// authProps lists the auth.* properties each svc.restapi.auth.type uses;
// the first ones listed are required.
var authProps = map[string]struct{ required, optional []string }{
	"bearer":  {required: []string{PropAuthToken}},
	"basic":   {required: []string{PropAuthUsername}, optional: []string{PropAuthPassword}},
	"api_key": {required: []string{PropAuthName, PropAuthValue}, optional: []string{PropAuthLocation}},
	"oauth2": {required: []string{PropAuthTokenURL, PropAuthClientID, PropAuthClientSecret},
		optional: []string{PropAuthScopes, PropAuthAudience, PropAuthTokenParams, PropAuthClientAuth}},
}

// authConfig is the authentication of a dataset (see
// docs/restapi.md#authentication).
type authConfig struct {
	typ            string
	token          string
	user, password string
	name, value    string
	inQuery        bool // api_key in the query, not a header
	oauth          *clientcredentials.Config
}

// parseAuth reads svc.restapi.auth.*: a type missing a property it needs,
// or an auth property the type does not use, is an error naming both.
func parseAuth(p connectors.Props) (*authConfig, error) {
	typ, _ := Properties.Enum(p, PropAuthType)
	var set []string
	for _, k := range p.WithPrefix("svc.restapi.auth.") {
		if k != PropAuthType && isSet(p, k) {
			set = append(set, k)
		}
	}
	if typ == "" {
		if len(set) > 0 {
			return nil, fmt.Errorf("property %s is set but %s is not (bearer, basic, api_key or oauth2)", set[0], PropAuthType)
		}
		return nil, nil
	}
	spec := authProps[typ]
	uses := map[string]bool{}
	for _, k := range append(append([]string(nil), spec.required...), spec.optional...) {
		uses[k] = true
	}
	for _, k := range set {
		if !uses[k] && !(uses[PropAuthTokenParams] && strings.HasPrefix(k, PropAuthTokenParams)) {
			return nil, fmt.Errorf("property %s is not used by %s=%s (it uses %s)", k, PropAuthType, typ,
				strings.Join(append(append([]string(nil), spec.required...), spec.optional...), ", "))
		}
	}
	for _, k := range spec.required {
		if !isSet(p, k) {
			return nil, fmt.Errorf("%s=%s needs property %s", PropAuthType, typ, k)
		}
	}
	a := &authConfig{typ: typ,
		token: p[PropAuthToken], user: p[PropAuthUsername], password: p[PropAuthPassword],
		name: strings.TrimSpace(p[PropAuthName]), value: p[PropAuthValue]}
	if loc, _ := Properties.Enum(p, PropAuthLocation); loc == "query" {
		a.inQuery = true
	}
	// A reference is checked once resolved, at read or write.
	if typ == "api_key" && !a.inQuery && !validHeaderName(a.name) && !propref.Has(a.name) {
		return nil, fmt.Errorf("property %s: %q is not a valid header name", PropAuthName, a.name)
	}
	if typ == "oauth2" {
		if err := checkAbsoluteHTTP(strings.TrimSpace(p[PropAuthTokenURL])); err != nil && !propref.Has(p[PropAuthTokenURL]) {
			return nil, fmt.Errorf("property %s: %w", PropAuthTokenURL, err)
		}
		cc := &clientcredentials.Config{
			ClientID:       strings.TrimSpace(p[PropAuthClientID]),
			ClientSecret:   p[PropAuthClientSecret],
			TokenURL:       strings.TrimSpace(p[PropAuthTokenURL]),
			AuthStyle:      oauth2.AuthStyleInHeader,
			EndpointParams: map[string][]string{},
		}
		if style, _ := Properties.Enum(p, PropAuthClientAuth); style == "body" {
			cc.AuthStyle = oauth2.AuthStyleInParams
		}
		for _, s := range strings.Split(p[PropAuthScopes], ",") {
			if s = strings.TrimSpace(s); s != "" {
				cc.Scopes = append(cc.Scopes, s)
			}
		}
		if aud := strings.TrimSpace(p[PropAuthAudience]); aud != "" {
			cc.EndpointParams.Set("audience", aud)
		}
		for _, k := range p.WithPrefix(PropAuthTokenParams) {
			cc.EndpointParams.Set(strings.TrimPrefix(k, PropAuthTokenParams), p[k])
		}
		a.oauth = cc
	}
	return a, nil
}

// authenticator signs the requests of one read or write. An OAuth2 token
// is fetched with the request's context, cached until it expires, and
// dropped after a 401 so the next request fetches a new one. It is safe
// for concurrent use.
type authenticator struct {
	cfg    *authConfig
	client *http.Client // for the token endpoint

	mu  sync.Mutex
	tok *oauth2.Token
}

func newAuthenticator(cfg *authConfig, tokenClient *http.Client) *authenticator {
	if cfg == nil {
		return nil
	}
	return &authenticator{cfg: cfg, client: tokenClient}
}

// apply sets the credentials on h; rawURL gains the API key when it goes
// in the query. An OAuth2 request returns the token it carries (for
// refresh).
func (a *authenticator) apply(ctx context.Context, h http.Header, rawURL string) (string, *oauth2.Token, error) {
	if a == nil {
		return rawURL, nil, nil
	}
	switch a.cfg.typ {
	case "bearer":
		h.Set("Authorization", "Bearer "+a.cfg.token)
	case "basic":
		r := http.Request{Header: h}
		r.SetBasicAuth(a.cfg.user, a.cfg.password)
	case "api_key":
		if a.cfg.inQuery {
			return withQueryParam(rawURL, a.cfg.name, a.cfg.value), nil, nil
		}
		h.Set(a.cfg.name, a.cfg.value)
	case "oauth2":
		tok, err := a.token(ctx)
		if err != nil {
			return "", nil, fmt.Errorf("fetching an OAuth2 token from %s: %w", a.cfg.oauth.TokenURL, err)
		}
		tok.SetAuthHeader(&http.Request{Header: h})
		return rawURL, tok, nil
	}
	return rawURL, nil, nil
}

// token is the cached token, or a new one fetched with ctx: cancelling the
// read cancels the token request too. Concurrent requests wait for one
// fetch.
func (a *authenticator) token(ctx context.Context) (*oauth2.Token, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok != nil && a.tok.Valid() {
		return a.tok, nil
	}
	tok, err := a.cfg.oauth.Token(context.WithValue(ctx, oauth2.HTTPClient, a.client))
	if err != nil {
		return nil, err
	}
	a.tok = tok
	return tok, nil
}

// refreshable reports whether a 401 may be cured by a new token.
func (a *authenticator) refreshable() bool { return a != nil && a.cfg.typ == "oauth2" }

// refresh drops the cached token if it is still used, the one a 401
// answered.
func (a *authenticator) refresh(used *oauth2.Token) {
	a.mu.Lock()
	if a.tok == used {
		a.tok = nil
	}
	a.mu.Unlock()
}

// strip removes the credentials from a request that a redirect sends to an
// origin without them: Authorization, the API key (header or query), the
// sensitive svc.restapi.header.* (names with key, token, secret or auth)
// and cookies.
func (a *authenticator) strip(req *http.Request, headers http.Header) {
	for _, k := range credentialHeaders(a, headers) {
		req.Header.Del(k)
	}
	if a == nil || a.cfg.typ != "api_key" || !a.cfg.inQuery {
		return
	}
	q := req.URL.Query()
	if _, ok := q[a.cfg.name]; ok {
		q.Del(a.cfg.name)
		req.URL.RawQuery = q.Encode()
	}
}

// restore sets on a redirected request the credential headers the first
// request carried: net/http drops Authorization on a redirect to another
// host, which an allowed origin receives like the table's own.
func (a *authenticator) restore(req, first *http.Request, headers http.Header) {
	for _, k := range credentialHeaders(a, headers) {
		if v, ok := first.Header[http.CanonicalHeaderKey(k)]; ok {
			req.Header[http.CanonicalHeaderKey(k)] = v
		}
	}
}

// credentialHeaders are the header names that carry credentials.
func credentialHeaders(a *authenticator, headers http.Header) []string {
	out := []string{"Authorization", "Proxy-Authorization", "Cookie"}
	for k := range headers {
		if sensitiveHeader(k) {
			out = append(out, k)
		}
	}
	if a != nil && a.cfg.typ == "api_key" && !a.cfg.inQuery {
		out = append(out, a.cfg.name)
	}
	return out
}

func sensitiveHeader(name string) bool {
	l := strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "auth", "password", "cookie"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
