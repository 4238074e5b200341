package pipelines_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/pipelines"
)

// pagedAPI serves total YouTube-like subscription items in pages of size,
// chained by nextPageToken, from bodies built once.
func pagedAPI(b *testing.B, total, size int) *httptest.Server {
	b.Helper()
	pages := (total + size - 1) / size
	bodies := make([][]byte, pages)
	for p := 0; p < pages; p++ {
		var sb strings.Builder
		sb.WriteString(`{"kind":"youtube#subscriptionListResponse","etag":"e",`)
		if p+1 < pages {
			fmt.Fprintf(&sb, `"nextPageToken":"p%d",`, p+1)
		}
		fmt.Fprintf(&sb, `"pageInfo":{"totalResults":%d,"resultsPerPage":%d},"items":[`, total, size)
		for i := p * size; i < (p+1)*size && i < total; i++ {
			if i > p*size {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"kind":"youtube#subscription","etag":"et%d","id":"sub-%08d","snippet":{"publishedAt":"2024-05-01T10:00:%02d.000Z","title":"Channel number %d","description":"A channel about things, number %d.","resourceId":{"kind":"youtube#channel","channelId":"UC%010d"},"channelId":"UCsubscriber","thumbnails":{"default":{"url":"https://example.invalid/%d.jpg"}}}}`,
				i, i, i%60, i, i, i, i)
		}
		sb.WriteString("]}")
		bodies[p] = []byte(sb.String())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := 0
		if tok := r.URL.Query().Get("pageToken"); tok != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(tok, "p"))
			if err != nil || n >= pages {
				http.Error(w, "bad token", http.StatusBadRequest)
				return
			}
			p = n
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bodies[p])
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkRESTToParquet runs REST (200k items in 200 pages, loopback) →
// explode → select → Parquet end to end and reports rows/s and each step's
// share of the time. The RecordsPath variant lets the connector make one row
// per item (svc.restapi.records.path) instead of the explode step.
func BenchmarkRESTToParquet(b *testing.B) {
	b.Run("Explode", func(b *testing.B) {
		benchREST(b, `
  - id: explode
    explode: items`, "", "items.")
	})
	b.Run("RecordsPath", func(b *testing.B) {
		benchREST(b, "", `
        svc.restapi.records.path: items`, "")
	})
}

// prefix is where the item's fields are: under the exploded `items` column,
// or at the top level with a records path.
func benchREST(b *testing.B, explode, recordsPath, prefix string) {
	total, size := benchTotal(), 1000
	srv := pagedAPI(b, total, size)
	out := filepath.Join(b.TempDir(), "subs.parquet")
	src := `
name: bench
steps:
  - id: read
    read:
      type: RESTAPI
      properties:
        svc.restapi.url: "` + srv.URL + `/v3/subscriptions?part=snippet"
        svc.restapi.parse.payload: "true"
        svc.restapi.paginate.next.field: nextPageToken
        svc.restapi.paginate.next.param: pageToken` + recordsPath + explode + `
  - id: select
    select:
      - ` + prefix + `id AS id
      - ` + prefix + `snippet.title AS title
      - ` + prefix + `snippet.publishedAt AS publishedAt
      - ` + prefix + `snippet.resourceId.channelId AS channelId
  - id: write
    write: {file: "` + out + `"}
`
	p, err := pipelines.Parse("bench.yaml", []byte(src), nil)
	require.NoError(b, err)
	shares := map[string]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := pipelines.Run(context.Background(), p, pipelines.Options{Session: newSession(b)})
		require.NoError(b, err)
		require.Equal(b, int64(total), res.Output.NumRows())
		res.Output.Release()
		var sum float64
		for _, s := range res.Steps {
			sum += float64(s.Elapsed)
		}
		for _, s := range res.Steps {
			shares[s.ID] += 100 * float64(s.Elapsed) / sum / float64(b.N)
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	for id, v := range shares {
		b.ReportMetric(v, id+"-%")
	}
}

// benchTotal is 200k items, or SLUICE_BENCH_ITEMS for a quick look.
func benchTotal() int {
	if n, err := strconv.Atoi(os.Getenv("SLUICE_BENCH_ITEMS")); err == nil && n > 0 {
		return n
	}
	return 200_000
}
