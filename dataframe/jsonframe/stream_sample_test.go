package jsonframe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
)

// TestOpenNDJSONSampleAndModesMatchReadNDJSON: --sample-rows, --strict and
// --mode stream (OpenNDJSON) with exactly ReadNDJSON's result — schema,
// rows, stats and errors — with blocks far smaller than the input, so pass
// 2 sees many blocks, and every buffer released.
func TestOpenNDJSONSampleAndModesMatchReadNDJSON(t *testing.T) {
	t.Parallel()
	sampleIn := strings.Join([]string{
		`{"a":1,"s":{"x":"u"}}`,
		`{"a":2,"s":null}`,
		`{"a":2.5,"s":{"x":"v"}}`,
		`{"a":"x","s":{"x":3}}`,
		`{"b":1}`,
		`{"a":92233720368547758070,"s":"","l":[1]}`,
		`{"a":""}`,
	}, "\r\n") + "\n"
	inputs := map[string]string{
		"sample":            sampleIn,
		"sample x20":        strings.Repeat(sampleIn, 20),
		"nulls first":       "null\n{\"a\":2.5}\n",
		"null column":       "{\"a\":null}\n{\"a\":2.5}\n",
		"syntax late":       "{\"a\":1}\n{\"a\":2}\n{\"a\":1}\n{\"a\":\n",
		"covers input":      "{\"a\":1}\n{\"a\":2.5}\n",
		"records path":      strings.Repeat("{\"items\":[{\"id\":1},{\"id\":\"x\"}]}\n", 30),
		"records non-array": "{\"items\":5}\n",
	}
	for _, c := range sparkModeCases {
		inputs["spark "+c.name] = strings.Repeat(strings.Join(c.records, "\n")+"\n", 10)
	}
	optsList := []Options{
		{SampleRows: 1},
		{SampleRows: 2},
		{SampleRows: 2, Strict: true},
		{SampleRows: 40},
		{Mode: "permissive"},
		{Mode: "DROPMALFORMED"},
		{Mode: "permissive", CorruptColumn: "bad"},
		{Mode: "failfast"},
		{Mode: "permissive", SampleRows: 1},
	}
	dir := t.TempDir()
	for name, in := range inputs {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".ndjson")
		require.NoError(t, os.WriteFile(path, []byte(in), 0o644))
		for _, o := range optsList {
			for _, rp := range []string{"", "items"} {
				if rp != "" && !strings.HasPrefix(name, "records") {
					continue
				}
				o := o
				o.RecordsPath = rp
				mem := frametest.CheckedAlloc(t)
				var wantStats, gotStats ReadStats
				wo := o
				wo.Allocator, wo.Stats = mem, &wantStats
				want, wantErr := ReadNDJSON([]byte(in), wo)
				so := o
				so.Allocator, so.Stats, so.BlockBytes = mem, &gotStats, 16
				got, gotErr := openAndCollect(path, so)
				msg := fmt.Sprintf("%s %+v", name, o)
				var me *MisfitError
				var se *SyntaxError
				if o.Strict && errors.As(gotErr, &me) && errors.As(wantErr, &se) {
					// A strict stream stops at the first problem in file
					// order; ReadNDJSON reports a syntax error anywhere first.
					require.Less(t, me.Offset, se.Offset, msg)
					continue
				}
				var wme *MisfitError
				if errors.As(wantErr, &wme) {
					// The same first misfit; a stream stops there, so it
					// cannot count the misfits after it.
					require.True(t, errors.As(gotErr, &me), "%s: %v", msg, gotErr)
					require.Equal(t, wme.Misfit, me.Misfit, msg)
					require.Equal(t, wme.SampleRows, me.SampleRows, msg)
					continue
				}
				if wantErr != nil {
					require.Error(t, gotErr, msg)
					require.Contains(t, gotErr.Error(), wantErr.Error(), msg)
					continue
				}
				require.NoError(t, gotErr, msg)
				require.Equal(t, dataframe.SchemaString(want.Schema()), dataframe.SchemaString(got.Schema()), msg)
				require.Equal(t, frametest.RowsJSON(t, want), frametest.RowsJSON(t, got), msg)
				require.Equal(t, wantStats, gotStats, msg)
				want.Release()
				got.Release()
			}
		}
	}
}

func openAndCollect(path string, o Options) (*dataframe.Frame, error) {
	s, err := OpenNDJSON(context.Background(), path, o)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	return dataframe.Collect(s)
}

// TestOpenNDJSONSampleAndModesRelease: sampled and lenient streams released
// half-read or cancelled give every buffer back.
func TestOpenNDJSONSampleAndModesRelease(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&in, "{\"a\":%d,\"s\":{\"x\":\"v%d\"}}\n{\"a\":2.5}\n", i, i)
	}
	in.WriteString("{\n") // malformed, line 601
	path := filepath.Join(t.TempDir(), "in.ndjson")
	require.NoError(t, os.WriteFile(path, []byte(in.String()), 0o644))
	for _, o := range []Options{{SampleRows: 5}, {Mode: ModePermissive}, {Mode: ModeDropMalformed}} {
		mem := frametest.CheckedAlloc(t)
		o.Allocator, o.BlockBytes = mem, 256
		if o.SampleRows > 0 {
			// The sampled read fails at the malformed last line, after
			// many batches: release after the error.
			s, err := OpenNDJSON(context.Background(), path, o)
			require.NoError(t, err)
			for s.Next() {
			}
			var se *SyntaxError
			require.True(t, errors.As(s.Err(), &se), "%v", s.Err())
			require.Equal(t, 601, se.Line)
			s.Release()
			continue
		}
		// Half read.
		s, err := OpenNDJSON(context.Background(), path, o)
		require.NoError(t, err)
		require.True(t, s.Next())
		s.Release()
		// Cancelled.
		ctx, cancel := context.WithCancel(context.Background())
		s, err = OpenNDJSON(ctx, path, o)
		require.NoError(t, err)
		require.True(t, s.Next())
		cancel()
		for s.Next() {
		}
		require.ErrorIs(t, s.Err(), context.Canceled)
		s.Release()
	}
}
