package pipelines_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/pipelines"
)

// Each transforming step over a small NDJSON input; expected rows are what
// Spark gives for the same DataFrame operations.
func TestTransformSteps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	emp := writeNDJSON(t, dir, "emp.ndjson", `{"dept":1,"name":"ann","sal":100}
{"name":"bob","dept":1,"sal":50}
{"name":"cy","dept":2,"sal":null}
{"name":"cy","dept":2,"sal":null}
`)
	depts := writeNDJSON(t, dir, "depts.ndjson", `{"id":1,"title":"eng"}
{"id":3,"title":"ops"}
`)
	read := `
name: t
steps:
  - id: emp
    read: {type: PARQUET, properties: {svc.parquet.path: "` + emp + `"}}
  - id: depts
    read: {type: PARQUET, properties: {svc.parquet.path: "` + depts + `"}}
`
	for _, tc := range []struct {
		name, steps string
		want        []string
	}{
		{"aggregate", `  - from: emp
    aggregate: {group_by: [dept], aggregates: {n: count(*), total: sum(sal), top: max(name)}}
  - sort: [dept]
`, []string{`{"dept":1,"n":2,"total":150,"top":"bob"}`, `{"dept":2,"n":2,"total":null,"top":"cy"}`}},
		{"sort desc nulls last", `  - from: emp
    sort: [sal desc, name]
`, []string{`{"dept":1,"name":"ann","sal":100}`, `{"dept":1,"name":"bob","sal":50}`, `{"dept":2,"name":"cy","sal":null}`, `{"dept":2,"name":"cy","sal":null}`}},
		{"distinct", `  - from: emp
    distinct: {}
  - sort: [name]
`, []string{`{"dept":1,"name":"ann","sal":100}`, `{"dept":1,"name":"bob","sal":50}`, `{"dept":2,"name":"cy","sal":null}`}},
		{"join left", `  - from: emp
    join: {with: depts, on: emp.dept = depts.id, how: left}
  - select: [name, title]
  - sort: [name]
`, []string{`{"name":"ann","title":"eng"}`, `{"name":"bob","title":"eng"}`, `{"name":"cy","title":null}`, `{"name":"cy","title":null}`}},
		{"with_columns", `  - from: emp
    with_columns:
      sal: coalesce(sal, 0) * 2
      tag: upper(name) || '-' || dept
  - limit: 2
`, []string{`{"dept":1,"name":"ann","sal":200,"tag":"ANN-1"}`, `{"dept":1,"name":"bob","sal":100,"tag":"BOB-1"}`}},
	} {
		res, err := run(t, read+tc.steps, nil, pipelines.Options{})
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, frameRows(t, res.Output), tc.name)
		res.Output.Release()
	}
	for _, tc := range []struct{ name, steps, want string }{
		{"unknown with", "  - from: emp\n    join: {with: dept, on: a = b}\n", `with: no step has the id "dept" (did you mean "depts"?)`},
		{"bad how", "  - from: emp\n    join: {with: depts, on: a = b, how: outer}\n", `how "outer": want inner, left, right or full`},
		{"bad expression", "  - from: emp\n    aggregate:\n      aggregates:\n        n: count(\n", "syntax error at line 1, column 7 of the expression"},
		{"unknown column", "  - from: emp\n    sort: [nme]\n", "unknown column nme (did you mean name?)"},
	} {
		p, err := pipelines.Parse("test.yaml", []byte(read+tc.steps), nil)
		if err == nil {
			_, err = pipelines.Run(context.Background(), p, pipelines.Options{Session: newSession(t)})
		}
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

// writeNDJSON stores rows (JSON lines) as a Parquet file and returns its
// path.
func writeNDJSON(t *testing.T, dir, name, rows string) string {
	t.Helper()
	f, err := jsonframe.ReadNDJSON([]byte(rows), jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	path := filepath.Join(dir, strings.TrimSuffix(name, ".ndjson")+".parquet")
	require.NoError(t, fileio.WriteFile(context.Background(), path, f, fileio.FileOptions{}))
	return path
}

func frameRows(t *testing.T, f *dataframe.Frame) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		out = append(out, string(obj))
		return nil
	}))
	return out
}
