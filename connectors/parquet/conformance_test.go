package parquet_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/connectortest"
	"github.com/sluicedata/sluice/connectors/parquet"
)

func TestConformance(t *testing.T) {
	for _, dir := range []bool{false, true} {
		name := "File"
		if dir {
			name = "Directory"
		}
		t.Run(name, func(t *testing.T) {
			connectortest.Run(t, "PARQUET", connectortest.Harness{
				NewDataset: func(t *testing.T) connectortest.Case {
					f := fixture(t)
					t.Cleanup(f.Release)
					path := filepath.Join(t.TempDir(), "subs.parquet")
					if dir {
						path = filepath.Join(t.TempDir(), "subs") + "/"
					}
					return connectortest.Case{
						Dataset:   &connectors.Dataset{Name: "lake.subs", Props: connectors.Props{parquet.PropPath: path}},
						Want:      f,
						RoundTrip: true,
					}
				},
				Failing: func(t *testing.T) (*connectors.Dataset, error) {
					bad := filepath.Join(t.TempDir(), "bad.parquet")
					require.NoError(t, os.WriteFile(bad, []byte("PAR1 not really"), 0o644))
					return &connectors.Dataset{Name: "lake.bad", Props: connectors.Props{
						parquet.PropPath: bad, "svc.parquet.accessKey": "s3cr3t-never-shown",
					}}, nil
				},
				Writes: &connectortest.Writes{
					Target: func(t *testing.T) *connectors.Dataset {
						path := filepath.Join(t.TempDir(), "w.parquet")
						if dir {
							path = filepath.Join(t.TempDir(), "w") + "/"
						}
						return &connectors.Dataset{Name: "lake.w", Props: connectors.Props{parquet.PropPath: path}}
					},
					Merge: func(ds *connectors.Dataset) *connectors.Dataset {
						ds.Props[parquet.PropMode] = parquet.ModeMerge
						ds.Props[parquet.PropMergeKey] = "id"
						return ds
					},
					Types: []string{"long", "integer", "short", "double", "float", "decimal(10,2)", "string", "boolean", "binary", "date", "timestamp", "array<long>", "array<string>"},
				},
				BadProps: []connectortest.BadProps{
					{Props: connectors.Props{parquet.PropPath: ""}, Property: parquet.PropPath},
					{Props: connectors.Props{parquet.PropMode: "sideways"}, Property: parquet.PropMode},
					{Props: connectors.Props{parquet.PropCompression: "lzo"}, Property: parquet.PropCompression},
					{Props: connectors.Props{parquet.PropPartitionBy: "nope"}, Fields: []connectors.Field{{Name: "id", Type: "string"}}, Property: parquet.PropPartitionBy},
				},
			})
		})
	}
}
