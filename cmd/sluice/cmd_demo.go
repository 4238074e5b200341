package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/sqlstore"
	"github.com/sluicedata/sluice/pipelines"
)

// demoData holds the recorded YouTube Data API responses the demo serves
// (see demodata/NOTICE.md) and the demo's pipeline.
//
//go:embed demodata
var demoData embed.FS

// The channels of the recorded responses: the subscriptions are those of
// demoSubscriber, the channel info is demoChannel's.
const (
	demoSubscriber = "UCAuUUnT6oDeKwE6v1NGQxug"
	demoChannel    = "UC_x5XG1OV2P6uZZ5FSM9Ttw"
	demoPageToken  = "CAUQAA" // nextPageToken of page 1
	// demoRejected is the object the demo marketplace refuses, so one
	// notification fails for good.
	demoRejected = "stk-demo-unknown"
)

func init() {
	addCommand(&command{
		name:    "demo",
		summary: "an offline tour: a loopback REST API, SQL, a pipeline to Parquet, the sidecar",
		run:     runDemoCommand,
	})
}

func runDemoCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "demo", "demo [--keep DIR] [--quiet] [--timeout D] [--postgres DSN]\n\n"+
		"An offline tour of Sluice. It serves a YouTube-like API on 127.0.0.1, creates a\n"+
		"RESTAPI table with SQL, reads it raw, parsed and paginated, runs a pipeline that\n"+
		"writes Parquet, and runs the notification sidecar on a few notifications against\n"+
		"a loopback marketplace. It needs no network and binds free loopback ports only.\n"+
		"It writes into one new directory, kept afterwards and printed at the end: the\n"+
		"catalog, the Parquet output and the notification store, to explore with\n"+
		"`sluice sql`, DuckDB or any Parquet reader. With --postgres DSN (or\n"+
		"SLUICE_TEST_POSTGRES_DSN) a last step loads the REST data into PostgreSQL,\n"+
		"incrementally, the state committed with the rows; without, it is skipped.")
	keep := fs.String("keep", "", "write into `DIR` (new or empty) (default: a new directory sluice-demo[-N] under the working directory)")
	quiet := fs.Bool("quiet", false, "print the results only, without the explanations")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	pg := fs.String("postgres", "", "load the REST data into this PostgreSQL `DSN` too (schema sluice_demo)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	dir, created, err := demoDir(env, *keep)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	d := &demo{env: env, out: env.stdout, quiet: *quiet, dir: dir, postgres: *pg}
	if err := d.run(ctx); err != nil {
		if created {
			// A failed tour leaves nothing behind in a directory it chose itself.
			os.RemoveAll(dir)
		}
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("demo: gave up after %s (--timeout): %w", *timeout, err)
		}
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// demoDir returns the directory the demo writes into and whether the demo
// chose it: keep, which must be new or empty so the demo's CREATE TABLEs
// cannot clash with what is there, or else the first free sluice-demo[-N]
// under the working directory.
func demoDir(env *cliEnv, keep string) (dir string, created bool, err error) {
	if keep == "" {
		base := env.workdir
		if base == "" {
			if base, err = os.Getwd(); err != nil {
				return "", false, fmt.Errorf("demo: the working directory: %w", err)
			}
		}
		for n := 1; n <= 1000; n++ {
			name := "sluice-demo"
			if n > 1 {
				name = fmt.Sprintf("sluice-demo-%d", n)
			}
			dir := filepath.Join(base, name)
			err := os.Mkdir(dir, 0o755)
			if err == nil {
				return dir, true, nil
			}
			if !errors.Is(err, os.ErrExist) {
				return "", false, fmt.Errorf("demo: making %s: %w (give --keep DIR)", dir, err)
			}
		}
		return "", false, usagef("sluice-demo … sluice-demo-1000 all exist under %s: give --keep DIR", base)
	}
	abs, err := filepath.Abs(keep)
	if err != nil {
		return "", false, usagef("--keep %s: %w", keep, err)
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return "", false, fmt.Errorf("demo: --keep %s: %w", keep, err)
		}
	case err != nil:
		return "", false, usagef("--keep %s: %w", keep, err)
	case len(entries) > 0:
		return "", false, usagef("--keep %s: directory is not empty (give a new or empty one)", keep)
	}
	return abs, false, nil
}

