package main

// Black-box acceptance tests written from docs/catalog.md, docs/restapi.md, docs/sql.md and docs/cli.md,
// driving the CLI in-process against loopback servers.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// accReq is one request an accServer saw.
type accReq struct {
	Method, URI, ContentType, Auth string
	Body                           string
}

// accServer answers with handle and records every request.
type accServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []accReq
}

func newAccServer(t *testing.T, handle func(n int, w http.ResponseWriter, r *http.Request)) *accServer {
	t.Helper()
	a := &accServer{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		a.mu.Lock()
		a.reqs = append(a.reqs, accReq{Method: r.Method, URI: r.URL.RequestURI(), ContentType: r.Header.Get("Content-Type"), Auth: r.Header.Get("Authorization"), Body: string(body)})
		n := len(a.reqs)
		a.mu.Unlock()
		handle(n, w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *accServer) requests() []accReq {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]accReq(nil), a.reqs...)
}

// accFixtures serves the two subscription pages at /subs.
func accFixtures(t *testing.T) *accServer {
	t.Helper()
	p1, err := os.ReadFile("../../catalog/testdata/youtube_subscriptions_by_channel_p1.json")
	require.NoError(t, err)
	p2, err := os.ReadFile("../../catalog/testdata/youtube_subscriptions_by_channel_p2.json")
	require.NoError(t, err)
	return newAccServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/subs" && r.URL.Query().Get("pageToken") == "CAUQAA":
			_, _ = w.Write(p2)
		case r.URL.Path == "/subs":
			_, _ = w.Write(p1)
		default:
			http.NotFound(w, r)
		}
	})
}

// acc runs the CLI with a catalog of its own and an environment.
func acc(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	code := run(ctx, e, args)
	return code, out.String(), errb.String()
}

func accSQL(t *testing.T, cat, sql string, extra ...string) (int, string, string) {
	t.Helper()
	return acc(t, nil, append([]string{"sql", "--catalog", cat, "-e", sql}, extra...)...)
}

func mustSQL(t *testing.T, cat, sql string, extra ...string) string {
	t.Helper()
	code, stdout, stderr := accSQL(t, cat, sql, extra...)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	return stdout
}

func TestAcceptanceSchemaByteExact(t *testing.T) {
	t.Parallel()
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"pageInfo":{"resultsPerPage":5},"items":[{"id":"a"}],"etag":"x"}`)
	})
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE yt.t TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='`+srv.URL+`/x','svc.restapi.parse.payload'='true')`)
	code, stdout, stderr := acc(t, nil, "read", "yt.t", "--catalog", cat, "--schema")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "root\n"+
		" |-- etag: string (nullable = true)\n"+
		" |-- items: array (nullable = true)\n"+
		" |    |-- element: struct (containsNull = true)\n"+
		" |    |    |-- id: string (nullable = true)\n"+
		" |-- pageInfo: struct (nullable = true)\n"+
		" |    |-- resultsPerPage: long (nullable = true)\n", stdout)
	require.Empty(t, stderr)

	// Payload mode: one string column.
	code, stdout, _ = acc(t, nil, "read", "yt.t", "--catalog", cat, "--schema", "--prop", "svc.restapi.parse.payload=false")
	require.Equal(t, 0, code)
	require.Equal(t, "root\n |-- payload: string (nullable = true)\n", stdout)
}

func TestAcceptanceSetResetOutput(t *testing.T) {
	t.Parallel()
	cat := t.TempDir()
	// SET k=v echoes the pair, secrets redacted.
	out := mustSQL(t, cat, "SET svc.restapi.accessKey=AIza-very-secret", "--format", "csv")
	require.Equal(t, "key,value\nsvc.restapi.accessKey,***\n", out)
	// SET k of an unset key.
	out = mustSQL(t, cat, "SET svc.restapi.nothing", "--format", "csv")
	require.Equal(t, "key,value\nsvc.restapi.nothing,<undefined>\n", out)
	// SET lists all, sorted, redacted; SET k shows one, redacted.
	batch := "SET svc.restapi.header.Authorization=Bearer tok-123; SET svc.restapi.channelId=UC1; SET my.password=pw1; SET svc.restapi.url=http://h/x?key=k3y-value; SET"
	out = mustSQL(t, cat, batch, "--format", "json")
	require.Equal(t, `{"key":"my.password","value":"***"}`+"\n"+
		`{"key":"svc.restapi.channelId","value":"UC1"}`+"\n"+
		`{"key":"svc.restapi.header.Authorization","value":"***"}`+"\n"+
		`{"key":"svc.restapi.url","value":"http://h/x?key=***"}`+"\n", out)
	out = mustSQL(t, cat, "SET svc.restapi.header.Authorization=Bearer tok-123; SET svc.restapi.header.Authorization", "--format", "csv")
	require.Equal(t, "key,value\nsvc.restapi.header.Authorization,***\n", out)
	require.NotContains(t, out, "tok-123")
	// --set is visible to SET; RESET clears everything.
	code, out, stderr := acc(t, nil, "sql", "--catalog", cat, "--set", "a.b=1", "--format", "csv", "-e", "SET")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "key,value\na.b,1\n", out)
	code, out, stderr = acc(t, nil, "sql", "--catalog", cat, "--set", "a.b=1", "--format", "csv", "-e", "RESET; SET")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "key,value\n", out)
	// SET accepts any value for the provider; the next read fails, exit 1.
	out = mustSQL(t, cat, "SET svc.catalog.provider=NOPE", "--format", "csv")
	require.Equal(t, "key,value\nsvc.catalog.provider,NOPE\n", out)
}

