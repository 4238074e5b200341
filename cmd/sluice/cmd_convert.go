package main

import (
	"context"
	"flag"
	"os"
	"runtime/debug"

	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func init() {
	addCommand(&command{
		name:    "convert",
		summary: "convert a data file (.json .ndjson .jsonl .csv .parquet .arrow) to another format, or print it",
		run:     runConvert,
	})
}

// runConvert is `sluice convert IN [OUT]`: IN is read by extension into a
// frame (JSON inferred as Spark does); OUT, when given, is written by its
// extension, atomically; without OUT the frame is printed like every other
// command's frames (--format, --schema, -o).
func runConvert(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "convert", "convert IN [OUT] [--records-path P] [--sample-rows N [--strict]] [--mode M] [--compression C] [--format table|json|csv] [--schema] [--rows N]")
	recordsPath := fs.String("records-path", "", "dotted `PATH` of the array holding the rows in a .json document (items)")
	var sample sampleFlags
	sample.register(fs)
	compression := fs.String("compression", "snappy", "Parquet `CODEC` for a .parquet OUT: snappy, zstd, gzip, brotli or none")
	rowGroup := fs.Int("row-group-rows", 0, "rows per Parquet row group for a .parquet OUT (0: 131072)")
	var out outputOptions
	out.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || len(pos) > 2 {
		return usagef("want IN and optionally OUT, got %d arguments", len(pos))
	}
	if err := out.validate(); err != nil {
		return err
	}
	in := pos[0]
	inFormat, err := fileio.FileFormat(in)
	if err != nil {
		return usagef("IN: %w", err)
	}
	if *recordsPath != "" && inFormat != "json" {
		return usagef("--records-path applies to .json input only, not %s", in)
	}
	if err := sample.validate(); err != nil {
		return err
	}
	if rs := sample.settings(); rs != (jsonframe.ReadSettings{}) && inFormat != "json" && inFormat != "ndjson" {
		return usagef("--sample-rows, --strict and --mode apply to JSON input only, not %s", in)
	}
	pq := fileio.ParquetOptions{Compression: *compression, RowGroupRows: *rowGroup}
	if err := pq.Validate(); err != nil {
		return usagef("--compression/--row-group-rows: %w", err)
	}
	dest := ""
	if len(pos) == 2 {
		dest = pos[1]
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for _, name := range []string{"o", "format", "schema", "rows"} {
			if set[name] {
				return usagef("OUT and --%s exclude each other: OUT is written, nothing is printed", name)
			}
		}
	} else if out.out != "" {
		dest = out.out
	}
	if dest != "" {
		if _, err := fileio.FileFormat(dest); err != nil {
			return usagef("OUT: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	boundMemory()
	var stats jsonframe.ReadStats
	s, err := fileio.OpenFile(ctx, in, fileio.FileOptions{RecordsPath: *recordsPath, SampleRows: sample.rows, Strict: sample.strict, Mode: sample.settings().Mode, Stats: &stats})
	if err != nil {
		return err
	}
	defer s.Release()
	out.note = func() string { return sample.note(&stats) }
	if dest == "" {
		return out.emitStream(ctx, env, s)
	}
	return writeOut(ctx, env, dest, s, fileio.FileOptions{Parquet: pq}, out.note)
}

// convertMemoryLimit is the Go runtime's soft memory limit during a convert.
// A convert streams (docs/frames.md#memory): what it holds is a few blocks,
// batches and row groups, well under this. With the limit in place the
// collector may let the heap grow to GOGC=400 between collections, so it
// runs less often, and still never past the limit.
const convertMemoryLimit = 352 << 20

// boundMemory applies convertMemoryLimit unless the user tuned the
// collector with GOGC or GOMEMLIMIT.
func boundMemory() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(convertMemoryLimit)
	debug.SetGCPercent(400)
}
