package pipelines_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/pipelines"
)

func ExampleWritePlan() {
	src := `
name: failed_report
steps:
  - id: records
    read:
      type: NOTIFICATIONS
      properties:
        svc.notifications.store: ${CONN_STORE:sqlite:notifications.db}
  - filter: status = 'FAILED'
  - select: [webhookToken, objectToken AS target, retryCounter]
  - write: {file: reports/failed.csv}
`
	p, err := pipelines.Parse("report.yaml", []byte(src), func(string) string { return "" })
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = pipelines.WritePlan(os.Stdout, p, nil)
	// Output:
	// pipeline failed_report: 4 steps
	// steps, in run order:
	//   1. records  read     inline NOTIFICATIONS dataset (svc.notifications.store=sqlite:notifications.db)
	//   2. step_2   filter   status = 'FAILED'  <- records
	//   3. step_3   select   webhookToken, objectToken AS target, retryCounter  <- step_2
	//   4. step_4   write    csv file reports/failed.csv  <- step_3
}

func ExampleParse_error() {
	_, err := pipelines.Parse("bad.yaml", []byte("name: x\nsteps:\n  - read: a.b\n  - limit: ten\n"), nil)
	fmt.Println(err)
	// Output:
	// bad.yaml: line 4, column 12: step 2 (limit): want an integer, got "ten"
}

func ExampleRun() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	// A small Parquet file to read.
	in, _ := jsonframe.FromValues([]string{"id", "status"}, [][]any{{int64(1), "FAILED"}, {int64(2), "SUCCESS"}, {int64(3), "FAILED"}})
	_ = parquet.WriteFileAtomic(filepath.Join(dir, "in.parquet"), in, "")
	in.Release()

	src := `
name: example
steps:
  - read:
      type: PARQUET
      properties: {svc.parquet.path: "${DIR}/in.parquet"}
  - sql: SELECT id FROM step_1 WHERE status = 'FAILED'
  - write: {file: "${DIR}/failed.ndjson"}
`
	p, err := pipelines.Parse("example.yaml", []byte(src), func(k string) string { return map[string]string{"DIR": dir}[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pipelines.Run(context.Background(), p, pipelines.Options{Session: catalog.NewSession(nil)})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Output.Release()
	out, _ := os.ReadFile(filepath.Join(dir, "failed.ndjson"))
	fmt.Print(string(out))
	for _, s := range res.Steps {
		fmt.Println(s.ID, s.Kind, s.Rows)
	}
	// Output:
	// {"id":1}
	// {"id":3}
	// step_1 read 3
	// step_2 sql 2
	// step_3 write 2
}

func ExampleCheckColumns() {
	src := `
name: salaries
steps:
  - read: hr.employees
  - filter: salry > 1000
  - read: lake.raw
  - select: [whatever]
`
	p, err := pipelines.Parse("salaries.yaml", []byte(src), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The catalog's declared columns (catalog.Table.Fields in sluice run).
	declared := func(_ context.Context, table string) ([]connectors.Field, error) {
		if table == "hr.employees" {
			return []connectors.Field{{Name: "name", Type: "string"}, {Name: "salary", Type: "double"}}, nil
		}
		return nil, nil // lake.raw declares no columns
	}
	notes, err := pipelines.CheckColumns(context.Background(), p, declared)
	fmt.Println(err)
	for _, n := range notes {
		fmt.Println(n)
	}
	// Output:
	// salaries.yaml: line 5, column 5: step 2 (filter): line 1, column 1: unknown column salry (did you mean salary?)
	// checked against the declared columns of hr.employees
	// step 3 (read) reads lake.raw, which declares no columns: the steps that use its columns are not checked
}
