package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeExcl is the fallback for file systems without hard links: it must
// keep exactly one winner too.
func TestWriteExclOneWinner(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.json")
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		wins   int
		exists int
	)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := writeExcl(path, []byte(`{"name":"t"}`))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case err == fs.ErrExist:
				exists++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 1, wins)
	require.Equal(t, 7, exists)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, `{"name":"t"}`, string(data))
}

func TestWriteExclusiveLeavesNoTemp(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ns")
	require.NoError(t, writeExclusive(dir, "t.json", []byte("one")))
	require.ErrorIs(t, writeExclusive(dir, "t.json", []byte("two")), fs.ErrExist)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	data, err := os.ReadFile(filepath.Join(dir, "t.json"))
	require.NoError(t, err)
	require.Equal(t, "one", string(data))
}
