package dataframe

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Row selection (filter, explode) is done here rather than with arrow's
// compute.TakeArray / FilterRecordBatch: in arrow-go v17 those grow the
// output of variable-width columns one element at a time, which is
// quadratic (200,000 strings took minutes). Here every output buffer is
// sized once, and consecutive source rows are copied as one block, so a
// selection costs time linear in the input and output.

// span is n consecutive source positions from start. Selections are kept
// as spans so that runs (kept rows of a filter, the elements of adjacent
// lists) copy their bytes in one go, and so that a list's selection maps
// to its child's selection without one index per element.
type span struct{ start, n int64 }

// spansOf coalesces idx into spans, checking every index against length.
// The spans are counted first so that the slice is allocated once.
func spansOf(idx []int64, length int) ([]span, error) {
	count := 0
	for k, i := range idx {
		if i < 0 || i >= int64(length) {
			return nil, fmt.Errorf("dataframe: take: index %d (at %d) is out of range [0, %d)", i, k, length)
		}
		if k == 0 || idx[k-1]+1 != i {
			count++
		}
	}
	spans := make([]span, 0, count)
	for k, i := range idx {
		if k > 0 && idx[k-1]+1 == i {
			spans[len(spans)-1].n++
			continue
		}
		spans = append(spans, span{i, 1})
	}
	return spans, nil
}

func spansLen(spans []span) int64 {
	var n int64
	for _, s := range spans {
		n += s.n
	}
	return n
}

// takeArray returns the elements of arr at idx, in that order (repeats
// allowed), as a new array allocated from mem. Nulls are kept; a selection
// that is one ascending run is a zero-copy slice of arr. An index out of
// range, or a type it cannot select (union, run-end encoded, list view),
// is an error.
func takeArray(mem memory.Allocator, arr arrow.Array, idx []int64) (arrow.Array, error) {
	spans, err := spansOf(idx, arr.Len())
	if err != nil {
		return nil, err
	}
	return takeSpans(mem, arr, spans)
}

// takeSpans is takeArray for a selection already made of spans (which
// must lie within arr).
func takeSpans(mem memory.Allocator, arr arrow.Array, spans []span) (arrow.Array, error) {
	d, err := takeData(mem, arr.Data(), spans)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// takeRecord returns the rows of rec at idx, every column selected alike.
func takeRecord(mem memory.Allocator, rec arrow.Record, idx []int64) (arrow.Record, error) {
	spans, err := spansOf(idx, int(rec.NumRows()))
	if err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, 0, rec.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for k, col := range rec.Columns() {
		out, err := takeSpans(mem, col, spans)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", rec.ColumnName(k), err)
		}
		cols = append(cols, out)
	}
	return array.NewRecord(rec.Schema(), cols, spansLen(spans)), nil
}

// newBuf is a buffer of n bytes from mem.
func newBuf(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n)
	return buf
}

