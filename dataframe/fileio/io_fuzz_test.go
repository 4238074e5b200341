package fileio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
)

// FuzzReadParquetAndIPC: any bytes read as a .parquet or .arrow file give
// a frame or an error — never a panic or a fatal out-of-memory.
func FuzzReadParquetAndIPC(f *testing.F) {
	fr := fixtures.NestedFrame(f, memory.DefaultAllocator, 0)
	defer fr.Release()
	var pq, ipcBuf bytes.Buffer
	if err := WriteParquet(&pq, fr, ParquetOptions{}); err != nil {
		f.Fatal(err)
	}
	if err := WriteArrowIPC(&ipcBuf, fr); err != nil {
		f.Fatal(err)
	}
	f.Add(pq.Bytes(), true)
	f.Add(ipcBuf.Bytes(), false)
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"), true)
	f.Add([]byte("ARROW1\x00\x00"+strings.Repeat("\xff", 16)+"ARROW1"), false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, parquet bool) {
		name := "x.arrow"
		if parquet {
			name = "x.parquet"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(t.Context(), path, FileOptions{})
		if err == nil {
			got.Release()
		}
	})
}
