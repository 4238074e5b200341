package metrics

import (
	"log/slog"
	"sync"
	"time"
)

// StoreHealth remembers whether the store can commit (the last write
// failed with no success since: a full disk, a read-only file system) and
// logs repeated store errors at most once per minute per operation, with
// how many there were, instead of once per request. See
// docs/http-api.md#health.
type StoreHealth struct {
	log    *slog.Logger
	now    func() time.Time
	errs   interface{ Inc() }
	window time.Duration

	mu      sync.Mutex
	failing bool
	reason  string
	since   time.Time
	ops     map[string]*opLog
}

type opLog struct {
	last       time.Time // when it was last logged
	suppressed int       // errors since, not logged
}

// NewStoreHealth logs to log; errs counts every failure.
func NewStoreHealth(log *slog.Logger, now func() time.Time, errs interface{ Inc() }) *StoreHealth {
	return &StoreHealth{log: log, now: now, errs: errs, window: time.Minute, ops: map[string]*opLog{}}
}

// Failed records that op failed with err. write says whether op commits
// (a failed commit makes the store unhealthy until one succeeds).
func (h *StoreHealth) Failed(op string, write bool, err error, attrs ...any) {
	h.errs.Inc()
	now := h.now()
	h.mu.Lock()
	if write {
		if !h.failing {
			h.since = now
		}
		h.failing = true
		h.reason = err.Error()
	}
	o := h.ops[op]
	if o == nil {
		o = &opLog{}
		h.ops[op] = o
	}
	logIt := o.last.IsZero() || now.Sub(o.last) >= h.window
	repeated := o.suppressed
	if logIt {
		o.last, o.suppressed = now, 0
	} else {
		o.suppressed++
	}
	h.mu.Unlock()
	if !logIt {
		return
	}
	args := append([]any{"op", op, "error", err}, attrs...)
	if repeated > 0 {
		args = append(args, "repeatedSinceLastLog", repeated)
	}
	h.log.Error("store operation failed (repeats are logged once a minute with a count)", args...)
}

// Committed records a successful commit: the store is healthy again.
func (h *StoreHealth) Committed() {
	h.mu.Lock()
	if h.failing {
		h.failing = false
		h.log.Info("the store commits again", "failingSince", h.since)
	}
	h.mu.Unlock()
}

// Down reports why the store cannot commit, if it cannot.
func (h *StoreHealth) Down() (reason string, since time.Time, down bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reason, h.since, h.failing
}
