package restapi_test

// Regression tests of a hostile API (docs/restapi.md#origins,
// docs/restapi.md#memory, docs/restapi.md#errors): each defect found by
// attacking the client as a malicious server would.

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
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

// originOf is a test server's origin as the errors print it.
func originOf(u string) string { return strings.TrimSuffix(u, "/") }

// A next_url or Link page on another origin is refused before any request
// goes there; allowed.origins lets it through, credentials included.
func TestPageURLOnAnotherOrigin(t *testing.T) {
	t.Parallel()
	other, otherRec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		io.WriteString(w, `{"items":[{"id":2}]}`)
	})
	for _, kind := range []string{"next_url", "link"} {
		t.Run(kind, func(t *testing.T) {
			api, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				next := other.URL + "/page2?kind=" + kind
				if kind == "link" {
					w.Header().Set("Link", "<"+next+">; rel=\"next\"")
					io.WriteString(w, `{"items":[{"id":1}]}`)
					return
				}
				fmt.Fprintf(w, `{"items":[{"id":1}],"next":%q}`, next)
			})
			p := connectors.Props{
				"svc.restapi.url":              api.URL + "/page1",
				"svc.restapi.parse.payload":    "true",
				"svc.restapi.records.path":     "items",
				"svc.restapi.paginate.type":    kind,
				"svc.restapi.auth.type":        "bearer",
				"svc.restapi.auth.token":       "b3arer-secret",
				"svc.restapi.header.X-Api-Key": "hdr-k3y-secret",
			}
			before := otherRec.count()
			_, err := read(t, p, nil)
			require.Error(t, err)
			t.Log(err)
			require.Contains(t, err.Error(), originOf(other.URL), "the error names the page's origin")
			require.Contains(t, err.Error(), originOf(api.URL), "and the table's")
			require.Contains(t, err.Error(), restapi.PropAllowedOrigins)
			require.NotContains(t, err.Error(), "b3arer-secret")
			require.Equal(t, before, otherRec.count(), "nothing is sent to the other origin")

			f, err := read(t, with(p, restapi.PropAllowedOrigins, " http://example.invalid, "+other.URL+" "), nil)
			require.NoError(t, err)
			require.EqualValues(t, 2, f.NumRows())
			f.Release()
			got := otherRec.all()[before]
			require.Equal(t, "Bearer b3arer-secret", got.Header.Get("Authorization"), "an allowed origin gets the credentials")
			require.Equal(t, "hdr-k3y-secret", got.Header.Get("X-Api-Key"))
		})
	}
}

// A redirect to an allowed origin keeps the credentials; one to another
// origin still drops them (TestRedirectDropsCredentials).
func TestRedirectToAllowedOriginKeepsCredentials(t *testing.T) {
	t.Parallel()
	other, otherRec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { io.WriteString(w, `{}`) })
	api, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
	})
	f, err := read(t, connectors.Props{
		"svc.restapi.url":          api.URL,
		"svc.restapi.auth.type":    "bearer",
		"svc.restapi.auth.token":   "b3arer-secret",
		restapi.PropAllowedOrigins: other.URL,
	}, nil)
	require.NoError(t, err)
	f.Release()
	require.Equal(t, "Bearer b3arer-secret", otherRec.all()[0].Header.Get("Authorization"))
}

