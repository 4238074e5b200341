package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// datasetCLI runs `sluice args…` in-process with stdin and an environment
// of its own.
func datasetCLI(t *testing.T, stdin string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

// apiServer serves the YouTube subscription fixture (two pages) on
// loopback and records requests and bodies. POST /events answers 201,
// except a body containing "fail", which gets a 500.
type apiServer struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []string
	bodies []string
}

func newAPIServer(t *testing.T) *apiServer {
	t.Helper()
	p1, err := os.ReadFile("../../catalog/testdata/youtube_subscriptions_by_channel_p1.json")
	require.NoError(t, err)
	p2, err := os.ReadFile("../../catalog/testdata/youtube_subscriptions_by_channel_p2.json")
	require.NoError(t, err)
	a := &apiServer{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		a.mu.Lock()
		a.reqs = append(a.reqs, r.Method+" "+r.URL.RequestURI())
		if r.Method != http.MethodGet {
			a.bodies = append(a.bodies, string(body))
		}
		a.mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/events":
			if bytes.Contains(body, []byte("fail")) {
				http.Error(w, "no thanks", http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusCreated)
		case r.URL.Path == "/subs" && r.URL.Query().Get("pageToken") == "CAUQAA":
			_, _ = w.Write(p2)
		case r.URL.Path == "/subs":
			_, _ = w.Write(p1)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *apiServer) seen() ([]string, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.reqs...), append([]string(nil), a.bodies...)
}

func TestSQLCommand(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t)
	cat := filepath.Join(t.TempDir(), "cat")

	code, stdout, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", `
		CREATE EXTERNAL TABLE yt.subs TBLPROPERTIES (
		  'svc.storage.type' = 'RESTAPI',
		  'svc.restapi.url.pattern' = 'svc.restapi.pattern.subs',
		  'svc.restapi.pattern.subs' = '`+srv.URL+`/subs?channelId={svc.restapi.channelId}&key={svc.restapi.accessKey}',
		  'svc.restapi.channelId' = 'UC1',
		  'svc.restapi.accessKey' = 'AIza-cli-secret',
		  'svc.restapi.parse.payload' = 'true',
		  'svc.restapi.records.path' = 'items',
		  'svc.restapi.paginate.next.field' = 'nextPageToken',
		  'svc.restapi.paginate.next.param' = 'pageToken');
		-- DDL prints nothing; the last statement's frame is printed
		SHOW TABLES;`)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	require.Contains(t, stdout, "|yt       |subs     |false      |")

	// The catalog comes from $SLUICE_CATALOG when --catalog is absent.
	env := map[string]string{"SLUICE_CATALOG": cat}
	code, stdout, stderr = datasetCLI(t, "", env, "sql", "--format", "json", "-e",
		"SELECT snippet.title FROM yt.subs WHERE snippet.title >= 'TED-Ed' AND snippet.title < 'TEDx' LIMIT 10")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"title":"TED-Ed"}`+"\n"+`{"title":"TED-Ed Educator Talks"}`+"\n"+`{"title":"TEDPartners"}`+"\n", stdout)

	// --set applies before the batch and is redacted in SET output;
	// CONSOLE logging goes to stderr, redacted.
	code, stdout, stderr = datasetCLI(t, "", env, "sql", "--set", "svc.restapi.channelId=UC2", "--set", "svc.logging.level=CONSOLE",
		"--format", "csv", "-e", "SELECT id FROM yt.subs LIMIT 1; SET")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "key,value\nsvc.logging.level,CONSOLE\nsvc.restapi.channelId,UC2\n", stdout)
	require.Contains(t, stderr, "/subs?channelId=UC2&key=***")
	require.NotContains(t, stderr, "AIza-cli-secret")

	// Several -e run in the order given (a statement may end in ; or not),
	// the last one's result printed.
	code, stdout, stderr = datasetCLI(t, "", env, "sql", "--format", "csv",
		"-e", "CREATE TEMPORARY VIEW v AS SELECT 41 AS a;", "-e", "SELECT a + 1 AS b FROM v", "-e", "SELECT b * 2 AS c FROM (SELECT a + 1 AS b FROM v)")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "c\n84\n", stdout)

	// -f FILE, and -f - for stdin.
	file := filepath.Join(t.TempDir(), "q.sql")
	require.NoError(t, os.WriteFile(file, []byte("SHOW NAMESPACES;\n-- done\n"), 0o644))
	code, stdout, stderr = datasetCLI(t, "", env, "sql", "-f", file, "--format", "json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, `{"namespace":"yt"}`+"\n", stdout)
	code, stdout, stderr = datasetCLI(t, "DESCRIBE yt.subs", env, "sql", "--format", "csv", "-f", "-")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "svc.restapi.accessKey,***\n")
	require.NotContains(t, stdout, "AIza-cli-secret")

	// --schema prints the last frame's schema.
	code, stdout, stderr = datasetCLI(t, "", env, "sql", "--schema", "SELECT pageInfo.totalResults FROM yt.subs")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "line 1, column 8: unknown column pageInfo.totalResults")
	code, stdout, _ = datasetCLI(t, "", env, "sql", "--schema", "SELECT snippet.resourceId FROM yt.subs")
	require.Equal(t, 0, code)
	require.Equal(t, "root\n |-- resourceId: struct (nullable = true)\n |    |-- channelId: string (nullable = true)\n |    |-- kind: string (nullable = true)\n", stdout)

	reqs, _ := srv.seen()
	require.NotEmpty(t, reqs)
	for _, r := range reqs {
		require.True(t, strings.HasPrefix(r, "GET /subs?channelId=UC"), r)
	}
}

