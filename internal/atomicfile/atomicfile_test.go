package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteLeavesNothingOnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.ndjson")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		if _, err := w.Write(make([]byte, 3<<20)); err != nil { // past the buffer: really on disk
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old\n", string(data), "the previous file is untouched")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestWriteBytesReplaces(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, WriteBytes(path, []byte("one")))
	require.NoError(t, WriteBytes(path, []byte("two")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "two", string(data))
	require.Error(t, WriteBytes(filepath.Join(t.TempDir(), "missing", "x"), nil))
}

func TestReplaceDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	final := filepath.Join(root, "out")
	tmp := TempName(final, "new")
	require.NoError(t, os.MkdirAll(tmp, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "a"), []byte("1"), 0o644))
	require.NoError(t, ReplaceDir(tmp, final)) // final did not exist
	tmp2 := TempName(final, "new")
	require.NoError(t, os.MkdirAll(tmp2, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tmp2, "b"), []byte("2"), 0o644))
	require.NoError(t, ReplaceDir(tmp2, final))
	entries, err := os.ReadDir(final)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, "b", entries[0].Name())
	all, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, all, 1, "the old directory is gone")
	// A missing tmp: final keeps its data.
	require.Error(t, ReplaceDir(filepath.Join(root, ".nope"), final))
	entries, err = os.ReadDir(final)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestWriteErrorNamesTargetNotTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	require.NoError(t, os.Mkdir(path, 0o755)) // a directory cannot be renamed over
	require.NoError(t, os.WriteFile(filepath.Join(path, "keep"), nil, 0o644))
	err := WriteBytes(path, []byte("x"))
	require.Error(t, err)
	require.Contains(t, err.Error(), path)
	require.NotContains(t, err.Error(), ".tmp-")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
}

func TestWritePanicLeavesNoTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	func() {
		defer func() { require.Equal(t, "boom", recover()) }()
		_ = Write(filepath.Join(dir, "out"), func(w io.Writer) error { panic("boom") })
	}()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}
