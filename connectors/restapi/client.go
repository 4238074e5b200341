package restapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/oauth2"
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

// client performs the requests of one read or write over one connection
// pool (keep-alive, HTTP/2 where offered; see docs/restapi.md#connections):
// the retry policy (docs/restapi.md#retries), the body limit, credentials
// kept with their origin, and CONSOLE logging with secrets redacted. It is
// safe for concurrent use: what one request needs lives in its exchange.
type client struct {
	cfg     *config
	red     *connectors.Redactor
	ds      *connectors.Dataset
	rc      *retryablehttp.Client
	pool    *http.Transport
	owned   bool // the pool is the client's: close drops its connections
	auth    *authenticator
	pace    *pacer
	origins *origins
	reads   bool // the requests read (a POST search is retried like a GET)
	// accept is the Accept-Encoding sent; user says the user chose it.
	accept string
	user   bool
}

// exchange is one request (with its retries and redirects) under way.
type exchange struct {
	method  string
	url     string // redacted, for the log
	attempt int
	start   time.Time
	reached atomic.Bool // the request's headers were written: the server may act on it
	token   *oauth2.Token
	// What the response handler read; handled says it ran.
	handled bool
	status  int
	body    []byte
}

type exchangeKey struct{}

func exchangeOf(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return &exchange{} // a request made outside send (never, but harmless)
	}
	return ex
}

// answer is a 2xx response: its status, header and whole body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// clientOptions are what a read adds to a client: a limiter shared with
// other reads, a pool shared with a fan-out's other children, TLS settings.
type clientOptions struct {
	lim     *rate.Limiter   // nil: unlimited
	pool    *http.Transport // nil: a pool of the client's own
	tls     *tls.Config     // nil: the system's roots
	origins *origins        // nil: the origin of the client's first URL only
}

// newClient builds the client of one read or write whose table URL is
// tableURL.
func newClient(cfg *config, ds *connectors.Dataset, red *connectors.Redactor, tableURL string, o clientOptions) *client {
	c := &client{cfg: cfg, red: red, ds: ds, pool: o.pool, pace: &pacer{lim: o.lim, waitMax: cfg.RetryWaitMax}, origins: o.origins}
	if c.pool == nil {
		c.pool, c.owned = newTransport(o.tls), true
	}
	if c.origins == nil {
		c.origins = newOrigins(tableURL, cfg.AllowedOrigins)
	}
	c.accept, c.user = acceptEncoding, false
	if v := cfg.Header.Get("Accept-Encoding"); v != "" {
		c.accept, c.user = v, true
	}
	tr := &timeoutTransport{base: c.pool, d: cfg.Timeout}
	var tokenClient *http.Client
	if cfg.Auth != nil && cfg.Auth.typ == "oauth2" {
		// The token request goes to the token URL only (no redirects) and
		// without the API's pacing, retried like a read.
		token := retryablehttp.NewClient()
		token.Logger = nil // it would log to stderr, URLs unredacted
		token.HTTPClient = &http.Client{Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		token.RetryMax = cfg.RetryMax
		token.RetryWaitMin, token.RetryWaitMax = cfg.RetryWaitMin, cfg.RetryWaitMax
		token.Backoff = backoff
		token.ErrorHandler = retryablehttp.PassthroughErrorHandler // the token endpoint's answer reaches oauth2, which quotes it
		tokenClient = token.StandardClient()
	}
	c.auth = newAuthenticator(cfg.Auth, tokenClient)

	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.HTTPClient = &http.Client{Transport: &pacedTransport{base: tr, pace: c.pace}, CheckRedirect: c.checkRedirect}
	rc.RetryMax = cfg.RetryMax
	rc.RetryWaitMin = cfg.RetryWaitMin
	rc.RetryWaitMax = cfg.RetryWaitMax
	rc.CheckRetry = c.checkRetry
	rc.Backoff = backoff
	// Retries that run out hand back the last answer (go-retryablehttp's
	// default returns no response and logs): its status and body excerpt
	// make the error.
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	rc.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, attempt int) {
		ex := exchangeOf(req.Context())
		ex.attempt = attempt
		ex.start = time.Now()
		ex.reached.Store(false)
		ex.handled, ex.status, ex.body = false, 0, nil
	}
	rc.ResponseLogHook = func(_ retryablehttp.Logger, resp *http.Response) {
		c.pace.observe(resp.Header, time.Now())
	}
	c.rc = rc
	return c
}

