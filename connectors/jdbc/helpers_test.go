package jdbc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func ctx(t *testing.T) context.Context { return ctxTB(t) }

func ctxTB(t testing.TB) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func dataset(db *jdbctest.DB, props ...string) *connectors.Dataset {
	p := connectors.Props{jdbc.PropURL: db.URL}
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i]] = props[i+1]
	}
	return &connectors.Dataset{Name: "db.t", Props: p}
}

func frameOf(t *testing.T, ndjson string) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.ReadNDJSON([]byte(strings.TrimSpace(ndjson)+"\n"), jsonframe.Options{})
	require.NoError(t, err)
	t.Cleanup(f.Release)
	return f
}

func read(t *testing.T, ds *connectors.Dataset) (schema string, rows []string) {
	t.Helper()
	f, err := (&jdbc.Connector{}).Read(ctx(t), ds)
	require.NoError(t, err)
	defer f.Release()
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	return dataframe.SchemaString(f.Schema()), rows
}

func write(t *testing.T, ds *connectors.Dataset, f *dataframe.Frame) connectors.WriteResult {
	t.Helper()
	res, err := (&jdbc.Connector{}).Write(ctx(t), ds, f)
	require.NoError(t, err)
	return res
}
