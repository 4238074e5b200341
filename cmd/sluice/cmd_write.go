package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/dataframe/fileio"
)

func init() {
	addCommand(&command{
		name:    "write",
		summary: "write a file (.ndjson .jsonl .json .csv .parquet .arrow) to a dataset",
		run:     runWriteCommand,
	})
}

func runWriteCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "write", "write NAME --input FILE [--type T --prop k=v …] [--prop k=v]… [--set k=v]… [--catalog DIR]\n\n"+
		"Reads FILE by its extension (.ndjson .jsonl .json .csv .parquet .arrow) and writes its rows\n"+
		"to NAME: a catalog table (ns.table), or with --type a USER-mode dataset from the --prop properties.")
	var (
		sess sessionFlags
		src  sourceFlags
	)
	input := fs.String("input", "", "the `FILE` to write")
	recordsPath := fs.String("records-path", "", "for a .json input: dotted `PATH` of the array holding the rows")
	sess.register(fs)
	src.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return usagef("want one dataset NAME, got %d arguments", len(pos))
	}
	if *input == "" {
		return usagef("--input FILE is required")
	}
	if _, err := fileio.FileFormat(*input); err != nil {
		return usagef("--input: %w", err)
	}
	name := pos[0]
	s, props, err := openSessionForName(env, &sess, &src, name)
	if err != nil {
		return err
	}
	f, err := fileio.ReadFile(ctx, *input, fileio.FileOptions{RecordsPath: *recordsPath})
	if err != nil {
		if !strings.HasPrefix(err.Error(), "reading "+*input) {
			err = fmt.Errorf("reading %s: %w", *input, err)
		}
		return err
	}
	defer f.Release()
	res, err := s.Write(ctx, name, f, props)
	if err != nil {
		return err
	}
	if c := res.Counts; c != nil {
		fmt.Fprintf(env.stdout, "wrote %d of %d rows to %s (num_affected_rows=%d, num_inserted_rows=%d, num_updated_rows=%d)\n",
			res.Written, res.Rows, name, c.Affected, c.Inserted, c.Updated)
		return nil
	}
	fmt.Fprintf(env.stdout, "wrote %d of %d rows to %s\n", res.Written, res.Rows, name)
	return nil
}
