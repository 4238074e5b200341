package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runSluice runs `sluice args…` in-process with an empty environment.
func runSluice(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code = run(ctx, env, args)
	return code, out.String(), errb.String()
}

func TestDispatcherConventions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     string // substring
		stderrLine string // prefix of stderr
	}{
		{"no arguments: usage, bad usage", nil, 2, "Usage: sluice <command>", ""},
		{"--help", []string{"--help"}, 0, "Commands:", ""},
		{"-h", []string{"-h"}, 0, "Commands:", ""},
		{"help", []string{"help"}, 0, "convert", ""},
		{"unknown command", []string{"frobnicate"}, 2, "", `sluice: unknown command "frobnicate"`},
		{"version", []string{"version"}, 0, "sluice ", ""},
		{"--version", []string{"--version"}, 0, "sluice ", ""},
		{"command --help", []string{"convert", "--help"}, 0, "Usage: sluice convert IN [OUT]", ""},
		{"command -h", []string{"convert", "-h"}, 0, "--records-path", ""},
		{"help after positionals", []string{"convert", "x.json", "--help"}, 0, "Usage: sluice convert", ""},
		{"unknown flag keeps its name", []string{"convert", "--bogus-flag", "x.json"}, 2, "", "sluice: convert: unknown flag --bogus-flag (see"},
		{"unknown flag, did you mean", []string{"convert", "--records-pth", "x.json"}, 2, "", "sluice: convert: unknown flag --records-pth (did you mean --records-path?)"},
		{"unknown command, did you mean", []string{"covnert"}, 2, "", `sluice: unknown command "covnert" (did you mean "convert"?)`},
		{"bad usage names the command", []string{"convert"}, 2, "", "sluice: convert: want IN"},
		{"failure", []string{"convert", "/nonexistent/in.json"}, 1, "", "sluice: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runSluice(t, tc.args...)
			require.Equal(t, tc.code, code, "stderr: %s", stderr)
			require.Contains(t, stdout, tc.stdout)
			if tc.stderrLine != "" {
				require.True(t, strings.HasPrefix(stderr, tc.stderrLine), "stderr %q", stderr)
				require.Equal(t, 1, strings.Count(stderr, "\n"), "one error line: %q", stderr)
			} else if tc.code == 0 {
				require.Empty(t, stderr)
			}
		})
	}
}

func TestParseFlagsPositionalsAnywhere(t *testing.T) {
	t.Parallel()
	env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, args := range [][]string{
		{"a", "b", "--format", "csv", "--schema"},
		{"--format", "csv", "a", "--schema", "b"},
		{"--format=csv", "--schema", "a", "b"},
	} {
		fs := newFlagSet(env, "t", "t")
		format := fs.String("format", "table", "")
		schema := fs.Bool("schema", false, "")
		pos, err := parseFlags(fs, args)
		require.NoError(t, err, args)
		require.Equal(t, []string{"a", "b"}, pos, args)
		require.Equal(t, "csv", *format)
		require.True(t, *schema)
	}
	fs := newFlagSet(env, "t", "t")
	fs.Bool("schema", false, "")
	pos, err := parseFlags(fs, []string{"a", "--", "--schema"})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "--schema"}, pos, "-- ends flags")
}

func TestKVFlag(t *testing.T) {
	t.Parallel()
	kv := &kvFlag{name: "set"}
	require.NoError(t, kv.Set("a=1"))
	require.NoError(t, kv.Set(" b =x=y"))
	require.NoError(t, kv.Set("a=2"))
	require.Equal(t, map[string]string{"a": "2", "b": "x=y"}, kv.Map())
	require.ErrorContains(t, kv.Set("novalue"), "--set wants key=value")
	require.ErrorContains(t, kv.Set("=v"), "--set wants key=value")
}
