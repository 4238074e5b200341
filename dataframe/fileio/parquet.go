package fileio

import (
	"context"
	"errors"
	"fmt"
	"github.com/sluicedata/sluice/dataframe"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/file"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// ParquetOptions tune WriteParquet.
type ParquetOptions struct {
	// Compression is the column codec: "snappy", "zstd", "gzip", "brotli"
	// or "none" (also "uncompressed"), any case. Defaults to "snappy".
	Compression string
	// RowGroupRows caps the rows of one row group. Smaller groups let the
	// writer encode them in parallel and readers skip them; larger ones
	// compress a little better. Defaults to 131072 (DuckDB writes 122880).
	RowGroupRows int
}

const defaultRowGroupRows = 128 * 1024

func (o ParquetOptions) codec() (compress.Compression, error) {
	switch strings.ToLower(o.Compression) {
	case "", "snappy":
		return compress.Codecs.Snappy, nil
	case "zstd":
		return compress.Codecs.Zstd, nil
	case "gzip":
		return compress.Codecs.Gzip, nil
	case "brotli":
		return compress.Codecs.Brotli, nil
	case "none", "uncompressed":
		return compress.Codecs.Uncompressed, nil
	}
	return 0, fmt.Errorf("parquet compression %q: want snappy, zstd, gzip, brotli or none", o.Compression)
}

// Validate reports an unknown compression or a negative row group size.
func (o ParquetOptions) Validate() error { return o.validate() }

func (o ParquetOptions) validate() error {
	if _, err := o.codec(); err != nil {
		return err
	}
	if o.RowGroupRows < 0 {
		return fmt.Errorf("parquet RowGroupRows %d: must be ≥ 0", o.RowGroupRows)
	}
	return nil
}

func (o ParquetOptions) rowGroupRows() int64 {
	if o.RowGroupRows <= 0 {
		return defaultRowGroupRows
	}
	return int64(o.RowGroupRows)
}

// writerProps are the Parquet and Arrow writer properties WriteParquet uses.
//
// The root is Required: pqarrow v17 otherwise writes a repeated root that
// Spark and DuckDB reject or misread. The Arrow schema is stored in the file
// so that a round trip restores the exact types (list element names, field
// nullability) while other readers use the Parquet schema.
//
// schema and sample, when given, pick the columns written without
// dictionary encoding (see plainColumns).
func (o ParquetOptions) writerProps(mem memory.Allocator, schema *arrow.Schema, sample []arrow.Record) (*parquet.WriterProperties, pqarrow.ArrowWriterProperties, error) {
	codec, err := o.codec()
	if err != nil {
		return nil, pqarrow.ArrowWriterProperties{}, err
	}
	opts := []parquet.WriterProperty{
		parquet.WithAllocator(mem),
		parquet.WithCompression(codec),
		parquet.WithRootRepetition(parquet.Repetitions.Required),
		parquet.WithMaxRowGroupLength(o.rowGroupRows()),
		parquet.WithCreatedBy("sluice (parquet-go arrow v17)"),
	}
	arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem))
	if schema != nil && len(sample) > 0 {
		opts = append(opts, plainColumns(schema, sample, parquet.NewWriterProperties(opts...), arrProps)...)
	}
	return parquet.NewWriterProperties(opts...), arrProps, nil
}

// WriteParquet writes f to w as one Parquet file: the column order, nested
// structs and lists are kept; row groups hold at most o.RowGroupRows rows
// (balanced, so the last one is not a small remainder). Several row groups
// are encoded in parallel, one per CPU, and written in order as they are
// done.
//
// Like encoding/json's encoders it takes no context: the caller owns w
// (WriteFile and WriteStream are the cancellable forms).
func WriteParquet(w io.Writer, f *dataframe.Frame, o ParquetOptions) error {
	return writeParquet(context.Background(), w, f, o, runtime.GOMAXPROCS(0))
}

