package jsonframe

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/internal/jsontext"
)

// refLines splits d at "\r\n", "\r" and "\n" the slow, obvious way and
// keeps the non-blank lines with their offsets.
func refLines(d []byte) (lines []string, bases []int64) {
	start := 0
	emit := func(end int) {
		l := d[start:end]
		if len(bytes.Trim(l, " \t\r\n")) > 0 {
			lines = append(lines, string(l))
			bases = append(bases, int64(start))
		}
	}
	for i := 0; i < len(d); i++ {
		switch d[i] {
		case '\n':
			emit(i)
			start = i + 1
		case '\r':
			emit(i)
			if i+1 < len(d) && d[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	emit(len(d))
	return lines, bases
}

func FuzzSplitLines(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n{\"a\":2}", "a\r\nb\rc\n\n\r\r\nd", "\r", "\n\r", " \t\r\n", "x\r\r\ny"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		wantLines, wantBases := refLines(d)
		var gotLines []string
		var gotBases []int64
		for _, sp := range splitLines(docSpan{data: d, base: 0}) {
			gotLines = append(gotLines, string(sp.data))
			gotBases = append(gotBases, sp.base)
		}
		require.Equal(t, wantLines, gotLines)
		require.Equal(t, wantBases, gotBases)
		// Chunks cut at line breaks cover the input and split no line.
		var all []string
		for _, c := range splitChunks([]docSpan{{data: d}}, true, splitting{workers: 4, minParallel: 1, chunkMin: 1}) {
			for _, sp := range splitLines(c.spans[0]) {
				all = append(all, string(sp.data))
			}
		}
		require.Equal(t, wantLines, all)
		// Line numbers count every kind of break.
		for i, b := range wantBases {
			want := 1 + bytes.Count(d[:b], []byte("\n")) + bytes.Count(d[:b], []byte("\r")) - bytes.Count(d[:b], []byte("\r\n"))
			require.Equal(t, want, jsontext.LineOf(d, b), "line %d", i)
		}
	})
}
