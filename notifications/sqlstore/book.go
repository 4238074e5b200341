package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// claimBook remembers the claims a store made (record id → the
// claimed_until it set), so Finish applies only the store's own claim: after
// its lease ended another sidecar may have claimed the record again. T is the
// store's representation of claimed_until. The zero value is ready to use.
type claimBook[T any] struct {
	mu     sync.Mutex
	claims map[int64]T
}

// remember records recs as claimed until until, first forgetting the
// claims for which ended is true: this store will not finish those.
func (b *claimBook[T]) remember(recs []queue.Record, until T, ended func(T) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.claims == nil {
		b.claims = make(map[int64]T)
	}
	for id, u := range b.claims {
		if ended(u) {
			delete(b.claims, id)
		}
	}
	for _, r := range recs {
		b.claims[r.ID] = until
	}
}

// take returns and forgets the claim this store made on id, if any.
func (b *claimBook[T]) take(id int64) (T, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, ok := b.claims[id]
	delete(b.claims, id)
	return u, ok
}

// heldLocks is the set of job locks a store holds, so that Close releases
// them; once the store is closed it takes no more. The zero value is ready
// to use.
type heldLocks[L comparable] struct {
	mu     sync.Mutex
	closed bool
	held   map[L]struct{}
}

// add records l as held; false when the store is closed.
func (h *heldLocks[L]) add(l L) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if h.held == nil {
		h.held = make(map[L]struct{})
	}
	h.held[l] = struct{}{}
	return true
}

func (h *heldLocks[L]) remove(l L) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.held, l)
}

// close marks the store closed and returns the locks still held; first is
// false when it was closed already.
func (h *heldLocks[L]) close() (held []L, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	h.closed = true
	for l := range h.held {
		held = append(held, l)
	}
	return held, true
}

// jobLock is what both stores keep of a job lock they hold: the context the
// job runs under (see queue.Store.Lock) and the goroutine that keeps an eye
// on the lock until unlock — renewing the SQLite lease, checking the
// Postgres session.
type jobLock struct {
	store, job string
	cancel     context.CancelCauseFunc
	once       sync.Once
	stop       chan struct{}
	stopped    chan struct{}
}

// newJobLock starts the bookkeeping of a lock just taken; the job runs
// under the returned context, a child of ctx.
func newJobLock(ctx context.Context, store, job string) (*jobLock, context.Context) {
	held, cancel := context.WithCancelCause(ctx)
	return &jobLock{store: store, job: job, cancel: cancel, stop: make(chan struct{}), stopped: make(chan struct{})}, held
}

// watch calls check every period until unlock; a check that reports the
// lock lost (an error) ends the held context with it and the watch.
func (l *jobLock) watch(period time.Duration, check func() error) {
	defer close(l.stopped)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		if why := check(); why != nil {
			l.lose(why)
			return
		}
	}
}

// lose ends the held context: the lock is gone, for the reason why.
func (l *jobLock) lose(why error) {
	l.cancel(fmt.Errorf("%s: job %s: %w: %w", l.store, l.job, why, queue.ErrLockLost))
}

// end stops the watch, ends the held context and releases the lock, once;
// later calls do nothing.
func (l *jobLock) end(release func()) {
	l.once.Do(func() {
		close(l.stop)
		<-l.stopped
		l.cancel(nil)
		release()
	})
}

// abandon undoes newJobLock for a lock the store gives up before watching
// it (the store closed meanwhile).
func (l *jobLock) abandon(release func()) {
	l.once.Do(func() {
		l.cancel(nil)
		release()
	})
}

var errStoreClosed = errors.New("the store was closed")
