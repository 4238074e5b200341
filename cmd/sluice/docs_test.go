package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

const archDoc = "../../docs/architecture.md"

// architecture renders docs/architecture.md from `go list`: every package
// with its synopsis and the module's packages it imports, and a diagram of
// those imports, so the picture is the code's, not a memory of it.
func architecture(t *testing.T) string {
	t.Helper()
	type pkg struct {
		path, doc string
		deps      []string
	}
	var pkgs []pkg
	for _, lp := range listPackages(t) {
		p := pkg{path: lp.path, doc: lp.doc}
		for _, imp := range lp.imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				p.deps = append(p.deps, rest)
			}
		}
		pkgs = append(pkgs, p)
	}
	var b strings.Builder
	b.WriteString("# Architecture\n\nGenerated from `go list` (`go test ./cmd/sluice -run TestArchitectureDoc -update-docs`); do not edit by hand.\n")
	b.WriteString("An arrow points from a package to one it imports (tests not counted); `internal/` packages are helpers, not API.\n\n")
	b.WriteString("```mermaid\nflowchart LR\n")
	for _, p := range pkgs {
		for _, d := range p.deps {
			fmt.Fprintf(&b, "  %s --> %s\n", mermaidID(p.path), mermaidID(d))
		}
	}
	b.WriteString("```\n\n| package | what it is | imports (of this module) |\n|---|---|---|\n")
	for _, p := range pkgs {
		deps := "—"
		if len(p.deps) > 0 {
			deps = "`" + strings.Join(p.deps, "`, `") + "`"
		}
		doc := p.doc
		if doc == "" {
			doc = "(no package comment)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.path, strings.ReplaceAll(doc, "|", `\|`), deps)
	}
	return b.String()
}

const module = "github.com/sluicedata/sluice/"

// listedPackage is one of the module's packages as `go list` sees it.
type listedPackage struct {
	path, doc string   // path without the module prefix
	imports   []string // full import paths, tests not counted
}

// listPackages lists the module's product packages (bench/ helpers left
// out: they are measuring scripts, not the product).
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}\t{{join .Imports \" \"}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	require.NoError(t, err, "go list")
	var pkgs []listedPackage
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		require.Len(t, f, 3, line)
		p := listedPackage{path: strings.TrimPrefix(f[0], module), doc: f[1], imports: strings.Fields(f[2])}
		if strings.HasPrefix(p.path, "bench/") {
			continue
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestArrowConfined checks that only the dataframe family imports Arrow
// (tests aside), so its major version is swapped in one place
// (docs/frames.md#arrow).
func TestArrowConfined(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running go list")
	}
	for _, p := range listPackages(t) {
		if p.path == "dataframe" || strings.HasPrefix(p.path, "dataframe/") {
			continue
		}
		for _, imp := range p.imports {
			if strings.HasPrefix(imp, "github.com/apache/arrow/") {
				t.Errorf("%s imports %s: use the aliases of package dataframe and dataframe/sparktype (docs/frames.md#arrow)", p.path, imp)
			}
		}
	}
}

// mermaidID is a node id with the package path as its label.
func mermaidID(path string) string {
	return strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(path) + `["` + path + `"]`
}

func TestArchitectureDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running go list")
	}
	want := architecture(t)
	if *updateDocs {
		require.NoError(t, os.WriteFile(archDoc, []byte(want), 0o644))
	}
	got, err := os.ReadFile(archDoc)
	require.NoError(t, err, "docs/architecture.md is missing: go test ./cmd/sluice -run TestArchitectureDoc -update-docs")
	require.Equal(t, want, string(got), "docs/architecture.md differs from the code: go test ./cmd/sluice -run TestArchitectureDoc -update-docs")
}

// TestDocsLinks checks that every relative link of README.md and docs/
// names a file that exists, so the reference has no dead ends.
func TestDocsLinks(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	files = append(files, "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			_, err := os.Stat(filepath.Join(filepath.Dir(f), target))
			require.NoError(t, err, "%s links to %s, which does not exist", strings.TrimPrefix(f, "../../"), m[1])
		}
	}
}