// demo is one run of the tour.
type demo struct {
	env   *cliEnv
	out   io.Writer
	quiet bool
	dir   string
	// postgres is the DSN of --postgres ("": SLUICE_TEST_POSTGRES_DSN, or
	// the step is skipped).
	postgres string

	apiKey string // random per run, so nothing real can leak and nothing printed can be reused
	keyRef string // ${file:…} of the file holding apiKey: the tables refer to it, never hold it
	api    *ytServer
	cat    *catalog.Catalog
}

func (d *demo) run(ctx context.Context) error {
	start := time.Now()
	key, err := randomHex(12)
	if err != nil {
		return err
	}
	d.apiKey = "demo-" + key
	where := d.dir + " (kept afterwards)"
	d.say("Sluice demo: an offline tour. Everything runs on 127.0.0.1, on free ports,")
	d.say("and writes only under %s.", where)

	steps := []struct {
		title string
		run   func(context.Context) error
	}{
		{"A YouTube-like API on loopback", d.stepServe},
		{"A RESTAPI table, created with SQL", d.stepCreate},
		{"Reading it: raw, parsed, paginated", d.stepRead},
		{"A pipeline: explode → select → Parquet", d.stepPipeline},
		{"An incremental load into merged Parquet, run twice", d.stepIncremental},
		{"Fan-out: one child read per subscribed channel", d.stepFanout},
		{"The notification sidecar", d.stepSidecar},
		{"The activities into PostgreSQL, incrementally and exactly once", d.stepPostgres},
	}
	defer func() {
		if d.api != nil {
			d.api.close()
		}
	}()
	for i, st := range steps {
		fmt.Fprintf(d.out, "\n== %d. %s\n", i+1, st.title)
		if err := st.run(ctx); err != nil {
			// The connectors redact already; this also covers the demo's own errors.
			red := connectors.NewRedactor(map[string]string{"svc.restapi.accessKey": d.apiKey})
			return red.Error(fmt.Errorf("step %d (%s): %w", i+1, st.title, err))
		}
	}
	fmt.Fprintf(d.out, "\nDemo complete in %s.\n", time.Since(start).Round(10*time.Millisecond))
	// Printed even with --quiet: it is where the files are.
	cat := filepath.Join(d.dir, "catalog")
	fmt.Fprintf(d.out, "The files stay in %s. The API is gone, but the Parquet and notifications tables still read:\n", d.dir)
	fmt.Fprintf(d.out, "  sluice sql --catalog %s -e 'SHOW TABLES'\n", cat)
	fmt.Fprintf(d.out, "  sluice sql --catalog %s -e 'SELECT title, channelId FROM lake.subscriptions'\n", cat)
	fmt.Fprintf(d.out, "  sluice read ops.notifications --catalog %s\n", cat)
	fmt.Fprintf(d.out, "  sluice state show yt.activities --catalog %s\n", cat)
	fmt.Fprintf(d.out, "  duckdb -c \"SELECT * FROM '%s'\"\n", filepath.Join(d.dir, "out", "subscriptions.parquet"))
	return nil
}

// ---- step 1 -------------------------------------------------------------

