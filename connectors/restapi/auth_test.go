package restapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
)

// TestOAuth2RefetchOn401: the cached token is fetched again once when the
// API answers 401, and the request is sent again with the new one.
func TestOAuth2RefetchOn401(t *testing.T) {
	t.Parallel()
	var issued atomic.Int64
	var form atomic.Value
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/oauth/token" {
			_ = r.ParseForm()
			form.Store(r.PostForm.Encode())
			id, secret, _ := r.BasicAuth()
			if id != "cid" || secret != "c-s3cret" {
				http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
				return
			}
			k := issued.Add(1)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":"tok-%d","token_type":"Bearer","expires_in":3600}`, k)
			return
		}
		// The first token is revoked: only tok-2 is accepted.
		if r.Header.Get("Authorization") != "Bearer tok-2" {
			http.Error(w, "expired", http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"items":[{"id":1}]}`))
	})
	p := connectors.Props{"svc.restapi.url": srv.URL + "/api", "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "items",
		"svc.restapi.auth.type": "oauth2", "svc.restapi.auth.token.url": srv.URL + "/oauth/token",
		"svc.restapi.auth.client.id": "cid", "svc.restapi.auth.client.secret": "c-s3cret",
		"svc.restapi.auth.scopes": "read:a, read:b", "svc.restapi.auth.audience": "https://api.example.com",
		"svc.restapi.auth.token.params.resource": "urn:x"}
	f, err := read(t, p, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, f.NumRows())
	require.EqualValues(t, 2, issued.Load())
	require.Equal(t, "audience=https%3A%2F%2Fapi.example.com&grant_type=client_credentials&resource=urn%3Ax&scope=read%3Aa+read%3Ab", form.Load())
	require.Equal(t, 4, rec.count(), "token, 401, token, 200")

	// A wrong secret: the error names the token endpoint, never the secret.
	bad := with(p, "svc.restapi.auth.client.secret", "wrong-s3cret-value")
	_, err = read(t, bad, nil)
	require.ErrorContains(t, err, "fetching an OAuth2 token from "+srv.URL+"/oauth/token")
	require.NotContains(t, err.Error(), "wrong-s3cret-value")
}

// TestRedirectDropsCredentials: a redirect to another origin carries no
// Authorization, no API key (header or query) and no sensitive header; no
// request ever sends a Referer; a same-origin redirect keeps them.
func TestRedirectDropsCredentials(t *testing.T) {
	t.Parallel()
	other, otherRec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{"ok":1}`)) })
	origin, originRec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final?"+r.URL.RawQuery, http.StatusFound)
		case "/away":
			http.Redirect(w, r, other.URL+"/landing?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		default:
			w.Write([]byte(`{"ok":1}`))
		}
	})
	for _, auth := range [][]string{
		{"svc.restapi.auth.type", "bearer", "svc.restapi.auth.token", "b3arer-secret"},
		{"svc.restapi.auth.type", "basic", "svc.restapi.auth.username", "u", "svc.restapi.auth.password", "pa55-secret"},
		{"svc.restapi.auth.type", "api_key", "svc.restapi.auth.name", "X-Api-Key", "svc.restapi.auth.value", "k3y-secret"},
		{"svc.restapi.auth.type", "api_key", "svc.restapi.auth.location", "query", "svc.restapi.auth.name", "sig", "svc.restapi.auth.value", "qk3y-secret"},
	} {
		p := with(connectors.Props{"svc.restapi.header.X-Session-Token": "hdr-secret", "svc.restapi.header.Accept": "application/json",
			"svc.restapi.header.Referer": "http://leak.example/"}, auth...)
		before := otherRec.count()
		_, err := read(t, with(p, "svc.restapi.url", origin.URL+"/away?q=1"), nil)
		require.NoError(t, err)
		got := otherRec.all()[before]
		require.Equal(t, "/landing?q=1", got.URI, "the API key left the query: %v", auth)
		require.Empty(t, got.Header.Get("Authorization"), "%v", auth)
		require.Empty(t, got.Header.Get("X-Api-Key"))
		require.Empty(t, got.Header.Get("X-Session-Token"))
		require.Empty(t, got.Header.Get("Referer"))
		require.Equal(t, "application/json", got.Header.Get("Accept"), "harmless headers follow")

		before = originRec.count()
		_, err = read(t, with(p, "svc.restapi.url", origin.URL+"/same?q=1"), nil)
		require.NoError(t, err)
		final := originRec.all()[before+1]
		require.Empty(t, final.Header.Get("Referer"))
		require.Equal(t, "hdr-secret", final.Header.Get("X-Session-Token"), "same origin keeps credentials")
		if auth[1] == "bearer" {
			require.Equal(t, "Bearer b3arer-secret", final.Header.Get("Authorization"))
		}
	}
	for _, r := range originRec.all() {
		require.Empty(t, r.Header.Get("Referer"))
	}
}

