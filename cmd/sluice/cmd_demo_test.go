package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/fileio"
)

// runDemo runs `sluice demo args…` in-process with tmp as its working directory,
// bounded by a timeout so a hang fails the test instead of the suite.
func runDemo(t *testing.T, tmp string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb, workdir: tmp,
		getenv: func(k string) string {
			if k == "TMPDIR" {
				return tmp
			}
			return ""
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = run(ctx, env, append([]string{"demo"}, args...))
	return code, out.String(), errb.String()
}

func TestDemoTour(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	code, out, stderr := runDemo(t, tmp)
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", stderr, out)
	require.Empty(t, stderr)

	for _, want := range []string{
		// 1. the API
		"== 1. A YouTube-like API on loopback",
		"  serving http://127.0.0.1:",
		// 2. the table: the key is a reference to a file, in the echo and in DESCRIBE
		"'svc.restapi.accessKey'             = '${file:" + filepath.Join(tmp, "sluice-demo", "youtube-api-key") + "}'",
		"|svc.restapi.accessKey            |${file:",
		"|svc.restapi.url.pattern          |svc.restapi.pattern.subscriptions",
		// 3. raw, parsed, paginated, switched pattern, wrong key
		"  1 page, payload of 8073 bytes",
		"  root\n   |-- etag: string (nullable = true)\n   |-- items: array (nullable = true)\n   |    |-- element: struct (containsNull = true)",
		"   |    |-- totalResults: long (nullable = true)\n",
		"|youtube#subscriptionListResponse|       CAUQAA|           7|             5|",
		"&key=*** 200 8073 bytes",
		"&key=***&pageToken=CAUQAA 200 2717 bytes",
		"  7 rows from 2 pages",
		"|          TEDPartners|",
		"|UC_x5XG1OV2P6uZZ5FSM9Ttw|Google Developers|@googledevelopers|     US|",
		"|svc.restapi.accessKey|  ***|",
		"key=***: HTTP 403 Forbidden",
		// 4. pipeline and Parquet read back
		"subscriptions.parquet (",
		"  root\n   |-- id: string (nullable = true)\n   |-- title: string (nullable = true)\n   |-- publishedAt: string (nullable = true)\n   |-- channelId: string (nullable = true)\n   |-- subscriberChannelId: string (nullable = true)\n",
		"  7 rows in the Parquet file, 2 published since 2015",
		// 5. incremental load into merged Parquet: 2 rows, then only the new one
		"== 5. An incremental load into merged Parquet, run twice",
		"  |                2|                2|\n",
		`    "last_value": "2024-04-15T18:30:00Z",`,
		"  |                1|                1|\n",
		"  3 rows in ",
		// 6. fan-out from the Parquet table
		"|UCsT0YIqwnpJCM-mx7-gSA4Q|Welcome to the channel|2024-03-01T09:00:00Z|",
		"  6 rows shown; 7 child requests, one per subscribed channel",
		// 7. sidecar
		"  (none)     → 400 {\"errorMessage\":",
		"  run 1: batches=1 claimed=4 success=3 retrying=1 failed=0",
		"retrying=0 failed=1",
		"  the marketplace accepted 3 deliveries and refused 3",
		"   |-- retryCounter: integer (nullable = true)",
		"|  wbh-demo-1|      usr-demo-1|             USR| SUCCESS|           0|",
		"|  wbh-demo-4|      pmt-demo-2|             PMT|OUTDATED|           0|",
		"|  wbh-demo-6|stk-demo-unknown|             STK|  FAILED|           3|",
		`sluice_notifications_discarded_total{reason="duplicate",source="notifications"} 1`,
		`sluice_notifications_discarded_total{reason="obsolete",source="notifications"} 1`,
		`sluice_notifications_processed_total{outcome="failed",source="notifications"} 1`,
		`sluice_notifications_queue_depth{source="notifications",status="SUCCESS"} 3`,
		// 8. PostgreSQL, when there is one
		"== 8. The activities into PostgreSQL, incrementally and exactly once",
		"Demo complete in ",
	} {
		require.Contains(t, out, want)
	}
	if os.Getenv(demoPostgresEnv) == "" {
		require.Contains(t, out, "  skipped: give --postgres DSN")
	} else {
		require.Contains(t, out, `{"num_affected_rows":3,"num_inserted_rows":3,"num_updated_rows":0}`)
		require.Contains(t, out, `{"num_affected_rows":1,"num_inserted_rows":1,"num_updated_rows":0}`)
		require.Contains(t, out, `"last_value": "2024-07-01T08:00:00Z" (kept by pg.activities in sluice_demo_`)
		require.Contains(t, out, "  4 rows in sluice_demo_")
		// The DSN, like the key, is a reference to a file only its owner reads.
		require.Contains(t, out, "'svc.jdbc.url'      = '${file:"+filepath.Join(tmp, "sluice-demo", "postgres-dsn")+"}'")
		st, err := os.Stat(filepath.Join(tmp, "sluice-demo", "postgres-dsn"))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	}
	// Five sidecar records, each once: the duplicate and the obsolete one were discarded.
	require.Equal(t, 5, len(regexp.MustCompile(`(?m)^  \|  \d\|  wbh-demo-\d\|`).FindAllString(out, -1)), out)
	// The random API key never shows: only *** does.
	require.NotRegexp(t, `demo-[0-9a-f]{24}`, out)
	// Only loopback addresses.
	for _, u := range regexp.MustCompile(`https?://[^/\s:]+`).FindAllString(out, -1) {
		require.Equal(t, "127.0.0.1", u[strings.Index(u, "//")+2:], "non-loopback URL in %q", u)
	}
	// Everything written went into one new directory under the working
	// directory, kept and printed, with the Parquet a newcomer opens in DuckDB.
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, left, 1, "one directory")
	dir := filepath.Join(tmp, "sluice-demo")
	require.Contains(t, out, "The files stay in "+dir+".")
	require.Contains(t, out, "duckdb -c \"SELECT * FROM '"+filepath.Join(dir, "out", "subscriptions.parquet")+"'\"")
	require.FileExists(t, filepath.Join(dir, "out", "subscriptions.parquet"))
	// The key is in a file only its owner reads; no catalog file holds it.
	st, err := os.Stat(filepath.Join(dir, "youtube-api-key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	key, err := os.ReadFile(filepath.Join(dir, "youtube-api-key"))
	require.NoError(t, err)
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, "catalog"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NotContains(t, string(data), strings.TrimSpace(string(key)), path)
		return nil
	}))

	// A second run does not touch the first one's files: it takes sluice-demo-2.
	code, out, stderr = runDemo(t, tmp, "--quiet")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	require.Contains(t, out, "The files stay in "+filepath.Join(tmp, "sluice-demo-2")+".")
}

