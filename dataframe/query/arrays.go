package query

import (
	"fmt"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/arrow/scalar"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Helpers over Arrow arrays shared by the kernels and operators.

// fixedValues is the value buffer of a fixed-width array as a []T, with the
// array's offset applied (nil for an empty one).
func fixedValues[T arrow.FixedWidthType](arr arrow.Array) []T {
	return arrow.GetValues[T](arr.Data(), 1)
}

// validBits returns the validity bitmap bytes and the offset of arr's first
// element in it; nil when arr has no nulls.
func validBits(arr arrow.Array) ([]byte, int) {
	if arr.NullN() == 0 {
		return nil, 0
	}
	b := arr.Data().Buffers()[0]
	if b == nil {
		return nil, 0
	}
	return b.Bytes(), arr.Data().Offset()
}

// andValidity is the validity of a result valid where every one of arrs is
// (nil when none has nulls).
func andValidity(mem memory.Allocator, n int, arrs ...arrow.Array) *memory.Buffer {
	var out *memory.Buffer
	for _, a := range arrs {
		bits, off := validBits(a)
		if bits == nil {
			continue
		}
		if out == nil {
			out = memory.NewResizableBuffer(mem)
			out.Resize(int(bitutil.BytesForBits(int64(n))))
			bitutil.CopyBitmap(bits, off, n, out.Bytes(), 0)
			continue
		}
		bitutil.BitmapAnd(out.Bytes(), bits, 0, int64(off), out.Bytes(), 0, int64(n))
	}
	return out
}

// newValidity is an all-valid bitmap for n elements.
func newValidity(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(n))))
	bitutil.SetBitsTo(b.Bytes(), 0, int64(n), true)
	return b
}

// fixedArray makes an array of type dt from a value buffer and an optional
// validity; it takes over both buffers.
func fixedArray(dt arrow.DataType, n int, validity, values *memory.Buffer) arrow.Array {
	nulls := 0
	if validity != nil {
		nulls = n - bitutil.CountSetBits(validity.Bytes(), 0, n)
		if nulls == 0 {
			validity.Release()
			validity = nil
		}
	}
	d := array.NewData(dt, n, []*memory.Buffer{validity, values}, nil, nulls, 0)
	if validity != nil {
		validity.Release()
	}
	values.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

// allocFixed is a value buffer for n elements of T, and its []T view.
func allocFixed[T arrow.FixedWidthType](mem memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero [1]T
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n * len(arrow.GetBytes(zero[:])))
	return buf, arrow.GetData[T](buf.Bytes())[:n:n]
}

// withValidity returns arr with its validity replaced by the AND of its own
// and valid (which may be nil: arr itself, retained).
func withValidity(mem memory.Allocator, arr arrow.Array, valid *memory.Buffer) arrow.Array {
	if valid == nil {
		arr.Retain()
		return arr
	}
	n := arr.Len()
	if bits, off := validBits(arr); bits != nil {
		bitutil.BitmapAnd(valid.Bytes(), bits, 0, int64(off), valid.Bytes(), 0, int64(n))
	}
	nulls := n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	d := arr.Data()
	bufs := append([]*memory.Buffer(nil), d.Buffers()...)
	if d.Offset() != 0 {
		// The new bitmap starts at 0; the other buffers keep the offset, so
		// shift the bitmap to match.
		shifted := memory.NewResizableBuffer(mem)
		shifted.Resize(int(bitutil.BytesForBits(int64(d.Offset() + n))))
		bitutil.CopyBitmap(valid.Bytes(), 0, n, shifted.Bytes(), d.Offset())
		valid = shifted
		defer shifted.Release()
	}
	if arr.DataType().ID() == arrow.NULL {
		arr.Retain()
		return arr
	}
	bufs[0] = valid
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// broadcast makes an array of n copies of a literal value of type dt.
func broadcast(mem memory.Allocator, v any, dt arrow.DataType, n int) (arrow.Array, error) {
	if v == nil {
		return fn.NullArray(mem, dt, n), nil // void parts included (array<void>)
	}
	var sc scalar.Scalar
	switch x := v.(type) {
	case string:
		sc = scalar.NewStringScalar(x)
	case []byte:
		sc = scalar.NewBinaryScalar(memory.NewBufferBytes(x), arrow.BinaryTypes.Binary)
	case decimal128.Num:
		if d, ok := dt.(*arrow.Decimal128Type); ok {
			sc = scalar.NewDecimal128Scalar(x, d)
		}
	case time.Time:
		switch t := dt.(type) {
		case *arrow.TimestampType:
			sc = scalar.NewTimestampScalar(arrow.Timestamp(fn.FromMicros(x.UnixMicro(), t.Unit)), t)
		case *arrow.Date32Type:
			sc = scalar.NewDate32Scalar(arrow.Date32FromTime(x))
		}
	case arrow.Duration:
		if t, ok := dt.(*arrow.DurationType); ok {
			sc = scalar.NewDurationScalar(x, t)
		}
	case arrow.MonthInterval:
		sc = scalar.NewMonthIntervalScalar(x)
	case arrow.MonthDayNanoInterval:
		sc = scalar.NewMonthDayNanoIntervalScalar(x)
	default:
		sc = scalar.MakeScalar(v)
	}
	if sc == nil {
		return nil, fmt.Errorf("cannot make a constant of %T as %s", v, dt)
	}
	if !arrow.TypeEqual(sc.DataType(), dt) {
		var err error
		if sc, err = sc.CastTo(dt); err != nil {
			return nil, err
		}
	}
	out, err := scalar.MakeArrayFromScalar(sc, n, mem)
	if err != nil || out.DataType() == dt || dt.ID() != arrow.INTERVAL_MONTHS {
		return out, err
	}
	return withType(out, dt), nil // the year-month type's own fields
}

// concatArrays joins arrays of one type into one (a retained single input as
// is).
func concatArrays(mem memory.Allocator, dt arrow.DataType, arrs []arrow.Array) (arrow.Array, error) {
	switch len(arrs) {
	case 0:
		return fn.NullArray(mem, dt, 0), nil
	case 1:
		arrs[0].Retain()
		return arrs[0], nil
	}
	return array.Concatenate(arrs, mem)
}

// isNullAt says whether element i of a is NULL; every element of an array
// of type NULL (void) is, though Arrow's IsNull says otherwise for it.
func isNullAt(a arrow.Array, i int) bool {
	return a.DataType().ID() == arrow.NULL || a.IsNull(i)
}
