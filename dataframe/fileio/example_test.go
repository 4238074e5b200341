package fileio_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "sluice-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	f, err := jsonframe.ReadDocument([]byte(`{"items": [{"id": "a", "n": 1}, {"id": "b", "n": 2}]}`), jsonframe.Options{RecordsPath: "items"})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	path := filepath.Join(dir, "items.parquet")
	if err := fileio.WriteFile(context.Background(), path, f, fileio.FileOptions{Parquet: fileio.ParquetOptions{Compression: "zstd"}}); err != nil {
		panic(err)
	}
	back, err := fileio.ReadFile(context.Background(), path, fileio.FileOptions{})
	if err != nil {
		panic(err)
	}
	defer back.Release()
	fmt.Println(back.NumRows(), back.ColumnNames())
	// Output:
	// 2 [id n]
}