func (d *demo) stepServe(ctx context.Context) error {
	d.say("Sluice is pointed at a local server that answers like the YouTube Data API v3 with")
	d.say("recorded responses: a channel's info, and its subscriptions in two pages linked by")
	d.say("nextPageToken → pageToken. Like the real API it wants an API key (`key` parameter or")
	d.say("X-Goog-Api-Key header); the demo made up a random one and wrote it to a file only you")
	d.say("can read: tables refer to it as ${file:…}, so no catalog file holds the key.")
	keyFile := filepath.Join(d.dir, "youtube-api-key")
	if err := os.WriteFile(keyFile, []byte(d.apiKey+"\n"), 0o600); err != nil {
		return err
	}
	d.keyRef = "${file:" + keyFile + "}"
	api, err := startYTServer(d.apiKey)
	if err != nil {
		return err
	}
	d.api = api
	d.result("serving %s/youtube/v3/{subscriptions,channels}; the key is in %s", api.url, keyFile)
	return nil
}

// ---- step 2 -------------------------------------------------------------

func (d *demo) stepCreate(ctx context.Context) error {
	d.say("A catalog table holds the dataset's properties. The URL is a template: each {token}")
	d.say("is replaced by the property of that name, and url.pattern names the template to use.")
	cat, err := catalog.Open(filepath.Join(d.dir, "catalog"))
	if err != nil {
		return err
	}
	d.cat = cat
	s := d.session()
	create := fmt.Sprintf(`CREATE EXTERNAL TABLE yt.subscriptions
TBLPROPERTIES (
  'svc.storage.type'                  = 'RESTAPI',
  'svc.restapi.baseURL'               = '%s/youtube/v3',
  'svc.restapi.channelId'             = '%s',
  'svc.restapi.accessKey'             = '%s',
  'svc.restapi.url.pattern'           = 'svc.restapi.pattern.subscriptions',
  'svc.restapi.pattern.subscriptions' = '{svc.restapi.baseURL}/subscriptions?part=snippet&channelId={svc.restapi.channelId}&maxResults=5&key={svc.restapi.accessKey}',
  'svc.restapi.pattern.channel'       = '{svc.restapi.baseURL}/channels?part=snippet&id={svc.restapi.channelId}&key={svc.restapi.accessKey}',
  'svc.restapi.timeout'               = '10s',
  'svc.restapi.retry.max'             = '1'
)`, d.api.url, demoSubscriber, d.keyRef)
	if err := d.sql(ctx, s, create, nil); err != nil {
		return err
	}
	d.result("created %s", filepath.Join(cat.Dir(), "yt", "subscriptions.json"))
	d.say("DESCRIBE shows the columns (a RESTAPI table has one: payload) and the properties;")
	d.say("the access key is a reference, resolved at each read (a literal one would show ***):")
	return d.sql(ctx, s, "DESCRIBE yt.subscriptions", &showOpts{truncate: -1})
}

// ---- step 3 -------------------------------------------------------------

