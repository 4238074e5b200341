package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pagedAPI serves /p?page=N, four pages of two records; page 3 waits
// until release is closed, so a test can watch the read mid-way.
func pagedAPI(t *testing.T, release <-chan struct{}) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n == 0 {
			n = 1
		}
		if n == 3 && release != nil {
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		}
		next := ""
		if n < 4 {
			next = strconv.Itoa(n + 1)
		}
		fmt.Fprintf(w, `{"items":[{"n":%d},{"n":%d}],"next":%q}`, 2*n-1, 2*n, next)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func createPaged(t *testing.T, cat, url string) {
	t.Helper()
	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", `CREATE TABLE api.p TBLPROPERTIES ('svc.storage.type'='RESTAPI',
		'svc.restapi.url'='`+url+`/p', 'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='items',
		'svc.restapi.paginate.next.field'='next', 'svc.restapi.paginate.next.param'='page')`)
	require.Equal(t, 0, code, stderr)
}

func TestReadProgressOnATerminal(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := pagedAPI(t, release)
	cat := filepath.Join(t.TempDir(), "cat")
	createPaged(t, cat, srv.URL)
	var stdout bytes.Buffer
	stderr := &lockedBuffer{}
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &stdout, stderr: stderr,
		getenv: func(string) string { return "" }, terminal: func() bool { return true }}
	out := filepath.Join(t.TempDir(), "p.csv")
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), env, []string{"read", "api.p", "--catalog", cat, "-o", out}) }()
	// Page 3 is held back until the line shows the first two pages.
	deadline := time.After(20 * time.Second)
	for !strings.Contains(stderr.String(), "reading api.p: 2 pages, 4 rows, ") {
		select {
		case <-deadline:
			t.Fatalf("no progress line within 20s: %q", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	close(release)
	require.Equal(t, 0, <-done, stderr.String())
	s := stderr.String()
	require.Contains(t, s, "\r\x1b[Kreading api.p: 2 pages, 4 rows, ")
	require.Contains(t, s, " pages/s")
	// The line is erased before the summary.
	require.Regexp(t, "\r\x1b\\[Kwrote 8 rows, 1 columns, \\d+ bytes to .*p\\.csv\n$", s)
}

func TestReadProgressQuietOffATerminal(t *testing.T) {
	t.Parallel()
	srv := pagedAPI(t, nil)
	cat := filepath.Join(t.TempDir(), "cat")
	createPaged(t, cat, srv.URL)
	code, stdout, stderr := datasetCLI(t, "", nil, "read", "api.p", "--catalog", cat, "--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	require.Equal(t, "n\n1\n2\n3\n4\n5\n6\n7\n8\n", stdout)
	out := filepath.Join(t.TempDir(), "p.ndjson")
	code, _, stderr = datasetCLI(t, "", nil, "read", "api.p", "--catalog", cat, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `^wrote 8 rows, 1 columns, \d+ bytes to .*p\.ndjson\n$`, stderr)
	code, _, stderr = datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", "SELECT * FROM api.p")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
}
