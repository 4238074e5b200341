package fn

import (
	"fmt"
	"regexp"
	"strings"
)

// LikeRegexp translates a SQL LIKE pattern (`%` any run, `_` any one
// character, esc quoting the next `%`, `_` or itself) into an anchored
// regular expression; fold makes it case-insensitive (ILIKE). See
// docs/sql.md#like.
func LikeRegexp(pat string, esc rune, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		ch := rs[i]
		switch {
		case ch == esc:
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("the pattern %q ends with the escape character", pat)
			}
			i++
			if rs[i] != '%' && rs[i] != '_' && rs[i] != esc {
				return nil, fmt.Errorf("the escape character in %q may only precede %%, _ or itself", pat)
			}
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case ch == '%':
			b.WriteString(".*")
		case ch == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