// writeParquet encodes up to workers row groups at a time, stopping
// between row groups when ctx is cancelled.
func writeParquet(ctx context.Context, w io.Writer, f *dataframe.Frame, o ParquetOptions, workers int) (err error) {
	defer recoverAs(&err, "parquet")
	if err := o.validate(); err != nil {
		return err
	}
	// Hide any Close method of w: the Parquet writer closes a sink that has
	// one, and callers (atomic file writes) still need to sync theirs.
	w = struct{ io.Writer }{w}
	groups := rowGroupSlices(f, o.rowGroupRows())
	defer releaseGroups(groups)
	if workers > 1 && len(groups) > 1 {
		return writeParquetParallel(ctx, w, f, groups, o, workers)
	}
	var sample []arrow.Record
	if len(groups) > 0 {
		sample = groups[0]
	}
	props, arrProps, err := o.writerProps(memory.DefaultAllocator, f.Schema(), sample)
	if err != nil {
		return err
	}
	fw, err := pqarrow.NewFileWriter(f.Schema(), w, props, arrProps)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	for _, g := range groups {
		var rows int64
		for _, rec := range g {
			rows += rec.NumRows()
		}
		if err := ctx.Err(); err != nil {
			fw.Close()
			return err
		}
		if err := writeRowGroup(fw, f.Schema(), g, rows); err != nil {
			fw.Close()
			return fmt.Errorf("parquet: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// ReadParquet reads a whole Parquet file into a frame, restoring the Arrow
// schema stored by WriteParquet when present. Cancelling ctx stops the
// read. The caller releases the frame.
func ReadParquet(ctx context.Context, path string, mem memory.Allocator) (f *dataframe.Frame, err error) {
	return ReadParquetColumns(ctx, path, mem, nil)
}

// ReadParquetColumns is ReadParquet for the top-level columns named in
// cols only (all when cols is nil): a query that needs three columns of
// five decodes three (see docs/sql.md#performance). Unknown names are
// ignored.
func ReadParquetColumns(ctx context.Context, path string, mem memory.Allocator, cols []string) (f *dataframe.Frame, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	defer recoverAs(&err, "parquet")
	bounded := boundedAllocator{mem, physicalMemory(), "parquet"}
	rdr, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(bounded)))
	if err != nil {
		return nil, fmt.Errorf("reading %s: parquet: %w", path, err)
	}
	defer rdr.Close()
	f, err = readParquet(ctx, path, rdr, bounded, cols)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(mem)
	return f, nil
}

func readParquet(ctx context.Context, path string, rdr *file.Reader, mem memory.Allocator, cols []string) (f *dataframe.Frame, err error) {
	// Not pqarrow's Parallel: its reader goroutines would panic on corrupt
	// pages where no recover of ours can reach; row groups are read in
	// parallel below instead.
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 64 * 1024}, mem)
	if err != nil {
		return nil, fmt.Errorf("reading %s: parquet: %w", path, err)
	}
	if err := verifyStructLeaves(rdr, fr); err != nil {
		return nil, fmt.Errorf("reading %s: parquet: %w", path, err)
	}
	schema, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("reading %s: parquet: %w", path, err)
	}
	schema, leaves, none := pruneParquet(rdr, microsSchema(schema), cols)
	if none {
		return dataframe.Empty(schema), nil
	}
	n := rdr.NumRowGroups()
	results := make([][]arrow.Record, n)
	errs := make([]error, n)
	// Row groups are independent: read them on every CPU, each goroutine
	// with its own Arrow reader and its own recover.
	workers := min(runtime.GOMAXPROCS(0), n)
	slots := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		slots <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-slots }()
			if errs[i] = ctx.Err(); errs[i] == nil {
				results[i], errs[i] = readRowGroup(rdr, mem, i, leaves)
			}
		}(i)
	}
	wg.Wait()
	var recs []arrow.Record
	for _, r := range results {
		recs = append(recs, r...)
	}
	if err := errors.Join(errs...); err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, fmt.Errorf("reading %s: parquet: %w", path, err)
	}
	if len(recs) > 0 && cols != nil {
		schema = recs[0].Schema()
	}
	return dataframe.New(schema, recs...)
}

