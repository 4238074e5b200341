package notifications

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// RunStats reports one job run.
type RunStats struct {
	Batches   int   // batches claimed (processing)
	Claimed   int   // records claimed (processing)
	Succeeded int   // → SUCCESS
	Retrying  int   // → RETRYING
	Failed    int   // → FAILED
	Skipped   int   // no longer live when finished (outdated/deleted meanwhile)
	Errors    int   // outcome not saved (the lease expires and the record is processed again)
	Deferred  int   // left as they were: the downstream host's circuit breaker is open
	Deleted   int64 // records deleted (cleanup)
}

func (r *RunStats) String() string {
	s := fmt.Sprintf("batches=%d claimed=%d success=%d retrying=%d failed=%d skipped=%d errors=%d deleted=%d",
		r.Batches, r.Claimed, r.Succeeded, r.Retrying, r.Failed, r.Skipped, r.Errors, r.Deleted)
	if r.Deferred > 0 {
		s += fmt.Sprintf(" deferred=%d", r.Deferred)
	}
	return s
}

// maxDrainBatches bounds a drain run; a queue that keeps refilling faster
// than it drains is picked up again by the next scheduled run.
const maxDrainBatches = 10000

// trigger runs a job in the background; a trigger while it runs is
// coalesced into exactly one more run right after the current one.
type trigger struct {
	name    string
	run     func(ctx context.Context)
	mu      sync.Mutex
	running bool
	again   bool
	idle    chan struct{} // closed when the current run (and its follow-up) ends
}

// fire starts a run or schedules one more; it reports whether a run was
// already going on.
func (t *trigger) fire(ctx context.Context, stopping func() bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if stopping() {
		return t.running
	}
	if t.running {
		t.again = true
		return true
	}
	t.running = true
	t.idle = make(chan struct{})
	go t.loop(ctx, stopping)
	return false
}

func (t *trigger) loop(ctx context.Context, stopping func() bool) {
	for {
		t.run(ctx)
		t.mu.Lock()
		if t.again && !stopping() && ctx.Err() == nil {
			t.again = false
			t.mu.Unlock()
			continue
		}
		t.again = false
		t.running = false
		close(t.idle)
		t.mu.Unlock()
		return
	}
}

// wait blocks until no run is going on, or ctx ends.
func (t *trigger) wait(ctx context.Context) error {
	t.mu.Lock()
	running, idle := t.running, t.idle
	t.mu.Unlock()
	if !running {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TriggerProcessing starts a processing run in the background, or asks for
// one more right after the current one; it reports whether one was running.
func (s *runner) TriggerProcessing() bool {
	return s.procTrigger.fire(s.jobCtx, s.stopping)
}

// TriggerCleanup is TriggerProcessing for the cleanup job.
func (s *runner) TriggerCleanup() bool {
	return s.cleanTrigger.fire(s.jobCtx, s.stopping)
}

// RunProcessing runs the processing job now and waits for it: one batch (or,
// with Drain, batches until none is eligible). It waits for a run of this
// process to end first and returns queue.ErrLocked when another process holds
// the job lock. Should the store lose the lock while the job runs, the job
// stops (no further claims; handlers running are cancelled, their records
// processed again once their claim lease ends) and the error wraps
// queue.ErrLockLost.
func (s *runner) RunProcessing(ctx context.Context) (RunStats, error) {
	var st RunStats
	ctx, end, err := s.begin(ctx, s.procSem, ProcessingJob)
	if err != nil {
		return st, err
	}
	defer end()
	var mu sync.Mutex
	for st.Batches < maxDrainBatches {
		recs, err := s.store.Claim(ctx, s.now(), s.cfg.BatchSize)
		if err != nil {
			if ctx.Err() != nil {
				break // cut short: reported below
			}
			s.countRun(ProcessingJob, err)
			return st, fmt.Errorf("processing job: claiming a batch: %w", err)
		}
		if len(recs) == 0 {
			break
		}
		st.Batches++
		st.Claimed += len(recs)
		s.processBatch(ctx, recs, &st, &mu)
		if !s.cfg.Drain || s.stopping() || ctx.Err() != nil {
			break
		}
	}
	err = s.interrupted(ctx, ProcessingJob, st.Errors)
	s.countRun(ProcessingJob, err)
	if st.Claimed > 0 {
		s.log.Info("processing run done", "stats", st.String())
	}
	return st, err
}

// begin waits for this process's run of job to end (sem) and takes the
// job's lock in the store; the run goes on under the returned context,
// which ends should the store lose the lock, and end releases both.
func (s *runner) begin(ctx context.Context, sem chan struct{}, job string) (context.Context, func(), error) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	held, unlock, err := s.store.Lock(ctx, job)
	if err != nil {
		<-sem
		s.countRun(job, err)
		return nil, nil, fmt.Errorf("%s job: %w", job, err)
	}
	return held, func() { unlock(); <-sem }, nil
}

// interrupted reports a run cut short — by the job lock's loss, by
// shutdown or by the caller's context — in one log line and returns why (nil when it was not):
// pending is how many claimed records were left without an outcome.
func (s *runner) interrupted(ctx context.Context, job string, pending int) error {
	if ctx.Err() == nil {
		return nil
	}
	cause := context.Cause(ctx)
	if errors.Is(cause, queue.ErrLockLost) {
		s.log.Error("job stopped: the store lost its job lock, so another sidecar may run it now; records claimed and not finished are processed again once their claim lease ends",
			"job", job, "unfinished", pending, "error", cause)
		return fmt.Errorf("%s job: %w", job, cause)
	}
	if pending > 0 {
		s.log.Warn("job cut short (shutdown or its context ended); records claimed and not finished are processed again once their claim lease ends",
			"job", job, "unfinished", pending, "error", cause)
	}
	return fmt.Errorf("%s job: %w", job, cause)
}

func (s *runner) countRun(job string, err error) {
	switch {
	case err == nil:
		s.metrics.JobRuns.WithLabelValues(job, "ok").Inc()
	case errors.Is(err, queue.ErrLocked):
		s.metrics.JobRuns.WithLabelValues(job, "locked").Inc()
	case errors.Is(err, queue.ErrLockLost):
		s.metrics.JobRuns.WithLabelValues(job, "lost").Inc() // logged by interrupted
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		s.metrics.JobRuns.WithLabelValues(job, "error").Inc() // shutdown: logged by interrupted
	default:
		s.metrics.JobRuns.WithLabelValues(job, "error").Inc()
		s.log.Error("job failed", "job", job, "error", err)
	}
}

// processBatch processes recs (ascending creationDate) one at a time, or
// with Concurrency > 1 runs different objectTokens in parallel while each
// objectToken's records stay sequential and in order.
func (s *runner) processBatch(ctx context.Context, recs []Record, st *RunStats, mu *sync.Mutex) {
	if s.cfg.Concurrency <= 1 || len(recs) == 1 {
		for i := range recs {
			s.processOne(ctx, &recs[i], st, mu)
		}
		return
	}
	var groups [][]*Record
	index := make(map[string]int, len(recs))
	for i := range recs {
		r := &recs[i]
		// Records without an object share nothing: each is its own group.
		if r.ObjectToken == "" {
			groups = append(groups, []*Record{r})
			continue
		}
		g, ok := index[r.ObjectToken]
		if !ok {
			g = len(groups)
			index[r.ObjectToken] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], r)
	}
	workers := min(s.cfg.Concurrency, len(groups))
	work := make(chan []*Record)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				for _, r := range g {
					s.processOne(ctx, r, st, mu)
				}
			}
		}()
	}
	for _, g := range groups {
		work <- g
	}
	close(work)
	wg.Wait()
}

