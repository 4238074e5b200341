// Package httpapi is the sidecar's HTTP API on Fiber: intake, the
// date-range query and delete, the job triggers, health, metrics, the
// dataset export and the management API. See docs/http-api.md.
package httpapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/notifications/internal/metrics"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/source"
)

// Config is what the HTTP API needs of the sidecar's configuration (see
// docs/environment.md).
type Config struct {
	MaxBodyBytes  int
	APIToken      string
	ManagementAPI bool
	// Sources are where deliveries come in (docs/sidecar.md#sources); the
	// HMC source first.
	Sources *source.Set
	// QuarantineMax bounds the quarantined bodies kept
	// (docs/records-api.md#quarantine).
	QuarantineMax int
}

// Jobs starts job runs in the background (the job trigger endpoints).
type Jobs interface {
	TriggerProcessing() bool
	TriggerCleanup() bool
	// OpenBreakers lists the downstream hosts whose circuit is open.
	OpenBreakers() map[string]time.Time
}

// Deps are the API's collaborators.
type Deps struct {
	Store   queue.Store
	Log     *slog.Logger
	Now     func() time.Time
	Metrics *metrics.Metrics
	Jobs    Jobs
	// Ctx ends when the service stops: intake, scrapes and exports.
	Ctx context.Context
}

// API serves the HTTP endpoints.
type API struct {
	cfg           Config
	store         queue.Store
	log           *slog.Logger
	now           func() time.Time
	metrics       *metrics.Metrics
	jobs          Jobs
	baseCtx       context.Context
	intakeTimeout time.Duration
	app           *fiber.App
	routes        *routes
	intakePaths   map[string]bool
}

// New builds the API and its Fiber app.
func New(cfg Config, d Deps) *API {
	s := &API{cfg: cfg, store: d.Store, log: d.Log, now: d.Now, metrics: d.Metrics, jobs: d.Jobs,
		baseCtx: d.Ctx, intakeTimeout: 30 * time.Second}
	s.app = s.newApp()
	return s
}

// App is the Fiber app serving the whole API.
func (s *API) App() *fiber.App { return s.app }
