package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/internal/suggest"
)

func init() {
	addCommand(&command{
		name:    "state",
		summary: "show or reset an incremental table's state (state show|reset ns.table)",
		run:     runStateCommand,
	})
}

// runStateCommand shows or deletes the state file of an incremental table
// (see docs/incremental.md#state-commands).
func runStateCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "state", "state show|reset NS.TABLE [--catalog DIR]\n\n"+
		"show prints the table's incremental state as JSON (or `no state`);\n"+
		"reset deletes it, so the next read starts from svc.restapi.incremental.initial.")
	var sess sessionFlags
	sess.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want show|reset and one table NAME, got %d arguments", len(pos))
	}
	verb, name := pos[0], pos[1]
	if verb != "show" && verb != "reset" {
		return usagef("unknown action %q%s (want show or reset)", verb, suggest.Phrase(verb, []string{"show", "reset"}))
	}
	s, err := sess.open(env)
	if err != nil {
		return err
	}
	cat := s.Catalog()
	ns, table, err := catalog.SplitName(name)
	if err != nil {
		return err
	}
	if _, err := cat.Get(ctx, ns, table); err != nil {
		return err
	}
	if verb == "reset" {
		had, err := cat.ResetState(ctx, ns, table)
		if err != nil {
			return err
		}
		if !had {
			fmt.Fprintln(env.stdout, "no state")
			return nil
		}
		fmt.Fprintf(env.stdout, "state of %s.%s reset\n", ns, table)
		return nil
	}
	st, err := cat.State(ctx, ns, table)
	if err != nil {
		return err
	}
	if st == nil {
		fmt.Fprintln(env.stdout, "no state")
		return nil
	}
	enc := json.NewEncoder(env.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}
