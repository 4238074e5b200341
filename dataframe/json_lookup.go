package dataframe

import (
	"fmt"
	"strings"
)

// JSONLookup returns the raw JSON text of the value at the dotted path in
// doc (`nextPageToken`, `meta.next`), scanning without building anything.
// found is false when a segment is missing or its parent is not an object.
// The whole document is checked: invalid JSON is a *SyntaxError. raw is a
// slice of doc.
func JSONLookup(doc []byte, path string) (raw []byte, found bool, err error) {
	segs := strings.Split(path, ".")
	for _, s := range segs {
		if s == "" {
			return nil, false, fmt.Errorf("dataframe: JSON path %q has an empty segment", path)
		}
	}
	return JSONLookupPath(doc, segs)
}

// JSONLookupPath is JSONLookup with the path given as its keys, which may
// hold dots themselves (`@odata.nextLink`).
func JSONLookupPath(doc []byte, segs []string) (raw []byte, found bool, err error) {
	s := &scanner{Data: doc, MaxDepth: DefaultMaxDepth}
	pos := s.SkipWS(0)
	if pos >= len(doc) {
		s.Fail(pos, "empty document")
		return nil, false, s.Err
	}
	start, end := -1, -1
	pos = s.lookup(pos, segs, 0, &start, &end)
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

// JSONLookupString is JSONLookup for a scalar: a string is decoded, a
// number or boolean is its text, and null counts as not found. An object or
// array is an error naming the path.
func JSONLookupString(doc []byte, path string) (string, bool, error) {
	raw, found, err := JSONLookup(doc, path)
	if err != nil || !found {
		return "", false, err
	}
	switch raw[0] {
	case 'n':
		return "", false, nil
	case '"':
		s := &scanner{Data: raw}
		end, flags := s.ScanString(0)
		var buf []byte
		return string(StringBody(raw, 0, end, flags, &buf)), true, nil
	case '{', '[':
		return "", false, fmt.Errorf("dataframe: JSON path %q holds %s, not a scalar", path, KindName(raw[0]))
	}
	return string(raw), true, nil
}

func (s *scanner) lookup(pos int, path []string, depth int, start, end *int) int {
	return s.WalkPath(pos, path, depth, func(pos, depth int) int {
		e := s.SkipValue(pos, depth)
		if e >= 0 {
			*start, *end = pos, e
		}
		return e
	})
}
