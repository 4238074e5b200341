package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"github.com/sluicedata/sluice/internal/datagen"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConvertInterruptLeavesNothing sends SIGINT to a real `sluice convert`
// (and `convert -o`) while it writes, and checks that neither the output nor
// a temporary file is left and the exit says why.
func TestConvertInterruptLeavesNothing(t *testing.T) {
	bin := srvAccBinary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ndjson")
	fh, err := os.Create(in)
	require.NoError(t, err)
	bw := bufio.NewWriter(fh)
	// ~50 MB: long enough that the write is caught in the act.
	require.NoError(t, datagen.GenNDJSON(bw, 36000, 1))
	require.NoError(t, bw.Flush())
	require.NoError(t, fh.Close())

	for _, tc := range []struct {
		out  string
		args []string
	}{
		{"out.parquet", []string{"convert", in, filepath.Join(dir, "out.parquet")}},
		{"out.ndjson", []string{"convert", in, "-o", filepath.Join(dir, "out.ndjson")}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, bin, tc.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()

		// The temporary output appears once the write has begun.
		tmpPrefix := "." + tc.out + ".tmp-"
		seen := false
		deadline := time.Now().Add(4 * time.Minute)
		for !seen && time.Now().Before(deadline) {
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				seen = seen || strings.HasPrefix(e.Name(), tmpPrefix)
			}
			select {
			case err := <-exited:
				cancel()
				t.Fatalf("%s: convert ended (%v) before it was interrupted: %s", tc.out, err, stderr.String())
			case <-time.After(time.Millisecond):
			}
		}
		require.True(t, seen, "%s: no temporary file appeared", tc.out)
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		err := <-exited
		cancel()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "%s: %v", tc.out, err)
		require.Equal(t, 1, exit.ExitCode(), stderr.String())
		require.Contains(t, stderr.String(), "interrupted: "+filepath.Join(dir, tc.out)+" was not written")

		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		require.Equal(t, []string{"in.ndjson"}, names, tc.out)
	}
}
