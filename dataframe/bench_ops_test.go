package dataframe_test

import (
	"bytes"
	"testing"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// BenchmarkExplodeListing explodes the items of one 200,000-item listing,
// the REST → explode pipeline; rows/s counts output rows. The items are
// structs in one list, so this is the zero-copy path.
func BenchmarkExplodeListing(b *testing.B) {
	const items = 200_000
	var doc bytes.Buffer
	if err := datagen.GenListing(&doc, items, 1); err != nil {
		b.Fatal(err)
	}
	f, err := jsonframe.ReadDocument(doc.Bytes(), jsonframe.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Release()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := dataframe.Explode(f, "items")
		if err != nil {
			b.Fatal(err)
		}
		if out.NumRows() != items {
			b.Fatalf("%d rows, want %d", out.NumRows(), items)
		}
		out.Release()
	}
	b.ReportMetric(float64(items)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
