// Package suggest finds the name a user probably meant: the one did-you-mean
// rule behind every "unknown X (did you mean Y?)" message (properties,
// commands, flags, tables, columns, functions, step kinds).
package suggest

import (
	"sort"
	"strings"
)

// MaxDistance is the largest edit distance a suggestion may have.
const MaxDistance = 2

// Closest returns the candidate nearest to name within MaxDistance edits,
// compared case-insensitively; ties go to the candidate first in sorted
// order, so the answer does not depend on the order of candidates. A
// candidate equal to name is not a suggestion, nor one reached by rewriting
// every character of the shorter of the two.
func Closest(name string, candidates []string) (string, bool) {
	lname := strings.ToLower(name)
	best, bestD := "", MaxDistance+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := Distance(lname, strings.ToLower(c), bestD+1)
		if d >= len(lname) || d >= len(c) {
			continue // "zz" → "o" rewrites the whole name: no suggestion
		}
		if d < bestD || (d == bestD && d <= MaxDistance && c < best) {
			best, bestD = c, d
		}
	}
	return best, bestD <= MaxDistance
}

// Phrase is Closest as the tail of an error message: ` (did you mean "x"?)`,
// or "" when nothing is close.
func Phrase(name string, candidates []string) string {
	if s, ok := Closest(name, candidates); ok {
		return ` (did you mean "` + s + `"?)`
	}
	return ""
}

// Sorted returns the keys of m in order, for error messages that list them.
func Sorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Distance is the Levenshtein distance of a and b (bytes), or limit when it
// is limit or more: the rows stop early.
func Distance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
