package jsonframe

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// TestReadNDJSONParallelMatchesSequential splits a small input into many
// chunks (thresholds lowered) and checks the rows and schema are the same as
// one sequential read, including a field that widens only in a late chunk.
func TestReadNDJSONParallelMatchesSequential(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&buf, 300, 3))
	buf.WriteString("\n   \n")
	buf.WriteString(`{"id":"late","statistics":{"rank":1.5},"extra":[1,2]}` + "\n")
	data := buf.Bytes()

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	seq, err := readJSONSplit([]docSpan{{data: data}}, true, Options{Allocator: mem}, splitting{workers: 1})
	require.NoError(t, err)
	defer seq.Release()
	require.Len(t, seq.Records(), 1)

	for _, workers := range []int{2, 3} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			par, err := readJSONSplit([]docSpan{{data: data}}, true, Options{Allocator: mem}, splitting{minParallel: 1, chunkMin: 1 << 12, workers: workers})
			require.NoError(t, err)
			defer par.Release()
			require.Greater(t, len(par.Records()), 1)
			require.Equal(t, dataframe.SchemaString(seq.Schema()), dataframe.SchemaString(par.Schema()))
			require.Equal(t, rowsJSON(t, seq), rowsJSON(t, par))
			require.Contains(t, dataframe.SchemaString(par.Schema()), " |    |-- rank: double (nullable = true)\n")
		})
	}

	// An error in a late chunk names its absolute offset and line.
	bad := append(append([]byte(nil), data...), []byte("{\"a\":tru}\n")...)
	_, err = readJSONSplit([]docSpan{{data: bad}}, true, Options{Allocator: mem}, splitting{minParallel: 1, chunkMin: 1 << 12, workers: 2})
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, int64(len(data)+5), se.Offset)
	require.Equal(t, bytes.Count(data, []byte{'\n'})+1, se.Line)
}

func TestReadJSONDocumentsParallel(t *testing.T) {
	t.Parallel()
	var docs [][]byte
	for i := 0; i < 12; i++ {
		var b bytes.Buffer
		require.NoError(t, datagen.GenListing(&b, 20, int64(i)))
		docs = append(docs, b.Bytes())
	}
	docs = append(docs, []byte(`{"items":[{"id":1}]}`))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	spans := func() []docSpan {
		out := make([]docSpan, len(docs))
		for i, d := range docs {
			out[i] = docSpan{data: d, doc: i}
		}
		return out
	}
	opts := Options{RecordsPath: "items", Allocator: mem}
	seq, err := readJSONSplit(spans(), false, opts, splitting{workers: 1})
	require.NoError(t, err)
	defer seq.Release()
	par, err := readJSONSplit(spans(), false, opts, splitting{minParallel: 1, chunkMin: 1 << 10, workers: 2})
	require.NoError(t, err)
	defer par.Release()
	require.Greater(t, len(par.Records()), 1)
	require.Equal(t, int64(12*20+1), par.NumRows())
	require.Contains(t, dataframe.SchemaString(par.Schema()), " |-- id: string (nullable = true)\n")
	require.Equal(t, rowsJSON(t, seq), rowsJSON(t, par))
}

func TestReadJSONSplitsLargeBatches(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var b bytes.Buffer
	b.WriteByte('[')
	n := maxBatchRows + 5
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"a":%d,"s":{"t":"x%d"}}`, i, i)
	}
	b.WriteByte(']')
	for _, twoPass := range []bool{false, true} {
		f, err := readJSONSplit([]docSpan{{data: b.Bytes()}}, false, Options{Allocator: mem}, splitting{workers: 1, twoPass: twoPass})
		require.NoError(t, err)
		require.Len(t, f.Records(), 2)
		require.Equal(t, int64(n), f.NumRows())
		last := dataframe.Limit(f, int64(n))
		var lastRow string
		require.NoError(t, last.EachRowJSON(func(_ int64, obj []byte) error { lastRow = string(obj); return nil }))
		require.Equal(t, fmt.Sprintf(`{"a":%d,"s":{"t":"x%d"}}`, n-1, n-1), lastRow)
		last.Release()
		f.Release()
	}
}
