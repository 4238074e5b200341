package catalog_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingAPI counts the requests of each path: /missing is a 404, /down a
// 500, /paged has a next page for ever, /ok two records in one page, /sink
// takes POSTs.
type countingAPI struct {
	mu sync.Mutex
	n  map[string]int
}

func (a *countingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.n[r.Method+" "+r.URL.Path]++
	a.mu.Unlock()
	switch r.URL.Path {
	case "/missing":
		http.NotFound(w, r)
	case "/down":
		http.Error(w, "down", http.StatusInternalServerError)
	case "/paged":
		io.WriteString(w, `{"items":[{"id":1}],"next":"x"}`)
	case "/sink":
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			return
		}
		fallthrough
	default:
		io.WriteString(w, `{"items":[{"id":1,"v":"a"},{"id":2,"v":"b"}]}`)
	}
}

func (a *countingAPI) count(key string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n[key]
}

// A SQL statement reads each REST table it names once, whatever the plan
// does: a failed read is not repeated by planning again, a self-join reads
// once, INSERT … SELECT from the same table reads it once.
func TestOneReadPerStatement(t *testing.T) {
	t.Parallel()
	api := &countingAPI{n: map[string]int{}}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	s, _ := newSession(t)
	dir := t.TempDir()
	table := func(name, path, extra string) {
		exec(t, s, fmt.Sprintf(`CREATE TABLE api.%s TBLPROPERTIES ('svc.storage.type'='RESTAPI',
			'svc.restapi.url'='%s%s', 'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='items',
			'svc.restapi.retry.wait.min'='1ms', 'svc.restapi.retry.wait.max'='1ms' %s)`, name, srv.URL, path, extra))
	}
	table("missing", "/missing", `, 'svc.restapi.retry.max'='0'`)
	table("down", "/down", `, 'svc.restapi.retry.max'='2'`)
	table("paged", "/paged", `, 'svc.restapi.paginate.next.field'='next', 'svc.restapi.paginate.next.param'='p', 'svc.restapi.paginate.max.pages'='1'`)
	table("ok", "/ok", "")
	table("sink", "/sink", "")
	exec(t, s, fmt.Sprintf(`CREATE TABLE lake.t TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%s')`, filepath.Join(dir, "t.parquet")))
	ctx := context.Background()

	for _, tc := range []struct{ sql, path string }{
		{`SELECT id FROM api.missing`, "/missing"},
		{`SELECT id FROM api.down`, "/down"},
		{`SELECT id FROM api.paged`, "/paged"},
	} {
		_, err := s.ExecuteBatch(ctx, tc.sql)
		require.Error(t, err, tc.sql)
	}
	require.Equal(t, 1, api.count("GET /missing"), "a 404 is requested once")
	require.Equal(t, 3, api.count("GET /down"), "retry.max=2: three requests")
	require.Equal(t, 1, api.count("GET /paged"), "max.pages=1: one request")

	require.Equal(t, []string{`{"id":1,"w":"a"}`, `{"id":2,"w":"b"}`},
		exec(t, s, `SELECT a.id, b.v AS w FROM api.ok a JOIN api.ok b ON a.id = b.id ORDER BY a.id`))
	require.Equal(t, 1, api.count("GET /ok"), "a self-join reads once")

	exec(t, s, `INSERT INTO lake.t SELECT id, v FROM api.ok UNION ALL SELECT id, v FROM api.ok`)
	require.Equal(t, 2, api.count("GET /ok"), "one read for the INSERT")

	exec(t, s, `INSERT INTO api.sink SELECT id, v FROM api.sink`)
	require.Equal(t, 1, api.count("GET /sink"))
	require.Equal(t, 2, api.count("POST /sink"))

	// Each statement reads afresh.
	exec(t, s, `SELECT id FROM api.ok; SELECT id FROM api.ok`)
	require.Equal(t, 4, api.count("GET /ok"))
}
