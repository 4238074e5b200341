package jsonframe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/datagen"
)

// readBoth reads input with the fused pass allowed and with two passes
// only, and checks the frames are identical.
func readBoth(t *testing.T, mem memory.Allocator, data []byte, lines bool, path string) {
	t.Helper()
	opts := Options{RecordsPath: path, Allocator: mem}
	spans := []docSpan{{data: data}}
	one, err1 := readJSONSplit(spans, lines, opts, splitting{workers: 1})
	two, err2 := readJSONSplit([]docSpan{{data: data}}, lines, opts, splitting{workers: 1, twoPass: true})
	if err2 != nil {
		require.EqualError(t, err1, err2.Error())
		return
	}
	require.NoError(t, err1)
	defer one.Release()
	defer two.Release()
	require.Equal(t, dataframe.SchemaString(two.Schema()), dataframe.SchemaString(one.Schema()))
	require.Equal(t, two.NumRows(), one.NumRows())
	require.Equal(t, rowsJSON(t, two), rowsJSON(t, one))
}

func TestFusedMatchesTwoPass(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var listing, nd bytes.Buffer
	require.NoError(t, datagen.GenListing(&listing, 1500, 5))
	require.NoError(t, datagen.GenNDJSON(&nd, 1500, 5))

	many := func(n int, row string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(row+",", n), ",")
	}
	tests := []struct {
		name  string
		data  string
		lines bool
		path  string
		fused bool // the fused pass must succeed
	}{
		{"listing", listing.String(), false, "items", true},
		{"ndjson", nd.String(), true, "", true},
		{"late new field", many(1200, `{"a":1}`) + `,{"a":2,"b":"x"}]`, false, "", false},
		{"late widening long to double", many(1200, `{"a":1}`) + `,{"a":2.5}]`, false, "", false},
		{"late widening to string", many(1200, `{"a":{"x":1}}`) + `,{"a":"s"}]`, false, "", false},
		{"late value in null-only column", many(1200, `{"a":null,"b":1}`) + `,{"a":"s","b":2}]`, false, "", false},
		{"later values fit", many(1200, `{"a":1.5,"s":"x","o":{"p":[1]},"e":{}}`) + `,{"a":2,"s":{"k":[1, 2]},"o":null,"e":{}},null,{"e":{"q":{}}}]`, false, "", false},
		{"widened string takes anything later", many(1200, `{"a":"s"}`) + `,{"a":1},{"a":1},{"a":"s"},{"a":{"x":[1]}},{"a":[]}]`, false, "", false},
		{"strings widened in sample", `[{"a":1},{"a":"x"}` + strings.Repeat(`,{"a":{"z":true}}`, 1200) + `]`, false, "", true},
		{"duplicate keys", many(1200, `{"a":1,"a":2}`) + `,{"a":1,"a":2.5}]`, false, "", false},
		{"dropped empty field stays empty", many(1200, `{"a":1,"e":{}}`) + `,{"a":1,"e":{"x":1}}]`, false, "", false},
		{"invalid escape", `[{"s":"\x"}]`, false, "", false},
		{"syntax error after sample", many(1200, `{"a":1}`) + `,{"a":1,}]`, false, "", false},
		{"records path changes kind", `{"items":[{"a":1}]}`, false, "items", true},
		{"empty rows", `[]`, false, "", false},
		{"scalars", `[1,2,3,null]`, false, "", true},
		{"unicode", "[" + strings.Repeat(`{"s":"caf\u00e9 \ud83d\ude00 `+"\xff"+`","k\u00e9":1},`, 1100) + `{"s":"x"}]`, false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readBoth(t, mem, []byte(tt.data), tt.lines, tt.path)
			path, err := Options{RecordsPath: tt.path}.validate()
			require.NoError(t, err)
			f, ok := readFused([]docSpan{{data: []byte(tt.data)}}, tt.lines, Options{RecordsPath: tt.path, Allocator: mem}, splitting{workers: 1}, path, nil)
			if ok {
				f.Release()
			}
			if tt.fused {
				require.True(t, ok, "fused pass gave up")
			}
		})
	}
}

// TestFusedSplitDocument reads single large documents with their rows array
// cut into parts read in parallel, and compares with the two-pass read.
func TestFusedSplitDocument(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var listing bytes.Buffer
	require.NoError(t, datagen.GenListing(&listing, 1500, 9))
	tricky := `{"s":"a,]}[{\"q\\\\","n":1,"l":[1,[2,{"x":"]"}]]}`
	rows := func(n int, row string) string { return strings.TrimSuffix(strings.Repeat(row+",", n), ",") }
	tests := []struct {
		name  string
		data  string
		path  string
		split bool // the split read must succeed
	}{
		{"listing", listing.String(), "items", true},
		{"top-level array with tricky strings", "[" + rows(3000, tricky) + "]", "", true},
		{"nested path and fields after the array", `{"a":{"r":[` + rows(3000, tricky) + `],"z":[1,{"k":"v"}]},"t":true}`, "a.r", true},
		{"new field in a late part", "[" + rows(3000, tricky) + `,{"new":1}` + "]", "", false},
		{"syntax error in a late part", "[" + rows(3000, tricky) + `,{"s":"x",}` + "]", "", false},
		{"syntax error after the array", `{"r":[` + rows(3000, tricky) + `],"z":[1,}`, "r", false},
		{"trailing comma in the array", "[" + rows(3000, tricky) + ",]", "", false},
		{"trailing garbage", "[" + rows(3000, tricky) + "] x", "", false},
		{"unterminated", "[" + rows(3000, tricky), "", false},
	}
	for _, tt := range tests {
		for _, workers := range []int{2, 3} {
			sp := splitting{minParallel: 1, chunkMin: 1 << 12, workers: workers}
			opts := Options{RecordsPath: tt.path, Allocator: mem}
			one, err1 := readJSONSplit([]docSpan{{data: []byte(tt.data)}}, false, opts, sp)
			two, err2 := readJSONSplit([]docSpan{{data: []byte(tt.data)}}, false, opts, splitting{workers: 1, twoPass: true})
			if err2 != nil {
				require.EqualError(t, err1, err2.Error(), tt.name)
			} else {
				require.NoError(t, err1, tt.name)
				require.Equal(t, dataframe.SchemaString(two.Schema()), dataframe.SchemaString(one.Schema()), tt.name)
				require.Equal(t, rowsJSON(t, two), rowsJSON(t, one), tt.name)
				one.Release()
				two.Release()
			}
			path, err := opts.validate()
			require.NoError(t, err)
			f, ok := readFused([]docSpan{{data: []byte(tt.data)}}, false, opts, sp, path, nil)
			require.Equal(t, tt.split, ok, tt.name)
			if ok {
				require.Greater(t, len(f.Records()), 1, tt.name)
				f.Release()
			}
		}
	}
}
