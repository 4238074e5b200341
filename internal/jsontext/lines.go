package jsontext

import "bytes"

// JSON lines end at "\n", "\r\n" or a lone "\r", as Spark's line reader
// splits them (see docs/inference.md#json-lines). A raw CR or LF cannot
// occur inside a JSON string, so a break is never inside a value's text.

// LineBreak is the index in d of the next "\n" or "\r", or -1. hasCR says
// whether the input holds any "\r" at all: without one the search is a
// single IndexByte.
func LineBreak(d []byte, hasCR bool) int {
	nl := bytes.IndexByte(d, '\n')
	if !hasCR {
		return nl
	}
	limit := d
	if nl >= 0 {
		limit = d[:nl]
	}
	if cr := bytes.IndexByte(limit, '\r'); cr >= 0 {
		return cr
	}
	return nl
}

// LineOf is the 1-based line of offset off in d.
func LineOf(d []byte, off int64) int {
	if off > int64(len(d)) {
		off = int64(len(d))
	}
	before := d[:off]
	n := 1 + bytes.Count(before, []byte{'\n'})
	if bytes.IndexByte(before, '\r') < 0 {
		return n
	}
	for i, c := range before {
		// A CR is a break of its own unless an LF follows it — also when
		// that LF is the byte at off (an offset inside a CRLF is on the
		// line the CRLF ends).
		if c == '\r' && (i+1 >= len(d) || d[i+1] != '\n') {
			n++
		}
	}
	return n
}