// close drops the idle connections of a pool of the client's own.
func (c *client) close() {
	if c.owned {
		c.pool.CloseIdleConnections()
	}
}

// checkRedirect follows at most 10 redirects. None sends a Referer; one to
// an origin the table does not name carries no credentials, one to an
// allowed origin carries them. See docs/restapi.md#redirects.
func (c *client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	req.Header.Del("Referer")
	if c.origins.admits(req.URL) {
		c.auth.restore(req, via[0], c.cfg.Header)
	} else {
		c.auth.strip(req, c.cfg.Header)
	}
	return nil
}

// do sends one request (retrying per policy) and returns a 2xx answer; a
// non-2xx answer is a *StatusError. An OAuth2 401 fetches a new token and
// sends the request once more.
func (c *client) do(ctx context.Context, method, rawURL string, body []byte) (answer, error) {
	a, tok, err := c.send(ctx, method, rawURL, body)
	var se *StatusError
	if c.auth.refreshable() && errors.As(err, &se) && se.Status == http.StatusUnauthorized {
		c.auth.refresh(tok)
		a, _, err = c.send(ctx, method, rawURL, body)
	}
	return a, err
}

func (c *client) send(ctx context.Context, method, rawURL string, body []byte) (answer, *oauth2.Token, error) {
	ex := &exchange{method: method, url: c.red.String(rawURL)}
	ctx = context.WithValue(ctx, exchangeKey{}, ex)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { ex.reached.Store(true) }})
	fail := func(err error) (answer, *oauth2.Token, error) {
		return answer{}, ex.token, c.red.Error(fmt.Errorf("%s %s: %w", method, ex.url, c.stripURLError(err)))
	}
	var raw any
	if body != nil {
		raw = body
	}
	h := http.Header{}
	sendURL, tok, err := c.auth.apply(ctx, h, rawURL)
	if err != nil {
		return fail(err)
	}
	ex.token = tok
	req, err := retryablehttp.NewRequestWithContext(ctx, method, sendURL, raw)
	if err != nil {
		return fail(err)
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
	req.Header.Set("Accept-Encoding", c.accept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.SetResponseHandler(func(resp *http.Response) error { return c.readResponse(ex, resp) })
	resp, err := c.rc.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return answer{}, ex.token, c.red.Error(c.transportError(ctx, ex, err))
	}
	if !ex.handled {
		// Retries ran out on a status the policy retries (never 2xx): the
		// last answer's body was left for us.
		ex.status = resp.StatusCode
		ex.body = readExcerpt(resp, c.accept, c.user)
		resp.Body.Close()
		c.logAttempt(ex, resp.StatusCode, int64(len(ex.body)), "")
	}
	if resp.StatusCode/100 != 2 {
		return answer{status: resp.StatusCode}, ex.token, &StatusError{
			Method: method,
			URL:    ex.url,
			Status: resp.StatusCode,
			Body:   c.red.String(quoteExcerpt(ex.body)),
		}
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: ex.body}, ex.token, nil
}

