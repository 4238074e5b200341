package fileio

import (
	"bufio"
	"io"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
)

// csvWriter adapts csvframe's writer to the batch writers of WriteStream.
type csvWriter struct{ w *csvframe.Writer }

// zoned is a text batch writer whose timestamps can be written in a zone.
type zoned interface{ inZone(loc *time.Location) }

// inZone makes open's writers write timestamps in loc (nil: UTC).
func inZone(open newBatchWriter, loc *time.Location) newBatchWriter {
	if loc == nil {
		return open
	}
	return func(w io.Writer, schema *arrow.Schema) (batchWriter, error) {
		bw, err := open(w, schema)
		if z, ok := bw.(zoned); ok && err == nil {
			z.inZone(loc)
		}
		return bw, err
	}
}

func newCSVWriter(w io.Writer, schema *arrow.Schema) (batchWriter, error) {
	cw, err := csvframe.NewWriter(w, schema)
	return csvWriter{cw}, err
}

func (c csvWriter) inZone(loc *time.Location)        { c.w.InZone(loc) }
func (jw *jsonRowsWriter) inZone(loc *time.Location) { jw.rows.InZone(loc) }

func (c csvWriter) write(rec arrow.Record) error { return c.w.Write(rec) }
func (c csvWriter) close() error                 { return c.w.Flush() }

// WriteNDJSON writes f as JSON lines: one object per row, keys in column
// order, nested values as JSON objects and arrays, nulls as null.
func WriteNDJSON(w io.Writer, f *dataframe.Frame) error {
	return writeFrame(w, f, newNDJSONWriter)
}

// WriteJSONArray writes f as one JSON array of row objects (the .json output
// format), one row per line.
func WriteJSONArray(w io.Writer, f *dataframe.Frame) error {
	return writeFrame(w, f, newJSONArrayWriter)
}

// jsonRowsWriter writes rows as JSON objects one record batch at a time:
// as lines, or as the elements of one array.
type jsonRowsWriter struct {
	bw    *bufio.Writer
	rows  *dataframe.RowJSON
	array bool
	n     int64
}

func newNDJSONWriter(w io.Writer, schema *arrow.Schema) (batchWriter, error) {
	return &jsonRowsWriter{bw: bufio.NewWriterSize(w, 256<<10), rows: dataframe.NewRowJSON(schema)}, nil
}

func newJSONArrayWriter(w io.Writer, schema *arrow.Schema) (batchWriter, error) {
	jw := &jsonRowsWriter{bw: bufio.NewWriterSize(w, 256<<10), rows: dataframe.NewRowJSON(schema), array: true}
	return jw, jw.bw.WriteByte('[')
}

func (jw *jsonRowsWriter) write(rec arrow.Record) error {
	return jw.rows.Each(rec, func(obj []byte) error {
		if jw.array {
			if jw.n > 0 {
				jw.bw.WriteByte(',')
			}
			jw.bw.WriteByte('\n')
		}
		jw.n++
		jw.bw.Write(obj)
		if !jw.array {
			return jw.bw.WriteByte('\n')
		}
		return nil
	})
}

func (jw *jsonRowsWriter) close() error {
	if jw.array {
		if jw.n > 0 {
			jw.bw.WriteByte('\n')
		}
		jw.bw.WriteString("]\n")
	}
	return jw.bw.Flush()
}
