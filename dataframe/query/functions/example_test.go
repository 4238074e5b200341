package functions_test

import (
	"fmt"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Binding substr(s, 5) once and evaluating it over a column, as the query
// executor does.
func Example() {
	s, _ := fn.Lookup("substr")
	bound, err := s.Bind([]fn.Arg{
		{Type: arrow.BinaryTypes.String},
		{Type: arrow.PrimitiveTypes.Int32, Const: true, Value: int32(5)},
	})
	if err != nil {
		panic(err)
	}
	mem := memory.DefaultAllocator
	b := array.NewStringBuilder(mem)
	b.AppendValues([]string{"Spark SQL", "ab"}, nil)
	col := b.NewArray()
	defer col.Release()
	pos := array.NewInt32Builder(mem)
	pos.AppendValues([]int32{5, 5}, nil)
	posArr := pos.NewArray()
	defer posArr.Release()
	out, err := bound.Eval(&fn.Ctx{Mem: mem, Now: time.Now()}, []arrow.Array{col, posArr}, 2)
	if err != nil {
		panic(err)
	}
	defer out.Release()
	fmt.Println(bound.Type, out)
	// Output: utf8 ["k SQL" ""]
}
