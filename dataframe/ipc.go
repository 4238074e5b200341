package dataframe

import (
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// WriteArrowIPC writes f to w in the Arrow IPC file format (the file starts
// and ends with "ARROW1"), one IPC record batch per frame batch.
func WriteArrowIPC(w io.Writer, f *Frame) (err error) {
	defer recoverAs(&err, "arrow ipc")
	fw, err := ipc.NewFileWriter(&tellWriter{w: w}, ipc.WithSchema(f.Schema()), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("arrow ipc: %w", err)
	}
	for _, rec := range f.Records() {
		if err := fw.Write(rec); err != nil {
			fw.Close()
			return fmt.Errorf("arrow ipc: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("arrow ipc: %w", err)
	}
	return nil
}

// ReadArrowIPC reads an Arrow IPC file (the format WriteArrowIPC writes) into
// a frame. The caller releases the frame.
func ReadArrowIPC(path string, mem memory.Allocator) (f *Frame, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var recs []arrow.Record
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrow ipc: %v (recovered panic)", r)
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
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
	defer rdr.Close()
	for i := 0; i < rdr.NumRecords(); i++ {
		rec, err := rdr.RecordAt(i)
		if err != nil {
			return nil, fmt.Errorf("arrow ipc: record batch %d: %w", i, err)
		}
		recs = append(recs, rec)
	}
	f, err = New(rdr.Schema(), recs...)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(mem)
	return f, nil
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
