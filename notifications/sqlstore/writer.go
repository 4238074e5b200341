package sqlstore

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// intakeReq is one Enqueue waiting for the group-commit writer.
type intakeReq struct {
	ctx  context.Context
	rec  *queue.Record
	done chan intakeResp // buffered: the writer never blocks on a waiter that left
	// q is set instead of rec on the quarantine's writer: the body to keep,
	// and how many entries to keep at most.
	q    *queue.Quarantined
	keep int
}

type intakeResp struct {
	res queue.EnqueueResult
	err error
}

// applyFunc applies the intake rules to reqs, in order, in one transaction
// and commits it; res[i] answers reqs[i]. An error means nothing of the
// batch is committed (or, for a failed COMMIT, that the outcome is unknown).
type applyFunc func(ctx context.Context, reqs []*intakeReq) (res []queue.EnqueueResult, err error)

// pgBatchTimeout bounds one Postgres batch transaction.
const pgBatchTimeout = time.Minute

// writer is the group-commit writer: a goroutine drains every waiting
// request into one transaction, so one fsync acknowledges the whole batch.
// SQLite has exactly one (the file has one write lock); Postgres may run a
// few side by side on their own connections, one batching while another
// waits for its commit (the per-object locks keep the rules exact).
type writer struct {
	queue    chan *intakeReq
	closing  chan struct{}
	stopped  chan struct{}
	once     sync.Once
	apply    applyFunc
	maxBatch int
	log      *slog.Logger
	name     string
	// timeout bounds one batch transaction when > 0, so a hung database
	// fails the waiters (503, the provider re-sends) instead of holding
	// them. SQLite needs none: its only wait is the busy timeout.
	timeout time.Duration

	batches, requests atomic.Int64 // committed batches and their requests (benchmarks report the mean)
}

func newWriter(name string, apply applyFunc, maxBatch, queueSize, workers int, timeout time.Duration, log *slog.Logger) *writer {
	w := &writer{
		timeout:  timeout,
		queue:    make(chan *intakeReq, queueSize),
		closing:  make(chan struct{}),
		stopped:  make(chan struct{}),
		apply:    apply,
		maxBatch: maxBatch,
		log:      log,
		name:     name,
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run()
		}()
	}
	go func() {
		wg.Wait()
		close(w.stopped)
	}()
	return w
}

// submit queues rec and waits for its committed outcome.
func (w *writer) submit(ctx context.Context, rec *queue.Record) (queue.EnqueueResult, error) {
	return w.send(ctx, &intakeReq{ctx: ctx, rec: rec, done: make(chan intakeResp, 1)})
}

// send queues req and waits for its committed outcome.
func (w *writer) send(ctx context.Context, req *intakeReq) (queue.EnqueueResult, error) {
	select {
	case <-w.closing:
		return queue.EnqueueResult{}, fmt.Errorf("%s: enqueue: %w", w.name, errClosed)
	default:
	}
	select {
	case w.queue <- req:
	case <-w.closing:
		return queue.EnqueueResult{}, fmt.Errorf("%s: enqueue: %w", w.name, errClosed)
	case <-ctx.Done():
		return queue.EnqueueResult{}, fmt.Errorf("%s: enqueue: %w", w.name, ctx.Err())
	}
	select {
	case r := <-req.done:
		return r.res, r.err
	case <-ctx.Done():
		// The batch may still commit it; a re-sent delivery is then a duplicate.
		return queue.EnqueueResult{}, fmt.Errorf("%s: enqueue: %w", w.name, ctx.Err())
	case <-w.stopped:
		select {
		case r := <-req.done:
			return r.res, r.err
		default:
			return queue.EnqueueResult{}, fmt.Errorf("%s: enqueue: %w", w.name, errClosed)
		}
	}
}

// close stops taking requests, commits every queued one and waits.
func (w *writer) close() {
	w.once.Do(func() { close(w.closing) })
	<-w.stopped
}

// lingerMax bounds how long a writer waits for a busy batch to refill.
const lingerMax = 200 * time.Microsecond

func (w *writer) run() {
	batch := make([]*intakeReq, 0, w.maxBatch)
	prev := 0
	for {
		select {
		case r := <-w.queue:
			batch = append(batch[:0], r)
		case <-w.closing:
			w.drainAll(batch[:0])
			return
		}
		// Under load the waiters just answered are about to send their next
		// deliveries: without a moment for them, batches alternate between
		// one request and all the others, paying a commit for each. An idle
		// store (last batch of one) does not wait.
		if prev > 1 {
			deadline := time.Now().Add(lingerMax)
			for len(w.queue) < prev-1 && time.Now().Before(deadline) {
				runtime.Gosched()
			}
		}
	fill:
		for len(batch) < w.maxBatch {
			select {
			case r := <-w.queue:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		prev = len(batch)
		w.commit(batch)
	}
}

// drainAll commits what is still queued at Close.
func (w *writer) drainAll(batch []*intakeReq) {
	for {
		select {
		case r := <-w.queue:
			batch = append(batch, r)
			if len(batch) == w.maxBatch {
				w.commit(batch)
				batch = batch[:0]
			}
		default:
			if len(batch) > 0 {
				w.commit(batch)
			}
			return
		}
	}
}

func (w *writer) commit(batch []*intakeReq) {
	live := batch[:0:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- intakeResp{err: fmt.Errorf("%s: enqueue: %w", w.name, err)}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	w.batches.Add(1)
	w.requests.Add(int64(len(live)))
	res, err := w.applyWithTimeout(live)
	if err == nil {
		for i, r := range live {
			r.done <- intakeResp{res: res[i]}
		}
		return
	}
	if len(live) == 1 {
		live[0].done <- intakeResp{err: storeErr(w.name+": enqueue", err)}
		return
	}
	// Nothing of the batch is committed: find the request that broke it by
	// trying each alone, so the others are still stored and acknowledged.
	w.log.Warn("group commit failed; retrying the batch one request at a time",
		slog.String("store", w.name), slog.Int("batch", len(live)), slog.String("error", err.Error()))
	for _, r := range live {
		res, err := w.applyWithTimeout([]*intakeReq{r})
		if err != nil {
			r.done <- intakeResp{err: storeErr(w.name+": enqueue", err)}
			continue
		}
		r.done <- intakeResp{res: res[0]}
	}
}

func (w *writer) applyWithTimeout(reqs []*intakeReq) (_ []queue.EnqueueResult, err error) {
	// A panic must not kill the writer and leave every caller waiting.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("group commit panicked: %v", p)
		}
	}()
	if w.timeout <= 0 {
		return w.apply(context.Background(), reqs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	defer cancel()
	return w.apply(ctx, reqs)
}
