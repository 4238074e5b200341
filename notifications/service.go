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
)

// Service is the sidecar: the HTTP API, the processing and cleanup jobs and
// their schedule, over a Store it does not own (the caller closes it).
type Service struct {
	cfg     Config
	store   Store
	log     *slog.Logger
	now     func() time.Time
	client  *http.Client
	mailer  *mailer
	metrics *metrics
	app     *fiber.App

	handlersMu sync.RWMutex
	handlers   map[string]Handler
	fallback   Handler

	baseCtx    context.Context // ends after Stop: intake and scrapes
	baseCancel context.CancelFunc
	jobCtx     context.Context // ends only when Stop's deadline passes
	jobCancel  context.CancelFunc

	intakeTimeout time.Duration
	procSem       chan struct{}
	cleanSem      chan struct{}
	procTrigger   *trigger
	cleanTrigger  *trigger
	procSchedule  cron.Schedule
	cleanSchedule cron.Schedule

	stopping atomic.Bool
	mu       sync.Mutex
	started  bool
	cron     *cron.Cron
	ln       net.Listener
	tracker  *trackingListener
	served   chan error
}

// Option customises a Service (for Go embedders and tests).
type Option func(*Service)

// WithClock replaces the clock (tests drive back-off with it).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLogger sets the logger. Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithHTTPClient sets the client of the marketplace and provider calls; its
// Timeout is then the caller's business. Defaults to a client with
// CONN_DOWNSTREAM_TIMEOUT.
func WithHTTPClient(c *http.Client) Option { return func(s *Service) { s.client = c } }

// WithHandler registers h for a notification type (USR, STK, PMT, TRM,
// UNK), like Handle.
func WithHandler(typ string, h Handler) Option {
	return func(s *Service) { s.handlers[strings.ToUpper(typ)] = h }
}

// WithDefaultHandler replaces the marketplace handler for every type without
// a handler of its own.
func WithDefaultHandler(h Handler) Option { return func(s *Service) { s.fallback = h } }

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
	s := &Service{
		cfg:           cfg,
		store:         store,
		log:           slog.Default(),
		now:           time.Now,
		handlers:      map[string]Handler{},
		intakeTimeout: 30 * time.Second,
		procSem:       make(chan struct{}, 1),
		cleanSem:      make(chan struct{}, 1),
	}
	s.procSchedule, _ = ParseCron(cfg.ProcessingCron)
	s.cleanSchedule, _ = ParseCron(cfg.CleanupCron)
	for _, o := range opts {
		o(s)
	}
	if s.client == nil {
		// Enough idle connections for every concurrent worker: the default
		// two per host would reconnect on most calls.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(2*cfg.Concurrency, 8)
		s.client = &http.Client{Timeout: cfg.DownstreamTimeout, Transport: tr}
	}
	if s.fallback == nil {
		s.fallback = &MarketplaceHandler{URL: cfg.MarketplaceURL, Client: s.client}
	}
	s.mailer = &mailer{cfg: cfg.Mail, timeout: mailTimeout, now: s.now}
	s.baseCtx, s.baseCancel = context.WithCancel(context.Background())
	s.jobCtx, s.jobCancel = context.WithCancel(context.Background())
	s.procTrigger = &trigger{name: ProcessingJob, run: func(ctx context.Context) { _, _ = s.RunProcessing(ctx) }}
	s.cleanTrigger = &trigger{name: CleanupJob, run: func(ctx context.Context) { _, _ = s.RunCleanup(ctx) }}
	s.metrics = newMetrics(s)
	s.app = s.newApp()
	return s, nil
}

// Config returns the service's configuration.
func (s *Service) Config() Config { return s.cfg }

// Handle registers h for notifications of type typ (USR, STK, PMT, TRM or
// UNK), replacing the marketplace handler for it. Safe while running.
func (s *Service) Handle(typ string, h Handler) {
	s.handlersMu.Lock()
	defer s.handlersMu.Unlock()
	if h == nil {
		delete(s.handlers, strings.ToUpper(typ))
		return
	}
	s.handlers[strings.ToUpper(typ)] = h
}

func (s *Service) handlerFor(typ string) Handler {
	s.handlersMu.RLock()
	h, ok := s.handlers[typ]
	s.handlersMu.RUnlock()
	if ok {
		return h
	}
	return s.fallback
}

// App returns the Fiber app serving the whole HTTP API, for embedding or
// for tests (app.Test).
func (s *Service) App() *fiber.App { return s.app }

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
	go func() { s.served <- s.app.Listener(s.tracker) }()
	s.cron = cron.New(cron.WithLocation(time.UTC))
	if s.procSchedule != nil {
		s.cron.Schedule(s.procSchedule, cron.FuncJob(func() { s.TriggerProcessing() }))
	}
	if s.cleanSchedule != nil {
		s.cron.Schedule(s.cleanSchedule, cron.FuncJob(func() { s.TriggerCleanup() }))
	}
	s.cron.Start()
	if s.cfg.MarketplaceURL == "" {
		if _, custom := s.fallback.(*MarketplaceHandler); custom {
			s.log.Warn("CONN_MARKETPLACE_URL is not set: processing will fail and retry until a marketplace is configured")
		}
	}
	s.log.Info("notification sidecar listening", "addr", ln.Addr().String(),
		"processing", s.cfg.ProcessingCron, "cleanup", s.cfg.CleanupCron)
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
		return errors.Join(s.procTrigger.wait(ctx), s.cleanTrigger.wait(ctx))
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
		err := s.app.ShutdownWithContext(ctx)
		close(done)
		if err != nil {
			errs = append(errs, fmt.Errorf("shutting down HTTP: %w", err))
		}
	}
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
	s.baseCancel()
	return errors.Join(errs...)
}
