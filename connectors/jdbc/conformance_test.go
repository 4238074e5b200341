package jdbc_test

import (
	"testing"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/connectortest"
	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

func TestConformance(t *testing.T) {
	for _, server := range []struct {
		name  string
		open  func(testing.TB) *jdbctest.DB
		types []string
	}{
		{"postgres", jdbctest.Postgres, []string{"long", "integer", "short", "double", "float", "decimal(10,2)", "string", "boolean", "binary", "date", "timestamp", "array<long>", "array<string>"}},
		{"mysql", jdbctest.MySQL, []string{"long", "integer", "short", "double", "float", "decimal(10,2)", "string", "boolean", "binary", "date", "timestamp"}},
	} {
		t.Run(server.name, func(t *testing.T) {
			db := server.open(t)
			n := 0
			table := func() string {
				n++
				return "conf_" + string(rune('a'+n%26)) + string(rune('a'+n/26))
			}
			connectortest.Run(t, jdbc.Type, connectortest.Harness{
				NewDataset: func(t *testing.T) connectortest.Case {
					f := frameOf(t, `{"id":1,"name":"a","score":1.5}
{"id":2,"name":"b","score":null}`)
					return connectortest.Case{Dataset: dataset(db, jdbc.PropDBTable, table()), Want: f, RoundTrip: true}
				},
				Failing: func(t *testing.T) (*connectors.Dataset, error) {
					return &connectors.Dataset{Name: "db.t", Props: connectors.Props{
						jdbc.PropURL: "postgres://u@127.0.0.1:1/x", jdbc.PropPassword: "s3cr3t-never-shown", jdbc.PropDBTable: "t",
					}}, jdbc.ErrConnect
				},
				BadProps: []connectortest.BadProps{
					{Props: connectors.Props{jdbc.PropURL: ""}, Property: jdbc.PropURL},
					{Props: connectors.Props{jdbc.PropURL: "oracle://x/y"}, Property: jdbc.PropURL},
					{Props: connectors.Props{jdbc.PropMode: "upsert"}, Property: jdbc.PropMode},
					{Props: connectors.Props{jdbc.PropQuery: "SELECT 1"}, Property: jdbc.PropQuery},
					{Props: connectors.Props{jdbc.PropNumPartitions: "4"}, Property: jdbc.PropPartitionColumn},
					{Props: connectors.Props{jdbc.PropFetchSize: "0"}, Property: jdbc.PropFetchSize},
				},
				Writes: &connectortest.Writes{
					Target: func(t *testing.T) *connectors.Dataset { return dataset(db, jdbc.PropDBTable, table()) },
					Merge: func(ds *connectors.Dataset) *connectors.Dataset {
						ds.Props[jdbc.PropMode] = jdbc.ModeMerge
						ds.Props[jdbc.PropMergeKey] = "id"
						return ds
					},
					Refuse: func(t *testing.T, ds *connectors.Dataset) {
						db.Exec(t, "CREATE TABLE "+ds.Props[jdbc.PropDBTable]+" (id bigint PRIMARY KEY, name varchar(8), score double precision)")
					},
					Types: server.types,
				},
			})
		})
	}
}
