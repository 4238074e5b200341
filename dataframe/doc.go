// Package dataframe is Sluice's frame layer: an Arrow-first Frame (schema plus
// record batches) with JSON inference that follows Spark's rules, operations
// (project, filter, limit, explode, flatten, concat), a bridge to gota, and
// printers and file IO (Parquet, Arrow IPC, CSV, NDJSON).
//
// Arrow is imported only here, so the Arrow major version is swapped in one
// place. The package knows nothing of catalogs, HTTP or SQL.
//
//	f, err := dataframe.ReadJSON(body, dataframe.JSONOptions{RecordsPath: "items"})
//	if err != nil { … }
//	defer f.Release()
//	fmt.Print(dataframe.SchemaString(f.Schema()))
package dataframe
