package fileio

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

var ioUpdateGolden = flag.Bool("update-io-golden", false, "rewrite the golden files under testdata/print")

// ioRequireGolden compares got with testdata/print/name (rewriting it with
// -update-io-golden).
func ioRequireGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "print", name)
	if *ioUpdateGolden {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

func ioSubscriptionsFrame(t *testing.T, mem memory.Allocator) *dataframe.Frame {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("testdata", "io", "youtube_subscriptions_by_channel_p1.json"))
	require.NoError(t, err)
	f, err := jsonframe.ReadDocument(doc, jsonframe.Options{RecordsPath: "items", Allocator: mem})
	require.NoError(t, err)
	return f
}

func TestWriteTableGolden(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	nested := fixtures.NestedFrame(t, mem, 2)
	defer nested.Release()
	subs := ioSubscriptionsFrame(t, mem)
	defer subs.Release()
	for _, tc := range []struct {
		golden string
		f      *dataframe.Frame
		o      dataframe.TableOptions
	}{
		{"nested_truncate20.txt", nested, dataframe.TableOptions{Truncate: 20}},
		{"nested_full.txt", nested, dataframe.TableOptions{}},
		{"nested_top1.txt", nested, dataframe.TableOptions{MaxRows: 1, Truncate: 20}},
		{"nested_top2_narrow.txt", nested, dataframe.TableOptions{MaxRows: 2, Truncate: 3}},
		{"subscriptions_table.txt", subs, dataframe.TableOptions{Truncate: 20}},
		{"subscriptions_table_top2.txt", subs, dataframe.TableOptions{MaxRows: 2, Truncate: 30}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, dataframe.WriteTable(&buf, tc.f, tc.o))
			ioRequireGolden(t, tc.golden, buf.Bytes())
		})
	}
}

func TestWriteTableEdges(t *testing.T) {
	t.Parallel()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	var buf bytes.Buffer
	require.NoError(t, dataframe.WriteTable(&buf, dataframe.Empty(schema), dataframe.TableOptions{Truncate: 20}))
	require.Equal(t, "+---+\n|  a|\n+---+\n+---+\n", buf.String())

	f := fixtures.FrameFromJSON(t, memory.DefaultAllocator, schema, `[{"a":1},{"a":null},{"a":3}]`, 1)
	defer f.Release()
	buf.Reset()
	require.NoError(t, dataframe.WriteTable(&buf, f, dataframe.TableOptions{MaxRows: -1, Truncate: 20}))
	require.Equal(t, "+----+\n|   a|\n+----+\n|   1|\n|null|\n|   3|\n+----+\n", buf.String())
	buf.Reset()
	require.NoError(t, dataframe.WriteTable(&buf, f, dataframe.TableOptions{MaxRows: 1}))
	require.Equal(t, "+---+\n|a  |\n+---+\n|1  |\n+---+\nonly showing top 1 row\n", buf.String())
}

func TestWriteTableWideCharacters(t *testing.T) {
	t.Parallel()
	f, err := jsonframe.ReadDocument([]byte(`[{"city":"東京","n":1},{"city":"Zürich","n":22}]`), jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, dataframe.WriteTable(&buf, f, dataframe.TableOptions{Truncate: 20}))
	// East Asian wide characters take two columns, as in Spark's show().
	require.Equal(t, "+------+---+\n|  city|  n|\n+------+---+\n|  東京|  1|\n|Zürich| 22|\n+------+---+\n", buf.String())
}

func TestWriteNDJSONGolden(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	subs := ioSubscriptionsFrame(t, mem)
	defer subs.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteNDJSON(&buf, subs))
	ioRequireGolden(t, "subscriptions.ndjson", buf.Bytes())
	require.Equal(t, int(subs.NumRows()), strings.Count(buf.String(), "\n"))

	// What we print reads back to the same frame.
	back, err := jsonframe.ReadNDJSON(buf.Bytes(), jsonframe.Options{Allocator: mem})
	require.NoError(t, err)
	defer back.Release()
	frametest.RequireFramesEqual(t, subs, back)

	buf.Reset()
	require.NoError(t, WriteJSONArray(&buf, subs))
	arr, err := jsonframe.ReadDocument(buf.Bytes(), jsonframe.Options{Allocator: mem})
	require.NoError(t, err)
	defer arr.Release()
	frametest.RequireFramesEqual(t, subs, arr)
}

func TestWriteCSVGolden(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	subs := ioSubscriptionsFrame(t, mem)
	defer subs.Release()
	var buf bytes.Buffer
	require.NoError(t, csvframe.Write(&buf, subs))
	ioRequireGolden(t, "subscriptions.csv", buf.Bytes())

	nested := fixtures.NestedFrame(t, mem, 0)
	defer nested.Release()
	buf.Reset()
	require.NoError(t, csvframe.Write(&buf, nested))
	ioRequireGolden(t, "nested.csv", buf.Bytes())
}

// TestTextOutputManyChunks: text outputs of a frame of many batches come
// out complete and in order.
func TestTextOutputManyChunks(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	rows := strings.Repeat(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(fixtures.NestedRows), "["), "]")+",", 4000)
	f := fixtures.FrameFromJSON(t, mem, fixtures.NestedSchema, "["+strings.TrimSuffix(rows, ",")+"]", 5000) // 12,000 rows
	defer f.Release()
	want := frametest.RowsJSON(t, f)
	require.Len(t, want, 12000)

	var nd bytes.Buffer
	require.NoError(t, WriteNDJSON(&nd, f))
	require.Equal(t, strings.Join(want, "\n")+"\n", nd.String())

	var arr bytes.Buffer
	require.NoError(t, WriteJSONArray(&arr, f))
	require.Equal(t, "[\n"+strings.Join(want, ",\n")+"\n]\n", arr.String())

	var csvOut bytes.Buffer
	require.NoError(t, csvframe.Write(&csvOut, f))
	back, err := csvframe.Read(&csvOut, csvframe.Options{Allocator: mem})
	require.NoError(t, err)
	defer back.Release()
	require.Equal(t, f.NumRows(), back.NumRows())
}
