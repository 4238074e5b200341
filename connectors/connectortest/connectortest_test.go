package connectortest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/connectortest"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// memConnector keeps datasets in memory as NDJSON, keyed by the property
// mem.name: the smallest connector that honours the whole contract, so the
// suite is shown to pass for a well-behaved connector.
type memConnector struct {
	mu   sync.Mutex
	data map[string][]byte
}

var errNoDataset = errors.New("no such in-memory dataset")

func (m *memConnector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", ds.Name, err)
	}
	red := connectors.NewRedactor(ds.Props)
	m.mu.Lock()
	b, ok := m.data[ds.Props["mem.name"]]
	m.mu.Unlock()
	ds.Logf("%s", red.String("mem: read "+ds.Props["mem.name"]+" with "+ds.Props["mem.password"]))
	if !ok {
		return nil, red.Error(fmt.Errorf("reading %s (password %s): %w", ds.Name, ds.Props["mem.password"], errNoDataset))
	}
	return jsonframe.ReadNDJSON(b, jsonframe.Options{})
}

func (m *memConnector) Write(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	res := connectors.WriteResult{Rows: f.NumRows()}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("writing %s: %w", ds.Name, err)
	}
	var buf bytes.Buffer
	err := f.EachRowJSON(func(row int64, obj []byte) error {
		buf.Write(obj)
		buf.WriteByte('\n')
		res.Results = append(res.Results, connectors.RowResult{Row: row})
		res.Written++
		return nil
	})
	if err != nil {
		return res, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.data[ds.Props["mem.name"]] = buf.Bytes()
	return res, nil
}

func (m *memConnector) Validate(_ []connectors.Field, props connectors.Props) error {
	if props["mem.name"] == "" {
		return errors.New("property mem.name is required")
	}
	return nil
}

func init() { connectors.Register("MEMTEST", &memConnector{data: map[string][]byte{}}) }

func TestRunAgainstInMemoryConnector(t *testing.T) {
	want, err := jsonframe.ReadDocument([]byte(`[{"id":1,"tags":["a"],"s":{"x":1.5}},{"id":2,"tags":[],"s":null}]`), jsonframe.Options{})
	require.NoError(t, err)
	t.Cleanup(want.Release)
	n := 0
	connectortest.Run(t, "MEMTEST", connectortest.Harness{
		NewDataset: func(t *testing.T) connectortest.Case {
			n++
			return connectortest.Case{
				Dataset:   &connectors.Dataset{Name: "m", Props: connectors.Props{"mem.name": fmt.Sprint("ds", n), "mem.password": "hunter22"}},
				Want:      want,
				RoundTrip: true,
			}
		},
		Failing: func(t *testing.T) (*connectors.Dataset, error) {
			return &connectors.Dataset{Name: "m", Props: connectors.Props{"mem.name": "absent", "mem.password": "hunter22"}}, errNoDataset
		},
		BadProps: []connectortest.BadProps{{Props: connectors.Props{"mem.name": ""}, Property: "mem.name"}},
	})
}
