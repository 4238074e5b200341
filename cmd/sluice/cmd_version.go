package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version overrides the module version when set at build time with
// -ldflags "-X main.version=v1.2.3" (a release build outside the module cache).
var version = ""

// buildInfo is what `sluice version` prints; see docs/cli.md#version.
type buildInfo struct {
	Version  string // module version: a tag, a pseudo-version, or "(devel)"
	Commit   string // vcs.revision, "" when the binary was built without VCS data
	Modified bool   // built from a work tree with uncommitted changes
	Date     string // vcs.time: the commit's time (RFC 3339); Go records no other build date
	Go       string
}

// readBuildInfo reads the module version and VCS stamps that `go build`
// records in the binary.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: "(devel)", Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		b.Version = version
	}
	return b
}

func (b buildInfo) write(w io.Writer) {
	orUnknown := func(s string) string {
		if s == "" {
			return "unknown (built without VCS data)"
		}
		return s
	}
	commit := orUnknown(b.Commit)
	if b.Modified {
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(w, "sluice %s\n", b.Version)
	fmt.Fprintf(w, "commit: %s\n", commit)
	fmt.Fprintf(w, "date:   %s\n", orUnknown(b.Date))
	fmt.Fprintf(w, "go:     %s\n", b.Go)
}

func init() {
	addCommand(&command{
		name:    "version",
		summary: "print the module version, commit and build date",
		run: func(ctx context.Context, env *cliEnv, args []string) error {
			fs := newFlagSet(env, "version", "version")
			if _, err := parseFlags(fs, args); err != nil {
				return err
			}
			readBuildInfo().write(env.stdout)
			return nil
		},
	})
}
