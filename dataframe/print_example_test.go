package dataframe_test

import (
	"os"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func ExampleWriteTable() {
	f, err := jsonframe.ReadDocument([]byte(`[
		{"id": 1, "title": "TEDx Talks — ideas worth spreading", "tags": ["ted", "talks"], "page": {"n": 5}},
		{"id": 2, "title": null, "tags": [], "page": {"n": 7}},
		{"id": 3, "title": "short", "score": 1e7}
	]`), jsonframe.Options{})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	dataframe.WriteTable(os.Stdout, f, dataframe.TableOptions{MaxRows: 2, Truncate: 20})
	// Output:
	// +---+----+-----+------------+--------------------+
	// | id|page|score|        tags|               title|
	// +---+----+-----+------------+--------------------+
	// |  1| {5}| null|[ted, talks]|TEDx Talks — idea...|
	// |  2| {7}| null|          []|                null|
	// +---+----+-----+------------+--------------------+
	// only showing top 2 rows
}
