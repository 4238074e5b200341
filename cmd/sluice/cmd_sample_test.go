package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConvertSampleRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ndjson")
	require.NoError(t, os.WriteFile(in, []byte("{\"a\":1}\r{\"a\":2}\r{\"a\":2.5,\"b\":true}\r{\"a\":3}\r"), 0o644))
	out := filepath.Join(dir, "out.ndjson")

	code, stdout, stderr := runSluice(t, "convert", in, out, "--sample-rows", "2")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Regexp(t, `^wrote 4 rows, 1 columns, \d+ bytes to .*out.ndjson; 2 values did not fit the schema sampled from the first 2 records and became null \(first: record on line 3 \(byte offset 21\): field "a": value 2.5 does not fit long\)\n$`, stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "{\"a\":1}\n{\"a\":2}\n{\"a\":null}\n{\"a\":3}\n", string(got))

	// Without the sample every record counts.
	code, stdout, stderr = runSluice(t, "convert", in, "--schema")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "root\n |-- a: double (nullable = true)\n |-- b: boolean (nullable = true)\n", stdout)

	// --strict fails and writes nothing.
	strictOut := filepath.Join(dir, "strict.parquet")
	code, _, stderr = runSluice(t, "convert", in, strictOut, "--sample-rows", "2", "--strict")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `record on line 3 (byte offset 21): field "a": value 2.5 does not fit long inferred from the first 2 records (2 values did not fit)`)
	_, err = os.Stat(strictOut)
	require.True(t, os.IsNotExist(err))

	for _, bad := range [][]string{{"--sample-rows", "-1"}, {"--strict"}} {
		code, _, stderr = runSluice(t, append([]string{"convert", in, "--schema"}, bad...)...)
		require.Equal(t, 2, code, stderr)
	}
	csvIn := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(csvIn, []byte("a\n1\n"), 0o644))
	code, _, stderr = runSluice(t, "convert", csvIn, "--sample-rows", "1")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--sample-rows, --strict and --mode apply to JSON input only")
}

func TestConvertMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Spark's corruptRecords test data.
	in := filepath.Join(dir, "corrupt.ndjson")
	require.NoError(t, os.WriteFile(in, []byte("{\n\n{\"a\":1, b:2}\n{\"a\":{, b:3}\n{\"b\":\"str_b_4\", \"a\":\"str_a_4\", \"c\":\"str_c_4\"}\n]\n"), 0o644))

	code, _, stderr := runSluice(t, "convert", in, "--schema")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "invalid JSON at byte offset 1 (line 1)")

	code, stdout, stderr := runSluice(t, "convert", in, "--schema", "--mode", "permissive")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "root\n |-- _corrupt_record: string (nullable = true)\n |-- a: string (nullable = true)\n |-- b: string (nullable = true)\n |-- c: string (nullable = true)\n", stdout)
	require.Equal(t, "sluice: 4 malformed records kept in _corrupt_record\n", stderr)

	out := filepath.Join(dir, "ok.ndjson")
	code, _, stderr = runSluice(t, "convert", in, out, "--mode", "DROPMALFORMED")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `^wrote 1 rows, 3 columns, \d+ bytes to .*ok.ndjson; 4 malformed records left out\n$`, stderr)

	for _, bad := range [][]string{{"--mode", "lenient"}, {"--mode", "permissive", "--sample-rows", "1"}} {
		code, _, stderr = runSluice(t, append([]string{"convert", in, "--schema"}, bad...)...)
		require.Equal(t, 2, code, stderr)
	}
}

func TestReadSampleRows(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[{"a":1},{"a":"x"},{"a":2}]}`))
	}))
	defer srv.Close()
	args := []string{"read", "adhoc", "--catalog", filepath.Join(t.TempDir(), "cat"), "--type", "restapi",
		"--prop", "svc.restapi.url=" + srv.URL + "/items", "--prop", "svc.restapi.parse.payload=true",
		"--prop", "svc.restapi.records.path=items", "--sample-rows", "1"}
	code, stdout, stderr := datasetCLI(t, "", nil, append(args, "--format", "json")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "{\"a\":1}\n{\"a\":null}\n{\"a\":2}\n", stdout)
	require.Equal(t, "sluice: 1 value did not fit the schema sampled from the first 1 records and became null (first: record at byte offset 23: field \"a\": value \"x\" does not fit long)\n", stderr)

	code, _, stderr = datasetCLI(t, "", nil, append(args, "--strict")...)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `field "a": value "x" does not fit long inferred from the first 1 records`)
}
