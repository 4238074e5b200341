package restapi_test

// Black-box acceptance tests written from docs/restapi.md and the RESTAPI
// section of the README, through the registry as a user of the connector
// sees it.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe/fileio"
)

func accProps(kv ...string) connectors.Props {
	p := connectors.Props{"svc.storage.type": "RESTAPI", "svc.restapi.retry.wait.min": "1ms", "svc.restapi.retry.wait.max": "5ms"}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i]] = kv[i+1]
	}
	return p
}

func accRead(t *testing.T, p connectors.Props) (string, error) {
	t.Helper()
	conn, err := connectors.Lookup("restapi")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var log bytes.Buffer
	f, err := conn.Read(ctx, &connectors.Dataset{Name: "acc.t", Props: p, Log: &log})
	if err != nil {
		return "", err
	}
	defer f.Release()
	var out bytes.Buffer
	require.NoError(t, fileio.WriteNDJSON(&out, f))
	return out.String(), nil
}

func TestAcceptanceURLRules(t *testing.T) {
	t.Parallel()
	srv, l := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { _, _ = io.WriteString(w, `{}`) })
	// url wins over a pattern (which is then ignored, even when broken).
	_, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/direct", "svc.restapi.url.pattern", "svc.restapi.pattern.none"))
	require.NoError(t, err)
	// Tokens are replaced repeatedly, values inserted literally (pre-encoded %2C stays).
	_, err = accRead(t, accProps(
		"svc.restapi.url.pattern", "svc.restapi.pattern.subscriptions",
		"svc.restapi.pattern.subscriptions", "{svc.restapi.baseURL}/{svc.restapi.apiVersion}/subs?part=snippet%2CcontentDetails&id={svc.restapi.id}",
		"svc.restapi.baseURL", srv.URL,
		"svc.restapi.apiVersion", "v3",
		"svc.restapi.id", "{svc.restapi.inner}",
		"svc.restapi.inner", "a%2Fb",
	))
	require.NoError(t, err)
	require.Equal(t, []string{"/direct", "/v3/subs?part=snippet%2CcontentDetails&id=a%2Fb"}, l.uris())
	// The unresolved token error names token and pattern; nothing is sent.
	_, err = accRead(t, accProps("svc.restapi.url.pattern", "svc.restapi.pattern.x", "svc.restapi.pattern.x", srv.URL+"/{svc.restapi.missing}"))
	require.ErrorContains(t, err, "svc.restapi.missing")
	require.ErrorContains(t, err, "svc.restapi.pattern.x")
	// Token names are case-sensitive.
	_, err = accRead(t, accProps("svc.restapi.url.pattern", "svc.restapi.pattern.x", "svc.restapi.pattern.x", srv.URL+"/{svc.restapi.ID}", "svc.restapi.id", "1"))
	require.ErrorContains(t, err, "svc.restapi.ID")
	require.Equal(t, 2, l.count())
	// Relative URL.
	_, err = accRead(t, accProps("svc.restapi.url", "/relative"))
	require.Error(t, err)
}

func TestAcceptanceHeadersAndSecrets(t *testing.T) {
	t.Parallel()
	srv, l := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { http.Error(w, "denied", 401) })
	_, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x?token=tk-SECRET-1&pw=pw-SECRET-2",
		"svc.restapi.header.Authorization", "Bearer ab-SECRET-3",
		"svc.restapi.header.X-Api-Key", "hk-SECRET-4",
		"svc.restapi.myToken", "tk-SECRET-1",
		"svc.restapi.dbPASSWORD", "pw-SECRET-2"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "401")
	require.NotContains(t, err.Error(), "SECRET")
	require.Equal(t, "Bearer ab-SECRET-3", l.all()[0].Header.Get("Authorization"))
	require.Equal(t, "hk-SECRET-4", l.all()[0].Header.Get("X-Api-Key"))
}

func TestAcceptanceRetryAfterCappedAndTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("Retry-After is capped at wait.max", func(t *testing.T) {
		t.Parallel()
		srv, l := newServer(t, func(w http.ResponseWriter, _ *http.Request, n int) {
			if n == 1 {
				w.Header().Set("Retry-After", "86400")
				http.Error(w, "later", 503)
				return
			}
			_, _ = io.WriteString(w, `{"a":1}`)
		})
		_, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x"))
		require.NoError(t, err)
		require.Equal(t, 2, l.count())
	})
	t.Run("a timeout is a transport error and is retried", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		srv, l := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			_, _ = io.WriteString(w, `{"a":1}`)
		})
		out, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x", "svc.restapi.timeout", "PT0.2S"))
		require.NoError(t, err)
		require.Contains(t, out, `{\"a\":1}`)
		require.Equal(t, 2, l.count())
	})
	t.Run("a retried page is not a page", func(t *testing.T) {
		t.Parallel()
		srv, l := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			switch {
			case r.URL.Query().Get("p") == "":
				_, _ = io.WriteString(w, `{"next":"t2","items":[{"a":1}]}`)
			case n == 2:
				http.Error(w, "flaky", 502)
			default:
				_, _ = io.WriteString(w, `{"items":[{"a":2}]}`)
			}
		})
		out, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x", "svc.restapi.paginate.next.field", "next",
			"svc.restapi.paginate.next.param", "p", "svc.restapi.paginate.max.pages", "2",
			"svc.restapi.parse.payload", "true", "svc.restapi.records.path", "items"))
		require.NoError(t, err)
		require.Equal(t, "{\"a\":1}\n{\"a\":2}\n", out)
		require.Equal(t, 3, l.count())
	})
}

func TestAcceptanceParsedPages(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch r.URL.Query().Get("p") {
		case "":
			_, _ = io.WriteString(w, `{"next":"2","items":[{"a":1}]}`)
		case "2":
			_, _ = io.WriteString(w, `{"next":"3","error":"no items here"}`)
		case "3":
			_, _ = io.WriteString(w, `{"next":"","items":[{"a":2.5,"b":"x"}]}`)
		}
	})
	out, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x", "svc.restapi.paginate.next.field", "next",
		"svc.restapi.paginate.next.param", "p", "svc.restapi.parse.payload", "true", "svc.restapi.records.path", "items"))
	require.NoError(t, err)
	// Schemas merge (long+double → double); a page without the array gives no rows.
	require.Equal(t, "{\"a\":1.0,\"b\":null}\n{\"a\":2.5,\"b\":\"x\"}\n", out) // doubles print as Spark does
}

func TestAcceptanceMaxResponseBytes(t *testing.T) {
	t.Parallel()
	big := `{"a":"` + strings.Repeat("x", 200) + `"}`
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush()
		}
		_, _ = io.WriteString(w, big)
	})
	for _, path := range []string{"/plain", "/chunked"} {
		_, err := accRead(t, accProps("svc.restapi.url", srv.URL+path, "svc.restapi.max.response.bytes", "100"))
		require.Error(t, err, path)
		require.ErrorContains(t, err, "svc.restapi.max.response.bytes")
	}
	out, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/plain", "svc.restapi.max.response.bytes", "1000"))
	require.NoError(t, err)
	require.Contains(t, out, "xxxx")
}

func TestAcceptanceBadProperties(t *testing.T) {
	t.Parallel()
	srv, l := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { _, _ = io.WriteString(w, `{}`) })
	for _, kv := range [][2]string{
		{"svc.restapi.parse.payload", "maybe"},
		{"svc.restapi.paginate.max.pages", "0"},
		{"svc.restapi.retry.max", "-1"},
		{"svc.restapi.timeout", "soon"},
		{"svc.restapi.max.response.bytes", "lots"},
	} {
		_, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x", kv[0], kv[1]))
		require.ErrorContains(t, err, kv[0])
	}
	require.Zero(t, l.count())
}

func TestAcceptanceURLPasswordRedacted(t *testing.T) {
	t.Parallel()
	srv, l := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ int) { http.Error(w, "no", 403) })
	u := strings.Replace(srv.URL, "http://", "http://user:pa55-SECRET@", 1)
	_, err := accRead(t, accProps("svc.restapi.url", u+"/x"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "403")
	require.Contains(t, err.Error(), "user:***@")
	require.NotContains(t, err.Error(), "pa55-SECRET")
	require.Equal(t, 1, l.count())
	require.Equal(t, "Basic "+"dXNlcjpwYTU1LVNFQ1JFVA==", l.all()[0].Header.Get("Authorization"))
}

func TestAcceptanceURLQuerySecretRedacted(t *testing.T) {
	t.Parallel()
	srv, l := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Error(w, "bad key "+r.URL.Query().Get("key"), 400)
	})
	// The key is written into the URL itself, not in an accessKey property.
	_, err := accRead(t, accProps("svc.restapi.url", srv.URL+"/x?part=id&key=AIza-inline-SECRET&access_token=tok%2FSECRET2"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "400")
	require.Contains(t, err.Error(), "key=***")
	require.Contains(t, err.Error(), "part=id")
	require.NotContains(t, err.Error(), "SECRET")
	require.Equal(t, 1, l.count())
}
