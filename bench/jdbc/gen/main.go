// Command gen writes the JDBC benchmark's data: -rows rows (id: long, unique;
// k: long with 10,000 distinct values; s: string with 1,000; x: double; ts:
// timestamp) as rows.parquet, rows.csv (for psql \copy) and rows.tsv (for
// MariaDB's LOAD DATA), and -changes of those rows with new k, s, x and ts
// (spread over the ids) as changes.parquet and changes.csv.
//
//	go run ./bench/jdbc/gen -rows 10000000 -changes 1000000 -o /tmp/jdbcbench
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
	"github.com/sluicedata/sluice/dataframe/fileio"
)

func main() {
	rows := flag.Int("rows", 10_000_000, "rows")
	changes := flag.Int("changes", 1_000_000, "changed rows")
	out := flag.String("o", ".", "output directory")
	flag.Parse()
	if err := run(*rows, *changes, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

var strs = func() []string {
	s := make([]string, 1000)
	for i := range s {
		s[i] = fmt.Sprintf("key-%04d", i)
	}
	return s
}()

type row struct {
	id, k int64
	s     string
	x     float64
	ts    int64 // µs
}

func run(rows, changes int, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := write(dir, "rows", rows, func(i int, r *rand.Rand) row {
		return row{int64(i + 1), int64(r.IntN(10_000)), strs[r.IntN(1000)], r.Float64() * 1000, 1_700_000_000_000_000 + int64(i)*10}
	}, true); err != nil {
		return err
	}
	step := max(rows/max(changes, 1), 1)
	return write(dir, "changes", changes, func(i int, r *rand.Rand) row {
		return row{int64(i*step + 1), int64(r.IntN(10_000)), strs[r.IntN(1000)], -r.Float64() * 1000, 1_800_000_000_000_000 + int64(i)*10}
	}, false)
}

func write(dir, name string, n int, gen func(int, *rand.Rand) row, tsv bool) error {
	schema := dataframe.NewSchema([]dataframe.Field{
		{Name: "id", Type: must("long"), Nullable: false},
		{Name: "k", Type: must("long"), Nullable: true},
		{Name: "s", Type: must("string"), Nullable: true},
		{Name: "x", Type: must("double"), Nullable: true},
		{Name: "ts", Type: must("timestamp"), Nullable: true},
	})
	csvF, err := os.Create(filepath.Join(dir, name+".csv"))
	if err != nil {
		return err
	}
	defer csvF.Close()
	cw := bufio.NewWriterSize(csvF, 1<<20)
	var tw *bufio.Writer
	if tsv {
		tf, err := os.Create(filepath.Join(dir, name+".tsv"))
		if err != nil {
			return err
		}
		defer tf.Close()
		tw = bufio.NewWriterSize(tf, 1<<20)
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := dataframe.NewStream(context.Background(), schema, 2, func(ctx context.Context, emit func(dataframe.Record) bool) error {
		b := cells.NewBuilder(nil, schema, 1<<16)
		defer b.Release()
		var line []byte
		for i := 0; i < n; i++ {
			x := gen(i, r)
			_ = b.Col(0).Int(x.id)
			_ = b.Col(1).Int(x.k)
			b.Col(2).String([]byte(x.s))
			b.Col(3).Float(x.x)
			b.Col(4).Micros(x.ts)
			ts := time.UnixMicro(x.ts).UTC()
			line = strconv.AppendInt(line[:0], x.id, 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, x.k, 10)
			line = append(append(append(line, ','), x.s...), ',')
			line = strconv.AppendFloat(line, x.x, 'g', -1, 64)
			line = append(line, ',')
			line = ts.AppendFormat(line, "2006-01-02 15:04:05.999999+00")
			line = append(line, '\n')
			if _, err := cw.Write(line); err != nil {
				return err
			}
			if tw != nil {
				line = strconv.AppendInt(line[:0], x.id, 10)
				line = append(line, '\t')
				line = strconv.AppendInt(line, x.k, 10)
				line = append(append(append(line, '\t'), x.s...), '\t')
				line = strconv.AppendFloat(line, x.x, 'g', -1, 64)
				line = append(line, '\t')
				line = ts.AppendFormat(line, "2006-01-02 15:04:05.999999")
				line = append(line, '\n')
				if _, err := tw.Write(line); err != nil {
					return err
				}
			}
			if b.EndRow() && !emit(b.NewRecord()) {
				return ctx.Err()
			}
		}
		if rec := b.NewRecord(); rec != nil && !emit(rec) {
			return ctx.Err()
		}
		return nil
	})
	defer s.Release()
	if _, err := fileio.WriteStream(context.Background(), filepath.Join(dir, name+".parquet"), s, fileio.FileOptions{}); err != nil {
		return err
	}
	if tw != nil {
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return cw.Flush()
}

func must(t string) dataframe.DataType {
	dt, err := cells.ParseType(t)
	if err != nil {
		panic(err)
	}
	return dt
}