// pruneParquet narrows schema to the top-level columns named in cols
// (case-insensitively; unknown names are ignored) and returns the leaf
// columns to read: nil leaves for every column when cols is nil. A query
// that needs no column (count(*)) still needs the rows, so the first column
// is read then. none says there is nothing to read (no columns at all).
func pruneParquet(rdr *file.Reader, schema *arrow.Schema, cols []string) (_ *arrow.Schema, leaves []int, none bool) {
	if cols == nil {
		return schema, nil, false
	}
	keep := map[string]bool{}
	for _, c := range cols {
		keep[strings.ToLower(c)] = true
	}
	var fields []arrow.Field
	for _, fd := range schema.Fields() {
		if keep[strings.ToLower(fd.Name)] {
			fields = append(fields, fd)
		}
	}
	if len(fields) == 0 && schema.NumFields() > 0 {
		fields = schema.Fields()[:1]
		keep[strings.ToLower(fields[0].Name)] = true
	}
	ps := rdr.MetaData().Schema
	for j := 0; j < ps.NumColumns(); j++ {
		if path := ps.Column(j).ColumnPath(); len(path) > 0 && keep[strings.ToLower(path[0])] {
			leaves = append(leaves, j)
		}
	}
	schema = arrow.NewSchema(fields, nil)
	return schema, leaves, len(leaves) == 0 || len(fields) == 0
}

// readRowGroup reads row group i into records the caller releases.
func readRowGroup(rdr *file.Reader, mem memory.Allocator, i int, leaves []int) (recs []arrow.Record, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("row group %d: %v (recovered panic)", i, r)
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			recs = nil
		}
	}()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 64 * 1024}, mem)
	if err != nil {
		return nil, err
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, []int{i})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.Record()
		rec.Retain()
		if rec, err = microsRecord(mem, rec); err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return recs, err
	}
	return recs, nil
}

// verifyStructLeaves decodes every page of the leaf columns under struct
// fields once, here, where a panic of the decoder (corrupt compressed data,
// bad levels) is recovered. pqarrow reads struct children in goroutines of
// its own, where such a panic would kill the process instead.
func verifyStructLeaves(rdr *file.Reader, fr *pqarrow.FileReader) error {
	for rg := 0; rg < rdr.NumRowGroups(); rg++ {
		if err := verifyRowGroupStructLeaves(rdr, fr, rg); err != nil {
			return err
		}
	}
	return nil
}

// verifyRowGroupStructLeaves is verifyStructLeaves for row group rg.
func verifyRowGroupStructLeaves(rdr *file.Reader, fr *pqarrow.FileReader, rg int) (err error) {
	defer recoverAs(&err, "parquet")
	arrSchema, err := fr.Schema()
	if err != nil {
		return err
	}
	risky := map[string]bool{}
	for _, fd := range arrSchema.Fields() {
		if hasStruct(fd.Type) {
			risky[fd.Name] = true
		}
	}
	if len(risky) == 0 {
		return nil
	}
	pqSchema := rdr.MetaData().Schema
	rgr := rdr.RowGroup(rg)
	for c := 0; c < pqSchema.NumColumns(); c++ {
		if !risky[pqSchema.ColumnRoot(c).Name()] {
			continue
		}
		cr, err := rgr.Column(c)
		if err != nil {
			return err
		}
		if err := drainColumn(cr); err != nil {
			return fmt.Errorf("row group %d, column %s: %w", rg, pqSchema.Column(c).Path(), err)
		}
	}
	return nil
}

func hasStruct(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.StructType:
		return true
	case arrow.ListLikeType:
		return hasStruct(t.Elem())
	}
	return false
}

const drainBatch = 4096

func drainColumn(cr file.ColumnChunkReader) error {
	switch r := cr.(type) {
	case *file.Int32ColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.Int64ColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.Int96ColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.Float32ColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.Float64ColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.BooleanColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.ByteArrayColumnChunkReader:
		return drain(r, r.ReadBatch)
	case *file.FixedLenByteArrayColumnChunkReader:
		return drain(r, r.ReadBatch)
	}
	return fmt.Errorf("unknown column reader %T", cr)
}

func drain[T any](cr file.ColumnChunkReader, read func(int64, []T, []int16, []int16) (int64, int, error)) error {
	vals := make([]T, drainBatch)
	def := make([]int16, drainBatch)
	rep := make([]int16, drainBatch)
	for cr.HasNext() {
		n, _, err := read(drainBatch, vals, def, rep)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	return cr.Err()
}
