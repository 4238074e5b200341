package jsonpath

import (
	"fmt"
	"strings"
)

// Split splits a dotted path into its keys, where `\.` is a dot inside a
// key (docs/restapi.md#dotted-paths): `data.object.id` → data, object, id;
// `a\.b.c` → a.b, c. An empty key is an error saying how to write a dot.
func Split(path string) ([]string, error) {
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path) && path[i+1] == '.':
			cur.WriteByte('.')
			i++
		case path[i] == '.':
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(path[i])
		}
	}
	segs = append(segs, cur.String())
	for _, k := range segs {
		if k == "" {
			return nil, fmt.Errorf("%q has an empty key (use \\. for a dot inside a key)", path)
		}
	}
	return segs, nil
}

// Whole is the path read as one key, its escapes removed: the key a
// dotted path matches first (`@odata.nextLink`).
func Whole(path string) string { return strings.ReplaceAll(path, `\.`, ".") }
