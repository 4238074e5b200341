package metrics

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/sluicedata/sluice/notifications/queue"
)

// Metrics are the sidecar's Prometheus series (see docs/http-api.md#metrics),
// on a registry of their own so that several services can live in one
// process. Series about deliveries and their processing carry a source
// label (docs/sidecar.md#sources).
type Metrics struct {
	Reg                *prometheus.Registry
	Received           *prometheus.CounterVec
	Rejected           *prometheus.CounterVec
	Outdated           *prometheus.CounterVec
	Discarded          *prometheus.CounterVec
	Processed          *prometheus.CounterVec
	Mails              *prometheus.CounterVec
	JobRuns            *prometheus.CounterVec
	InvalidUTF8        *prometheus.CounterVec
	IntakeDuration     *prometheus.HistogramVec
	ProcessingDuration prometheus.Histogram
	Attempts           *prometheus.CounterVec
	BreakerOpen        *prometheus.GaugeVec
	StoreErrors        prometheus.Counter
	Unauthenticated    *prometheus.CounterVec
	Challenges         *prometheus.CounterVec
	// Store tracks whether the store commits and throttles its error logs.
	Store *StoreHealth

	mu      sync.Mutex
	sources map[string]*SourceMetrics
}

// SourceMetrics are one source's intake series, resolved once: intake
// counts without a label lookup per request.
type SourceMetrics struct {
	Received, Rejected, Outdated, InvalidUTF8, Unauthenticated, Challenges prometheus.Counter
	DiscardedDuplicate, DiscardedObsolete                                  prometheus.Counter
	IntakeDuration                                                         prometheus.Observer
}

// Source is what the scrape-time collector asks: the store's figures (of
// every sidecar sharing it), the clock and where to log a failed scrape.
type Source struct {
	Ctx   context.Context // ends when the service stops
	Stats func(ctx context.Context) (queue.Stats, error)
	Now   func() time.Time
	Log   *slog.Logger
}

// Outcomes lists the processing outcomes, the values of processed_total's
// outcome label.
var Outcomes = []string{queue.OutcomeSuccess, queue.OutcomeRetrying, queue.OutcomeFailed, queue.OutcomeSkipped}

// New registers every series, the store collector over src and the Go
// runtime and process collectors; sources get their series at once (at 0).
func New(src Source, sources ...string) *Metrics {
	m := &Metrics{Reg: prometheus.NewRegistry(), sources: map[string]*SourceMetrics{}}
	bySource := []string{"source"}
	m.Received = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_received_total",
		Help: "Webhook deliveries acknowledged with 200 (stored or discarded), by source.",
	}, bySource)
	m.Rejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_rejected_total",
		Help: "Webhook deliveries refused with 400 (empty, malformed, no token), by source.",
	}, bySource)
	m.Outdated = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_outdated_total",
		Help: "Live records marked OUTDATED by a newer delivery, by source.",
	}, bySource)
	m.Discarded = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_discarded_total",
		Help: "Deliveries acknowledged but not stored, by reason (duplicate, obsolete) and source.",
	}, []string{"reason", "source"})
	m.Processed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_processed_total",
		Help: "Processing attempts by outcome (success, retrying, failed, skipped) and source.",
	}, []string{"outcome", "source"})
	m.Mails = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_alerts_total",
		Help: "FAILED alerts by result (sent, error, logged).",
	}, []string{"result"})
	m.JobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_job_runs_total",
		Help: "Job runs by job and result (ok, error, locked, lost).",
	}, []string{"job", "result"})
	m.InvalidUTF8 = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_invalid_utf8_total",
		Help: "Webhook bodies whose invalid UTF-8 bytes were replaced by U+FFFD, by source.",
	}, bySource)
	m.IntakeDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "sluice_intake_duration_seconds",
		Help:    "Time from reading a webhook body to answering it, commit included, by source.",
		Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, bySource)
	m.ProcessingDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sluice_processing_duration_seconds",
		Help:    "Time of one processing attempt (payload fetch and handler).",
		Buckets: prometheus.ExponentialBuckets(.001, 2.5, 14),
	})
	m.Attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_attempts_total",
		Help: "Processing attempts by outcome (success, retrying, failed, skipped), notification type and source.",
	}, []string{"outcome", "type", "source"})
	m.BreakerOpen = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sluice_downstream_breaker_open",
		Help: "1 while the circuit breaker of a downstream host is open, else 0.",
	}, []string{"host"})
	m.StoreErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sluice_notifications_store_errors_total",
		Help: "Store operations that failed (the log repeats an error at most once a minute).",
	})
	m.Unauthenticated = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_unauthenticated_total",
		Help: "Webhook deliveries refused with 401 (signature missing, stale or wrong), by source.",
	}, bySource)
	m.Challenges = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_challenges_total",
		Help: "Signed provider handshakes answered without storing (Slack's url_verification), by source.",
	}, bySource)
	m.Store = NewStoreHealth(src.Log, time.Now, m.StoreErrors)
	m.Reg.MustRegister(m.Unauthenticated, m.Challenges)
	m.Reg.MustRegister(m.InvalidUTF8, m.IntakeDuration, m.ProcessingDuration, m.Attempts, m.BreakerOpen, m.StoreErrors)
	m.Reg.MustRegister(m.Received, m.Rejected, m.Outdated, m.Discarded, m.Processed, m.Mails, m.JobRuns,
		&storeCollector{src: src, sources: sources},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, name := range sources {
		m.For(name)
		for _, o := range Outcomes {
			m.Processed.WithLabelValues(o, name)
		}
	}
	return m
}