// takeData selects spans of d (positions relative to d's own offset) into
// a new ArrayData the caller releases.
func takeData(mem memory.Allocator, d arrow.ArrayData, spans []span) (out arrow.ArrayData, err error) {
	dt := d.DataType()
	switch dt.ID() {
	case arrow.SPARSE_UNION, arrow.DENSE_UNION, arrow.RUN_END_ENCODED, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.EXTENSION:
		return nil, fmt.Errorf("dataframe: take: cannot select rows of a %s column", dt)
	}
	switch len(spans) {
	case 0:
		return array.NewSliceData(d, 0, 0), nil
	case 1:
		return array.NewSliceData(d, spans[0].start, spans[0].start+spans[0].n), nil
	}
	n := spansLen(spans)
	off := int64(d.Offset())
	bufs := []*memory.Buffer{nil}
	var children []arrow.ArrayData
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
		for _, c := range children {
			c.Release()
		}
	}()

	nulls := 0
	if dt.ID() == arrow.NULL {
		nulls = int(n)
	} else if d.Buffers()[0] != nil && d.NullN() != 0 {
		// A slice's null count is unknown (-1) until an array counts it.
		bufs[0], nulls = takeBits(mem, d.Buffers()[0], off, spans, n, true)
	}

	switch dt.ID() {
	case arrow.NULL:
	case arrow.BOOL:
		b, _ := takeBits(mem, d.Buffers()[1], off, spans, n, false)
		bufs = append(bufs, b)
	case arrow.STRING, arrow.BINARY:
		offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
		ob, _, total, err := takeOffsets(mem, offs, off, spans, n, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, ob, copyValueBytes(mem, d.Buffers()[2], offs, off, spans, total))
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		offs := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())
		ob, _, total, err := takeOffsets(mem, offs, off, spans, n, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, ob, copyValueBytes(mem, d.Buffers()[2], offs, off, spans, total))
	case arrow.STRING_VIEW, arrow.BINARY_VIEW:
		// Views point into the shared data buffers by index and offset,
		// so copying the 16-byte views and sharing those buffers is a
		// complete selection.
		bufs = append(bufs, takeFixed(mem, d.Buffers()[1], off, spans, n, arrow.ViewHeaderSizeBytes))
		for _, b := range d.Buffers()[2:] {
			b.Retain()
			bufs = append(bufs, b)
		}
	case arrow.STRUCT:
		for _, child := range d.Children() {
			c, err := takeData(mem, child, shiftSpans(spans, off))
			if err != nil {
				return nil, err
			}
			children = append(children, c)
		}
	case arrow.LIST, arrow.MAP:
		offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
		ob, childSpans, _, err := takeOffsets(mem, offs, off, spans, n, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, ob)
		if dt.ID() == arrow.MAP && len(childSpans) == 1 {
			// arrow-go's Map ignores the offset of its entries struct
			// (Keys and Items start at the struct's first child), so a
			// sliced child would read the wrong entries: keep the whole
			// child and point the offsets into it instead.
			o := arrow.Int32Traits.CastFromBytes(ob.Bytes())
			for i := range o {
				o[i] += int32(childSpans[0].start)
			}
			c := d.Children()[0]
			c.Retain()
			children = append(children, c)
			break
		}
		c, err := takeData(mem, d.Children()[0], childSpans)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	case arrow.LARGE_LIST:
		offs := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())
		ob, childSpans, _, err := takeOffsets(mem, offs, off, spans, n, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, ob)
		c, err := takeData(mem, d.Children()[0], childSpans)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	case arrow.FIXED_SIZE_LIST:
		size := int64(dt.(*arrow.FixedSizeListType).Len())
		childSpans := make([]span, 0, len(spans))
		for _, s := range spans {
			if size > 0 {
				childSpans = appendSpan(childSpans, span{(off + s.start) * size, s.n * size})
			}
		}
		c, err := takeData(mem, d.Children()[0], childSpans)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	case arrow.DICTIONARY:
		// The indices are selected; the dictionary is shared as is.
		width := dt.(*arrow.DictionaryType).IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
		bufs = append(bufs, takeFixed(mem, d.Buffers()[1], off, spans, n, width))
		return array.NewDataWithDictionary(dt, int(n), bufs, nulls, 0, d.Dictionary().(*array.Data)), nil
	default:
		fw, ok := dt.(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth()%8 != 0 || len(d.Buffers()) != 2 {
			return nil, fmt.Errorf("dataframe: take: cannot select rows of a %s column", dt)
		}
		bufs = append(bufs, takeFixed(mem, d.Buffers()[1], off, spans, n, fw.BitWidth()/8))
	}
	return array.NewData(dt, int(n), bufs, children, nulls, 0), nil
}

// appendSpan appends s, merging it into the last span when they touch;
// empty spans are dropped.
func appendSpan(spans []span, s span) []span {
	if s.n == 0 {
		return spans
	}
	if last := len(spans) - 1; last >= 0 && spans[last].start+spans[last].n == s.start {
		spans[last].n += s.n
		return spans
	}
	return append(spans, s)
}

func shiftSpans(spans []span, by int64) []span {
	if by == 0 {
		return spans
	}
	out := make([]span, len(spans))
	for i, s := range spans {
		out[i] = span{s.start + by, s.n}
	}
	return out
}

