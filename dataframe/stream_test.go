package dataframe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func collectStream(t testing.TB, s Stream) *Frame {
	t.Helper()
	defer s.Release()
	f, err := Collect(s)
	require.NoError(t, err)
	return f
}

// TestOpenNDJSONMatchesReadNDJSON: the two-pass file stream gives what the
// in-memory reader gives, whatever the block size (blocks of a few bytes cut
// every line apart from its neighbours; long lines grow a block).
func TestOpenNDJSONMatchesReadNDJSON(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, GenNDJSON(&gen, 300, 3))
	tests := []struct {
		name, in string
		path     string
	}{
		{"generated", gen.String(), ""},
		{"widening and new fields", "{\"a\":1}\n{\"a\":2.5,\"b\":[1,2]}\n\n{\"c\":{\"d\":null}}\n{\"a\":null,\"b\":[3.5]}\n", ""},
		{"crlf and blank lines", "{\"a\":\"x\"}\r\n\r\n  \n{\"a\":\"y\"}", ""},
		{"lone cr", "{\"a\":1}\r{\"a\":2}\r\r{\"b\":\"c\"}\r", ""},
		{"arrays of rows and nulls", "[{\"a\":1},{\"a\":2}]\nnull\n{\"a\":3}\n[]\n", ""},
		{"records path per line", "{\"items\":[{\"x\":1}],\"k\":\"v\"}\n{\"items\":null}\n{\"k\":{\"items\":2},\"items\":[{\"x\":2},{\"y\":\"z\"}]}\n", "items"},
		{"scalars", "1\n2\n3.5\n", ""},
		{"invalid utf8", "{\"s\":\"ok\"}\n{\"s\":\"bad \xff byte\"}\n{\"s\":\"é\"}\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		for _, block := range []int{1, 7, 64, 1 << 20} {
			opts := JSONOptions{RecordsPath: tt.path}
			want, err := ReadNDJSON([]byte(tt.in), opts)
			require.NoError(t, err, tt.name)
			path := writeTemp(t, "in.ndjson", []byte(tt.in))
			s, err := openNDJSON(context.Background(), path, opts, block)
			require.NoError(t, err, tt.name)
			require.Equal(t, SchemaString(want.Schema()), SchemaString(s.Schema()), "%s, block %d", tt.name, block)
			got := collectStream(t, s)
			ioRequireFramesEqual(t, want, got)
			want.Release()
			got.Release()
		}
	}
}

// TestOpenNDJSONSyntaxError: the first error in file order is reported with
// its line, as ReadNDJSON reports it, even when a later block also has one.
func TestOpenNDJSONSyntaxError(t *testing.T) {
	t.Parallel()
	in := "{\"a\":1}\n\n{\"a\":2,}\n" + strings.Repeat("{\"a\":3}\n", 50) + "{oops\n"
	_, want := ReadNDJSON([]byte(in), JSONOptions{})
	require.Error(t, want)
	for _, block := range []int{8, 1 << 20} {
		path := writeTemp(t, "bad.ndjson", []byte(in))
		_, err := openNDJSON(context.Background(), path, JSONOptions{}, block)
		require.EqualError(t, err, "reading "+path+": "+want.Error())
		var se *SyntaxError
		require.True(t, errors.As(err, &se))
	}
}

// TestOpenNDJSONFileChanged: a file that changes between the passes is an
// error, never a wrong frame.
func TestOpenNDJSONFileChanged(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "in.ndjson", []byte("{\"a\":1}\n{\"a\":2}\n"))
	s, err := OpenNDJSON(context.Background(), path, JSONOptions{})
	require.NoError(t, err)
	defer s.Release()
	require.NoError(t, os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"), 0o644))
	for s.Next() {
	}
	require.ErrorIs(t, s.Err(), ErrStreamChanged)
}

