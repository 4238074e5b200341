package restapi

import (
	"bufio"
	"bytes"
	"context"
	"testing"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// FuzzSpoolLines: a document written to the spool as JSON lines reads back
// as the document itself reads (same schema and rows), or both fail.
func FuzzSpoolLines(f *testing.F) {
	for _, seed := range []string{
		`[{"a":1},{"b":"x"}]`, `[1,2]`, `[{"a":1},2,"s",null]`, `[[1,2],[3]]`, `[]`, `{"a":[1]}`, `5`,
		`[{"s":"a,b]}{\"c"},{"s":"\u00e9\u2028"}]`, "[ {\"a\" : \"x y\"} ,\n {\"a\":\"\\n\"} ]",
		`[{"a":""},{"a":5}]`, `[{"n":123456789012345678901234567890}]`, `[{"a":{"b":[{"c":null}]}}]`,
		`[{"a":1}`, `[{"a":1},]`, `[{}]`, `[{},{}]`, `"s"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var buf bytes.Buffer
		sp := &spool{w: bufio.NewWriter(&buf)}
		werr := sp.writeLines(doc)
		if err := sp.w.Flush(); err != nil {
			t.Fatal(err)
		}
		want, err := jsonframe.ReadDocuments([][]byte{doc}, jsonframe.Options{})
		if werr != nil {
			if err == nil {
				want.Release()
				t.Fatalf("%q: the reader takes what the spool refused: %v", doc, werr)
			}
			return
		}
		got, gerr := jsonframe.ReadNDJSON(buf.Bytes(), jsonframe.Options{})
		if (err == nil) != (gerr == nil) {
			t.Fatalf("%q: document error %v, lines error %v (lines %q)", doc, err, gerr, buf.String())
		}
		if err != nil {
			return
		}
		defer want.Release()
		defer got.Release()
		if w, g := frameText(t, want), frameText(t, got); w != g {
			t.Fatalf("%q: lines %q\nread as %s\nthe document as %s", doc, buf.String(), g, w)
		}
	})
}

func frameText(t *testing.T, f *dataframe.Frame) string {
	var b bytes.Buffer
	b.WriteString(dataframe.SchemaString(f.Schema()))
	s := f.Stream()
	defer s.Release()
	if _, err := fileio.WriteStreamTo(context.Background(), &b, s, "ndjson", fileio.FileOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
