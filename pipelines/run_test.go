package pipelines_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	_ "github.com/sluicedata/sluice/connectors/notifications"
	"github.com/sluicedata/sluice/connectors/parquet"
	_ "github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/propref"
	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/pipelines"
)

func newSession(t testing.TB) *catalog.Session {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog"))
	require.NoError(t, err)
	return catalog.NewSession(cat)
}

// run parses src with the given environment and runs it.
func run(t testing.TB, src string, env map[string]string, opts pipelines.Options) (*pipelines.Result, error) {
	t.Helper()
	p, err := pipelines.Parse("test.yaml", []byte(src), func(k string) string { return env[k] })
	require.NoError(t, err)
	if opts.Session == nil {
		opts.Session = newSession(t)
	}
	return pipelines.Run(context.Background(), p, opts)
}

func jsonRows(t testing.TB, f *dataframe.Frame) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		out = append(out, string(obj))
		return nil
	}))
	return out
}

func readFile(t testing.TB, path string) *dataframe.Frame {
	t.Helper()
	f, err := fileio.ReadFile(context.Background(), path, fileio.FileOptions{})
	require.NoError(t, err)
	return f
}

// listFiles lists every file under dir (hidden ones too), relative.
func listFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// sourceParquet writes the first YouTube fixture page (nested: items is an
// array of structs) as a Parquet file.
func sourceParquet(t testing.TB, dir string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("testdata", "youtube_subscriptions_by_channel_p1.json"))
	require.NoError(t, err)
	f, err := jsonframe.ReadDocument(doc, jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	path := filepath.Join(dir, "page.parquet")
	require.NoError(t, parquet.WriteFileAtomic(path, f, ""))
	return path
}

func TestRunEveryStepKind(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	out := filepath.Join(tmp, "out")
	yaml := `
name: kinds
steps:
  - id: src
    read:
      type: PARQUET
      properties: {svc.parquet.path: "${SRC}"}
  - id: items
    explode: items
  - id: sel
    select:
      - items.id AS id
      - items.snippet.title AS title
      - path: items.snippet.resourceId.channelId
        as: channel
      - items.snippet.publishedAt AS publishedAt
  - filter: title <> 'TEDx Talks' AND channel IS NOT NULL
  - rename: {publishedAt: published}
  - id: top
    limit: 3
  - write: {file: "${OUT}/a.parquet"}
  - write:
      file: ${OUT}/a.csv
  - write: ${OUT}/a.ndjson
  - write: {file: "${OUT}/a.arrow"}
  - id: flat
    from: src
    flatten: {}
  - id: q
    sql: |
      SELECT title AS t, channel
      FROM sel
      WHERE title >= 'M' OR channel = 'UCsT0YIqwnpJCM-mx7-gSA4Q'
      LIMIT 2
  - write: {file: "${OUT}/q.ndjson"}
`
	res, err := run(t, yaml, map[string]string{"SRC": src, "OUT": out}, pipelines.Options{})
	require.NoError(t, err)
	defer res.Output.Release()

	byID := map[string]pipelines.StepResult{}
	for _, s := range res.Steps {
		byID[s.ID] = s
	}
	require.Equal(t, int64(1), byID["src"].Rows)
	require.Equal(t, int64(5), byID["items"].Rows)
	require.Equal(t, int64(5), byID["sel"].Rows)
	require.Equal(t, int64(4), byID["step_4"].Rows)
	require.Equal(t, int64(3), byID["top"].Rows)
	require.Equal(t, int64(1), byID["flat"].Rows)

	pq := readFile(t, filepath.Join(out, "a.parquet"))
	defer pq.Release()
	require.Equal(t, []string{"id", "title", "channel", "published"}, pq.ColumnNames())
	rows := jsonRows(t, pq)
	require.Len(t, rows, 3)
	for _, r := range rows {
		require.NotContains(t, r, `"title":"TEDx Talks"`)
	}
	for _, name := range []string{"a.csv", "a.ndjson", "a.arrow"} {
		f := readFile(t, filepath.Join(out, name))
		require.Equal(t, int64(3), f.NumRows(), name)
		// NDJSON comes back through JSON inference: columns sorted by name.
		require.ElementsMatch(t, []string{"id", "title", "channel", "published"}, f.ColumnNames(), name)
		f.Release()
	}
	q := readFile(t, filepath.Join(out, "q.ndjson"))
	defer q.Release()
	require.ElementsMatch(t, []string{"t", "channel"}, q.ColumnNames())
	require.Equal(t, int64(2), q.NumRows())

	require.Equal(t, pipelines.KindFlatten, byID["flat"].Kind)
	// The last step in the file is the result.
	require.Equal(t, []string{"t", "channel"}, res.Output.ColumnNames())
	require.Equal(t, int64(2), res.Output.NumRows())
	require.ElementsMatch(t, []string{"a.arrow", "a.csv", "a.ndjson", "a.parquet", "q.ndjson"}, listFiles(t, out))
}