// TestStreamsDoNotLeak runs every streaming reader and writer against a
// checked allocator: whole streams, streams released half-read and
// cancelled streams all give every buffer back.
func TestStreamsDoNotLeak(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, GenNDJSON(&gen, 200, 5))
	dir := t.TempDir()
	ndjson := filepath.Join(dir, "in.ndjson")
	require.NoError(t, os.WriteFile(ndjson, gen.Bytes(), 0o644))
	src, err := ReadNDJSON(gen.Bytes(), JSONOptions{})
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
	open := map[string]func(ctx context.Context, mem memory.Allocator) (Stream, error){
		"ndjson": func(ctx context.Context, mem memory.Allocator) (Stream, error) {
			return openNDJSON(ctx, ndjson, JSONOptions{Allocator: mem}, 4096)
		},
		"csv": func(ctx context.Context, mem memory.Allocator) (Stream, error) {
			return OpenCSV(ctx, files["csv"], CSVOptions{Allocator: mem})
		},
		"parquet": func(ctx context.Context, mem memory.Allocator) (Stream, error) {
			return OpenParquet(ctx, files["parquet"], mem)
		},
		"arrow": func(ctx context.Context, mem memory.Allocator) (Stream, error) {
			return OpenArrowIPC(ctx, files["arrow"], mem)
		},
		"frame": func(ctx context.Context, mem memory.Allocator) (Stream, error) {
			f, err := ReadNDJSON(gen.Bytes(), JSONOptions{Allocator: mem})
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
				mem := ioCheckedAlloc(t)
				s, err := openFn(context.Background(), mem)
				require.NoError(t, err)
				n, err := WriteStreamTo(context.Background(), io.Discard, s, format, FileOptions{})
				require.NoError(t, err)
				require.Equal(t, rows, n, format)
				s.Release()
			}
			// Released after one batch.
			mem := ioCheckedAlloc(t)
			s, err := openFn(context.Background(), mem)
			require.NoError(t, err)
			require.True(t, s.Next())
			s.Release()
			// Cancelled while being read.
			mem = ioCheckedAlloc(t)
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
	require.NoError(t, GenNDJSON(&gen, 500, 9))
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ndjson")
	require.NoError(t, os.WriteFile(in, gen.Bytes(), 0o644))
	for _, format := range []string{"parquet", "arrow", "csv", "ndjson", "json"} {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := openNDJSON(ctx, in, JSONOptions{}, 4096)
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
	Stream
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
		require.NoError(t, GenNDJSON(&gen, rows, 11))
		path := writeTemp(t, "in.ndjson", gen.Bytes())
		gen = bytes.Buffer{}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		// Blocks much smaller than the inputs: the pipeline holds a few
		// blocks in flight, which must be a small part of N.
		s, err := openNDJSON(context.Background(), path, JSONOptions{Allocator: mem}, 64<<10)
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
	Stream
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

// FuzzBlockReader: blocks are whole lines (each ends at a line break or the
// end of input) and together are exactly the input, whatever the block size.
func FuzzBlockReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n"), uint8(3))
	f.Add([]byte("a\r\nb\rc\n\n"), uint8(1))
	f.Add([]byte("no line break at all"), uint8(4))
	f.Add([]byte(""), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		br := newBlockReader(bytes.NewReader(data), int(size)+1, 2)
		br.lines = true
		var got []byte
		line := 1
		for i := 0; ; i++ {
			b, err := br.next()
			require.NoError(t, err)
			if b == nil {
				break
			}
			require.NotEmpty(t, b.data)
			require.Equal(t, int64(len(got)), b.base)
			require.Equal(t, line, b.line)
			if last := b.data[len(b.data)-1]; last != '\n' && last != '\r' {
				require.Equal(t, len(data), len(got)+len(b.data), "only the last block may end without a line break")
			}
			line += lineOf(b.data, int64(len(b.data))) - 1
			got = append(got, b.data...)
			br.recycle(b)
			require.Less(t, i, len(data)+1)
		}
		require.Equal(t, string(data), string(got))
	})
}

// TestFastParquetCodecsRoundTrip: after the explicit opt-in, zstd and gzip
// files written with the cached encoders read back the same.
func TestFastParquetCodecsRoundTrip(t *testing.T) {
	t.Parallel()
	UseFastParquetCodecs()
	UseFastParquetCodecs() // idempotent
	mem := ioCheckedAlloc(t)
	src := ioNestedFrame(t, mem, 2)
	defer src.Release()
	for _, codec := range []string{"zstd", "gzip"} {
		path := filepath.Join(t.TempDir(), "x.parquet")
		require.NoError(t, WriteFile(path, src, FileOptions{Parquet: ParquetOptions{Compression: codec}}))
		back, err := ReadFile(path, FileOptions{Allocator: mem})
		require.NoError(t, err)
		ioRequireFramesEqual(t, src, back)
		back.Release()
	}
}
