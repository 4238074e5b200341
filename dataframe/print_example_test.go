package dataframe

import (
	"fmt"
	"os"
	"path/filepath"
)

func ExampleWriteTable() {
	f, err := ReadJSON([]byte(`[
		{"id": 1, "title": "TEDx Talks — ideas worth spreading", "tags": ["ted", "talks"], "page": {"n": 5}},
		{"id": 2, "title": null, "tags": [], "page": {"n": 7}},
		{"id": 3, "title": "short", "score": 1e7}
	]`), JSONOptions{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	WriteTable(os.Stdout, f, TableOptions{MaxRows: 2, Truncate: 20})
	// Output:
	// +---+----+-----+------------+--------------------+
	// | id|page|score|        tags|               title|
	// +---+----+-----+------------+--------------------+
	// |  1| {5}| null|[ted, talks]|TEDx Talks — idea...|
	// |  2| {7}| null|          []|                null|
	// +---+----+-----+------------+--------------------+
	// only showing top 2 rows
}

func ExampleWriteCSV() {
	f, err := ReadJSON([]byte(`[{"a": 1, "b": "x, y", "c": {"d": [1, 2]}}, {"a": null, "b": "", "c": null}]`), JSONOptions{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	WriteCSV(os.Stdout, f)
	// Output:
	// a,b,c
	// 1,"x, y","{""d"":[1,2]}"
	// ,"",
}

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	f, err := ReadJSON([]byte(`{"items": [{"id": "a", "n": 1}, {"id": "b", "n": 2}]}`), JSONOptions{RecordsPath: "items"})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	path := filepath.Join(dir, "items.parquet")
	if err := WriteFile(path, f, FileOptions{Parquet: ParquetOptions{Compression: "zstd"}}); err != nil {
		panic(err)
	}
	back, err := ReadFile(path, FileOptions{})
	if err != nil {
		panic(err)
	}
	defer back.Release()
	fmt.Println(back.NumRows(), back.ColumnNames())
	// Output:
	// 2 [id n]
}
