package fileio

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/batchmem"
)

// parquetWriter writes a stream as Parquet one record batch at a time:
// each batch is encoded into the open (buffered) row group, which is
// flushed when it holds RowGroupRows rows or rowGroupBufferBytes of encoded
// pages. Memory is one row group of encoded pages, not the data. The
// leaves of a batch are encoded in parallel (columnWriter); a schema with
// a type columnWriter does not handle goes through pqarrow's writer, one
// column after the other. See docs/frames.md#parquet.
type parquetWriter struct {
	w      io.Writer
	schema *arrow.Schema
	o      ParquetOptions
	enc    parquetEncoder // nil until the first batch
}

// parquetEncoder is what parquetWriter writes through: a columnWriter or
// pqarrow's own writer (pqarrowEncoder).
type parquetEncoder interface {
	write(arrow.Record) error
	close() error
}

// rowGroupBufferBytes bounds the encoded pages of the row group being
// written from a stream.
const rowGroupBufferBytes = 32 << 20

func newParquetWriter(o ParquetOptions) func(io.Writer, *arrow.Schema) (batchWriter, error) {
	return func(w io.Writer, schema *arrow.Schema) (batchWriter, error) {
		if err := o.validate(); err != nil {
			return nil, err
		}
		// Hide any Close method of w: the Parquet writer closes a sink that
		// has one, and callers (atomic file writes) still need to sync theirs.
		return &parquetWriter{w: struct{ io.Writer }{w}, schema: schema, o: o}, nil
	}
}