func (d *demo) stepRead(ctx context.Context) error {
	s := d.session()
	d.say("Raw: one row per page, the response body in the payload column (one page, as")
	d.say("pagination is not configured yet).")
	f, err := d.query(ctx, s, "SELECT * FROM yt.subscriptions", &showOpts{truncate: 60})
	if err != nil {
		return err
	}
	payload := ""
	if f.NumRows() == 1 {
		err = f.EachRowJSON(func(_ int64, obj []byte) error {
			var row struct{ Payload string }
			if err := json.Unmarshal(obj, &row); err != nil {
				return err
			}
			payload = row.Payload
			return nil
		})
	}
	f.Release()
	if err != nil {
		return err
	}
	d.result("1 page, payload of %d bytes", len(payload))

	d.say("Parsed: the session setting svc.restapi.parse.payload=true turns the JSON into typed")
	d.say("columns, inferred as Spark does (fields sorted, integers long, objects struct):")
	if err := d.set(ctx, s, "SET svc.restapi.parse.payload=true"); err != nil {
		return err
	}
	if err := d.schema(ctx, s, "SELECT * FROM yt.subscriptions"); err != nil {
		return err
	}
	if _, err := d.queryShow(ctx, s, "SELECT kind, nextPageToken, pageInfo.totalResults, pageInfo.resultsPerPage FROM yt.subscriptions", nil); err != nil {
		return err
	}

	d.say("Paginated: records.path=items gives one row per subscription, and the next-page")
	d.say("settings follow nextPageToken → pageToken until the last page. With")
	d.say("svc.logging.level=CONSOLE each request is logged, the key masked:")
	if err := d.set(ctx, s,
		"SET svc.restapi.records.path=items",
		"SET svc.restapi.paginate.next.field=nextPageToken",
		"SET svc.restapi.paginate.next.param=pageToken",
		"SET svc.logging.level=CONSOLE",
	); err != nil {
		return err
	}
	before := d.api.requests()
	n, err := d.queryShow(ctx, s, "SELECT id, snippet.title AS title, snippet.resourceId.channelId AS channelId, snippet.publishedAt AS publishedAt FROM yt.subscriptions", &showOpts{truncate: 30})
	if err != nil {
		return err
	}
	d.result("%d rows from %d pages", n, d.api.requests()-before)
	if err := d.set(ctx, s, "SET svc.logging.level=QUIET"); err != nil {
		return err
	}

	d.say("SET switches the URL template (and the channel) for this session only; the table")
	d.say("is unchanged. The channel's info:")
	if err := d.set(ctx, s,
		"SET svc.restapi.url.pattern=svc.restapi.pattern.channel",
		"SET svc.restapi.channelId="+demoChannel,
	); err != nil {
		return err
	}
	if _, err := d.queryShow(ctx, s, "SELECT id, snippet.title AS title, snippet.customUrl AS customUrl, snippet.country AS country, snippet.publishedAt AS publishedAt FROM yt.subscriptions", nil); err != nil {
		return err
	}

	d.say("RESET drops the settings. A wrong key is then refused by the API; the error names")
	d.say("the status and the URL, but never a key (SET shows it masked too):")
	if err := d.set(ctx, s, "RESET"); err != nil {
		return err
	}
	if err := d.sql(ctx, s, "SET svc.restapi.accessKey=not-the-right-key", nil); err != nil {
		return err
	}
	d.echo("SELECT * FROM yt.subscriptions")
	g, err := s.ExecuteBatch(ctx, "SELECT * FROM yt.subscriptions")
	if err == nil {
		g.Release()
		return errors.New("a read with a wrong API key succeeded")
	}
	msg := strings.SplitN(err.Error(), "\n", 2)[0]
	if strings.Contains(msg, "not-the-right-key") || strings.Contains(msg, d.apiKey) {
		return errors.New("an error message showed an API key")
	}
	d.result("error: %s", msg)
	return nil
}

// ---- step 4 -------------------------------------------------------------

func (d *demo) stepPipeline(ctx context.Context) error {
	spec, err := demoData.ReadFile("demodata/youtube_to_parquet.yaml")
	if err != nil {
		return err
	}
	out := filepath.Join(d.dir, "out")
	d.say("A pipeline is a YAML list of steps (cmd/sluice/demodata/youtube_to_parquet.yaml):")
	d.say("read the table with pagination, explode the items, select and rename nested fields,")
	d.say("write Parquet. `sluice run FILE.yaml` runs the same thing.")
	p, err := pipelines.Parse("youtube_to_parquet.yaml", spec, func(k string) string {
		if k == "DEMO_OUT" {
			return out
		}
		return ""
	})
	if err != nil {
		return err
	}
	if _, err := pipelines.Run(ctx, p, pipelines.Options{Session: d.session(), Progress: d.indent(), DiscardOutput: true}); err != nil {
		return err
	}
	file := filepath.Join(out, "subscriptions.parquet")
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	d.result("wrote %s (%d bytes)", file, st.Size())

	d.say("Read back through a PARQUET table:")
	s := d.session()
	create := fmt.Sprintf("CREATE TABLE lake.subscriptions TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%s')", file)
	if err := d.sql(ctx, s, create, nil); err != nil {
		return err
	}
	if err := d.schema(ctx, s, "SELECT * FROM lake.subscriptions"); err != nil {
		return err
	}
	n, err := d.queryShow(ctx, s, "SELECT title, channelId, publishedAt FROM lake.subscriptions WHERE publishedAt >= '2015-01-01'", nil)
	if err != nil {
		return err
	}
	all, err := s.Read(ctx, "lake.subscriptions", nil)
	if err != nil {
		return err
	}
	total := all.NumRows()
	all.Release()
	d.result("%d rows in the Parquet file, %d published since 2015", total, n)
	return nil
}

