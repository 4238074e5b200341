package jsonframe

import "github.com/sluicedata/sluice/internal/jsontext"

// SyntaxError is invalid JSON input. Offset is the 0-based byte offset of
// the problem in the document (for ReadNDJSON: in the whole input, and Line
// is the 1-based line). Doc is the 0-based index of the document among
// several; Docs is how many there were. Its Error reads
// "invalid JSON at byte offset N (line L): msg in document D".
type SyntaxError = jsontext.SyntaxError

// scanner is the shared JSON scanner (internal/jsontext) with what the
// reader adds: the records path, sampling, fused splitting and misfits.
type scanner struct {
	jsontext.Scanner
	recordsPath string
	rowLimit    int64 // sampling: stop pass 1 after this many rows
	stopped     bool  // sampling stopped pass 1
	stopAt      int   // where it stopped
	cutAt       int   // fused split: the element where the next part starts
	cutTo       int   // fused split: the rows array's closing ']'
	lenient     bool  // fused pass of a sampled read: misfits become null
	misfits     int64 // values that did not fit and became null
	firstMisfit *Misfit
}
