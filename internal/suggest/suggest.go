// Package suggest finds the known name closest to a mistyped one, for the
// "did you mean" part of error messages.
package suggest

import (
	"sort"
	"strings"
)

// Closest returns the candidate within edit distance 2 of name
// (case-insensitively), the nearest one, ties going to the first in sorted
// order; ok is false when none is that close.
func Closest(name string, candidates []string) (string, bool) {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", 3
	low := strings.ToLower(name)
	for _, c := range sorted {
		if d := distance(low, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD <= 2
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
