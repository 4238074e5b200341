package jsonframe

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
)

var update = flag.Bool("update", false, "rewrite golden files")

// rowsJSON is the frame as NDJSON lines, via EachRowJSON.
func rowsJSON(t *testing.T, f *dataframe.Frame) []string {
	t.Helper()
	rows := []string{}
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	return rows
}

func TestReadJSONInference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		path   string
		schema string
		rows   []string
	}{
		{
			name:   "fields sorted by byte order",
			in:     `{"b":1,"B":2,"a":"x","_":true}`,
			schema: "root\n |-- B: long (nullable = true)\n |-- _: boolean (nullable = true)\n |-- a: string (nullable = true)\n |-- b: long (nullable = true)\n",
			rows:   []string{`{"B":2,"_":true,"a":"x","b":1}`},
		},
		{
			name:   "unicode and escapes",
			in:     `{"s":"caf\u00e9 \ud83d\ude00 \/ \"q\" \\ \n\t é"}`,
			schema: "root\n |-- s: string (nullable = true)\n",
			rows:   []string{`{"s":"café 😀 / \"q\" \\ \n\t é"}`},
		},
		{
			name:   "lone surrogate becomes replacement character",
			in:     `{"s":"a\ud800b"}`,
			schema: "root\n |-- s: string (nullable = true)\n",
			rows:   []string{`{"s":"a�b"}`},
		},
		{
			name:   "empty array is array of string",
			in:     `{"a":[]}`,
			schema: "root\n |-- a: array (nullable = true)\n |    |-- element: string (containsNull = true)\n",
			rows:   []string{`{"a":[]}`},
		},
		{
			name:   "empty array merges with typed array",
			in:     `[{"a":[]},{"a":[1,2]}]`,
			schema: "root\n |-- a: array (nullable = true)\n |    |-- element: long (containsNull = true)\n",
			rows:   []string{`{"a":[]}`, `{"a":[1,2]}`},
		},
		{
			name:   "arrays of arrays",
			in:     `{"m":[[1,2],[],null,[3.5]]}`,
			schema: "root\n |-- m: array (nullable = true)\n |    |-- element: array (containsNull = true)\n |    |    |-- element: double (containsNull = true)\n",
			rows:   []string{`{"m":[[1.0,2.0],[],null,[3.5]]}`},
		},
		{
			name:   "object in one row and string in another",
			in:     `[{"a":{"x":1}},{"a":"plain"},{"a":12},{"a":true},{"a":null},{"a":[1, 2]}]`,
			schema: "root\n |-- a: string (nullable = true)\n",
			rows:   []string{`{"a":"{\"x\":1}"}`, `{"a":"plain"}`, `{"a":"12"}`, `{"a":"true"}`, `{"a":null}`, `{"a":"[1,2]"}`},
		},
		{
			name:   "long and double give double",
			in:     `[{"n":4},{"n":4.5},{"n":-1e3}]`,
			schema: "root\n |-- n: double (nullable = true)\n",
			rows:   []string{`{"n":4.0}`, `{"n":4.5}`, `{"n":-1000.0}`},
		},
		{
			// Spark: an integer beyond long is decimal(p,0) up to 38 digits, then double.
			name:   "integers beyond 2^53 stay exact, beyond int64 become decimal, beyond 38 digits double",
			in:     `[{"a":9007199254740993,"b":-9223372036854775808,"c":9223372036854775808,"d":123456789012345678901234567890123456789}]`,
			schema: "root\n |-- a: long (nullable = true)\n |-- b: long (nullable = true)\n |-- c: decimal(19,0) (nullable = true)\n |-- d: double (nullable = true)\n",
			rows:   []string{`{"a":9007199254740993,"b":-9223372036854775808,"c":9223372036854775808,"d":1.2345678901234568e+38}`},
		},
		{
			name:   "null only is string",
			in:     `[{"a":null},{"a":null}]`,
			schema: "root\n |-- a: string (nullable = true)\n",
			rows:   []string{`{"a":null}`, `{"a":null}`},
		},
		{
			name:   "empty string only is string",
			in:     `{"a":""}`,
			schema: "root\n |-- a: string (nullable = true)\n",
			rows:   []string{`{"a":""}`},
		},
		{
			name:   "empty objects are dropped",
			in:     `{"a":{},"b":{"c":{}},"d":[{}],"e":1}`,
			schema: "root\n |-- e: long (nullable = true)\n",
			rows:   []string{`{"e":1}`},
		},
		{
			name:   "struct fields merged across rows, missing are null",
			in:     `[{"s":{"x":1}},{"s":{"y":"a"}},{"s":null}]`,
			schema: "root\n |-- s: struct (nullable = true)\n |    |-- x: long (nullable = true)\n |    |-- y: string (nullable = true)\n",
			rows:   []string{`{"s":{"x":1,"y":null}}`, `{"s":{"x":null,"y":"a"}}`, `{"s":null}`},
		},
		{
			name:   "top-level scalar array gives column value",
			in:     `[1, 2, null]`,
			schema: "root\n |-- value: long (nullable = true)\n",
			rows:   []string{`{"value":1}`, `{"value":2}`, `{"value":null}`},
		},
		{
			name:   "top-level mixed array widens value to string",
			in:     `[{"a":1}, "x"]`,
			schema: "root\n |-- value: string (nullable = true)\n",
			rows:   []string{`{"value":"{\"a\":1}"}`, `{"value":"x"}`},
		},
		{
			name:   "top-level scalar",
			in:     ` "only" `,
			schema: "root\n |-- value: string (nullable = true)\n",
			rows:   []string{`{"value":"only"}`},
		},
		{
			name:   "top-level null has no rows",
			in:     `null`,
			schema: "root\n",
			rows:   []string{},
		},
		{
			name:   "empty top-level array",
			in:     `[]`,
			schema: "root\n",
			rows:   []string{},
		},
		{
			name:   "rows of empty objects keep their count",
			in:     `[{},{}]`,
			schema: "root\n",
			rows:   []string{`{}`, `{}`},
		},
		{
			name:   "null row among objects",
			in:     `[{"a":1},null]`,
			schema: "root\n |-- a: long (nullable = true)\n",
			rows:   []string{`{"a":1}`, `{"a":null}`},
		},
		{
			name:   "repeated key: first wins",
			in:     `{"a":1,"a":2}`,
			schema: "root\n |-- a: long (nullable = true)\n",
			rows:   []string{`{"a":1}`},
		},
		{
			name:   "empty field name dropped",
			in:     `{"":1,"a":2}`,
			schema: "root\n |-- a: long (nullable = true)\n",
			rows:   []string{`{"a":2}`},
		},
		{
			name:   "escaped key",
			in:     `{"a\u0062":1}`,
			schema: "root\n |-- ab: long (nullable = true)\n",
			rows:   []string{`{"ab":1}`},
		},
		{
			name:   "widened string keeps compact JSON text with string escapes as written",
			in:     `[{"a":"s"},{"a": { "k" : [ 1 , "x y\n" ] } }]`,
			schema: "root\n |-- a: string (nullable = true)\n",
			rows:   []string{`{"a":"s"}`, `{"a":"{\"k\":[1,\"x y\\n\"]}"}`},
		},
		{
			name:   "records path",
			in:     `{"kind":"k","data":{"results":[{"id":1},{"id":2}]}}`,
			path:   "data.results",
			schema: "root\n |-- id: long (nullable = true)\n",
			rows:   []string{`{"id":1}`, `{"id":2}`},
		},
		{
			name:   "records path missing",
			in:     `{"kind":"k"}`,
			path:   "items",
			schema: "root\n",
			rows:   []string{},
		},
		{
			name:   "records path null",
			in:     `{"items":null}`,
			path:   "items",
			schema: "root\n",
			rows:   []string{},
		},
		{
			name:   "records path of scalars",
			in:     `{"items":["a","b"]}`,
			path:   "items",
			schema: "root\n |-- value: string (nullable = true)\n",
			rows:   []string{`{"value":"a"}`, `{"value":"b"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			f, err := ReadDocument([]byte(tt.in), Options{RecordsPath: tt.path, Allocator: mem})
			require.NoError(t, err)
			defer f.Release()
			require.Equal(t, tt.schema, dataframe.SchemaString(f.Schema()))
			require.Equal(t, tt.rows, rowsJSON(t, f))
			require.Equal(t, int64(len(tt.rows)), f.NumRows())

			// The same document as one JSON line reads the same.
			nd, err := ReadNDJSON([]byte("\n"+strings.ReplaceAll(tt.in, "\n", " ")+"\n\n"), Options{RecordsPath: tt.path, Allocator: mem})
			require.NoError(t, err)
			defer nd.Release()
			require.Equal(t, tt.schema, dataframe.SchemaString(nd.Schema()))
			require.Equal(t, tt.rows, rowsJSON(t, nd))
		})
	}
}

func TestReadJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		opts   Options
		offset int64
		msg    string
	}{
		{"trailing garbage", `{"a":1} x`, Options{}, 8, "unexpected character 'x' after the JSON value"},
		{"second document", `{"a":1}{"a":2}`, Options{}, 7, "after the JSON value"},
		{"unterminated object", `{"a":1`, Options{}, 6, "expected ',' or '}' in object: unexpected end of input"},
		{"empty", "  ", Options{}, 2, "empty document"},
		{"bad literal", `[tru]`, Options{}, 1, "invalid literal, expected true"},
		{"bad number", `[01]`, Options{}, 2, "expected ',' or ']' in array"},
		{"bad fraction", `[1.]`, Options{}, 3, "expected a digit after '.'"},
		{"bad escape", `["a\x"]`, Options{}, 3, `invalid escape \x in string`},
		{"control character", "[\"a\x01\"]", Options{}, 3, "control character 0x01 in string"},
		{"unterminated string", `{"a":"xyz`, Options{}, 9, "unterminated string starting at byte offset 5"},
		{"missing colon", `{"a" 1}`, Options{}, 5, "expected ':' after field name"},
		{"unquoted key", `{a:1}`, Options{}, 1, "expected a field name"},
		{"depth limit", strings.Repeat("[", 5) + strings.Repeat("]", 5), Options{MaxDepth: 4}, 4, "nesting deeper than 4 levels"},
		{"default depth limit", strings.Repeat(`{"a":`, 600) + "1" + strings.Repeat("}", 600), Options{}, 512 * 5, "nesting deeper than 512 levels"},
		{"error beside records path", `{"items":[],"x":[1,}`, Options{RecordsPath: "items"}, 19, "unexpected character '}', expected a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tt.opts.Allocator = mem
			_, err := ReadDocument([]byte(tt.in), tt.opts)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tt.offset, se.Offset, err.Error())
			require.Contains(t, se.Msg, tt.msg)
			require.True(t, strings.HasPrefix(err.Error(), "invalid JSON at byte offset "), err.Error())
		})
	}
}

func TestReadJSONRecordsPathNotArray(t *testing.T) {
	t.Parallel()
	_, err := ReadDocument([]byte(`{"items":{"a":1}}`), Options{RecordsPath: "items"})
	var pe *RecordsPathError
	require.ErrorAs(t, err, &pe)
	require.EqualError(t, err, `dataframe: records path "items" holds an object, not an array`)

	_, err = ReadDocuments([][]byte{[]byte(`{"data":{"r":[]}}`), []byte(`{"data":{"r":"x"}}`)}, Options{RecordsPath: "data.r"})
	require.EqualError(t, err, `dataframe: records path "data.r" holds a string, not an array in document 1`)

	_, err = ReadDocument([]byte(`{}`), Options{RecordsPath: "a..b"})
	require.ErrorContains(t, err, `RecordsPath "a..b" has an empty segment`)
	_, err = ReadDocument([]byte(`{}`), Options{MaxDepth: -1})
	require.ErrorContains(t, err, "MaxDepth")
}

func TestReadJSONDocumentsSyntaxError(t *testing.T) {
	t.Parallel()
	_, err := ReadDocuments([][]byte{[]byte(`{"a":1}`), []byte(`{"a":}`)}, Options{})
	require.EqualError(t, err, `invalid JSON at byte offset 5: unexpected character '}', expected a value in document 1`)
}

func TestReadNDJSONSyntaxErrorLine(t *testing.T) {
	t.Parallel()
	_, err := ReadNDJSON([]byte("{\"a\":1}\n\n{\"a\":2,}\n"), Options{})
	require.EqualError(t, err, `invalid JSON at byte offset 16 (line 3): expected a field name: unexpected character '}'`)
}

func TestReadJSONDocumentsMergesPages(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f, err := ReadDocuments([][]byte{
		[]byte(`{"items":[{"a":1},{"a":2}]}`),
		[]byte(`{"other":true}`),
		[]byte(`{"items":[{"a":2.5,"b":"x"}]}`),
	}, Options{RecordsPath: "items", Allocator: mem})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, "root\n |-- a: double (nullable = true)\n |-- b: string (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	require.Equal(t, []string{`{"a":1.0,"b":null}`, `{"a":2.0,"b":null}`, `{"a":2.5,"b":"x"}`}, rowsJSON(t, f))
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "json", name))
	require.NoError(t, err)
	return b
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "schema", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}

