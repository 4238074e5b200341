package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sluicedata/sluice/dataframe"
)

// outputOptions are the frame output flags every frame-printing command
// shares: --format, --schema, -o (CONTRACT §8).
type outputOptions struct {
	format string
	schema bool
	out    string
	rows   int
	note   string // appended to the -o summary line (or printed on stderr): what a sampled read dropped
}

func (o *outputOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "table", "row output: table | json (NDJSON) | csv")
	fs.BoolVar(&o.schema, "schema", false, "print the schema instead of rows")
	fs.StringVar(&o.out, "o", "", "write the frame to `FILE` (.parquet .arrow .csv .ndjson) instead of printing it")
	fs.IntVar(&o.rows, "rows", 20, "rows shown by --format table")
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
	if o.out != "" {
		// Checked before any dataset is read: a typo must not cost a fetch.
		if _, err := dataframe.FileFormat(o.out); err != nil {
			return usagef("-o: %s", err)
		}
	}
	return nil
}

// emit prints f (or its schema), or writes it to -o with a one-line summary
// on stderr.
func (o *outputOptions) emit(env *cliEnv, f *dataframe.Frame) error {
	if o.out != "" {
		if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
			return fmt.Errorf("-o %s: %w", o.out, err)
		}
		if err := dataframe.WriteFile(o.out, f, dataframe.FileOptions{}); err != nil {
			return err
		}
		st, err := os.Stat(o.out)
		size := int64(0)
		if err == nil {
			size = st.Size()
		}
		fmt.Fprintf(env.stderr, "wrote %d rows, %d columns, %d bytes to %s%s\n", f.NumRows(), f.NumCols(), size, o.out, noteSuffix(o.note))
		return nil
	}
	if o.note != "" {
		fmt.Fprintf(env.stderr, "sluice: %s\n", o.note)
	}
	if o.schema {
		_, err := fmt.Fprint(env.stdout, dataframe.SchemaString(f.Schema()))
		return err
	}
	switch o.format {
	case "json":
		return dataframe.WriteNDJSON(env.stdout, f)
	case "csv":
		return dataframe.WriteCSV(env.stdout, f)
	default:
		return dataframe.WriteTable(env.stdout, f, dataframe.TableOptions{MaxRows: o.rows, Truncate: 20})
	}
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return "; " + note
}
