// Package query is Sluice's one SQL executor: a query (the AST the parser in
// catalog/sql produces, or one built in Go) is compiled against its tables
// into a plan of physical operators over Arrow record batches — scan,
// filter, project, explode, hash join, hash aggregate, sort, top-N, limit,
// distinct, union — and run as a stream. `sluice sql`, Session.ExecuteBatch,
// the pipeline steps and catalog.SQLFrames all run on it. What streams and
// what is held in memory is in docs/sql.md#execution-and-memory.
package query