// ---- step 5 -------------------------------------------------------------

// demoDelivery is one webhook the demo posts and what it shows.
type demoDelivery struct {
	body string
	note string
}

func (d *demo) stepSidecar(ctx context.Context) error {
	d.say("The sidecar takes a payment provider's webhooks in over HTTP, stores them durably")
	d.say("(here a SQLite file), drops duplicates and obsolete ones, and a job forwards each to")
	d.say("the marketplace, retrying with back-off. A local marketplace accepts every object but")
	d.say("%s, so that one fails for good (3 attempts here, 100ms apart at first).", demoRejected)
	mk, err := startMarketplace(demoRejected)
	if err != nil {
		return err
	}
	defer mk.close()

	dsn := "sqlite:" + filepath.Join(d.dir, "notifications.db")
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("opening the store: %w", err)
	}
	defer st.Close()
	cfg := notifications.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.Store = dsn
	cfg.MarketplaceURL = mk.url + "/notifications"
	cfg.DownstreamTimeout = 10 * time.Second
	cfg.MaxAttempts = 3
	cfg.InitialRetryDelay = 100 * time.Millisecond
	cfg.BackoffMultiplier = 2
	// The demo runs the job itself, so that it ends when the work is done.
	cfg.ProcessingCron = notifications.Off
	cfg.CleanupCron = notifications.Off
	svc, err := notifications.New(cfg, st, notifications.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	if err := svc.Start(ctx); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Stop(sctx)
	}()
	base := "http://" + svc.Addr()
	d.result("sidecar on %s, store %s, marketplace %s", base, dsn, cfg.MarketplaceURL)

	client := &http.Client{Timeout: 10 * time.Second}
	d.say("Webhooks posted to POST /webhook/notifications (each answered once committed):")
	deliveries := []demoDelivery{
		{`{"token":"wbh-demo-1","type":"USERS.UPDATED","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-demo-1","programToken":"prg-demo"}}`, "a user update: stored PENDING"},
		{`{"token":"wbh-demo-2","type":"PAYMENTS.CREATED","createdOn":"2024-05-01T10:01:00Z","object":{"token":"pmt-demo-1","programToken":"prg-demo"}}`, "a payment: stored PENDING"},
		{`{"token":"wbh-demo-1","type":"USERS.UPDATED","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-demo-1","programToken":"prg-demo"}}`, "the same webhook again: discarded as a duplicate"},
		{`{"token":"wbh-demo-3","type":"USERS.UPDATED","createdOn":"2024-05-01T09:00:00Z","object":{"token":"usr-demo-1","programToken":"prg-demo"}}`, "an older update of usr-demo-1: discarded as obsolete"},
		{`{"token":"wbh-demo-4","type":"PAYMENTS.UPDATED","createdOn":"2024-05-01T09:30:00Z","object":{"token":"pmt-demo-2","programToken":"prg-demo"}}`, "a payment update: stored PENDING"},
		{`{"token":"wbh-demo-5","type":"PAYMENTS.UPDATED","createdOn":"2024-05-01T09:45:00Z","object":{"token":"pmt-demo-2","programToken":"prg-demo"}}`, "a newer one of pmt-demo-2: stored, wbh-demo-4 becomes OUTDATED"},
		{`{"token":"wbh-demo-6","type":"STK.CREATED","createdOn":"2024-05-01T10:02:00Z","object":{"token":"` + demoRejected + `","programToken":"prg-demo"}}`, "the object the marketplace refuses: stored PENDING"},
		{`{"type":"USERS.UPDATED"}`, "no token: refused, nothing stored"},
	}
	for _, dl := range deliveries {
		status, body, err := httpDo(ctx, client, http.MethodPost, base+"/webhook/notifications", dl.body)
		if err != nil {
			return err
		}
		token := "(none)"
		var w struct {
			Token string
		}
		if json.Unmarshal([]byte(dl.body), &w) == nil && w.Token != "" {
			token = w.Token
		}
		line := fmt.Sprintf("%-10s → %d", token, status)
		if body = strings.TrimSpace(body); body != "" {
			line += " " + body
		}
		d.result("%-45s %s", line, dl.note)
	}

	d.say("The processing job forwards each live record as {\"notification\":…,\"payload\":…}.")
	d.say("A failure is retried after 100ms, then 200ms; the third failure is final (FAILED,")
	d.say("plus an e-mail alert when SMTP is configured). The demo runs the job until nothing is left:")
	const maxRuns = 6
	failures := 0
	done := false
	for run := 1; run <= maxRuns && !done; run++ {
		stats, err := svc.RunProcessing(ctx)
		if err != nil {
			return fmt.Errorf("processing run %d: %w", run, err)
		}
		d.result("run %d: %s", run, stats.String())
		wait := 50 * time.Millisecond // nothing was due yet: look again shortly
		switch {
		case stats.Claimed > 0 && stats.Retrying == 0 && stats.Errors == 0:
			done = true
			continue
		case stats.Retrying > 0:
			// Wait out the back-off (the stores keep milliseconds: a little slack).
			failures++
			wait = queue.Backoff(cfg.InitialRetryDelay, cfg.BackoffMultiplier, failures) + 50*time.Millisecond
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return err
		}
	}
	if !done {
		return fmt.Errorf("records still live after %d processing runs", maxRuns)
	}
	acc, rej := mk.counts()
	d.result("the marketplace accepted %d deliveries and refused %d", acc, rej)

	d.say("The records are a dataset too: the NOTIFICATIONS connector reads the store.")
	s := d.session()
	create := fmt.Sprintf("CREATE TABLE ops.notifications TBLPROPERTIES ('svc.storage.type'='NOTIFICATIONS', 'svc.notifications.store'='%s')", dsn)
	if err := d.sql(ctx, s, create, nil); err != nil {
		return err
	}
	catDir := filepath.Join(d.dir, "catalog")
	d.echoCmd("sluice read ops.notifications --catalog " + catDir + " --schema")
	var errBuf bytes.Buffer
	readEnv := &cliEnv{stdin: strings.NewReader(""), stdout: d.indent(), stderr: &errBuf, getenv: func(string) string { return "" }}
	if err := runReadCommand(ctx, readEnv, []string{"ops.notifications", "--catalog", catDir, "--schema"}); err != nil {
		return fmt.Errorf("sluice read: %w", err)
	}
	if _, err := d.queryShow(ctx, s, "SELECT id, webhookToken, objectToken, notificationType, status, retryCounter, lastRetryDate FROM ops.notifications", &showOpts{truncate: 24}); err != nil {
		return err
	}

	d.say("And the sidecar's metrics (GET /metrics), Prometheus text:")
	status, body, err := httpDo(ctx, client, http.MethodGet, base+"/metrics", "")
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET /metrics: status %d", status)
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "sluice_notifications_") {
			d.result("%s", line)
		}
	}
	return nil
}

