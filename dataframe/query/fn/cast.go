package fn

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/compute"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Cast converts arr to type to with Spark's CAST semantics under
// spark.sql.ansi.enabled=false: a value that does not convert becomes NULL
// rather than an error (see docs/sql.md#cast). The executor uses it for
// CAST(x AS t) and for implicit casts; functions use it for theirs. The
// caller releases the result (arr itself, retained, when no conversion is
// needed).
//
// An error means the conversion between the two types does not exist in
// Spark (array to long); its message names both types.
func Cast(mem memory.Allocator, arr arrow.Array, to arrow.DataType) (arrow.Array, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if arrow.TypeEqual(arr.DataType(), to) {
		arr.Retain()
		return arr, nil
	}
	if arr.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(mem, to, arr.Len()), nil
	}
	ctx := compute.WithAllocator(context.Background(), mem)
	out, err := compute.CastArray(ctx, arr, compute.UnsafeCastOptions(to))
	if err != nil {
		return nil, fmt.Errorf("cannot cast %s to %s: %w", arr.DataType(), to, err)
	}
	return out, nil
}
