package fileio

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	parquetgo "github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// decimalNDJSON has the columns whose Parquet form matters for Spark-exact
// inference: decimals beyond int64 (top-level and in a list) and nested
// lists.
const decimalNDJSON = `{"d":92233720368547758070,"l":[922337203685477580700,-1],"n":[[1,2],[3]],"s":{"x":-99999999999999999999999999999999999999}}
{"d":-1,"l":[],"n":null,"s":{"x":5}}
{"d":null,"l":null,"n":[[],[4]],"s":null}
`

const decimalSchema = "root\n" +
	" |-- d: decimal(20,0) (nullable = true)\n" +
	" |-- l: array (nullable = true)\n" +
	" |    |-- element: decimal(21,0) (containsNull = true)\n" +
	" |-- n: array (nullable = true)\n" +
	" |    |-- element: array (containsNull = true)\n" +
	" |    |    |-- element: long (containsNull = true)\n" +
	" |-- s: struct (nullable = true)\n" +
	" |    |-- x: decimal(38,0) (nullable = true)\n"

var decimalRows = []string{
	`{"d":92233720368547758070,"l":[922337203685477580700,-1],"n":[[1,2],[3]],"s":{"x":-99999999999999999999999999999999999999}}`,
	`{"d":-1,"l":[],"n":null,"s":{"x":5}}`,
	`{"d":null,"l":null,"n":[[],[4]],"s":null}`,
}

func writeDecimalParquet(t *testing.T) []byte {
	t.Helper()
	f, err := jsonframe.ReadNDJSON([]byte(decimalNDJSON), jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, decimalSchema, dataframe.SchemaString(f.Schema()))
	require.Equal(t, decimalRows, frametest.RowsJSON(t, f))
	var buf bytes.Buffer
	require.NoError(t, WriteParquet(&buf, f, ParquetOptions{}))
	return buf.Bytes()
}

