package restapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"

	"github.com/sluicedata/sluice/connectors"
)

// ErrResponseTooLarge is returned (wrapped) when a body is larger than
// svc.restapi.max.response.bytes: a larger body is an error, never a
// truncated row.
var ErrResponseTooLarge = errors.New("response too large")

// errBodyLimit is how much of a non-2xx body an error quotes.
const errBodyLimit = 1 << 10

// ErrHTTPStatus matches (errors.Is) every *StatusError.
var ErrHTTPStatus = errors.New("HTTP error status")

// StatusError is a non-2xx answer after retries.
type StatusError struct {
	Method string
	URL    string // redacted
	Status int
	Body   string // first 1 KiB of the body, redacted
}

// Is makes errors.Is(err, ErrHTTPStatus) true.
func (e *StatusError) Is(target error) bool { return target == ErrHTTPStatus }

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// client performs the requests of one read or one write: one connection
// pool (keep-alive between pages and rows), the retry policy (docs/restapi.md#retries),
// the body limit, and CONSOLE logging with secrets redacted.
type client struct {
	cfg    *config
	red    *connectors.Redactor
	ds     *connectors.Dataset
	rc     *retryablehttp.Client
	tr     *transport
	auth   *authenticator
	pace   *pacer
	reads  bool // the requests read (a POST search is retried like a GET)
	method string
	url    string // redacted, for the log

	// Per request, reset by each attempt; requests are sequential.
	attempt int
	start   time.Time
	reached bool                   // the request's headers were written: the server may act on it
	trace   *httptrace.ClientTrace // sets reached
	body    []byte
	status  int
}

// answer is a 2xx response: its status, header and whole body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// newClient builds the client of one read or write. lim paces every
// request (nil: unlimited); a fan-out passes one limiter to all its reads.
func newClient(cfg *config, ds *connectors.Dataset, red *connectors.Redactor, lim *rate.Limiter) *client {
	tr := newTransport(cfg.Timeout) // svc.restapi.timeout is the transport's (see transport)
	c := &client{cfg: cfg, red: red, ds: ds, tr: tr, pace: &pacer{lim: lim, waitMax: cfg.RetryWaitMax}}
	// The token endpoint gets its own client: no redirects to follow with
	// the client secret, and none of the API's pacing.
	c.auth = newAuthenticator(cfg.Auth, &http.Client{Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }})
	rc := retryablehttp.NewClient()
	rc.Logger = nil // it would log to stderr, URLs unredacted
	rc.HTTPClient = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	rc.RetryMax = cfg.RetryMax
	rc.RetryWaitMin = cfg.RetryWaitMin
	rc.RetryWaitMax = cfg.RetryWaitMax
	rc.CheckRetry = c.checkRetry
	rc.Backoff = backoff
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	rc.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, attempt int) {
		c.attempt = attempt
		// A wait cut short by the context makes the request fail at once
		// with the context's error.
		_ = c.pace.wait(req.Context())
		c.start = time.Now()
		c.reached = false
		c.body, c.status = nil, 0
	}
	rc.ResponseLogHook = func(_ retryablehttp.Logger, resp *http.Response) {
		c.pace.observe(resp.Header, time.Now())
	}
	c.rc = rc
	return c
}

// close drops the idle connections of the pool.
func (c *client) close() { c.tr.CloseIdleConnections() }

