package query

// The scalar function library registers itself in package fn when it is
// imported; importing it here lets Compile find every function without a
// blank import by the caller.
import _ "github.com/sluicedata/sluice/dataframe/query/functions"