// For returns a source's intake series, creating them on first use.
func (m *Metrics) For(source string) *SourceMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	if sm, ok := m.sources[source]; ok {
		return sm
	}
	sm := &SourceMetrics{
		Received: m.Received.WithLabelValues(source), Rejected: m.Rejected.WithLabelValues(source),
		Outdated: m.Outdated.WithLabelValues(source), InvalidUTF8: m.InvalidUTF8.WithLabelValues(source),
		Unauthenticated: m.Unauthenticated.WithLabelValues(source), Challenges: m.Challenges.WithLabelValues(source),
		DiscardedDuplicate: m.Discarded.WithLabelValues("duplicate", source),
		DiscardedObsolete:  m.Discarded.WithLabelValues("obsolete", source),
		IntakeDuration:     m.IntakeDuration.WithLabelValues(source),
	}
	m.sources[source] = sm
	return sm
}

// storeCollector asks the store at scrape time, so the figures are those of
// every sidecar sharing it, not of this process alone. Queue depth has a
// series per status for every configured source (0 included) and for any
// other source the store holds records of.
type storeCollector struct {
	src     Source
	sources []string
}

var (
	queueDepthDesc = prometheus.NewDesc("sluice_notifications_queue_depth",
		"Records in the store by status and source.", []string{"status", "source"}, nil)
	oldestPendingDesc = prometheus.NewDesc("sluice_notifications_oldest_pending_age_seconds",
		"Age of the oldest PENDING record (by receptionDate); 0 when none.", nil, nil)
	storeUpDesc = prometheus.NewDesc("sluice_notifications_store_up",
		"1 when the store answered the last scrape, else 0.", nil, nil)
)

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- oldestPendingDesc
	ch <- storeUpDesc
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(c.src.Ctx, 5*time.Second)
	defer cancel()
	st, err := c.src.Stats(ctx)
	if err != nil {
		c.src.Log.Warn("metrics: store stats failed", "error", err)
		ch <- prometheus.MustNewConstMetric(storeUpDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(storeUpDesc, prometheus.GaugeValue, 1)
	sources := slices.Clone(c.sources)
	for source := range st.BySource {
		if !slices.Contains(sources, source) {
			sources = append(sources, source)
		}
	}
	for _, source := range sources {
		for _, status := range queue.Statuses {
			ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(st.BySource[source][status]), string(status), source)
		}
	}
	age := 0.0
	if st.OldestPending != nil {
		if age = c.src.Now().Sub(*st.OldestPending).Seconds(); age < 0 {
			age = 0
		}
	}
	ch <- prometheus.MustNewConstMetric(oldestPendingDesc, prometheus.GaugeValue, age)
}