func TestFixtureSchemas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		golden string
		docs   []string
		path   string
		rows   int64
	}{
		{"channels_info.golden", []string{"youtube_channels_info.json"}, "", 1},
		{"subscriptions_p1.golden", []string{"youtube_subscriptions_by_channel_p1.json"}, "", 1},
		{"subscriptions_p2.golden", []string{"youtube_subscriptions_by_channel_p2.json"}, "", 1},
		{"subscriptions_items_p1_p2.golden", []string{"youtube_subscriptions_by_channel_p1.json", "youtube_subscriptions_by_channel_p2.json"}, "items", 7},
		{"subscriptions_p1_p2.golden", []string{"youtube_subscriptions_by_channel_p1.json", "youtube_subscriptions_by_channel_p2.json"}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			var docs [][]byte
			for _, d := range tt.docs {
				docs = append(docs, readFixture(t, d))
			}
			f, err := ReadDocuments(docs, Options{RecordsPath: tt.path, Allocator: mem})
			require.NoError(t, err)
			defer f.Release()
			require.Equal(t, tt.rows, f.NumRows())
			checkGolden(t, tt.golden, dataframe.SchemaString(f.Schema()))
			// Every row is valid JSON that encoding/json agrees with.
			require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
				var v map[string]any
				return json.Unmarshal(obj, &v)
			}))
		})
	}
}

func TestFixtureValuesMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	doc := readFixture(t, "youtube_subscriptions_by_channel_p1.json")
	f, err := ReadDocument(doc, Options{RecordsPath: "items"})
	require.NoError(t, err)
	defer f.Release()
	var want struct{ Items []map[string]any }
	require.NoError(t, json.Unmarshal(doc, &want))
	rows := rowsJSON(t, f)
	require.Len(t, rows, len(want.Items))
	for i, r := range rows {
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(r), &got))
		require.Equal(t, want.Items[i], got)
	}
}

func TestReadJSONEmptyInputs(t *testing.T) {
	t.Parallel()
	f, err := ReadDocuments(nil, Options{})
	require.NoError(t, err)
	require.Equal(t, "root\n", dataframe.SchemaString(f.Schema()))
	require.Equal(t, int64(0), f.NumRows())
	g, err := ReadNDJSON(nil, Options{})
	require.NoError(t, err)
	require.Equal(t, int64(0), g.NumRows())
	h, err := ReadNDJSON([]byte("\n \n\t\n"), Options{})
	require.NoError(t, err)
	require.Equal(t, int64(0), h.NumRows())
	_, err = ReadDocument(nil, Options{})
	require.EqualError(t, err, "invalid JSON at byte offset 0: empty document")
}