// takeBits copies the bits of the spans (offset by off) into a new bitmap;
// with validity set, the second result is the number of clear bits
// (nulls). A nil src (no bitmap) means all bits set.
func takeBits(mem memory.Allocator, src *memory.Buffer, off int64, spans []span, n int64, validity bool) (*memory.Buffer, int) {
	buf := newBuf(mem, int(bitutil.BytesForBits(n)))
	dst := buf.Bytes()
	clear(dst)
	if src == nil {
		bitutil.SetBitsTo(dst, 0, n, true)
		return buf, 0
	}
	bits := src.Bytes()
	var pos int64
	for _, s := range spans {
		if s.n <= 64 {
			// CopyBitmap allocates a reader and writer per call: short
			// spans go bit by bit.
			for i := int64(0); i < s.n; i++ {
				if bitutil.BitIsSet(bits, int(off+s.start+i)) {
					bitutil.SetBit(dst, int(pos+i))
				}
			}
		} else {
			bitutil.CopyBitmap(bits, int(off+s.start), int(s.n), dst, int(pos))
		}
		pos += s.n
	}
	if !validity {
		return buf, 0
	}
	return buf, int(n) - bitutil.CountSetBits(dst, 0, int(n))
}

// takeFixed copies width-byte values.
func takeFixed(mem memory.Allocator, src *memory.Buffer, off int64, spans []span, n int64, width int) *memory.Buffer {
	buf := newBuf(mem, int(n)*width)
	if n == 0 {
		return buf
	}
	dst, vals := buf.Bytes(), src.Bytes()
	switch width {
	case 8:
		takeWords[uint64](dst, vals, off, spans)
		return buf
	case 4:
		takeWords[uint32](dst, vals, off, spans)
		return buf
	}
	w := int64(width)
	var pos int64
	for _, s := range spans {
		from := (off + s.start) * w
		pos += int64(copy(dst[pos:], vals[from:from+s.n*w]))
	}
	return buf
}

// takeWords copies the spans of T-sized values: a one-value span (a
// random order's) by assignment, not a copy call.
func takeWords[T uint32 | uint64](dst, vals []byte, off int64, spans []span) {
	d, v := arrow.GetData[T](dst), arrow.GetData[T](vals)
	k := 0
	for _, s := range spans {
		from := off + s.start
		if s.n == 1 {
			d[k] = v[from]
			k++
			continue
		}
		k += copy(d[k:], v[from:from+s.n])
	}
}

// takeOffsets builds the offsets of the selected variable-width values
// (strings or lists) and the spans of the child values (or bytes) they
// cover, merged where adjacent. limit is the largest offset the type can
// hold.
func takeOffsets[T int32 | int64](mem memory.Allocator, offs []T, off int64, spans []span, n int64, limit int64) (*memory.Buffer, []span, int64, error) {
	var zero [1]T
	size := len(arrow.GetBytes(zero[:]))
	buf := newBuf(mem, int(n+1)*size)
	out := arrow.GetData[T](buf.Bytes())[:n+1]
	child := make([]span, 0, len(spans))
	var total int64
	pos := 0
	for _, s := range spans {
		first := off + s.start
		base := offs[first]
		end := offs[first+s.n]
		if total+int64(end-base) > limit {
			buf.Release()
			return nil, nil, 0, fmt.Errorf("dataframe: take: selection holds more than %d values or bytes, too many for offsets of %d bytes", limit, size)
		}
		shift := T(total) - base
		for i := first; i < first+s.n; i++ {
			out[pos] = offs[i] + shift
			pos++
		}
		child = appendSpan(child, span{int64(base), int64(end - base)})
		total += int64(end - base)
	}
	out[pos] = T(total)
	return buf, child, total, nil
}

// copyValueBytes copies the bytes of the selected strings or binaries;
// each span of adjacent values is one copy.
func copyValueBytes[T int32 | int64](mem memory.Allocator, src *memory.Buffer, offs []T, off int64, spans []span, total int64) *memory.Buffer {
	buf := newBuf(mem, int(total))
	if total == 0 {
		return buf
	}
	dst, vals := buf.Bytes(), src.Bytes()
	var pos int64
	for _, s := range spans {
		first := off + s.start
		from, to := int64(offs[first]), int64(offs[first+s.n])
		pos += int64(copy(dst[pos:], vals[from:to]))
	}
	return buf
}

// Take returns the elements of arr at idx (repeats allowed, any order) as a
// new array from mem, in time linear in the input and output. The query
// executor selects rows with it (filters, joins, sorts).
func Take(mem memory.Allocator, arr arrow.Array, idx []int64) (arrow.Array, error) {
	return takeArray(mem, arr, idx)
}

// TakeRecord is Take for every column of rec.
func TakeRecord(mem memory.Allocator, rec arrow.Record, idx []int64) (arrow.Record, error) {
	return takeRecord(mem, rec, idx)
}
