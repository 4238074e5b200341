// Package all registers every Sluice connector. Import it for its side
// effects, as Benthos' components/all:
//
//	import _ "github.com/sluicedata/sluice/connectors/all"
//
// Each connector package registers itself in init(); this file only imports
// them, one line each.
package all