// A fan-out child URL whose origin comes from the parent's values (the
// API's data) is refused unless allowed.origins names it.
func TestFanoutURLOnAnotherOrigin(t *testing.T) {
	t.Parallel()
	other, otherRec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		io.WriteString(w, `{"items":[{"v":1}]}`)
	})
	parent := parentOf(t, other.URL+"/c1")
	defer parent.Release()
	ds := fanoutDS("unused", restapi.PropFanoutToken, "svc.restapi.childURL",
		"svc.restapi.pattern.videos", "{svc.restapi.childURL}",
		"svc.restapi.auth.type", "bearer", "svc.restapi.auth.token", "b3arer-secret")
	delete(ds.Props, restapi.PropNextField)
	delete(ds.Props, restapi.PropNextParam)
	_, err := (&restapi.Connector{}).ReadFanout(ctxT(t), ds, parent, nil)
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), originOf(other.URL))
	require.Contains(t, err.Error(), restapi.PropAllowedOrigins)
	require.NotContains(t, err.Error(), "b3arer-secret")
	require.Zero(t, otherRec.count(), "nothing is sent to an origin the table does not name")

	ds.Props[restapi.PropAllowedOrigins] = other.URL
	f, err := (&restapi.Connector{}).ReadFanout(ctxT(t), ds, parent, nil)
	require.NoError(t, err)
	f.Release()
	require.Equal(t, "Bearer b3arer-secret", otherRec.all()[0].Header.Get("Authorization"))

	// The origin fixed by the template is the table's: its children are read.
	api, apiRec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		io.WriteString(w, `{"items":[{"v":1}]}`)
	})
	parent2 := parentOf(t, "a", "b")
	defer parent2.Release()
	ds = fanoutDS(api.URL)
	delete(ds.Props, restapi.PropNextField)
	delete(ds.Props, restapi.PropNextParam)
	f, err = (&restapi.Connector{}).ReadFanout(ctxT(t), ds, parent2, nil)
	require.NoError(t, err)
	f.Release()
	require.Equal(t, 2, apiRec.count())
}

// allocatedDuring reports the bytes allocated while fn ran (the process's
// TotalAlloc delta: allocations only ever add to it, so it bounds what fn
// held at its peak).
func allocatedDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A body refused at the limit, gzip or chunked, never costs much more than
// the limit: the reader does not double its buffer past it, nor keep
// decoded copies. Not parallel: the allocation count is the process's.
func TestOversizeBodyMemoryIsBounded(t *testing.T) {
	const limit = 32 << 20
	zeros := bytes.Repeat([]byte{'0'}, 1<<20)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	for range 2 * limit / len(zeros) { // 64 MiB of zeros: a ~64 KiB download
		zw.Write(zeros)
	}
	zw.Close()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(gz.Len()))
			w.Write(gz.Bytes())
			return
		}
		for range 2 * limit / len(zeros) { // chunked: no length announced
			if _, err := w.Write(zeros); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	for _, path := range []string{"/gzip", "/chunked"} {
		var err error
		alloc := allocatedDuring(func() {
			_, err = read(t, connectors.Props{"svc.restapi.url": srv.URL + path, restapi.PropMaxResponseBytes: strconv.Itoa(limit), restapi.PropRetryMax: "0"}, nil)
		})
		require.ErrorIs(t, err, restapi.ErrResponseTooLarge, path)
		t.Logf("%s: %.1f MiB allocated to refuse a body at the %d MiB limit", path, float64(alloc)/(1<<20), limit>>20)
		// 1.25 × the limit + 8 MiB for the server's side in this process.
		require.LessOrEqual(t, alloc, uint64(limit*5/4+8<<20), "%s: %d MiB allocated for a %d MiB limit", path, alloc>>20, limit>>20)
	}
}

// Response headers beyond 1 MiB are an error, not a read of whatever the
// server sends, over HTTP/1.1 and HTTP/2 alike.
func TestHugeResponseHeaderIsAnError(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("X-Big", strings.Repeat("h", 2<<20))
		io.WriteString(w, `{}`)
	})
	props := connectors.Props{"svc.restapi.url": srv.URL, restapi.PropRetryMax: "2", restapi.PropRetryWaitMin: "1ms"}
	_, err := read(t, props, nil)
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "response headers are larger than 1 MiB")
	require.Equal(t, 1, rec.count(), "not retried")

	var h2 atomic.Int64
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h2.Add(1)
		w.Header().Set("X-Big", strings.Repeat("h", 2<<20))
		io.WriteString(w, `{}`)
	}))
	tlsSrv.EnableHTTP2 = true
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	_, err = connector(t).Read(tlsOptions(t, tlsSrv), &connectors.Dataset{Name: "h2", Props: with(props, "svc.restapi.url", tlsSrv.URL)})
	require.Error(t, err)
	t.Log(err)
	require.Contains(t, err.Error(), "response headers are larger than 1 MiB")
	require.EqualValues(t, 1, h2.Load(), "not retried")
}

