package fn_test

import (
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

func arrowSlice(a arrow.Array, i, j int64) arrow.Array { return array.NewSlice(a, i, j) }