func TestRunFlattenColumns(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	res, err := run(t, `
name: flat
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: `+src+`}}
  - flatten: {}
  - select: [pageInfo.totalResults, nextPageToken]
  - rename: {pageInfo.totalResults: total}
`, nil, pipelines.Options{})
	require.NoError(t, err)
	defer res.Output.Release()
	require.Equal(t, []string{`{"total":7,"nextPageToken":"CAUQAA"}`}, jsonRows(t, res.Output))
}

func TestRunFailureLeavesNoPartialFile(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	out := filepath.Join(tmp, "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	// An older output must survive a failed run untouched.
	require.NoError(t, os.WriteFile(filepath.Join(out, "keep.csv"), []byte("old\n"), 0o644))
	var progress bytes.Buffer
	_, err := run(t, `
name: broken
steps:
  - id: src
    read: {type: PARQUET, properties: {svc.parquet.path: `+src+`}}
  - id: items
    explode: items
  - write: {file: `+out+`/items.parquet}
  - write: {file: `+out+`/keep.csv}
  - write: {file: `+out+`/parts, partition_by: [kind]}
  - id: oops
    select: [no_such_column]
  - write: {file: `+out+`/never.ndjson}
`, nil, pipelines.Options{Progress: &progress})
	require.Error(t, err)
	var se *pipelines.StepError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "oops", se.Step.ID)
	require.ErrorContains(t, err, `pipeline broken: step 6 "oops" (select) failed:`)
	require.ErrorContains(t, err, "no_such_column")
	require.Equal(t, []string{"keep.csv"}, listFiles(t, out), "no partial or temporary output")
	old, err := os.ReadFile(filepath.Join(out, "keep.csv"))
	require.NoError(t, err)
	require.Equal(t, "old\n", string(old))
	require.Contains(t, progress.String(), "oops")
	require.Contains(t, progress.String(), "FAILED")
}

func TestRunWriteFailure(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	blocker := filepath.Join(tmp, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o644))
	_, err := run(t, `
name: wf
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: `+src+`}}
  - write: {file: `+tmp+`/ok.parquet}
  - write: {file: `+blocker+`/sub/out.parquet}
`, nil, pipelines.Options{})
	require.ErrorContains(t, err, `step 3 (write) failed`)
	require.Equal(t, []string{"file", "page.parquet"}, listFiles(t, tmp))
}

func TestRunProgressAndSummary(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	var progress bytes.Buffer
	res, err := run(t, `
name: progress
steps:
  - id: src
    read: {type: PARQUET, properties: {svc.parquet.path: `+src+`}}
  - id: items
    explode: items
  - id: out
    write: {file: `+tmp+`/items.ndjson}
`, nil, pipelines.Options{Progress: &progress})
	require.NoError(t, err)
	res.Output.Release()
	lines := strings.Split(strings.TrimRight(progress.String(), "\n"), "\n")
	require.Len(t, lines, 3+1+3, progress.String())
	require.Regexp(t, `^  1/3 src\s+read\s+1 rows, [0-9.]+ (B|KiB), \S+$`, lines[0])
	require.Regexp(t, `^  2/3 items\s+explode\s+5 rows, `, lines[1])
	require.Regexp(t, `^  3/3 out\s+write\s+5 rows, [0-9.]+ (B|KiB), \S+ -> .*items.ndjson$`, lines[2])
	require.Regexp(t, `^pipeline progress: 3 steps, 5 rows out, \S+$`, lines[3])
	var total float64
	for _, l := range lines[4:] {
		m := regexp.MustCompile(`^  (\S+)\s+(\S+)\s+\S+\s+([0-9.]+)%$`).FindStringSubmatch(l)
		require.NotNil(t, m, l)
		var share float64
		_, _ = fmt.Sscan(m[3], &share)
		total += share
	}
	require.InDelta(t, 100, total, 0.5, "the shares add up to the whole")
	require.Len(t, res.Steps, 3)
}

