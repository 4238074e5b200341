package restapi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		next string
		attr map[string]string
	}{
		{[]string{`<https://api.github.com/repos/o/r/issues?page=2>; rel="next", <https://api.github.com/repos/o/r/issues?page=5>; rel="last"`},
			"https://api.github.com/repos/o/r/issues?page=2", nil},
		{[]string{`<https://x.okta.com/api/v1/users?limit=2>; rel="self"`, `<https://x.okta.com/api/v1/users?after=00u1&limit=2>; rel="next"`},
			"https://x.okta.com/api/v1/users?after=00u1&limit=2", nil},
		{[]string{`<https://sentry.io/api/0/x/?&cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <https://sentry.io/api/0/x/?&cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"`},
			"https://sentry.io/api/0/x/?&cursor=0:100:0", map[string]string{"results": "true", "cursor": "0:100:0"}},
		{[]string{`</p?a=1,2;b>; REL=Next; title="a, \"b\"; c"`}, "/p?a=1,2;b", map[string]string{"title": `a, "b"; c`}},
		{[]string{`<u1>; rel="prev next"`}, "u1", nil},
		{[]string{`garbage, <u2>; rel=next`}, "u2", nil},
		{[]string{`<u3>; rel="next"; rel="last"`}, "u3", nil},
		{[]string{`<u4>; rel="last"`, ``, `<u5`}, "", nil},
	}
	for _, tt := range tests {
		var next *link
		for _, l := range parseLinks(tt.in) {
			if l.hasRel("next") {
				l := l
				next = &l
				break
			}
		}
		if tt.next == "" {
			require.Nil(t, next, "%q", tt.in)
			continue
		}
		require.NotNil(t, next, "%q", tt.in)
		require.Equal(t, tt.next, next.target)
		for k, v := range tt.attr {
			require.Equal(t, v, next.params[k])
		}
	}
}

// FuzzParseLinks: any header parses without a panic, every target is what
// stood between < and > in the input, and a well-formed next link written
// after any prefix that ends a link is found.
func FuzzParseLinks(f *testing.F) {
	f.Add(`<https://h/p?page=2>; rel="next", <https://h/p?page=9>; rel="last"`)
	f.Add(`<a>; rel="previous"; results="false"; cursor="0:0:1"`)
	f.Add(`<;,>; x="\"<>,;"; rel=next`)
	f.Add(`<`)
	f.Fuzz(func(t *testing.T, v string) {
		for _, l := range parseLinks([]string{v}) {
			if !strings.Contains(v, "<"+l.target) && !strings.Contains(v, l.target+">") {
				t.Fatalf("target %q is not in %q", l.target, v)
			}
		}
		links := parseLinks([]string{v, `<https://next.example/p>; rel="next"`})
		found := false
		for _, l := range links {
			if l.hasRel("next") && l.target == "https://next.example/p" {
				found = true
			}
		}
		if !found {
			t.Fatalf("a second Link field's next link was lost after %q", v)
		}
	})
}
