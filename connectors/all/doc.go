// Package all registers every Sluice connector. Import it for its side
// effects, as Benthos' components/all:
//
//	import _ "github.com/sluicedata/sluice/connectors/all"
//
//	c, err := connectors.Lookup("RESTAPI")
//
// Each connector package registers itself in init(); all.go only imports
// them, one line each.
package all
