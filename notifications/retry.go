package notifications

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// retryDelay is the wait before the next attempt after the attempt-th
// failure: the back-off formula (queue.Backoff), spread by ±RetryJitter,
// and never earlier than a 429/503 answer's Retry-After (see
// docs/environment.md#downstream).
func (s *runner) retryDelay(attempt int, err error) time.Duration {
	d := queue.Backoff(s.cfg.InitialRetryDelay, s.cfg.BackoffMultiplier, attempt)
	if j := s.cfg.RetryJitter; j > 0 {
		d = time.Duration(float64(d) * (1 + j*(2*rand.Float64()-1)))
	}
	var de *DownstreamError
	if errors.As(err, &de) && de.RetryAfter > d {
		d = de.RetryAfter
	}
	return d
}

// failFast reports whether err ends the record at once: with
// CONN_FAIL_FAST_4XX, a 4xx answer other than 408, 409, 425 and 429.
func (s *runner) failFast(err error) bool {
	if !s.cfg.FailFast4xx {
		return false
	}
	var de *DownstreamError
	if !errors.As(err, &de) || de.StatusCode < 400 || de.StatusCode > 499 {
		return false
	}
	switch de.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return false
	}
	return true
}

// isDownstreamFailure reports whether err says the downstream host is in
// trouble (a transport error, a 5xx or a 429), which counts towards its
// circuit breaker; a 4xx about the record itself does not.
func isDownstreamFailure(err error) bool {
	if err == nil {
		return false
	}
	var de *DownstreamError
	if errors.As(err, &de) {
		return de.StatusCode >= 500 || de.StatusCode == http.StatusTooManyRequests
	}
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue)
}

// downstreamHosts are the hosts processing rec calls through the
// sidecar's own handlers: the provider API when the body must be fetched,
// the marketplace when the type has no handler of its own.
func (s *runner) downstreamHosts(rec *Record) []string {
	var out []string
	if len(rec.Payload) == 0 && s.cfg.ProviderAPIURL != "" && rec.SourceName() == queue.DefaultSource {
		out = append(out, hostOf(s.cfg.ProviderAPIURL))
	}
	if m, ok := s.handlerFor(rec).(*MarketplaceHandler); ok && m.URL != "" {
		out = append(out, hostOf(m.URL))
	}
	return out
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// OpenBreakers lists the downstream hosts whose circuit breaker is open,
// with when each closes.
func (s *runner) OpenBreakers() map[string]time.Time { return s.breaker.open() }
