package dataframe

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// The Arrow types that appear in the signatures of Sluice's own packages,
// named here so that packages outside the dataframe family (catalog,
// pipelines, connectors, notifications) need not import Arrow: the Arrow
// major version is then swapped in one place (docs/frames.md#arrow).
type (
	// Record is one record batch of a frame or stream.
	Record = arrow.Record
	// Schema is a frame's or stream's column list.
	Schema = arrow.Schema
	// Field is one column of a Schema.
	Field = arrow.Field
	// DataType is a column's type; dataframe/sparktype names the Spark ones.
	DataType = arrow.DataType
	// Allocator allocates a frame's buffers; a checked allocator
	// (memory.NewCheckedAllocator) finds leaks in tests.
	Allocator = memory.Allocator
)

// DefaultAllocator is Go's allocator for Arrow buffers.
var DefaultAllocator = memory.DefaultAllocator

// NewSchema is a schema of the given columns, without metadata.
func NewSchema(fields []Field) *Schema { return arrow.NewSchema(fields, nil) }
