// Command sluice is Sluice's one binary: SQL over the catalog, dataset reads
// and writes, pipelines, format conversion, the notification sidecar and an
// offline demo. Run `sluice --help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/internal/suggest"
)

// command is one `sluice <name>` subcommand. Each lives in its own file and
// adds itself to commands in init().
type command struct {
	name    string
	summary string
	// run executes the command; args exclude the command name.
	run func(ctx context.Context, env *cliEnv, args []string) error
}

var commands = map[string]*command{}

func addCommand(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name)
	}
	commands[c.name] = c
}

// cliEnv carries the process's streams so commands are testable in-process.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// terminal, when set, says whether stderr is a terminal (live progress
	// lines); nil asks the operating system.
	terminal func() bool
	// workdir is the directory relative paths start from for files a
	// command creates on its own (the demo's); "" is the process's.
	workdir string
}

// usageError is bad usage: exit 2. It wraps the cause a %w in usagef's
// format names, for errors.Is/As.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }

func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return &usageError{fmt.Errorf(format, args...)} }

// errHelp: --help was asked for and printed; exit 0.
var errHelp = flag.ErrHelp

func main() {
	// The binary opts in to the faster Parquet zstd/gzip encoders, a
	// process-wide choice (see docs/frames.md#parquet).
	fileio.UseFastParquetCodecs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a command and maps its error to an exit code:
// 0 ok or help, 1 failure, 2 bad usage.
func run(ctx context.Context, env *cliEnv, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "sluice: unknown command %q%s (see sluice --help)\n", args[0], suggest.Phrase(args[0], suggest.Sorted(commands)))
		return 2
	}
	err := c.run(ctx, env, args[1:])
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.stderr, "sluice: %s: %s (see sluice %s --help)\n", c.name, ue.err, c.name)
		return 2
	default:
		fmt.Fprintf(env.stderr, "sluice: %s\n", err)
		return 1
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: sluice <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s  %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `sluice <command> --help` for a command's flags.")
}

// newFlagSet makes a flag set that prints usage to env.stderr (stdout for
// --help) and reports errors instead of exiting.
func newFlagSet(env *cliEnv, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(env.stdout, "Usage: sluice %s\n\nFlags:\n", synopsis)
		fs.SetOutput(env.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args allowing flags before and after positional
// arguments (`sluice read ns.t --format json`). `--` ends flags. It returns
// the positional arguments. --help prints usage and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	// flag.Parse prints usage itself on -h and on every bad flag; silence it
	// so --help prints once and a bad flag gets one error line.
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
				return nil, errHelp
			}
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				name = strings.TrimLeft(name, "-")
				var known []string
				fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
				msg = "unknown flag --" + name
				if s, ok := suggest.Closest(name, known); ok {
					msg += " (did you mean --" + s + "?)"
				}
			}
			// flag quotes the bad value first (`invalid value "k:v" for flag
			// -set: …`); a kvFlag's own message says what was wrong without
			// echoing a secret, so it alone is kept.
			if strings.HasPrefix(msg, "invalid value ") {
				if i := strings.LastIndex(msg, " for flag -"); i >= 0 {
					if j := strings.Index(msg[i:], ": "); j >= 0 && strings.HasPrefix(msg[i+j+2:], "--") {
						msg = msg[i+j+2:]
					}
				}
			}
			return nil, usagef("%s", msg)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fs stopped at a positional argument or at "--".
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// kvFlag collects repeated `k=v` flags (--set, --prop) in order.
type kvFlag struct {
	name  string
	pairs [][2]string
}

func (f *kvFlag) String() string { return "" }

func (f *kvFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		if connectors.IsSecretKey(s) {
			// A mistyped `key:value` of a secret must not print the value.
			return fmt.Errorf("--%s wants key=value, got an argument without '=' (not shown: it looks like it holds a secret)", f.name)
		}
		return fmt.Errorf("--%s wants key=value, got %q", f.name, s)
	}
	f.pairs = append(f.pairs, [2]string{k, v})
	return nil
}

// Map returns the pairs as a map (later pairs win).
func (f *kvFlag) Map() map[string]string {
	m := make(map[string]string, len(f.pairs))
	for _, p := range f.pairs {
		m[p[0]] = p[1]
	}
	return m
}
