package fileio

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// TestStreamsDoNotLeak runs every streaming reader and writer against a
// checked allocator: whole streams, streams released half-read and
// cancelled streams all give every buffer back.
func TestStreamsDoNotLeak(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&gen, 200, 5))
	dir := t.TempDir()
	ndjson := filepath.Join(dir, "in.ndjson")
	require.NoError(t, os.WriteFile(ndjson, gen.Bytes(), 0o644))
	src, err := jsonframe.ReadNDJSON(gen.Bytes(), jsonframe.Options{})
	require.NoError(t, err)
	defer src.Release()
	rows := src.NumRows()
	// Files of every format, written by the stream writers.
	files := map[string]string{"ndjson": ndjson}
	for _, format := range []string{"parquet", "arrow", "csv", "json"} {
		path := filepath.Join(dir, "out."+format)
		s := src.Stream()
		n, err := WriteStream(context.Background(), path, s, FileOptions{})
		s.Release()
		require.NoError(t, err, format)
		require.Equal(t, src.NumRows(), n)
		files[format] = path
	}
	open := map[string]func(ctx context.Context, mem memory.Allocator) (dataframe.Stream, error){
		"ndjson": func(ctx context.Context, mem memory.Allocator) (dataframe.Stream, error) {
			return jsonframe.OpenNDJSON(ctx, ndjson, jsonframe.Options{Allocator: mem, BlockBytes: 4096})
		},
		"csv": func(ctx context.Context, mem memory.Allocator) (dataframe.Stream, error) {
			return csvframe.Open(ctx, files["csv"], csvframe.Options{Allocator: mem})
		},
		"parquet": func(ctx context.Context, mem memory.Allocator) (dataframe.Stream, error) {
			return OpenParquet(ctx, files["parquet"], mem)
		},
		"arrow": func(ctx context.Context, mem memory.Allocator) (dataframe.Stream, error) {
			return OpenArrowIPC(ctx, files["arrow"], mem)
		},
		"frame": func(ctx context.Context, mem memory.Allocator) (dataframe.Stream, error) {
			f, err := jsonframe.ReadNDJSON(gen.Bytes(), jsonframe.Options{Allocator: mem})
			if err != nil {
				return nil, err
			}
			defer f.Release()
			return f.Stream(), nil
		},
	}
	for name, openFn := range open {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Whole stream, through every writer.
			for _, format := range []string{"parquet", "arrow", "csv", "ndjson", "json"} {
				mem := frametest.CheckedAlloc(t)
				s, err := openFn(context.Background(), mem)
				require.NoError(t, err)
				n, err := WriteStreamTo(context.Background(), io.Discard, s, format, FileOptions{})
				require.NoError(t, err)
				require.Equal(t, rows, n, format)
				s.Release()
			}
			// Released after one batch.
			mem := frametest.CheckedAlloc(t)
			s, err := openFn(context.Background(), mem)
			require.NoError(t, err)
			require.True(t, s.Next())
			s.Release()
			// Cancelled while being read.
			mem = frametest.CheckedAlloc(t)
			ctx, cancel := context.WithCancel(context.Background())
			s, err = openFn(ctx, mem)
			require.NoError(t, err)
			cancel()
			for s.Next() {
			}
			if name != "frame" {
				require.ErrorIs(t, s.Err(), context.Canceled)
			}
			s.Release()
		})
	}
}

// TestWriteStreamCancelledLeavesNothing: a write stopped by its context
// leaves neither the target nor a temporary file.
func TestWriteStreamCancelledLeavesNothing(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&gen, 500, 9))
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ndjson")
	require.NoError(t, os.WriteFile(in, gen.Bytes(), 0o644))
	for _, format := range []string{"parquet", "arrow", "csv", "ndjson", "json"} {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := jsonframe.OpenNDJSON(ctx, in, jsonframe.Options{BlockBytes: 4096})
		require.NoError(t, err)
		// Cancel once the first batch is written: the writer is mid-file.
		cs := &cancelAfter{Stream: s, n: 1, cancel: cancel}
		_, err = WriteStream(ctx, filepath.Join(dir, "out."+format), cs, FileOptions{})
		require.ErrorIs(t, err, context.Canceled, format)
		s.Release()
		cancel()
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the input is left: %v", entries)
}

