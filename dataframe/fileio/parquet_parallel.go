package fileio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/sluicedata/sluice/dataframe"
	"io"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pqformat "github.com/parquet-go/parquet-go/format"
)

// Parallel Parquet writing.
//
// pqarrow v17 encodes one column after the other on one goroutine, and
// encoding (dictionary, levels, snappy) is most of a conversion's time. So
// WriteParquet cuts the frame into row groups and encodes each on its own
// goroutine as a complete one-row-group Parquet file in memory. A row
// group's column chunks are self-contained, so the final file is "PAR1",
// the parts' column chunks in order, and a footer that is the first part's
// (schema, key/value metadata with the Arrow schema) with every part's row
// group, its offsets shifted to where its bytes landed. At most `workers`
// parts are held in memory at a time, and parts are written in order as
// soon as they are ready, so output streams.

// rowGroupSlices cuts f's records into groups of at most maxRows rows,
// balanced so that the last group is not a small remainder. The slices are
// new references: the caller releases them.
func rowGroupSlices(f *dataframe.Frame, maxRows int64) [][]arrow.Record {
	total := f.NumRows()
	if total == 0 {
		return nil
	}
	ngroups := (total + maxRows - 1) / maxRows
	size := (total + ngroups - 1) / ngroups
	var groups [][]arrow.Record
	var cur []arrow.Record
	var curRows int64
	for _, rec := range f.Records() {
		for off := int64(0); off < rec.NumRows(); {
			n := min(rec.NumRows()-off, size-curRows)
			cur = append(cur, rec.NewSlice(off, off+n))
			off += n
			curRows += n
			if curRows == size {
				groups = append(groups, cur)
				cur, curRows = nil, 0
			}
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

func releaseGroups(groups [][]arrow.Record) {
	for _, g := range groups {
		for _, r := range g {
			r.Release()
		}
	}
}

// parquetPart is one row group encoded as a whole Parquet file.
type parquetPart struct {
	data []byte
	err  error
}

// encodeParquetPart writes the records of one row group as a Parquet file.
// It runs on its own goroutine, so it recovers the encoder's panics itself.
func encodeParquetPart(schema *arrow.Schema, recs []arrow.Record, o ParquetOptions, mem memory.Allocator, sizeHint int64) (p parquetPart) {
	defer recoverAs(&p.err, "parquet")
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	o.RowGroupRows = int(rows) // the whole part is one row group
	props, arrProps, err := o.writerProps(mem, schema, recs)
	if err != nil {
		return parquetPart{err: err}
	}
	// sizeHint saves growing (and copying) the buffer by doubling.
	var buf bytes.Buffer
	buf.Grow(int(sizeHint) + 4096)
	fw, err := pqarrow.NewFileWriter(schema, &buf, props, arrProps)
	if err != nil {
		return parquetPart{err: err}
	}
	if err := writeRowGroup(fw, schema, recs, rows); err != nil {
		fw.Close()
		return parquetPart{err: err}
	}
	if err := fw.Close(); err != nil {
		return parquetPart{err: err}
	}
	return parquetPart{data: buf.Bytes()}
}

// arrowDataSize is the bytes of d's buffers and children.
func arrowDataSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrowDataSize(c)
	}
	return n
}

// writeRowGroup writes recs as one row group, column by column straight
// to the file writer's sink: an unbuffered row group, so pages are not
// first collected in per-column buffers.
func writeRowGroup(fw *pqarrow.FileWriter, schema *arrow.Schema, recs []arrow.Record, rows int64) error {
	tbl := array.NewTableFromRecords(schema, recs)
	defer tbl.Release()
	return fw.WriteTable(tbl, max(rows, 1))
}

// splitParquetPart returns the column chunk bytes of a one-file part (what
// lies between the leading magic and the footer) and its decoded footer.
func splitParquetPart(data []byte) ([]byte, *pqformat.FileMetaData, error) {
	const magic = "PAR1"
	if len(data) < 12 || string(data[:4]) != magic || string(data[len(data)-4:]) != magic {
		return nil, nil, errors.New("encoded row group is not a Parquet file")
	}
	flen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footerStart := len(data) - 8 - flen
	if flen <= 0 || footerStart < 4 {
		return nil, nil, errors.New("encoded row group has a bad footer length")
	}
	md := new(pqformat.FileMetaData)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[footerStart:len(data)-8], md); err != nil {
		return nil, nil, fmt.Errorf("decoding a row group footer: %w", err)
	}
	if len(md.RowGroups) != 1 {
		return nil, nil, fmt.Errorf("encoded part has %d row groups, want 1", len(md.RowGroups))
	}
	return data[4:footerStart], md, nil
}

