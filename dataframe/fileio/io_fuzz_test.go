package fileio

import (
	"bytes"
	"github.com/sluicedata/sluice/dataframe/internal/fixtures"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
)

// FuzzReadCSV: any input either fails with an error or gives a frame that
// writes as CSV and reads back to the same rows.
func FuzzReadCSV(f *testing.F) {
	for _, seed := range []string{
		"a,b\n1,x\n2,y\n",
		"id,name,score,ok\n1,\"a, \"\"b\"\"\",1.5,true\n,,,\n",
		"\ufeffx;y\n",
		"a\n\"unterminated\n",
		"a,a,\n1e400,NaN,\n-0,Infinity,z\n",
		"0\n\"\"\n", // one column, one null row: must not become a blank line
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := ReadCSV(bytes.NewReader(data), CSVOptions{})
		if err != nil {
			return
		}
		defer fr.Release()
		var buf bytes.Buffer
		if err := WriteCSV(&buf, fr); err != nil {
			t.Fatalf("WriteCSV: %v", err)
		}
		back, err := ReadCSV(bytes.NewReader(buf.Bytes()), CSVOptions{})
		if err != nil {
			t.Fatalf("reading our own CSV: %v\n%s", err, buf.Bytes())
		}
		defer back.Release()
		if back.NumRows() != fr.NumRows() || back.NumCols() != fr.NumCols() {
			t.Fatalf("shape changed: %dx%d → %dx%d", fr.NumRows(), fr.NumCols(), back.NumRows(), back.NumCols())
		}
	})
}

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
		got, err := ReadFile(path, FileOptions{})
		if err == nil {
			got.Release()
		}
	})
}