func TestAuthConfigErrors(t *testing.T) {
	t.Parallel()
	base := connectors.Props{"svc.restapi.url": "http://127.0.0.1:1/x"}
	for _, tt := range []struct {
		kv   []string
		want string
	}{
		{[]string{"svc.restapi.auth.token", "t0ken-value"}, "property svc.restapi.auth.token is set but svc.restapi.auth.type is not"},
		{[]string{"svc.restapi.auth.type", "bearer"}, "svc.restapi.auth.type=bearer needs property svc.restapi.auth.token"},
		{[]string{"svc.restapi.auth.type", "oauth2", "svc.restapi.auth.token.url", "http://h/t", "svc.restapi.auth.client.id", "i"},
			"svc.restapi.auth.type=oauth2 needs property svc.restapi.auth.client.secret"},
		{[]string{"svc.restapi.auth.type", "basic", "svc.restapi.auth.username", "u", "svc.restapi.auth.token", "t0ken-value"},
			"property svc.restapi.auth.token is not used by svc.restapi.auth.type=basic"},
		{[]string{"svc.restapi.auth.type", "api_key", "svc.restapi.auth.name", "bad name", "svc.restapi.auth.value", "some-key-value"}, "is not a valid header name"},
		{[]string{"svc.restapi.auth.type", "bearer", "svc.restapi.auth.tokn", "t0ken-value"}, "unknown property svc.restapi.auth.tokn (did you mean svc.restapi.auth.token?)"},
		{[]string{"svc.restapi.rate.limit", "0"}, "svc.restapi.rate.limit: 0 would allow no request"},
		{[]string{"svc.restapi.rate.burst", "0"}, "svc.restapi.rate.burst: 0 is below the minimum 1"},
	} {
		_, err := read(t, with(base, tt.kv...), nil)
		require.ErrorContains(t, err, tt.want)
		require.NotContains(t, err.Error(), "t0ken-value")
	}
}

// TestReadOptions: the hooks incremental loads and fan-out use.
func TestReadOptions(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 3 {
			fmt.Fprintf(w, `{"items":[{"id":%d}],"next":"t%d"}`, n, n)
			return
		}
		fmt.Fprintf(w, `{"items":[{"id":%d}]}`, n)
	})
	lim := rate.NewLimiter(rate.Every(time.Hour), 3) // three requests, then none for an hour
	var pages []restapi.PageInfo
	ctx := restapi.WithReadOptions(ctxT(t), restapi.ReadOptions{
		Query:   []restapi.QueryParam{{Name: "since", Value: "2024-01-01T00:00:00Z"}},
		Limiter: lim,
		OnPage: func(p restapi.PageInfo) error {
			p.Body = append([]byte(nil), p.Body...)
			pages = append(pages, p)
			return nil
		},
	})
	p := connectors.Props{"svc.restapi.url": srv.URL + "/l?since=old", "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "items",
		"svc.restapi.paginate.next.field": "next", "svc.restapi.paginate.next.param": "cursor"}
	f, err := connector(t).Read(ctx, &connectors.Dataset{Name: "t", Props: p})
	require.NoError(t, err)
	require.EqualValues(t, 3, f.NumRows())
	for _, r := range rec.all() {
		require.Contains(t, r.URI, "since=2024-01-01T00%3A00%3A00Z")
		require.NotContains(t, r.URI, "since=old")
	}
	require.Len(t, pages, 3)
	require.Equal(t, 2, pages[1].Number)
	require.Equal(t, 1, pages[1].Records)
	require.Contains(t, string(pages[2].Body), `"id":3`)
	require.Less(t, lim.Tokens(), 1.0, "the read took its requests from the shared limiter")

	stop := restapi.WithReadOptions(ctxT(t), restapi.ReadOptions{OnPage: func(restapi.PageInfo) error { return context.Canceled }})
	_, err = connector(t).Read(stop, &connectors.Dataset{Name: "t", Props: p})
	require.ErrorIs(t, err, context.Canceled)
}

func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	lim, err := restapi.NewLimiter(connectors.Props{"svc.restapi.rate.limit": "20", "svc.restapi.rate.burst": "2"})
	require.NoError(t, err)
	require.Equal(t, rate.Limit(20), lim.Limit())
	require.Equal(t, 2, lim.Burst())
	lim, err = restapi.NewLimiter(connectors.Props{})
	require.NoError(t, err)
	require.Nil(t, lim)

	// A RateLimit-Remaining: 0 answer makes the next request wait for the
	// reset; the wait is capped at retry.wait.max, so a 1-hour reset with
	// a 50ms cap lets the read finish.
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(time.Now().Add(time.Hour).Unix()))
			w.Write([]byte(`{"items":[1],"next":"a"}`))
			return
		}
		w.Header().Set("RateLimit-Remaining", "0")
		w.Header().Set("RateLimit-Reset", "3600")
		w.Write([]byte(`{"items":[2]}`))
	})
	_, err = read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.retry.wait.max": "50ms", "svc.restapi.retry.wait.min": "10ms",
		"svc.restapi.paginate.next.field": "next", "svc.restapi.paginate.next.param": "c"}, nil)
	require.NoError(t, err)
	require.Equal(t, 2, rec.count())
	require.True(t, strings.HasSuffix(rec.all()[1].URI, "c=a"))
}

// TestPOSTReadRetried: a POST read is retried like a GET (it reads).
func TestPOSTReadRetried(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			http.Error(w, "busy", http.StatusBadGateway)
			return
		}
		w.Write([]byte(`{"results":[{"id":1}]}`))
	})
	f, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.read.method": "POST", "svc.restapi.read.body": `{"q":"x"}`,
		"svc.restapi.retry.wait.min": "1ms", "svc.restapi.retry.wait.max": "5ms", "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "results"}, nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, f.NumRows())
	require.Equal(t, 2, rec.count())
	require.Equal(t, `{"q":"x"}`, rec.all()[1].Body)
	require.Equal(t, "application/json", rec.all()[1].Header.Get("Content-Type"))
}
