package restapi

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/sluicedata/sluice/connectors"
)

// NewLimiter returns the token bucket of svc.restapi.rate.limit (requests
// per second) and svc.restapi.rate.burst, or nil when no limit is set. One
// limiter paces every request of a read or write; a fan-out passes one to
// all its child reads (ReadOptions.Limiter) so they share it. See
// docs/restapi.md#rate-limits.
func NewLimiter(p connectors.Props) (*rate.Limiter, error) {
	r, err := Properties.Decimal(p, PropRateLimit)
	if err != nil {
		return nil, err
	}
	if r == 0 {
		if isSet(p, PropRateLimit) {
			return nil, fmt.Errorf("property %s: 0 would allow no request (leave it unset for no limit)", PropRateLimit)
		}
		return nil, nil
	}
	burst, err := Properties.Int(p, PropRateBurst)
	if err != nil {
		return nil, err
	}
	if burst > math.MaxInt32 {
		burst = math.MaxInt32
	}
	return rate.NewLimiter(rate.Limit(r), int(burst)), nil
}

// pacer holds back the requests of one read or write: the shared token
// bucket, and a pause a RateLimit-Remaining: 0 answer asks for.
type pacer struct {
	lim     *rate.Limiter
	waitMax time.Duration

	mu        sync.Mutex
	notBefore time.Time
}

// wait blocks until the next request may go, or ctx ends.
func (p *pacer) wait(ctx context.Context) error {
	p.mu.Lock()
	until := p.notBefore
	p.mu.Unlock()
	if d := time.Until(until); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if p.lim == nil {
		return nil
	}
	if err := p.lim.Wait(ctx); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if _, ok := ctx.Deadline(); ok {
			// The limiter refuses at once a wait that would outlast the
			// deadline: the deadline is what ends the request.
			return fmt.Errorf("%w: the wait for the next request would outlast it", context.DeadlineExceeded)
		}
		return err
	}
	return nil
}

// observe reads RateLimit-Remaining / X-RateLimit-Remaining: at 0 the next
// request waits until RateLimit-Reset (seconds, or a Unix time when larger
// than 10⁹), one wait capped at retry.wait.max.
func (p *pacer) observe(h http.Header, now time.Time) {
	for _, prefix := range []string{"Ratelimit-", "X-Ratelimit-"} {
		rem := strings.TrimSpace(h.Get(prefix + "Remaining"))
		if rem == "" {
			continue
		}
		if n, err := strconv.ParseFloat(rem, 64); err != nil || n > 0 {
			return
		}
		d := p.waitMax
		if reset, err := strconv.ParseFloat(strings.TrimSpace(h.Get(prefix+"Reset")), 64); err == nil && reset >= 0 {
			if reset > 1e9 {
				d = time.Unix(int64(reset), 0).Sub(now)
			} else {
				d = time.Duration(reset * float64(time.Second))
			}
		}
		if d > p.waitMax {
			d = p.waitMax
		}
		if d <= 0 {
			return
		}
		p.mu.Lock()
		if t := now.Add(d); t.After(p.notBefore) {
			p.notBefore = t
		}
		p.mu.Unlock()
		return
	}
}

// pacedTransport holds every request of a read or write — retries and
// redirects included — until the pacer lets it go. A wait the context
// cuts short (or one that would outlast its deadline) fails the request
// with a *paceError, which is not retried.
type pacedTransport struct {
	base http.RoundTripper
	pace *pacer
}

func (t *pacedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.pace.wait(req.Context()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &paceError{err}
	}
	return t.base.RoundTrip(req)
}

// paceError is a request the rate limit held back until its context ended.
type paceError struct{ err error }

func (e *paceError) Error() string {
	return fmt.Sprintf("waiting for %s: %v", PropRateLimit, e.err)
}

func (e *paceError) Unwrap() error { return e.err }
