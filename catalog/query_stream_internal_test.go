package catalog

import (
	"context"
	"fmt"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// A Parquet table is a stream to the engine: a plan over it runs more than
// once (each run opens the table again), reads only the named columns, and
// a table read twice in one query (a self-join) is opened twice.
func TestQueryStreamsParquetTables(t *testing.T) {
	t.Parallel()
	rows := make([][]any, 1000)
	for i := range rows {
		rows[i] = []any{int64(i % 10), fmt.Sprint("s", i), float64(i)}
	}
	s, f, path := sessionWithParquet(t, rows)
	defer f.Release()
	_, err := s.ExecuteBatch(context.Background(), "CREATE TABLE p.t TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+path+"')")
	require.NoError(t, err)

	plan := func(text string) (*query.Plan, func()) {
		st, err := sqlparse.ParseOne(text)
		require.NoError(t, err)
		p, release, err := s.compileQuery(context.Background(), st.(*sqlparse.Select).Query)
		require.NoError(t, err)
		return p, release
	}
	p, release := plan("SELECT k, count(*) AS n, sum(x) AS sx FROM p.t WHERE x >= 500 GROUP BY k ORDER BY k LIMIT 2")
	require.Equal(t, "root\n |-- k: long (nullable = true)\n |-- n: long (nullable = true)\n |-- sx: double (nullable = true)\n", dataframe.SchemaString(p.Schema()))
	for run := 0; run < 2; run++ {
		got, err := p.Frame(context.Background())
		require.NoError(t, err)
		require.Equal(t, `[{"k":0,"n":50,"sx":37250.0},{"k":1,"n":50,"sx":37300.0}]`, frameJSON(t, got), "run %d", run)
		got.Release()
	}
	release()

	p, release = plan("SELECT count(*) AS n FROM p.t a JOIN p.t b ON a.k = b.k AND a.x < b.x")
	got, err := p.Frame(context.Background())
	require.NoError(t, err)
	require.Equal(t, `[{"n":49500}]`, frameJSON(t, got))
	got.Release()
	release()

	// Planned but never run: the streams opened at planning are released.
	_, release = plan("SELECT s FROM p.t")
	release()
}

func frameJSON(t *testing.T, f *dataframe.Frame) string {
	t.Helper()
	var b []byte
	require.NoError(t, f.EachRowJSON(func(i int64, obj []byte) error {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, obj...)
		return nil
	}))
	return "[" + string(b) + "]"
}

// A top-N over a Parquet file reads its sort keys first, then the winning
// rows whole by position; over a directory, whose rows have no positions,
// it reads once: either way the rows, ties and NULLs included, are those
// of the ordinary top-N over the same data in memory.
func TestQueryTopNSortKeysFirst(t *testing.T) {
	t.Parallel()
	rows := make([][]any, 1000)
	for i := range rows {
		var x any = float64((i * 7919) % 113)
		if i%17 == 0 {
			x = nil
		}
		rows[i] = []any{int64(i), fmt.Sprint("s", i%31), x}
	}
	s, f, file := sessionWithParquet(t, rows)
	defer f.Release()
	parts := filepath.Join(filepath.Dir(file), "parts")
	require.NoError(t, os.MkdirAll(parts, 0o755))
	require.NoError(t, os.Link(file, filepath.Join(parts, "part-0.parquet")))
	_, err := s.ExecuteBatch(context.Background(), "CREATE TABLE p.t TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+file+"');"+
		"CREATE TABLE p.d TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+parts+"/')")
	require.NoError(t, err)

	for _, q := range []string{
		"SELECT k, s, x FROM %s ORDER BY x DESC LIMIT 10",
		"SELECT k, s, x FROM %s ORDER BY x LIMIT 25",
		"SELECT k, s, x FROM %s ORDER BY x NULLS LAST, s DESC LIMIT 7 OFFSET 3",
		"SELECT s, upper(s) AS u FROM %s ORDER BY x DESC, k LIMIT 5",
		"SELECT k * 2 AS k2, s FROM %s ORDER BY k2 DESC LIMIT 4",
		"SELECT k, s, x FROM %s ORDER BY 2 DESC, 1 LIMIT 6",
	} {
		want, err := SQLFrames(context.Background(), nil, fmt.Sprintf(q, "mem"), map[string]*dataframe.Frame{"mem": f})
		require.NoError(t, err, q)
		for _, table := range []string{"p.t", "p.d"} {
			st, err := sqlparse.ParseOne(fmt.Sprintf(q, table))
			require.NoError(t, err)
			p, release, err := s.compileQuery(context.Background(), st.(*sqlparse.Select).Query)
			require.NoError(t, err)
			if table == "p.t" {
				require.Contains(t, p.Explain(), "(sort keys first)", q)
			} else {
				// A directory's rows have no positions to read the
				// winners by: one pass.
				require.NotContains(t, p.Explain(), "(sort keys first)", q)
			}
			got, err := p.Frame(context.Background())
			require.NoError(t, err, q)
			require.Equal(t, frameJSON(t, want), frameJSON(t, got), "%s over %s", q, table)
			got.Release()
			release()
		}
		want.Release()
	}
}

// sessionWithParquet writes rows (columns k, s, x) as a Parquet file of
// row groups of 64 rows and returns a session, the frame and the path.
func sessionWithParquet(t *testing.T, rows [][]any) (*Session, *dataframe.Frame, string) {
	t.Helper()
	cat, err := Open(t.TempDir())
	require.NoError(t, err)
	f, err := jsonframe.FromValues([]string{"k", "s", "x"}, rows)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "t.parquet")
	out, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, fileio.WriteParquet(out, f, fileio.ParquetOptions{RowGroupRows: 64}))
	require.NoError(t, out.Close())
	return NewSession(cat), f, path
}

// The engine's operators over streamed Parquet tables free every buffer
// they allocate: the late top-N (both passes), the join with its
// build-row grouping, the aggregate, the sort.
func TestQueryStreamsNoLeaks(t *testing.T) {
	t.Parallel()
	rows := make([][]any, 500)
	for i := range rows {
		rows[i] = []any{int64(i % 7), fmt.Sprint("s", i%13), float64(i % 101)}
	}
	s, f, path := sessionWithParquet(t, rows)
	defer f.Release()
	_, err := s.ExecuteBatch(context.Background(), "CREATE TABLE p.t TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+path+"')")
	require.NoError(t, err)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, q := range []string{
		"SELECT k, s, x FROM p.t ORDER BY x DESC, k LIMIT 5",
		"SELECT b.s, count(*), sum(a.x) FROM p.t a JOIN p.t b ON a.k = b.k GROUP BY b.s",
		"SELECT k, count(DISTINCT s), max(x) FROM p.t WHERE x > 10 GROUP BY k ORDER BY k",
		"SELECT a.k, b.x FROM p.t a LEFT JOIN p.t b ON a.x = b.x + 1000 ORDER BY a.k, b.x LIMIT 3",
	} {
		st, err := sqlparse.ParseOne(q)
		require.NoError(t, err)
		r := &sessionTables{s: s}
		p, err := query.Compile(context.Background(), st.(*sqlparse.Select).Query, r, query.Options{Mem: mem})
		require.NoError(t, err, q)
		got, err := p.Frame(context.Background())
		require.NoError(t, err, q)
		require.Positive(t, got.NumRows(), q)
		got.Release()
		r.release()
	}
}
