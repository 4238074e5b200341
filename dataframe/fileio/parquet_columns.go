package fileio

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/metadata"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// columnWriter writes a stream of record batches as Parquet with the leaf
// columns of each batch encoded in parallel (docs/frames.md#parquet).
//
// pqarrow's FileWriter encodes a batch's columns one after the other on
// the caller's goroutine, and for a stream that goroutine is the critical
// path: encoding, statistics and compression are most of a conversion's
// time, while the batch builders wait for it. A buffered row group holds
// one independent column chunk writer per leaf (its own pages, statistics
// and compressor), so columnWriter hands the leaves of a batch to
// `workers` goroutines, largest first, each with its own level builder
// and pqarrow write context, and waits for all of them before the next
// batch (a chunk receives its batches in order). Memory is what it was
// with pqarrow's writer: one batch and the row group's encoded pages.
type columnWriter struct {
	fw      *file.Writer
	rgw     file.BufferedRowGroupWriter
	plans   []leafPlan
	rows    int64 // rows in the open row group
	maxRows int64
	workers []*columnWorker
	tasks   []columnTask
}

// columnWorker is one encoding goroutine's scratch state.
type columnWorker struct {
	ctx context.Context // pqarrow's write context: its buffers are per goroutine
	lb  levelBuilder
}

// columnTask is one leaf of the batch being written.
type columnTask struct {
	leaf int
	cost int64
}

// newColumnWriter starts a Parquet file on w for schema, whose leaves are
// plans (planLeaves). props and arrProps are writerProps' (the Arrow
// schema is stored in the file, as pqarrow's writer does with them).
func newColumnWriter(w io.Writer, schema *arrow.Schema, plans []leafPlan, props *parquet.WriterProperties, arrProps pqarrow.ArrowWriterProperties, workers int) (*columnWriter, error) {
	pqSchema, err := pqarrow.ToParquet(schema, props, arrProps)
	if err != nil {
		return nil, err
	}
	if pqSchema.NumColumns() != len(plans) {
		return nil, fmt.Errorf("%d leaf columns planned, the Parquet schema has %d", len(plans), pqSchema.NumColumns())
	}
	meta := make(metadata.KeyValueMetadata, 0)
	for i, k := range schema.Metadata().Keys() {
		meta.Append(k, schema.Metadata().Values()[i])
	}
	arrowSchema, err := serializeSchema(schema, props.Allocator())
	if err != nil {
		return nil, err
	}
	meta.Append("ARROW:schema", base64.StdEncoding.EncodeToString(arrowSchema))
	cw := &columnWriter{
		fw:      file.NewParquetWriter(w, pqSchema.Root(), file.WithWriterProps(props), file.WithWriteMetadata(meta)),
		plans:   plans,
		maxRows: props.MaxRowGroupLength(),
	}
	for range max(1, min(workers, len(plans))) {
		cw.workers = append(cw.workers, &columnWorker{ctx: pqarrow.NewArrowWriteContext(context.Background(), &arrProps)})
	}
	return cw, nil
}

// serializeSchema is the Arrow schema as pqarrow stores it under
// "ARROW:schema" and reads it back: an IPC stream of the schema message and
// no batches, as arrow/flight's SerializeSchema makes it (not imported:
// arrow/flight links gRPC, see docs/go-api.md#dependencies).
func serializeSchema(schema *arrow.Schema, mem memory.Allocator) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("serializing the Arrow schema: %w", err)
	}
	return buf.Bytes(), nil
}

// write adds rec to the open row group, closing the group when it reaches
// the row limit or rowGroupBufferBytes of encoded pages.
func (cw *columnWriter) write(rec arrow.Record) error {
	for off := int64(0); off < rec.NumRows(); {
		if cw.rgw == nil {
			cw.rgw = cw.fw.AppendBufferedRowGroup()
			cw.rows = 0
		}
		n := min(rec.NumRows()-off, cw.maxRows-cw.rows)
		part := rec
		if n < rec.NumRows() {
			part = rec.NewSlice(off, off+n)
		}
		err := cw.writeColumns(part)
		if part != rec {
			part.Release()
		}
		if err != nil {
			return err
		}
		cw.rows += n
		off += n
		if cw.rows >= cw.maxRows || cw.rgw.TotalCompressedBytes()+cw.rgw.TotalBytesWritten() >= rowGroupBufferBytes {
			if err := cw.rgw.Close(); err != nil {
				return err
			}
			cw.rgw = nil
		}
	}
	return nil
}

// writeColumns encodes every leaf of rec into the open row group.
func (cw *columnWriter) writeColumns(rec arrow.Record) error {
	cw.tasks = cw.tasks[:0]
	for i := range cw.plans {
		cw.tasks = append(cw.tasks, columnTask{leaf: i, cost: leafCost(&cw.plans[i], rec.Column(cw.plans[i].column))})
	}
	// Largest first: the last leaves to start are the short ones, so the
	// goroutines finish together.
	slices.SortStableFunc(cw.tasks, func(a, b columnTask) int { return cmp.Compare(b.cost, a.cost) })
	if len(cw.workers) == 1 {
		for _, t := range cw.tasks {
			if err := cw.workers[0].encode(cw, rec, t.leaf); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next int64 = -1
		wg   sync.WaitGroup
		errs = make([]error, len(cw.workers))
	)
	run := func(w int) {
		defer recoverAs(&errs[w], "parquet")
		for {
			i := atomic.AddInt64(&next, 1)
			if i >= int64(len(cw.tasks)) {
				return
			}
			if err := cw.workers[w].encode(cw, rec, cw.tasks[i].leaf); err != nil {
				errs[w] = err
				atomic.StoreInt64(&next, int64(len(cw.tasks))) // the others stop too
				return
			}
		}
	}
	for w := 1; w < len(cw.workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// encode writes leaf `leaf` of rec into its column chunk.
func (wk *columnWorker) encode(cw *columnWriter, rec arrow.Record, leaf int) error {
	p := &cw.plans[leaf]
	lv, err := wk.lb.levels(p, rec.Column(p.column))
	if err != nil {
		return err
	}
	defer lv.values.Release()
	chunk, err := cw.rgw.Column(leaf)
	if err != nil {
		return err
	}
	return pqarrow.WriteArrowToColumn(wk.ctx, chunk, lv.values, lv.def, lv.rep, lv.nullable)
}

// close finishes the row group and writes the footer.
func (cw *columnWriter) close() error {
	if cw.rgw != nil {
		if err := cw.rgw.Close(); err != nil {
			return err
		}
		cw.rgw = nil
	}
	return cw.fw.Close()
}

// leafCost estimates the work of encoding p's leaf of col: the bytes of
// the leaf array's buffers.
func leafCost(p *leafPlan, col arrow.Array) int64 {
	a := col
	for _, st := range p.steps[:len(p.steps)-1] {
		a = stepInto(a, st)
	}
	return arrowDataSize(a.Data())
}
