package notifications

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/robfig/cron/v3"

	"github.com/sluicedata/sluice/notifications/internal/httpapi"
	"github.com/sluicedata/sluice/notifications/internal/metrics"
	"github.com/sluicedata/sluice/notifications/source"
)

// Service is the sidecar: the HTTP API (internal/httpapi), the processing
// and cleanup jobs and their schedule, over a Store it does
// not own (the caller closes it).
type Service struct {
	cfg     Config
	store   Store
	log     *slog.Logger
	api     *httpapi.API
	jobs    *runner
	sources *source.Set

	baseCtx    context.Context // ends after Stop: intake and scrapes
	baseCancel context.CancelFunc

	stopping atomic.Bool
	mu       sync.Mutex
	started  bool
	cron     *cron.Cron
	ln       net.Listener
	tracker  *trackingListener
	served   chan error
}

// options collects what the Options set before New builds the parts.
type options struct {
	now      func() time.Time
	log      *slog.Logger
	client   *http.Client
	handlers map[string]Handler
	bySource []sourceHandler
	fallback Handler
}

type sourceHandler struct {
	source, typ string
	h           Handler
}

// Option customises a Service (for Go embedders and tests).
type Option func(*options)

// WithClock replaces the clock (tests drive back-off with it).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithLogger sets the logger. Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithHTTPClient sets the client of the marketplace and provider calls; its
// Timeout is then the caller's business. Defaults to a client with
// CONN_DOWNSTREAM_TIMEOUT.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.client = c } }

// WithHandler registers h for a notification type (USR, STK, PMT, TRM,
// UNK) of the HMC source, like Handle.
func WithHandler(typ string, h Handler) Option {
	return func(o *options) { o.handlers[strings.ToUpper(typ)] = h }
}

// WithSourceHandler registers h for a source's records of type typ, or of
// every type when typ is "", like HandleSource.
func WithSourceHandler(source, typ string, h Handler) Option {
	return func(o *options) { o.bySource = append(o.bySource, sourceHandler{source, typ, h}) }
}

// WithDefaultHandler replaces the marketplace handler for every type without
// a handler of its own.
func WithDefaultHandler(h Handler) Option { return func(o *options) { o.fallback = h } }

// New validates cfg (start from DefaultConfig or ConfigFromEnv: a zero
// Config is invalid) and builds the service over store. Nothing runs until
// Start (the App may be served by the caller instead).
func New(cfg Config, store Store, opts ...Option) (*Service, error) {
	if store == nil {
		return nil, errors.New("notifications: nil store")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	o := options{now: time.Now, log: slog.Default(), handlers: map[string]Handler{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.client == nil {
		// Enough idle connections for every concurrent worker: the default
		// two per host would reconnect on most calls.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(2*cfg.Concurrency, 8)
		o.client = &http.Client{Timeout: cfg.DownstreamTimeout, Transport: tr}
	}
	if o.fallback == nil {
		o.fallback = &MarketplaceHandler{URL: cfg.MarketplaceURL, Client: o.client}
	}
	sources, err := cfg.sourceSet()
	if err != nil {
		return nil, err
	}
	// A source with a marketplace of its own delivers there (unless a Go
	// handler is registered for it).
	marketplaces := map[string]Handler{}
	for _, src := range sources.All() {
		if src.Marketplace != "" {
			marketplaces[src.Name] = &MarketplaceHandler{URL: src.Marketplace, Client: o.client}
		}
	}
	s := &Service{cfg: cfg, store: store, log: o.log, sources: sources}
	s.baseCtx, s.baseCancel = context.WithCancel(context.Background())
	m := metrics.New(metrics.Source{Ctx: s.baseCtx, Stats: store.Stats, Now: o.now, Log: o.log}, sources.Names()...)
	s.jobs = newRunner(cfg.jobsConfig(), runnerDeps{
		Store: store, Log: o.log, Now: o.now, Client: o.client, Metrics: m,
		Handlers: o.handlers, Sources: marketplaces, Fallback: o.fallback, Stopping: s.stopping.Load,
	})
	for _, sh := range o.bySource {
		s.jobs.HandleSource(sh.source, sh.typ, sh.h)
	}
	api := cfg.apiConfig()
	api.Sources = sources
	s.api = httpapi.New(api, httpapi.Deps{
		Store: store, Log: o.log, Now: o.now, Metrics: m, Jobs: s.jobs, Ctx: s.baseCtx,
	})
	return s, nil
}

// Config returns the service's configuration.
func (s *Service) Config() Config { return s.cfg }

// Handle registers h for the HMC source's notifications of type typ (USR,
// STK, PMT, TRM or UNK), replacing the marketplace handler for it. Safe
// while running.
func (s *Service) Handle(typ string, h Handler) { s.jobs.Handle(typ, h) }

// HandleSource registers h for a source's records of type typ (the type as
// its provider names it, e.g. payment_intent.succeeded), or of every type
// of the source when typ is "", replacing the source's marketplace for
// them (docs/sidecar.md#delivery). Safe while running.
func (s *Service) HandleSource(source, typ string, h Handler) { s.jobs.HandleSource(source, typ, h) }

// Sources lists the service's webhook sources, the HMC one first.
func (s *Service) Sources() []*source.Source { return s.sources.All() }

// App returns the Fiber app serving the whole HTTP API, for embedding or
// for tests (app.Test).
func (s *Service) App() *fiber.App { return s.api.App() }

// TriggerProcessing starts a processing run in the background, or asks for
// one more right after the current one; it reports whether one was running.
func (s *Service) TriggerProcessing() bool { return s.jobs.TriggerProcessing() }

// TriggerCleanup is TriggerProcessing for the cleanup job.
func (s *Service) TriggerCleanup() bool { return s.jobs.TriggerCleanup() }

// RunProcessing runs the processing job now and waits for it: one batch (or,
// with Drain, batches until none is eligible). It waits for a run of this
// process to end first and returns ErrLocked when another process holds
// the job lock.
func (s *Service) RunProcessing(ctx context.Context) (RunStats, error) {
	return s.jobs.RunProcessing(ctx)
}

// RunCleanup deletes terminal records received more than RetentionDays ago
// (all terminal records when 0) and waits for it.
func (s *Service) RunCleanup(ctx context.Context) (RunStats, error) { return s.jobs.RunCleanup(ctx) }

// Start listens on Config.Addr, serves the API and starts the schedules.
// It returns once the listener is bound (Addr then reports it).
func (s *Service) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("notifications: service already started")
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.cfg.Addr, err)
	}
	return s.startLocked(ln)
}

