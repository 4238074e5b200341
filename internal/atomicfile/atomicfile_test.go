package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

func TestStageAtDirectoryReplaces(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	final := filepath.Join(root, "out")
	fill := func(name string) func(tmp string) error {
		return func(tmp string) error {
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(tmp, name), []byte(name), 0o644)
		}
	}
	s, err := StageAt(final, fill("a"))
	require.NoError(t, err)
	require.Equal(t, int64(1), s.Size(), "the bytes of the directory's files")
	require.NoError(t, s.Commit()) // final did not exist
	s, err = StageAt(final, fill("b"))
	require.NoError(t, err)
	require.NoError(t, s.Commit())
	requireNames(t, final, "b")
	requireNames(t, root, "out") // the old directory is gone
	// A writer failing half-way: final keeps its data, nothing is left.
	boom := errors.New("boom")
	_, err = StageAt(final, func(tmp string) error {
		require.NoError(t, fill("c")(tmp))
		return boom
	})
	require.ErrorIs(t, err, boom)
	requireNames(t, final, "b")
	requireNames(t, root, "out")
	// A replaced directory gets its old content back when a later output
	// of the same CommitAll cannot be put in place.
	s, err = StageAt(final, fill("d"))
	require.NoError(t, err)
	blocked := filepath.Join(root, "blocked")
	require.NoError(t, os.Mkdir(blocked, 0o755))
	sf, err := Stage(blocked, func(w io.Writer) error { return nil })
	require.NoError(t, err)
	require.Error(t, CommitAll(s, sf))
	requireNames(t, final, "b")
	requireNames(t, root, "blocked", "out")
	require.NoError(t, os.Remove(blocked))

	// An error naming the temporary name names the target instead.
	_, err = StageAt(final, func(tmp string) error { return fmt.Errorf("cannot write %s", tmp) })
	require.EqualError(t, err, "cannot write "+final)
}

func TestStagePanicBecomesErrorNamingTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	_, err := Stage(path, func(w io.Writer) error {
		_, _ = w.Write(make([]byte, 2<<20))
		panic("arrow: index out of range")
	})
	require.EqualError(t, err, "writing "+path+": arrow: index out of range")
	_, err = StageAt(path, func(tmp string) error { panic("boom") })
	require.EqualError(t, err, "writing "+path+": boom")
	requireNames(t, dir, "out.parquet")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "old", string(data))
}

func TestStageAbortAndCommitOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.csv")
	s, err := Stage(path, func(w io.Writer) error { _, err := io.WriteString(w, "a\n"); return err })
	require.NoError(t, err)
	require.Equal(t, path, s.Path())
	require.Equal(t, int64(2), s.Size())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.True(t, strings.HasPrefix(entries[0].Name(), ".x.csv.tmp-"), entries[0].Name())
	require.Equal(t, ".csv", filepath.Ext(entries[0].Name()), "the extension is kept")
	s.Abort()
	s.Abort()
	requireNames(t, dir)
	require.Error(t, s.Commit(), "an aborted stage cannot be committed")
	requireNames(t, dir)
}

// Several outputs are all or none: when the second cannot be put in place,
// the first gets its old content back and the third is never published.
func TestCommitAllRollsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv"), filepath.Join(dir, "c.csv")
	require.NoError(t, os.WriteFile(a, []byte("old a"), 0o644))
	content := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	sa, err := Stage(a, content("new a"))
	require.NoError(t, err)
	sb, err := Stage(b, content("new b"))
	require.NoError(t, err)
	sc, err := Stage(c, content("new c"))
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(b, 0o755)) // a file cannot replace a directory
	require.NoError(t, os.WriteFile(filepath.Join(b, "keep"), nil, 0o644))
	err = CommitAll(sa, sb, sc)
	require.Error(t, err)
	require.Contains(t, err.Error(), b)
	require.NotContains(t, err.Error(), ".tmp-")
	data, err := os.ReadFile(a)
	require.NoError(t, err)
	require.Equal(t, "old a", string(data), "the first output is rolled back")
	requireNames(t, dir, "a.csv", "b.csv")
	requireNames(t, b, "keep")

	// A new file (no old content) is removed on roll-back.
	require.NoError(t, os.Remove(a))
	sa, err = Stage(a, content("new a"))
	require.NoError(t, err)
	sb, err = Stage(b, content("new b"))
	require.NoError(t, err)
	require.Error(t, CommitAll(sa, sb))
	requireNames(t, dir, "b.csv")

	// And when every rename succeeds, all are in place.
	require.NoError(t, os.RemoveAll(b))
	require.NoError(t, os.WriteFile(a, []byte("old a"), 0o644))
	sa, err = Stage(a, content("new a"))
	require.NoError(t, err)
	sb, err = Stage(b, content("new b"))
	require.NoError(t, err)
	require.NoError(t, CommitAll(sa, sb))
	requireNames(t, dir, "a.csv", "b.csv")
	data, err = os.ReadFile(a)
	require.NoError(t, err)
	require.Equal(t, "new a", string(data))
}

func TestCreateExclusiveOneWinner(t *testing.T) {
	t.Parallel()
	for name, create := range map[string]func(string, []byte) error{
		"link": CreateExclusive,
		"excl": func(p string, d []byte) error { return createExcl(p, d, 0o644) }, // the fallback without hard links
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "t.json")
			var (
				wg           sync.WaitGroup
				mu           sync.Mutex
				wins, exists int
				winner       string
			)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					data := fmt.Sprintf(`{"writer":%d}`, i)
					err := create(path, []byte(data))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						wins++
						winner = data
					case errors.Is(err, fs.ErrExist):
						exists++
						if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".tmp-") {
							t.Errorf("the error names %s, not a temporary name: %v", path, err)
						}
					default:
						t.Error(err)
					}
				}(i)
			}
			wg.Wait()
			require.Equal(t, 1, wins)
			require.Equal(t, 7, exists)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, winner, string(data))
			requireNames(t, dir, "t.json")
		})
	}
}

// requireNames checks dir holds exactly names (no temporary file left).
func requireNames(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	got := []string{}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if names == nil {
		names = []string{}
	}
	require.Equal(t, names, got)
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
	path := filepath.Join(dir, "out")
	err := Write(path, func(w io.Writer) error { panic("boom") })
	require.EqualError(t, err, "writing "+path+": boom")
	requireNames(t, dir)
}

// A file that holds a secret is created readable by its owner only.
func TestCreateExclusivePerm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o600, 0o644} {
		path := filepath.Join(dir, perm.String()+".json")
		require.NoError(t, CreateExclusivePerm(path, []byte("{}"), perm))
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, perm, st.Mode().Perm())
	}
}
