package notifications

import (
	"sync"
	"time"
)

// breaker is a circuit breaker per downstream host (CONN_BREAKER_FAILURES,
// CONN_BREAKER_COOLDOWN; see docs/environment.md#downstream): after that
// many consecutive failed calls to a host it opens for the cooldown, and
// records bound for the host are left as they are meanwhile. After the
// cooldown calls go through again; one more failure opens it again.
type breaker struct {
	failures int // 0 = off
	cooldown time.Duration
	now      func() time.Time
	onChange func(host string, open bool)

	mu    sync.Mutex
	hosts map[string]*hostState
}

type hostState struct {
	consecutive int
	openUntil   time.Time
}

func newBreaker(failures int, cooldown time.Duration, now func() time.Time, onChange func(string, bool)) *breaker {
	return &breaker{failures: failures, cooldown: cooldown, now: now, onChange: onChange, hosts: map[string]*hostState{}}
}

// allow reports whether a call to host may go out now.
func (b *breaker) allow(host string) bool {
	if b.failures <= 0 || host == "" {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[host]
	if h == nil || h.openUntil.IsZero() {
		return true
	}
	if b.now().Before(h.openUntil) {
		return false
	}
	// Half open: the next result decides.
	h.openUntil = time.Time{}
	h.consecutive = b.failures - 1
	b.onChange(host, false)
	return true
}

// record notes the outcome of a call to host.
func (b *breaker) record(host string, ok bool) {
	if b.failures <= 0 || host == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[host]
	if h == nil {
		h = &hostState{}
		b.hosts[host] = h
	}
	if ok {
		h.consecutive = 0
		return
	}
	h.consecutive++
	if h.consecutive >= b.failures && h.openUntil.IsZero() {
		h.openUntil = b.now().Add(b.cooldown)
		b.onChange(host, true)
	}
}

// open lists the hosts whose breaker is open, with when it closes.
func (b *breaker) open() map[string]time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]time.Time{}
	now := b.now()
	for host, h := range b.hosts {
		if !h.openUntil.IsZero() && now.Before(h.openUntil) {
			out[host] = h.openUntil
		}
	}
	return out
}
