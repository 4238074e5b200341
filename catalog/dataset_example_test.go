package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"

	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
)

// A dataset described in Go, read without a catalog: the typed form of
// Gimel's USER provider.
func ExampleSession_ReadDataset() {
	srv := serveFixture("youtube_subscriptions_by_channel_p1.json")
	defer srv.Close()

	s := catalog.NewSession(nil)
	f, err := s.ReadDataset(context.Background(), "yt.subs", connectors.DataSetProperties{
		Type: "RESTAPI",
		Props: map[string]string{
			"svc.restapi.url":           srv.URL + "/subscriptions",
			"svc.restapi.parse.payload": "true",
			"svc.restapi.records.path":  "items",
		},
	})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	fmt.Println(f.NumRows(), "rows;", f.ColumnNames())

	// A catalog table needs a catalog.
	_, err = s.Read(context.Background(), "yt.subs", nil)
	fmt.Println(errors.Is(err, catalog.ErrNoCatalog))
	// Output:
	// 5 rows; [etag id kind snippet]
	// true
}

// Statements without rows: no frame to release, a summary instead.
func ExampleSession_Exec() {
	cat, dir, done := exampleCatalog()
	defer done()
	s := catalog.NewSession(cat)
	res, err := s.Exec(context.Background(), `
		CREATE TABLE lake.events (id long, kind string)
		  TBLPROPERTIES ('svc.storage.type' = 'PARQUET', 'svc.parquet.path' = '`+filepath.Join(dir, "events.parquet")+`');
		INSERT INTO lake.events VALUES (1, 'signup'), (2, 'login')`)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d statements, %d rows inserted\n", res.Statements, res.RowsAffected)

	_, err = s.Exec(context.Background(), "SELECT * FROM lake.events")
	fmt.Println(err)
	// Output:
	// 2 statements, 2 rows inserted
	// statement 1: SELECT gives rows: run it with ExecuteBatch or Query, not Exec
}

// A session whose reads and query results allocate from the caller's
// allocator: a checked allocator shows what is still held.
func ExampleWithAllocator() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}]`))
	}))
	defer srv.Close()

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s := catalog.NewSession(nil, catalog.WithAllocator(mem))
	f, err := s.ReadDataset(context.Background(), "api.items", connectors.DataSetProperties{
		Type:  "RESTAPI",
		Props: map[string]string{"svc.restapi.url": srv.URL, "svc.restapi.parse.payload": "true"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("held while the frame lives:", mem.CurrentAlloc() > 0)
	f.Release()
	fmt.Println("held after Release:", mem.CurrentAlloc())
	// Output:
	// held while the frame lives: true
	// held after Release: 0
}
