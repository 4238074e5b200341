package catalog_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/catalog"
)

// serveFixture is a loopback server that answers every request with the
// file testdata/name: the made-up API of the examples.
func serveFixture(name string) *httptest.Server {
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(body)
	}))
}

// exampleCatalog opens a catalog in a new temporary directory dir; done
// removes the directory.
func exampleCatalog() (cat *catalog.Catalog, dir string, done func()) {
	dir, err := os.MkdirTemp("", "catalog-example")
	if err != nil {
		panic(err)
	}
	cat, err = catalog.Open(filepath.Join(dir, "catalog"))
	if err != nil {
		_ = os.RemoveAll(dir)
		panic(err)
	}
	return cat, dir, func() { _ = os.RemoveAll(dir) }
}