func TestRunSettingsReachTheSession(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	yaml := `
name: settings
settings:
  svc.catalog.provider: ${PROVIDER:NOPE}
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: ` + src + `}}
`
	_, err := run(t, yaml, nil, pipelines.Options{})
	require.ErrorContains(t, err, "svc.catalog.provider")
	// The CLI's --set wins over the file's settings.
	res, err := run(t, yaml, nil, pipelines.Options{Settings: map[string]string{"svc.catalog.provider": "USER"}})
	require.NoError(t, err)
	res.Output.Release()
	res, err = run(t, yaml, map[string]string{"PROVIDER": "USER"}, pipelines.Options{})
	require.NoError(t, err)
	res.Output.Release()
}

func TestRunCatalogTables(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	sess := newSession(t)
	_, err := sess.ExecuteBatch(context.Background(), fmt.Sprintf(
		`CREATE TABLE lake.items TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%s/lake/items/')`, tmp))
	require.NoError(t, err)
	res, err := run(t, `
name: to_table
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: `+src+`}}
  - explode: items
  - select: [items.id AS id, items.snippet.title AS title]
  - write: {table: lake.items}
`, nil, pipelines.Options{Session: sess})
	require.NoError(t, err)
	res.Output.Release()
	res, err = run(t, `
name: from_table
steps:
  - id: t
    read: lake.items
  - sql: SELECT title FROM lake.items WHERE title = 'TEDx Talks'
`, nil, pipelines.Options{Session: sess})
	require.NoError(t, err)
	defer res.Output.Release()
	require.Equal(t, []string{`{"title":"TEDx Talks"}`}, jsonRows(t, res.Output))
}