func TestAcceptanceDescribe(t *testing.T) {
	t.Parallel()
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE EXTERNAL TABLE yt.d LOCATION 'http://api.example/x' TBLPROPERTIES (
		'svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://api.example/x?key=AIza-secret-1',
		'svc.restapi.accessKey'='AIza-secret-1', 'svc.restapi.header.Authorization'='Bearer tok-9')`)
	out := mustSQL(t, cat, "DESCRIBE yt.d", "--format", "csv")
	require.Equal(t, "col_name,data_type\n"+
		"payload,string\n"+
		"# Detailed Table Information,\"\"\n"+
		"Type,RESTAPI\n"+
		"Location,http://api.example/x\n"+
		"svc.restapi.accessKey,***\n"+
		"svc.restapi.header.Authorization,***\n"+
		"svc.restapi.url,http://api.example/x?key=***\n"+
		"svc.storage.type,RESTAPI\n", out)
	out = mustSQL(t, cat, "describe table YT.D", "--format", "json")
	require.Contains(t, out, `{"col_name":"payload","data_type":"string"}`)
	require.NotContains(t, out, "secret-1")
	require.NotContains(t, out, "tok-9")
}

func TestAcceptanceProvider(t *testing.T) {
	t.Parallel()
	srv := accFixtures(t)
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE yt.subs TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='`+srv.URL+`/subs')`)

	// Invalid provider by --set: the read fails, exit 1, one sluice: line.
	code, stdout, stderr := acc(t, nil, "read", "yt.subs", "--catalog", cat, "--set", "svc.catalog.provider=BAD")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	require.Contains(t, stderr, "svc.catalog.provider")
	// … and by SET within a batch: SET succeeds, the next SELECT fails.
	code, _, stderr = accSQL(t, cat, "SET svc.catalog.provider=BAD; SELECT * FROM yt.subs")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "statement 2")
	require.Contains(t, stderr, "svc.catalog.provider")
	// … and for a write.
	in := filepath.Join(t.TempDir(), "in.ndjson")
	require.NoError(t, os.WriteFile(in, []byte(`{"payload":"{}"}`+"\n"), 0o644))
	code, _, stderr = acc(t, nil, "write", "yt.subs", "--input", in, "--catalog", cat, "--set", "svc.catalog.provider=xyz")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "svc.catalog.provider")

	// USER mode without the entry names the key it looked for.
	code, _, stderr = acc(t, nil, "read", "yt.subs", "--catalog", cat, "--set", "svc.catalog.provider=USER")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "yt.subs.dataSetProperties")
	// Lower-case provider values work.
	code, _, stderr = acc(t, nil, "read", "yt.subs", "--catalog", cat, "--set", "svc.catalog.provider=hive")
	require.Equal(t, 0, code, stderr)

	// --type reads in USER mode, no catalog table needed.
	code, stdout, stderr = acc(t, nil, "read", "anything", "--catalog", cat, "--type", "RESTAPI", "--prop", "svc.restapi.url="+srv.URL+"/subs",
		"--prop", "svc.restapi.parse.payload=true", "--prop", "svc.restapi.records.path=items", "--format", "json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 5, strings.Count(stdout, "\n"), stdout)
	// --type with provider HIVE forced reads the catalog (no table: fails naming it).
	code, _, stderr = acc(t, nil, "read", "no.such", "--catalog", cat, "--type", "RESTAPI", "--prop", "svc.restapi.url="+srv.URL+"/subs", "--set", "svc.catalog.provider=HIVE")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "no.such")
}

func TestAcceptancePrecedence(t *testing.T) {
	t.Parallel()
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"ch":"`+r.URL.Query().Get("ch")+`"}`)
	})
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE yt.p TBLPROPERTIES ('svc.storage.type'='RESTAPI',
		'svc.restapi.url.pattern'='svc.restapi.pattern.x',
		'svc.restapi.pattern.x'='{svc.restapi.baseURL}/v?ch={svc.restapi.channelId}',
		'svc.restapi.baseURL'='`+srv.URL+`',
		'svc.restapi.channelId'='TABLE')`)
	read := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := acc(t, nil, append([]string{"read", "yt.p", "--catalog", cat, "--format", "csv"}, args...)...)
		require.Equal(t, 0, code, stderr)
		return stdout
	}
	require.Contains(t, read(), `TABLE`)
	require.Contains(t, read("--prop", "svc.restapi.channelId=RUNTIME"), `RUNTIME`)
	require.Contains(t, read("--prop", "svc.restapi.channelId=RUNTIME", "--set", "svc.restapi.channelId=SESSION"), `SESSION`)
	require.Contains(t, read("--set", "svc.restapi.channelId=SESSION"), `SESSION`)
	// SET in SQL overrides the table for the statements after it.
	out := mustSQL(t, cat, "SET svc.restapi.channelId=SQLSET; SELECT * FROM yt.p", "--format", "csv")
	require.Contains(t, out, "SQLSET")
	// Property keys are case-sensitive: a differently-cased key is another property.
	require.Contains(t, read("--prop", "svc.restapi.channelid=OTHER"), `TABLE`)
}