// ---- output helpers -----------------------------------------------------

// say prints explanatory prose; --quiet drops it.
func (d *demo) say(format string, args ...any) {
	if d.quiet {
		return
	}
	fmt.Fprintf(d.out, format+"\n", args...)
}

// result prints what a step did, indented.
func (d *demo) result(format string, args ...any) {
	fmt.Fprintf(d.out, "  "+format+"\n", args...)
}

// echo prints a SQL statement as a prompt line, secrets masked.
func (d *demo) echo(stmt string) {
	red := connectors.NewRedactor(map[string]string{"svc.restapi.accessKey": d.apiKey})
	lines := strings.Split(red.String(stmt), "\n")
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintf(d.out, "  sluice> %s\n", l)
		} else {
			fmt.Fprintf(d.out, "        > %s\n", l)
		}
	}
}

func (d *demo) echoCmd(cmd string) { fmt.Fprintf(d.out, "  $ %s\n", cmd) }

// indent is a writer that indents every line by two spaces.
func (d *demo) indent() io.Writer { return &indentWriter{w: d.out, bol: true} }

// session opens a fresh session on the demo catalog, CONSOLE logs going to
// the tour's output.
func (d *demo) session() *catalog.Session {
	s := catalog.NewSession(d.cat)
	s.SetLogOutput(d.indent())
	return s
}