// shiftRowGroup moves every file offset of rg by delta: the part's column
// chunks start at byte 4 of the part and at 4+delta of the output.
func shiftRowGroup(rg *pqformat.RowGroup, delta int64) error {
	if rg.FileOffset != 0 {
		rg.FileOffset += delta
	}
	for i := range rg.Columns {
		cc := &rg.Columns[i]
		if cc.FilePath != "" || cc.OffsetIndexOffset != 0 || cc.ColumnIndexOffset != 0 {
			return errors.New("encoded part uses features the splicer does not handle (external chunks, page indexes)")
		}
		cc.FileOffset += delta
		md := &cc.MetaData
		md.DataPageOffset += delta
		if md.DictionaryPageOffset != 0 {
			md.DictionaryPageOffset += delta
		}
		if md.IndexPageOffset != 0 {
			md.IndexPageOffset += delta
		}
		if md.BloomFilterOffset != 0 {
			md.BloomFilterOffset += delta
		}
	}
	return nil
}

// countingWriter tracks the output position.
type countingWriter struct {
	w   io.Writer
	pos int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.pos += int64(n)
	return n, err
}

// parquetSplicer writes one-row-group parts (see encodeParquetPart) to w
// as one Parquet file: "PAR1", each part's column chunks in order, then a
// footer that is the first part's with every part's row group, its offsets
// shifted to where its bytes landed.
type parquetSplicer struct {
	cw     *countingWriter
	footer *pqformat.FileMetaData
}

func newParquetSplicer(w io.Writer) (*parquetSplicer, error) {
	cw := &countingWriter{w: w}
	if _, err := io.WriteString(cw, "PAR1"); err != nil {
		return nil, err
	}
	return &parquetSplicer{cw: cw}, nil
}

// add appends the next part.
func (sp *parquetSplicer) add(p parquetPart) error {
	if p.err != nil {
		return p.err
	}
	chunks, md, err := splitParquetPart(p.data)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	rg := md.RowGroups[0]
	if err := shiftRowGroup(&rg, sp.cw.pos-4); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	if sp.footer == nil {
		sp.footer = md
		sp.footer.RowGroups = nil
		sp.footer.NumRows = 0
	}
	if n := len(sp.footer.RowGroups); n <= 1<<15-1 {
		rg.Ordinal = int16(n)
	}
	sp.footer.RowGroups = append(sp.footer.RowGroups, rg)
	sp.footer.NumRows += rg.NumRows
	_, err = sp.cw.Write(chunks)
	return err
}

// finish writes the footer; at least one part must have been added.
func (sp *parquetSplicer) finish() error {
	if sp.footer == nil {
		return errors.New("parquet: no row group to write")
	}
	meta, err := thrift.Marshal(new(thrift.CompactProtocol), sp.footer)
	if err != nil {
		return fmt.Errorf("parquet: encoding the footer: %w", err)
	}
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[:4], uint32(len(meta)))
	copy(tail[4:], "PAR1")
	if _, err := sp.cw.Write(meta); err != nil {
		return err
	}
	_, err = sp.cw.Write(tail[:])
	return err
}

// writeParquetParallel encodes groups on `workers` goroutines and splices
// them into one file on w.
func writeParquetParallel(ctx context.Context, w io.Writer, f *dataframe.Frame, groups [][]arrow.Record, o ParquetOptions, workers int) error {
	mem := memory.DefaultAllocator
	schema := f.Schema()
	// Encoded Parquet is rarely more than half the Arrow size.
	var frameBytes int64
	for _, r := range f.Records() {
		frameBytes += recordBytes(r)
	}
	perRow := frameBytes / max(f.NumRows(), 1) / 2
	results := make([]chan parquetPart, len(groups))
	for i := range results {
		results[i] = make(chan parquetPart, 1)
	}
	// A slot is taken before a part is encoded and given back once it is
	// written: at most `workers` parts are encoding or waiting.
	slots := make(chan struct{}, workers)
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(done)
		wg.Wait()
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range groups {
			select {
			case slots <- struct{}{}:
			case <-done:
				return
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				var rows int64
				for _, r := range groups[i] {
					rows += r.NumRows()
				}
				results[i] <- encodeParquetPart(schema, groups[i], o, mem, perRow*rows)
			}(i)
		}
	}()

	sp, err := newParquetSplicer(w)
	if err != nil {
		return err
	}
	for i := range groups {
		var p parquetPart
		select {
		case p = <-results[i]:
		case <-done:
			return errors.New("parquet: writer stopped")
		}
		<-slots
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sp.add(p); err != nil {
			return err
		}
	}
	return sp.finish()
}

// recordBytes is the bytes of rec's buffers.
func recordBytes(rec arrow.Record) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += arrowDataSize(c.Data())
	}
	return n
}