func TestAcceptanceUnresolvedToken(t *testing.T) {
	t.Parallel()
	srv := accFixtures(t)
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE yt.u TBLPROPERTIES ('svc.storage.type'='RESTAPI',
		'svc.restapi.url.pattern'='svc.restapi.pattern.subs',
		'svc.restapi.pattern.subs'='`+srv.URL+`/subs?channelId={svc.restapi.channelId}')`)
	code, stdout, stderr := acc(t, nil, "read", "yt.u", "--catalog", cat)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	require.Contains(t, stderr, "svc.restapi.channelId")
	require.Contains(t, stderr, "svc.restapi.pattern.subs")
	require.Empty(t, srv.requests(), "no request may be sent")
	// A cycle is an error too, and sends nothing.
	code, _, stderr = acc(t, nil, "read", "yt.u", "--catalog", cat, "--prop", "svc.restapi.channelId={svc.restapi.a}", "--prop", "svc.restapi.a={svc.restapi.channelId}")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "cycle")
	require.Empty(t, srv.requests())
	// Not an absolute http(s) URL.
	code, _, stderr = acc(t, nil, "read", "x", "--type", "RESTAPI", "--prop", "svc.restapi.url=ftp://h/x")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "ftp")
}

func restProps(url string, kv ...string) []string {
	args := []string{"--type", "RESTAPI", "--prop", "svc.restapi.url=" + url, "--prop", "svc.restapi.retry.wait.min=1ms", "--prop", "svc.restapi.retry.wait.max=5ms"}
	for _, p := range kv {
		args = append(args, "--prop", p)
	}
	return args
}

func TestAcceptanceRetries(t *testing.T) {
	t.Parallel()
	t.Run("retry.max 3 means at most 4 requests", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", 500) })
		code, _, stderr := acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/x", "svc.restapi.retry.max=3")...)...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "500")
		require.Len(t, srv.requests(), 4)
	})
	t.Run("default retry.max is 3", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "slow down", 429) })
		code, _, _ := acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/x")...)...)
		require.Equal(t, 1, code)
		require.Len(t, srv.requests(), 4)
	})
	t.Run("4xx is not retried", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "nope", 404) })
		code, _, _ := acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/x")...)...)
		require.Equal(t, 1, code)
		require.Len(t, srv.requests(), 1)
	})
	t.Run("Retry-After HTTP date wins over a long back-off", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat))
				http.Error(w, "later", 503)
				return
			}
			_, _ = io.WriteString(w, `{"ok":true}`)
		})
		// Without Retry-After the wait would be 10 minutes: the test would time out.
		args := []string{"read", "r", "--type", "RESTAPI", "--prop", "svc.restapi.url=" + srv.URL + "/x",
			"--prop", "svc.restapi.retry.wait.min=10m", "--prop", "svc.restapi.retry.wait.max=20m", "--format", "csv"}
		code, stdout, stderr := acc(t, nil, args...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, `ok`)
		require.Len(t, srv.requests(), 2)
	})
	t.Run("Retry-After seconds, ISO durations", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "later", 429)
				return
			}
			_, _ = io.WriteString(w, `{"ok":true}`)
		})
		args := []string{"read", "r", "--type", "RESTAPI", "--prop", "svc.restapi.url=" + srv.URL + "/x",
			"--prop", "svc.restapi.retry.wait.min=PT10M", "--prop", "svc.restapi.retry.wait.max=PT20M", "--prop", "svc.restapi.timeout=PT10S"}
		code, _, stderr := acc(t, nil, args...)
		require.Equal(t, 0, code, stderr)
		require.Len(t, srv.requests(), 2)
	})
}

func TestAcceptanceStatusError(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("a", 1000) + strings.Repeat("b", 24) + "TAILNOTSHOWN" + strings.Repeat("c", 1000)
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(403)
		_, _ = io.WriteString(w, body)
	})
	code, stdout, stderr := acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/x?key=AIza-status-secret", "svc.restapi.accessKey=AIza-status-secret", "svc.restapi.parse.payload=true")...)...)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	require.Contains(t, stderr, "403")
	require.Contains(t, stderr, srv.URL+"/x?key=***")
	require.NotContains(t, stderr, "AIza-status-secret")
	require.Contains(t, stderr, strings.Repeat("a", 1000)+strings.Repeat("b", 24))
	require.NotContains(t, stderr, "TAILNOTSHOWN")
}

func TestAcceptanceConsoleLogging(t *testing.T) {
	t.Parallel()
	srv := accFixtures(t)
	args := append([]string{"read", "r", "--set", "svc.logging.level=CONSOLE", "--format", "csv"},
		restProps(srv.URL+"/subs?key=AIza-log-secret", "svc.restapi.accessKey=AIza-log-secret")...)
	code, _, stderr := acc(t, nil, args...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, srv.URL+"/subs?key=***")
	require.NotContains(t, stderr, "AIza-log-secret")
	// Default: quiet.
	code, _, stderr = acc(t, nil, append([]string{"read", "r", "--format", "csv"}, restProps(srv.URL+"/subs")...)...)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
}

func TestAcceptancePagination(t *testing.T) {
	t.Parallel()
	srv := accFixtures(t)
	pag := []string{"svc.restapi.paginate.next.field=nextPageToken", "svc.restapi.paginate.next.param=pageToken"}
	// Payload mode: one row per page.
	code, stdout, stderr := acc(t, nil, append([]string{"read", "r", "--format", "json"}, restProps(srv.URL+"/subs", pag...)...)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 2, strings.Count(stdout, "\n"))
	// Parsed mode with records.path: one row per item over both pages (7).
	code, stdout, stderr = acc(t, nil, append([]string{"read", "r", "--format", "json"}, restProps(srv.URL+"/subs", append(pag, "svc.restapi.parse.payload=true", "svc.restapi.records.path=items")...)...)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 7, strings.Count(stdout, "\n"))
	// Payload mode ignores records.path.
	code, stdout, stderr = acc(t, nil, append([]string{"read", "r", "--format", "json"}, restProps(srv.URL+"/subs", append(pag, "svc.restapi.records.path=items")...)...)...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 2, strings.Count(stdout, "\n"))
	// max.pages 1 with a next token left: the error says so.
	code, stdout, stderr = acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/subs", append(pag, "svc.restapi.paginate.max.pages=1")...)...)...)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "more than 1 pages")
	// max.pages 2 is enough.
	code, _, stderr = acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/subs", append(pag, "svc.restapi.paginate.max.pages=2")...)...)...)
	require.Equal(t, 0, code, stderr)
	// A next-page parameter already in the URL is replaced.
	n0 := len(srv.requests())
	code, _, stderr = acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/subs?pageToken=OLD&x=1", pag...)...)...)
	require.Equal(t, 0, code, stderr)
	reqs := srv.requests()[n0:]
	require.Len(t, reqs, 2)
	require.Equal(t, "/subs?pageToken=OLD&x=1", reqs[0].URI)
	require.Equal(t, 1, strings.Count(reqs[1].URI, "pageToken="), reqs[1].URI)
	require.Contains(t, reqs[1].URI, "pageToken=CAUQAA")
}

func TestAcceptanceRepeatedTokenAndBadJSON(t *testing.T) {
	t.Parallel()
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			_, _ = io.WriteString(w, `{"a":1,}`)
			return
		}
		_, _ = io.WriteString(w, `{"next":"same","items":[{"a":1}]}`)
	})
	code, _, stderr := acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/loop", "svc.restapi.paginate.next.field=next", "svc.restapi.paginate.next.param=p")...)...)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "same")
	require.LessOrEqual(t, len(srv.requests()), 2)
	code, _, stderr = acc(t, nil, append([]string{"read", "r"}, restProps(srv.URL+"/bad", "svc.restapi.parse.payload=true")...)...)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "at byte offset 7")
}

func TestAcceptanceWrite(t *testing.T) {
	t.Parallel()
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
	dir := t.TempDir()
	in := filepath.Join(dir, "rows.ndjson")
	require.NoError(t, os.WriteFile(in, []byte(`{"id":1,"s":{"x":"a"},"l":[1,2]}`+"\n"+`{"id":2,"s":{"x":"b"},"l":[]}`+"\n"), 0o644))
	code, stdout, stderr := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/ok")...)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "2")
	reqs := srv.requests()
	require.Len(t, reqs, 2)
	for i, r := range reqs {
		require.Equal(t, "POST", r.Method)
		require.Equal(t, "application/json", r.ContentType)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.Body), &m), r.Body)
		require.Equal(t, float64(i+1), m["id"])
		require.IsType(t, map[string]any{}, m["s"], "nested columns are JSON values: %s", r.Body)
		require.IsType(t, []any{}, m["l"], r.Body)
	}
}

func TestAcceptanceWriteFailureAndModes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "rows.ndjson")
	require.NoError(t, os.WriteFile(in, []byte(`{"payload":"{\"n\":1}"}`+"\n"+`{"payload":"fail"}`+"\n"+`{"payload":"[3]"}`+"\n"), 0o644))

	t.Run("first failed row stops the write", func(t *testing.T) {
		t.Parallel()
		fail := newAccServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 2 {
				http.Error(w, "bad row", 400)
				return
			}
			w.WriteHeader(201)
		})
		code, _, stderr := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(fail.URL+"/e", "svc.restapi.use.payload=true")...)...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "wrote 1 of 3 rows; row 2 failed: ")
		require.Contains(t, stderr, "400")
		require.Len(t, fail.requests(), 2)
		// use.payload: the body is the payload text as is.
		require.Equal(t, `{"n":1}`, fail.requests()[0].Body)
		require.Equal(t, `fail`, fail.requests()[1].Body)
	})
	t.Run("POST not retried on 500", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "x", 500) })
		code, _, stderr := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/e", "svc.restapi.use.payload=true")...)...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "wrote 0 of 3 rows; row 1 failed: ")
		require.Len(t, srv.requests(), 1)
	})
	t.Run("POST retried on 503 with Retry-After", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				http.Error(w, "x", 503)
				return
			}
			w.WriteHeader(200)
		})
		code, stdout, stderr := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/e", "svc.restapi.use.payload=true")...)...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, "3")
		require.Len(t, srv.requests(), 4)
	})
	t.Run("POST 503 without Retry-After is not retried", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "x", 503) })
		code, _, _ := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/e", "svc.restapi.use.payload=true")...)...)
		require.Equal(t, 1, code)
		require.Len(t, srv.requests(), 1)
	})
	t.Run("PUT retried like reads, any case", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "x", 502) })
		code, _, stderr := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/e", "svc.restapi.use.payload=true", "svc.restapi.write.mode=put", "svc.restapi.retry.max=2")...)...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "wrote 0 of 3 rows; row 1 failed: ")
		reqs := srv.requests()
		require.Len(t, reqs, 3)
		require.Equal(t, "PUT", reqs[0].Method)
	})
	t.Run("bad write mode", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {})
		code, _, stderr := acc(t, nil, append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/e", "svc.restapi.write.mode=PATCH")...)...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "svc.restapi.write.mode")
		require.Empty(t, srv.requests())
	})
	t.Run("use.payload needs the column", func(t *testing.T) {
		t.Parallel()
		srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {})
		other := filepath.Join(t.TempDir(), "o.ndjson")
		require.NoError(t, os.WriteFile(other, []byte(`{"a":1}`+"\n"), 0o644))
		code, _, stderr := acc(t, nil, append([]string{"write", "w", "--input", other}, restProps(srv.URL+"/e", "svc.restapi.use.payload=true")...)...)
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "payload")
		require.Empty(t, srv.requests())
	})
}

func TestAcceptanceWriteInputFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.ndjson")
	require.NoError(t, os.WriteFile(src, []byte(`{"id":1,"name":"a"}`+"\n"+`{"id":2,"name":"b"}`+"\n"), 0o644))
	// Make .parquet, .arrow and .csv versions with convert.
	for _, ext := range []string{".parquet", ".arrow", ".csv"} {
		code, _, stderr := acc(t, nil, "convert", src, filepath.Join(dir, "src"+ext))
		require.Equal(t, 0, code, stderr)
	}
	arrow, err := os.ReadFile(filepath.Join(dir, "src.arrow"))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(arrow, []byte("ARROW1")), ".arrow is the IPC file format")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src.jsonl"), []byte(`{"id":1,"name":"a"}`+"\n"+`{"id":2,"name":"b"}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src.json"), []byte(`[{"id":1,"name":"a"},{"id":2,"name":"b"}]`), 0o644))
	for _, ext := range []string{".ndjson", ".jsonl", ".json", ".csv", ".parquet", ".arrow"} {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) })
			code, _, stderr := acc(t, nil, append([]string{"write", "w", "--input", filepath.Join(dir, "src"+ext)}, restProps(srv.URL+"/e")...)...)
			require.Equal(t, 0, code, stderr)
			reqs := srv.requests()
			require.Len(t, reqs, 2)
			require.JSONEq(t, `{"id":1,"name":"a"}`, reqs[0].Body)
			require.JSONEq(t, `{"id":2,"name":"b"}`, reqs[1].Body)
		})
	}
	t.Run("PARQUET table in the catalog", func(t *testing.T) {
		t.Parallel()
		cat := t.TempDir()
		pq := filepath.Join(t.TempDir(), "out.parquet")
		mustSQL(t, cat, `CREATE TABLE fs.p TBLPROPERTIES ('svc.storage.type'='PARQUET','svc.parquet.path'='`+pq+`')`)
		code, stdout, stderr := acc(t, nil, "write", "fs.p", "--input", filepath.Join(dir, "src.arrow"), "--catalog", cat)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, "2")
		out := mustSQL(t, cat, "SELECT name FROM fs.p WHERE id = 2", "--format", "json")
		require.Equal(t, `{"name":"b"}`+"\n", out)
	})
}