// processOne runs the handler for rec and saves the outcome; for a record
// that became FAILED it sends the alert after the outcome is committed.
func (s *runner) processOne(ctx context.Context, rec *Record, st *RunStats, mu *sync.Mutex) {
	if ctx.Err() != nil {
		// The run was cut short before this record's turn: left claimed,
		// it is processed again once its claim lease ends.
		mu.Lock()
		st.Errors++
		mu.Unlock()
		return
	}
	hosts := s.downstreamHosts(rec)
	for _, h := range hosts {
		if !s.breaker.allow(h) {
			// Not an attempt: the record stays as it is (claimed until its
			// lease ends) and is taken again once the breaker closes.
			mu.Lock()
			st.Deferred++
			mu.Unlock()
			return
		}
	}
	start, began := s.now(), time.Now()
	status, err := s.handleRecord(ctx, rec)
	took := time.Since(began)
	s.metrics.ProcessingDuration.Observe(took.Seconds())
	if ctx.Err() != nil && err != nil {
		// Cut short (shutdown, the job lock lost): not an attempt that
		// failed. The record stays claimed until its lease expires and is
		// processed again.
		mu.Lock()
		st.Errors++
		mu.Unlock()
		return
	}
	if ctx.Err() != nil {
		// The handler succeeded as the run was cut short: the outcome is
		// saved all the same (under this store's claim, which still holds),
		// so the record is not delivered twice.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
		defer cancel()
		ctx = fctx
	}
	for _, h := range hosts {
		s.breaker.record(h, !isDownstreamFailure(err))
	}
	now := queue.Truncate(s.now())
	if err == nil {
		rec.Status = queue.StatusSuccess
	} else {
		rec.RetryCounter++
		rec.LastRetryDate = &now
		if rec.RetryCounter >= s.cfg.MaxAttempts || s.failFast(err) {
			rec.Status = queue.StatusFailed
			rec.NextRetryDate = nil
		} else {
			rec.Status = queue.StatusRetrying
			next := queue.Truncate(now.Add(s.retryDelay(rec.RetryCounter, err)))
			rec.NextRetryDate = &next
		}
		s.log.Warn("notification processing failed", "webhookToken", rec.WebhookToken,
			"attempt", rec.RetryCounter, "maxAttempts", s.cfg.MaxAttempts, "status", rec.Status, "error", err)
	}
	rec.Attempt = s.attemptOf(rec, start, took, status, err)
	ok, ferr := s.store.Finish(ctx, rec)
	if ferr == nil {
		s.metrics.Store.Committed()
	}
	outcome := ""
	switch {
	case ferr != nil:
		// The record will be processed again.
		s.metrics.Store.Failed("save processing outcome", true, ferr)
	case !ok:
		outcome = queue.OutcomeSkipped
	case rec.Status == queue.StatusSuccess:
		outcome = queue.OutcomeSuccess
	case rec.Status == queue.StatusRetrying:
		outcome = queue.OutcomeRetrying
	default:
		outcome = queue.OutcomeFailed
	}
	if outcome != "" {
		src := rec.SourceName()
		s.metrics.Processed.WithLabelValues(outcome, src).Inc()
		s.metrics.Attempts.WithLabelValues(outcome, rec.NotificationType, src).Inc()
	}
	mu.Lock()
	switch outcome {
	case "":
		st.Errors++
	case queue.OutcomeSkipped:
		st.Skipped++
	case queue.OutcomeSuccess:
		st.Succeeded++
	case queue.OutcomeRetrying:
		st.Retrying++
	case queue.OutcomeFailed:
		st.Failed++
	}
	mu.Unlock()
	if outcome == queue.OutcomeFailed {
		s.alert(ctx, rec)
	}
}

