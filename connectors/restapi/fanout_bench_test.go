package restapi_test

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/restapi"
)

// BenchmarkFanout reads FANOUT_CHILDREN (default 1000) children from an
// HTTPS server (HTTP/2) that answers each after FANOUT_LATENCY (default
// 50ms), at FANOUT_CONCURRENCY (default 8) at once, and reports children/s
// (the ideal is concurrency / latency: 160/s; the target ≥ 144).
// bench/restapi/remote.sh measures the same through `sluice read`.
func BenchmarkFanout(b *testing.B) {
	children := envInt(b, "FANOUT_CHILDREN", 1000)
	concurrency := envInt(b, "FANOUT_CONCURRENCY", 8)
	latency := 50 * time.Millisecond
	if v := os.Getenv("FANOUT_LATENCY"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(b, err)
		latency = d
	}
	srv := remoteServer(b, latency, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"items":[{"video":%q,"views":1}]}`, r.URL.Path)
	}))
	ctx := tlsOptions(b, srv)
	ids := make([]any, children)
	for i := range ids {
		ids[i] = fmt.Sprintf("c%05d", i)
	}
	parent := parentOf(b, ids...)
	defer parent.Release()
	ds := fanoutDS(srv.URL, restapi.PropFanoutConcurrency, strconv.Itoa(concurrency),
		restapi.PropNextField, "", restapi.PropNextParam, "")
	delete(ds.Props, restapi.PropNextField)
	delete(ds.Props, restapi.PropNextParam)
	c := &restapi.Connector{}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		f, err := c.ReadFanout(ctx, ds, parent, nil)
		require.NoError(b, err)
		require.EqualValues(b, children, f.NumRows())
		f.Release()
	}
	b.ReportMetric(float64(children*b.N)/time.Since(start).Seconds(), "children/s")
}

func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, name)
	return n
}
