package notifications

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the sidecar's Prometheus series (CONTRACT §9), on a registry
// of its own so that several services can live in one process.
type metrics struct {
	reg                *prometheus.Registry
	received           prometheus.Counter
	rejected           prometheus.Counter
	outdated           prometheus.Counter
	discarded          *prometheus.CounterVec
	discardedDuplicate prometheus.Counter
	discardedObsolete  prometheus.Counter
	processed          *prometheus.CounterVec
	mails              *prometheus.CounterVec
	jobRuns            *prometheus.CounterVec
}

// Processing outcomes, the values of processed_total's outcome label.
const (
	OutcomeSuccess  = "success"
	OutcomeRetrying = "retrying"
	OutcomeFailed   = "failed"
	// OutcomeSkipped: the record stopped being live while it was processed
	// (outdated, deleted or requeued meanwhile), so its result was dropped.
	OutcomeSkipped = "skipped"
)

func newMetrics(s *Service) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.received = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sluice_notifications_received_total",
		Help: "Webhook deliveries acknowledged with 200 (stored or discarded).",
	})
	m.rejected = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sluice_notifications_rejected_total",
		Help: "Webhook deliveries refused with 400 (empty, malformed, no token).",
	})
	m.outdated = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sluice_notifications_outdated_total",
		Help: "Live records marked OUTDATED by a newer delivery.",
	})
	m.discarded = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_discarded_total",
		Help: "Deliveries acknowledged but not stored, by reason (duplicate, obsolete).",
	}, []string{"reason"})
	m.discardedDuplicate = m.discarded.WithLabelValues("duplicate")
	m.discardedObsolete = m.discarded.WithLabelValues("obsolete")
	m.processed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_processed_total",
		Help: "Processing attempts by outcome (success, retrying, failed, skipped).",
	}, []string{"outcome"})
	for _, o := range []string{OutcomeSuccess, OutcomeRetrying, OutcomeFailed, OutcomeSkipped} {
		m.processed.WithLabelValues(o)
	}
	m.mails = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_alerts_total",
		Help: "FAILED alerts by result (sent, error, logged).",
	}, []string{"result"})
	m.jobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sluice_notifications_job_runs_total",
		Help: "Job runs by job and result (ok, error, locked).",
	}, []string{"job", "result"})
	m.reg.MustRegister(m.received, m.rejected, m.outdated, m.discarded, m.processed, m.mails, m.jobRuns,
		&storeCollector{s: s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// storeCollector asks the store at scrape time, so the figures are those of
// every sidecar sharing it, not of this process alone.
type storeCollector struct{ s *Service }

var (
	queueDepthDesc = prometheus.NewDesc("sluice_notifications_queue_depth",
		"Records in the store by status.", []string{"status"}, nil)
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
	ctx, cancel := context.WithTimeout(c.s.baseCtx, 5*time.Second)
	defer cancel()
	st, err := c.s.store.Stats(ctx)
	if err != nil {
		c.s.log.Warn("metrics: store stats failed", "error", err)
		ch <- prometheus.MustNewConstMetric(storeUpDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(storeUpDesc, prometheus.GaugeValue, 1)
	for _, status := range Statuses {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(st.ByStatus[status]), string(status))
	}
	age := 0.0
	if st.OldestPending != nil {
		if age = c.s.now().Sub(*st.OldestPending).Seconds(); age < 0 {
			age = 0
		}
	}
	ch <- prometheus.MustNewConstMetric(oldestPendingDesc, prometheus.GaugeValue, age)
}
