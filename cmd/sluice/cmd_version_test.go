package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestVersionInProcess(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run(context.Background(), &cliEnv{stdout: &out, stderr: &errOut}, []string{"--version"})
	require.Equal(t, 0, code, errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4, out.String())
	require.True(t, strings.HasPrefix(lines[0], "sluice "), lines[0])
	require.True(t, strings.HasPrefix(lines[1], "commit: "), lines[1])
	require.True(t, strings.HasPrefix(lines[2], "date:   "), lines[2])
	require.True(t, strings.HasPrefix(lines[3], "go:     go1."), lines[3])
}

// TestVersionOfBuiltBinary checks the stamps `go build -buildvcs=true` puts
// in a real binary: in a git clone the commit is HEAD's and the date its time.
func TestVersionOfBuiltBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: not building the sluice binary")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	head, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (git rev-parse HEAD: %v): the binary carries no commit", err)
	}
	top, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree (.git is a file): go build records no VCS data there")
	}
	bin := filepath.Join(t.TempDir(), "sluice")
	out, err := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.CommandContext(ctx, bin, "version").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Regexp(t, `(?m)^commit: `+strings.TrimSpace(string(head))+`( \(with uncommitted changes\))?$`, string(out))
	require.Regexp(t, `(?m)^date:   \d{4}-\d\d-\d\dT`, string(out))
}
