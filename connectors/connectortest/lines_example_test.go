package connectortest_test

// LINES, a small but complete connector — a text file as a dataset, one
// row per line — written as docs/writing-a-connector.md explains and run
// through the conformance suite. The ```go blocks of that page are copied
// from this file, and TestWritingAConnectorDoc keeps them so.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/connectortest"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// linesProps declares every property of LINES once: validation, secret
// redaction, DESCRIBE and docs/properties.md all read it.
var linesProps = &connectors.PropertySet{
	Connector: "LINES",
	Prefix:    "svc.lines.",
	Specs: []connectors.PropertySpec{
		{Name: "svc.lines.path", Doc: "The text file, one row per line."},
		{Name: "svc.lines.skip.blank", Kind: connectors.KindBool, Default: "false", Doc: "Leave blank lines out."},
		{Name: "svc.lines.token", Secret: true, Doc: "A credential, to show that secrets never print."},
	},
}

// linesConnector is stateless: everything a read needs is in its Dataset.
type linesConnector struct{}

func init() { connectors.Register("LINES", linesConnector{}) }

// Properties makes LINES a connectors.Describer.
func (linesConnector) Properties() *connectors.PropertySet { return linesProps }

// Validate checks a table definition at CREATE TABLE and every read: a
// misspelt or badly typed property is an error naming it.
func (linesConnector) Validate(fields []connectors.Field, props connectors.Props) error {
	if err := linesProps.Validate(props); err != nil {
		return err
	}
	if strings.TrimSpace(props.String("svc.lines.path", "")) == "" {
		return errors.New("property svc.lines.path is required")
	}
	return nil
}

// linesColumns are the columns of every LINES dataset.
var linesColumns = []dataframe.TypedColumn{
	{Name: "n", Kind: dataframe.KindLong, Nullable: true},
	{Name: "line", Kind: dataframe.KindString, Nullable: true},
}

// Read reads the whole file into a frame of ds.Allocator's memory.
func (c linesConnector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.Validate(ds.Fields, ds.Props); err != nil {
		return nil, fmt.Errorf("LINES %s: %w", ds.Name, err)
	}
	skip, err := linesProps.Bool(ds.Props, "svc.lines.skip.blank")
	if err != nil {
		return nil, fmt.Errorf("LINES %s: %w", ds.Name, err)
	}
	path := ds.Props.String("svc.lines.path", "")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("LINES %s: %w", ds.Name, err) // wraps fs.ErrNotExist
	}
	defer f.Close()
	b := dataframe.NewTypedBuilder(ds.Allocator, linesColumns, 0)
	defer b.Release()
	sc := bufio.NewScanner(f)
	for n := int64(1); sc.Scan(); n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if skip && strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		b.AppendLong(0, n)
		b.AppendString(1, sc.Text())
		if err := b.EndRow(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("LINES %s: reading %s: %w", ds.Name, path, err)
	}
	ds.Logf("lines: read %s: %d rows", path, b.Rows())
	return b.Frame()
}

// Write replaces the file with the frame's line column, atomically: a
// reader sees the old file or the new one, never a part.
func (c linesConnector) Write(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	res := connectors.WriteResult{Rows: f.NumRows()}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := c.Validate(ds.Fields, ds.Props); err != nil {
		return res, fmt.Errorf("LINES %s: %w", ds.Name, err)
	}
	lines, valid, err := f.StringValues("line")
	if err != nil {
		return res, fmt.Errorf("LINES %s: %w", ds.Name, err)
	}
	path := ds.Props.String("svc.lines.path", "")
	err = atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for i, l := range lines {
			if !valid[i] || strings.ContainsAny(l, "\r\n") {
				return fmt.Errorf("row %d: a line must be a string without line breaks", i+1)
			}
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	})
	if err != nil {
		return res, fmt.Errorf("LINES %s: writing %s: %w", ds.Name, path, err)
	}
	res.Written = res.Rows
	return res, nil
}

// The conformance suite, with a harness that makes LINES datasets.
func TestLinesConformance(t *testing.T) {
	connectortest.Run(t, "LINES", connectortest.Harness{
		NewDataset: func(t *testing.T) connectortest.Case {
			path := filepath.Join(t.TempDir(), "notes.txt")
			want := linesFrame(t, "buy milk", "", "call Ada")
			return connectortest.Case{
				Dataset:   &connectors.Dataset{Name: "notes.todo", Props: connectors.Props{"svc.lines.path": path}},
				Want:      want,
				RoundTrip: true,
			}
		},
		Failing: func(t *testing.T) (*connectors.Dataset, error) {
			return &connectors.Dataset{Name: "notes.gone", Props: connectors.Props{
				"svc.lines.path":  filepath.Join(t.TempDir(), "missing.txt"),
				"svc.lines.token": "tok-never-printed",
			}}, fs.ErrNotExist
		},
		BadProps: []connectortest.BadProps{
			{Props: connectors.Props{"svc.lines.path": ""}, Property: "svc.lines.path"},
			{Props: connectors.Props{"svc.lines.skip.blank": "maybe"}, Property: "svc.lines.skip.blank"},
		},
	})
}

// linesFrame is the frame a read of these lines gives.
func linesFrame(t *testing.T, lines ...string) *dataframe.Frame {
	t.Helper()
	b := dataframe.NewTypedBuilder(nil, linesColumns, 0)
	defer b.Release()
	for i, l := range lines {
		b.AppendLong(0, int64(i+1))
		b.AppendString(1, l)
		require.NoError(t, b.EndRow())
	}
	f, err := b.Frame()
	require.NoError(t, err)
	t.Cleanup(f.Release)
	return f
}

// Once registered, LINES is a dataset type like any other: described in
// Go, in the catalog, or in a pipeline.
func Example_linesConnector() {
	dir, _ := os.MkdirTemp("", "lines")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "todo.txt")
	_ = os.WriteFile(path, []byte("buy milk\n\ncall Ada\n"), 0o644)

	s := catalog.NewSession(nil)
	f, err := s.ReadDataset(context.Background(), "notes.todo", connectors.DataSetProperties{
		Type:  "LINES",
		Props: map[string]string{"svc.lines.path": path, "svc.lines.skip.blank": "true"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Release()
	_ = dataframe.WriteTable(os.Stdout, f, dataframe.TableOptions{})

	_, err = s.ReadDataset(context.Background(), "notes.todo", connectors.DataSetProperties{
		Type:  "LINES",
		Props: map[string]string{"svc.lines.path": path, "svc.lines.skip.blnak": "true"},
	})
	fmt.Println(err)
	// Output:
	// +---+--------+
	// |n  |line    |
	// +---+--------+
	// |1  |buy milk|
	// |3  |call Ada|
	// +---+--------+
	// reading notes.todo: LINES notes.todo: unknown property svc.lines.skip.blnak (did you mean svc.lines.skip.blank?)
}

// TestWritingAConnectorDoc: every ```go block of docs/writing-a-connector.md
// is a verbatim part of this file, so the guide shows code that compiles
// and passes the suite.
func TestWritingAConnectorDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/writing-a-connector.md")
	require.NoError(t, err)
	src, err := os.ReadFile("lines_example_test.go")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.NotEmpty(t, blocks)
	for _, b := range blocks {
		require.Contains(t, string(src), b[1], "a go block of docs/writing-a-connector.md is not in connectors/connectortest/lines_example_test.go")
	}
}
