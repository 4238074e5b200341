package functions

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCompilePatternErrors(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"yyyy-ww":     "week-based letter 'w' is not supported",
		"yyyy-MM-dd'": "unterminated quote at 11",
		"HHH":         "too many pattern letters: HHH",
		"yyyy]":       "unmatched ']' at 5",
		"[yyyy":       "unterminated '[' at 1",
		"bb":          "unknown pattern letter 'b'",
		// Spark 3 refuses the narrow (five-letter) text forms and years of
		// seven digits (timestamp.sql, date.sql: SparkUpgradeException).
		"dd/MMMMM/yyyy":     "too many pattern letters: MMMMM",
		"yyyy-MM-dd GGGGG":  "too many pattern letters: GGGGG",
		"dd MM yyyy EEEEEE": "too many pattern letters: EEEEEE",
		"yyyyyyy":           "too many pattern letters: yyyyyyy",
		"OO":                "pattern letter count must be 1 or 4: O",
		"yyyy#MM":           "reserved character '#'",
	} {
		_, err := compilePattern(p)
		require.ErrorContains(t, err, want, p)
	}
	for _, p := range []string{"dd/MMMM/yyyy", "yyyyyy", "EEEE", "GGGG", "O", "OOOO", "'#{}'"} {
		_, err := compilePattern(p)
		require.NoError(t, err, p)
	}
}

func TestCompileParsePattern(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"dd MM yyyy EEEE": "pattern letter 'E' cannot be used to parse",
		"yyyy QQ":         "pattern letter 'Q' cannot be used to parse",
		"yyyy[ qqq]":      "pattern letter 'q' cannot be used to parse",
		"dd/MMMMM/yyyy":   "too many pattern letters: MMMMM",
	} {
		_, err := compileParsePattern(p)
		require.ErrorContains(t, err, want, p)
		if strings.Contains(want, "cannot be used to parse") {
			_, err := compilePattern(p)
			require.NoError(t, err, "%s formats", p)
		}
	}
	_, err := compileParsePattern("yyyy-MM-dd'E'HH")
	require.NoError(t, err, "a quoted letter is text")
}

func TestPatternQuotes(t *testing.T) {
	t.Parallel()
	p, err := compilePattern("yyyy'T''s'''")
	require.NoError(t, err)
	us := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	require.Equal(t, "2015T's'", string(p.format(nil, us, nil)))
	got, ok := p.parse("2015T's'", nil)
	require.True(t, ok)
	require.Equal(t, us, got)
}

// FuzzPattern: any pattern compiles or fails with an error, never panics;
// where text formatted with a pattern of numeric fields parses back, it
// denotes the same instant.
func FuzzPattern(f *testing.F) {
	for _, p := range []string{"yyyy-MM-dd HH:mm:ss", "yyyyMMdd", "dd/MM/yy h:mm a", "EEE, d MMM yyyy HH:mm:ss Z", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "[yyyy]MM", "''", "D"} {
		f.Add(p, "2015-03-05 09:32:05")
	}
	ref := time.Date(2015, 3, 5, 9, 32, 5, 359_000_000, time.UTC).UnixMicro()
	f.Fuzz(func(t *testing.T, pattern, text string) {
		p, err := compilePattern(pattern)
		if err != nil {
			if !strings.Contains(err.Error(), "datetime pattern") {
				t.Fatalf("error %q does not name the pattern", err)
			}
			return
		}
		p.parse(text, nil)
		out := p.format(nil, ref, nil)
		back, ok := p.parse(string(out), nil)
		if !ok || strings.ContainsAny(pattern, "EQqGzVOaDhKkXxZ[]'") {
			return
		}
		if again := p.format(nil, back, nil); string(again) != string(out) {
			t.Fatalf("pattern %q: %q parsed back formats as %q", pattern, out, again)
		}
	})
}
