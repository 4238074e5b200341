package main

import (
	"context"
	"strings"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func init() {
	addCommand(&command{
		name:    "read",
		summary: "read a dataset (catalog table or --type with --prop) and print it",
		run:     runReadCommand,
	})
}

func runReadCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "read", "read NAME [--type T --prop k=v …] [--prop k=v]… [--set k=v]… [--catalog DIR] [--sample-rows N [--strict]] [--mode M] [--format table|json|csv] [--schema] [-o FILE] [--full-refresh]\n\n"+
		"Without --type, NAME is a catalog table (ns.table) and --prop adds runtime properties.\n"+
		"With --type, NAME is read in USER mode from the --prop properties.")
	var (
		sess sessionFlags
		src  sourceFlags
		out  outputOptions
		smp  sampleFlags
	)
	sess.register(fs)
	src.register(fs)
	out.register(fs)
	smp.register(fs)
	fullRefresh := fs.Bool("full-refresh", false, "ignore the stored incremental state for this read (with -o, the new state is stored after)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
		return err
	}
	if err := smp.validate(); err != nil {
		return err
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return usagef("want one dataset NAME, got %d arguments", len(pos))
	}
	name := pos[0]
	s, props, err := openSessionForName(env, &sess, &src, name)
	if err != nil {
		return err
	}
	// An incremental table's state moves only once the rows are delivered:
	// the -o file in place. Printed rows are not a delivery.
	d := &catalog.Delivery{FullRefresh: *fullRefresh}
	ctx, stats := jsonframe.WithReadSettings(ctx, smp.settings())
	pctx, prog := startReadProgress(catalog.WithDelivery(ctx, d), env, "reading "+name)
	s.SetLogOutput(prog.logWriter(env.stderr))
	if out.out != "" || out.schema {
		// -o streams: a connector that can (RESTAPI spools its pages to a
		// temporary file) never holds the rows (see docs/frames.md#memory).
		// --schema needs only the stream's schema: a database table or a
		// Parquet file is not read at all.
		st, err := s.ReadStream(pctx, name, props)
		prog.stop()
		if err != nil {
			return err
		}
		defer st.Release()
		out.note = func() string { return smp.note(stats) }
		if err := out.emitStream(ctx, env, st); err != nil {
			return err
		}
		if out.out == "" {
			return nil // a printed schema is not a delivery
		}
		return d.Commit(ctx)
	}
	f, err := s.Read(pctx, name, props)
	prog.stop()
	if err != nil {
		return err
	}
	defer f.Release()
	out.note = func() string { return smp.note(stats) }
	return out.emitFrame(ctx, env, f)
}