// youtube serves the two fixture pages as the YouTube Data API does,
// checking the key.
func youtube(t testing.TB) *httptest.Server {
	t.Helper()
	p1, err := os.ReadFile(filepath.Join("testdata", "youtube_subscriptions_by_channel_p1.json"))
	require.NoError(t, err)
	p2, err := os.ReadFile(filepath.Join("testdata", "youtube_subscriptions_by_channel_p2.json"))
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v3/subscriptions" || r.URL.Query().Get("key") != "test-key" {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Query().Get("pageToken") {
		case "":
			_, _ = w.Write(p1)
		case "CAUQAA":
			_, _ = w.Write(p2)
		default:
			http.Error(w, `{"error":"bad token"}`, http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestExampleYouTubeToParquet(t *testing.T) {
	t.Parallel()
	srv := youtube(t)
	out := t.TempDir()
	env := map[string]string{"YT_BASE_URL": srv.URL, "YT_API_KEY": "test-key", "OUT_DIR": out}
	p, err := pipelines.ParseFile("examples/youtube_to_parquet.yaml", func(k string) string { return env[k] })
	require.NoError(t, err)
	var progress bytes.Buffer
	res, err := pipelines.Run(context.Background(), p, pipelines.Options{Session: newSession(t), Progress: &progress})
	require.NoError(t, err)
	res.Output.Release()
	require.NotContains(t, progress.String(), "test-key")
	f := readFile(t, filepath.Join(out, "subscriptions.parquet"))
	defer f.Release()
	require.Equal(t, "root\n |-- id: string (nullable = true)\n |-- title: string (nullable = true)\n |-- publishedAt: string (nullable = true)\n |-- channelId: string (nullable = true)\n |-- subscriberChannelId: string (nullable = true)\n",
		dataframe.SchemaString(f.Schema()))
	rows := jsonRows(t, f)
	require.Len(t, rows, 7, "both pages")
	require.Contains(t, rows[0], `"title":"TEDx Talks"`)
	require.Contains(t, rows[0], `"channelId":"UCsT0YIqwnpJCM-mx7-gSA4Q"`)
}

// failedStore fills a SQLite store through the sidecar's real intake and
// makes some records FAILED through its real processing job (no
// marketplace is configured and one attempt is allowed, so processing
// fails for good).
func failedStore(t testing.TB) string {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "notifications.db")
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer st.Close()
	cfg := notifications.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.ProcessingCron, cfg.CleanupCron = "off", "off"
	cfg.MaxAttempts = 1
	svc, err := notifications.New(cfg, st, notifications.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	}()
	post := func(token, object string) {
		body, _ := json.Marshal(map[string]any{"token": token, "createdOn": "2024-05-01T10:00:00Z",
			"object": map[string]any{"token": object, "programToken": "prg-1"}})
		req := httptest.NewRequest("POST", "/webhook/notifications", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := svc.App().Test(req, -1)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode, string(b))
	}
	post("wbh-1", "usr-1")
	post("wbh-2", "stk-2")
	post("wbh-3", "usr-3")
	_, err = svc.RunProcessing(ctx)
	require.NoError(t, err)
	post("wbh-4", "pmt-4") // still PENDING: not in the report
	return dsn
}

func TestExampleDailyFailedNotifications(t *testing.T) {
	t.Parallel()
	dsn := failedStore(t)
	reports := t.TempDir()
	env := map[string]string{"CONN_STORE": dsn, "REPORT_DIR": reports}
	p, err := pipelines.ParseFile("examples/daily_failed_notifications.yaml", func(k string) string { return env[k] })
	require.NoError(t, err)
	res, err := pipelines.Run(context.Background(), p, pipelines.Options{Session: newSession(t)})
	require.NoError(t, err)
	res.Output.Release()

	csv := readFile(t, filepath.Join(reports, "failed.csv"))
	defer csv.Release()
	require.Equal(t, int64(3), csv.NumRows())
	require.Equal(t, []string{"webhookToken", "objectToken", "type", "program", "retryCounter", "creationDate", "receptionDate", "lastRetryDate"}, csv.ColumnNames())

	var dirs []string
	for _, f := range listFiles(t, filepath.Join(reports, "failed_by_type")) {
		dirs = append(dirs, filepath.Dir(f))
	}
	sort.Strings(dirs)
	require.Equal(t, []string{"type=STK", "type=USR"}, dirs)

	// Read the partitioned report back through the PARQUET connector.
	back, err := run(t, `
name: read_back
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: `+filepath.Join(reports, "failed_by_type")+`}}
  - filter: type = 'USR'
  - select: [webhookToken, type, retryCounter]
`, nil, pipelines.Options{})
	require.NoError(t, err)
	defer back.Output.Release()
	require.ElementsMatch(t, []string{
		`{"webhookToken":"wbh-1","type":"USR","retryCounter":1}`,
		`{"webhookToken":"wbh-3","type":"USR","retryCounter":1}`,
	}, jsonRows(t, back.Output))
}

func TestRunNeedsSession(t *testing.T) {
	t.Parallel()
	p, err := pipelines.Parse("x.yaml", []byte("name: x\nsteps:\n  - read: a.b\n"), nil)
	require.NoError(t, err)
	_, err = pipelines.Run(context.Background(), p, pipelines.Options{})
	require.ErrorContains(t, err, "needs a catalog session")
}

func TestRunCanceled(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	p, err := pipelines.Parse("x.yaml", []byte("name: x\nsteps:\n  - read: {type: PARQUET, properties: {svc.parquet.path: "+src+"}}\n  - write: "+tmp+"/o.csv\n"), nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = pipelines.Run(ctx, p, pipelines.Options{Session: newSession(t)})
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.Equal(t, []string{"page.parquet"}, listFiles(t, tmp))
}

func TestRunStepErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	read := "name: e\nsteps:\n  - id: src\n    read: {type: PARQUET, properties: {svc.parquet.path: " + src + "}}\n"
	tests := []struct {
		name, steps, want string
	}{
		{"explode a string", "  - explode: etag\n", `step 2 (explode) failed: dataframe: explode "etag": it is string, not an array`},
		{"explode unknown", "  - explode: nope\n", `step 2 (explode) failed: dataframe: unknown column "nope"`},
		{"rename unknown", "  - rename: {nope: x}\n", `step 2 (rename) failed: rename: no column "nope"`},
		{"rename collision", "  - rename: {etag: kind}\n", `step 2 (rename) failed: rename: two columns would be called "kind"`},
		{"select unknown nested", "  - select: [pageInfo.nope]\n", `step 2 (select) failed: dataframe: column path "pageInfo.nope": struct "pageInfo" has no field "nope"`},
		{"filter unknown column", "  - filter: nope = 1\n", `step 2 (filter) failed: line 1, column 1: unknown column nope`},
		{"sql missing table", "  - sql: SELECT * FROM lake.none\n", `step 2 (sql) failed: reading lake.none: table not found`},
		{"write to a directory", "  - write: {file: " + tmp + ", format: csv}\n", "is a directory; give a file name"},
		{"partitioned over a file", "  - write: {file: " + src + ", partition_by: [kind]}\n", "is a file; a partitioned output is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := run(t, read+tt.steps, nil, pipelines.Options{})
			require.Error(t, err)
			require.ErrorContains(t, err, tt.want)
			var se *pipelines.StepError
			require.ErrorAs(t, err, &se)
			require.Equal(t, 1, se.Step.Index)
		})
	}
}

