package jsonframe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
)

// FuzzReadJSON feeds arbitrary bytes to the reader: no panic may escape,
// invalid input must be an error, and on success every row must be JSON
// that encoding/json accepts, with the row count it implies.
func FuzzReadJSON(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "json", "*.json"))
	for _, p := range fixtures {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "")
			f.Add(b, "items")
		}
	}
	for _, s := range []string{
		`{"a":1}`, `[1,2.5,"x",{"a":1}]`, `[]`, `{}`, `null`, `"s"`, `[[1],[2,[3]]]`,
		`{"a":"\u00e9\ud83d\ude00\/\ud800"}`, `{"a":{},"b":[{}]}`, `[{"a":1},{"a":"x"}]`,
		`{"a":9223372036854775808}`, `{"a":-0.0e-5}`, `{"a":1} x`, `{"a":`, `[1,]`, "\xff\xfe",
		`{"items":null}`, `{"items":5}`, `{"a":1,"a":{"b":2}}`, `[null,{"a":null}]`,
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "items")
		f.Add([]byte(s), "a")
	}
	f.Fuzz(func(t *testing.T, doc []byte, path string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		opts := Options{RecordsPath: path, Allocator: mem, MaxDepth: 64}
		fr, err := ReadDocument(doc, opts)
		if err != nil {
			return
		}
		defer fr.Release()
		if path == "" && !json.Valid(doc) {
			t.Fatalf("accepted invalid JSON %q", doc)
		}
		var n int64
		if err := fr.EachRowJSON(func(_ int64, obj []byte) error {
			n++
			var v map[string]any
			return json.Unmarshal(obj, &v)
		}); err != nil {
			t.Fatalf("row does not re-parse: %v (input %q)", err, doc)
		}
		if n != fr.NumRows() {
			t.Fatalf("EachRowJSON gave %d rows, NumRows %d", n, fr.NumRows())
		}
		_ = dataframe.SchemaString(fr.Schema())
		nd, err := ReadNDJSON(doc, opts)
		if err == nil {
			nd.Release()
		}
		// The two-pass path must agree with whatever path ReadDocument took.
		two, err := readJSONSplit([]docSpan{{data: doc}}, false, opts, splitting{workers: 1, twoPass: true})
		if err != nil {
			t.Fatalf("two-pass read failed where ReadDocument succeeded: %v", err)
		}
		defer two.Release()
		if dataframe.SchemaString(two.Schema()) != dataframe.SchemaString(fr.Schema()) {
			t.Fatalf("schemas differ for %q:\n%s\n%s", doc, dataframe.SchemaString(fr.Schema()), dataframe.SchemaString(two.Schema()))
		}
		var a, b []string
		_ = fr.EachRowJSON(func(_ int64, obj []byte) error { a = append(a, string(obj)); return nil })
		_ = two.EachRowJSON(func(_ int64, obj []byte) error { b = append(b, string(obj)); return nil })
		if len(a) != len(b) {
			t.Fatalf("row counts differ for %q", doc)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("row %d differs for %q: %s vs %s", i, doc, a[i], b[i])
			}
		}
	})
}
