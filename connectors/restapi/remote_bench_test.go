package restapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
)

// remoteLatency is REMOTE_LATENCY, else 50ms: the round trip of a real API.
func remoteLatency(tb testing.TB) time.Duration {
	if v := os.Getenv("REMOTE_LATENCY"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(tb, err)
		return d
	}
	return 50 * time.Millisecond
}

// remoteServer serves h over HTTPS with HTTP/2, each answer after latency.
func remoteServer(tb testing.TB, latency time.Duration, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		h.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkRemote reads REMOTE_PAGES (200) pages of 50 records from an
// HTTPS fake (HTTP/2) that answers each after REMOTE_LATENCY (50ms):
// offset pagination with a total at concurrency 8 (target ≥ 128 pages/s),
// token pagination (≥ 18 pages/s), and a plain sequential net/http client
// reading the token pages, the limit of a sequential read.
// bench/restapi/remote.sh measures the same through `sluice read`.
func BenchmarkRemote(b *testing.B) {
	pages := envInt(b, "REMOTE_PAGES", 200)
	latency := remoteLatency(b)
	for _, kind := range []string{"offset", "token-body"} {
		l := restapitest.Uniform(kind, pages*50, 50)
		l.Total = true
		srv := remoteServer(b, latency, l)
		ctx := tlsOptions(b, srv)
		props := connectors.Props(l.Props(srv.URL))
		name := "token"
		if kind == "offset" {
			props[restapi.PropConcurrency] = "8"
			name = "offset-total/concurrency=8"
		}
		b.Run(name, func(b *testing.B) {
			c := connector(b)
			b.ResetTimer()
			for range b.N {
				f, err := c.Read(ctx, &connectors.Dataset{Name: "bench", Props: props})
				require.NoError(b, err)
				require.EqualValues(b, pages*50, f.NumRows())
				f.Release()
			}
			b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
		})
		if kind != "token-body" {
			continue
		}
		b.Run("net-http-sequential", func(b *testing.B) {
			hc := srv.Client()
			b.ResetTimer()
			for range b.N {
				n, next := 0, ""
				for {
					u := srv.URL + "/items"
					if next != "" {
						u += "?cursor=" + url.QueryEscape(next)
					}
					resp, err := hc.Get(u)
					require.NoError(b, err)
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					require.NoError(b, err)
					var page struct {
						Next string `json:"next"`
					}
					require.NoError(b, json.Unmarshal(body, &page))
					n++
					if next = page.Next; next == "" {
						break
					}
				}
				require.Equal(b, pages, n)
			}
			b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
