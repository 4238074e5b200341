// Package frametest holds the test helpers the frame packages
// (dataframe and its subpackages) share: checked allocators and frame
// comparisons by row JSON. It is imported by tests only.
package frametest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

// CheckedAlloc is an allocator that fails t at cleanup unless every buffer
// taken from it was released (memory.CheckedAllocator, AssertSize 0).
func CheckedAlloc(t *testing.T) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// Rows is what a frame offers for comparison: *dataframe.Frame.
type Rows interface {
	Schema() *arrow.Schema
	EachRowJSON(fn func(row int64, obj []byte) error) error
}

// RowsJSON is every row of f as its JSON text.
func RowsJSON(t testing.TB, f Rows) []string {
	t.Helper()
	rows := []string{}
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	return rows
}

// RequireFramesEqual compares schemas (ignoring metadata) and every row's
// JSON text.
func RequireFramesEqual(t testing.TB, want, got Rows) {
	t.Helper()
	require.True(t, arrow.TypeEqual(arrow.StructOf(want.Schema().Fields()...), arrow.StructOf(got.Schema().Fields()...)),
		"schema:\nwant %s\ngot  %s", want.Schema(), got.Schema())
	require.Equal(t, RowsJSON(t, want), RowsJSON(t, got))
}

// WriteTemp writes data to a file named name in a fresh temporary
// directory and returns its path.
func WriteTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}
