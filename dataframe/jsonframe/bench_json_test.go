package jsonframe

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/datagen"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// benchMB is the input size of the JSON benchmarks; SLUICE_BENCH_MB
// overrides it.
func benchMB(def int) int {
	if v, err := strconv.Atoi(os.Getenv("SLUICE_BENCH_MB")); err == nil && v > 0 {
		return v
	}
	return def
}

// bytesPerItem is roughly what GenListing writes per item.
const bytesPerItem = 1430

var (
	listingOnce sync.Once
	listingData []byte
	ndjsonOnce  sync.Once
	ndjsonData  []byte
)

func benchListing(b *testing.B) []byte {
	listingOnce.Do(func() {
		var buf bytes.Buffer
		if err := datagen.GenListing(&buf, benchMB(50)<<20/bytesPerItem, 1); err != nil {
			panic(err)
		}
		listingData = buf.Bytes()
	})
	return listingData
}

func benchNDJSON(b *testing.B) []byte {
	ndjsonOnce.Do(func() {
		var buf bytes.Buffer
		if err := datagen.GenNDJSON(&buf, benchMB(200)<<20/bytesPerItem, 1); err != nil {
			panic(err)
		}
		ndjsonData = buf.Bytes()
	})
	return ndjsonData
}

// BenchmarkListingToFrame reads a ~50 MB YouTube-like listing with
// RecordsPath "items", schema inferred.
func BenchmarkListingToFrame(b *testing.B) {
	data := benchListing(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := ReadDocument(data, Options{RecordsPath: "items"})
		if err != nil {
			b.Fatal(err)
		}
		f.Release()
	}
}

// BenchmarkNDJSONToFrame reads ~200 MB of JSON lines on all cores.
func BenchmarkNDJSONToFrame(b *testing.B) {
	data := benchNDJSON(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := ReadNDJSON(data, Options{})
		if err != nil {
			b.Fatal(err)
		}
		f.Release()
	}
}

// BenchmarkInferOnly is pass 1 alone (syntax check and schema) over the
// listing.
func BenchmarkInferOnly(b *testing.B) {
	data := benchListing(b)
	path, _ := Options{RecordsPath: "items"}.validate()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := &chunk{spans: []docSpan{{data: data}}}
		if err := inferChunk(c, path, jsontext.DefaultMaxDepth, 1, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGenListingIsValidAndDeterministic(t *testing.T) {
	t.Parallel()
	var a, b2 bytes.Buffer
	require.NoError(t, datagen.GenListing(&a, 50, 7))
	require.NoError(t, datagen.GenListing(&b2, 50, 7))
	require.Equal(t, a.Bytes(), b2.Bytes())
	var v struct{ Items []map[string]any }
	require.NoError(t, json.Unmarshal(a.Bytes(), &v))
	require.Len(t, v.Items, 50)

	f, err := ReadDocument(a.Bytes(), Options{RecordsPath: "items"})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, int64(50), f.NumRows())
	checkGolden(t, "genlisting_items.golden", dataframe.SchemaString(f.Schema()))
	rows := rowsJSON(t, f)
	for i, r := range rows {
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(r), &got))
		require.Equal(t, v.Items[i], got)
	}

	var nd bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&nd, 50, 7))
	g, err := ReadNDJSON(nd.Bytes(), Options{})
	require.NoError(t, err)
	defer g.Release()
	require.Equal(t, int64(50), g.NumRows())
	require.Equal(t, dataframe.SchemaString(f.Schema()), dataframe.SchemaString(g.Schema()))
}