// handleRecord fetches the payload if needed and calls the record's
// handler, turning a handler panic into a failed attempt. status is the
// downstream answer's, when the handler tells it (StatusHandler).
func (s *runner) handleRecord(ctx context.Context, rec *Record) (status int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	payload := rec.Payload
	if len(payload) == 0 && s.cfg.ProviderAPIURL != "" && rec.SourceName() == queue.DefaultSource {
		fctx, cancel := context.WithTimeout(ctx, s.cfg.DownstreamTimeout)
		payload, err = fetchPayload(fctx, s.client, s.cfg.ProviderAPIURL, rec.WebhookToken)
		cancel()
		if err != nil {
			var de *DownstreamError
			if errors.As(err, &de) {
				status = de.StatusCode
			}
			return status, err
		}
	}
	hctx, cancel := context.WithTimeout(ctx, s.cfg.DownstreamTimeout)
	defer cancel()
	h := s.handlerFor(rec)
	if sh, ok := h.(StatusHandler); ok {
		return sh.HandleStatus(hctx, rec, payload)
	}
	return 0, h.Handle(hctx, rec, payload)
}

// alert mails (or, without a host, logs) that rec became FAILED. A mail
// failure is logged only: the record is already saved.
func (s *runner) alert(ctx context.Context, rec *Record) {
	subject := AlertSubject(oneLine(rec.WebhookToken))
	if s.cfg.Mail.Host == "" {
		s.metrics.Mails.WithLabelValues("logged").Inc()
		s.log.Error("notification FAILED (no SMTP host: alert logged only)", "webhookToken", rec.WebhookToken,
			"subject", subject, "body", AlertBody(rec.WebhookToken, s.cfg.MaxAttempts))
		return
	}
	// The run's context may be ending (shutdown); the alert still gets its chance.
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mailTimeout)
	defer cancel()
	if err := s.mailer.Send(mctx, subject, AlertBody(oneLine(rec.WebhookToken), s.cfg.MaxAttempts)); err != nil {
		s.metrics.Mails.WithLabelValues("error").Inc()
		s.log.Error("sending the FAILED alert failed", "webhookToken", rec.WebhookToken, "error", err)
		return
	}
	s.metrics.Mails.WithLabelValues("sent").Inc()
}

const mailTimeout = 15 * time.Second

// finishTimeout bounds saving the success of a handler that returned as
// its run was cut short.
const finishTimeout = 10 * time.Second

// RunCleanup deletes terminal records received more than RetentionDays ago
// (all terminal records when 0) and waits for it.
func (s *runner) RunCleanup(ctx context.Context) (RunStats, error) {
	var st RunStats
	ctx, end, err := s.begin(ctx, s.cleanSem, CleanupJob)
	if err != nil {
		return st, err
	}
	defer end()
	// In UTC a day is always 24 hours: local time would move the cutoff by
	// an hour across a DST change.
	now := s.now().UTC()
	cutoff := now.AddDate(0, 0, -s.cfg.RetentionDays)
	if s.cfg.RetentionDays == 0 {
		// Everything terminal, also records stamped by a sidecar whose clock runs ahead.
		cutoff = now.AddDate(100, 0, 0)
	}
	fail := func(err error) (RunStats, error) {
		if cut := s.interrupted(ctx, CleanupJob, 0); cut != nil {
			err = cut // the lock lost or shutdown, not the store
		} else {
			err = fmt.Errorf("cleanup job: %w", err)
		}
		s.countRun(CleanupJob, err)
		return st, err
	}
	n, err := s.store.Cleanup(ctx, cutoff)
	if err != nil {
		return fail(err)
	}
	st.Deleted = n
	if err := s.expireKept(ctx, now); err != nil {
		return fail(err)
	}
	s.countRun(CleanupJob, nil)
	if n > 0 {
		s.log.Info("cleanup run done", "deleted", n)
	}
	return st, nil
}
