package fileio

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// ioBenchNDJSON is ~20 MB of generated NDJSON (GenNDJSON), built once.
var ioBenchNDJSON = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	if err := datagen.GenNDJSON(&buf, 14000, 1); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

func ioBenchFrame(b *testing.B) *dataframe.Frame {
	b.Helper()
	f, err := jsonframe.ReadNDJSON(ioBenchNDJSON(), jsonframe.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkWriteParquet reports MB/s of NDJSON-equivalent input encoded to
// snappy Parquet (frame already in memory).
func BenchmarkWriteParquet(b *testing.B) {
	UseFastParquetCodecs() // as the sluice binary does
	f := ioBenchFrame(b)
	defer f.Release()
	for _, tc := range []struct {
		name string
		o    ParquetOptions
	}{
		{"snappy", ParquetOptions{RowGroupRows: 4096}},
		{"zstd", ParquetOptions{Compression: "zstd", RowGroupRows: 4096}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(ioBenchNDJSON())))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := WriteParquet(io.Discard, f, tc.o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(f.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkNDJSONToParquet is the convert path end to end in memory:
// NDJSON bytes → frame → snappy Parquet.
func BenchmarkNDJSONToParquet(b *testing.B) {
	data := ioBenchNDJSON()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, err := jsonframe.ReadNDJSON(data, jsonframe.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteParquet(io.Discard, f, ParquetOptions{RowGroupRows: 4096}); err != nil {
			b.Fatal(err)
		}
		f.Release()
	}
}

// BenchmarkParquetStreamWriter is the stream writer alone (the batches of
// an in-memory frame, snappy, 128k-row groups): pqarrow's FileWriter, one
// column after the other, against the column-parallel writer with one
// goroutine and with one per CPU. MB/s of NDJSON-equivalent input.
func BenchmarkParquetStreamWriter(b *testing.B) {
	UseFastParquetCodecs()
	f := ioBenchFrame(b)
	defer f.Release()
	schema := f.Schema()
	plans, ok := planLeaves(schema)
	if !ok {
		b.Fatal("the benchmark frame's schema has no leaf plans")
	}
	props, arrProps, err := ParquetOptions{}.writerProps(memory.DefaultAllocator, schema, f.Records()[:1])
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, open func(io.Writer) (parquetEncoder, error)) {
		b.SetBytes(int64(len(ioBenchNDJSON())))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			enc, err := open(io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			for _, rec := range f.Records() {
				if err := enc.write(rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := enc.close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("pqarrow", func(b *testing.B) {
		run(b, func(w io.Writer) (parquetEncoder, error) { return newPqarrowEncoder(w, schema, props, arrProps) })
	})
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("columns-%d", workers), func(b *testing.B) {
			run(b, func(w io.Writer) (parquetEncoder, error) {
				return newColumnWriter(w, schema, plans, props, arrProps, workers)
			})
		})
	}
}
