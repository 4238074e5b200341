package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteCommand(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t)
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat")
	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", `
		CREATE TABLE api.events TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='`+srv.URL+`/events')`)
	require.Equal(t, 0, code, stderr)

	in := filepath.Join(dir, "rows.ndjson")
	require.NoError(t, os.WriteFile(in, []byte(`{"id":1,"tags":["a","b"],"who":{"name":"x"}}`+"\n"+`{"id":2,"tags":[],"who":null}`+"\n"), 0o644))
	code, stdout, stderr := datasetCLI(t, "", nil, "write", "api.events", "--input", in, "--catalog", cat)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "wrote 2 of 2 rows to api.events\n", stdout)
	_, bodies := srv.seen()
	require.Equal(t, []string{`{"id":1,"tags":["a","b"],"who":{"name":"x"}}`, `{"id":2,"tags":[],"who":null}`}, bodies)

	// USER mode with --type; use.payload sends the payload column as is.
	csv := filepath.Join(dir, "p.csv")
	require.NoError(t, os.WriteFile(csv, []byte("payload\nhello\nfail here\nnever\n"), 0o644))
	code, stdout, stderr = datasetCLI(t, "", nil, "write", "adhoc", "--type", "RESTAPI", "--input", csv, "--catalog", cat,
		"--prop", "svc.restapi.url.pattern=svc.restapi.pattern.e", "--prop", "svc.restapi.pattern.e="+srv.URL+"/events?token={svc.restapi.token}",
		"--prop", "svc.restapi.token=tok-123", "--prop", "svc.restapi.use.payload=true", "--prop", "svc.restapi.retry.max=0")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Regexp(t, `^sluice: writing adhoc: wrote 1 of 3 rows; row 2 failed: `, stderr)
	require.NotContains(t, stderr, "tok-123")
	_, bodies = srv.seen()
	require.Equal(t, []string{"hello", "fail here"}, bodies[2:])
}

func TestWriteCommandErrors(t *testing.T) {
	t.Parallel()
	cat := filepath.Join(t.TempDir(), "cat")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"write", "--help"}, 0, ""},
		{"no input", []string{"write", "a.b", "--catalog", cat}, 2, "sluice: write: --input FILE is required (see sluice write --help)\n"},
		{"no name", []string{"write", "--input", "x.csv"}, 2, "sluice: write: want one dataset NAME, got 0 arguments (see sluice write --help)\n"},
		{"missing input", []string{"write", "a.b", "--input", "/nonexistent/x.ndjson", "--catalog", cat}, 1, ""},
		{"unknown extension", []string{"write", "a.b", "--input", "x.xml", "--catalog", cat}, 2, "sluice: write: --input: x.xml: unknown file format \".xml\" (want .json, .ndjson, .jsonl, .csv, .parquet or .arrow) (see sluice write --help)\n"},
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
				require.Contains(t, stdout, "Usage: sluice write NAME --input FILE")
			} else {
				require.Regexp(t, `^sluice: `, stderr)
			}
		})
	}
}