type showOpts struct {
	truncate int // 0: 40; < 0: none
}

// set runs SET statements, echoing them without their result tables (the
// echo already says what was set).
func (d *demo) set(ctx context.Context, s *catalog.Session, stmts ...string) error {
	for _, stmt := range stmts {
		d.echo(stmt)
		f, err := s.ExecuteBatch(ctx, stmt)
		if err != nil {
			return err
		}
		f.Release()
	}
	return nil
}

// sql runs one statement and prints its frame, if it has columns.
func (d *demo) sql(ctx context.Context, s *catalog.Session, stmt string, o *showOpts) error {
	_, err := d.queryShow(ctx, s, stmt, o)
	return err
}

// queryShow runs stmt, prints its rows and returns the row count.
func (d *demo) queryShow(ctx context.Context, s *catalog.Session, stmt string, o *showOpts) (int64, error) {
	f, err := d.query(ctx, s, stmt, o)
	if err != nil {
		return 0, err
	}
	defer f.Release()
	return f.NumRows(), nil
}

func (d *demo) query(ctx context.Context, s *catalog.Session, stmt string, o *showOpts) (*dataframe.Frame, error) {
	d.echo(stmt)
	f, err := s.ExecuteBatch(ctx, stmt)
	if err != nil {
		return nil, err
	}
	if f.NumCols() == 0 {
		return f, nil
	}
	trunc := 40
	if o != nil && o.truncate != 0 {
		trunc = max(o.truncate, 0)
	}
	if err := dataframe.WriteTable(d.indent(), f, dataframe.TableOptions{MaxRows: 20, Truncate: trunc}); err != nil {
		f.Release()
		return nil, err
	}
	return f, nil
}

// schema runs stmt and prints the schema of its result.
func (d *demo) schema(ctx context.Context, s *catalog.Session, stmt string) error {
	d.echo(stmt + "   -- printSchema")
	f, err := s.ExecuteBatch(ctx, stmt)
	if err != nil {
		return err
	}
	defer f.Release()
	_, err = io.WriteString(d.indent(), dataframe.SchemaString(f.Schema()))
	return err
}