type cancelAfter struct {
	dataframe.Stream
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Next() bool {
	if c.n == 0 {
		c.cancel()
	}
	c.n--
	return c.Stream.Next()
}

// TestConvertMemoryDoesNotGrowWithInput streams N and 4N generated records
// from NDJSON into Parquet and compares the peaks: the Arrow memory live at
// any time (exact, from a checked allocator) and the live Go heap sampled
// every few batches. A frame-at-once conversion peaks about 4× higher on 4N.
func TestConvertMemoryDoesNotGrowWithInput(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~40 MB")
	}
	peak := func(rows int) (arrowPeak, heapPeak uint64) {
		var gen bytes.Buffer
		require.NoError(t, datagen.GenNDJSON(&gen, rows, 11))
		path := frametest.WriteTemp(t, "in.ndjson", gen.Bytes())
		gen = bytes.Buffer{}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		// Blocks much smaller than the inputs: the pipeline holds a few
		// blocks in flight, which must be a small part of N.
		s, err := jsonframe.OpenNDJSON(context.Background(), path, jsonframe.Options{Allocator: mem, BlockBytes: 64 << 10})
		require.NoError(t, err)
		defer s.Release()
		ps := &peakStream{Stream: s, mem: mem, base: base}
		// Row groups smaller than the inputs: a row group's pages are the
		// one buffer that grows up to its size by design.
		_, err = WriteStreamTo(context.Background(), io.Discard, ps, "parquet", FileOptions{Parquet: ParquetOptions{RowGroupRows: 1000}})
		require.NoError(t, err)
		return ps.arrow, ps.heap
	}
	a1, h1 := peak(4000)
	a4, h4 := peak(16000)
	t.Logf("arrow peak %d → %d bytes, heap peak %d → %d bytes", a1, a4, h1, h4)
	require.Less(t, a4, a1*3/2, "live Arrow memory grew with the input")
	require.Less(t, h4, h1*3/2, "the heap grew with the input")
}

type peakStream struct {
	dataframe.Stream
	mem        *memory.CheckedAllocator
	base       uint64
	arrow      uint64
	heap       uint64
	ms         runtime.MemStats
	batchCount int
}

func (p *peakStream) Next() bool {
	ok := p.Stream.Next()
	p.arrow = max(p.arrow, uint64(p.mem.CurrentAlloc()))
	if p.batchCount++; p.batchCount%16 == 0 {
		// Live memory, not garbage awaiting the collector.
		runtime.GC()
		runtime.ReadMemStats(&p.ms)
		if p.ms.HeapAlloc > p.base {
			p.heap = max(p.heap, p.ms.HeapAlloc-p.base)
		}
	}
	return ok
}

// TestFastParquetCodecsRoundTrip: after the explicit opt-in, zstd, gzip
// and snappy files written with the replacement encoders read back the same.
// Not parallel: registering codecs writes Arrow's process-wide registry,
// which parallel tests' Parquet writers read (the binary registers them in
// main, before any write).
func TestFastParquetCodecsRoundTrip(t *testing.T) {
	UseFastParquetCodecs()
	UseFastParquetCodecs() // idempotent
	mem := frametest.CheckedAlloc(t)
	src := fixtures.NestedFrame(t, mem, 2)
	defer src.Release()
	for _, codec := range []string{"zstd", "gzip", "snappy"} {
		path := filepath.Join(t.TempDir(), "x.parquet")
		require.NoError(t, WriteFile(t.Context(), path, src, FileOptions{Parquet: ParquetOptions{Compression: codec}}))
		back, err := ReadFile(t.Context(), path, FileOptions{Allocator: mem})
		require.NoError(t, err)
		frametest.RequireFramesEqual(t, src, back)
		back.Release()
	}
}
