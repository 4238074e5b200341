package fileio

import (
	"bytes"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"github.com/sluicedata/sluice/dataframe/internal/frametest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestArrowIPCRoundTrip(t *testing.T) {
	t.Parallel()
	for _, batch := range []int{0, 1, 2} {
		mem := frametest.CheckedAlloc(t)
		f := fixtures.NestedFrame(t, mem, batch)
		var buf bytes.Buffer
		require.NoError(t, WriteArrowIPC(&buf, f))
		require.True(t, bytes.HasPrefix(buf.Bytes(), []byte("ARROW1")))
		require.True(t, bytes.HasSuffix(buf.Bytes(), []byte("ARROW1")))
		path := filepath.Join(t.TempDir(), "x.arrow")
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		got, err := ReadArrowIPC(t.Context(), path, mem)
		require.NoError(t, err)
		require.Equal(t, len(f.Records()), len(got.Records()))
		frametest.RequireFramesEqual(t, f, got)
		got.Release()
		f.Release()
	}
}

func TestReadArrowIPCCorrupt(t *testing.T) {
	t.Parallel()
	mem := frametest.CheckedAlloc(t)
	f := fixtures.NestedFrame(t, mem, 0)
	defer f.Release()
	var buf bytes.Buffer
	require.NoError(t, WriteArrowIPC(&buf, f))
	good := buf.Bytes()
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"garbage":   []byte("ARROW1 but then nothing that makes sense"),
		"truncated": good[:len(good)/2],
	} {
		path := filepath.Join(dir, "bad.arrow")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		_, err := ReadArrowIPC(t.Context(), path, mem)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "arrow ipc", name)
	}
	for off := 8; off < len(good)-8; off += max(1, len(good)/150) {
		bad := bytes.Clone(good)
		bad[off] ^= 0xff
		path := filepath.Join(dir, "flip.arrow")
		require.NoError(t, os.WriteFile(path, bad, 0o644))
		// Default allocator: a recovered panic leaves Arrow's own
		// half-built buffers to the garbage collector, not to Release.
		got, err := ReadArrowIPC(t.Context(), path, nil)
		if err != nil {
			require.Contains(t, err.Error(), "arrow ipc", "flip at %d", off)
			continue
		}
		got.Release()
	}
}
