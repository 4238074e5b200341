// Package jsonpath finds the value at a dotted path in a JSON document
// without building anything (pagination tokens, response fields), with the
// scanner the JSON reader uses (internal/jsontext). Invalid JSON is a
// *jsontext.SyntaxError, which the public API names
// jsonframe.SyntaxError. See docs/frames.md#json--frame.
package jsonpath

import (
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/internal/jsontext"
)

// Lookup returns the raw JSON text of the value at the dotted path in doc
// (`nextPageToken`, `meta.next`), scanning without building anything.
// found is false when a segment is missing or its parent is not an object.
// The whole document is checked: invalid JSON is a *jsontext.SyntaxError.
// raw is a slice of doc.
func Lookup(doc []byte, path string) (raw []byte, found bool, err error) {
	segs := strings.Split(path, ".")
	for _, s := range segs {
		if s == "" {
			return nil, false, fmt.Errorf("JSON path %q has an empty segment", path)
		}
	}
	return LookupPath(doc, segs)
}

// LookupPath is Lookup with the path given as its keys, which may hold
// dots themselves (`@odata.nextLink`).
func LookupPath(doc []byte, segs []string) (raw []byte, found bool, err error) {
	s := &jsontext.Scanner{Data: doc, MaxDepth: jsontext.DefaultMaxDepth}
	pos := s.SkipWS(0)
	if pos >= len(doc) {
		s.Fail(pos, "empty document")
		return nil, false, s.Err
	}
	start, end := -1, -1
	pos = s.WalkPath(pos, segs, 0, func(pos, depth int) int {
		e := s.SkipValue(pos, depth)
		if e >= 0 {
			start, end = pos, e
		}
		return e
	})
	if pos < 0 {
		return nil, false, s.Err
	}
	if pos = s.SkipWS(pos); pos < len(doc) {
		s.Fail(pos, "%s after the JSON value", s.Describe(pos))
		return nil, false, s.Err
	}
	if start < 0 {
		return nil, false, nil
	}
	return doc[start:end], true, nil
}

// LookupString is Lookup for a scalar: a string is decoded, a number or
// boolean is its text, and null counts as not found. An object or array is
// an error naming the path.
func LookupString(doc []byte, path string) (string, bool, error) {
	raw, found, err := Lookup(doc, path)
	if err != nil || !found {
		return "", false, err
	}
	switch raw[0] {
	case 'n':
		return "", false, nil
	case '"':
		s := &jsontext.Scanner{Data: raw}
		end, flags := s.ScanString(0)
		var buf []byte
		return string(jsontext.StringBody(raw, 0, end, flags, &buf)), true, nil
	case '{', '[':
		return "", false, fmt.Errorf("JSON path %q holds %s, not a scalar", path, jsontext.KindName(raw[0]))
	}
	return string(raw), true, nil
}