func TestAcceptanceSQLSyntaxErrorPositions(t *testing.T) {
	t.Parallel()
	cat := t.TempDir()
	batch := "-- leading comment\nSET a=1;\n;\n  -- only a comment\n;\nSHOW TABLES;\nSELECT *\n  FROM yt.t\n LIMIT )"
	code, stdout, stderr := accSQL(t, cat, batch)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.True(t, strings.HasPrefix(stderr, "sluice: statement 3, line 9, column 8: "), stderr)
	// A syntax error anywhere runs nothing.
	code, _, stderr = accSQL(t, cat, "CREATE TABLE a.b TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/');\nSELEC 1")
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(stderr, "sluice: statement 2, line 2, column 1: "), stderr)
	_, err := os.Stat(filepath.Join(cat, "a", "b.json"))
	require.True(t, os.IsNotExist(err))
	// Empty statements and trailing comments are fine.
	out := mustSQL(t, cat, ";;SET a=1;;\n-- the end\n", "--format", "csv")
	require.Equal(t, "key,value\na,1\n", out)
	// Back-quoted identifiers, case-insensitive keywords, quoted ';'.
	out = mustSQL(t, cat, "set `x.y`='a;b'", "--format", "csv")
	require.Contains(t, out, "a;b")
}

func TestAcceptanceSelectSemantics(t *testing.T) {
	t.Parallel()
	cat := t.TempDir()
	pq := filepath.Join(t.TempDir(), "t.parquet")
	src := filepath.Join(t.TempDir(), "in.ndjson")
	require.NoError(t, os.WriteFile(src, []byte(
		`{"id":1,"name":"a","info":{"total":10,"deep":{"v":"x"}},"ok":true}`+"\n"+
			`{"id":2,"name":null,"info":{"total":20,"deep":{"v":"y"}},"ok":false}`+"\n"+
			`{"id":3,"name":"c","info":null,"ok":null}`+"\n"), 0o644))
	mustSQL(t, cat, `CREATE TABLE fs.t TBLPROPERTIES ('svc.storage.type'='PARQUET','svc.parquet.path'='`+pq+`')`)
	code, _, stderr := acc(t, nil, "write", "fs.t", "--input", src, "--catalog", cat)
	require.Equal(t, 0, code, stderr)

	q := func(sql string) string { t.Helper(); return mustSQL(t, cat, sql, "--format", "json") }
	// Three-valued logic.
	require.Equal(t, `{"id":3}`+"\n", q("SELECT id FROM fs.t WHERE name <> 'a'"))
	require.Equal(t, `{"id":3}`+"\n", q("SELECT id FROM fs.t WHERE name != 'a'"))
	require.Equal(t, `{"id":3}`+"\n", q("SELECT id FROM fs.t WHERE NOT (name = 'a') "))
	require.Equal(t, `{"id":2}`+"\n", q("SELECT id FROM fs.t WHERE name IS NULL"))
	require.Equal(t, `{"id":1}`+"\n"+`{"id":3}`+"\n", q("SELECT id FROM fs.t WHERE name IS NOT NULL"))
	require.Equal(t, `{"id":1}`+"\n"+`{"id":2}`+"\n", q("SELECT id FROM fs.t WHERE name = 'a' OR name IS NULL"))
	require.Equal(t, "", q("SELECT id FROM fs.t WHERE NOT (ok = true) AND id = 3"))
	require.Equal(t, `{"id":1}`+"\n"+`{"id":3}`+"\n", q("SELECT id FROM fs.t WHERE ok = true OR id >= 3"))
	require.Equal(t, `{"id":2}`+"\n", q("SELECT id FROM fs.t WHERE ok = false"))
	require.Equal(t, `{"id":2}`+"\n", q("SELECT id FROM fs.t WHERE info.total > 10 AND info.total <= 20"))
	require.Equal(t, `{"id":1}`+"\n", q("SELECT id FROM fs.t WHERE (id < 2)"))
	// Unaliased nested path: last segment; alias wins.
	require.Equal(t, `{"total":10,"v":"x"}`+"\n", q("SELECT info.total, info.deep.v FROM fs.t LIMIT 1"))
	require.Equal(t, `{"t":10}`+"\n", q("SELECT info.total AS t FROM fs.t LIMIT 1"))
	// SELECT * keeps nesting; NDJSON holds nested values as JSON.
	// (JSON inference sorts object fields by name, docs/inference.md.)
	require.Equal(t, `{"id":1,"info":{"deep":{"v":"x"},"total":10},"name":"a","ok":true}`+"\n", q("SELECT * FROM fs.t LIMIT 1"))
	// Nested in the table format prints, too.
	out := mustSQL(t, cat, "SELECT * FROM fs.t")
	require.Contains(t, out, "id")
	// LIMIT 0
	require.Equal(t, "", q("SELECT id FROM fs.t LIMIT 0"))

	// INSERT … VALUES and INSERT … SELECT write through the connector.
	pq2 := filepath.Join(t.TempDir(), "dir") + "/"
	mustSQL(t, cat, `CREATE TABLE fs.v (id long, name string) TBLPROPERTIES ('svc.storage.type'='PARQUET','svc.parquet.path'='`+pq2+`', 'svc.parquet.mode'='append')`)
	out = q("INSERT INTO fs.v VALUES (10, 'ten'), (11, NULL)")
	require.Equal(t, `{"num_affected_rows":2,"num_inserted_rows":2}`+"\n", out)
	out = q("INSERT INTO fs.v SELECT id, name FROM fs.t WHERE id = 1")
	require.Contains(t, out, `"num_inserted_rows":1`)
	got := strings.Split(strings.TrimSpace(q("SELECT id, name FROM fs.v")), "\n")
	sort.Strings(got)
	require.Equal(t, []string{`{"id":1,"name":"a"}`, `{"id":10,"name":"ten"}`, `{"id":11,"name":null}`}, got)
}