// flbaInt reads a Parquet DECIMAL stored as big-endian two's complement.
func flbaInt(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

// TestParquetDecimalByParquetGo checks that an independent Parquet reader
// sees DECIMAL logical types with the inferred precision and the exact
// values, and nested lists with the right shape; and that we read the file
// back to the same frame.
func TestParquetDecimalByParquetGo(t *testing.T) {
	t.Parallel()
	raw := writeDecimalParquet(t)
	pf, err := parquetgo.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	require.Equal(t, int64(3), pf.NumRows())

	prec := map[string]int32{}
	for _, path := range pf.Schema().Columns() {
		leaf, ok := pf.Schema().Lookup(path...)
		require.True(t, ok)
		if lt := leaf.Node.Type().LogicalType(); lt != nil {
			if d, ok := lt.Value.(*pqformat.DecimalType); ok {
				require.Equal(t, int32(0), d.Scale, path)
				prec[path[0]] = d.Precision
			}
		}
	}
	require.Equal(t, map[string]int32{"d": 20, "l": 21, "s": 38}, prec)

	rows := make([]parquetgo.Row, 3)
	n, _ := pf.RowGroups()[0].Rows().ReadRows(rows)
	require.Equal(t, 3, n)
	col := func(name string) int {
		leaf, ok := pf.Schema().Lookup(name)
		if !ok {
			leaf, ok = pf.Schema().Lookup(name, "list", "element")
		}
		if !ok {
			leaf, ok = pf.Schema().Lookup(name, "x")
		}
		require.True(t, ok, name)
		return leaf.ColumnIndex
	}
	values := func(row parquetgo.Row, c int) []string {
		var out []string
		for _, v := range row {
			if v.Column() != c {
				continue
			}
			switch {
			case v.IsNull():
				out = append(out, "null")
			case v.Kind() == parquetgo.Int64:
				out = append(out, big.NewInt(v.Int64()).String())
			default:
				out = append(out, flbaInt(v.ByteArray()).String())
			}
		}
		return out
	}
	require.Equal(t, []string{"92233720368547758070"}, values(rows[0], col("d")))
	require.Equal(t, []string{"-1"}, values(rows[1], col("d")))
	require.Equal(t, []string{"null"}, values(rows[2], col("d")))
	require.Equal(t, []string{"922337203685477580700", "-1"}, values(rows[0], col("l")))
	require.Equal(t, []string{"-99999999999999999999999999999999999999"}, values(rows[0], col("s")))
	require.Equal(t, []string{"5"}, values(rows[1], col("s")))

	nested, ok := pf.Schema().Lookup("n", "list", "element", "list", "element")
	require.True(t, ok)
	require.Equal(t, []string{"1", "2", "3"}, values(rows[0], nested.ColumnIndex))
	require.Equal(t, []string{"null"}, values(rows[1], nested.ColumnIndex)) // a null list
	var reps []int
	for _, v := range rows[2] {
		if v.Column() == nested.ColumnIndex {
			reps = append(reps, v.RepetitionLevel())
		}
	}
	require.Equal(t, []int{0, 1}, reps) // [[], [4]]: an empty inner list, then a new inner list

	path := filepath.Join(t.TempDir(), "d.parquet")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	back, err := ReadParquet(t.Context(), path, nil)
	require.NoError(t, err)
	defer back.Release()
	require.Equal(t, decimalSchema, dataframe.SchemaString(back.Schema()))
	require.Equal(t, decimalRows, frametest.RowsJSON(t, back))
}

// TestParquetDecimalByDuckDB reads the same file with DuckDB when node and
// the npm package @duckdb/node-api are installed: SLUICE_DUCKDB_NODE_DIR
// names a directory whose node_modules holds it (bench/duckdb/compare.sh
// shows the install).
func TestParquetDecimalByDuckDB(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("SLUICE_DUCKDB_NODE_DIR")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		t.Skip("DuckDB check skipped: set SLUICE_DUCKDB_NODE_DIR to a directory with node_modules/@duckdb/node-api (and have node on PATH)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		t.Skipf("DuckDB check skipped: %v", err)
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "d.parquet")
	require.NoError(t, os.WriteFile(file, writeDecimalParquet(t), 0o644))
	script := filepath.Join(tmp, "check.mjs")
	require.NoError(t, os.WriteFile(script, []byte(`
import { createRequire } from 'node:module';
const require = createRequire(process.argv[2] + '/');
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const con = await (await DuckDBInstance.create(':memory:')).connect();
const lit = "'" + process.argv[3].replaceAll("'", "''") + "'";
const desc = await con.runAndReadAll('DESCRIBE SELECT * FROM read_parquet(' + lit + ')');
const rows = await con.runAndReadAll('SELECT d::VARCHAR, l::VARCHAR, n::VARCHAR, s.x::VARCHAR FROM read_parquet(' + lit + ')');
console.log(JSON.stringify({
  types: desc.getRows().map((r) => r[0] + ' ' + r[1]),
  rows: rows.getRows().map((r) => r.map((v) => v === null ? null : String(v))),
}));
`), 0o644))
	out, err := exec.Command(node, script, dir, file).CombinedOutput()
	require.NoError(t, err, string(out))
	var got struct {
		Types []string
		Rows  [][]*string
	}
	require.NoError(t, json.Unmarshal(out, &got), string(out))
	require.Equal(t, []string{"d DECIMAL(20,0)", "l DECIMAL(21,0)[]", "n BIGINT[][]", "s STRUCT(x DECIMAL(38,0))"}, got.Types)
	str := func(s string) *string { return &s }
	require.Equal(t, [][]*string{
		{str("92233720368547758070"), str("[922337203685477580700, -1]"), str("[[1, 2], [3]]"), str("-99999999999999999999999999999999999999")},
		{str("-1"), str("[]"), nil, str("5")},
		{nil, nil, str("[[], [4]]"), nil},
	}, got.Rows)
}
