package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/catalog/sqlparse"
	_ "github.com/sluicedata/sluice/connectors/all"
	"github.com/sluicedata/sluice/dataframe"
)

func init() {
	addCommand(&command{
		name:    "sql",
		summary: "run SQL statements over the catalog and print the last result",
		run:     runSQLCommand,
	})
}

func runSQLCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet(env, "sql", "sql [-e SQL]… | -f FILE [--catalog DIR] [--set k=v]… [--format table|json|csv] [--truncate N|false] [--schema] [-o FILE]\n\n"+
		"Runs the statements (separated by ;) in order and prints the last one's result.\n"+
		"Several -e run in the order given; -f - reads the statements from stdin; a lone argument is taken as -e.")
	var (
		sess sessionFlags
		out  outputOptions
	)
	var exprs sqlFlag
	fs.Var(&exprs, "e", "the `SQL` statements to run (repeatable)")
	file := fs.String("f", "", "read the statements from `FILE` (- for stdin)")
	sess.register(fs)
	out.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := out.validate(); err != nil {
		return err
	}
	var text string
	expr := strings.Join(exprs, "\n;\n")
	switch {
	case len(exprs) > 0 && *file != "":
		return usagef("give -e or -f, not both")
	case len(pos) > 1 || len(pos) == 1 && (len(exprs) > 0 || *file != ""):
		return usagef("unexpected argument %q", pos[len(pos)-1])
	case len(exprs) > 0:
		text = expr
	case *file != "":
		text, err = readSQLFile(env, *file)
		if err != nil {
			return err
		}
	case len(pos) == 1:
		text = pos[0]
	default:
		return usagef("want -e SQL or -f FILE")
	}
	if strings.TrimSpace(text) == "" {
		return usagef("no SQL to run")
	}
	s, err := sess.open(env)
	if err != nil {
		return err
	}
	pctx, prog := startReadProgress(ctx, env, "sql")
	s.SetLogOutput(prog.logWriter(env.stderr))
	f, err := s.ExecuteBatch(pctx, text)
	prog.stop()
	if err != nil {
		return err
	}
	defer f.Release()
	out.whole = wholeCells(text)
	out.count = stderrIsTerminal(env)
	// Timestamps print in the session time zone, as spark-sql shows them
	// (docs/sql.md#time-zone).
	if out.zone, err = s.TimeZone(); err != nil {
		return err
	}
	return emitResult(env, &out, f)
}

// sqlFlag collects repeated -e flags, run in the order given.
type sqlFlag []string

func (f *sqlFlag) String() string { return "" }

func (f *sqlFlag) Set(s string) error {
	*f = append(*f, s)
	return nil
}

// wholeCells says whether the batch's last statement gives a result whose
// cells are never truncated, as spark-sql prints them: DESCRIBE, SET, SHOW
// and EXPLAIN (docs/sql.md#output).
func wholeCells(text string) bool {
	stmts, err := sqlparse.Parse(text)
	if err != nil || len(stmts) == 0 {
		return false
	}
	switch x := stmts[len(stmts)-1].(type) {
	case *sqlparse.Describe, *sqlparse.Set, *sqlparse.ShowTables, *sqlparse.ShowNamespaces:
		return true
	case *sqlparse.Select:
		return x.Explain
	}
	return false
}

func readSQLFile(env *cliEnv, path string) (string, error) {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		if env.stdin == nil {
			return "", usagef("-f -: no stdin")
		}
		b, err = io.ReadAll(env.stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// emitResult prints a statement's frame. DDL and RESET give a frame without
// columns: like spark-sql, nothing is printed for it.
func emitResult(env *cliEnv, out *outputOptions, f *dataframe.Frame) error {
	if f.NumCols() == 0 && out.out == "" && !out.schema {
		return nil
	}
	return out.emit(env, f)
}

// openSessionForName is shared by read and write: the session plus the
// props that make name a catalog table or a USER-mode dataset.
func openSessionForName(env *cliEnv, sess *sessionFlags, src *sourceFlags, name string) (*catalog.Session, map[string]any, error) {
	props, err := src.runtimeProps(name)
	if err != nil {
		return nil, nil, err
	}
	s, err := sess.open(env)
	if err != nil {
		return nil, nil, err
	}
	return s, props, nil
}
