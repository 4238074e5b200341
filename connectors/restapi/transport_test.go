package restapi

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// countConns starts srv counting the connections it accepts.
func countConns(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &n
}

func get(t *testing.T, hc *http.Client, ctx context.Context, u string) (string, error) {
	t.Helper()
	return send(t, hc, ctx, http.MethodGet, u, nil)
}

// send sends one request and returns the answer's body.
func send(t *testing.T, hc *http.Client, ctx context.Context, method, u string, body io.Reader) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// Pages of every framing (length, chunked, gzip, no body) reuse one
// kept-alive connection.
func TestTransportKeepsConnection(t *testing.T) {
	t.Parallel()
	srv, conns := countConns(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("f") {
		case "chunked":
			io.WriteString(w, "chun")
			w.(http.Flusher).Flush()
			io.WriteString(w, "ked")
		case "gzip":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, "zipped")
			zw.Close()
		case "empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			io.WriteString(w, "length")
		}
	})
	want := map[string]string{"length": "length", "chunked": "chunked", "gzip": "zipped", "empty": ""}
	for _, probe := range []time.Duration{time.Second, 0} { // 0: a live connection passes its check
		tr := newTransport(5 * time.Second)
		tr.probeIdle = probe
		hc := &http.Client{Transport: tr}
		for i := 0; i < 5; i++ {
			for _, f := range []string{"length", "chunked", "gzip", "empty"} {
				body, err := get(t, hc, context.Background(), srv.URL+"?f="+f)
				require.NoError(t, err)
				require.Equal(t, want[f], body)
			}
		}
		tr.CloseIdleConnections()
	}
	require.EqualValues(t, 2, conns.Load(), "one connection for each transport")
}

// oneShotServer answers one request per connection and then closes it
// without saying so (no "Connection: close"), as a server does whose idle
// timeout ran out. It counts the connections.
func oneShotServer(t *testing.T) (u string, accepted, closed *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var n, done atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer done.Add(1)
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}()
		}
	}()
	return "http://" + ln.Addr().String(), &n, &done
}

// A kept-alive connection the server closed is replaced. Checked before
// reuse, it is never used; caught only by the request, a GET is sent again
// on a new connection and a POST that may have reached the server is not.
func TestTransportStaleConnection(t *testing.T) {
	t.Parallel()
	for _, probe := range []bool{true, false} {
		u, conns, closed := oneShotServer(t)
		tr := newTransport(5 * time.Second)
		defer tr.CloseIdleConnections()
		if probe {
			tr.probeIdle = 0 // check every idle connection
		} else {
			tr.probeIdle = time.Hour // never
		}
		hc := &http.Client{Transport: tr}
		for i := 0; i < 3; i++ {
			body, err := get(t, hc, context.Background(), u)
			require.NoError(t, err)
			require.Equal(t, "ok", body)
			// Let the server's close happen (bounded), whatever the load.
			require.Eventually(t, func() bool { return closed.Load() == conns.Load() }, 10*time.Second, time.Millisecond)
		}
		require.EqualValues(t, 3, conns.Load())
		body, err := send(t, hc, context.Background(), http.MethodPost, u, strings.NewReader(`{"a":1}`))
		if probe {
			require.NoError(t, err, "the closed connection is found before the POST")
			require.Equal(t, "ok", body)
			require.EqualValues(t, 4, conns.Load())
		} else {
			require.Error(t, err, "a POST on a stale connection is not sent twice")
			require.EqualValues(t, 3, conns.Load())
		}
	}
}

// A body closed before its end closes its connection (draining it could
// take as long as the server likes); the next request dials anew.
func TestTransportEarlyCloseDropsConnection(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	srv, conns := countConns(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, big)
	})
	tr := newTransport(5 * time.Second)
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	require.NoError(t, err)
	_, err = io.ReadFull(resp.Body, make([]byte, 10))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	body, err := get(t, &http.Client{Transport: tr}, context.Background(), srv.URL)
	require.NoError(t, err)
	require.Len(t, body, len(big))
	require.EqualValues(t, 2, conns.Load())
}

// The timeout bounds the wait for the header and the body, and says it is
// a timeout; cancelling the context stops a request at once.
func TestTransportTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("mid") != "" {
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, "part")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: newTransport(50 * time.Millisecond)}
	_, err := get(t, hc, context.Background(), srv.URL)
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	require.True(t, ue.Timeout(), "%v", err)

	_, err = get(t, hc, context.Background(), srv.URL+"?mid=1")
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	require.True(t, ne.Timeout(), "%v", err)

	hc = &http.Client{Transport: newTransport(time.Minute)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = get(t, hc, ctx, srv.URL)
	require.ErrorIs(t, err, context.Canceled)
}

// https goes through net/http's Transport, with the timeout all the same.
func TestTransportHTTPS(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("slow") != "" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		io.WriteString(w, "secure")
	}))
	t.Cleanup(srv.Close)
	tr := newTransport(time.Second) // room for a TLS handshake under -race on a loaded machine
	tr.std.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
	hc := &http.Client{Transport: tr}
	body, err := get(t, hc, context.Background(), srv.URL)
	require.NoError(t, err)
	require.Equal(t, "secure", body)
	_, err = get(t, hc, context.Background(), srv.URL+"?slow=1")
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	require.True(t, ue.Timeout() || errors.Is(err, context.DeadlineExceeded), "%v", err)
}

// A late second Close of an answer whose connection already carries the
// next one must not touch the new answer: every answer has a body of its own.
func TestTransportLateCloseLeavesNextAnswer(t *testing.T) {
	t.Parallel()
	srv, conns := countConns(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat(r.URL.Query().Get("v"), 1000))
	})
	tr := newTransport(5 * time.Second)
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	do := func(v string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"?v="+v, nil)
		require.NoError(t, err)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		return resp
	}
	first := do("a")
	b, err := io.ReadAll(first.Body)
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("a", 1000), string(b))
	require.NoError(t, first.Body.Close()) // the connection goes back to the pool

	second := do("b") // on the same connection
	require.NoError(t, first.Body.Close())
	b, err = io.ReadAll(second.Body)
	require.NoError(t, err, "closing the first answer again closed the second")
	require.Equal(t, strings.Repeat("b", 1000), string(b))
	require.NoError(t, second.Body.Close())
	require.Equal(t, int64(1), conns.Load())
}
