// Command gen writes the deterministic YouTube-like NDJSON that
// bench/duckdb/compare.sh converts with both DuckDB and sluice.
//
//	go run ./bench/duckdb/gen -mb 200 -o /tmp/x.ndjson
package main

import (
	"bufio"
	"flag"
	"fmt"
	"github.com/sluicedata/sluice/internal/datagen"
	"os"
)

func main() {
	out := flag.String("o", "", "output `FILE` (required)")
	rows := flag.Int("rows", 0, "rows to write (overrides -mb)")
	mb := flag.Int("mb", 200, "approximate size in MB when -rows is 0")
	seed := flag.Int64("seed", 1, "generator seed: the same seed gives the same bytes")
	flag.Parse()
	if *out == "" || *mb <= 0 || *rows < 0 {
		flag.Usage()
		os.Exit(2)
	}
	n := *rows
	if n == 0 {
		// Measure the average row size on a sample, then scale.
		var c counter
		if err := datagen.GenNDJSON(&c, 2000, *seed); err != nil {
			fail(err)
		}
		n = int(int64(*mb) * 1_000_000 * 2000 / c.n)
	}
	fh, err := os.Create(*out)
	if err != nil {
		fail(err)
	}
	bw := bufio.NewWriterSize(fh, 1<<20)
	if err := datagen.GenNDJSON(bw, n, *seed); err != nil {
		fail(err)
	}
	if err := bw.Flush(); err != nil {
		fail(err)
	}
	if err := fh.Close(); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "gen: wrote %d rows to %s\n", n, *out)
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}