// Serve is Start on a listener the caller made.
func (s *Service) Serve(ln net.Listener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("notifications: service already started")
	}
	return s.startLocked(ln)
}

func (s *Service) startLocked(ln net.Listener) error {
	if s.stopping.Load() {
		ln.Close()
		return errors.New("notifications: service stopped")
	}
	s.started = true
	s.ln = ln
	s.tracker = newTrackingListener(ln)
	s.served = make(chan error, 1)
	go func() { s.served <- s.api.App().Listener(s.tracker) }()
	s.cron = cron.New(cron.WithLocation(time.UTC))
	// validate checked both expressions.
	if sched, _ := ParseCron(s.cfg.ProcessingCron); sched != nil {
		s.cron.Schedule(sched, cron.FuncJob(func() { s.TriggerProcessing() }))
	}
	if sched, _ := ParseCron(s.cfg.CleanupCron); sched != nil {
		s.cron.Schedule(sched, cron.FuncJob(func() { s.TriggerCleanup() }))
	}
	s.cron.Start()
	if s.cfg.MarketplaceURL == "" {
		if _, custom := s.jobs.Fallback().(*MarketplaceHandler); custom {
			s.log.Warn("CONN_MARKETPLACE_URL is not set: processing will fail and retry until a marketplace is configured")
		}
	}
	paths := make([]string, 0, len(s.sources.All()))
	for _, src := range s.sources.All() {
		paths = append(paths, src.Name+"="+src.Path)
	}
	s.log.Info("notification sidecar listening", "addr", ln.Addr().String(),
		"processing", s.cfg.ProcessingCron, "cleanup", s.cfg.CleanupCron, "sources", strings.Join(paths, " "))
	return nil
}

// Addr is the bound listen address after Start, else "".
func (s *Service) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Stop shuts down gracefully: no new requests or runs, in-flight requests
// answered, the running batch finished. When ctx ends first, running jobs
// are cancelled (their unfinished records are processed again later) and
// ctx's error is returned. The store stays open.
func (s *Service) Stop(ctx context.Context) error {
	if s.stopping.Swap(true) {
		// A second Stop only waits for the jobs the first one is stopping.
		return s.jobs.Wait(ctx)
	}
	s.mu.Lock()
	c := s.cron
	started := s.started
	s.mu.Unlock()
	var errs []error
	if c != nil {
		c.Stop()
	}
	if started {
		// While in-flight requests finish, connections that never sent a
		// request are closed (fasthttp would wait ReadTimeout for them).
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				s.tracker.closeUnused(100 * time.Millisecond)
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		err := s.api.App().ShutdownWithContext(ctx)
		close(done)
		if err != nil {
			errs = append(errs, fmt.Errorf("shutting down HTTP: %w", err))
		}
	}
	if err := s.jobs.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	s.baseCancel()
	return errors.Join(errs...)
}
