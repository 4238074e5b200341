package jsonframe_test

import (
	"fmt"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func ExampleReadDocument() {
	body := []byte(`{"kind":"list","nextPageToken":"CAUQAA",
	  "pageInfo":{"totalResults":2},
	  "items":[{"id":"a","snippet":{"title":"Caf\u00e9","views":12}},
	           {"id":"b","snippet":{"title":"TED","views":4.5}}]}`)
	f, err := jsonframe.ReadDocument(body, jsonframe.Options{RecordsPath: "items"})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	fmt.Print(dataframe.SchemaString(f.Schema()))
	_ = f.EachRowJSON(func(_ int64, obj []byte) error {
		fmt.Println(string(obj))
		return nil
	})
	// Output:
	// root
	//  |-- id: string (nullable = true)
	//  |-- snippet: struct (nullable = true)
	//  |    |-- title: string (nullable = true)
	//  |    |-- views: double (nullable = true)
	// {"id":"a","snippet":{"title":"Café","views":12.0}}
	// {"id":"b","snippet":{"title":"TED","views":4.5}}
}

func ExampleReadNDJSON() {
	f, err := jsonframe.ReadNDJSON([]byte("{\"a\":1}\n\n{\"a\":\"x\",\"b\":[1,2]}\n"), jsonframe.Options{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	fmt.Print(dataframe.SchemaString(f.Schema()))
	// Output:
	// root
	//  |-- a: string (nullable = true)
	//  |-- b: array (nullable = true)
	//  |    |-- element: long (containsNull = true)
}

func ExampleSyntaxError() {
	_, err := jsonframe.ReadDocument([]byte(`{"a":1,}`), jsonframe.Options{})
	fmt.Println(err)
	// Output:
	// invalid JSON at byte offset 7: expected a field name: unexpected character '}'
}

func ExampleFromValues() {
	f, err := jsonframe.FromValues([]string{"name", "n", "tags"}, [][]any{
		{"a", 1, []string{"x"}},
		{nil, 2, nil},
	})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	fmt.Print(dataframe.SchemaString(f.Schema()))
	// Output:
	// root
	//  |-- name: string (nullable = true)
	//  |-- n: long (nullable = true)
	//  |-- tags: array (nullable = true)
	//  |    |-- element: string (containsNull = true)
}
