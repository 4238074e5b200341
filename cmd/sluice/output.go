package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
)

// outputOptions are the frame output flags every frame-printing command
// shares: --format, --schema, -o (see docs/cli.md).
type outputOptions struct {
	format string
	schema bool
	out    string
	rows   int
	// truncate is --truncate: the widest cell of --format table (20, as
	// Spark's show()), or "false" for none.
	truncate string
	// whole turns truncation off for results that are never cut
	// (DESCRIBE, SET, SHOW, EXPLAIN).
	whole bool
	// count prints "N rows" on stderr after a table (sluice sql on a
	// terminal, as spark-sql's "Fetched N row(s)").
	count bool
	// note is appended to the -o summary line (or printed on stderr after
	// the rows): what a sampled or lenient read dropped. It is called once
	// the stream has ended, when a streamed read's counts are complete.
	note func() string
	// zone is the time zone timestamps are printed in (table, CSV, JSON
	// and -o text files): sluice sql's session time zone. nil is UTC.
	zone *time.Location
}

func (o *outputOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "table", "row output: table | json (NDJSON) | csv")
	fs.BoolVar(&o.schema, "schema", false, "print the schema instead of rows")
	fs.StringVar(&o.out, "o", "", "write the frame to `FILE` (.parquet .arrow .csv .ndjson) instead of printing it")
	fs.IntVar(&o.rows, "rows", 20, "rows shown by --format table")
	fs.StringVar(&o.truncate, "truncate", "20", "widest cell of --format table in characters, or false for whole cells")
}

// width is the cell width --format table cuts at (0: none).
func (o *outputOptions) width() int {
	if o.whole || o.truncate == "false" {
		return 0
	}
	n, _ := strconv.Atoi(o.truncate)
	return n
}

func (o *outputOptions) validate() error {
	switch o.format {
	case "table", "json", "csv":
	default:
		return usagef("--format %q: want table, json or csv", o.format)
	}
	if o.rows < 0 {
		return usagef("--rows must be ≥ 0")
	}
	if o.truncate == "" {
		o.truncate = "20"
	}
	if n, err := strconv.Atoi(o.truncate); o.truncate != "false" && (err != nil || n < 0) {
		return usagef("--truncate %q: want a number of characters ≥ 0 or false", o.truncate)
	}
	if o.out != "" {
		// Checked before any dataset is read: a typo must not cost a fetch.
		if _, err := fileio.FileFormat(o.out); err != nil {
			return usagef("-o: %w", err)
		}
	}
	return nil
}

// emit prints f (or its schema), or writes it to -o with a one-line summary
// on stderr.
func (o *outputOptions) emit(env *cliEnv, f *dataframe.Frame) error {
	return o.emitFrame(context.Background(), env, f)
}

// emitFrame is emit with a context: Ctrl-C stops a -o write and leaves
// nothing behind.
func (o *outputOptions) emitFrame(ctx context.Context, env *cliEnv, f *dataframe.Frame) error {
	s := f.Stream()
	defer s.Release()
	return o.emitStream(ctx, env, s)
}

// emitStream is emit for a stream: -o, --format json and --format csv write
// batch by batch as the batches arrive; --schema reads none; only the table
// collects the stream (see docs/frames.md#memory).
func (o *outputOptions) emitStream(ctx context.Context, env *cliEnv, s dataframe.Stream) error {
	if o.out != "" {
		return writeOut(ctx, env, o.out, s, fileio.FileOptions{TimeZone: o.zone}, o.note)
	}
	if err := o.printStream(ctx, env, s); err != nil {
		return err
	}
	if n := noteText(o.note); n != "" {
		fmt.Fprintf(env.stderr, "sluice: %s\n", n)
	}
	return nil
}

// printStream prints s on stdout as --schema and --format say.
func (o *outputOptions) printStream(ctx context.Context, env *cliEnv, s dataframe.Stream) error {
	if o.schema {
		_, err := fmt.Fprint(env.stdout, dataframe.SchemaString(s.Schema()))
		return err
	}
	switch o.format {
	case "json":
		_, err := fileio.WriteStreamTo(ctx, env.stdout, s, "ndjson", fileio.FileOptions{TimeZone: o.zone})
		return err
	case "csv":
		_, err := fileio.WriteStreamTo(ctx, env.stdout, s, "csv", fileio.FileOptions{TimeZone: o.zone})
		return err
	}
	f, err := dataframe.Collect(s)
	if err != nil {
		return err
	}
	defer f.Release()
	if err := dataframe.WriteTable(env.stdout, f, dataframe.TableOptions{MaxRows: o.rows, Truncate: o.width(), Location: o.zone}); err != nil {
		return err
	}
	if o.count {
		fmt.Fprintln(env.stderr, rowCount(f.NumRows()))
	}
	return nil
}

// rowCount is "1 row" or "N rows".
func rowCount(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return strconv.FormatInt(n, 10) + " rows"
}

// writeOut writes s to path (parent directories created) atomically, so
// Ctrl-C leaves nothing, and prints the one-line summary on stderr.
func writeOut(ctx context.Context, env *cliEnv, path string, s dataframe.Stream, fo fileio.FileOptions, note func() string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	rows, err := fileio.WriteStream(ctx, path, s, fo)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return fmt.Errorf("interrupted: %s was not written", path)
		}
		return err
	}
	size := int64(0)
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(env.stderr, "wrote %d rows, %d columns, %d bytes to %s%s\n", rows, s.Schema().NumFields(), size, path, noteSuffix(noteText(note)))
	return nil
}

// noteText is what note says, "" for none.
func noteText(note func() string) string {
	if note == nil {
		return ""
	}
	return note()
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return "; " + note
}
