package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteExclusiveLeavesNoTemp(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ns")
	require.NoError(t, writeExclusive(dir, "t.json", []byte("one"), 0o644))
	require.ErrorIs(t, writeExclusive(dir, "t.json", []byte("two"), 0o644), fs.ErrExist)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	data, err := os.ReadFile(filepath.Join(dir, "t.json"))
	require.NoError(t, err)
	require.Equal(t, "one", string(data))
}
