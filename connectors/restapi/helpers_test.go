package restapi_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
)

// testKey is the API key of the tests; it must never show in any output.
const testKey = "AIzaSy-TEST-k3y-0123456789"

// seen is one request as the server saw it.
type seen struct {
	Method string
	Host   string
	URI    string // path and raw query, as sent
	Header http.Header
	Body   string
}

type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

func (r *recorder) add(req *http.Request) int {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body)) // the handler may read it too
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, seen{Method: req.Method, Host: req.Host, URI: req.RequestURI, Header: req.Header.Clone(), Body: string(body)})
	return len(r.reqs)
}

func (r *recorder) all() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.reqs...)
}

// uris lists the request URIs in arrival order.
func (r *recorder) uris() []string {
	var out []string
	for _, s := range r.all() {
		out = append(out, s.URI)
	}
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// newServer starts a loopback server whose handler gets the 1-based number
// of the request it answers.
func newServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := rec.add(r)
		h(w, r, n)
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// youtube serves the fixtures like the YouTube Data API: subscriptions in
// two pages (pageToken CAUQAA gives page 2), and channels. A wrong key is a
// 403 whose body quotes the request, key included, as real APIs sometimes do.
func youtube(t *testing.T) (*httptest.Server, *recorder) {
	t.Helper()
	p1 := fixture(t, "youtube_subscriptions_by_channel_p1.json")
	p2 := fixture(t, "youtube_subscriptions_by_channel_p2.json")
	ch := fixture(t, "youtube_channels_info.json")
	return newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		q := r.URL.Query()
		if q.Get("key") != testKey {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":{"code":403,"message":"bad key in `+r.RequestURI+`"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/youtube/v3/subscriptions":
			switch q.Get("pageToken") {
			case "":
				_, _ = w.Write(p1)
			case "CAUQAA":
				_, _ = w.Write(p2)
			default:
				http.Error(w, `{"error":"bad pageToken"}`, http.StatusBadRequest)
			}
		case "/youtube/v3/channels":
			_, _ = w.Write(ch)
		default:
			http.Error(w, `{"error":"no such endpoint `+r.URL.Path+`"}`, http.StatusNotFound)
		}
	})
}

// ytProps are DataSetProperties-shaped props for the subscriptions endpoint
// of srv, with quick retries.
func ytProps(base string) connectors.Props {
	return connectors.Props{
		"svc.storage.type":                  "RESTAPI",
		"svc.restapi.url.pattern":           "svc.restapi.pattern.subscriptions",
		"svc.restapi.pattern.subscriptions": "{svc.restapi.baseURL}/youtube/{svc.restapi.apiVersion}/subscriptions?part=snippet%2CcontentDetails&channelId={svc.restapi.channelId}&key={svc.restapi.accessKey}",
		"svc.restapi.pattern.channels":      "{svc.restapi.baseURL}/youtube/{svc.restapi.apiVersion}/channels?id={svc.restapi.channelId}&key={svc.restapi.accessKey}",
		"svc.restapi.baseURL":               base,
		"svc.restapi.apiVersion":            "v3",
		"svc.restapi.channelId":             "UCAuUUnT6oDeKwE6v1NGQxug",
		"svc.restapi.accessKey":             testKey,
		"svc.restapi.retry.wait.min":        "1ms",
		"svc.restapi.retry.wait.max":        "4ms",
	}
}

func with(p connectors.Props, kv ...string) connectors.Props {
	c := p.Clone()
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

func connector(t testing.TB) connectors.Connector {
	t.Helper()
	c, err := connectors.Lookup("RESTAPI")
	require.NoError(t, err)
	return c
}

func ctxT(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// read reads props as dataset yt.subs with CONSOLE logging into log (when
// non-nil).
func read(t testing.TB, props connectors.Props, log io.Writer) (*dataframe.Frame, error) {
	t.Helper()
	return connector(t).Read(ctxT(t), &connectors.Dataset{Name: "yt.subs", Props: props, Log: log})
}

func payloads(t testing.TB, f *dataframe.Frame) []string {
	t.Helper()
	vals, valid, err := f.StringValues("payload")
	require.NoError(t, err)
	for i, ok := range valid {
		require.True(t, ok, "payload %d is null", i)
	}
	return vals
}

// syncBuffer is a log sink safe for the connector's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tcpServer serves each connection accepted on a loopback port with
// handle; the connection is closed when handle returns, and done closes
// when the test ends. It returns the base URL.
func tcpServer(t *testing.T, handle func(c net.Conn, done <-chan struct{})) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c, done)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}
