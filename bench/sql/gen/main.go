// Command gen writes the SQL benchmark's tables as Parquet: a fact table
// of -rows rows (k: long with 10,000 distinct values, s: string with 1,000,
// x and y: double, ts: timestamp), a dimension table of 100,000 rows
// (k: long, name: string, weight: double) whose keys cover the fact's, and
// an events table of -rows rows over -keys ids (id: long, updated_at:
// timestamp, v: double, status: string with 8 values), each id updated
// about rows/keys times in random order, for the latest-row-per-key
// window query.
//
//	go run ./bench/sql/gen -rows 10000000 -keys 1000000 -o /tmp/sqlbench
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

func main() {
	rows := flag.Int("rows", 10_000_000, "rows of the fact and events tables")
	keys := flag.Int("keys", 1_000_000, "distinct ids of the events table")
	out := flag.String("o", ".", "output directory")
	flag.Parse()
	if err := run(*rows, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := events(*rows, *keys, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

const batch = 1 << 16

func run(rows int, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mem := memory.DefaultAllocator
	r := rand.New(rand.NewPCG(1, 2))
	factSchema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "y", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ts", Type: sparktype.TimestampType, Nullable: true},
	}, nil)
	strs := make([]string, 1000)
	for i := range strs {
		strs[i] = fmt.Sprintf("key-%04d", i)
	}
	var recs []arrow.Record
	b := array.NewRecordBuilder(mem, factSchema)
	defer b.Release()
	start := int64(1_700_000_000_000_000) // microseconds (sparktype.TimestampType)
	for done := 0; done < rows; {
		n := min(batch, rows-done)
		kb := b.Field(0).(*array.Int64Builder)
		sb := b.Field(1).(*array.StringBuilder)
		xb := b.Field(2).(*array.Float64Builder)
		yb := b.Field(3).(*array.Float64Builder)
		tb := b.Field(4).(*array.TimestampBuilder)
		for i := 0; i < n; i++ {
			kb.Append(int64(r.IntN(10_000)))
			sb.Append(strs[r.IntN(1000)])
			xb.Append(r.Float64() * 1000)
			yb.Append(r.NormFloat64())
			tb.Append(arrow.Timestamp(start + int64(done+i)*10_000))
		}
		recs = append(recs, b.NewRecord())
		done += n
	}
	fact, err := dataframe.New(factSchema, recs...)
	if err != nil {
		return err
	}
	defer fact.Release()
	if err := fileio.WriteFile(context.Background(), filepath.Join(dir, "fact.parquet"), fact, fileio.FileOptions{}); err != nil {
		return err
	}
	dimSchema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "weight", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	db := array.NewRecordBuilder(mem, dimSchema)
	defer db.Release()
	for i := 0; i < 100_000; i++ {
		db.Field(0).(*array.Int64Builder).Append(int64(i))
		db.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%5000))
		db.Field(2).(*array.Float64Builder).Append(r.Float64())
	}
	dim, err := dataframe.New(dimSchema, db.NewRecord())
	if err != nil {
		return err
	}
	defer dim.Release()
	return fileio.WriteFile(context.Background(), filepath.Join(dir, "dim.parquet"), dim, fileio.FileOptions{})
}

// events writes events.parquet: rows updates of keys ids.
func events(rows, keys int, dir string) error {
	mem := memory.DefaultAllocator
	r := rand.New(rand.NewPCG(3, 4))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "updated_at", Type: sparktype.TimestampType, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	statuses := []string{"new", "open", "pending", "paid", "shipped", "delivered", "returned", "closed"}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	start := int64(1_700_000_000_000_000) // microseconds (sparktype.TimestampType)
	var recs []arrow.Record
	for done := 0; done < rows; {
		n := min(batch, rows-done)
		ib := b.Field(0).(*array.Int64Builder)
		tb := b.Field(1).(*array.TimestampBuilder)
		vb := b.Field(2).(*array.Float64Builder)
		sb := b.Field(3).(*array.StringBuilder)
		for i := 0; i < n; i++ {
			ib.Append(int64(r.IntN(keys)))
			tb.Append(arrow.Timestamp(start + r.Int64N(365*24*3600*1_000_000)))
			vb.Append(r.Float64() * 100)
			sb.Append(statuses[r.IntN(len(statuses))])
		}
		recs = append(recs, b.NewRecord())
		done += n
	}
	f, err := dataframe.New(schema, recs...)
	if err != nil {
		return err
	}
	defer f.Release()
	return fileio.WriteFile(context.Background(), filepath.Join(dir, "events.parquet"), f, fileio.FileOptions{})
}
