package sparktype_test

import (
	"fmt"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

func ExampleParseType() {
	dt, err := sparktype.ParseType("struct<id:bigint,tags:array<string>>")
	if err != nil {
		panic(err)
	}
	fmt.Println(sparktype.Name(dt))
	// Output:
	// struct<id:long,tags:array<string>>
}
