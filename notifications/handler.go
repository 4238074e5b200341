package notifications

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/notifications/queue"
)

// Handler processes one notification. A nil error marks the record
// SUCCESS; any error counts as a failed attempt (retried with back-off).
// payload is the raw webhook body (nil when neither stored nor fetchable).
// Handle may be called concurrently for records of different objectTokens.
type Handler interface {
	Handle(ctx context.Context, rec *Record, payload []byte) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, rec *Record, payload []byte) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, rec *Record, payload []byte) error {
	return f(ctx, rec, payload)
}

// DownstreamError is a non-2xx answer from the marketplace or the provider.
// It keeps the status and the size of the answer's body, never the body
// itself: an answer may echo what it was sent, secrets included
// (docs/records-api.md#attempts).
type DownstreamError struct {
	What       string // "marketplace" or "provider API"
	StatusCode int
	// BodyBytes is the answer's body size; with BodyOver it was at least
	// that (the rest was not read).
	BodyBytes  int64
	BodyOver   bool
	RetryAfter time.Duration // from Retry-After on a 429 or 503; 0 when absent
}

func (e *DownstreamError) Error() string {
	size := fmt.Sprintf("%d-byte body", e.BodyBytes)
	if e.BodyOver {
		size = fmt.Sprintf("body over %d bytes", e.BodyBytes)
	}
	return fmt.Sprintf("%s answered %d (%s)", e.What, e.StatusCode, size)
}

// StatusHandler is a Handler that reports the HTTP status of the
// downstream answer, which the attempt history keeps, a success's too
// (docs/records-api.md#attempts). The marketplace handler is one.
type StatusHandler interface {
	Handler
	HandleStatus(ctx context.Context, rec *Record, payload []byte) (status int, err error)
}

// ErrNoMarketplace fails processing when CONN_MARKETPLACE_URL is unset.
var ErrNoMarketplace = errors.New("no marketplace configured (CONN_MARKETPLACE_URL)")

// countedBody bounds how much of a refusing answer's body is read to tell
// its size.
const countedBody = 1 << 20

// MarketplaceHandler POSTs `{"notification":{record},"payload":{body}}` to
// URL; a 2xx answer is success. It is the default handler of every type.
type MarketplaceHandler struct {
	URL    string
	Client *http.Client // its Timeout is CONN_DOWNSTREAM_TIMEOUT
}

// Handle implements Handler.
func (h *MarketplaceHandler) Handle(ctx context.Context, rec *Record, payload []byte) error {
	_, err := h.HandleStatus(ctx, rec, payload)
	return err
}

// HandleStatus implements StatusHandler: Handle, also telling the
// answer's status (0 when there was none).
func (h *MarketplaceHandler) HandleStatus(ctx context.Context, rec *Record, payload []byte) (int, error) {
	if h.URL == "" {
		return 0, ErrNoMarketplace
	}
	red := urlRedactor(h.URL)
	body := make([]byte, 0, 320+len(payload))
	body = append(body, `{"notification":`...)
	body = queue.AppendRecordJSON(body, rec)
	body = append(body, `,"payload":`...)
	if len(bytes.TrimSpace(payload)) == 0 {
		body = append(body, "null"...)
	} else {
		if !utf8.Valid(payload) {
			payload = queue.ValidUTF8(payload)
		}
		body = append(body, payload...)
	}
	body = append(body, '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("marketplace request: %w", redactURLError(err, red))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sluice-Webhook-Token", headerValue(rec.WebhookToken))
	// Only a 2xx answer to this POST is a success: a redirect is not
	// followed (Go would turn a 301/302/303 into a GET without the body).
	client := *h.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("calling marketplace: %w", redactURLError(err, red))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, downstreamError("marketplace", resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// headerValue is a token as a header value: as is when it is printable
// ASCII, else URL-escaped (a header cannot carry control characters).
func headerValue(tok string) string {
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 0x20 || c >= 0x7f {
			return url.QueryEscape(tok)
		}
	}
	return tok
}

// downstreamError describes a refusing answer by its status and its body's
// size (see docs/records-api.md#attempts): the body is read to count it
// (up to countedBody bytes), never kept.
func downstreamError(what string, resp *http.Response) *DownstreamError {
	n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, countedBody+1))
	e := &DownstreamError{What: what, StatusCode: resp.StatusCode, BodyBytes: n}
	if n > countedBody {
		e.BodyBytes, e.BodyOver = countedBody, true
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// parseRetryAfter reads Retry-After: delay-seconds or an HTTP-date; 0 when
// absent or unreadable. At most a day is honoured.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		d = time.Duration(min(n, 86400)) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), 24*time.Hour)
}

// providerURL joins {PROVIDER_API_URL}/webhook-notifications/{token} with
// net/url: a query or fragment of the base stays after the path.
func providerURL(base, token string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", errors.New("PROVIDER_API_URL is not a URL")
	}
	return u.JoinPath("webhook-notifications", token).String(), nil
}

// fetchPayload GETs {PROVIDER_API_URL}/webhook-notifications/{token}. A
// redirect to another host carries no credentials and no Referer.
func fetchPayload(ctx context.Context, client *http.Client, base, token string) ([]byte, error) {
	red := urlRedactor(base)
	u, err := providerURL(base, token)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("provider API request: %w", redactURLError(err, red))
	}
	req.Header.Set("Accept", "application/json")
	c := *client
	c.CheckRedirect = stripOnRedirect
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching notification %q from provider API: %w", token, redactURLError(err, red))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, downstreamError("provider API", resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("reading notification %q from provider API: %w", token, err)
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("provider API sent notification %q as invalid JSON", token)
	}
	return body, nil
}

// credentialHeaders are dropped on a redirect to another host.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token"}

// stripOnRedirect follows at most 10 redirects, never sends a Referer (the
// previous URL may hold a key in its query) and drops credentials when the
// host changes.
func stripOnRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	req.Header.Del("Referer")
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || !strings.EqualFold(req.URL.Host, first.Host) {
		for _, h := range credentialHeaders {
			req.Header.Del(h)
		}
		req.URL.User = nil
	}
	return nil
}

// urlRedactor masks what a downstream URL may hold secret: its password
// and every query value, also URL- and JSON-escaped.
func urlRedactor(raw string) *connectors.Redactor {
	u, err := url.Parse(raw)
	if err != nil {
		return connectors.NewRedactor(map[string]string{"secret.url": raw})
	}
	set := map[string]string{}
	if pw, ok := u.User.Password(); ok {
		set["secret.password"] = pw
	}
	i := 0
	for _, vs := range u.Query() {
		for _, v := range vs {
			if len(v) >= 3 { // shorter values would mask ordinary text
				set[fmt.Sprintf("secret.query.%d", i)] = v
				i++
			}
		}
	}
	return connectors.NewRedactor(set)
}

// redactURLError drops the URL's query and password from a *url.Error and
// masks them elsewhere in the message.
func redactURLError(err error, red *connectors.Redactor) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			if u.User != nil {
				u.User = url.User("***")
			}
			if u.RawQuery != "" {
				u.RawQuery = "…"
			}
			err = &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return red.Error(err)
}
