package functions

import (
	"testing"

	regexp2 "github.com/dlclark/regexp2/v2"
	"github.com/stretchr/testify/require"
)

// javaMatches iterates bt as Java's Matcher.find() does (regexp2 follows
// .NET, which steps past an empty match the same way).
func javaMatches(t *testing.T, bt *regexp2.Regexp, s string) [][2]int {
	var out [][2]int
	m, err := bt.FindStringMatch(s)
	for ; err == nil && m != nil; m, err = bt.FindNextMatch(m) {
		start, n := m.Capture.ByteRange()
		out = append(out, [2]int{start, start + n})
	}
	require.NoError(t, err)
	return out
}

func re2Matches(t *testing.T, re *javaRegexp, s string) [][2]int {
	var out [][2]int
	require.NoError(t, re.findAll(s, func(m []int) bool {
		out = append(out, [2]int{m[0], m[1]})
		return true
	}))
	return out
}

// FuzzFindAllAgreesWithBacktracking: for a pattern RE2 takes, the matches
// findAll finds with RE2 (Go's FindAll plus the empty matches Java also
// finds) are the ones a backtracking engine finds iterating as Java does.
func FuzzFindAllAgreesWithBacktracking(f *testing.F) {
	for _, seed := range [][2]string{
		{`(\d+)?`, "1a 2b 14m"}, {`a*`, "baaab"}, {`\w*\b`, "ab cd"}, {`x*`, ""}, {`^|a`, "aa"},
		{`(?m)^a*`, "aa\naa\n"}, {`\B|b+`, "abba"}, {`a|`, "aab"}, {`(a|b)*?`, "ab"}, {`é*`, "éaé"},
		{`\d{2,}|\s*`, " 12 3 456"}, {`(?i)A*`, "aAb"}, {`$`, "ab"}, {`a??`, "aa"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := compileRegex(pattern)
		if err != nil || re.re == nil || len(s) > 64 {
			return
		}
		bt, err := regexp2.Compile(pattern, regexp2.RE2, regexp2.OptionMaintainCaptureOrder())
		if err != nil {
			return
		}
		if !validUTF8(s) {
			return
		}
		require.Equal(t, javaMatches(t, bt, s), re2Matches(t, re, s), "pattern %q on %q", pattern, s)
	})
}

func validUTF8(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' {
			return false
		}
	}
	return true
}

func TestEmptyMatchesAsJava(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pattern, s string }{
		{`(\d+)?`, "1a 2b 14m"}, {`a*`, "baaab"}, {`\w*\b`, "ab cd"}, {`(?m)^a*`, "aa\naa\n"}, {`a|`, "aab"},
	} {
		re, err := compileRegex(c.pattern)
		require.NoError(t, err)
		bt, err := regexp2.Compile(c.pattern, regexp2.RE2, regexp2.OptionMaintainCaptureOrder())
		require.NoError(t, err)
		require.Equal(t, javaMatches(t, bt, c.s), re2Matches(t, re, c.s), "pattern %q on %q", c.pattern, c.s)
	}
}
