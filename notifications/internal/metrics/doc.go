// Package metrics is the sidecar's observability: its Prometheus series
// (counters, gauges and latency histograms, see docs/http-api.md#metrics)
// on a registry of their own, and the store-health tracker behind the
// health endpoint's answer and the once-a-minute store-error log line.
package metrics