func TestDemoKeep(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "kept")
	code, out, stderr := runDemo(t, t.TempDir(), "--quiet", "--keep", dir)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	// --quiet drops the prose, keeps the results.
	require.NotContains(t, out, "Sluice is pointed at a local server")
	require.Contains(t, out, "  7 rows from 2 pages")
	require.Contains(t, out, "The files stay in "+dir)
	for _, f := range []string{"catalog/yt/subscriptions.json", "catalog/lake/subscriptions.json", "catalog/ops/notifications.json", "out/subscriptions.parquet", "notifications.db"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	f, err := fileio.ReadFile(context.Background(), filepath.Join(dir, "out/subscriptions.parquet"), fileio.FileOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 7, f.NumRows())
	f.Release()

	// The kept catalog reads without the demo: the NOTIFICATIONS table through `sluice read`.
	code, rows, stderr := runSluice(t, "read", "ops.notifications", "--catalog", filepath.Join(dir, "catalog"), "--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 6, strings.Count(rows, "\n"), rows) // header + 5 records
	require.Contains(t, rows, ",STK,FAILED,3,")
}

func TestDemoUsageAndFailure(t *testing.T) {
	t.Parallel()
	nonEmpty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(nonEmpty, "x"), nil, 0o644))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"keep into a non-empty directory", []string{"--keep", nonEmpty}, 2, "directory is not empty"},
		{"positional argument", []string{"extra"}, 2, `unexpected argument "extra"`},
		{"bad timeout", []string{"--timeout", "0s"}, 2, "--timeout must be positive"},
		{"timeout reached", []string{"--timeout", "1ns"}, 1, "sluice: demo: gave up after 1ns (--timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			code, _, stderr := runDemo(t, tmp, tc.args...)
			require.Equal(t, tc.code, code, stderr)
			require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
			require.Contains(t, stderr, tc.stderr)
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			require.Empty(t, left)
		})
	}
	code, out, _ := runSluice(t, "demo", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "--keep")
}
