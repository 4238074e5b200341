package restapi

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
)

// transport is the round tripper of one read or write (see
// docs/restapi.md#connections). Plain-HTTP requests that go to the server
// directly are sent over keep-alive connections by the calling goroutine
// itself: the request is written and the answer read on the caller's
// stack, so a page costs no goroutine hand-offs. net/http's Transport
// passes every request to a connection's writer goroutine and every answer
// back from its reader goroutine, which on a small page cost more than the
// page itself. Everything else — https (TLS, HTTP/2), proxies, request
// bodies of unknown length, header values net/http would refuse — goes
// through net/http's Transport unchanged.
//
// svc.restapi.timeout bounds each request, its body included, as
// http.Client.Timeout would (which would start a goroutine per request for
// a round tripper that is not net/http's own).
type transport struct {
	std     *http.Transport
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	timeout time.Duration
	// probeIdle: a connection idle for longer is checked before reuse
	// (see httpConn.alive).
	probeIdle time.Duration

	mu   sync.Mutex
	idle map[string][]*httpConn // by host:port, most recently used last
}

// maxIdlePerHost is how many idle connections a transport keeps per host
// (a fan-out gives each child its own transport).
const maxIdlePerHost = 4

// connBufferSize is each connection's read and write buffer: a small page,
// its headers included, arrives in one read.
const connBufferSize = 16 << 10

func newTransport(timeout time.Duration) *transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	std := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   maxIdlePerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		// Compression stays on (Go asks for gzip and decodes it): real APIs
		// answer faster, and max.response.bytes bounds the decoded body, so
		// a small compressed bomb cannot blow up memory.
	}
	return &transport{std: std, dial: d.DialContext, timeout: timeout, probeIdle: time.Second}
}

// CloseIdleConnections closes the idle connections of both paths.
func (t *transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, conns := range idle {
		for _, c := range conns {
			c.nc.Close()
		}
	}
	t.std.CloseIdleConnections()
}

// RoundTrip sends req and returns the answer; its body must be closed.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.direct(req) {
		return t.roundTripStd(req)
	}
	ctx := req.Context()
	host := canonicalAddr(req.URL)
	for retried := false; ; retried = true {
		c, reused, err := t.conn(ctx, host)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		resp, err := c.roundTrip(t, req)
		if err == nil {
			return resp, nil
		}
		c.nc.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A kept-alive connection the server closed while it sat idle: the
		// request never reached it, so send it again on a new one, as
		// net/http does.
		var stale *staleConnError
		if !retried && reused && errors.As(err, &stale) && replayable(req, stale.wrote) {
			if req, err = rewound(req); err == nil {
				continue
			}
			return nil, err
		}
		if stale != nil {
			err = stale.err
		}
		return nil, err
	}
}

// closeBody closes a request body that will not be sent (a round tripper
// always closes it).
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// rewound is req with a fresh copy of its body, to send it again.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r2 := *req
	r2.Body = body
	return &r2, nil
}

// direct reports whether the sync path can send req: plain HTTP to the
// server itself, a body of known length, headers net/http would accept.
func (t *transport) direct(req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" || req.Method == http.MethodConnect || req.Close {
		return false
	}
	if t.std.Proxy != nil {
		if p, err := t.std.Proxy(req); err != nil || p != nil {
			return false
		}
	}
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0 {
		return false
	}
	for k, vs := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return false
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return false
			}
		}
	}
	h := req.Host
	if h == "" {
		h = req.URL.Host
	}
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 || h[i] <= ' ' {
			return false // punycode and the odd host: net/http's business
		}
	}
	return true
}

