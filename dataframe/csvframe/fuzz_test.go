package csvframe

import (
	"bytes"
	"testing"
)

// FuzzRead: any input either fails with an error or gives a frame that
// writes as CSV and reads back to the same rows.
func FuzzRead(f *testing.F) {
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
		fr, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			return
		}
		defer fr.Release()
		var buf bytes.Buffer
		if err := Write(&buf, fr); err != nil {
			t.Fatalf("Write: %v", err)
		}
		back, err := Read(bytes.NewReader(buf.Bytes()), Options{})
		if err != nil {
			t.Fatalf("reading our own CSV: %v\n%s", err, buf.Bytes())
		}
		defer back.Release()
		if back.NumRows() != fr.NumRows() || back.NumCols() != fr.NumCols() {
			t.Fatalf("shape changed: %dx%d → %dx%d", fr.NumRows(), fr.NumCols(), back.NumRows(), back.NumCols())
		}
	})
}
