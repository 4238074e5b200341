package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// The fixture lives with the dataframe IO tests (see its NOTICE.md).
const subscriptionsFixture = "../../dataframe/fileio/testdata/io/youtube_subscriptions_by_channel_p1.json"

func TestConvertFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pq := filepath.Join(dir, "subs.parquet")

	// JSON → Parquet, flags after the positionals.
	code, stdout, stderr := runSluice(t, "convert", subscriptionsFixture, pq, "--records-path", "items", "--compression", "zstd")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Regexp(t, `^wrote 5 rows, 4 columns, \d+ bytes to .*subs.parquet\n$`, stderr)

	doc, err := os.ReadFile(subscriptionsFixture)
	require.NoError(t, err)
	want, err := jsonframe.ReadDocument(doc, jsonframe.Options{RecordsPath: "items"})
	require.NoError(t, err)
	defer want.Release()

	// Parquet → printed schema: the JSON's inferred schema, nested kept.
	code, stdout, stderr = runSluice(t, "convert", "--schema", pq)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, dataframe.SchemaString(want.Schema()), stdout)

	// Parquet → NDJSON → Arrow → CSV, each read back by the next step.
	nd := filepath.Join(dir, "subs.ndjson")
	arrowFile := filepath.Join(dir, "subs.arrow")
	csvFile := filepath.Join(dir, "subs.csv")
	for _, step := range [][2]string{{pq, nd}, {nd, arrowFile}, {arrowFile, csvFile}} {
		code, _, stderr = runSluice(t, "convert", step[0], step[1])
		require.Equal(t, 0, code, stderr)
	}
	got, err := fileio.ReadFile(context.Background(), arrowFile, fileio.FileOptions{})
	require.NoError(t, err)
	defer got.Release()
	require.Equal(t, want.NumRows(), got.NumRows())
	require.Equal(t, dataframe.SchemaString(want.Schema()), dataframe.SchemaString(got.Schema()))

	// Printing: NDJSON lines, CSV header, Spark table.
	code, stdout, _ = runSluice(t, "convert", pq, "--format", "json")
	require.Equal(t, 0, code)
	require.Equal(t, 5, strings.Count(stdout, "\n"))
	require.True(t, strings.HasPrefix(stdout, `{"etag":`))
	code, stdout, _ = runSluice(t, "convert", csvFile, "--format", "csv")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "etag,id,kind,snippet\n"))
	code, stdout, _ = runSluice(t, "convert", nd, "--rows", "2")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "+--"))
	require.True(t, strings.HasSuffix(stdout, "only showing top 2 rows\n"), stdout)

	// -o instead of OUT.
	out := filepath.Join(dir, "o.jsonl")
	code, stdout, stderr = runSluice(t, "convert", pq, "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "wrote 5 rows")
}

func TestConvertErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"a": 1, "b": }`), 0o644))
	nd := filepath.Join(dir, "ok.ndjson")
	require.NoError(t, os.WriteFile(nd, []byte("{\"a\":1}\n"), 0o644))
	out := filepath.Join(dir, "out.parquet")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no IN", []string{}, 2, "want IN"},
		{"three positionals", []string{"a.json", "b.csv", "c.csv"}, 2, "got 3 arguments"},
		{"unknown IN extension", []string{"data.xlsx"}, 2, `".xlsx"`},
		{"unknown OUT extension", []string{nd, "out.txt"}, 2, `".txt"`},
		{"bad compression", []string{nd, out, "--compression", "lzo"}, 2, `compression "lzo"`},
		{"records path on ndjson", []string{nd, "--records-path", "items"}, 2, "--records-path applies to .json"},
		{"OUT and --format", []string{nd, out, "--format", "csv"}, 2, "--format"},
		{"bad --format", []string{nd, "--format", "xml"}, 2, `--format "xml"`},
		{"missing IN", []string{filepath.Join(dir, "missing.json")}, 1, "no such file"},
		{"invalid JSON", []string{bad, out}, 1, "byte offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runSluice(t, append([]string{"convert"}, tc.args...)...)
			require.Equal(t, tc.code, code, stderr)
			require.Empty(t, stdout)
			require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
			require.Contains(t, stderr, tc.want)
		})
	}
	_, err := os.Stat(out)
	require.ErrorIs(t, err, os.ErrNotExist, "a failed convert leaves no OUT")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temporary files left")
}
