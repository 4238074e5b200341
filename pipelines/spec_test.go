package pipelines

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseGood(t *testing.T) {
	t.Parallel()
	src := `
name: yt
catalog: ./cat
settings:
  svc.restapi.accessKey: ${YT_KEY:dev-key}
  svc.logging.level: CONSOLE
steps:
  - id: raw
    read:
      type: RESTAPI
      properties:
        svc.restapi.url: ${BASE}/subscriptions
        svc.restapi.parse.payload: true
  - id: items
    explode: items
  - select:
      - snippet.title AS title
      - path: snippet.resourceId.channelId
        as: channel
      - id
  - filter: title IS NOT NULL AND channel <> 'x'
  - rename: {title: name}
  - limit: ${N:10}
  - flatten: {}
  - write:
      file: out/subs.parquet
      compression: zstd
  - sql: SELECT name FROM items_sel WHERE name = 'a' LIMIT 3
    id: q
  - id: items_sel
    from: items
    select: [snippet]
  - write: {table: lake.subs, properties: {svc.parquet.mode: append}}
  - from: raw
    write: {file: out/parts, partition_by: [kind]}
`
	p, err := Parse("yt.yaml", []byte(src), env(map[string]string{"BASE": "http://127.0.0.1:1"}))
	require.NoError(t, err)
	require.Equal(t, "yt", p.Name)
	require.Equal(t, "./cat", p.Catalog)
	require.Equal(t, []Setting{
		{Key: "svc.restapi.accessKey", Value: "dev-key", Pos: Pos{5, 3}},
		{Key: "svc.logging.level", Value: "CONSOLE", Pos: Pos{6, 3}},
	}, p.Settings)
	require.Len(t, p.Steps, 12)

	raw := p.Steps[0]
	require.Equal(t, KindRead, raw.Kind)
	require.Equal(t, "RESTAPI", raw.Read.Type)
	require.Equal(t, map[string]string{"svc.restapi.url": "http://127.0.0.1:1/subscriptions", "svc.restapi.parse.payload": "true"}, raw.Read.Properties)
	require.Equal(t, []string{"svc.restapi.url", "svc.restapi.parse.payload"}, raw.Read.PropertyOrder)

	require.Equal(t, "items", p.Steps[1].Explode.Path)
	require.Equal(t, []string{"raw"}, p.Steps[1].Inputs())
	require.Equal(t, []Projection{{"snippet.title", "title"}, {"snippet.resourceId.channelId", "channel"}, {"id", ""}}, p.Steps[2].Select.Columns)
	require.Equal(t, "step_3", p.Steps[2].ID)
	require.Equal(t, []string{"step_3"}, p.Steps[3].Inputs())
	require.Equal(t, []RenamePair{{From: "title", To: "name", Pos: Pos{22, 14}}}, p.Steps[4].Rename.Pairs)
	require.Equal(t, int64(10), p.Steps[5].Limit.N)
	require.NotNil(t, p.Steps[6].Flatten)
	w := p.Steps[7].Write
	require.Equal(t, "out/subs.parquet", w.File)
	require.Equal(t, "parquet", w.Format)
	require.Equal(t, "zstd", w.Compression)

	q := p.Steps[8]
	require.Equal(t, "q", q.ID)
	require.Equal(t, []string{"items_sel"}, q.Inputs())
	require.Equal(t, "items_sel", q.Query().From)
	require.Equal(t, []string{"items"}, p.Steps[9].Inputs())
	require.Equal(t, "lake.subs", p.Steps[10].Write.Table)
	require.Equal(t, []string{"items_sel"}, p.Steps[10].Inputs())
	require.Equal(t, []string{"kind"}, p.Steps[11].Write.PartitionBy)
	require.Equal(t, "parquet", p.Steps[11].Write.Format)
	require.Equal(t, []string{"raw"}, p.Steps[11].Inputs())

	// items_sel (step 10) runs before q (step 9), which reads it.
	var order []string
	for _, s := range p.Order() {
		order = append(order, s.ID)
	}
	require.Equal(t, []string{"raw", "items", "step_3", "step_4", "step_5", "step_6", "step_7", "step_8", "items_sel", "q", "step_11", "step_12"}, order)
}

func TestParseEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		env         map[string]string
		want        string
		wantErr     string
	}{
		{"plain", "abc", nil, "abc", ""},
		{"set", "${A}", map[string]string{"A": "x"}, "x", ""},
		{"default unused", "${A:d}", map[string]string{"A": "x"}, "x", ""},
		{"default used", "${A:d}", nil, "d", ""},
		{"default with colon", "${A:sqlite:x.db}", nil, "sqlite:x.db", ""},
		{"empty default", "a${A:}b", nil, "ab", ""},
		{"several", "${A}-${B:2}", map[string]string{"A": "1"}, "1-2", ""},
		{"escaped", "$${A}", map[string]string{"A": "x"}, "${A}", ""},
		{"secret references are the session's", "Bearer ${env:TOKEN} ${file:/run/k}", map[string]string{"env": "no"}, "Bearer ${env:TOKEN} ${file:/run/k}", ""},
		{"unset", "${MISSING}", nil, "", "line 1, column 7: name: environment variable MISSING is not set"},
		{"unterminated", "${A", nil, "", "unterminated ${"},
		{"bad name", "${1A}", nil, "", `"1A" is not an environment variable name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := "name: '" + tt.value + "'\nsteps:\n  - read: a.b\n"
			p, err := Parse("", []byte(src), env(tt.env))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.ErrorIs(t, err, ErrInvalid)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, p.Name)
		})
	}
}

// TestParseBad checks that each kind of mistake is reported with its line
// and column.
func TestParseBad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "empty pipeline file"},
		{"not yaml", "name: [a\n", "p.yaml: line 2: invalid YAML: did not find expected ',' or ']'"},
		{"env in flow mapping", "name: a\nsteps:\n  - read: {type: X, properties: {p: ${V}}}\n", `line 3: invalid YAML: did not find expected ',' or '}' (inside {…}, quote values that use ${VAR}: "${VAR}")`},
		{"bad indentation", "name: a\nsteps:\n  - read: a.b\n   limit: 3\n", "p.yaml: line 3: invalid YAML: did not find expected '-' indicator"},
		{"unclosed flow", "name: a\nsteps:\n  - read: {table: a.b\n  - limit: 3\n", "p.yaml: line 3: invalid YAML: did not find expected ',' or '}'"},
		{"not a mapping", "- a\n", "p.yaml: line 1, column 1: pipeline: want a mapping, got a list"},
		{"unknown top key", "name: a\nstep:\n  - read: a.b\n", "p.yaml: line 2, column 1: pipeline: unknown key \"step\" (want one of: name, catalog, settings, steps)"},
		{"missing name", "steps:\n  - read: a.b\n", "p.yaml: line 1, column 1: pipeline: missing required key \"name\""},
		{"missing steps", "name: a\n", "line 1, column 1: pipeline: missing required key \"steps\""},
		{"empty steps", "name: a\nsteps: []\n", "line 2, column 8: steps: a pipeline needs at least one step"},
		{"steps not list", "name: a\nsteps: {read: a}\n", "line 2, column 8: steps: want a list of steps, got a mapping"},
		{"duplicate key", "name: a\nname: b\nsteps:\n  - read: a.b\n", "line 2, column 1: pipeline: duplicate key \"name\""},
		{"name wrong type", "name: [a]\nsteps:\n  - read: a.b\n", "line 1, column 7: name: want a string, got a list"},
		{"unknown kind", "name: a\nsteps:\n  - reed: a.b\n", "line 3, column 5: step 1: unknown step kind \"reed\" (did you mean \"read\"?) (want one of: read, sql, select, filter, explode, flatten, rename, limit, aggregate, sort, join, distinct, with_columns, write)"},
		{"two kinds", "name: a\nsteps:\n  - read: a.b\n    limit: 3\n", "line 4, column 5: step 1: has two kinds, \"read\" and \"limit\""},
		{"no kind", "name: a\nsteps:\n  - id: x\n", "line 3, column 5: step 1: missing the step kind"},
		{"bad id", "name: a\nsteps:\n  - id: my-step\n    read: a.b\n", "line 3, column 9: step 1: id \"my-step\""},
		{"limit not int", "name: a\nsteps:\n  - read: a.b\n  - limit: ten\n", "line 4, column 12: step 2 (limit): want an integer, got \"ten\""},
		{"limit float", "name: a\nsteps:\n  - read: a.b\n  - limit: 1.5\n", "line 4, column 12: step 2 (limit): want an integer, got \"1.5\""},
		{"limit negative", "name: a\nsteps:\n  - read: a.b\n  - limit: -1\n", "line 4, column 12: step 2 (limit): -1 is negative"},
		{"read unknown key", "name: a\nsteps:\n  - read: {tabel: a.b}\n", "line 3, column 12: step 1 (read): unknown key \"tabel\" (want one of: table, type, properties)"},
		{"read nothing", "name: a\nsteps:\n  - read: {properties: {a: b}}\n", "line 3, column 11: step 1 (read): missing \"table\""},
		{"read both", "name: a\nsteps:\n  - read: {table: a.b, type: X}\n", "give \"table\" or \"type\", not both"},
		{"props not scalar", "name: a\nsteps:\n  - read:\n      type: X\n      properties:\n        a: [1]\n", "line 6, column 12: step 1 (read): properties.a: want a string, got a list"},
		{"select empty", "name: a\nsteps:\n  - read: a.b\n  - select: []\n", "line 4, column 13: step 2 (select): select at least one path"},
		{"select bad key", "name: a\nsteps:\n  - read: a.b\n  - select:\n      - {path: a, alias: b}\n", "line 5, column 19: step 2 (select): unknown key \"alias\" (want one of: path, as)"},
		{"select bad path", "name: a\nsteps:\n  - read: a.b\n  - select: [a..b]\n", "line 4, column 14: step 2 (select): \"a..b\" is not a column path"},
		{"flatten options", "name: a\nsteps:\n  - read: a.b\n  - flatten: {depth: 2}\n", "line 4, column 14: step 2 (flatten): takes no options"},
		{"rename list", "name: a\nsteps:\n  - read: a.b\n  - rename: [a]\n", "line 4, column 13: step 2 (rename): want a mapping, got a list"},
		{"write nowhere", "name: a\nsteps:\n  - read: a.b\n  - write: {format: csv}\n", "line 4, column 12: step 2 (write): missing \"file\", \"table\" or \"type\""},
		{"write bad format", "name: a\nsteps:\n  - read: a.b\n  - write: {file: x, format: xml}\n", "line 4, column 30: step 2 (write): format \"xml\""},
		{"write unknown ext", "name: a\nsteps:\n  - read: a.b\n  - write: out.txt\n", "line 4, column 12: step 2 (write): cannot tell the format of \"out.txt\""},
		{"bad compression", "name: a\nsteps:\n  - read: a.b\n  - write: {file: x.parquet, compression: lz0}\n", "line 4, column 43: step 2 (write): compression \"lz0\": want one of snappy, zstd, gzip, brotli, none"},
		{"partition csv", "name: a\nsteps:\n  - read: a.b\n  - write: {file: x.csv, partition_by: [k]}\n", "partition_by needs format parquet, not csv"},
		{"filter empty", "name: a\nsteps:\n  - read: a.b\n  - filter: ''\n", "line 4, column 13: step 2 (filter): must not be empty"},
		// Validation: positions of the step or of from:.
		{"first needs input", "name: a\nsteps:\n  - limit: 3\n", "line 3, column 5: step 1 (limit): has no input"},
		{"bad from", "name: a\nsteps:\n  - id: src\n    read: a.b\n  - from: sorce\n    limit: 1\n", "line 5, column 11: step 2 (limit): from: no step has the id \"sorce\""},
		{"from case", "name: a\nsteps:\n  - id: src\n    read: a.b\n  - from: SRC\n    limit: 1\n", `(did you mean "src"?)`},
		{"read with from", "name: a\nsteps:\n  - id: x\n    read: a.b\n  - from: x\n    read: a.c\n", "line 5, column 11: step 2 (read): a read step takes no input"},
		{"duplicate id", "name: a\nsteps:\n  - id: x\n    read: a.b\n  - id: x\n    read: a.c\n", "line 5, column 5: step 2: id \"x\" is already the id of step 1"},
		{"auto id clash", "name: a\nsteps:\n  - read: a.b\n  - id: step_1\n    read: a.c\n", "id \"step_1\" is already the id of step 1"},
		{"sql syntax", "name: a\nsteps:\n  - read: a.b\n  - sql: SELECT a FROM step_1 WHERE\n", "line 4, column 10: step 2 (sql): syntax error at line 1, column 27 of the query: "},
		{"sql unknown from", "name: a\nsteps:\n  - read: a.b\n  - sql: SELECT a FROM nothere\n", "line 4, column 10: step 2 (sql): FROM nothere: no step has that id"},
		{"sql with from", "name: a\nsteps:\n  - read: a.b\n  - from: step_1\n    sql: SELECT a FROM step_1\n", "name the input in the query's FROM"},
		{"filter syntax", "name: a\nsteps:\n  - read: a.b\n  - filter: a = = 1\n", "line 4, column 13: step 2 (filter): syntax error at line 1, column 5 of the expression"},
		{"cycle", "name: a\nsteps:\n  - read: a.b\n  - id: x\n    from: y\n    limit: 1\n  - id: y\n    from: x\n    limit: 2\n", "steps form a cycle: \"x\" reads from \"y\", which reads from \"x\""},
		{"self cycle", "name: a\nsteps:\n  - read: a.b\n  - id: x\n    from: x\n    limit: 1\n", "steps form a cycle: \"x\" reads from \"x\""},
		{"same output twice", "name: a\nsteps:\n  - read: a.b\n  - write: o.csv\n  - write: ./o.csv\n", "step 3 (write): ./o.csv is also written by step 2 (write)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("p.yaml", []byte(tt.src), env(nil))
			require.Error(t, err)
			require.ErrorContains(t, err, tt.want)
			var pe *Error
			require.True(t, errors.As(err, &pe), "want a *pipelines.Error, got %T", err)
		})
	}
}

func TestParseFileMissing(t *testing.T) {
	t.Parallel()
	_, err := ParseFile(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestParseExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("examples/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		_, err := ParseFile(f, env(nil))
		require.NoError(t, err, f)
	}
}

func TestWritePlanGolden(t *testing.T) {
	t.Parallel()
	src := `name: plan_demo
settings:
  svc.restapi.accessKey: s3cr3t-value
steps:
  - id: raw
    read:
      type: RESTAPI
      properties:
        svc.restapi.url: http://127.0.0.1:9/x?key=s3cr3t-value
        svc.restapi.header.Authorization: Bearer tok123
  - id: items
    explode: items
  - select: [id, snippet.title AS title]
  - filter: |
      title IS NOT NULL
        AND id <> 'x'
  - write: {file: out/a.parquet}
  - sql: SELECT title FROM items LIMIT 5
  - write: {table: lake.t}
`
	p, err := Parse("plan.yaml", []byte(src), env(nil))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, WritePlan(&b, p, map[string]string{"svc.logging.level": "CONSOLE"}))
	require.NotContains(t, b.String(), "s3cr3t")
	require.NotContains(t, b.String(), "tok123")
	golden(t, "plan.golden", b.String())
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}