// open starts the file once the first batch is there: it is the sample that
// picks the columns written without dictionary encoding (see plainColumns).
func (pw *parquetWriter) open(first arrow.Record) error {
	var sample []arrow.Record
	if first != nil {
		sample = []arrow.Record{first}
	}
	props, arrProps, err := pw.o.writerProps(batchmem.Allocator(), pw.schema, sample)
	if err != nil {
		return err
	}
	if plans, ok := planLeaves(pw.schema); ok {
		pw.enc, err = newColumnWriter(pw.w, pw.schema, plans, props, arrProps, runtime.GOMAXPROCS(0))
	} else {
		pw.enc, err = newPqarrowEncoder(pw.w, pw.schema, props, arrProps)
	}
	if err != nil {
		pw.enc = nil // not a typed nil: a later close opens again and reports
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

func (pw *parquetWriter) write(rec arrow.Record) (err error) {
	defer recoverAs(&err, "parquet")
	if rec.NumRows() == 0 {
		return nil
	}
	if pw.enc == nil {
		if err := pw.open(rec); err != nil {
			return err
		}
	}
	if err := pw.enc.write(rec); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

func (pw *parquetWriter) close() (err error) {
	defer recoverAs(&err, "parquet")
	if pw.enc == nil {
		if err := pw.open(nil); err != nil {
			return err
		}
	}
	if err := pw.enc.close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// pqarrowEncoder is pqarrow's FileWriter in buffered row groups, closed
// at RowGroupRows rows or rowGroupBufferBytes of encoded pages.
type pqarrowEncoder struct {
	fw *pqarrow.FileWriter
}

func newPqarrowEncoder(w io.Writer, schema *arrow.Schema, props *parquet.WriterProperties, arrProps pqarrow.ArrowWriterProperties) (*pqarrowEncoder, error) {
	fw, err := pqarrow.NewFileWriter(schema, w, props, arrProps)
	if err != nil {
		return nil, err
	}
	return &pqarrowEncoder{fw: fw}, nil
}

func (e *pqarrowEncoder) write(rec arrow.Record) error {
	if err := e.fw.WriteBuffered(rec); err != nil {
		return err
	}
	// Wide rows fill memory before RowGroupRows rows: close the group at a
	// byte budget too.
	if e.fw.RowGroupTotalCompressedBytes()+e.fw.RowGroupTotalBytesWritten() >= rowGroupBufferBytes {
		e.fw.NewBufferedRowGroup()
	}
	return nil
}

func (e *pqarrowEncoder) close() error { return e.fw.Close() }

// OpenParquet streams a Parquet file one row group after the other (the
// next ones, one per CPU up to 4, are read in parallel while the current one
// is consumed), restoring the Arrow schema stored by WriteParquet when
// present. Memory is a few row groups. The caller releases the stream.
func OpenParquet(ctx context.Context, path string, mem memory.Allocator) (_ dataframe.Stream, err error) {
	return OpenParquetColumns(ctx, path, mem, nil)
}

// OpenParquetColumns is OpenParquet for the top-level columns named in cols
// only (all when cols is nil; see ReadParquetColumns): a query that needs
// two columns of five decodes two, one row group at a time.
func OpenParquetColumns(ctx context.Context, path string, mem memory.Allocator, cols []string) (_ dataframe.Stream, err error) {
	defer recoverAs(&err, "parquet")
	pq, empty, err := openPruned(path, mem, cols)
	if pq == nil {
		return empty, err
	}
	rdr, fr, schema, leaves, bounded := pq.rdr, pq.fr, pq.schema, pq.leaves, pq.mem
	return dataframe.NewStream(ctx, schema, 1, func(ctx context.Context, emit func(arrow.Record) bool) error {
		defer rdr.Close()
		return streamRowGroups(ctx, path, rdr, fr, bounded, leaves, func(r arrow.Record) bool {
			if !r.Schema().Equal(schema) {
				// pqarrow's record schema may carry other metadata.
				s := array.NewRecord(schema, r.Columns(), r.NumRows())
				r.Release()
				r = s
			}
			return emit(r)
		})
	}), nil
}

// ParquetSchema reads the Arrow schema of a Parquet file from its footer,
// narrowed to the columns named in cols as OpenParquetColumns narrows it,
// without reading any data.
func ParquetSchema(ctx context.Context, path string, cols []string) (_ *arrow.Schema, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer recoverAs(&err, "parquet")
	rdr, _, schema, err := openParquetFooter(path, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	defer rdr.Close()
	schema, _, _ = pruneParquet(rdr, schema, cols)
	return schema, nil
}

// prunedParquet is a Parquet file opened for a stream of some columns.
type prunedParquet struct {
	rdr    *file.Reader
	fr     *pqarrow.FileReader
	schema *arrow.Schema
	leaves []int
	mem    memory.Allocator
}

// openPruned opens path for the columns cols names (see pruneParquet). When
// there is nothing to read it returns a nil file and an empty stream.
func openPruned(path string, mem memory.Allocator, cols []string) (*prunedParquet, dataframe.Stream, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	bounded := boundedAllocator{mem, physicalMemory(), "parquet"}
	rdr, fr, schema, err := openParquetFooter(path, bounded)
	if err != nil {
		return nil, nil, err
	}
	schema, leaves, none := pruneParquet(rdr, schema, cols)
	if none {
		rdr.Close()
		return nil, dataframe.Empty(schema).Stream(), nil
	}
	return &prunedParquet{rdr, fr, schema, leaves, bounded}, nil, nil
}

// openParquetFooter opens path and reads its footer and Arrow schema; the
// caller closes rdr.
func openParquetFooter(path string, mem memory.Allocator) (*file.Reader, *pqarrow.FileReader, *arrow.Schema, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	rdr, err := file.NewParquetReader(fh, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		fh.Close()
		return nil, nil, nil, fmt.Errorf("reading %s: parquet: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 64 * 1024}, mem)
	if err == nil {
		var schema *arrow.Schema
		if schema, err = fr.Schema(); err == nil {
			return rdr, fr, microsSchema(schema), nil
		}
	}
	rdr.Close()
	return nil, nil, nil, fmt.Errorf("reading %s: parquet: %w", path, err)
}

// streamRowGroups emits the row groups of rdr in order (the leaf columns
// leaves, every column when nil), reading the next groups on other
// goroutines while group i is emitted.
func streamRowGroups(ctx context.Context, path string, rdr *file.Reader, fr *pqarrow.FileReader, mem memory.Allocator, leaves []int, emit func(arrow.Record) bool) error {
	type group struct {
		recs []arrow.Record
		err  error
	}
	read := func(i int) chan group {
		ch := make(chan group, 1)
		go func() {
			if err := verifyRowGroupStructLeaves(rdr, fr, i); err != nil {
				ch <- group{err: fmt.Errorf("reading %s: parquet: %w", path, err)}
				return
			}
			recs, err := readRowGroup(rdr, mem, i, leaves)
			if err != nil {
				err = fmt.Errorf("reading %s: parquet: %w", path, err)
			}
			ch <- group{recs, err}
		}()
		return ch
	}
	n := rdr.NumRowGroups()
	// Up to one row group per CPU is read ahead, in parallel: decoding is
	// most of a scan's work.
	ahead := max(1, min(runtime.GOMAXPROCS(0), 4))
	var pending []chan group
	started := 0
	fill := func() {
		for started < n && len(pending) < ahead && ctx.Err() == nil {
			pending = append(pending, read(started))
			started++
		}
	}
	drainPending := func() {
		for _, ch := range pending {
			releaseAll((<-ch).recs)
		}
		pending = nil
	}
	fill()
	for len(pending) > 0 {
		g := <-pending[0]
		pending = pending[1:]
		if g.err == nil {
			fill()
		}
		for j, r := range g.recs {
			if !emit(r) {
				releaseAll(g.recs[j+1:])
				g.err = ctx.Err()
				break
			}
		}
		if g.err != nil || ctx.Err() != nil {
			drainPending()
			if g.err != nil {
				return g.err
			}
			return ctx.Err()
		}
	}
	return nil
}

func releaseAll(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

// WriteParquetStream writes s to w as Parquet one batch at a time (memory
// is one row group of encoded pages, not the data) and returns the rows
// written. It stops at ctx's cancellation; the caller still releases s and
// makes the write atomic (see WriteStream for files).
func WriteParquetStream(ctx context.Context, w io.Writer, s dataframe.Stream, o ParquetOptions) (int64, error) {
	if err := o.validate(); err != nil {
		return 0, err
	}
	return writeBatches(ctx, w, s, newParquetWriter(o))
}

// OpenParquetRows streams the rows of path at the positions rows (0-based
// in file order, ascending), with the columns cols names as
// OpenParquetColumns: only the row groups holding them are read. A
// position past the end is an error.
func OpenParquetRows(ctx context.Context, path string, mem memory.Allocator, cols []string, rows []int64) (_ dataframe.Stream, err error) {
	defer recoverAs(&err, "parquet")
	pq, empty, err := openPruned(path, mem, cols)
	if pq == nil {
		return empty, err
	}
	rdr, fr, schema, leaves, bounded := pq.rdr, pq.fr, pq.schema, pq.leaves, pq.mem
	// The rows of each row group, as positions within it.
	type groupRows struct {
		group int
		idx   []int64
	}
	var groups []groupRows
	var start int64
	k := 0
	for g := 0; g < rdr.NumRowGroups() && k < len(rows); g++ {
		n := rdr.MetaData().RowGroup(g).NumRows()
		var idx []int64
		for k < len(rows) && rows[k] < start+n {
			if rows[k] < start {
				rdr.Close()
				return nil, fmt.Errorf("reading %s: row positions must ascend (%d after %d)", path, rows[k], rows[k-1])
			}
			idx = append(idx, rows[k]-start)
			k++
		}
		if len(idx) > 0 {
			groups = append(groups, groupRows{g, idx})
		}
		start += n
	}
	if k < len(rows) {
		rdr.Close()
		return nil, fmt.Errorf("reading %s: row %d is past its end (%d rows)", path, rows[k], start)
	}
	return dataframe.NewStream(ctx, schema, 1, func(ctx context.Context, emit func(arrow.Record) bool) error {
		defer rdr.Close()
		for _, g := range groups {
			if err := verifyRowGroupStructLeaves(rdr, fr, g.group); err != nil {
				return fmt.Errorf("reading %s: parquet: %w", path, err)
			}
			recs, err := readRowGroup(rdr, bounded, g.group, leaves)
			if err != nil {
				return fmt.Errorf("reading %s: parquet: %w", path, err)
			}
			parts, err := takeRows(bounded, recs, g.idx, schema)
			releaseAll(recs)
			if err != nil {
				return fmt.Errorf("reading %s: %w", path, err)
			}
			for i, p := range parts {
				if !emit(p) {
					releaseAll(parts[i+1:])
					return ctx.Err()
				}
			}
		}
		return nil
	}), nil
}

// takeRows takes the rows idx (ascending positions over the batches recs)
// as records of schema, one per batch that has some.
func takeRows(mem memory.Allocator, recs []arrow.Record, idx []int64, schema *arrow.Schema) ([]arrow.Record, error) {
	var parts []arrow.Record
	var off int64
	k := 0
	for _, r := range recs {
		n := r.NumRows()
		var take []int64
		for k < len(idx) && idx[k] < off+n {
			take = append(take, idx[k]-off)
			k++
		}
		off += n
		if len(take) == 0 {
			continue
		}
		in := array.NewRecord(schema, r.Columns(), n)
		t, err := dataframe.TakeRecord(mem, in, take)
		in.Release()
		if err != nil {
			releaseAll(parts)
			return nil, err
		}
		parts = append(parts, t)
	}
	return parts, nil
}
