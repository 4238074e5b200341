// Package connectors is the registry of dataset connectors and what they
// share: DataSetProperties, the Connector interface with its optional
// capabilities (Writer, StreamReader/StreamWriter, Validator, SpoolReader,
// ScanReader for a query's pushdown, IncrementalReader and FanoutReader — see
// docs/incremental.md —, StateStore for exactly-once loads — see
// docs/jdbc.md —, SchemaReader, Overwriter for INSERT OVERWRITE), typed
// property getters and secret redaction (a ${env:…}/${file:…} reference is
// no secret).
//
// Connectors register themselves by type name in init(), like database/sql
// drivers; import connectors/all to get them all:
//
//	import _ "github.com/sluicedata/sluice/connectors/all"
//
//	c, err := connectors.Lookup("RESTAPI")
package connectors
