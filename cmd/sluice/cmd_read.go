package main

import (
	"context"
	"strings"
)

func init() {
	addCommand(&command{
		name:    "read",
		summary: "read a dataset (catalog table or --type with --prop) and print it",
		run:     runReadCommand,
	})
}

func runReadCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "read", "read NAME [--type T --prop k=v …] [--prop k=v]… [--set k=v]… [--catalog DIR] [--format table|json|csv] [--schema] [-o FILE]\n\n"+
		"Without --type, NAME is a catalog table (ns.table) and --prop adds runtime properties.\n"+
		"With --type, NAME is read in USER mode from the --prop properties.")
	var (
		sess sessionFlags
		src  sourceFlags
		out  outputOptions
	)
	sess.register(fs)
	src.register(fs)
	out.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
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
	f, err := s.Read(ctx, name, props)
	if err != nil {
		return err
	}
	defer f.Release()
	stream := f.Stream()
	defer stream.Release()
	return out.emitStream(ctx, env, stream)
}
