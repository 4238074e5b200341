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

// A fan-out with on.error=skip through the CLI: one warning line per
// skipped value, then the count, on stderr; the rows of the others on stdout.
func TestFanoutSkipWarningsOnStderr(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/parents":
			fmt.Fprint(w, `[{"n":1},{"n":2},{"n":3}]`)
		case "/children/2":
			http.Error(w, "gone", http.StatusGone)
		default:
			fmt.Fprintf(w, `[{"child":%q}]`, r.URL.Path)
		}
	}))
	defer srv.Close()
	cat := filepath.Join(t.TempDir(), "cat")
	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", `
		CREATE TABLE api.parents TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='`+srv.URL+`/parents', 'svc.restapi.parse.payload'='true');
		CREATE TABLE api.children TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.parse.payload'='true',
		  'svc.restapi.url.pattern'='svc.restapi.pattern.c', 'svc.restapi.pattern.c'='`+srv.URL+`/children/{svc.restapi.n}',
		  'svc.restapi.retry.max'='0', 'svc.restapi.fanout.from'='api.parents', 'svc.restapi.fanout.column'='n',
		  'svc.restapi.fanout.token'='svc.restapi.n', 'svc.restapi.fanout.on.error'='skip')`)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := datasetCLI(t, "", nil, "read", "api.children", "--catalog", cat, "--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "child,_parent_n\n/children/1,1\n/children/3,3\n", stdout)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	require.True(t, strings.HasPrefix(lines[0], "sluice: warning: skipped n=2: "), lines[0])
	require.Contains(t, lines[0], "HTTP 410")
	require.Equal(t, "sluice: warning: skipped 1 of 3 parent values", lines[1])

	// Without skip, the first failure stops the read, naming the value.
	code, _, stderr = datasetCLI(t, "", nil, "read", "api.children", "--catalog", cat, "--set", "svc.restapi.fanout.on.error=fail")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "fan-out child n=2")
}
