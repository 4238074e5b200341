// Command minrest is the smallest program that reads a REST API into a
// frame: a catalog session, the RESTAPI connector and the frame printer,
// nothing else. It is what a Go program that only reads APIs links, and
// cmd/sluice's TestRESTOnlyDeps checks that it pulls in neither gRPC /
// Arrow Flight nor any Parquet library (see docs/go-api.md#dependencies).
//
//	go run ./internal/minrest https://api.example.com/items items
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: minrest URL [RECORDS_PATH]")
		os.Exit(2)
	}
	path := ""
	if len(os.Args) == 3 {
		path = os.Args[2]
	}
	if err := run(context.Background(), os.Stdout, os.Args[1], path); err != nil {
		fmt.Fprintln(os.Stderr, "minrest:", err)
		os.Exit(1)
	}
}

// run reads url as a parsed JSON listing (the array at recordsPath) and
// prints it as a table.
func run(ctx context.Context, w io.Writer, url, recordsPath string) error {
	props := map[string]string{
		"svc.restapi.url":           url,
		"svc.restapi.parse.payload": "true",
	}
	if recordsPath != "" {
		props["svc.restapi.records.path"] = recordsPath
	}
	s := catalog.NewSession(nil)
	f, err := s.ReadDataset(ctx, "api.items", connectors.DataSetProperties{Type: "RESTAPI", Props: props})
	if err != nil {
		return err
	}
	defer f.Release()
	return dataframe.WriteTable(w, f, dataframe.TableOptions{Truncate: 20})
}