func TestAcceptanceCreateRules(t *testing.T) {
	t.Parallel()
	cat := t.TempDir()
	code, _, stderr := accSQL(t, cat, "CREATE TABLE ns.t (a string) TBLPROPERTIES ('x'='y')")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "svc.storage.type")
	code, _, stderr = accSQL(t, cat, "CREATE TABLE ns.t")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "svc.storage.type")

	for _, cols := range []string{"(a string)", "(payload long)", "(payload string, b string)", "(data string)"} {
		code, _, stderr = accSQL(t, cat, "CREATE TABLE ns.r "+cols+" TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/x')")
		require.Equal(t, 1, code, cols)
		require.Contains(t, stderr, "payload", cols)
	}
	mustSQL(t, cat, "CREATE TABLE ns.r1 (payload string) TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/x')")
	mustSQL(t, cat, "CREATE EXTERNAL TABLE IF NOT EXISTS NS.R2 TBLPROPERTIES ('svc.storage.type'='restapi','svc.restapi.url'='http://h/x?a=1&b=<2>')")

	// Creating an existing table fails unless IF NOT EXISTS.
	code, _, stderr = accSQL(t, cat, "CREATE TABLE ns.r2 TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/y')")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "exists")
	mustSQL(t, cat, "CREATE TABLE IF NOT EXISTS ns.r2 TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/y')")

	// The table file: path, JSON shape and field names.
	raw, err := os.ReadFile(filepath.Join(cat, "ns", "r2.json"))
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	require.Equal(t, []string{"columns", "createdAt", "external", "location", "name", "namespace", "properties", "type"}, keys)
	require.JSONEq(t, `"ns"`, string(m["namespace"]))
	require.JSONEq(t, `"r2"`, string(m["name"]))
	require.JSONEq(t, `"RESTAPI"`, string(m["type"]))
	require.JSONEq(t, `true`, string(m["external"]))
	require.JSONEq(t, `[{"name":"payload","type":"string"}]`, string(m["columns"]))
	require.JSONEq(t, `""`, string(m["location"]))
	require.JSONEq(t, `{"svc.storage.type":"restapi","svc.restapi.url":"http://h/x?a=1&b=<2>"}`, string(m["properties"]))
	var created time.Time
	require.NoError(t, json.Unmarshal(m["createdAt"], &created))
	require.False(t, created.IsZero())
	raw1, err := os.ReadFile(filepath.Join(cat, "ns", "r1.json"))
	require.NoError(t, err)
	require.Contains(t, string(raw1), `"external": false`)
	// No temporary files are left behind.
	entries, err := os.ReadDir(filepath.Join(cat, "ns"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"r1.json", "r2.json"}, names)

	// Names never escape the catalog.
	for _, bad := range []string{"`a/b`.t", "ns.`..`", "`..`.t", "ns.`t-1`", "ns.`1t`"} {
		code, _, stderr = accSQL(t, cat, "CREATE TABLE "+bad+" TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/x')")
		require.Equal(t, 1, code, bad)
		require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	}
	for _, bad := range []string{"../x", "a/b.c", "ns.t.u", "ns..t"} {
		code, _, stderr = acc(t, nil, "read", bad, "--catalog", cat)
		require.NotEqual(t, 0, code, bad)
		require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	}

	// SHOW, DROP.
	out := mustSQL(t, cat, "SHOW TABLES IN ns", "--format", "csv")
	require.Equal(t, "namespace,tableName,isTemporary\nns,r1,false\nns,r2,false\n", out)
	out = mustSQL(t, cat, "DROP TABLE ns.r1; DROP TABLE IF EXISTS ns.r1; SHOW TABLES", "--format", "csv")
	require.Equal(t, "namespace,tableName,isTemporary\nns,r2,false\n", out)
	code, _, _ = accSQL(t, cat, "DROP TABLE ns.r1")
	require.Equal(t, 1, code)
	out = mustSQL(t, cat, "SHOW NAMESPACES", "--format", "csv")
	require.Equal(t, "namespace\nns\n", out)
}

