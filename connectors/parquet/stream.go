package parquet

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
	"github.com/sluicedata/sluice/dataframe/scan"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// streamAllocator allocates the batches of ReadStream; nil is Arrow's
// default. Tests set it to a checked allocator.
var streamAllocator dataframe.Allocator

var (
	_ connectors.StreamReader = Connector{}
	_ connectors.StreamWriter = Connector{}
	_ connectors.ScanReader   = Connector{}
)

// ReadStream streams the file, or the part files of the directory one after
// the other, one row group at a time (see docs/frames.md#streams): memory is
// a few row groups (see fileio.OpenParquet), not the data. The schema comes
// from the footer(s) at once; no data is read before the first Next, and
// none at all if the stream is released first.
func (c Connector) ReadStream(ctx context.Context, ds *connectors.Dataset) (dataframe.Stream, error) {
	s, _, err := c.ReadScan(ctx, ds, scan.Request{})
	return s, err
}

// ReadScan is ReadStream with a query's request (docs/sql.md#pushdown):
// only the columns req.Columns names are decoded (all when nil), and a
// single file honours req.Rows by reading only the row groups that hold
// those rows. Filters and limits are left to the query engine.
func (Connector) ReadScan(ctx context.Context, ds *connectors.Dataset, req scan.Request) (dataframe.Stream, scan.Applied, error) {
	applied := scan.Applied{Filters: make([]bool, len(req.Filters))}
	if err := ctx.Err(); err != nil {
		return nil, applied, err
	}
	path := strings.TrimSpace(ds.Props.String(PropPath, ""))
	if path == "" {
		return nil, applied, fmt.Errorf("PARQUET %s: property %s is required", ds.Name, PropPath)
	}
	// A single file's rows keep their positions; a directory's are read
	// whole.
	applied.RowPositions = !isDir(path)
	cols := req.Columns
	mem := streamAllocator
	if ds.Allocator != nil {
		mem = ds.Allocator
	}
	var s dataframe.Stream
	var err error
	switch {
	case req.Rows != nil && !isDir(path):
		// Some rows by position (a query's top-N): only their row groups.
		if s, err = fileio.OpenParquetRows(ctx, path, mem, cols, req.Rows); err == nil {
			applied.Rows = true
		}
	case isDir(path):
		s, err = openDir(ctx, path, ds.Fields, cols)
	default:
		var schema *dataframe.Schema
		if schema, err = fileio.ParquetSchema(ctx, path, cols); err == nil {
			s = newLazyStream(schema, func() (dataframe.Stream, error) {
				return fileio.OpenParquetColumns(ctx, path, mem, cols)
			})
		}
	}
	if err != nil {
		return nil, applied, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
	}
	return s, applied, nil
}

// openDir streams the part files of dir in name order, each batch with its
// file's partition values appended as columns. The part files must share
// one schema (ReadDir, which reads them whole, can combine differing ones).
func openDir(ctx context.Context, dir string, fields []connectors.Field, cols []string) (dataframe.Stream, error) {
	parts, keys, kinds, err := dirLayout(dir, fields)
	if err != nil {
		return nil, err
	}
	// A partition column is read when the query may use it; the data
	// columns then exclude it (a pruned read still reads some column).
	var dataCols []string
	keep := make([]bool, len(keys))
	for i, k := range keys {
		keep[i] = cols == nil || containsFold(cols, k)
	}
	if cols != nil {
		dataCols = []string{}
		for _, c := range cols {
			if !containsFold(keys, c) {
				dataCols = append(dataCols, c)
			}
		}
	}
	dataSchema, err := fileio.ParquetSchema(ctx, parts[0].path, dataCols)
	if err != nil {
		return nil, err
	}
	// The schema of the whole stream: the data columns, then the kept
	// partition columns (as ReadDir puts them).
	consts := parts[0].keptConstants(keys, kinds, keep)
	schema := dataSchema
	if len(consts) > 0 {
		probe, err := dataframe.WithConstants(nil, dataframe.Empty(dataSchema), consts)
		if err != nil {
			return nil, err
		}
		schema = probe.Schema()
		probe.Release()
	}
	return newLazyStream(schema, func() (dataframe.Stream, error) {
		return dataframe.NewStream(ctx, schema, 1, func(ctx context.Context, emit func(dataframe.Record) bool) error {
			for _, p := range parts {
				if err := streamPart(ctx, p, dataCols, dataSchema, schema, keys, kinds, keep, emit); err != nil {
					return err
				}
			}
			return nil
		}), nil
	}), nil
}