func TestSQLCommandErrors(t *testing.T) {
	t.Parallel()
	cat := filepath.Join(t.TempDir(), "cat")
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // substring
		stderr string // exact
	}{
		{name: "help", args: []string{"sql", "--help"}, code: 0, stdout: "Usage: sluice sql [-e SQL]… | -f FILE"},
		{name: "nothing to run", args: []string{"sql", "--catalog", cat}, code: 2,
			stderr: "sluice: sql: want -e SQL or -f FILE (see sluice sql --help)\n"},
		{name: "both -e and -f", args: []string{"sql", "-e", "SET", "-f", "x.sql"}, code: 2,
			stderr: "sluice: sql: give -e or -f, not both (see sluice sql --help)\n"},
		{name: "extra argument", args: []string{"sql", "-e", "SET", "more"}, code: 2,
			stderr: "sluice: sql: unexpected argument \"more\" (see sluice sql --help)\n"},
		{name: "bad format", args: []string{"sql", "-e", "SET", "--format", "xml"}, code: 2,
			stderr: "sluice: sql: --format \"xml\": want table, json or csv (see sluice sql --help)\n"},
		{name: "bad --set", args: []string{"sql", "-e", "SET", "--set", "novalue"}, code: 2},
		{name: "syntax error", args: []string{"sql", "--catalog", cat, "-e", "SET a=1;\nSELECT *\n  FORM t"}, code: 1,
			stderr: "sluice: statement 2, line 3, column 3: expected FROM, found \"FORM\"\n"},
		{name: "missing table", args: []string{"sql", "--catalog", cat, "-e", "SELECT * FROM ns.nope"}, code: 1,
			stderr: "sluice: statement 1: reading ns.nope: table not found: ns.nope\n"},
		{name: "create without type", args: []string{"sql", "--catalog", cat, "-e", "CREATE TABLE ns.t (a int)"}, code: 1,
			stderr: "sluice: statement 1: creating ns.t: table property svc.storage.type is required: it names the connector (RESTAPI, PARQUET, NOTIFICATIONS, …)\n"},
		{name: "invalid provider fails the read", args: []string{"sql", "--catalog", cat, "--set", "svc.catalog.provider=hive2", "-e", "SELECT * FROM ns.t"}, code: 1,
			stderr: "sluice: statement 1: reading ns.t: catalog provider: svc.catalog.provider=\"hive2\" is not HIVE or USER\n"},
		{name: "missing -f file", args: []string{"sql", "-f", "/nonexistent/q.sql"}, code: 1,
			stderr: "sluice: open /nonexistent/q.sql: no such file or directory\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := datasetCLI(t, tt.stdin, nil, tt.args...)
			require.Equal(t, tt.code, code, "stderr: %s", stderr)
			require.Contains(t, stdout, tt.stdout)
			if tt.stderr != "" {
				require.Equal(t, tt.stderr, stderr)
			}
			require.LessOrEqual(t, strings.Count(stdout, "Usage: sluice"), 1, "usage printed once")
			if code != 0 {
				require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
			}
		})
	}
}

