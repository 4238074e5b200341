// Package dataframe is Sluice's frame layer: an Arrow-first Frame (schema plus
// record batches) with JSON inference that follows Spark's rules, operations
// (project, filter, limit, explode, flatten, concat), a bridge to gota, and
// printers and file IO (Parquet, Arrow IPC, CSV, NDJSON).
//
// JSON is read by a byte-level scanner, not encoding/json: usually one pass
// against a schema sampled from the first rows, falling back to two passes
// (infer, then build) whenever the sample did not foresee the input, so the
// result is always that of the full inference. Every operation returns a new
// frame that owns its memory; the caller releases what it creates.
//
// Arrow is imported only here, so the Arrow major version is swapped in one
// place. The package knows nothing of catalogs, HTTP or SQL.
//
//	f, err := dataframe.ReadJSON(body, dataframe.JSONOptions{RecordsPath: "items"})
//	if err != nil { … }
//	defer f.Release()
//	fmt.Print(dataframe.SchemaString(f.Schema()))
package dataframe