// streamPart emits the batches of one part file with its partition columns.
func streamPart(ctx context.Context, p part, dataCols []string, dataSchema, schema *dataframe.Schema, keys []string, kinds []dataframe.ColumnKind, keep []bool, emit func(dataframe.Record) bool) error {
	s, err := fileio.OpenParquetColumns(ctx, p.path, streamAllocator, dataCols)
	if err != nil {
		return err
	}
	defer s.Release()
	if !s.Schema().Equal(dataSchema) {
		return fmt.Errorf("part file %s has columns %s, the first part file %s (a stream needs one schema)", p.path, s.Schema(), dataSchema)
	}
	kept := p.keptConstants(keys, kinds, keep)
	for s.Next() {
		rec := s.Record()
		rec.Retain()
		if len(kept) == 0 {
			if !emit(rec) {
				return ctx.Err()
			}
			continue
		}
		f, err := dataframe.New(rec.Schema(), rec)
		if err != nil {
			rec.Release()
			return err
		}
		g, err := dataframe.WithConstants(nil, f, kept)
		f.Release()
		if err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
		for _, r := range g.Records() {
			r.Retain()
			if !r.Schema().Equal(schema) {
				r.Release()
				g.Release()
				return fmt.Errorf("part file %s: batch schema %s differs from %s", p.path, r.Schema(), schema)
			}
			if !emit(r) {
				g.Release()
				return ctx.Err()
			}
		}
		g.Release()
	}
	return s.Err()
}

// keptConstants are p's partition values the read keeps, as columns.
func (p part) keptConstants(keys []string, kinds []dataframe.ColumnKind, keep []bool) []dataframe.Constant {
	var out []dataframe.Constant
	for i, c := range p.constants(keys, kinds) {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}

func containsFold(xs []string, x string) bool {
	for _, v := range xs {
		if strings.EqualFold(v, x) {
			return true
		}
	}
	return false
}

// lazyStream is a stream whose schema is known at once and whose data
// stream is opened on the first Next: planning a query reads footers only.
type lazyStream struct {
	schema *dataframe.Schema
	open   func() (dataframe.Stream, error)
	s      dataframe.Stream
	err    error
	done   bool
	refs   atomic.Int64
}

func newLazyStream(schema *dataframe.Schema, open func() (dataframe.Stream, error)) *lazyStream {
	l := &lazyStream{schema: schema, open: open}
	l.refs.Store(1)
	return l
}

func (l *lazyStream) Schema() *dataframe.Schema { return l.schema }

func (l *lazyStream) Next() bool {
	if l.done {
		return false
	}
	if l.s == nil {
		if l.s, l.err = l.open(); l.err != nil {
			l.done = true
			return false
		}
	}
	if l.s.Next() {
		return true
	}
	l.done = true
	l.err = l.s.Err()
	return false
}

func (l *lazyStream) Record() dataframe.Record {
	if l.s == nil || l.done {
		return nil
	}
	return l.s.Record()
}

func (l *lazyStream) Err() error { return l.err }
func (l *lazyStream) Retain()    { l.refs.Add(1) }

func (l *lazyStream) Release() {
	if l.refs.Add(-1) != 0 {
		return
	}
	l.done = true
	if l.s != nil {
		l.s.Release()
		l.s = nil
	}
}

// WriteStream writes the stream batch by batch (memory is one row group of
// encoded pages): one file replaced atomically, or one new part file in a
// directory (the old part files removed after it is in place, unless
// svc.parquet.mode=append). A failure, a stream error or a cancelled ctx
// leaves the old data as it was. Partitioned (svc.parquet.partition.by)
// and merge writes collect the stream into a frame first, so their memory
// grows with the rows (see docs/frames.md#streams).
func (c Connector) WriteStream(ctx context.Context, ds *connectors.Dataset, st dataframe.Stream) (connectors.WriteResult, error) {
	var res connectors.WriteResult
	path, mode, err := writePathAndMode(ctx, ds)
	if err != nil {
		return res, err
	}
	var t writeTarget
	if mode != ModeMerge {
		if t, err = writeTargetOf(ds, path, mode); err != nil {
			return res, err
		}
	}
	if mode == ModeMerge || len(t.keys) > 0 {
		f, err := dataframe.Collect(st)
		if err != nil {
			return res, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
		}
		defer f.Release()
		return c.Write(ctx, ds, f)
	}
	var rows int64
	write := func(w io.Writer) error {
		var err error
		if rows, err = fileio.WriteParquetStream(ctx, w, st, fileio.ParquetOptions{Compression: t.comp}); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	if !t.dir {
		err = writeFile(path, write)
	} else {
		err = writeDirStream(path, mode == ModeAppend, t.comp, write)
	}
	res.Rows = rows
	if err != nil {
		return res, fmt.Errorf("PARQUET %s: %w", ds.Name, err)
	}
	res.Written = rows
	return res, nil
}

// writeDirStream writes one new part file into dir with write and
// publishes it; unless appending, the old part files are removed once it is
// in place.
func writeDirStream(dir string, appendMode bool, comp string, write func(w io.Writer) error) error {
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	var old []part
	if !appendMode {
		var err error
		if old, err = listParts(dir); err != nil {
			return err
		}
	}
	s, err := atomicfile.Stage(filepath.Join(dir, partName(0, runID(), comp)), write)
	if err != nil {
		return err
	}
	_, err = publish(dir, []*atomicfile.Staged{s}, old)
	return err
}