// roundTripStd sends req through net/http's Transport, bounded by the
// timeout until the body is closed.
func (t *transport) roundTripStd(req *http.Request) (*http.Response, error) {
	if t.timeout <= 0 {
		return t.std.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.std.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// conn returns an idle connection to host, or dials one.
func (t *transport) conn(ctx context.Context, host string) (*httpConn, bool, error) {
	for {
		t.mu.Lock()
		conns := t.idle[host]
		if len(conns) == 0 {
			t.mu.Unlock()
			break
		}
		c := conns[len(conns)-1]
		t.idle[host] = conns[:len(conns)-1]
		t.mu.Unlock()
		if time.Since(c.idleAt) <= t.probeIdle || c.alive() {
			return c, true, nil
		}
		c.nc.Close()
	}
	if t.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	nc, err := t.dial(ctx, "tcp", host)
	if err != nil {
		return nil, false, err
	}
	rw := newRawIO(nc)
	return &httpConn{nc: nc, rw: rw, host: host, br: bufio.NewReaderSize(rw, connBufferSize), bw: bufio.NewWriterSize(rw, connBufferSize)}, false, nil
}

// put keeps c for the next request, or closes it.
func (t *transport) put(c *httpConn) {
	c.idleAt = time.Now()
	t.mu.Lock()
	if len(t.idle[c.host]) < maxIdlePerHost {
		if t.idle == nil {
			t.idle = map[string][]*httpConn{}
		}
		t.idle[c.host] = append(t.idle[c.host], c)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	c.nc.Close()
}

// httpConn is one keep-alive HTTP/1.1 connection of the sync path.
type httpConn struct {
	nc   net.Conn
	rw   io.ReadWriter // nc's reads and writes (newRawIO)
	host string
	br   *bufio.Reader
	bw   *bufio.Writer
	// idleAt is when the connection went back to the pool.
	idleAt time.Time
}

// alive reports whether an idle connection is still open. A server closes
// a connection that sat idle past its keep-alive timeout without a word;
// net/http's reader goroutine notices at once, the sync path looks before
// it reuses a connection idle for a while: a read that times out finds
// nothing pending, an end of file or bytes nobody asked for mean it is gone.
func (c *httpConn) alive() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	if err := c.nc.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		return false
	}
	_, err := c.br.Peek(1)
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// staleConnError is a failure before any byte of an answer arrived.
type staleConnError struct {
	err   error
	wrote bool // the request was written whole
}

func (e *staleConnError) Error() string { return e.err.Error() }
func (e *staleConnError) Unwrap() error { return e.err }

// replayable is net/http's rule for sending a request again on a new
// connection: one that was not written at all, or an idempotent one.
func replayable(req *http.Request, wrote bool) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	if !wrote {
		return true
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return req.Header.Get("Idempotency-Key") != "" || req.Header.Get("X-Idempotency-Key") != ""
}

// aLongTimeAgo is a deadline in the past: it interrupts a blocked read or
// write at once.
var aLongTimeAgo = time.Unix(1, 0)

// roundTrip writes req and reads the answer's header on the calling
// goroutine. The body is read from the connection too; closing it at its
// end gives the connection back to t.
func (c *httpConn) roundTrip(t *transport, req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if t.timeout > 0 {
		if err := c.nc.SetDeadline(time.Now().Add(t.timeout)); err != nil {
			return nil, err
		}
	} else if err := c.nc.SetDeadline(time.Time{}); err != nil {
		return nil, err
	}
	// Cancelling ctx (Ctrl-C) interrupts a blocked read or write.
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) })
	fail := func(err error) (*http.Response, error) {
		stop()
		return nil, timeoutError(err)
	}
	gzipped, err := c.writeRequest(req)
	if err != nil {
		return fail(&staleConnError{err: err})
	}
	// The server closed a kept-alive connection: nothing of an answer.
	if _, err := c.br.Peek(1); err != nil {
		return fail(&staleConnError{err: err, wrote: true})
	}
	var resp *http.Response
	for {
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			return fail(err)
		}
		// 1xx answers other than 101 precede the real one (net/http skips
		// them the same way).
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		resp.Body.Close()
	}
	// Each answer has a body of its own: a late second Close of an old
	// answer must not reach the one the connection carries next.
	body := &connBody{c: c, t: t, r: resp.Body, left: resp.ContentLength, stop: stop,
		keep: !resp.Close && !req.Close && resp.ProtoAtLeast(1, 1)}
	resp.Body = body
	if gzipped && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Uncompressed = true
		resp.Body = &gzipBody{body: body}
	}
	return resp, nil
}

