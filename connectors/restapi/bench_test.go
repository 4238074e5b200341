package restapi_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

var (
	listingOnce sync.Once
	listing     []byte
)

// benchListing is a ~50 MB YouTube-like listing, made once per process.
func benchListing(b *testing.B) []byte {
	b.Helper()
	listingOnce.Do(func() {
		var buf bytes.Buffer
		// Size the item count from a small sample so the listing is ~50 MB.
		require.NoError(b, datagen.GenListing(&buf, 1000, 1))
		items := int(int64(50<<20) * 1000 / int64(buf.Len()))
		buf.Reset()
		require.NoError(b, datagen.GenListing(&buf, items, 1))
		listing = buf.Bytes()
	})
	return listing
}

// BenchmarkReadListing reads a ~50 MB listing from a loopback server in
// parsed mode with records.path=items. Compare with
// BenchmarkReadListingInMemory: the HTTP path should cost < 20% more.
func BenchmarkReadListing(b *testing.B) {
	body := benchListing(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c := connector(b)
	ds := &connectors.Dataset{Name: "bench", Props: connectors.Props{
		"svc.restapi.url":           srv.URL + "/youtube/v3/subscriptions",
		"svc.restapi.parse.payload": "true",
		"svc.restapi.records.path":  "items",
	}}
	b.SetBytes(int64(len(body)))
	readLoop(b, c, ds, -1)
}

// BenchmarkReadListingPayload is the HTTP part alone: the same listing in
// payload mode (one row holding the body).
func BenchmarkReadListingPayload(b *testing.B) {
	body := benchListing(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c := connector(b)
	ds := &connectors.Dataset{Name: "bench", Props: connectors.Props{"svc.restapi.url": srv.URL}}
	b.SetBytes(int64(len(body)))
	readLoop(b, c, ds, -1)
}

// BenchmarkReadListingInMemory parses the same bytes without HTTP.
func BenchmarkReadListingInMemory(b *testing.B) {
	body := benchListing(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := jsonframe.ReadDocument(body, jsonframe.Options{RecordsPath: "items"})
		if err != nil {
			b.Fatal(err)
		}
		f.Release()
	}
}

// BenchmarkPaginate2000 follows 2,000 small pages on loopback, in payload
// mode and in parsed mode; the figure is pages/s.
func BenchmarkPaginate2000(b *testing.B) {
	const pages = 2000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("pageToken"))
		var buf []byte
		buf = append(buf, `{"kind":"youtube#subscriptionListResponse","items":[{"id":"`...)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, `","snippet":{"title":"t"}}]`...)
		if n+1 < pages {
			buf = append(buf, `,"nextPageToken":"`...)
			buf = strconv.AppendInt(buf, int64(n+1), 10)
			buf = append(buf, '"')
		}
		buf = append(buf, '}')
		w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
		_, _ = w.Write(buf)
	}))
	defer srv.Close()
	for _, parsed := range []string{"false", "true"} {
		b.Run("parse.payload="+parsed, func(b *testing.B) {
			c := connector(b)
			ds := &connectors.Dataset{Name: "bench", Props: connectors.Props{
				"svc.restapi.url":                 srv.URL + "/subscriptions?part=id",
				"svc.restapi.parse.payload":       parsed,
				"svc.restapi.records.path":        "items",
				"svc.restapi.paginate.next.field": "nextPageToken",
				"svc.restapi.paginate.next.param": "pageToken",
				"svc.restapi.paginate.max.pages":  strconv.Itoa(pages),
			}}
			readLoop(b, c, ds, pages)
			b.ReportMetric(float64(pages)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// BenchmarkPaginators reads 2,000 small pages (2 records each) of every
// paginator type from a loopback fake in parsed mode; the figure is pages/s
// (bench/restapi/paginators.sh measures the same through `sluice read`).
// The fake serves on fasthttp, as bench/restapi/fakeapi does.
func BenchmarkPaginators(b *testing.B) {
	const pages = 2000
	for _, kind := range restapitest.Kinds {
		b.Run(kind, func(b *testing.B) {
			l := restapitest.Uniform(kind, pages*2, 2)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(b, err)
			srv := &fasthttp.Server{Handler: l.ServeFast}
			go func() { _ = srv.Serve(ln) }()
			defer srv.Shutdown()
			c := connector(b)
			ds := &connectors.Dataset{Name: "bench", Props: l.Props("http://" + ln.Addr().String())}
			readLoop(b, c, ds, pages*2)
			b.ReportMetric(float64(l.Requests())*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// readLoop reads ds b.N times, checking the row count unless rows < 0.
func readLoop(b *testing.B, c connectors.Connector, ds *connectors.Dataset, rows int64) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := c.Read(context.Background(), ds)
		if err != nil {
			b.Fatal(err)
		}
		if rows >= 0 && f.NumRows() != rows {
			b.Fatalf("%d rows, want %d", f.NumRows(), rows)
		}
		f.Release()
	}
}
