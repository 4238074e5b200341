package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/internal/suggest"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated part of docs/cli.md from the commands' --help")

const (
	cliDoc      = "../../docs/cli.md"
	cliGenBegin = "<!-- BEGIN GENERATED: sluice --help (go test ./cmd/sluice -run TestCLIDoc -update-docs) -->"
	cliGenEnd   = "<!-- END GENERATED -->"
)

// cliReference renders every command's --help, so docs/cli.md lists every
// command and flag there is and cannot drift from the binary.
func cliReference(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(cliGenBegin + "\n")
	for _, name := range suggest.Sorted(commands) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), &cliEnv{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}, []string{name, "--help"})
		require.Equal(t, 0, code, "%s --help: %s", name, errOut.String())
		fmt.Fprintf(&b, "\n### sluice %s\n\n%s.\n\n```text\n%s```\n", name, commands[name].summary, out.String())
	}
	b.WriteString("\n" + cliGenEnd + "\n")
	return b.String()
}

func TestCLIDoc(t *testing.T) {
	doc, err := os.ReadFile(cliDoc)
	require.NoError(t, err, "docs/cli.md is missing")
	text := string(doc)
	i, j := strings.Index(text, cliGenBegin), strings.Index(text, cliGenEnd)
	require.True(t, i >= 0 && j > i, "docs/cli.md lacks the generated-reference markers")
	want := text[:i] + cliReference(t) + strings.TrimPrefix(text[j+len(cliGenEnd):], "\n")
	if *updateDocs {
		require.NoError(t, os.WriteFile(cliDoc, []byte(want), 0o644))
		text = want
	}
	require.Equal(t, want, text, "docs/cli.md differs from the commands' --help: run go test ./cmd/sluice -run TestCLIDoc -update-docs")
	// The hand-written guide above the reference speaks of every command too.
	for name := range commands {
		require.Contains(t, text[:i], "sluice "+name, "the guide part of docs/cli.md never mentions `sluice %s`", name)
	}
}