func TestAcceptanceCatalogDirResolution(t *testing.T) {
	// Changes the working directory: not parallel.
	wd := t.TempDir()
	t.Chdir(wd)
	envCat := filepath.Join(t.TempDir(), "envcat")
	flagCat := filepath.Join(t.TempDir(), "flagcat")
	create := "CREATE TABLE ns.t TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='http://h/x')"
	code, _, stderr := acc(t, nil, "sql", "-e", create)
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, filepath.Join(wd, ".sluice", "catalog", "ns", "t.json"))
	code, _, stderr = acc(t, map[string]string{"SLUICE_CATALOG": envCat}, "sql", "-e", create)
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, filepath.Join(envCat, "ns", "t.json"))
	code, _, stderr = acc(t, map[string]string{"SLUICE_CATALOG": envCat}, "sql", "-e", create, "--catalog", flagCat)
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, filepath.Join(flagCat, "ns", "t.json"))
	// read and write honour SLUICE_CATALOG too.
	code, _, stderr = acc(t, map[string]string{"SLUICE_CATALOG": envCat}, "read", "ns.nope")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "ns.nope")
}

func TestAcceptanceCLIConventions(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"sql", "read", "write", "convert"} {
		code, stdout, stderr := acc(t, nil, c, "--help")
		require.Equal(t, 0, code, c)
		require.Contains(t, stdout, "Usage: sluice "+c, c)
		require.Empty(t, stderr, c)
	}
	for _, args := range [][]string{
		{"read"}, {"read", "a.b", "c.d"}, {"read", "a.b", "--nope"}, {"write", "a.b"}, {"sql"}, {"read", "a.b", "--format", "xml"},
	} {
		code, _, stderr := acc(t, nil, args...)
		require.Equal(t, 2, code, "%v", args)
		require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	}
	cat := t.TempDir()
	// Flags after positionals; failure exit 1 with one sluice: line.
	code, stdout, stderr := acc(t, nil, "read", "ns.missing", "--catalog", cat, "--format", "json")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}