// readResponse runs inside the retry loop for answers the policy does not
// retry, so a body cut short (a timeout mid-body) is retried like any
// transport error. 2xx bodies are read whole (readBody); others only for
// their first 1 KiB.
func (c *client) readResponse(ex *exchange, resp *http.Response) error {
	defer resp.Body.Close()
	ex.handled, ex.status = true, resp.StatusCode
	if resp.StatusCode/100 != 2 {
		ex.body = readExcerpt(resp, c.accept, c.user)
		c.logAttempt(ex, resp.StatusCode, int64(len(ex.body)), "")
		return nil
	}
	b, err := readBody(resp, c.cfg.MaxResponseBytes, c.accept, c.user)
	if err != nil {
		var tl *tooLargeError
		size := int64(len(b))
		if errors.As(err, &tl) {
			size = tl.size
		}
		c.logAttempt(ex, resp.StatusCode, size, c.stripURLError(err).Error())
		return err
	}
	ex.body = b
	c.logAttempt(ex, resp.StatusCode, int64(len(b)), "")
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
// Retry-After, because a POST the server saw may have taken effect. What
// another attempt cannot cure — a body over the limit, an encoding Sluice
// does not decode, headers over 1 MiB — is not retried.
func (c *client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err == nil && resp != nil && resp.StatusCode/100 == 2 {
		return false, nil // the common case, without the allocations below
	}
	var pe *paceError
	if isTooLarge(err) || errors.Is(err, ErrEncoding) || untrusted(err) || errors.As(err, &pe) {
		return false, err
	}
	if herr := headerError(c.stripURLError(err)); herr != nil {
		return false, herr
	}
	ex := exchangeOf(ctx)
	retry := false
	if err != nil {
		retry = !c.unsafePost(ex) || !ex.reached.Load()
	} else if resp != nil {
		s := resp.StatusCode
		if c.unsafePost(ex) {
			retry = (s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable) && resp.Header.Get("Retry-After") != ""
		} else {
			retry = s == http.StatusTooManyRequests || s/100 == 5
		}
	}
	if retry && ex.attempt < c.cfg.RetryMax {
		status, outcome := 0, "retrying"
		if resp != nil {
			status = resp.StatusCode
		}
		if err != nil {
			outcome = "retrying after: " + c.stripURLError(err).Error()
		}
		c.logAttempt(ex, status, -1, outcome)
	}
	return retry, nil
}

// untrusted reports a server certificate that does not verify: another
// attempt gets the same certificate.
func untrusted(err error) bool {
	var cve *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &cve) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}

func isTooLarge(err error) bool {
	var tl *tooLargeError
	return errors.As(err, &tl)
}

// unsafePost reports a POST that may change the server's state: a write's.
func (c *client) unsafePost(ex *exchange) bool { return ex.method == http.MethodPost && !c.reads }

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
func (c *client) transportError(ctx context.Context, ex *exchange, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return fmt.Errorf("%s %s: %w", ex.method, ex.url, ctxErr)
	}
	if !ex.handled {
		c.logAttempt(ex, 0, -1, c.stripURLError(err).Error())
	}
	tries := ex.attempt + 1
	what := "after 1 attempt"
	if tries > 1 {
		what = fmt.Sprintf("after %d attempts", tries)
	}
	return fmt.Errorf("%s %s: %s: %w", ex.method, ex.url, what, c.stripURLError(err))
}

// stripURLError drops the *url.Error wrapper, which repeats the URL (the
// message already names it); its cause is kept for errors.Is/As.
func (c *client) stripURLError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	var te *TimeoutError
	if !errors.As(ue.Err, &te) && ue.Timeout() {
		// A timeout of the transport's own (none is set: a proxy's?).
		return &TimeoutError{After: c.cfg.Timeout, Err: ue.Err}
	}
	return ue.Err
}

// logAttempt writes one CONSOLE line for the attempt under way. bytes < 0
// means unknown.
func (c *client) logAttempt(ex *exchange, status int, bytes int64, note string) {
	if c.ds == nil || c.ds.Log == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restapi: %s %s", ex.method, ex.url)
	if status > 0 {
		fmt.Fprintf(&b, " %d", status)
	} else {
		b.WriteString(" -")
	}
	if bytes >= 0 {
		fmt.Fprintf(&b, " %d bytes", bytes)
	}
	fmt.Fprintf(&b, " %s", time.Since(ex.start).Round(time.Microsecond))
	if ex.attempt > 0 {
		fmt.Fprintf(&b, " (retry %d)", ex.attempt)
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
