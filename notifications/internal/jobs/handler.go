package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/sluicedata/sluice/notifications/queue"
)

// Handler processes one notification. A nil error marks the record
// SUCCESS; any error counts as a failed attempt (retried with back-off).
// payload is the raw webhook body (nil when neither stored nor fetchable).
// Handle may be called concurrently for records of different objectTokens.
type Handler interface {
	Handle(ctx context.Context, rec *queue.Record, payload []byte) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, rec *queue.Record, payload []byte) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, rec *queue.Record, payload []byte) error {
	return f(ctx, rec, payload)
}

// DownstreamError is a non-2xx answer from the marketplace or the provider.
type DownstreamError struct {
	What       string // "marketplace" or "provider API"
	StatusCode int
	Body       string // first 512 bytes
}

func (e *DownstreamError) Error() string {
	msg := fmt.Sprintf("%s answered %d", e.What, e.StatusCode)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// ErrNoMarketplace fails processing when CONN_MARKETPLACE_URL is unset.
var ErrNoMarketplace = errors.New("no marketplace configured (CONN_MARKETPLACE_URL)")

// MarketplaceHandler POSTs `{"notification":{record},"payload":{body}}` to
// URL; a 2xx answer is success. It is the default handler of every type.
type MarketplaceHandler struct {
	URL    string
	Client *http.Client // its Timeout is CONN_DOWNSTREAM_TIMEOUT
}

// Handle implements Handler.
func (h *MarketplaceHandler) Handle(ctx context.Context, rec *queue.Record, payload []byte) error {
	if h.URL == "" {
		return ErrNoMarketplace
	}
	body := make([]byte, 0, 320+len(payload))
	body = append(body, `{"notification":`...)
	body = queue.AppendRecordJSON(body, rec)
	body = append(body, `,"payload":`...)
	if len(bytes.TrimSpace(payload)) == 0 {
		body = append(body, "null"...)
	} else {
		body = append(body, payload...)
	}
	body = append(body, '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("marketplace request: %w", redactURLError(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sluice-Webhook-Token", rec.WebhookToken)
	// Only a 2xx answer to this POST is a success: a redirect is not
	// followed (Go would turn a 301/302/303 into a GET without the body).
	client := *h.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("calling marketplace: %w", redactURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return &DownstreamError{What: "marketplace", StatusCode: resp.StatusCode, Body: strings.TrimSpace(string(snippet))}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return nil
}

// fetchPayload GETs {PROVIDER_API_URL}/webhook-notifications/{token}.
func fetchPayload(ctx context.Context, client *http.Client, base, token string) ([]byte, error) {
	u := strings.TrimRight(base, "/") + "/webhook-notifications/" + url.PathEscape(token)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("provider API request: %w", redactURLError(err))
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching notification %s from provider API: %w", token, redactURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("reading notification %s from provider API: %w", token, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &DownstreamError{What: "provider API", StatusCode: resp.StatusCode, Body: queue.TruncateText(strings.TrimSpace(string(body)), 512)}
	}
	if !json.Valid(body) {
		return nil, fmt.Errorf("provider API sent notification %s as invalid JSON", token)
	}
	return body, nil
}

// redactURLError drops the URL from a *url.Error: it may hold credentials.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		if perr == nil && u.User != nil {
			u.User = url.User("***")
			return &url.Error{Op: ue.Op, URL: u.Redacted(), Err: ue.Err}
		}
		if perr == nil && u.RawQuery != "" {
			u.RawQuery = "…"
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}
