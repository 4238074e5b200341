package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// runCLI runs `sluice args…` in-process with the given environment.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}
	code = run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func writePipeline(t *testing.T, dir, src string) string {
	t.Helper()
	path := filepath.Join(dir, "p.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

func TestRunCommand(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src, err := jsonframe.FromValues([]string{"id", "status"}, [][]any{{int64(1), "FAILED"}, {int64(2), "SUCCESS"}, {int64(3), "FAILED"}})
	require.NoError(t, err)
	defer src.Release()
	in := filepath.Join(tmp, "in.parquet")
	require.NoError(t, parquet.WriteFileAtomic(in, src, ""))
	out := filepath.Join(tmp, "out.ndjson")
	p := writePipeline(t, tmp, `
name: cli
settings:
  svc.restapi.accessKey: very-secret
steps:
  - id: src
    read: {type: PARQUET, properties: {svc.parquet.path: "${IN}"}}
  - filter: status = '${WANT:FAILED}'
  - write: {file: `+out+`}
`)
	env := map[string]string{"IN": in, "SLUICE_CATALOG": filepath.Join(tmp, "cat")}

	code, stdout, stderr := runCLI(t, env, "run", p, "--dry-run", "--set", "svc.logging.level=CONSOLE")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "pipeline cli: 3 steps\n")
	require.Contains(t, stdout, "svc.restapi.accessKey = ***\n")
	require.Contains(t, stdout, "svc.logging.level = CONSOLE\n")
	require.Contains(t, stdout, "filter   status = 'FAILED'  <- src")
	require.NotContains(t, stdout, "very-secret")
	_, err = os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist, "a dry run writes nothing")

	code, stdout, stderr = runCLI(t, env, "run", p)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "pipeline cli: 3 steps, 2 rows out")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "{\"id\":1,\"status\":\"FAILED\"}\n{\"id\":3,\"status\":\"FAILED\"}\n", string(got))

	// Flags after or before the file; --catalog given explicitly.
	code, _, stderr = runCLI(t, env, "run", "--catalog", filepath.Join(tmp, "cat2"), p)
	require.Equal(t, 0, code, stderr)
}

func TestRunCommandErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	bad := writePipeline(t, tmp, "name: x\nsteps:\n  - reed: a.b\n")
	failing := filepath.Join(tmp, "fail.yaml")
	require.NoError(t, os.WriteFile(failing, []byte("name: f\nsteps:\n  - read: {type: PARQUET, properties: {svc.parquet.path: "+tmp+"/none.parquet}}\n"), 0o644))
	env := map[string]string{"SLUICE_CATALOG": filepath.Join(tmp, "cat")}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing file", []string{"run", filepath.Join(tmp, "nope.yaml")}, 1, "sluice: reading pipeline: open "},
		{"no file", []string{"run"}, 2, "sluice: run: want exactly one pipeline file, got 0 arguments"},
		{"two files", []string{"run", "a.yaml", "b.yaml"}, 2, "want exactly one pipeline file"},
		{"bad flag", []string{"run", bad, "--nope"}, 2, "sluice: run:"},
		{"bad set", []string{"run", bad, "--set", "novalue"}, 2, "--set wants key=value"},
		{"invalid pipeline", []string{"run", bad}, 1, "sluice: " + bad + ": line 3, column 5: step 1: unknown step kind \"reed\""},
		{"failing step", []string{"run", failing}, 1, "sluice: pipeline f: step 1 (read) failed: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, env, tt.args...)
			require.Equal(t, tt.code, code, stderr)
			require.Contains(t, stderr, tt.want)
			require.True(t, strings.HasPrefix(stderr, "sluice: ") || strings.Contains(stderr, "\nsluice: "), stderr)
		})
	}
	code, stdout, _ := runCLI(t, env, "run", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "Usage: sluice run PIPELINE.yaml")
	require.Contains(t, stdout, "-dry-run")
}

