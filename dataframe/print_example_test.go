package dataframe

import (
	"os"
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
