package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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

// runStateCommand shows or deletes the state of an incremental table: its
// state file, or the row of the database table that keeps it (see
// docs/incremental.md#state-commands and docs/jdbc.md#exactly-once).
func runStateCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "state", "state show|reset NS.TABLE [--catalog DIR]\n\n"+
		"show prints the table's incremental state as JSON (or `no state`);\n"+
		"reset deletes it (the file, or the row of the database table that keeps it),\n"+
		"so the next read starts from svc.restapi.incremental.initial (or the whole table).")
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
	if _, _, err := catalog.SplitName(name); err != nil {
		return err
	}
	if verb == "reset" {
		had, err := s.ResetState(ctx, name)
		if err != nil {
			return err
		}
		if !had {
			fmt.Fprintln(env.stdout, "no state")
			return nil
		}
		fmt.Fprintf(env.stdout, "state of %s reset\n", strings.ToLower(name))
		return nil
	}
	st, _, err := s.State(ctx, name)
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