type indentWriter struct {
	w   io.Writer
	bol bool // at the beginning of a line
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	var b bytes.Buffer
	for _, c := range p {
		if iw.bol && c != '\n' {
			b.WriteString("  ")
		}
		b.WriteByte(c)
		iw.bol = c == '\n'
	}
	if _, err := iw.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ---- loopback servers ---------------------------------------------------

// ytServer answers like the YouTube Data API v3 with the recorded responses.
type ytServer struct {
	url string
	srv *http.Server
	mu  sync.Mutex
	n   int
	// uploads are the made-up activities the demo adds (demo_loads.go).
	uploads []demoUpload
}

func startYTServer(key string) (*ytServer, error) {
	load := func(name string) ([]byte, error) { return demoData.ReadFile("demodata/" + name) }
	p1, err := load("youtube_subscriptions_by_channel_p1.json")
	if err != nil {
		return nil, err
	}
	p2, err := load("youtube_subscriptions_by_channel_p2.json")
	if err != nil {
		return nil, err
	}
	info, err := load("youtube_channels_info.json")
	if err != nil {
		return nil, err
	}
	y := &ytServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /youtube/v3/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("channelId") != demoSubscriber {
			ytError(w, http.StatusNotFound, "subscriptionForbidden", "The channel "+q.Get("channelId")+" has no recorded subscriptions in this demo.")
			return
		}
		switch q.Get("pageToken") {
		case "":
			ytJSON(w, p1)
		case demoPageToken:
			ytJSON(w, p2)
		default:
			ytError(w, http.StatusBadRequest, "invalidPageToken", "The request specifies an invalid page token.")
		}
	})
	mux.HandleFunc("GET /youtube/v3/channels", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("id") != demoChannel {
			ytJSON(w, []byte(`{"kind":"youtube#channelListResponse","etag":"demo","pageInfo":{"totalResults":0,"resultsPerPage":5},"items":[]}`))
			return
		}
		ytJSON(w, info)
	})
	mux.HandleFunc("GET /youtube/v3/activities", y.serveActivities)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		y.mu.Lock()
		y.n++
		y.mu.Unlock()
		got := r.URL.Query().Get("key")
		if got == "" {
			got = r.Header.Get("X-Goog-Api-Key")
		}
		if got != key {
			ytError(w, http.StatusForbidden, "forbidden", "The request is missing a valid API key.")
			return
		}
		mux.ServeHTTP(w, r)
	})
	url, srv, err := serveLoopback(handler)
	if err != nil {
		return nil, err
	}
	y.url, y.srv = url, srv
	return y, nil
}

func (y *ytServer) requests() int {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.n
}

func (y *ytServer) close() { shutdown(y.srv) }

func ytJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(body)
}

func ytError(w http.ResponseWriter, status int, reason, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": status, "message": msg,
		"errors": []map[string]string{{"message": msg, "domain": "youtube", "reason": reason}},
	}})
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// marketplace accepts every forwarded notification but those of one object.
type marketplace struct {
	url      string
	srv      *http.Server
	mu       sync.Mutex
	accepted int
	refused  int
}

func startMarketplace(refuse string) (*marketplace, error) {
	m := &marketplace{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			Notification struct {
				ObjectToken string `json:"objectToken"`
			} `json:"notification"`
			Payload json.RawMessage `json:"payload"`
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || r.Method != http.MethodPost || json.Unmarshal(body, &msg) != nil || msg.Notification.ObjectToken == "" {
			http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if msg.Notification.ObjectToken == refuse {
			m.refused++
			http.Error(w, `{"message":"unknown object `+refuse+`"}`, http.StatusUnprocessableEntity)
			return
		}
		m.accepted++
		w.WriteHeader(http.StatusOK)
	})
	url, srv, err := serveLoopback(handler)
	if err != nil {
		return nil, err
	}
	m.url, m.srv = url, srv
	return m, nil
}

func (m *marketplace) counts() (accepted, refused int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.accepted, m.refused
}

func (m *marketplace) close() { shutdown(m.srv) }

// serveLoopback serves h on a free port of 127.0.0.1.
func serveLoopback(h http.Handler) (string, *http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv, nil
}

func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		_ = srv.Close()
	}
}

// ---- small helpers ------------------------------------------------------

func httpDo(ctx context.Context, c *http.Client, method, url, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	return resp.StatusCode, string(b), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random key: %w", err)
	}
	return hex.EncodeToString(b), nil
}
