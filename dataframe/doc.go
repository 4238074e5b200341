// Package dataframe is Sluice's frame: an Arrow-first Frame (schema plus
// record batches) and its stream form (Stream, a record-batch reader), the
// operations on frames (project, filter, limit, explode, flatten, concat),
// and the table printer.
//
// The family around it: dataframe/jsonframe reads JSON with Spark's
// inference (documents and NDJSON in memory, NDJSON files streamed in two
// passes) and builds frames from Go values, dataframe/sparktype holds
// Spark's type rules,
// dataframe/fileio the file formats (Parquet, Arrow IPC, CSV, NDJSON, JSON)
// as streams and frames, dataframe/gotabridge the conversion to and from
// gota, and dataframe/query the SQL executor. Arrow is imported only in
// this family, so the Arrow major version is swapped in one place. See
// docs/frames.md.
//
// Every operation returns a new frame or stream that owns its memory; the
// caller releases what it creates.
//
//	f, err := jsonframe.ReadDocument(body, jsonframe.Options{RecordsPath: "items"})
//	if err != nil { … }
//	defer f.Release()
//	fmt.Print(dataframe.SchemaString(f.Schema()))
package dataframe