func TestSQLTruncateAndRowCount(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	env := &cliEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, terminal: func() bool { return true }}
	dir := t.TempDir()
	q := "SELECT 'abcdefghijklmnopqrstuvwxyz' AS s UNION ALL SELECT 'b'"
	require.NoError(t, runSQLCommand(context.Background(), env, []string{"--catalog", dir, "-e", q}))
	require.Contains(t, stdout.String(), "|abcdefghijklmnopq...|")
	require.Equal(t, "2 rows\n", stderr.String())
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, runSQLCommand(context.Background(), env, []string{"--catalog", dir, "--truncate", "false", "-e", "SELECT 'abcdefghijklmnopqrstuvwxyz' AS s"}))
	require.Contains(t, stdout.String(), "|abcdefghijklmnopqrstuvwxyz|")
	require.Equal(t, "1 row\n", stderr.String())
	stdout.Reset()
	require.NoError(t, runSQLCommand(context.Background(), env, []string{"--catalog", dir, "-e", "SET svc.restapi.someLongSettingName=a-value-longer-than-twenty"}))
	require.Contains(t, stdout.String(), "svc.restapi.someLongSettingName")
	require.Contains(t, stdout.String(), "a-value-longer-than-twenty")
	stdout.Reset()
	require.NoError(t, runSQLCommand(context.Background(), env, []string{"--catalog", dir, "-e", "EXPLAIN SELECT 1 AS a ORDER BY a LIMIT 2"}))
	require.Contains(t, stdout.String(), "TopN 2 by")
	err := runSQLCommand(context.Background(), env, []string{"--catalog", dir, "--truncate", "x", "-e", "SELECT 1"})
	require.ErrorContains(t, err, `--truncate "x"`)
}

// TestSQLTimeZoneOutput: sluice sql prints timestamps in the session time
// zone — the table as spark-sql shows them, JSON and CSV with the zone's
// offset as Spark writes them (docs/sql.md#time-zone).
func TestSQLTimeZoneOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := "SELECT TIMESTAMP '2016-03-12 04:54:00.5Z' AS t, TIMESTAMP_NTZ '2016-03-12 04:54:00' AS n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", "SET TIME ZONE 'America/Los_Angeles'; " + q}, "|2016-03-11 20:54:00.5|2016-03-12 04:54:00|"},
		{[]string{"--set", "spark.sql.session.timeZone=America/Los_Angeles", "--format", "json", "-e", q},
			`{"t":"2016-03-11T20:54:00.500-08:00","n":"2016-03-12T04:54:00.000Z"}`},
		{[]string{"--set", "spark.sql.session.timeZone=+09:00", "--format", "csv", "-e", q}, "t,n\n2016-03-12T13:54:00.500+09:00,2016-03-12T04:54:00.000Z\n"},
		{[]string{"-e", q}, "|2016-03-12 04:54:00.5|2016-03-12 04:54:00|"},
	} {
		var stdout, stderr bytes.Buffer
		env := &cliEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		require.NoError(t, runSQLCommand(context.Background(), env, append([]string{"--catalog", dir, "--truncate", "false"}, c.args...)), stderr.String())
		require.Contains(t, stdout.String(), c.want, c.args)
	}
}
