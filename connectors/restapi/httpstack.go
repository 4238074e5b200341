package restapi

import (
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// The HTTP stack of a read or write is Go's own (see docs/restapi.md#connections):
// net/http's Transport — keep-alive, HTTP/2 over TLS when the server offers
// it, proxies from the environment — under go-retryablehttp's retry loop.
// What Sluice adds goes around it: timeoutTransport bounds each request,
// CheckRedirect keeps credentials with their origin (client.go), and
// readBody reads a body within max.response.bytes, decoding the gzip
// Sluice asked for.

// maxHeaderBytes bounds a response's header fields: a larger header is an
// error (docs/restapi.md#memory).
const maxHeaderBytes = 1 << 20

// maxIdlePerHost is how many idle connections a pool keeps per host: enough
// for the concurrent requests of a read (svc.restapi.concurrency) and a
// fan-out's children sharing the pool.
const maxIdlePerHost = 64

// newTransport returns the connection pool of a read or write (a fan-out's
// children share their parent read's). tlsConf may be nil (the system's
// roots).
func newTransport(tlsConf *tls.Config) *http.Transport {
	d := &net.Dialer{KeepAlive: 30 * time.Second} // svc.restapi.timeout bounds the dial (timeoutTransport)
	t := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           4 * maxIdlePerHost,
		MaxIdleConnsPerHost:    maxIdlePerHost,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
		// Sluice asks for gzip itself and decodes it within
		// max.response.bytes; a body in any other encoding is an error
		// (readBody), never data.
		DisableCompression: true,
	}
	if tlsConf != nil {
		t.TLSClientConfig = tlsConf.Clone()
	}
	return t
}

// timeoutTransport bounds each request, its body included, by
// svc.restapi.timeout: a request late in any part — connecting, the TLS
// handshake, the status line, the headers, the body — fails with a
// *TimeoutError naming the property. Closing the body ends the request's
// deadline.
type timeoutTransport struct {
	base http.RoundTripper
	d    time.Duration
}

func (t *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	te := &TimeoutError{After: t.d}
	ctx, cancel := context.WithTimeoutCause(req.Context(), t.d, te)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, timedOut(ctx, te, "waiting for the response", err)
	}
	resp.Body = &timeoutBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, te: te}
	return resp, nil
}

// timedOut turns err into a *TimeoutError when the request's own deadline
// (te) passed; a cancelled read or any other error stays as it is.
func timedOut(ctx context.Context, te *TimeoutError, where string, err error) error {
	if context.Cause(ctx) != te {
		return err
	}
	return &TimeoutError{After: te.After, Where: where, Err: err}
}

type timeoutBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelFunc
	te     *TimeoutError
}

func (b *timeoutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = timedOut(b.ctx, b.te, "", err) // readBody says it was reading the body
	}
	return n, err
}

