package metrics

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// value reads a counter's or gauge's value.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// gathered is the registry's series of one name: labels (k=v,…) → value.
func gathered(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	fams, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			out[strings.Join(ls, ",")] = v
		}
	}
	return out
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newMetrics(t *testing.T, stats func(context.Context) (queue.Stats, error), log *slog.Logger, sources ...string) *Metrics {
	t.Helper()
	now := func() time.Time { return time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC) }
	return New(Source{Ctx: context.Background(), Stats: stats, Now: now, Log: log}, sources...)
}

// Every configured source has its series from the start (at 0), so that a
// dashboard or an alert sees a source that received nothing yet.
func TestSourcesStartAtZero(t *testing.T) {
	t.Parallel()
	m := newMetrics(t, func(context.Context) (queue.Stats, error) { return queue.Stats{}, nil }, slog.New(slog.DiscardHandler),
		"notifications", "stripe")
	for _, src := range []string{"notifications", "stripe"} {
		require.Equal(t, 0.0, value(t, m.Received.WithLabelValues(src)))
		require.Equal(t, 0.0, value(t, m.Discarded.WithLabelValues("duplicate", src)))
		require.Equal(t, 0.0, value(t, m.Processed.WithLabelValues(queue.OutcomeSkipped, src)))
	}
	sm := m.For("stripe")
	require.Same(t, sm, m.For("stripe"), "resolved once")
	sm.Received.Inc()
	sm.DiscardedObsolete.Inc()
	sm.IntakeDuration.Observe(0.002)
	require.Equal(t, 1.0, value(t, m.Received.WithLabelValues("stripe")))
	require.Equal(t, 0.0, value(t, m.Received.WithLabelValues("notifications")))
	require.Equal(t, 1.0, value(t, m.Discarded.WithLabelValues("obsolete", "stripe")))
	// A source met later (a record of a source since removed) gets series too.
	m.For("old").Rejected.Inc()
	require.Equal(t, 1.0, value(t, m.Rejected.WithLabelValues("old")))
	require.Equal(t, map[string]float64{"source=notifications": 0, "source=stripe": 1, "source=old": 0},
		gathered(t, m.Reg, "sluice_notifications_received_total"))
}

// Queue depth and the oldest PENDING age are asked of the store at scrape
// time; a store that does not answer shows as store_up 0.
func TestStoreCollector(t *testing.T) {
	t.Parallel()
	oldest := time.Date(2024, 5, 1, 9, 59, 30, 0, time.UTC)
	var fail bool
	var mu sync.Mutex
	stats := func(context.Context) (queue.Stats, error) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return queue.Stats{}, errors.New("disk I/O error")
		}
		st := queue.Stats{ByStatus: map[queue.Status]int64{}, OldestPending: &oldest}
		st.Add("notifications", queue.StatusPending, 2)
		st.Add("notifications", queue.StatusFailed, 1)
		st.Add("old", queue.StatusPending, 1)
		return st, nil
	}
	var logs lockedBuf
	// stripe is configured and has no record yet; old has records and is
	// no longer configured.
	m := newMetrics(t, stats, slog.New(slog.NewTextHandler(&logs, nil)), "notifications", "stripe")
	require.Equal(t, map[string]float64{"": 30}, gathered(t, m.Reg, "sluice_notifications_oldest_pending_age_seconds"))
	want := map[string]float64{}
	for _, source := range []string{"notifications", "stripe", "old"} {
		for _, status := range queue.Statuses {
			want["source="+source+",status="+string(status)] = 0
		}
	}
	want["source=notifications,status=PENDING"] = 2
	want["source=notifications,status=FAILED"] = 1
	want["source=old,status=PENDING"] = 1
	require.Equal(t, want, gathered(t, m.Reg, "sluice_notifications_queue_depth"))
	require.Equal(t, map[string]float64{"": 1}, gathered(t, m.Reg, "sluice_notifications_store_up"))
	mu.Lock()
	fail = true
	mu.Unlock()
	require.Equal(t, map[string]float64{"": 0}, gathered(t, m.Reg, "sluice_notifications_store_up"))
	require.Empty(t, gathered(t, m.Reg, "sluice_notifications_queue_depth"))
	require.Contains(t, logs.String(), "disk I/O error")
}

// A failed commit marks the store down until one succeeds; repeated errors
// are logged once a minute per operation, with a count.
func TestStoreHealth(t *testing.T) {
	t.Parallel()
	var logs lockedBuf
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	errs := 0
	h := NewStoreHealth(slog.New(slog.NewTextHandler(&logs, nil)), clock, counter(func() { errs++ }))
	_, _, down := h.Down()
	require.False(t, down)
	h.Failed("read", false, errors.New("busy"))
	_, _, down = h.Down()
	require.False(t, down, "a failed read does not mark the store down")
	for range 3 {
		h.Failed("enqueue", true, errors.New("database or disk is full"))
	}
	reason, since, down := h.Down()
	require.True(t, down)
	require.Equal(t, "database or disk is full", reason)
	require.Equal(t, now, since)
	require.Equal(t, 4, errs)
	require.Equal(t, 1, strings.Count(logs.String(), "op=enqueue"), "repeats within a minute are not logged")
	now = now.Add(61 * time.Second)
	h.Failed("enqueue", true, errors.New("database or disk is full"))
	require.Contains(t, logs.String(), "repeatedSinceLastLog=2")
	h.Committed()
	_, _, down = h.Down()
	require.False(t, down)
	require.Contains(t, logs.String(), "the store commits again")
}

type counter func()

func (c counter) Inc() { c() }
