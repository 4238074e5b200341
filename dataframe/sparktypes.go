package dataframe

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// SchemaString renders s the way Spark's printSchema does: the frame
// layer's name for sparktype.SchemaString, whose package holds every other
// Spark type rule (type names, parsing, merging: see docs/inference.md).
func SchemaString(s *arrow.Schema) string { return sparktype.SchemaString(s) }