// TestRunTerminal runs with the live spinner on, over a read slow enough
// for it to draw: the per-step lines and the summary still come out whole
// (run it with -race).
func TestRunTerminal(t *testing.T) {
	t.Parallel()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, `{"items":[{"a":1},{"a":2}]}`)
	}))
	defer slow.Close()
	var progress syncBuffer
	res, err := run(t, `
name: term
steps:
  - read:
      type: RESTAPI
      properties: {svc.restapi.url: "`+slow.URL+`", svc.restapi.parse.payload: "true"}
  - explode: items
`, nil, pipelines.Options{Progress: &progress, Terminal: true})
	require.NoError(t, err)
	res.Output.Release()
	out := progress.String()
	require.Contains(t, out, "2/2 step_2     explode  2 rows")
	require.Contains(t, out, "pipeline term: 2 steps, 2 rows out")
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunInlineDatasetWrite(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := sourceParquet(t, tmp)
	lake := filepath.Join(tmp, "lake") + "/"
	yaml := `
name: inline_write
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: "` + src + `"}}
  - explode: items
  - select: [items.id AS id]
  - write:
      type: PARQUET
      properties:
        svc.parquet.path: ` + lake + `
        svc.parquet.mode: append
`
	for i := 0; i < 2; i++ {
		res, err := run(t, yaml, nil, pipelines.Options{})
		require.NoError(t, err)
		require.Equal(t, "step_4", res.Steps[3].ID)
		require.Equal(t, "step_4", res.Steps[3].Target)
		res.Output.Release()
	}
	require.Len(t, listFiles(t, lake), 2, "append added a part file per run")
	back, err := run(t, `
name: back
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: "`+lake+`"}}
`, nil, pipelines.Options{})
	require.NoError(t, err)
	defer back.Output.Release()
	require.Equal(t, int64(10), back.Output.NumRows())
}

// TestPropertyLiteralDollarBrace: a property value is reference syntax
// (docs/catalog.md#secret-references), read once by the session: `$${` in
// the pipeline and a `${` inside a variable's value reach the connector as
// a literal `${`, never as a reference to resolve.
func TestPropertyLiteralDollarBrace(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "d${env:SLUICE_TEST_NOT_SET}")
	require.NoError(t, os.Mkdir(dir, 0o755))
	in, err := jsonframe.FromValues([]string{"id"}, [][]any{{int64(1)}, {int64(2)}})
	require.NoError(t, err)
	require.NoError(t, parquet.WriteFileAtomic(filepath.Join(dir, "costs ${x}.parquet"), in, ""))
	in.Release()
	src := `
name: literal
steps:
  - read:
      type: PARQUET
      properties: {svc.parquet.path: "${DIR}/costs $${x}.parquet"}
`
	p, err := pipelines.Parse("test.yaml", []byte(src), func(k string) string { return map[string]string{"DIR": dir}[k] })
	require.NoError(t, err)
	require.Equal(t, propref.Escape(dir)+"/costs $${x}.parquet", p.Steps[0].Read.Properties["svc.parquet.path"])
	res, err := pipelines.Run(context.Background(), p, pipelines.Options{Session: newSession(t)})
	require.NoError(t, err)
	defer res.Output.Release()
	require.Equal(t, []string{`{"id":1}`, `{"id":2}`}, jsonRows(t, res.Output))
}

// TestRunSessionTimeZone: a pipeline's spark.sql.session.timeZone setting
// reaches its sql steps (docs/sql.md#time-zone).
func TestRunSessionTimeZone(t *testing.T) {
	t.Parallel()
	src := sourceParquet(t, t.TempDir())
	yaml := `
name: zone
settings:
  spark.sql.session.timeZone: America/Los_Angeles
steps:
  - id: src
    read: {type: PARQUET, properties: {svc.parquet.path: ` + src + `}}
  - id: q
    sql: SELECT CAST(TIMESTAMP '2016-03-12 04:54:00Z' AS STRING) AS s, current_timezone() AS z FROM src LIMIT 1
`
	res, err := run(t, yaml, nil, pipelines.Options{})
	require.NoError(t, err)
	defer res.Output.Release()
	require.Equal(t, []string{`{"s":"2016-03-11 20:54:00","z":"America/Los_Angeles"}`}, jsonRows(t, res.Output))
	_, err = run(t, yaml, nil, pipelines.Options{Settings: map[string]string{"spark.sql.session.timeZone": "Mars/Olympus"}})
	require.ErrorContains(t, err, "not a time zone")
}