// A body in an encoding Sluice did not ask for is an error naming it,
// never the payload; a user's own Accept-Encoding replaces Sluice's.
func TestUnrequestedEncodingIsAnError(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch enc := r.URL.Query().Get("enc"); enc {
		case "gzip":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, `{"decoded":true}`)
			zw.Close()
		case "deflate":
			w.Header().Set("Content-Encoding", "deflate")
			fw, _ := flate.NewWriter(w, flate.BestSpeed)
			io.WriteString(fw, `{"decoded":true}`)
			fw.Close()
		default:
			w.Header().Set("Content-Encoding", enc)
			w.Write([]byte{0x1b, 0x0f, 0x00, 0xf8, 0x8d, 0x94, 0x6e}) // not JSON
		}
	})
	for _, enc := range []string{"br", "deflate", "zstd"} {
		_, err := read(t, connectors.Props{"svc.restapi.url": srv.URL + "?enc=" + enc, restapi.PropRetryMax: "0"}, nil)
		require.Error(t, err, enc)
		t.Log(err)
		require.Contains(t, err.Error(), "Content-Encoding "+enc, enc)
	}
	// The user asks for gzip and br: gzip is decoded, br is an error too.
	p := connectors.Props{"svc.restapi.header.Accept-Encoding": "gzip, br", restapi.PropRetryMax: "0"}
	f, err := read(t, with(p, "svc.restapi.url", srv.URL+"?enc=gzip"), nil)
	require.NoError(t, err)
	require.Equal(t, []string{`{"decoded":true}`}, payloads(t, f))
	f.Release()
	require.Equal(t, "gzip, br", rec.all()[len(rec.all())-1].Header.Get("Accept-Encoding"))
	_, err = read(t, with(p, "svc.restapi.url", srv.URL+"?enc=br"), nil)
	require.ErrorContains(t, err, "Content-Encoding br")
}

// stallingServer answers with the first bytes of a status line and then
// says nothing more.
func stallingServer(t *testing.T, first string) string {
	t.Helper()
	return tcpServer(t, func(c net.Conn, done <-chan struct{}) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, first)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
}

// A timeout is reported as a timeout naming svc.restapi.timeout, whichever
// part of the answer was late: the status line, the headers, the body.
func TestTimeoutNamedWhereverItStrikes(t *testing.T) {
	t.Parallel()
	for _, first := range []string{"HTTP/1.1 20", "HTTP/1.1 200 OK\r\nContent-Ty", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{\"a\""} {
		u := stallingServer(t, first)
		_, err := read(t, connectors.Props{"svc.restapi.url": u, restapi.PropTimeout: "100ms", restapi.PropRetryMax: "0"}, nil)
		require.Error(t, err, first)
		t.Log(err)
		require.Contains(t, err.Error(), "timed out after 100ms (svc.restapi.timeout)", first)
		require.NotContains(t, err.Error(), "malformed", first)
	}
}

// The OAuth2 token request is cancelled with the read: nothing is left
// running after it.
func TestOAuth2TokenRequestCancelledWithTheRead(t *testing.T) {
	t.Parallel()
	arrived, cancelled := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	tokenSrv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
			once.Do(func() { close(cancelled) })
		case <-time.After(20 * time.Second):
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := connector(t).Read(ctx, &connectors.Dataset{Name: "x", Props: connectors.Props{
			"svc.restapi.url":                "http://127.0.0.1:1/never",
			"svc.restapi.auth.type":          "oauth2",
			"svc.restapi.auth.token.url":     tokenSrv.URL,
			"svc.restapi.auth.client.id":     "id",
			"svc.restapi.auth.client.secret": "s3cret",
		}})
		errc <- err
	}()
	select { // the token request is under way
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("no token request")
	}
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the token request was still running after the read ended")
	}
}
