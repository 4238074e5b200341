package csvframe_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func ExampleWrite() {
	f, err := jsonframe.ReadDocument([]byte(`[{"a": 1, "b": "x, y", "c": {"d": [1, 2]}}, {"a": null, "b": "", "c": null}]`), jsonframe.Options{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	if err := csvframe.Write(os.Stdout, f); err != nil {
		panic(err)
	}
	// Output:
	// a,b,c
	// 1,"x, y","{""d"":[1,2]}"
	// ,"",
}

func ExampleRead() {
	f, err := csvframe.Read(strings.NewReader("id,score,ok\n1,2.5,true\n2,,false\n"), csvframe.Options{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	fmt.Print(dataframe.SchemaString(f.Schema()))
	// Output:
	// root
	//  |-- id: long (nullable = true)
	//  |-- score: double (nullable = true)
	//  |-- ok: boolean (nullable = true)
}
