package fn_test

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Spark's CAST without ANSI mode: what does not convert is NULL.
func ExampleCast() {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{" 42 ", "1.9", "abc"}, nil)
	in := b.NewArray()
	defer in.Release()
	out, err := fn.Cast(memory.DefaultAllocator, in, arrow.PrimitiveTypes.Int64)
	if err != nil {
		panic(err)
	}
	defer out.Release()
	fmt.Println(out)
	// Output: [42 1 (null)]
}
