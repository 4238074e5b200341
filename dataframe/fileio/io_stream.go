package fileio

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// batchWriter writes one file format a record batch at a time.
type batchWriter interface {
	write(rec arrow.Record) error
	// close finishes the output (footer, flush); it is called once, after
	// the last write, and only when every write succeeded.
	close() error
}

type newBatchWriter func(w io.Writer, schema *arrow.Schema) (batchWriter, error)

// writeFrame writes a materialised frame with a batch writer.
func writeFrame(w io.Writer, f *dataframe.Frame, open newBatchWriter) error {
	s := f.Stream()
	defer s.Release()
	_, err := writeBatches(context.Background(), w, s, open)
	return err
}

// writeBatches writes s to w until its end, stopping at ctx's cancellation,
// and returns the rows written.
func writeBatches(ctx context.Context, w io.Writer, s dataframe.Stream, open newBatchWriter) (int64, error) {
	bw, err := open(w, s.Schema())
	if err != nil {
		return 0, err
	}
	var rows int64
	for s.Next() {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		rec := s.Record()
		if err := bw.write(rec); err != nil {
			return rows, err
		}
		rows += rec.NumRows()
	}
	if err := s.Err(); err != nil {
		return rows, err
	}
	if err := ctx.Err(); err != nil {
		return rows, err
	}
	return rows, bw.close()
}

// writerFor is the batch writer of path's format.
func writerFor(path string, o FileOptions) (newBatchWriter, error) {
	format, ext := formatOf(path)
	switch format {
	case formatParquet:
		if err := o.Parquet.validate(); err != nil {
			return nil, err
		}
		return newParquetWriter(o.Parquet), nil
	case formatArrow:
		return newIPCWriter, nil
	case formatCSV:
		return inZone(newCSVWriter, o.TimeZone), nil
	case formatNDJSON:
		return inZone(newNDJSONWriter, o.TimeZone), nil
	case formatJSON:
		return inZone(newJSONArrayWriter, o.TimeZone), nil
	}
	return nil, unknownFormat(path, ext, ".parquet, .arrow, .csv, .ndjson, .jsonl or .json")
}

// WriteStream writes s to path in the format its extension names, as
// WriteFile does, one batch at a time: memory does not grow with the
// stream. The write is atomic: a failure, a stream error or ctx's
// cancellation (Ctrl-C) leaves neither path nor a temporary file behind.
// It returns the rows written; the caller still releases s.
func WriteStream(ctx context.Context, path string, s dataframe.Stream, o FileOptions) (int64, error) {
	open, err := writerFor(path, o)
	if err != nil {
		return 0, err
	}
	var rows int64
	err = atomicfile.Write(path, func(w io.Writer) error {
		rows, err = writeBatches(ctx, w, s, open)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return rows, nil
}

// OpenFile streams a file, choosing the format by extension as ReadFile
// does: .ndjson/.jsonl and .csv in two passes (schema now, batches as they
// are read; JSON lines also with SampleRows, Strict and the malformed-record
// modes, whose Stats are complete once the stream has ended), .parquet by
// row group, .arrow by record batch. A .json file is one document and is
// read whole (see docs/frames.md#memory). The caller releases the stream;
// cancelling ctx stops it.
func OpenFile(ctx context.Context, path string, o FileOptions) (dataframe.Stream, error) {
	format, ext := formatOf(path)
	mem := o.allocator()
	switch format {
	case formatNDJSON:
		return jsonframe.OpenNDJSON(ctx, path, jsonframe.Options{Allocator: o.Allocator, SampleRows: o.SampleRows, Strict: o.Strict, Mode: o.Mode, Stats: o.Stats})
	case formatCSV:
		return csvframe.Open(ctx, path, csvframe.Options{Allocator: mem})
	case formatParquet:
		return OpenParquet(ctx, path, mem)
	case formatArrow:
		return OpenArrowIPC(ctx, path, mem)
	case formatJSON:
		f, err := ReadFile(ctx, path, o)
		if err != nil {
			return nil, err
		}
		defer f.Release()
		return f.Stream(), nil
	}
	return nil, unknownFormat(path, ext, ".json, .ndjson, .jsonl, .csv, .parquet or .arrow")
}

// WriteStreamTo writes s to w in format ("parquet", "arrow", "csv",
// "ndjson" or "json", the names FileFormat gives), one batch at a time,
// and returns the rows written. The caller still releases s.
func WriteStreamTo(ctx context.Context, w io.Writer, s dataframe.Stream, format string, o FileOptions) (int64, error) {
	open, err := writerFor("out."+format, o)
	if err != nil {
		return 0, err
	}
	return writeBatches(ctx, w, s, open)
}
