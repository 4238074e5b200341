package restapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
)

// inflightAPI serves a listing of total records, per a page, by offset
// (?offset=) or page number (?page=, from 1), with the total in the body.
// Every request after the first waits until want requests are in flight
// at once (or 5 s pass, so a page-by-page reader fails its check rather
// than hangs); it records the most it saw. short makes page short (1-based,
// at the offset a full listing gives it) hold shortN records.
type inflightAPI struct {
	total, per, want int
	short, shortN    int

	mu       sync.Mutex
	inflight int
	max      int
	requests int
	gate     chan struct{}
	once     sync.Once
}

func (a *inflightAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var from int // the first record
	if v := q.Get("page"); v != "" {
		n, _ := strconv.Atoi(v)
		from = (n - 1) * a.per
	} else {
		from, _ = strconv.Atoi(q.Get("offset"))
	}
	a.mu.Lock()
	a.requests++
	a.inflight++
	a.max = max(a.max, a.inflight)
	if a.inflight >= a.want {
		a.once.Do(func() { close(a.gate) })
	}
	a.mu.Unlock()
	if from > 0 {
		select {
		case <-a.gate:
		case <-time.After(5 * time.Second):
		}
	}
	recs := []map[string]int{}
	n := min(a.per, a.total-from)
	if a.short > 0 && from == (a.short-1)*a.per {
		n = a.shortN
	}
	for i := range max(n, 0) {
		recs = append(recs, map[string]int{"id": from + i})
	}
	a.mu.Lock()
	a.inflight--
	a.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{"data": recs, "total": a.total, "pages": (a.total + a.per - 1) / a.per})
}

func newInflightAPI(t *testing.T, total, per, want int) (*inflightAPI, string) {
	t.Helper()
	a := &inflightAPI{total: total, per: per, want: want, gate: make(chan struct{})}
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { a.ServeHTTP(w, r) })
	return a, srv.URL
}

func offsetProps(u string, per int, extra ...string) connectors.Props {
	return with(connectors.Props{
		"svc.restapi.url":                  u + "/items",
		"svc.restapi.parse.payload":        "true",
		"svc.restapi.records.path":         "data",
		"svc.restapi.retry.max":            "0",
		"svc.restapi.paginate.type":        "offset",
		"svc.restapi.paginate.limit":       strconv.Itoa(per),
		"svc.restapi.paginate.total.field": "total",
	}, extra...)
}

func ids(t *testing.T, f *dataframe.Frame) []int {
	t.Helper()
	var out []int
	for _, row := range rowsJSON(t, f) {
		var r struct{ ID int }
		require.NoError(t, json.Unmarshal([]byte(row), &r))
		out = append(out, r.ID)
	}
	return out
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Offset pagination with a total reads pages concurrently, up to
// svc.restapi.concurrency in flight, and gives the rows in page order.
func TestConcurrentOffsetPages(t *testing.T) {
	t.Parallel()
	for _, conc := range []int{4, 2} {
		api, u := newInflightAPI(t, 97, 5, conc)
		f, err := read(t, offsetProps(u, 5, restapi.PropConcurrency, strconv.Itoa(conc)), nil)
		require.NoError(t, err)
		require.Equal(t, upTo(97), ids(t, f))
		f.Release()
		require.Equal(t, conc, api.max, "requests in flight")
		require.Equal(t, 20, api.requests, "one request per page")
	}
}

// Page pagination with total.pages.field reads concurrently too; the
// default concurrency is 4.
func TestConcurrentPageNumbers(t *testing.T) {
	t.Parallel()
	api, u := newInflightAPI(t, 50, 5, 4)
	f, err := read(t, connectors.Props{
		"svc.restapi.url":                        u + "/items",
		"svc.restapi.parse.payload":              "true",
		"svc.restapi.records.path":               "data",
		"svc.restapi.paginate.type":              "page",
		"svc.restapi.paginate.total.pages.field": "pages",
	}, nil)
	require.NoError(t, err)
	require.Equal(t, upTo(50), ids(t, f))
	f.Release()
	require.Equal(t, 4, api.max)
	require.Equal(t, 10, api.requests)
}

// Concurrent offsets step by the first page's count: a later page with
// fewer records before the total is an error naming the page and both
// counts, never skipped records; concurrency=1 reads such an API page by
// page.
func TestConcurrentOffsetShortPage(t *testing.T) {
	t.Parallel()
	api, u := newInflightAPI(t, 40, 10, 2)
	api.short, api.shortN = 3, 4
	_, err := read(t, offsetProps(u, 10, restapi.PropConcurrency, "2"), nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "page 3 has 4 records, fewer than page 1's 10")
	require.Contains(t, err.Error(), "svc.restapi.concurrency=1")

	api2, u2 := newInflightAPI(t, 40, 10, 1)
	api2.short, api2.shortN = 3, 4
	f, err := read(t, offsetProps(u2, 10, restapi.PropConcurrency, "1"), nil)
	require.NoError(t, err, "page by page, the offset steps by each page's count")
	require.Equal(t, upTo(40), ids(t, f))
	f.Release()
	require.Equal(t, 1, api2.max)
}

// max.pages bounds a concurrent read as it bounds a sequential one: no
// request beyond it, and the error says so.
func TestConcurrentMaxPages(t *testing.T) {
	t.Parallel()
	api, u := newInflightAPI(t, 100, 10, 3)
	_, err := read(t, offsetProps(u, 10, restapi.PropConcurrency, "3", restapi.PropMaxPages, "4"), nil)
	require.ErrorIs(t, err, restapi.ErrTooManyPages)
	require.Contains(t, err.Error(), "more than 4 pages")
	require.Equal(t, 4, api.requests)
}

// Cursor types stay sequential whatever the setting.
func TestCursorPaginationStaysSequential(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	inflight, most := 0, 0
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		defer func() { mu.Lock(); inflight--; mu.Unlock() }()
		page, _ := strconv.Atoi(r.URL.Query().Get("c"))
		if page < 5 {
			fmt.Fprintf(w, `{"data":[{"id":%d}],"next":"%d","total":6}`, page, page+1)
			return
		}
		fmt.Fprintf(w, `{"data":[{"id":%d}]}`, page)
	})
	f, err := read(t, connectors.Props{
		"svc.restapi.url": srv.URL, "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "data",
		"svc.restapi.paginate.next.field": "next", "svc.restapi.paginate.next.param": "c",
		restapi.PropConcurrency: "8",
	}, nil)
	require.NoError(t, err)
	require.Equal(t, upTo(6), ids(t, f))
	f.Release()
	require.Equal(t, 1, most)
}

// The rate limit paces the concurrent requests together: a bucket of 3
// tokens that never refills lets at most 3 requests through, however many
// may be in flight, and the read fails saying the limit held it back.
func TestConcurrentRequestsShareTheRateLimit(t *testing.T) {
	t.Parallel()
	api, u := newInflightAPI(t, 100, 10, 1)
	ctx := restapi.WithReadOptions(ctxT(t), restapi.ReadOptions{Limiter: rate.NewLimiter(0, 3)})
	_, err := connector(t).Read(ctx, &connectors.Dataset{Name: "r", Props: offsetProps(u, 10, restapi.PropConcurrency, "8")})
	require.ErrorContains(t, err, "waiting for svc.restapi.rate.limit")
	api.mu.Lock()
	defer api.mu.Unlock()
	require.LessOrEqual(t, api.requests, 3)
	require.GreaterOrEqual(t, api.requests, 1)
}
