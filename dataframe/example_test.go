package dataframe_test

import (
	"fmt"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func ExampleProject() {
	f, _ := jsonframe.ReadDocument([]byte(`{"pageInfo":{"totalResults":7},"kind":"k"}`), jsonframe.Options{})
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
	f, _ := jsonframe.ReadDocument([]byte(`[{"n":1,"s":{"ok":true}},{"n":2,"s":null},{"n":3,"s":{"ok":false}}]`), jsonframe.Options{})
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
	f, _ := jsonframe.ReadDocument([]byte(`{"page":1,"items":[{"id":"a"},{"id":"b"}]}`), jsonframe.Options{})
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
	f, _ := jsonframe.ReadDocument([]byte(`{"pageInfo":{"totalResults":7,"resultsPerPage":5},"tags":["x"]}`), jsonframe.Options{})
	defer f.Release()
	flat, _ := dataframe.Flatten(f)
	defer flat.Release()
	fmt.Println(flat.ColumnNames())
	// Output:
	// [pageInfo.resultsPerPage pageInfo.totalResults tags]
}

func ExampleConcat() {
	a, _ := jsonframe.ReadDocument([]byte(`{"n":1,"s":"x"}`), jsonframe.Options{})
	defer a.Release()
	b, _ := jsonframe.ReadDocument([]byte(`{"n":2.5,"t":true}`), jsonframe.Options{})
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
