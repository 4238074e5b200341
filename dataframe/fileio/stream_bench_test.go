package fileio

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// BenchmarkConvertStream is `sluice convert x.ndjson y.parquet` without the
// process: a ~20 MB generated file streamed in two passes into Parquet.
func BenchmarkConvertStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "in.ndjson")
	data := ioBenchNDJSON()
	if env := os.Getenv("SLUICE_BENCH_NDJSON"); env != "" {
		path = env
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(st.Size())
	} else {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := jsonframe.OpenNDJSON(context.Background(), path, jsonframe.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := WriteStreamTo(context.Background(), io.Discard, s, "parquet", FileOptions{}); err != nil {
			b.Fatal(err)
		}
		s.Release()
	}
}
