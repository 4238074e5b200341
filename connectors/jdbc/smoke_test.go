package jdbc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

func TestWriteReadRoundTrip(t *testing.T) {
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		f := frameOf(t, `{"id":1,"name":"a","score":1.5,"ok":true,"tags":["x","y"],"at":"2024-01-02T03:04:05Z"}
{"id":2,"name":"b\tc\\d","score":null,"ok":false,"tags":[],"at":null}`)
		ds := dataset(db, jdbc.PropDBTable, "items", jdbc.PropMergeKey, "id")
		res := write(t, ds, f)
		require.Equal(t, int64(2), res.Written)
		schema, rows := read(t, ds)
		t.Log(schema)
		t.Log(rows)
	})
}