func (b *timeoutBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ErrTimeout matches (errors.Is) every *TimeoutError.
var ErrTimeout = errors.New("timeout")

// TimeoutError is a request that took longer than svc.restapi.timeout.
type TimeoutError struct {
	After time.Duration
	Where string // what was late: "waiting for the response", or "" (the body, which the caller says)
	Err   error  // what the transport said
}

func (e *TimeoutError) Error() string {
	msg := fmt.Sprintf("timed out after %s (%s)", e.After, PropTimeout)
	if e.Where != "" {
		msg += " " + e.Where
	}
	return msg
}

// Timeout says it is one (net.Error), so it counts as a transport error to
// the retry policy.
func (e *TimeoutError) Timeout() bool   { return true }
func (e *TimeoutError) Temporary() bool { return true }

// Is makes errors.Is(err, ErrTimeout) and errors.Is(err,
// context.DeadlineExceeded) true.
func (e *TimeoutError) Is(target error) bool {
	return target == ErrTimeout || target == context.DeadlineExceeded
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// readBody reads a 2xx body whole, decoded, into one buffer: never more
// than max decoded bytes plus one chunk (a larger body is a
// *tooLargeError, not a truncated row). asked is the Accept-Encoding the
// request sent and user whether the user chose it.
func readBody(resp *http.Response, max int64, asked string, user bool) ([]byte, error) {
	dec, err := decoding(resp.Header, asked, user)
	if err != nil {
		return nil, err
	}
	if dec == "" && resp.ContentLength >= 0 {
		if resp.ContentLength > max {
			return nil, &tooLargeError{limit: max, size: resp.ContentLength}
		}
		b := make([]byte, resp.ContentLength)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, fmt.Errorf("reading the body: %w", err)
		}
		return b, nil
	}
	var r io.Reader = resp.Body
	if dec == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("reading the gzip body: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	b, err := readLimited(r, max)
	if err != nil && dec == "gzip" && !isTooLarge(err) {
		return nil, fmt.Errorf("reading the gzip body: %w", err)
	}
	return b, err
}

// Chunk sizes of a body of unknown length (chunked, or decoded): the
// chunks double from the first up to the last size, so a small body costs
// one small buffer and a large one never holds more than one chunk above
// the limit.
const (
	firstChunk = 32 << 10
	lastChunk  = 4 << 20
)

// readLimited reads r to its end into chunks and joins them; more than max
// bytes is a *tooLargeError as soon as byte max+1 arrives. A body refused
// at the limit costs the limit and one chunk; bytes.Buffer's doubling
// would cost up to three times the limit (docs/restapi.md#memory).
func readLimited(r io.Reader, max int64) ([]byte, error) {
	var chunks [][]byte
	var total int64
	size := int64(firstChunk)
	for {
		n := min(size, max+1-total)
		buf := make([]byte, n)
		m, err := io.ReadFull(r, buf)
		total += int64(m)
		if total > max {
			return nil, &tooLargeError{limit: max, size: -1}
		}
		if m > 0 {
			chunks = append(chunks, buf[:m])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the body: %w", err)
		}
		size = min(2*size, lastChunk)
	}
	switch len(chunks) {
	case 0:
		return []byte{}, nil
	case 1:
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	return out, nil
}

// readExcerpt reads the first errBodyLimit bytes of a non-2xx body,
// decoded when it is gzip; a body in an encoding Sluice does not decode is
// described, not quoted.
func readExcerpt(resp *http.Response, asked string, user bool) []byte {
	dec, err := decoding(resp.Header, asked, user)
	if err != nil {
		return []byte("(a " + strings.TrimSpace(resp.Header.Get("Content-Encoding")) + "-encoded body)")
	}
	var r io.Reader = resp.Body
	if dec == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil
		}
		defer zr.Close()
		r = zr
	}
	b, _ := io.ReadAll(io.LimitReader(r, errBodyLimit))
	return b
}

// acceptEncoding is what Sluice asks for when the user does not: the
// encodings readBody decodes.
const acceptEncoding = "gzip"

// ErrEncoding matches (errors.Is) every *EncodingError.
var ErrEncoding = errors.New("unexpected Content-Encoding")

// EncodingError is a body in an encoding Sluice does not decode: never
// returned as data.
type EncodingError struct {
	Encoding string // the response's Content-Encoding
	Asked    string // the request's Accept-Encoding
	User     bool   // the user set Accept-Encoding (svc.restapi.header.Accept-Encoding)
}

func (e *EncodingError) Error() string {
	if e.User {
		return fmt.Sprintf("the response has Content-Encoding %s, which Sluice cannot decode (%sAccept-Encoding asked for %q; Sluice decodes gzip)", e.Encoding, PropHeaderPrefix, e.Asked)
	}
	return fmt.Sprintf("the response has Content-Encoding %s, which Sluice did not ask for (Accept-Encoding: %s)", e.Encoding, e.Asked)
}

// Is makes errors.Is(err, ErrEncoding) true.
func (e *EncodingError) Is(target error) bool { return target == ErrEncoding }

// decoding is the decoder a response needs: "" (identity) or "gzip"; any
// other Content-Encoding is an *EncodingError.
func decoding(h http.Header, asked string, user bool) (string, error) {
	ce := strings.TrimSpace(h.Get("Content-Encoding"))
	switch strings.ToLower(ce) {
	case "", "identity":
		return "", nil
	case "gzip", "x-gzip":
		return "gzip", nil
	}
	return "", &EncodingError{Encoding: ce, Asked: asked, User: user}
}

// headerError words a response header net/http refused: over
// MaxResponseHeaderBytes (HTTP/1.1 says so; HTTP/2 says the list is larger
// than advertised, or, for a single field over the limit, a compression
// error). nil when err is something else. Another attempt would get the
// same header: it is not retried.
func headerError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "server response headers exceeded"), strings.Contains(msg, "header list larger than"):
		return fmt.Errorf("the response headers are larger than 1 MiB: %w", err)
	case strings.Contains(msg, "COMPRESSION_ERROR"):
		return fmt.Errorf("the response headers are larger than 1 MiB or not valid HTTP/2 header compression: %w", err)
	}
	return nil
}
