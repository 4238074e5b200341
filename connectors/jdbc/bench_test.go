package jdbc_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

// benchRows is a stream of n rows (id, k, s, x, ts) as the bench/jdbc
// script generates them.
func benchRows(n int) dataframe.Stream {
	types := []string{"long", "long", "string", "double", "timestamp"}
	fields := make([]dataframe.Field, len(types))
	for i, typ := range types {
		dt, _ := cells.ParseType(typ)
		fields[i] = dataframe.Field{Name: []string{"id", "k", "s", "x", "ts"}[i], Type: dt, Nullable: true}
	}
	schema := dataframe.NewSchema(fields)
	return dataframe.NewStream(context.Background(), schema, 2, func(ctx context.Context, emit func(dataframe.Record) bool) error {
		b := cells.NewBuilder(nil, schema, 1<<16)
		defer b.Release()
		for i := 0; i < n; i++ {
			_ = b.Col(0).Int(int64(i + 1))
			_ = b.Col(1).Int(int64(i % 10000))
			b.Col(2).String([]byte(fmt.Sprintf("key-%04d", i%1000)))
			b.Col(3).Float(float64(i) / 3)
			b.Col(4).Micros(1_700_000_000_000_000 + int64(i)*10)
			if b.EndRow() && !emit(b.NewRecord()) {
				return ctx.Err()
			}
		}
		if rec := b.NewRecord(); rec != nil && !emit(rec) {
			return ctx.Err()
		}
		return nil
	})
}

// BenchmarkLoad appends 200,000 rows to an empty table per iteration over
// each database's bulk path (bench/jdbc/run.sh compares with the
// databases' own clients at 10M rows).
func BenchmarkLoad(b *testing.B) {
	for _, server := range []struct {
		name string
		open func(testing.TB) *jdbctest.DB
	}{{"postgres", jdbctest.Postgres}, {"mysql", jdbctest.MySQL}} {
		b.Run(server.name, func(b *testing.B) {
			db := server.open(b)
			const n = 200_000
			b.SetBytes(n * 40)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db.Exec(b, "DROP TABLE IF EXISTS bl", "CREATE TABLE bl (id bigint PRIMARY KEY, k bigint, s text, x double precision, ts timestamp(6) NULL)")
				s := benchRows(n)
				b.StartTimer()
				_, err := (&jdbc.Connector{}).WriteStream(context.Background(), &connectors.Dataset{Props: connectors.Props{jdbc.PropURL: db.URL, jdbc.PropDBTable: "bl"}}, s)
				s.Release()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead streams 200,000 rows per iteration.
func BenchmarkRead(b *testing.B) {
	for _, server := range []struct {
		name string
		open func(testing.TB) *jdbctest.DB
	}{{"postgres", jdbctest.Postgres}, {"mysql", jdbctest.MySQL}} {
		b.Run(server.name, func(b *testing.B) {
			db := server.open(b)
			const n = 200_000
			s := benchRows(n)
			ds := &connectors.Dataset{Props: connectors.Props{jdbc.PropURL: db.URL, jdbc.PropDBTable: "br"}}
			if _, err := (&jdbc.Connector{}).WriteStream(context.Background(), ds, s); err != nil {
				b.Fatal(err)
			}
			s.Release()
			b.SetBytes(n * 40)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st, err := (&jdbc.Connector{}).ReadStream(context.Background(), ds)
				if err != nil {
					b.Fatal(err)
				}
				rows := int64(0)
				for st.Next() {
					rows += st.Record().NumRows()
				}
				if err := st.Err(); err != nil || rows != n {
					b.Fatal(err, rows)
				}
				st.Release()
			}
		})
	}
}
