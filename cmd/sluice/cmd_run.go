package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/pipelines"
)

func init() {
	addCommand(&command{
		name:    "run",
		summary: "run a pipeline file (YAML)",
		run:     runPipelineCommand,
	})
}

func runPipelineCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "run", "run PIPELINE.yaml [--set k=v]… [--catalog DIR] [--dry-run] [--full-refresh]")
	var sf sessionFlags
	sf.register(fs)
	dryRun := fs.Bool("dry-run", false, "check the pipeline, its tables and the columns its steps use, and print its plan without running it")
	fullRefresh := fs.Bool("full-refresh", false, "ignore the stored incremental states for this run (the new ones are stored after the last write)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one pipeline file, got %d arguments", len(pos))
	}
	p, err := pipelines.ParseFile(pos[0], env.getenv)
	if err != nil {
		return err
	}
	// The pipeline's own catalog: sits between --catalog and $SLUICE_CATALOG.
	dir, err := sf.catalogDirFor(env, p.Catalog)
	if err != nil {
		return err
	}
	cat, err := catalog.Open(dir)
	if err != nil {
		return err
	}
	if *dryRun {
		// A dry run runs nothing, but a table that is not there is known now.
		var missing []error
		for _, ref := range p.Tables() {
			ns, name, err := catalog.SplitName(ref.Name)
			if err == nil {
				_, err = cat.Get(ctx, ns, name)
			}
			if err != nil {
				missing = append(missing, fmt.Errorf("%s: %s: %w", p.File, ref.Label(), err))
			}
		}
		if len(missing) > 0 {
			return errors.Join(missing...)
		}
		// The columns steps use, where the tables declare theirs.
		notes, err := pipelines.CheckColumns(ctx, p, func(ctx context.Context, name string) ([]connectors.Field, error) {
			ns, table, err := catalog.SplitName(name)
			if err != nil {
				return nil, err
			}
			t, err := cat.Get(ctx, ns, table)
			if err != nil {
				return nil, err
			}
			if parsesPayload(t, p, sf.sets.Map()) {
				// The RESTAPI default column, payload, is not what a parsed
				// read gives: its columns are known only once read.
				return nil, nil
			}
			return t.Fields(), nil
		})
		if err != nil {
			return err
		}
		if err := pipelines.WritePlan(env.stdout, p, sf.sets.Map()); err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintf(env.stdout, "columns: %s\n", n)
		}
		return nil
	}
	sess := catalog.NewSession(cat)
	sess.SetLogOutput(env.stderr)
	// --set is applied by Run after the pipeline's settings, so it wins.
	// The last step's output is not kept: a streaming pipeline runs in
	// memory that does not grow with its input (docs/pipelines.md#streaming).
	_, err = pipelines.Run(ctx, p, pipelines.Options{
		Session:       sess,
		Settings:      sf.sets.Map(),
		Progress:      env.stderr,
		Terminal:      stderrIsTerminal(env),
		FullRefresh:   *fullRefresh,
		DiscardOutput: true,
	})
	return err
}

// stderrIsTerminal reports whether progress goes to a terminal, where a
// live line helps; pipes and logs get plain lines. env.terminal, when set,
// decides instead (tests).
func stderrIsTerminal(env *cliEnv) bool {
	if env.terminal != nil {
		return env.terminal()
	}
	f, ok := env.stderr.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// parsesPayload reports whether a RESTAPI table is read parsed
// (svc.restapi.parse.payload, from the table, the pipeline's settings or
// --set, the last winning) while it declares only its default payload
// column.
func parsesPayload(t *catalog.Table, p *pipelines.Pipeline, sets map[string]string) bool {
	const key = "svc.restapi.parse.payload"
	if !strings.EqualFold(t.Type, "RESTAPI") || len(t.Columns) != 1 || !strings.EqualFold(t.Columns[0].Name, "payload") {
		return false
	}
	v := t.Properties[key]
	for _, s := range p.Settings {
		if s.Key == key {
			v = s.Value
		}
	}
	if sv, ok := sets[key]; ok {
		v = sv
	}
	return strings.EqualFold(strings.TrimSpace(v), "true")
}
