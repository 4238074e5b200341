package main

import (
	"context"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/sluicedata/sluice/catalog"
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
	fs := newFlagSet(env, "run", "run PIPELINE.yaml [--set k=v]… [--catalog DIR] [--dry-run]")
	sets := &kvFlag{name: "set"}
	fs.Var(sets, "set", "session setting `k=v` (repeatable); wins over the pipeline's settings")
	catalogDir := fs.String("catalog", "", "catalog `DIR` (default: the pipeline's catalog:, else $SLUICE_CATALOG, else .sluice/catalog)")
	dryRun := fs.Bool("dry-run", false, "check the pipeline and print its plan without running it")
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
	if *dryRun {
		return pipelines.WritePlan(env.stdout, p, sets.Map())
	}
	// The pipeline's own catalog: sits between the flag and $SLUICE_CATALOG.
	flagDir := *catalogDir
	if flagDir == "" {
		flagDir = p.Catalog
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	cat, err := catalog.Open(catalog.ResolveDir(flagDir, env.getenv, wd))
	if err != nil {
		return err
	}
	sess := catalog.NewSession(cat)
	sess.SetLogOutput(env.stderr)
	res, err := pipelines.Run(ctx, p, pipelines.Options{
		Session:  sess,
		Settings: sets.Map(),
		Progress: env.stderr,
		Terminal: runIsTerminal(env),
	})
	if err != nil {
		return err
	}
	if res.Output != nil {
		res.Output.Release()
	}
	return nil
}

// runIsTerminal reports whether progress goes to a terminal, where a live
// spinner helps; pipes and logs get plain lines.
func runIsTerminal(env *cliEnv) bool {
	f, ok := env.stderr.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
