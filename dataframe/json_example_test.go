package dataframe_test

import (
	"fmt"

	"github.com/sluicedata/sluice/dataframe"
)

func ExampleReadJSON() {
	body := []byte(`{"kind":"list","nextPageToken":"CAUQAA",
	  "pageInfo":{"totalResults":2},
	  "items":[{"id":"a","snippet":{"title":"Caf\u00e9","views":12}},
	           {"id":"b","snippet":{"title":"TED","views":4.5}}]}`)
	f, err := dataframe.ReadJSON(body, dataframe.JSONOptions{RecordsPath: "items"})
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
	f, err := dataframe.ReadNDJSON([]byte("{\"a\":1}\n\n{\"a\":\"x\",\"b\":[1,2]}\n"), dataframe.JSONOptions{})
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

func ExampleJSONLookupString() {
	token, found, err := dataframe.JSONLookupString([]byte(`{"nextPageToken":"CAUQAA","items":[]}`), "nextPageToken")
	fmt.Println(token, found, err)
	// Output:
	// CAUQAA true <nil>
}

func ExampleSyntaxError() {
	_, err := dataframe.ReadJSON([]byte(`{"a":1,}`), dataframe.JSONOptions{})
	fmt.Println(err)
	// Output:
	// invalid JSON at byte offset 7: expected a field name: unexpected character '}'
}

func ExampleSparkType() {
	dt, err := dataframe.ParseSparkType("struct<id:bigint,tags:array<string>>")
	if err != nil {
		panic(err)
	}
	fmt.Println(dataframe.SparkType(dt))
	// Output:
	// struct<id:long,tags:array<string>>
}

func ExampleProject() {
	f, _ := dataframe.ReadJSON([]byte(`{"pageInfo":{"totalResults":7},"kind":"k"}`), dataframe.JSONOptions{})
	defer f.Release()
	p, err := dataframe.Project(f, []dataframe.Projection{{Path: "pageInfo.totalResults"}, {Path: "kind", Alias: "type"}})
	if err != nil {
		panic(err)
	}
	defer p.Release()
	_ = p.EachRowJSON(func(_ int64, obj []byte) error { fmt.Println(string(obj)); return nil })
	// Output:
	// {"totalResults":7,"type":"k"}
}

func ExampleFilter() {
	f, _ := dataframe.ReadJSON([]byte(`[{"n":1,"s":{"ok":true}},{"n":2,"s":null},{"n":3,"s":{"ok":false}}]`), dataframe.JSONOptions{})
	defer f.Release()
	kept, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
		ok, err := r.Get("s.ok")
		return ok == true, err
	})
	if err != nil {
		panic(err)
	}
	defer kept.Release()
	_ = kept.EachRowJSON(func(_ int64, obj []byte) error { fmt.Println(string(obj)); return nil })
	// Output:
	// {"n":1,"s":{"ok":true}}
}

func ExampleExplode() {
	f, _ := dataframe.ReadJSON([]byte(`{"page":1,"items":[{"id":"a"},{"id":"b"}]}`), dataframe.JSONOptions{})
	defer f.Release()
	rows, err := dataframe.Explode(f, "items")
	if err != nil {
		panic(err)
	}
	defer rows.Release()
	_ = rows.EachRowJSON(func(_ int64, obj []byte) error { fmt.Println(string(obj)); return nil })
	// Output:
	// {"items":{"id":"a"},"page":1}
	// {"items":{"id":"b"},"page":1}
}

func ExampleFlatten() {
	f, _ := dataframe.ReadJSON([]byte(`{"pageInfo":{"totalResults":7,"resultsPerPage":5},"tags":["x"]}`), dataframe.JSONOptions{})
	defer f.Release()
	flat, _ := dataframe.Flatten(f)
	defer flat.Release()
	fmt.Println(flat.ColumnNames())
	// Output:
	// [pageInfo.resultsPerPage pageInfo.totalResults tags]
}

func ExampleConcat() {
	a, _ := dataframe.ReadJSON([]byte(`{"n":1,"s":"x"}`), dataframe.JSONOptions{})
	defer a.Release()
	b, _ := dataframe.ReadJSON([]byte(`{"n":2.5,"t":true}`), dataframe.JSONOptions{})
	defer b.Release()
	all, err := dataframe.Concat(a, b)
	if err != nil {
		panic(err)
	}
	defer all.Release()
	_ = all.EachRowJSON(func(_ int64, obj []byte) error { fmt.Println(string(obj)); return nil })
	// Output:
	// {"n":1.0,"s":"x","t":null}
	// {"n":2.5,"s":null,"t":true}
}

func ExampleFromValues() {
	f, err := dataframe.FromValues([]string{"name", "n", "tags"}, [][]any{
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