// writeRequest writes req as HTTP/1.1 (as net/http would: Host,
// User-Agent, Content-Length, Accept-Encoding: gzip unless the caller
// chose an encoding) and reports whether it asked for gzip.
func (c *httpConn) writeRequest(req *http.Request) (bool, error) {
	w := c.bw
	w.Reset(c.rw)
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	w.WriteString(req.Method)
	w.WriteByte(' ')
	w.WriteString(req.URL.RequestURI())
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(host)
	w.WriteString("\r\n")
	if _, ok := req.Header["User-Agent"]; !ok {
		w.WriteString("User-Agent: Go-http-client/1.1\r\n")
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody {
		defer req.Body.Close()
	}
	if hasBody || req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch {
		w.WriteString("Content-Length: ")
		w.WriteString(strconv.FormatInt(max(req.ContentLength, 0), 10))
		w.WriteString("\r\n")
	}
	gzipped := false
	if req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" && req.Method != http.MethodHead {
		gzipped = true
		w.WriteString("Accept-Encoding: gzip\r\n")
	}
	if err := req.Header.WriteSubset(w, skipRequestHeaders); err != nil {
		return false, err
	}
	w.WriteString("\r\n")
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}
	if hasBody {
		n, err := io.Copy(w, req.Body)
		if err != nil {
			return false, err
		}
		if n != req.ContentLength {
			return false, fmt.Errorf("http: ContentLength=%d with Body length %d", req.ContentLength, n)
		}
	}
	return gzipped, w.Flush()
}

// skipRequestHeaders are written by writeRequest itself, as net/http
// writes them from the request's fields.
var skipRequestHeaders = map[string]bool{"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

// connBody is an answer's body on a sync connection. Read to its end and
// closed, it gives the connection back; closed early, the connection is
// closed (draining an unread rest could take as long as the server likes).
type connBody struct {
	c    *httpConn
	t    *transport
	r    io.ReadCloser
	left int64 // bytes still due when the length is known; -1 unknown
	stop func() bool
	keep bool // the connection may carry another request
	eof  bool
	done bool
}

func (b *connBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("http: read on closed response body")
	}
	n, err := b.r.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
	}
	if err == io.EOF {
		b.eof = true
	} else if err != nil {
		err = timeoutError(err)
	}
	return n, err
}

func (b *connBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	cancelled := !b.stop() // the context's AfterFunc ran: the deadline is spoilt
	if b.keep && !cancelled && (b.eof || b.left == 0) {
		// The body reader has seen its end (a known length read whole
		// needs no further read); closing it consumes nothing more.
		b.r.Close()
		b.t.put(b.c)
		return nil
	}
	b.c.nc.Close()
	return nil
}

// gzipBody decodes a gzip answer as net/http's Transport does.
type gzipBody struct {
	body *connBody
	zr   *gzip.Reader
	err  error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.zr == nil {
		if g.err == nil {
			g.zr, g.err = gzip.NewReader(g.body)
		}
		if g.err != nil {
			return 0, g.err
		}
	}
	n, err := g.zr.Read(p)
	if err == io.EOF {
		// The gzip stream ended: read the body to its end so the
		// connection can be kept.
		if _, derr := g.body.Read(make([]byte, 1)); derr != io.EOF && derr != nil {
			return n, derr
		}
	}
	return n, err
}

func (g *gzipBody) Close() error { return g.body.Close() }

// timeoutError makes a deadline error say it is a timeout to url.Error
// (which asks the error itself, not its chain).
func timeoutError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		if _, direct := err.(net.Error); !direct {
			return &timeoutErr{err}
		}
	}
	return err
}

type timeoutErr struct{ error }

func (e *timeoutErr) Timeout() bool   { return true }
func (e *timeoutErr) Temporary() bool { return true }
func (e *timeoutErr) Unwrap() error   { return e.error }

// canonicalAddr is the URL's host:port, port 80 when unset.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
