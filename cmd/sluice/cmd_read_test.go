package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
)

func TestReadCommand(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t)
	cat := filepath.Join(t.TempDir(), "cat")
	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", `
		CREATE EXTERNAL TABLE yt.raw TBLPROPERTIES (
		  'svc.storage.type'='RESTAPI',
		  'svc.restapi.url.pattern'='svc.restapi.pattern.a',
		  'svc.restapi.pattern.a'='`+srv.URL+`/subs?from=a',
		  'svc.restapi.pattern.b'='`+srv.URL+`/subs?from=b')`)
	require.Equal(t, 0, code, stderr)

	// Catalog table; flags after the name.
	code, stdout, stderr := datasetCLI(t, "", nil, "read", "yt.raw", "--catalog", cat, "--schema")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "root\n |-- payload: string (nullable = true)\n", stdout)

	// --prop without --type is a runtime property over the table's; --set beats it.
	code, _, stderr = datasetCLI(t, "", nil, "read", "--catalog", cat, "yt.raw", "--prop", "svc.restapi.url.pattern=svc.restapi.pattern.b", "--format", "json")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = datasetCLI(t, "", nil, "read", "--catalog", cat, "yt.raw", "--prop", "svc.restapi.url.pattern=svc.restapi.pattern.b",
		"--set", "svc.restapi.url.pattern=svc.restapi.pattern.a", "--format", "json")
	require.Equal(t, 0, code, stderr)

	// --type: USER mode from the --prop properties, no catalog table.
	code, stdout, stderr = datasetCLI(t, "", nil, "read", "adhoc", "--catalog", cat, "--type", "restapi",
		"--prop", "svc.restapi.url="+srv.URL+"/subs?from=user",
		"--prop", "svc.restapi.parse.payload=true", "--prop", "svc.restapi.records.path=items",
		"--format", "csv")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "TEDx Talks")

	reqs, _ := srv.seen()
	require.Equal(t, []string{"GET /subs?from=a", "GET /subs?from=b", "GET /subs?from=a", "GET /subs?from=user"}, reqs)

	// -o FILE writes the frame and a one-line summary.
	out := filepath.Join(t.TempDir(), "raw.ndjson")
	code, stdout, stderr = datasetCLI(t, "", nil, "read", "yt.raw", "--catalog", cat, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "wrote 1 rows")
}

func TestReadCommandErrors(t *testing.T) {
	t.Parallel()
	cat := filepath.Join(t.TempDir(), "cat")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"read", "--help"}, 0, ""},
		{"no name", []string{"read", "--catalog", cat}, 2, "sluice: read: want one dataset NAME, got 0 arguments (see sluice read --help)\n"},
		{"two names", []string{"read", "a.b", "c.d"}, 2, "sluice: read: want one dataset NAME, got 2 arguments (see sluice read --help)\n"},
		{"unknown type", []string{"read", "x", "--type", "FTP"}, 2, "sluice: read: --type: unknown connector \"FTP\" (forgotten import of connectors/all?) (see sluice read --help)\n"},
		{"bad prop", []string{"read", "x", "--prop", "novalue"}, 2, ""},
		{"missing table", []string{"read", "ns.t", "--catalog", cat}, 1, "sluice: reading ns.t: table not found: ns.t\n"},
		{"invalid name", []string{"read", "../etc", "--catalog", cat}, 1, "sluice: reading ../etc: invalid name: \"../etc\" (want ns.table, each part letters, digits and _, not starting with a digit)\n"},
		{"USER without entry", []string{"read", "ns.t", "--catalog", cat, "--set", "svc.catalog.provider=USER"}, 1,
			"sluice: reading ns.t: catalog provider USER: no ns.t.dataSetProperties entry among the properties (set svc.catalog.provider=HIVE to read the catalog table)\n"},
		{"USER mode error redacted", []string{"read", "x", "--type", "RESTAPI", "--prop", "svc.restapi.url=http://127.0.0.1:1/{svc.restapi.nope}?key=s3cr3t", "--prop", "svc.restapi.accessKey=s3cr3t"}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := datasetCLI(t, "", nil, tt.args...)
			require.Equal(t, tt.code, code, "stderr: %s", stderr)
			if tt.stderr != "" {
				require.Equal(t, tt.stderr, stderr)
			}
			require.LessOrEqual(t, strings.Count(stdout, "Usage: sluice"), 1, "usage printed once")
			if code == 0 {
				require.Contains(t, stdout, "Usage: sluice read NAME")
			} else {
				require.Regexp(t, `^sluice: `, stderr)
				require.NotContains(t, stderr, "s3cr3t")
			}
		})
	}
}

// `read -o` streams a REST read through its spool (RESTAPI's ReadStream):
// the file holds what --format json prints, and the spool is gone after a
// read and after a failed one. Not parallel: it points $TMPDIR (the
// spool's directory) at a directory of its own.
func TestReadOutputStreamsRESTSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := t.TempDir()
	l := restapitest.Uniform("next_url", 300, 3)
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	var args []string
	for k, v := range l.Props(srv.URL) {
		args = append(args, "--prop", k+"="+v)
	}
	read := func(extra ...string) (int, string, string) {
		return runCLI(t, nil, append(append([]string{"read", "api", "--type", "restapi"}, args...), extra...)...)
	}
	code, want, stderr := read("--format", "json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 300, strings.Count(want, "\n"))
	path := filepath.Join(out, "items.ndjson")
	code, _, stderr = read("-o", path)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "wrote 300 rows, 2 columns")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(got))
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries, "no spool left in $TMPDIR")

	// A listing that fails on its last page: exit 1, no file, no spool.
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("p") == "99" {
			http.Error(w, "boom", http.StatusBadGateway)
			return
		}
		l.ServeHTTP(w, r)
	}))
	t.Cleanup(failing.Close)
	args = args[:0]
	for k, v := range l.Props(failing.URL) {
		args = append(args, "--prop", k+"="+v)
	}
	bad := filepath.Join(out, "bad.parquet")
	code, _, stderr = read("-o", bad)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "page 100")
	require.NoFileExists(t, bad)
	entries, err = os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries, "no spool left in $TMPDIR")
}

// TestReadOutputInterruptRemovesSpool sends SIGINT to a real `sluice read
// -o` while its REST read waits for page 21, its spool on disk: the read
// stops with exit 1, and neither the output nor the spool is left.
func TestReadOutputInterruptRemovesSpool(t *testing.T) {
	bin := srvAccBinary(t)
	dir := t.TempDir()
	spoolDir := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(spoolDir, 0o755))
	l := restapitest.Uniform("next_url", 200, 2)
	reached := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("p") == "20" {
			once.Do(func() { close(reached) })
			select { // hold page 21 until the client goes away
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
			return
		}
		l.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	args := []string{"read", "api", "--type", "restapi", "-o", filepath.Join(dir, "out.parquet")}
	for k, v := range l.Props(srv.URL) {
		args = append(args, "--prop", k+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+spoolDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-reached:
	case err := <-exited:
		t.Fatalf("read ended (%v) before page 21: %s", err, stderr.String())
	case <-ctx.Done():
		t.Fatal("page 21 was never asked for")
	}
	entries, err := os.ReadDir(spoolDir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the spool holds the first 20 pages")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = <-exited
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	require.Equal(t, 1, exit.ExitCode(), stderr.String())
	require.Contains(t, stderr.String(), "page 21")
	entries, err = os.ReadDir(spoolDir)
	require.NoError(t, err)
	require.Empty(t, entries, "the spool is removed")
	require.NoFileExists(t, filepath.Join(dir, "out.parquet"))
}
