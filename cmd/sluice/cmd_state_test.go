package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingAPI answers GET /n?after=K with the records K+1…max as a
// top-level array; max grows as the test says.
func countingAPI(t *testing.T, max *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
		out := []map[string]any{}
		for i := after + 1; i <= max.Load(); i++ {
			out = append(out, map[string]any{"n": i})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStateCommandAndFullRefresh(t *testing.T) {
	t.Parallel()
	var max atomic.Int64
	max.Store(3)
	srv := countingAPI(t, &max)
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat")
	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", fmt.Sprintf(`
		CREATE TABLE api.n TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/n',
		  'svc.restapi.parse.payload'='true', 'svc.restapi.incremental.cursor'='n', 'svc.restapi.incremental.param'='after')`, srv.URL))
	require.Equal(t, 0, code, stderr)
	state := func() string {
		t.Helper()
		code, stdout, stderr := datasetCLI(t, "", nil, "state", "show", "api.n", "--catalog", cat)
		require.Equal(t, 0, code, stderr)
		return stdout
	}
	require.Equal(t, "no state\n", state())

	// To stdout: the rows are shown, the state stays.
	code, stdout, stderr := datasetCLI(t, "", nil, "read", "api.n", "--catalog", cat, "--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "n\n1\n2\n3\n", stdout)
	require.Equal(t, "no state\n", state())

	// -o: the file is in place, then the state moves.
	out := filepath.Join(dir, "n.csv")
	code, _, stderr = datasetCLI(t, "", nil, "read", "api.n", "--catalog", cat, "-o", out)
	require.Equal(t, 0, code, stderr)
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(state()), &st))
	require.Equal(t, "n", st["cursor"])
	require.Equal(t, "3", st["last_value"])
	require.FileExists(t, filepath.Join(cat, "api", "n.state.json"))

	// The next read asks only for what is new.
	max.Store(5)
	code, _, stderr = datasetCLI(t, "", nil, "read", "api.n", "--catalog", cat, "-o", out)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "n\n4\n5\n", string(data))

	// A failed -o write (bad directory) moves nothing.
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	max.Store(6)
	before := state()
	code, _, _ = datasetCLI(t, "", nil, "read", "api.n", "--catalog", cat, "-o", filepath.Join(blocker, "x.csv"))
	require.Equal(t, 1, code)
	require.Equal(t, before, state())

	// --full-refresh reads everything and then stores the new state.
	code, _, stderr = datasetCLI(t, "", nil, "read", "api.n", "--catalog", cat, "-o", out, "--full-refresh")
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "n\n1\n2\n3\n4\n5\n6\n", string(data))
	require.Contains(t, state(), `"last_value": "6"`)

	// reset deletes it; reset again says there is none.
	code, stdout, stderr = datasetCLI(t, "", nil, "state", "reset", "api.n", "--catalog", cat)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "state of api.n reset\n", stdout)
	require.Equal(t, "no state\n", state())
	code, stdout, _ = datasetCLI(t, "", nil, "state", "reset", "api.n", "--catalog", cat)
	require.Equal(t, 0, code)
	require.Equal(t, "no state\n", stdout)

	// A pipeline: the state moves after its write; --full-refresh reads all.
	max.Store(8)
	pipe := filepath.Join(dir, "p.yaml")
	require.NoError(t, os.WriteFile(pipe, []byte("name: n\nsteps:\n  - read: {table: api.n}\n  - write: {file: "+filepath.Join(dir, "p.csv")+"}\n"), 0o644))
	code, _, stderr = datasetCLI(t, "", nil, "run", pipe, "--catalog", cat)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(filepath.Join(dir, "p.csv"))
	require.NoError(t, err)
	require.Equal(t, "n\n1\n2\n3\n4\n5\n6\n7\n8\n", string(data), "after the reset: from the start")
	require.Contains(t, state(), `"last_value": "8"`)
	code, _, stderr = datasetCLI(t, "", nil, "run", pipe, "--catalog", cat, "--dry-run")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = datasetCLI(t, "", nil, "run", pipe, "--catalog", cat, "--full-refresh")
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(filepath.Join(dir, "p.csv"))
	require.NoError(t, err)
	require.Equal(t, "n\n1\n2\n3\n4\n5\n6\n7\n8\n", string(data))

	// Bad usage and unknown tables.
	code, _, stderr = datasetCLI(t, "", nil, "state", "wipe", "api.n", "--catalog", cat)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown action "wipe"`)
	code, _, stderr = datasetCLI(t, "", nil, "state", "shwo", "api.n", "--catalog", cat)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `did you mean "show"?`)
	code, _, stderr = datasetCLI(t, "", nil, "state", "show", "api.nope", "--catalog", cat)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "api.nope")
}

// Bad input through the CLI — a damaged state file, an unset secret
// reference, a next page on another origin — is one error line, exit 1,
// no output file, and the state file as it was.
func TestRESTAPIBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	var max atomic.Int64
	max.Store(3)
	srv := countingAPI(t, &max)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[]`)) }))
	t.Cleanup(other.Close)
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"data":[{"n":1}],"next":"%s/page2"}`, other.URL)
	}))
	t.Cleanup(away.Close)
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat")
	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", fmt.Sprintf(`
		CREATE TABLE api.n TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/n',
		  'svc.restapi.parse.payload'='true', 'svc.restapi.incremental.cursor'='n', 'svc.restapi.incremental.param'='after');
		CREATE TABLE api.secret TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/n',
		  'svc.restapi.auth.type'='bearer', 'svc.restapi.auth.token'='${env:SLUICE_TEST_NEVER_SET_TOKEN}');
		CREATE TABLE api.away TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/',
		  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='data', 'svc.restapi.paginate.type'='next_url')`,
		srv.URL, srv.URL, away.URL))
	require.Equal(t, 0, code, stderr)
	statePath := filepath.Join(cat, "api", "n.state.json")
	require.NoError(t, os.WriteFile(statePath, []byte("null\n"), 0o644))
	for _, tc := range []struct{ table, want string }{
		{"api.n", "damaged incremental state"},
		{"api.secret", "environment variable SLUICE_TEST_NEVER_SET_TOKEN is not set"},
		{"api.away", "is on origin " + other.URL},
	} {
		out := filepath.Join(dir, tc.table+".parquet")
		code, stdout, stderr := datasetCLI(t, "", nil, "read", tc.table, "--catalog", cat, "-o", out)
		require.Equal(t, 1, code, tc.table)
		require.Empty(t, stdout, tc.table)
		require.Regexp(t, `^sluice: [^\n]+\n$`, stderr, tc.table)
		require.Contains(t, stderr, tc.want, tc.table)
		require.NoFileExists(t, out, tc.table)
	}
	data, err := os.ReadFile(statePath)
	require.NoError(t, err)
	require.Equal(t, "null\n", string(data), "the state file is left as it was")
}
