// Package jsonframe reads JSON into frames with the schema Apache Spark's
// spark.read.json would infer: one document (ReadDocument), several API
// pages (ReadDocuments), JSON lines in memory (ReadNDJSON) and JSON lines
// from a file as a stream of record batches (OpenNDJSON: two passes, infer
// then build, memory bounded by the block size, not the file). FromValues
// builds a frame from Go values typed as their JSON form.
//
// Options carry the records path, sampling (SampleRows, Strict) and Spark's
// malformed-record modes; invalid JSON is a *SyntaxError with its byte
// offset and line. The inference rules are in docs/inference.md, the
// streaming model in docs/frames.md.
//
//	f, err := jsonframe.ReadDocument(body, jsonframe.Options{RecordsPath: "items"})
//	if err != nil { … }
//	defer f.Release()
//	fmt.Print(dataframe.SchemaString(f.Schema()))
package jsonframe