// checkRedirect follows at most 10 redirects. None sends a Referer, and one
// to another origin (scheme, host or port) carries no credentials. See
// docs/restapi.md#redirects.
func (c *client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	req.Header.Del("Referer")
	if !sameOrigin(req.URL, via[0].URL) {
		c.auth.strip(req, c.cfg.Header)
	}
	return c.pace.wait(req.Context())
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// do sends one request (retrying per policy) and returns a 2xx answer; a
// non-2xx answer is a *StatusError. An OAuth2 401 fetches a new token and
// sends the request once more.
func (c *client) do(ctx context.Context, method, rawURL string, body []byte) (answer, error) {
	a, err := c.send(ctx, method, rawURL, body)
	var se *StatusError
	if c.auth.refreshable() && errors.As(err, &se) && se.Status == http.StatusUnauthorized {
		c.auth.refresh()
		a, err = c.send(ctx, method, rawURL, body)
	}
	return a, err
}

func (c *client) send(ctx context.Context, method, rawURL string, body []byte) (answer, error) {
	c.method = method
	c.url = c.red.String(rawURL)
	if c.trace == nil {
		c.trace = &httptrace.ClientTrace{WroteHeaders: func() { c.reached = true }}
	}
	ctx = httptrace.WithClientTrace(ctx, c.trace)
	var raw any
	if body != nil {
		raw = body
	}
	h := http.Header{}
	sendURL, err := c.auth.apply(ctx, h, rawURL)
	if err != nil {
		return answer{}, c.red.Error(fmt.Errorf("%s %s: %w", method, c.red.String(rawURL), c.stripURLError(err)))
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, sendURL, raw)
	if err != nil {
		return answer{}, c.red.Error(fmt.Errorf("%s %s: %w", method, c.red.String(rawURL), c.stripURLError(err)))
	}
	for k, v := range c.cfg.Header {
		switch k {
		case "Host":
			// net/http sends req.Host, never a Host header field.
			req.Host = v[0]
			continue
		case "Referer":
			continue // no request sends a Referer (docs/restapi.md#redirects)
		}
		req.Header[k] = v
	}
	for k, v := range h { // the auth scheme's credentials win over a header property
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.SetResponseHandler(c.readBody)
	resp, err := c.rc.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return answer{}, c.red.Error(c.transportError(ctx, method, rawURL, err))
	}
	if c.body == nil && resp.StatusCode/100 == 2 {
		// The handler did not run: retries ran out on a status the policy
		// retries, which is never 2xx; be defensive all the same.
		if err := c.readBody(resp); err != nil {
			return answer{status: resp.StatusCode}, c.red.Error(c.transportError(ctx, method, rawURL, err))
		}
	}
	if resp.StatusCode/100 != 2 {
		excerpt := c.body
		if c.status == 0 {
			// Retries ran out: the last answer's body was left for us.
			excerpt, _ = io.ReadAll(io.LimitReader(resp.Body, errBodyLimit))
			resp.Body.Close()
			c.logAttempt(resp.StatusCode, int64(len(excerpt)), "")
		}
		return answer{status: resp.StatusCode}, &StatusError{
			Method: method,
			URL:    c.red.String(rawURL),
			Status: resp.StatusCode,
			Body:   c.red.String(quoteExcerpt(excerpt)),
		}
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: c.body}, nil
}

// readBody runs inside the retry loop for answers the policy does not
// retry, so a body cut short (a timeout mid-body) is retried like any
// transport error. 2xx bodies are read whole into one right-sized buffer;
// others only for their first 1 KiB.
func (c *client) readBody(resp *http.Response) error {
	defer resp.Body.Close()
	c.status = resp.StatusCode
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, errBodyLimit))
		c.body = b
		c.logAttempt(resp.StatusCode, int64(len(b)), "")
		return nil
	}
	max := c.cfg.MaxResponseBytes
	if resp.ContentLength > max {
		c.logAttempt(resp.StatusCode, resp.ContentLength, "too large")
		return &tooLargeError{limit: max, size: resp.ContentLength}
	}
	var b []byte
	if resp.ContentLength >= 0 {
		b = getBody(resp.ContentLength)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			putBody(b)
			c.logAttempt(resp.StatusCode, 0, err.Error())
			return fmt.Errorf("reading the body: %w", err)
		}
	} else {
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(resp.Body, max+1))
		if err != nil {
			c.logAttempt(resp.StatusCode, n, err.Error())
			return fmt.Errorf("reading the body: %w", err)
		}
		if n > max {
			c.logAttempt(resp.StatusCode, n, "too large")
			return &tooLargeError{limit: max, size: -1}
		}
		b = buf.Bytes()
	}
	if b == nil {
		b = []byte{}
	}
	c.body = b
	c.logAttempt(resp.StatusCode, int64(len(b)), "")
	return nil
}

type tooLargeError struct{ limit, size int64 }

