package fileio

import (
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// Dictionary encoding only pays when values repeat. pqarrow tries it on
// every column and falls back to plain encoding once the dictionary grows
// past its page limit — after hashing and copying every value of a column
// of ids, URLs or free text for nothing. That was the largest single cost
// of writing JSON-shaped data. So each row group's leaf columns are sampled
// first, and a column whose sample is mostly distinct is written plain.

const (
	dictSample   = 1024 // values sampled per leaf column
	dictMaxRatio = 0.5  // distinct/sampled above which a column is written plain
)

// plainColumns returns writer properties that turn dictionary encoding off
// for the leaf columns of recs (one row group) whose values are mostly
// distinct.
func plainColumns(schema *arrow.Schema, recs []arrow.Record, props *parquet.WriterProperties, arrProps pqarrow.ArrowWriterProperties) []parquet.WriterProperty {
	pqSchema, err := pqarrow.ToParquet(schema, props, arrProps)
	if err != nil || len(recs) == 0 {
		return nil // the writer reports the schema problem itself
	}
	// Leaves in depth-first order are the Parquet columns in order.
	var leaves [][]arrow.Array
	var slices []arrow.Array
	defer func() {
		for _, a := range slices {
			a.Release()
		}
	}()
	var walk func(cols []arrow.Array)
	walk = func(cols []arrow.Array) {
		switch a := cols[0].(type) {
		case *array.Struct:
			for k := 0; k < a.NumField(); k++ {
				sub := make([]arrow.Array, len(cols))
				for i, c := range cols {
					sub[i] = c.(*array.Struct).Field(k)
				}
				walk(sub)
			}
		case array.ListLike:
			sub := make([]arrow.Array, len(cols))
			for i, c := range cols {
				l := c.(array.ListLike)
				// The values the list cells of this slice cover.
				start, end := int64(0), int64(0)
				if l.Len() > 0 {
					start, _ = l.ValueOffsets(0)
					_, end = l.ValueOffsets(l.Len() - 1)
				}
				sub[i] = array.NewSlice(l.ListValues(), start, end)
				slices = append(slices, sub[i])
			}
			walk(sub)
		default:
			leaves = append(leaves, cols)
		}
	}
	for c := 0; c < int(recs[0].NumCols()); c++ {
		cols := make([]arrow.Array, len(recs))
		for i, r := range recs {
			cols[i] = r.Column(c)
		}
		if _, isMap := cols[0].DataType().(*arrow.MapType); isMap {
			return nil // map leaves are keys and values: not worth the bookkeeping
		}
		walk(cols)
	}
	if len(leaves) != pqSchema.NumColumns() {
		return nil
	}
	var opts []parquet.WriterProperty
	for i, chunks := range leaves {
		if mostlyDistinct(chunks) {
			opts = append(opts, parquet.WithDictionaryPath(pqSchema.Column(i).ColumnPath(), false))
		}
	}
	return opts
}

// mostlyDistinct samples up to dictSample non-null values evenly over
// chunks and reports whether more than dictMaxRatio of them are distinct.
func mostlyDistinct(chunks []arrow.Array) bool {
	var total int
	for _, c := range chunks {
		total += c.Len() - c.NullN()
	}
	if total < 64 {
		return false // too few to matter either way
	}
	step := max(1, total/dictSample)
	seenStr := make(map[string]struct{}, dictSample)
	seenNum := make(map[uint64]struct{}, dictSample)
	sampled, k := 0, 0
	for _, c := range chunks {
		for i := 0; i < c.Len(); i++ {
			if c.IsNull(i) {
				continue
			}
			k++
			if k%step != 0 {
				continue
			}
			sampled++
			switch a := c.(type) {
			case *array.String:
				seenStr[a.Value(i)] = struct{}{}
			case *array.LargeString:
				seenStr[a.Value(i)] = struct{}{}
			case *array.Binary:
				seenStr[string(a.Value(i))] = struct{}{}
			case *array.Int64:
				seenNum[uint64(a.Value(i))] = struct{}{}
			case *array.Int32:
				seenNum[uint64(a.Value(i))] = struct{}{}
			case *array.Float64:
				seenNum[math.Float64bits(a.Value(i))] = struct{}{}
			case *array.Timestamp:
				seenNum[uint64(a.Value(i))] = struct{}{}
			default:
				return false // booleans and the rest: leave pqarrow's default
			}
		}
	}
	return float64(len(seenStr)+len(seenNum)) > dictMaxRatio*float64(sampled)
}
