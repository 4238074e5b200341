package fileio

import (
	"context"
	"fmt"
	"github.com/sluicedata/sluice/dataframe"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// WriteArrowIPC writes f to w in the Arrow IPC file format (the file starts
// and ends with "ARROW1"), one IPC record batch per frame batch.
func WriteArrowIPC(w io.Writer, f *dataframe.Frame) error {
	return writeFrame(w, f, newIPCWriter)
}

// ipcWriter writes the Arrow IPC file format one record batch at a time.
type ipcWriter struct{ fw *ipc.FileWriter }

func newIPCWriter(w io.Writer, schema *arrow.Schema) (_ batchWriter, err error) {
	defer recoverAs(&err, "arrow ipc")
	fw, err := ipc.NewFileWriter(&tellWriter{w: w}, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("arrow ipc: %w", err)
	}
	return &ipcWriter{fw: fw}, nil
}

func (iw *ipcWriter) write(rec arrow.Record) (err error) {
	defer recoverAs(&err, "arrow ipc")
	if err := iw.fw.Write(rec); err != nil {
		return fmt.Errorf("arrow ipc: %w", err)
	}
	return nil
}

func (iw *ipcWriter) close() (err error) {
	defer recoverAs(&err, "arrow ipc")
	if err := iw.fw.Close(); err != nil {
		return fmt.Errorf("arrow ipc: %w", err)
	}
	return nil
}

// ReadArrowIPC reads an Arrow IPC file (the format WriteArrowIPC writes) into
// a frame. Cancelling ctx stops the read. The caller releases the frame.
func ReadArrowIPC(ctx context.Context, path string, mem memory.Allocator) (*dataframe.Frame, error) {
	return collect(OpenArrowIPC(ctx, path, mem))(mem)
}

// OpenArrowIPC streams an Arrow IPC file one record batch at a time. The
// footer is checked now; a corrupt batch is an error of the stream. The
// caller releases the stream.
func OpenArrowIPC(ctx context.Context, path string, mem memory.Allocator) (_ dataframe.Stream, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrow ipc: %v (recovered panic)", r)
		}
		if err != nil {
			fh.Close()
			err = fmt.Errorf("reading %s: %w", path, err)
		}
	}()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if err := verifyIPCFooter(fh, st.Size()); err != nil {
		return nil, fmt.Errorf("arrow ipc: %w", err)
	}
	// An uncompressed buffer is never larger than the file; leave room for
	// (rare) body-compressed files, but never past the machine's memory.
	limit := min(max(int(st.Size())*256, 64<<20), physicalMemory())
	rdr, err := ipc.NewFileReader(fh, ipc.WithAllocator(boundedAllocator{mem, limit, "arrow ipc"}), ipc.WithEnsureNativeEndian(true))
	if err != nil {
		return nil, fmt.Errorf("arrow ipc: %w", err)
	}
	return dataframe.NewStream(ctx, rdr.Schema(), 1, func(ctx context.Context, emit func(arrow.Record) bool) (err error) {
		defer fh.Close()
		defer rdr.Close()
		for i := 0; i < rdr.NumRecords(); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, err := ipcRecordAt(rdr, i)
			if err != nil {
				return fmt.Errorf("reading %s: arrow ipc: record batch %d: %w", path, i, err)
			}
			if !emit(rec) {
				return ctx.Err()
			}
		}
		return nil
	}), nil
}

func ipcRecordAt(rdr *ipc.FileReader, i int) (rec arrow.Record, err error) {
	defer recoverAs(&err, "arrow ipc")
	return rdr.RecordAt(i)
}

// tellWriter lets the IPC file writer, which only ever asks for its current
// position, write to any io.Writer (a pipe, an HTTP response).
type tellWriter struct {
	w   io.Writer
	pos int64
}

func (t *tellWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.pos += int64(n)
	return n, err
}

func (t *tellWriter) Seek(offset int64, whence int) (int64, error) {
	if offset == 0 && whence == io.SeekCurrent {
		return t.pos, nil
	}
	return t.pos, fmt.Errorf("arrow ipc: seeking is not supported on this writer")
}
