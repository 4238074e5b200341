package sparktype

import (
	"sort"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
)

// Compare orders field names as Spark does (Java's String.compareTo, which
// compares UTF-16 code units): -1, 0 or +1. It differs from Go's byte order
// only where a character beyond U+FFFF (a surrogate pair in UTF-16) meets
// one in U+E000–U+FFFF: Java puts the first before the second.
func Compare(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return 1
		}
		return 0
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		if a[i] < b[i] {
			return -1
		}
		return 1
	}
	// Back up to the start of the differing characters.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ua, ub := firstUnit(ra), firstUnit(rb)
	switch {
	case ua < ub:
		return -1
	case ua > ub:
		return 1
	case ra < rb: // same high surrogate: the low ones follow code point order
		return -1
	}
	return 1
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

// Less is Compare(a, b) < 0.
func Less(a, b string) bool { return Compare(a, b) < 0 }

// SortFields sorts fields into Spark's order, keeping equal names in their
// order.
func SortFields(fs []arrow.Field) {
	sort.SliceStable(fs, func(i, j int) bool { return Less(fs[i].Name, fs[j].Name) })
}
