// Package fileio reads and writes frames as files — Parquet, Arrow IPC,
// CSV, NDJSON and JSON — chosen by extension, both as streams of record
// batches (OpenFile, WriteStream: memory bounded by the batch, not the file)
// and as materialised frames (ReadFile, WriteFile). Writes are atomic and
// stop cleanly on a cancelled context. See docs/frames.md.
//
//	s, err := fileio.OpenFile(ctx, "events.ndjson", fileio.FileOptions{})
//	if err != nil { … }
//	defer s.Release()
//	rows, err := fileio.WriteStream(ctx, "events.parquet", s, fileio.FileOptions{})
package fileio
