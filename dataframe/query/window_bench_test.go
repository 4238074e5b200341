package query_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// eventsFrame is n updates (id, updated_at, v, status) of keys ids in
// random order, like bench/sql's events table.
func eventsFrame(b *testing.B, n, keys int) *dataframe.Frame {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "updated_at", Type: sparktype.TimestampType, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	statuses := []string{"new", "open", "pending", "paid", "shipped", "delivered", "returned", "closed"}
	r := rand.New(rand.NewPCG(3, 4))
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	var recs []arrow.Record
	for done := 0; done < n; {
		m := min(1<<16, n-done)
		for i := 0; i < m; i++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(r.IntN(keys)))
			rb.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + r.Int64N(1e10)))
			rb.Field(2).(*array.Float64Builder).Append(r.Float64())
			rb.Field(3).(*array.StringBuilder).Append(statuses[r.IntN(len(statuses))])
		}
		recs = append(recs, rb.NewRecord())
		done += m
	}
	f, err := dataframe.New(schema, recs...)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkWindow runs window and grouping-set queries over 1M rows in
// memory (100,000 keys): the latest row per key (the per-key top-1), the
// same through the sorting window operator, a running sum, and a ROLLUP.
// bench/sql/run.sh has the 10M-row figures beside DuckDB.
func BenchmarkWindow(b *testing.B) {
	f := eventsFrame(b, 1_000_000, 100_000)
	defer f.Release()
	r := query.Tables{"events": query.FrameTable(f)}
	for _, bc := range []struct{ name, sql string }{
		{"LatestPerKey", "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM events) WHERE rn = 1"},
		{"LatestPerKeySorted", "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM events) WHERE rn + 0 = 1"},
		{"RunningSum", "SELECT id, sum(v) OVER (PARTITION BY id ORDER BY updated_at) FROM events"},
		{"Lag", "SELECT id, v - lag(v) OVER (PARTITION BY id ORDER BY updated_at) FROM events"},
		{"Rollup", "SELECT status, id % 100, count(*), sum(v) FROM events GROUP BY ROLLUP(status, id % 100)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := parse(b, bc.sql)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				plan, err := query.Compile(context.Background(), q, r, query.Options{})
				if err != nil {
					b.Fatal(err)
				}
				out, err := plan.Frame(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(f.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
