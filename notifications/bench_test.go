package notifications_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/source"
)

func BenchmarkParseDelivery(b *testing.B) {
	body, err := os.ReadFile("testdata/webhooks/user-activated.json")
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := notifications.ParseDelivery(body, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIntake measures the whole intake path — HTTP over loopback,
// parse, group-committed SQLite enqueue — with 64 concurrent clients.
func BenchmarkIntake(b *testing.B) {
	benchIntake(b, func(n int64) string {
		return fmt.Sprintf(`{"token":"wbh-%d","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-%d","programToken":"prg-1"}}`, n, n)
	})
}

// BenchmarkIntakeDiscards is BenchmarkIntake with two deliveries in three
// discarded (a re-sent token, an older delivery of a stored object): the
// path that writes the discard ledger (docs/records-api.md#discard-ledger).
func BenchmarkIntakeDiscards(b *testing.B) {
	benchIntake(b, func(n int64) string {
		switch base := n - n%3; n % 3 {
		case 0: // new
			return fmt.Sprintf(`{"token":"wbh-%d","createdOn":"2024-05-01T10:00:01Z","object":{"token":"usr-%d"}}`, n, n)
		case 1: // the same token again
			return fmt.Sprintf(`{"token":"wbh-%d","createdOn":"2024-05-01T10:00:01Z","object":{"token":"usr-%d"}}`, base, base)
		default: // an older delivery of the same object
			return fmt.Sprintf(`{"token":"wbh-%d","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-%d"}}`, n, base)
		}
	})
}

// BenchmarkIntakeSources compares, in one run, the unsigned HMC source
// with a Standard Webhooks source (signature checked, body mapped) over
// loopback on SQLite FULL with 64 clients (bench/gateway/sources.sh runs
// them as binaries with wrk).
func BenchmarkIntakeSources(b *testing.B) {
	b.Run("hmc", func(b *testing.B) {
		benchIntakeAt(b, "/webhooks/notifications", func(n int64) (string, []string) {
			return fmt.Sprintf(`{"token":"wbh-%d","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-%d","programToken":"prg-1"}}`, n, n), nil
		})
	})
	b.Run("standard", func(b *testing.B) {
		ts := time.Now().Unix()
		benchIntakeAt(b, "/webhooks/acme", func(n int64) (string, []string) {
			body := fmt.Sprintf(`{"type":"user.activated","timestamp":"2024-05-01T10:00:00Z","data":{"id":"usr-%d","program":"prg-1"}}`, n)
			return body, standardHeaders(fmt.Sprintf("msg_%d", n), ts, []byte(body))
		})
	})
}

// benchIntake posts body(n) for n = 1, 2, … from 64 clients and requires
// 200 for each. Beside acks/s it reports the process's CPU time per
// acknowledged delivery (clients included): on a machine shared with other
// work, acks/s follows the load while cpu-µs/ack stays comparable.
func benchIntake(b *testing.B, body func(n int64) string) {
	benchIntakeAt(b, "/webhooks/notifications", func(n int64) (string, []string) { return body(n), nil })
}

// benchIntakeAt is benchIntake at path, with headers; the service has the
// Standard Webhooks source acme (objectToken data.id) besides HMC's.
func benchIntakeAt(b *testing.B, path string, delivery func(n int64) (body string, headers []string)) {
	st := openStore(b)
	cfg := testConfig()
	src, err := source.Config{Name: "acme", Scheme: "standard", Secrets: []string{acmeSecret},
		Mapping: source.MappingConfig{ObjectToken: "data.id"}}.Build()
	if err != nil {
		b.Fatal(err)
	}
	cfg.Sources = []*source.Source{src}
	svc := newService(b, cfg, st)
	if err := svc.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	url := "http://" + svc.Addr() + path
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 128}}
	var seq atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(32) // × GOMAXPROCS(2) = 64 connections
	cpu0 := cpuTime(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body, h := delivery(seq.Add(1))
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
			if err != nil {
				b.Error(err)
				return
			}
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(h); i += 2 {
				req.Header.Set(h[i], h[i+1])
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "acks/s")
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/ack")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIntakeHandler measures the handler path without sockets: the
// Fiber handler called on fasthttp request contexts by 64 goroutines,
// through parse and the group-committed SQLite enqueue.
func BenchmarkIntakeHandler(b *testing.B) {
	st := openStore(b)
	svc := newService(b, testConfig(), st)
	h := svc.App().Handler()
	var seq atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var ctx fasthttp.RequestCtx
		body := make([]byte, 0, 256)
		for pb.Next() {
			n := seq.Add(1)
			body = fmt.Appendf(body[:0], `{"token":"wbh-%d","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-%d","programToken":"prg-1"}}`, n, n)
			ctx.Request.Reset()
			ctx.Response.Reset()
			ctx.Request.Header.SetMethod("POST")
			ctx.Request.SetRequestURI("/webhooks/notifications")
			ctx.Request.SetBody(body)
			h(&ctx)
			if c := ctx.Response.StatusCode(); c != 200 {
				b.Errorf("status %d: %s", c, ctx.Response.Body())
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "acks/s")
}

// BenchmarkProcessing measures a drain run against a local marketplace:
// each iteration processes one notification.
func BenchmarkProcessing(b *testing.B) {
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			// An instant marketplace: the figure is the sidecar's, not the peer's.
			m := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
			}))
			defer m.Close()
			cfg := testConfig()
			cfg.MarketplaceURL = m.URL
			cfg.Drain = true
			cfg.BatchSize = 500
			cfg.Concurrency = conc
			st := openStore(b)
			svc := newService(b, cfg, st)
			ctx := context.Background()
			// Enqueue from many goroutines so group commit keeps the setup short.
			var next atomic.Int64
			var wg sync.WaitGroup
			for range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
						rec := notifications.Record{WebhookToken: fmt.Sprintf("wbh-%d", i), ObjectToken: fmt.Sprintf("usr-%d", i),
							NotificationType: "USR", Payload: []byte(`{"token":"x"}`)}
						if _, err := st.Enqueue(ctx, &rec); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportAllocs()
			b.ResetTimer()
			stats, err := svc.RunProcessing(ctx)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if stats.Succeeded != b.N {
				b.Fatalf("processed %d of %d", stats.Succeeded, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "notifications/s")
		})
	}
}
