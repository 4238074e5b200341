package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A RESTAPI table read parsed (svc.restapi.parse.payload=true from the
// table, the pipeline's settings or --set) has columns only once read: a
// dry run does not check steps against its default payload column.
func TestRunDryRunParsedRESTAPI(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := map[string]string{"SLUICE_CATALOG": filepath.Join(tmp, "cat")}
	code, _, stderr := runCLI(t, env, "sql", "-e", `
		CREATE TABLE api.parsed TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/t',
		  'svc.restapi.parse.payload'='true');
		CREATE TABLE api.raw TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/t')`)
	require.Equal(t, 0, code, stderr)
	pipeline := func(table, settings string) string {
		return writePipeline(t, tmp, "name: parsed\n"+settings+"steps:\n  - read: {table: "+table+"}\n  - select: [id, subject]\n")
	}

	code, stdout, stderr := runCLI(t, env, "run", pipeline("api.parsed", ""), "--dry-run")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "reads api.parsed, which declares no columns")

	// Payload mode: payload is the one column, and id is not one.
	code, _, stderr = runCLI(t, env, "run", pipeline("api.raw", ""), "--dry-run")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `unknown column "id"`)

	code, _, stderr = runCLI(t, env, "run", pipeline("api.raw", "settings:\n  svc.restapi.parse.payload: \"true\"\n"), "--dry-run")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runCLI(t, env, "run", pipeline("api.raw", ""), "--dry-run", "--set", "svc.restapi.parse.payload=true")
	require.Equal(t, 0, code, stderr)
	code, _, _ = runCLI(t, env, "run", pipeline("api.parsed", ""), "--dry-run", "--set", "svc.restapi.parse.payload=false")
	require.Equal(t, 1, code, "--set wins over the table")
}
