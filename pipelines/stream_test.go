package pipelines_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/pipelines"
)

// peakAllocator is a checked allocator that remembers the most bytes it
// held at once: how much of the input a pipeline held at its peak.
type peakAllocator struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	peak int
}

func newPeakAllocator() *peakAllocator {
	return &peakAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
}

func (a *peakAllocator) note() {
	a.mu.Lock()
	a.peak = max(a.peak, a.CurrentAlloc())
	a.mu.Unlock()
}

func (a *peakAllocator) Allocate(n int) []byte {
	b := a.CheckedAllocator.Allocate(n)
	a.note()
	return b
}

func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	b = a.CheckedAllocator.Reallocate(n, b)
	a.note()
	return b
}

// fileSession is a catalog session whose table files.events streams an
// NDJSON file (its path in the read's properties) with the test's
// allocator, as a streaming connector does; everything else is the
// catalog's.
type fileSession struct {
	*catalog.Session
	mem memory.Allocator
}

func (s fileSession) ReadStream(ctx context.Context, name string, props map[string]any) (dataframe.Stream, error) {
	if name != "files.events" {
		return s.Session.ReadStream(ctx, name, props)
	}
	// Blocks of 256 KiB of lines: batches of about two thousand records.
	return jsonframe.OpenNDJSON(ctx, props["path"].(string), jsonframe.Options{Allocator: s.mem, BlockBytes: 256 << 10})
}

// writeEvents writes n NDJSON records; the one at bad (if ≥ 0) has a null
// kind.
func writeEvents(t testing.TB, path string, n, bad int) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		kind := fmt.Sprintf("%q", []string{"click", "view", "buy"}[i%3])
		if i == bad {
			kind = "null"
		}
		fmt.Fprintf(w, `{"id":%d,"kind":%s,"user":{"name":"user-%d","age":%d},"tags":["t%d","u%d"],"score":%d.5}`+"\n",
			i, kind, i%1000, 18+i%60, i%7, i%5, i%100)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

const streamingPipeline = `
name: events
steps:
  - read: {table: files.events, properties: {path: "${IN}"}}
  - filter: coalesce(kind, '') <> 'view'
  - with_columns:
      adult: user.age >= 21
      labels: map(kind, score)
  - explode: tags
  - select: [id, kind, user.name AS name, tags, adult, labels, score]
  - write: {file: "${OUT}"}
`

// runStreaming runs streamingPipeline over n generated records (bad as in
// writeEvents) and returns the allocator's peak.
func runStreaming(t *testing.T, dir string, n, bad int) (*pipelines.Result, int, error) {
	in := filepath.Join(dir, fmt.Sprintf("events-%d.ndjson", n))
	writeEvents(t, in, n, bad)
	return runOverEvents(t, streamingPipeline, in, dir)
}

// runOverEvents runs src with ${IN} and ${OUT} (out.parquet in dir) and
// checks that nothing leaked.
func runOverEvents(t *testing.T, src, in, dir string) (*pipelines.Result, int, error) {
	mem := newPeakAllocator()
	p, err := pipelines.Parse("events.yaml", []byte(src), func(k string) string {
		return map[string]string{"IN": in, "OUT": filepath.Join(dir, "out.parquet"), "DIR": dir}[k]
	})
	require.NoError(t, err)
	res, err := pipelines.Run(context.Background(), p, pipelines.Options{
		Session:       fileSession{Session: newSession(t), mem: mem},
		Allocator:     mem,
		DiscardOutput: true,
	})
	mem.AssertSize(t, 0) // nothing leaked, also after a failure
	return res, mem.peak, err
}

func TestRunStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads a few hundred thousand records")
	}
	dir := t.TempDir()
	const small, large = 50_000, 400_000
	_, peakSmall, err := runStreaming(t, dir, small, -1)
	require.NoError(t, err)
	res, peakLarge, err := runStreaming(t, dir, large, -1)
	require.NoError(t, err)

	// Every row is there: 2 of 3 kinds kept, two tags each.
	want := int64(2 * (large - large/3))
	require.Nil(t, res.Output)
	require.Equal(t, want, res.Rows)
	back, err := fileio.ReadFile(context.Background(), filepath.Join(dir, "out.parquet"), fileio.FileOptions{})
	require.NoError(t, err)
	require.Equal(t, want, back.NumRows())
	require.Equal(t, []string{"id", "kind", "name", "tags", "adult", "labels", "score"}, back.ColumnNames())
	whole := dataframe.ByteSize(back)
	back.Release()

	// The large run held about what the small one held — a few batches —
	// and a fraction of its output's size, which a pipeline holding the
	// whole input would exceed.
	t.Logf("peak: %d bytes at %d records, %d at %d; output in memory %d bytes", peakSmall, small, peakLarge, large, whole)
	require.Less(t, peakLarge, 2*peakSmall+(1<<20), "peak grows with the input")
	require.Less(t, int64(peakLarge), whole/8, "the pipeline held much of its output at once")
}

func TestRunStreamErrorLeavesOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads a few hundred thousand records")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.parquet")
	require.NoError(t, os.WriteFile(out, []byte("the previous output"), 0o644))
	// Record 250,000 of 300,000 has a null kind: map(kind, score) fails
	// there, after earlier batches were written to the temporary file.
	_, _, err := runStreaming(t, dir, 300_000, 250_000)
	require.Error(t, err)
	var se *pipelines.StepError
	require.ErrorAs(t, err, &se)
	require.Equal(t, pipelines.KindWithColumns, se.Step.Kind, "%v", err)
	require.ErrorContains(t, err, "cannot use NULL as a map key")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "the previous output", string(got))
	require.ElementsMatch(t, []string{"out.parquet", "events-300000.ndjson"}, listFiles(t, dir), "no temporary file is left")
}

// A limit stops the read before it (its batches after the limit are never
// built), and an output read by two steps is collected once and read twice.
func TestRunLimitStopsAndSharedOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "events.ndjson")
	const n = 100_000
	writeEvents(t, in, n, -1)
	res, _, err := runOverEvents(t, `
name: limit
steps:
  - read: {table: files.events, properties: {path: "${IN}"}}
  - limit: 10
  - write: {file: "${OUT}"}
`, in, dir)
	require.NoError(t, err)
	require.Equal(t, int64(10), res.Rows)
	require.Less(t, res.Steps[0].Rows, int64(n/2), "the read went on after the limit had its rows")

	res, _, err = runOverEvents(t, `
name: shared
steps:
  - id: events
    read: {table: files.events, properties: {path: "${IN}"}}
  - from: events
    filter: kind = 'buy'
  - write: {file: "${DIR}/buy.ndjson"}
  - from: events
    aggregate: {group_by: [kind], aggregates: {n: count(*)}}
  - sort: [kind]
  - write: {file: "${DIR}/counts.ndjson"}
`, in, dir)
	require.NoError(t, err)
	require.Equal(t, int64(n), res.Steps[0].Rows)
	buy := readFile(t, filepath.Join(dir, "buy.ndjson"))
	require.Equal(t, int64(n/3), buy.NumRows())
	buy.Release()
	counts := readFile(t, filepath.Join(dir, "counts.ndjson"))
	defer counts.Release()
	require.Equal(t, []string{`{"kind":"buy","n":33333}`, `{"kind":"click","n":33334}`, `{"kind":"view","n":33333}`}, jsonRows(t, counts))
}

// An sql step reads a step it names twice (a self-join) from one collected
// frame, and a catalog table beside it through the session.
func TestRunSQLSelfJoinAndCatalogTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "events.ndjson")
	writeEvents(t, in, 3000, -1)
	mem := newPeakAllocator()
	sess := fileSession{Session: newSession(t), mem: mem}
	_, err := sess.ExecuteBatch(context.Background(), fmt.Sprintf(
		`CREATE TABLE lake.kinds TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%s/kinds/')`, dir))
	require.NoError(t, err)
	for _, src := range []string{`
name: kinds
steps:
  - read: {table: files.events, properties: {path: "${IN}"}}
  - aggregate: {group_by: [kind], aggregates: {n: count(*)}}
  - write: {table: lake.kinds}
`, `
name: self_join
steps:
  - id: ev
    read: {table: files.events, properties: {path: "${IN}"}}
  - sql: |
      SELECT k.kind, k.n, count(*) AS joined
      FROM ev a JOIN ev b ON a.id = b.id JOIN lake.kinds k ON a.kind = k.kind
      GROUP BY k.kind, k.n ORDER BY k.kind
  - write: {file: "${DIR}/joined.ndjson"}
`} {
		p, err := pipelines.Parse("p.yaml", []byte(src), func(k string) string {
			return map[string]string{"IN": in, "DIR": dir}[k]
		})
		require.NoError(t, err)
		_, err = pipelines.Run(context.Background(), p, pipelines.Options{Session: sess, Allocator: mem, DiscardOutput: true})
		require.NoError(t, err)
	}
	mem.AssertSize(t, 0)
	got := readFile(t, filepath.Join(dir, "joined.ndjson")) // NDJSON's columns come back in name order
	defer got.Release()
	require.Equal(t, []string{`{"joined":1000,"kind":"buy","n":1000}`, `{"joined":1000,"kind":"click","n":1000}`, `{"joined":1000,"kind":"view","n":1000}`}, jsonRows(t, got))
}