func TestAcceptanceOutputs(t *testing.T) {
	t.Parallel()
	srv := accFixtures(t)
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE yt.s TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='`+srv.URL+`/subs',
		'svc.restapi.parse.payload'='true','svc.restapi.records.path'='items')`)
	dir := t.TempDir()
	for _, ext := range []string{".parquet", ".arrow", ".csv", ".ndjson"} {
		out := filepath.Join(dir, "new", "sub"+ext, "o"+ext) // -o creates parent directories
		for _, cmd := range [][]string{
			{"read", "yt.s", "--catalog", cat, "-o", out},
			{"sql", "--catalog", cat, "-e", "SELECT id, snippet.title FROM yt.s", "-o", out},
		} {
			code, stdout, stderr := acc(t, nil, cmd...)
			require.Equal(t, 0, code, stderr)
			require.Empty(t, stdout, "-o prints no rows")
			require.Equal(t, 1, strings.Count(stderr, "\n"), "one-line summary: %q", stderr)
			require.Contains(t, stderr, out)
			st, err := os.Stat(out)
			require.NoError(t, err)
			require.Positive(t, st.Size())
			// The file reads back with the same row count.
			code, back, stderr := acc(t, nil, "convert", out, "--format", "json")
			require.Equal(t, 0, code, stderr)
			require.Equal(t, 5, strings.Count(back, "\n"), ext)
		}
		if ext == ".arrow" {
			b, err := os.ReadFile(out)
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(b, []byte("ARROW1")))
		}
	}
	// NDJSON: one row a line, nested values as JSON.
	code, stdout, stderr := acc(t, nil, "read", "yt.s", "--catalog", cat, "--format", "json")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, 5)
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		require.IsType(t, map[string]any{}, m["snippet"], "nested as JSON, not text")
	}
	// CSV has a header and a line per row; table has the default format.
	code, stdout, _ = acc(t, nil, "read", "yt.s", "--catalog", cat, "--format", "csv")
	require.Equal(t, 0, code)
	require.GreaterOrEqual(t, strings.Count(stdout, "\n"), 6)
	code, stdout, _ = acc(t, nil, "read", "yt.s", "--catalog", cat)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "+")
	// --schema ends with one newline.
	code, stdout, _ = acc(t, nil, "sql", "--catalog", cat, "-e", "SELECT id FROM yt.s", "--schema")
	require.Equal(t, 0, code)
	require.Equal(t, "root\n |-- id: string (nullable = true)\n", stdout)
}

func TestAcceptanceFileExtensionsAreUsage(t *testing.T) {
	t.Parallel()
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{}`) })
	in := filepath.Join(t.TempDir(), "in.txt")
	require.NoError(t, os.WriteFile(in, []byte("{}"), 0o644))
	for _, args := range [][]string{
		append([]string{"read", "r", "-o", filepath.Join(t.TempDir(), "out.txt")}, restProps(srv.URL+"/x")...),
		{"sql", "--catalog", t.TempDir(), "-e", "SET", "-o", "out.xlsx"},
		append([]string{"write", "w", "--input", in}, restProps(srv.URL+"/x")...),
	} {
		code, stdout, stderr := acc(t, nil, args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Empty(t, stdout)
		require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
	}
	require.Empty(t, srv.requests(), "nothing is fetched or sent for a bad file name")
}

