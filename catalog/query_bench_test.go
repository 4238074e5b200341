package catalog_test

import (
	"context"
	"fmt"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
)

// benchFrame is n rows of k (long, 10,000 distinct), s (string, 1,000
// distinct), x (double), like bench/sql's table.
func benchFrame(b *testing.B, n int) *dataframe.Frame {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	var recs []arrow.Record
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	for done := 0; done < n; {
		m := min(1<<16, n-done)
		for i := 0; i < m; i++ {
			j := done + i
			rb.Field(0).(*array.Int64Builder).Append(int64(j * 7919 % 10000))
			rb.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("key-%04d", j*31%1000))
			rb.Field(2).(*array.Float64Builder).Append(float64(j%99991) / 7)
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

// BenchmarkQuery runs the bench/sql queries in process over 1M rows in
// memory (no Parquet decoding): the engine's own speed.
func BenchmarkQuery(b *testing.B) {
	f := benchFrame(b, 1_000_000)
	defer f.Release()
	dim := benchFrame(b, 10_000)
	defer dim.Release()
	frames := map[string]*dataframe.Frame{"t": f, "d": dim}
	for _, bc := range []struct{ name, sql string }{
		{"GroupByInt", "SELECT k, count(*), sum(x), avg(x) FROM t GROUP BY k ORDER BY k"},
		{"GroupByString", "SELECT s, count(*), max(x) FROM t GROUP BY s"},
		{"JoinGroupBy", "SELECT d.s, count(*), sum(t.x) FROM t JOIN d ON t.k = d.k GROUP BY d.s"},
		{"TopN", "SELECT k, s, x FROM t ORDER BY x DESC LIMIT 10"},
		{"Filter", "SELECT k, x FROM t WHERE x > 100 AND s LIKE 'key-00%'"},
	} {
		st, err := sqlparse.ParseOne(bc.sql)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out, err := catalog.QueryFrames(context.Background(), nil, st.(*sqlparse.Select).Query, frames)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(f.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkQueryParquet runs the bench/sql queries through a session over
// 1M rows in a Parquet file (snappy, row groups of 128k rows): streamed row
// groups, column pruning, the join's build-row grouping and the top-N's
// sort keys first (see docs/sql.md#performance).
func BenchmarkQueryParquet(b *testing.B) {
	f := benchFrame(b, 1_000_000)
	defer f.Release()
	dim := benchFrame(b, 10_000)
	defer dim.Release()
	dir := b.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog"))
	if err != nil {
		b.Fatal(err)
	}
	s := catalog.NewSession(cat)
	for name, fr := range map[string]*dataframe.Frame{"t": f, "d": dim} {
		path := filepath.Join(dir, name+".parquet")
		if err := fileio.WriteFile(context.Background(), path, fr, fileio.FileOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.ExecuteBatch(context.Background(), "CREATE TABLE b."+name+" TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='"+path+"')"); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct{ name, sql string }{
		{"GroupByInt", "SELECT k, count(*), sum(x), avg(x) FROM b.t GROUP BY k ORDER BY k"},
		{"JoinGroupBy", "SELECT d.s, count(*), sum(t.x) FROM b.t t JOIN b.d d ON t.k = d.k GROUP BY d.s"},
		{"TopN", "SELECT k, s, x FROM b.t ORDER BY x DESC LIMIT 10"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out, err := s.ExecuteBatch(context.Background(), bc.sql)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(f.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
