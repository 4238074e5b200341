package notifications

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sluicedata/sluice/notifications/internal/metrics"
	"github.com/sluicedata/sluice/notifications/queue"
)

// ProcessingJob and CleanupJob name the job locks taken in the store.
const (
	ProcessingJob = "processing"
	CleanupJob    = "cleanup"
)

// runnerConfig is what the jobs need of the sidecar's configuration (see
// docs/environment.md).
type runnerConfig struct {
	BatchSize         int
	Drain             bool
	Concurrency       int
	MaxAttempts       int
	InitialRetryDelay time.Duration
	BackoffMultiplier float64
	RetentionDays     int
	DownstreamTimeout time.Duration
	ProviderAPIURL    string
	Mail              MailConfig
	// Downstream opt-ins (docs/environment.md#downstream); zero values keep
	// the plain back-off.
	FailFast4xx     bool
	RetryJitter     float64
	BreakerFailures int
	BreakerCooldown time.Duration
	// QuarantineRetentionDays and LedgerRetentionDays: the cleanup job
	// expires quarantined bodies and discard ledger entries after them.
	QuarantineRetentionDays int
	LedgerRetentionDays     int
	// Secrets are configuration values (secret ones by their names, and
	// URLs' credentials and secret query values) masked in the errors
	// attempts keep (docs/records-api.md#attempts).
	Secrets map[string]string
}

// runner runs the processing and cleanup jobs over a store.
type runner struct {
	cfg     runnerConfig
	store   queue.Store
	log     *slog.Logger
	now     func() time.Time
	client  *http.Client
	mailer  *mailer
	metrics *metrics.Metrics

	handlersMu sync.RWMutex
	handlers   map[handlerKey]Handler
	bySource   map[string]Handler // a source's marketplace
	fallback   Handler

	jobCtx       context.Context // ends only when Shutdown's deadline passes
	jobCancel    context.CancelFunc
	stopping     func() bool
	procSem      chan struct{}
	cleanSem     chan struct{}
	procTrigger  *trigger
	cleanTrigger *trigger
	breaker      *breaker
}

// runnerDeps are a runner's collaborators.
type runnerDeps struct {
	Store    queue.Store
	Log      *slog.Logger
	Now      func() time.Time
	Client   *http.Client // marketplace and provider calls
	Metrics  *metrics.Metrics
	Handlers map[string]Handler // the HMC source's, by notification type
	// Sources are the handlers of sources with a marketplace of their own
	// (docs/sidecar.md#delivery), by source name.
	Sources  map[string]Handler
	Fallback Handler     // every other record
	Stopping func() bool // true once the service stops: no new runs
}

// New builds a runner; nothing runs until a trigger or a Run call.
func newRunner(cfg runnerConfig, d runnerDeps) *runner {
	s := &runner{
		cfg: cfg, store: d.Store, log: d.Log, now: d.Now, client: d.Client, metrics: d.Metrics,
		handlers: map[handlerKey]Handler{}, bySource: map[string]Handler{}, fallback: d.Fallback, stopping: d.Stopping,
		procSem: make(chan struct{}, 1), cleanSem: make(chan struct{}, 1),
	}
	for t, h := range d.Handlers {
		s.handlers[handlerKey{queue.DefaultSource, strings.ToUpper(t)}] = h
	}
	for src, h := range d.Sources {
		s.bySource[src] = h
	}
	s.breaker = newBreaker(cfg.BreakerFailures, cfg.BreakerCooldown, time.Now, func(host string, open bool) {
		v := 0.0
		if open {
			v = 1
			s.log.Warn("downstream circuit breaker open: records for this host wait", "host", host, "cooldown", cfg.BreakerCooldown)
		}
		s.metrics.BreakerOpen.WithLabelValues(host).Set(v)
	})
	s.mailer = &mailer{cfg: cfg.Mail, timeout: mailTimeout, now: s.now}
	s.jobCtx, s.jobCancel = context.WithCancel(context.Background())
	s.procTrigger = &trigger{name: ProcessingJob, run: func(ctx context.Context) { _, _ = s.RunProcessing(ctx) }}
	s.cleanTrigger = &trigger{name: CleanupJob, run: func(ctx context.Context) { _, _ = s.RunCleanup(ctx) }}
	return s
}

// handlerKey selects a handler: a source and one of its types, or "" for
// every type of the source.
type handlerKey struct{ source, typ string }

// Handle registers h for the HMC source's notifications of type typ (USR,
// STK, PMT, TRM, UNK), replacing the marketplace for them; a nil h removes
// the registration. Safe while running.
func (s *runner) Handle(typ string, h Handler) {
	s.HandleSource(queue.DefaultSource, strings.ToUpper(typ), h)
}

// HandleSource registers h for a source's records of type typ (as the
// source names its types), or of every type when typ is ""; a nil h
// removes the registration. Safe while running.
func (s *runner) HandleSource(source, typ string, h Handler) {
	s.handlersMu.Lock()
	defer s.handlersMu.Unlock()
	k := handlerKey{source, typ}
	if h == nil {
		delete(s.handlers, k)
		return
	}
	s.handlers[k] = h
}

// handlerFor picks rec's handler (docs/sidecar.md#delivery): its source
// and type's, its source's for every type, its source's marketplace, or
// the fallback (CONN_MARKETPLACE_URL).
func (s *runner) handlerFor(rec *Record) Handler {
	src := rec.SourceName()
	s.handlersMu.RLock()
	h, ok := s.handlers[handlerKey{src, rec.NotificationType}]
	if !ok {
		h, ok = s.handlers[handlerKey{src, ""}]
	}
	s.handlersMu.RUnlock()
	if ok {
		return h
	}
	if h, ok := s.bySource[src]; ok {
		return h
	}
	return s.fallback
}

// Fallback is the handler of every type without one of its own.
func (s *runner) Fallback() Handler { return s.fallback }

// Wait waits for the running jobs (of a Stop already under way) or ctx.
func (s *runner) Wait(ctx context.Context) error {
	return errors.Join(s.procTrigger.wait(ctx), s.cleanTrigger.wait(ctx))
}

// Shutdown waits for running jobs to end; when ctx ends first they are
// cancelled (their unfinished records are processed again later) and the
// errors say which job was cut short.
func (s *runner) Shutdown(ctx context.Context) error {
	var errs []error
	for _, t := range []*trigger{s.procTrigger, s.cleanTrigger} {
		if err := t.wait(ctx); err != nil {
			s.jobCancel()
			// Cancelled runs return promptly; bounded anyway.
			wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = t.wait(wctx)
			cancel()
			errs = append(errs, fmt.Errorf("waiting for the %s job: %w", t.name, err))
		}
	}
	s.jobCancel()
	return errors.Join(errs...)
}
