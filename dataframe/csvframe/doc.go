// Package csvframe reads and writes CSV as frames: a header row, column
// types inferred over every row (long, double, boolean, else string), read
// from memory (Read) or streamed from a file in two passes (Open), and
// written with RFC 4180 quoting that keeps null and "" apart (Write,
// Writer). It is the CSV of dataframe/fileio and of the RESTAPI connector,
// kept apart from fileio so that a program reading CSV from an API does not
// link the Parquet and Arrow IPC code (see docs/frames.md#formats).
//
//	f, err := csvframe.Read(resp.Body, csvframe.Options{})
//	if err != nil { … }
//	defer f.Release()
package csvframe