func TestRunCommandCatalog(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src, err := jsonframe.FromValues([]string{"n"}, [][]any{{int64(7)}})
	require.NoError(t, err)
	defer src.Release()
	require.NoError(t, parquet.WriteFileAtomic(filepath.Join(tmp, "t.parquet"), src, ""))
	catA := filepath.Join(tmp, "catA")
	code, _, stderr := runCLI(t, nil, "sql", "--catalog", catA, "-e",
		"CREATE TABLE lake.t TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+filepath.Join(tmp, "t.parquet")+"')")
	require.Equal(t, 0, code, stderr)
	out := filepath.Join(tmp, "out.csv")
	p := writePipeline(t, tmp, "name: c\ncatalog: "+catA+"\nsteps:\n  - read: lake.t\n  - write: "+out+"\n")

	// The pipeline's catalog: is used…
	code, _, stderr = runCLI(t, nil, "run", p)
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "n\n7\n", string(got))
	// …and --catalog wins over it.
	code, _, stderr = runCLI(t, nil, "run", p, "--catalog", filepath.Join(tmp, "catB"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "lake.t")
}

// A dry run checks that the tables the steps name exist, before anything runs.
func TestRunDryRunChecksTables(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	cat := filepath.Join(tmp, "cat")
	code, _, stderr := runCLI(t, map[string]string{"SLUICE_CATALOG": cat}, "sql", "-e",
		`CREATE TABLE lake.subs TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='`+filepath.Join(tmp, "subs.parquet")+`')`)
	require.Equal(t, 0, code, stderr)
	out := filepath.Join(tmp, "out.ndjson")
	p := writePipeline(t, tmp, `
name: tables
steps:
  - id: src
    read: {table: lake.sbus}
  - write: {file: `+out+`}
`)
	code, stdout, stderr := runCLI(t, map[string]string{"SLUICE_CATALOG": cat}, "run", p, "--dry-run")
	require.Equal(t, 1, code, stderr)
	require.Empty(t, stdout, "no plan for a pipeline that cannot run")
	require.Contains(t, stderr, `step 1 "src" (read)`)
	require.Contains(t, stderr, `table not found: lake.sbus (did you mean "lake.subs"?)`)
	_, err := os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// A dry run checks the columns steps use against the tables' declared
// columns, and says which tables declare none.
func TestRunDryRunChecksColumns(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := map[string]string{"SLUICE_CATALOG": filepath.Join(tmp, "cat")}
	code, _, stderr := runCLI(t, env, "sql", "-e",
		`CREATE TABLE hr.employees (id long, name string, salary double) TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='`+filepath.Join(tmp, "emp.parquet")+`');
		 CREATE TABLE lake.raw TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='`+filepath.Join(tmp, "raw.parquet")+`')`)
	require.Equal(t, 0, code, stderr)
	pipeline := func(filter, sel string) string {
		return writePipeline(t, tmp, `
name: columns
steps:
  - id: emp
    read: hr.employees
  - id: raw
    read: lake.raw
  - from: emp
    filter: `+filter+`
  - select: [`+sel+`]
  - from: raw
    select: [whatever]
`)
	}
	bad := pipeline("salry > 10", "id, nmae")
	code, stdout, stderr := runCLI(t, env, "run", bad, "--dry-run")
	require.Equal(t, 1, code, stderr)
	require.Empty(t, stdout, "no plan for a pipeline that cannot run")
	require.Contains(t, stderr, `step 3 (filter): line 1, column 1: unknown column salry (did you mean salary?)`)
	require.NotContains(t, stderr, "nmae", "a step after a mistake is not checked against a guess")
	require.NotContains(t, stderr, "whatever")

	good := pipeline("salary > 10", "id, name")
	code, stdout, stderr = runCLI(t, env, "run", good, "--dry-run")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "columns: checked against the declared columns of hr.employees\n")
	require.Contains(t, stdout, `columns: step 2 "raw" (read) reads lake.raw, which declares no columns: the steps that use its columns are not checked`)
}
