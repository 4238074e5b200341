package restapi_test

// The connection behaviour of the standard stack under the connector
// (docs/restapi.md#connections): keep-alive whatever the framing, HTTP/2
// over TLS, stale connections, bodies refused early, cancellation.

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
)

// framedPages serves a token-paginated listing whose pages come in every
// framing in turn — a length, chunked, gzip, and a last 204 — counting
// connections and recording the protocol of each request.
func framedPages(t *testing.T, tlsH2 bool) (*httptest.Server, *atomic.Int64, *recorder, func() []string) {
	t.Helper()
	var conns atomic.Int64
	rec := &recorder{}
	var mu sync.Mutex
	var protos []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.add(r)
		mu.Lock()
		protos = append(protos, r.Proto)
		mu.Unlock()
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		body := fmt.Sprintf(`{"items":[{"n":%d}],"next":"%d"}`, n, n+1)
		switch n % 4 {
		case 0:
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			io.WriteString(w, body)
		case 1:
			io.WriteString(w, body[:5])
			w.(http.Flusher).Flush()
			io.WriteString(w, body[5:])
		case 2:
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, body)
			zw.Close()
		case 3:
			w.WriteHeader(http.StatusNoContent) // the end
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if tlsH2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &conns, rec, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), protos...)
	}
}

func framedProps(u string) connectors.Props {
	return connectors.Props{
		"svc.restapi.url":                 u + "/items?page=0",
		"svc.restapi.parse.payload":       "true",
		"svc.restapi.records.path":        "items",
		"svc.restapi.paginate.next.field": "next",
		"svc.restapi.paginate.next.param": "page",
	}
}

// Pages of every framing (length, chunked, gzip, no body) are read over
// one kept-alive connection, twice over.
func TestConnectionKeptAliveAcrossFramings(t *testing.T) {
	t.Parallel()
	srv, conns, _, _ := framedPages(t, false)
	for range 2 {
		f, err := read(t, framedProps(srv.URL), nil)
		require.NoError(t, err)
		require.EqualValues(t, 3, f.NumRows())
		f.Release()
	}
	require.EqualValues(t, 2, conns.Load(), "one connection per read")
}

// tlsOptions is a context whose reads trust srv's certificate.
func tlsOptions(t testing.TB, srv *httptest.Server) context.Context {
	t.Helper()
	conf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	return restapi.WithReadOptions(ctxT(t), restapi.ReadOptions{TLSConfig: conf})
}

// https goes over HTTP/2 when the server offers it: every page of a read on
// one connection; the timeout holds the same.
func TestHTTPSWithHTTP2(t *testing.T) {
	t.Parallel()
	srv, conns, rec, protos := framedPages(t, true)
	ctx := tlsOptions(t, srv)
	f, err := connector(t).Read(ctx, &connectors.Dataset{Name: "h2", Props: with(framedProps(srv.URL),
		"svc.restapi.auth.type", "bearer", "svc.restapi.auth.token", "h2-secret")})
	require.NoError(t, err)
	require.EqualValues(t, 3, f.NumRows())
	f.Release()
	require.Equal(t, []string{"HTTP/2.0", "HTTP/2.0", "HTTP/2.0", "HTTP/2.0"}, protos())
	require.EqualValues(t, 1, conns.Load())
	require.Equal(t, "Bearer h2-secret", rec.all()[0].Header.Get("Authorization"))

	// A server that does not trust: the system's roots refuse the test CA.
	_, err = read(t, framedProps(srv.URL), nil)
	require.ErrorContains(t, err, "certificate")

	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	slow.EnableHTTP2 = true
	slow.StartTLS()
	t.Cleanup(slow.Close)
	_, err = connector(t).Read(tlsOptions(t, slow), &connectors.Dataset{Name: "h2", Props: connectors.Props{
		"svc.restapi.url": slow.URL, restapi.PropTimeout: "200ms", restapi.PropRetryMax: "0"}})
	require.ErrorIs(t, err, restapi.ErrTimeout)
	require.ErrorContains(t, err, "timed out after 200ms (svc.restapi.timeout)")
}

// oneShotServer answers one request per connection and then closes it
// without saying so (no "Connection: close"), as a server does whose idle
// timeout ran out. It counts the requests by body.
func oneShotServer(t *testing.T) (string, *sync.Map) {
	t.Helper()
	var bodies sync.Map // body → *atomic.Int64
	u := tcpServer(t, func(c net.Conn, _ <-chan struct{}) {
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		b, _ := io.ReadAll(req.Body)
		key := req.Method + " " + req.URL.RequestURI() + " " + string(b)
		n, _ := bodies.LoadOrStore(key, &atomic.Int64{})
		n.(*atomic.Int64).Add(1)
		page, _ := strconv.Atoi(req.URL.Query().Get("page"))
		body := fmt.Sprintf(`{"items":[{"n":%d}]}`, page)
		if page < 4 {
			body = fmt.Sprintf(`{"items":[{"n":%d}],"next":"%d"}`, page, page+1)
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	})
	return u, &bodies
}

// A kept-alive connection the server closed is replaced: a read's GETs all
// arrive; a write's POST is never sent twice.
func TestStaleConnections(t *testing.T) {
	t.Parallel()
	u, seen := oneShotServer(t)
	f, err := read(t, with(framedProps(u), "svc.restapi.url", u+"/items?page=0", restapi.PropRetryMax, "2", restapi.PropRetryWaitMin, "1ms"), nil)
	require.NoError(t, err)
	require.EqualValues(t, 5, f.NumRows())
	f.Release()

	rows := parentOf(t, "a", "b", "c", "d")
	defer rows.Release()
	_, _ = (&restapi.Connector{}).Write(ctxT(t), &connectors.Dataset{Name: "w", Props: connectors.Props{
		"svc.restapi.url": u + "/events", restapi.PropRetryMax: "2", restapi.PropRetryWaitMin: "1ms"}}, rows)
	seen.Range(func(k, v any) bool {
		require.EqualValues(t, 1, v.(*atomic.Int64).Load(), "%s was sent twice", k)
		return true
	})
}

// A body refused at the limit is not read to its end: its connection is
// dropped, and the next child of a fan-out (which shares the pool) reads
// its own answer whole.
func TestRefusedBodyLeavesThePoolUsable(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if strings.Contains(r.URL.Path, "big") {
			fmt.Fprintf(w, `{"items":[{"v":%q}]}`, big)
			return
		}
		io.WriteString(w, `{"items":[{"v":"small"}]}`)
	})
	parent := parentOf(t, "big1", "small1", "big2", "small2")
	defer parent.Release()
	ds := fanoutDS(srv.URL, restapi.PropFanoutConcurrency, "1", restapi.PropFanoutOnError, "skip", restapi.PropMaxResponseBytes, "1000")
	delete(ds.Props, restapi.PropNextField)
	delete(ds.Props, restapi.PropNextParam)
	var warn strings.Builder
	f, err := (&restapi.Connector{}).ReadFanout(ctxT(t), ds, parent, &warn)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{`{"v":"small","_parent_channel_id":"small1"}`, `{"v":"small","_parent_channel_id":"small2"}`}, rowsJSON(t, f))
	require.Contains(t, warn.String(), "skipped 2 of 4 parent values")
}

// Cancelling the read stops a request at once, whatever the server does.
func TestCancelStopsARequest(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		arrived <- struct{}{}
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := connector(t).Read(ctx, &connectors.Dataset{Name: "c", Props: connectors.Props{"svc.restapi.url": srv.URL}})
		errc <- err
	}()
	<-arrived
	cancel()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not stop")
	}
}