func TestAcceptanceWriteSessionAndLogging(t *testing.T) {
	t.Parallel()
	srv := newAccServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE api.ev TBLPROPERTIES ('svc.storage.type'='RESTAPI',
		'svc.restapi.url.pattern'='svc.restapi.pattern.ev', 'svc.restapi.pattern.ev'='`+srv.URL+`/{svc.restapi.path}?key={svc.restapi.accessKey}',
		'svc.restapi.path'='table', 'svc.restapi.accessKey'='AIza-write-secret')`)
	// .json holding one object is one row.
	in := filepath.Join(t.TempDir(), "one.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"a":{"b":[1,2]}}`), 0o644))
	code, stdout, stderr := acc(t, nil, "write", "api.ev", "--input", in, "--catalog", cat,
		"--prop", "svc.restapi.path=runtime", "--set", "svc.restapi.path=session", "--set", "svc.logging.level=CONSOLE")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "wrote 1 of 1 rows")
	reqs := srv.requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "/session?key=AIza-write-secret", reqs[0].URI)
	require.Equal(t, `{"a":{"b":[1,2]}}`, reqs[0].Body)
	require.Contains(t, stderr, "POST "+srv.URL+"/session?key=***")
	require.NotContains(t, stderr, "AIza-write-secret")
}

func TestAcceptanceSQLFileForms(t *testing.T) {
	t.Parallel()
	cat := t.TempDir()
	f := filepath.Join(t.TempDir(), "q.sql")
	require.NoError(t, os.WriteFile(f, []byte("\ufeffSET a=1;\r\n-- done\r\n"), 0o644))
	code, stdout, stderr := acc(t, nil, "sql", "--catalog", cat, "-f", f, "--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "key,value\na,1\n", stdout)
	// A lone argument is the SQL; flags may follow it.
	code, stdout, stderr = acc(t, nil, "sql", "SET b=2", "--catalog", cat, "--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "key,value\nb,2\n", stdout)
}

func TestAcceptanceBadSetHidesSecret(t *testing.T) {
	t.Parallel()
	code, _, stderr := acc(t, nil, "sql", "-e", "SET", "--set", "svc.restapi.accessKey:AIzaSecretQQ")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--set wants key=value")
	require.NotContains(t, stderr, "SecretQQ")
	code, _, stderr = acc(t, nil, "sql", "-e", "SET", "--set", "novalue")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `"novalue"`)
}

// A failed -o write leaves no temporary file and names only the target.
func TestAcceptanceOutputFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	srv := accFixtures(t)
	cat := t.TempDir()
	mustSQL(t, cat, `CREATE TABLE yt.s TBLPROPERTIES ('svc.storage.type'='RESTAPI','svc.restapi.url'='`+srv.URL+`/subs',
		'svc.restapi.parse.payload'='true','svc.restapi.records.path'='items')`)
	dir := t.TempDir()
	out := filepath.Join(dir, "taken.parquet")
	require.NoError(t, os.Mkdir(out, 0o755)) // a directory stands where the file would go
	code, stdout, stderr := acc(t, nil, "read", "yt.s", "--catalog", cat, "-o", out)
	require.Equal(t, 1, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, out)
	require.NotContains(t, stderr, ".tmp-", "the temporary name is never shown")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left beside the target")
}
