package dataframe

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// The Spark type rules live in package sparktype (see docs/inference.md);
// these names stay for callers of the frame layer.

// TimestampType is the Arrow type Sluice uses for Spark's `timestamp`:
// milliseconds since the epoch in UTC (sparktype.TimestampType).
var TimestampType = sparktype.TimestampType

// SchemaString renders s the way Spark's printSchema does
// (sparktype.SchemaString).
func SchemaString(s *arrow.Schema) string { return sparktype.SchemaString(s) }

// SparkType is Spark's simpleString of dt (sparktype.Name).
func SparkType(dt arrow.DataType) string { return sparktype.Name(dt) }

// ParseSparkType reads a Spark type string (sparktype.ParseType).
func ParseSparkType(s string) (arrow.DataType, error) { return sparktype.ParseType(s) }