func (e *tooLargeError) Error() string {
	if e.size >= 0 {
		return fmt.Sprintf("%v: the body has %d bytes, more than %s=%d", ErrResponseTooLarge, e.size, PropMaxResponseBytes, e.limit)
	}
	return fmt.Sprintf("%v: the body has more than %s=%d bytes", ErrResponseTooLarge, PropMaxResponseBytes, e.limit)
}

func (e *tooLargeError) Unwrap() error { return ErrResponseTooLarge }

// checkRetry is the policy: GET and PUT retry on transport errors
// (timeouts included), 429 and 5xx. POST retries only what cannot have
// reached the server (a failed dial) and 429/503 answers that carry
// Retry-After, because a POST the server saw may have taken effect.
func (c *client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err == nil && resp != nil && resp.StatusCode/100 == 2 {
		return false, nil // the common case, without the allocations below
	}
	var tl *tooLargeError
	if errors.As(err, &tl) {
		return false, err
	}
	retry := false
	if err != nil {
		retry = !c.unsafePost() || !c.reached
	} else if resp != nil {
		s := resp.StatusCode
		if c.unsafePost() {
			retry = (s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable) && resp.Header.Get("Retry-After") != ""
		} else {
			retry = s == http.StatusTooManyRequests || s/100 == 5
		}
	}
	if retry && c.attempt < c.cfg.RetryMax {
		status, outcome := 0, "retrying"
		if resp != nil {
			status = resp.StatusCode
		}
		if err != nil {
			outcome = "retrying after: " + c.stripURLError(err).Error()
		}
		c.logAttempt(status, -1, outcome)
	}
	return retry, nil
}

// unsafePost reports a POST that may change the server's state: a write's.
func (c *client) unsafePost() bool { return c.method == http.MethodPost && !c.reads }

// backoff doubles from min up to max; a Retry-After (seconds or an HTTP
// date) wins, capped at max.
func backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			if d > max {
				d = max
			}
			return d
		}
	}
	d := min
	for i := 0; i < attempt && d > 0 && d < max; i++ {
		d *= 2
	}
	if d > max || d < 0 { // d < 0: doubling overflowed
		d = max
	}
	return d
}

func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		d = 0
	}
	return d, true
}

// transportError words a failure that produced no usable answer.
func (c *client) transportError(ctx context.Context, method, rawURL string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return fmt.Errorf("%s %s: %w", method, c.red.String(rawURL), ctxErr)
	}
	if c.status == 0 {
		c.logAttempt(0, -1, c.stripURLError(err).Error())
	}
	tries := c.attempt + 1
	what := "after 1 attempt"
	if tries > 1 {
		what = fmt.Sprintf("after %d attempts", tries)
	}
	return fmt.Errorf("%s %s: %s: %w", method, c.red.String(rawURL), what, c.stripURLError(err))
}

// stripURLError drops the *url.Error wrapper, which repeats the URL (the
// message already names it); its cause is kept for errors.Is/As.
func (c *client) stripURLError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	if ue.Timeout() {
		return fmt.Errorf("timed out after %s (%s): %w", c.cfg.Timeout, PropTimeout, ue.Err)
	}
	return ue.Err
}

// logAttempt writes one CONSOLE line for the attempt under way. bytes < 0
// means unknown.
func (c *client) logAttempt(status int, bytes int64, note string) {
	if c.ds == nil || c.ds.Log == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restapi: %s %s", c.method, c.url)
	if status > 0 {
		fmt.Fprintf(&b, " %d", status)
	} else {
		b.WriteString(" -")
	}
	if bytes >= 0 {
		fmt.Fprintf(&b, " %d bytes", bytes)
	}
	fmt.Fprintf(&b, " %s", time.Since(c.start).Round(time.Microsecond))
	if c.attempt > 0 {
		fmt.Fprintf(&b, " (retry %d)", c.attempt)
	}
	if note != "" {
		b.WriteString(" " + note)
	}
	c.ds.Logf("%s", c.red.String(b.String()))
}

// quoteExcerpt keeps a body excerpt printable and whole-rune.
func quoteExcerpt(b []byte) string {
	return strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
}
