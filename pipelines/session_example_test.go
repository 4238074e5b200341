package pipelines_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/pipelines"
)

// A pipeline's settings apply to its run only: Run works on a fork of the
// caller's session, which keeps its own settings.
func ExampleRun_settings() {
	dir, _ := os.MkdirTemp("", "sluice-example")
	defer os.RemoveAll(dir)
	in, _ := jsonframe.FromValues([]string{"id"}, [][]any{{int64(1)}, {int64(2)}})
	_ = parquet.WriteFileAtomic(filepath.Join(dir, "in.parquet"), in, "")
	in.Release()

	s := catalog.NewSession(nil)
	_ = s.Set("svc.logging.level", "NONE")
	p, err := pipelines.Parse("settings.yaml", []byte(`
name: with_settings
settings:
  svc.logging.level: CONSOLE
steps:
  - read: {type: PARQUET, properties: {svc.parquet.path: "${DIR}/in.parquet"}}
`), func(k string) string { return map[string]string{"DIR": dir}[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pipelines.Run(context.Background(), p, pipelines.Options{Session: s})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Output.Release()
	fmt.Println(res.Rows, "rows; the caller's settings:", s.Settings())
	// Output:
	// 2 rows; the caller's settings: map[svc.logging.level:NONE]
}
