package gotabridge

import (
	"bytes"
	"testing"

	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// BenchmarkFrameToGota reports rows/s of ToGota on ~20 MB of generated
// listing items (nested structs flattened, lists to JSON text).
func BenchmarkFrameToGota(b *testing.B) {
	var buf bytes.Buffer
	if err := datagen.GenNDJSON(&buf, 14000, 1); err != nil {
		b.Fatal(err)
	}
	f, err := jsonframe.ReadNDJSON(buf.Bytes(), jsonframe.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Release()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ToGota(f); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
