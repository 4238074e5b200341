package parquet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// BenchmarkPartitionedWrite writes 200k rows into 50 Hive partitions and
// reads them back through the connector.
func BenchmarkPartitionedWrite(b *testing.B) {
	const n, parts = 200_000, 50
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), fmt.Sprintf("region-%02d", i%parts), fmt.Sprintf("payload text %d", i)}
	}
	f, err := jsonframe.FromValues([]string{"id", "region", "text"}, rows)
	require.NoError(b, err)
	defer f.Release()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "out") + "/"
		ds := &connectors.Dataset{Name: "bench", Props: connectors.Props{parquet.PropPath: dir, parquet.PropPartitionBy: "region"}}
		_, err := parquet.Connector{}.Write(ctx, ds, f)
		require.NoError(b, err)
		back, err := parquet.Connector{}.Read(ctx, ds)
		require.NoError(b, err)
		require.Equal(b, int64(n), back.NumRows())
		back.Release()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
