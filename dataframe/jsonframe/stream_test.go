package jsonframe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"github.com/sluicedata/sluice/internal/datagen"
	"github.com/sluicedata/sluice/internal/jsontext"
)

func collectStream(t testing.TB, s dataframe.Stream) *dataframe.Frame {
	t.Helper()
	defer s.Release()
	f, err := dataframe.Collect(s)
	require.NoError(t, err)
	return f
}

// TestOpenNDJSONMatchesReadNDJSON: the two-pass file stream gives what the
// in-memory reader gives, whatever the block size (blocks of a few bytes cut
// every line apart from its neighbours; long lines grow a block).
func TestOpenNDJSONMatchesReadNDJSON(t *testing.T) {
	t.Parallel()
	var gen bytes.Buffer
	require.NoError(t, datagen.GenNDJSON(&gen, 300, 3))
	tests := []struct {
		name, in string
		path     string
	}{
		{"generated", gen.String(), ""},
		{"widening and new fields", "{\"a\":1}\n{\"a\":2.5,\"b\":[1,2]}\n\n{\"c\":{\"d\":null}}\n{\"a\":null,\"b\":[3.5]}\n", ""},
		{"crlf and blank lines", "{\"a\":\"x\"}\r\n\r\n  \n{\"a\":\"y\"}", ""},
		{"lone cr", "{\"a\":1}\r{\"a\":2}\r\r{\"b\":\"c\"}\r", ""},
		{"arrays of rows and nulls", "[{\"a\":1},{\"a\":2}]\nnull\n{\"a\":3}\n[]\n", ""},
		{"records path per line", "{\"items\":[{\"x\":1}],\"k\":\"v\"}\n{\"items\":null}\n{\"k\":{\"items\":2},\"items\":[{\"x\":2},{\"y\":\"z\"}]}\n", "items"},
		{"scalars", "1\n2\n3.5\n", ""},
		{"invalid utf8", "{\"s\":\"ok\"}\n{\"s\":\"bad \xff byte\"}\n{\"s\":\"é\"}\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		for _, block := range []int{1, 7, 64, 1 << 20} {
			opts := Options{RecordsPath: tt.path}
			want, err := ReadNDJSON([]byte(tt.in), opts)
			require.NoError(t, err, tt.name)
			path := frametest.WriteTemp(t, "in.ndjson", []byte(tt.in))
			s, err := OpenNDJSON(context.Background(), path, Options{RecordsPath: tt.path, BlockBytes: block})
			require.NoError(t, err, tt.name)
			require.Equal(t, dataframe.SchemaString(want.Schema()), dataframe.SchemaString(s.Schema()), "%s, block %d", tt.name, block)
			got := collectStream(t, s)
			frametest.RequireFramesEqual(t, want, got)
			want.Release()
			got.Release()
		}
	}
}

// TestOpenNDJSONSyntaxError: the first error in file order is reported with
// its line, as ReadNDJSON reports it, even when a later block also has one.
func TestOpenNDJSONSyntaxError(t *testing.T) {
	t.Parallel()
	in := "{\"a\":1}\n\n{\"a\":2,}\n" + strings.Repeat("{\"a\":3}\n", 50) + "{oops\n"
	_, want := ReadNDJSON([]byte(in), Options{})
	require.Error(t, want)
	for _, block := range []int{8, 1 << 20} {
		path := frametest.WriteTemp(t, "bad.ndjson", []byte(in))
		_, err := OpenNDJSON(context.Background(), path, Options{BlockBytes: block})
		require.EqualError(t, err, "reading "+path+": "+want.Error())
		var se *SyntaxError
		require.True(t, errors.As(err, &se))
	}
}

// TestOpenNDJSONFileChanged: a file that changes between the passes is an
// error, never a wrong frame.
func TestOpenNDJSONFileChanged(t *testing.T) {
	t.Parallel()
	path := frametest.WriteTemp(t, "in.ndjson", []byte("{\"a\":1}\n{\"a\":2}\n"))
	s, err := OpenNDJSON(context.Background(), path, Options{})
	require.NoError(t, err)
	defer s.Release()
	require.NoError(t, os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"), 0o644))
	for s.Next() {
	}
	require.ErrorIs(t, s.Err(), dataframe.ErrStreamChanged)
}

// FuzzBlockReader: blocks are whole lines (each ends at a line break or the
// end of input) and together are exactly the input, whatever the block size.
func FuzzBlockReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n"), uint8(3))
	f.Add([]byte("a\r\nb\rc\n\n"), uint8(1))
	f.Add([]byte("no line break at all"), uint8(4))
	f.Add([]byte(""), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		br := newBlockReader(bytes.NewReader(data), int(size)+1, 2)
		br.lines = true
		var got []byte
		line := 1
		for i := 0; ; i++ {
			b, err := br.next()
			require.NoError(t, err)
			if b == nil {
				break
			}
			require.NotEmpty(t, b.data)
			require.Equal(t, int64(len(got)), b.base)
			require.Equal(t, line, b.line)
			if last := b.data[len(b.data)-1]; last != '\n' && last != '\r' {
				require.Equal(t, len(data), len(got)+len(b.data), "only the last block may end without a line break")
			}
			line += jsontext.LineOf(b.data, int64(len(b.data))) - 1
			got = append(got, b.data...)
			br.recycle(b)
			require.Less(t, i, len(data)+1)
		}
		require.Equal(t, string(data), string(got))
	})
}
