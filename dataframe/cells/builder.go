// Package cells moves typed values between record batches and code outside
// the dataframe family without that code importing Arrow: a Builder cuts
// batches of a schema from typed Go values (a database row's int64, its
// decimal digits, its date as days), and a Column reads a batch's values
// back as Go values (the rows a database bulk load sends). It is what
// connectors such as connectors/jdbc use to stream rows in and out; see
// docs/frames.md#arrow.
//
//	b := cells.NewBuilder(nil, schema, 10000)
//	defer b.Release()
//	b.Col(0).Int(42)
//	b.Col(1).String([]byte("x"))
//	if b.EndRow() { rec := b.NewRecord(); … }
package cells

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// TimestampType is the Arrow type of a timestamp a Builder builds from
// microseconds: Spark's `timestamp`, sparktype.TimestampType (microseconds,
// UTC). It prints as `timestamp`.
var TimestampType dataframe.DataType = sparktype.TimestampType

// ParseType is the Arrow type of a Spark type name (`decimal(10,2)`,
// `array<long>`), with timestamps at microseconds (TimestampType).
func ParseType(name string) (dataframe.DataType, error) {
	return sparktype.ParseType(name)
}

// ErrNotFit is returned (wrapped) for a value its column's type cannot hold
// (a number beyond the decimal's precision, a short beyond 32767).
var ErrNotFit = errors.New("value does not fit")

// Builder builds record batches of one schema row by row. Append one value
// (or Null) to every column with Col, then EndRow. Not safe for concurrent
// use.
type Builder struct {
	schema *arrow.Schema
	batch  int
	rb     *array.RecordBuilder
	cols   []*Col
	rows   int
}

// NewBuilder makes a builder of schema's batches of up to batchRows rows
// (≤ 0: 64Ki). mem nil is the default allocator.
func NewBuilder(mem dataframe.Allocator, schema *dataframe.Schema, batchRows int) *Builder {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if batchRows <= 0 {
		batchRows = 1 << 16
	}
	b := &Builder{schema: schema, batch: batchRows, rb: array.NewRecordBuilder(mem, schema)}
	for i, fb := range b.rb.Fields() {
		b.cols = append(b.cols, newCol(fb, schema.Field(i).Type))
	}
	return b
}

func newCol(fb array.Builder, dt arrow.DataType) *Col {
	c := &Col{b: fb, dt: dt}
	switch t := dt.(type) {
	case *arrow.Decimal128Type:
		c.prec, c.scale = t.Precision, t.Scale
		c.limit = pow10(int(t.Precision))
	case *arrow.ListType:
		c.elem = newCol(fb.(*array.ListBuilder).ValueBuilder(), t.Elem())
	}
	return c
}

// Schema is the schema of the batches.
func (b *Builder) Schema() *dataframe.Schema { return b.schema }

// Col is the appender of column i.
func (b *Builder) Col(i int) *Col { return b.cols[i] }

// EndRow ends a row; it reports whether the batch is full (cut it with
// NewRecord).
func (b *Builder) EndRow() bool {
	b.rows++
	return b.rows >= b.batch
}

// Rows is the number of rows in the batch being built.
func (b *Builder) Rows() int { return b.rows }

// NewRecord cuts the batch built so far (nil when it has no rows); the
// caller owns it.
func (b *Builder) NewRecord() dataframe.Record {
	if b.rows == 0 {
		return nil
	}
	b.rows = 0
	return b.rb.NewRecord()
}

// Release frees the builder's buffers.
func (b *Builder) Release() { b.rb.Release() }

// Col appends the values of one column (or of a list's elements).
type Col struct {
	b     array.Builder
	dt    arrow.DataType
	prec  int32
	scale int32
	limit *big.Int // 10^prec for decimals
	elem  *Col
}

// Type is the Spark type name of the column.
func (c *Col) Type() string { return sparktype.Name(c.dt) }

// Null appends a null.
func (c *Col) Null() { c.b.AppendNull() }

// Bool appends a boolean to a boolean column.
func (c *Col) Bool(v bool) { c.b.(*array.BooleanBuilder).Append(v) }

// Int appends an integer to an integer (byte, short, integer, long),
// decimal or floating-point column; a value beyond the column's range is
// ErrNotFit.
func (c *Col) Int(v int64) error {
	switch b := c.b.(type) {
	case *array.Int64Builder:
		b.Append(v)
	case *array.Int32Builder:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return c.notFit(fmt.Sprint(v))
		}
		b.Append(int32(v))
	case *array.Int16Builder:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return c.notFit(fmt.Sprint(v))
		}
		b.Append(int16(v))
	case *array.Int8Builder:
		if v < math.MinInt8 || v > math.MaxInt8 {
			return c.notFit(fmt.Sprint(v))
		}
		b.Append(int8(v))
	case *array.Float64Builder:
		b.Append(float64(v))
	case *array.Float32Builder:
		b.Append(float32(v))
	case *array.Decimal128Builder:
		return c.Decimal(big.NewInt(v), 0)
	default:
		return fmt.Errorf("cells: an integer into a %s column", c.Type())
	}
	return nil
}

// Float appends a floating-point value to a double or float column.
func (c *Col) Float(v float64) {
	switch b := c.b.(type) {
	case *array.Float64Builder:
		b.Append(v)
	case *array.Float32Builder:
		b.Append(float32(v))
	default:
		panic("cells: a float into a " + c.Type() + " column")
	}
}

// Decimal appends unscaled·10^-scale to a decimal column: rescaled to the
// column's scale (extra digits rounded half up, as Spark's JDBC reader
// does); more digits than the precision is ErrNotFit. unscaled may be
// changed.
func (c *Col) Decimal(unscaled *big.Int, scale int32) error {
	b, ok := c.b.(*array.Decimal128Builder)
	if !ok {
		return fmt.Errorf("cells: a decimal into a %s column", c.Type())
	}
	orig := unscaled.String()
	switch {
	case scale < c.scale:
		unscaled.Mul(unscaled, pow10(int(c.scale-scale)))
	case scale > c.scale:
		d := pow10(int(scale - c.scale))
		neg := unscaled.Sign() < 0
		unscaled.Abs(unscaled)
		q, r := new(big.Int).QuoRem(unscaled, d, new(big.Int))
		if r.Lsh(r, 1).Cmp(d) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		if neg {
			q.Neg(q)
		}
		unscaled = q
	}
	if new(big.Int).Abs(unscaled).Cmp(c.limit) >= 0 {
		return c.notFit(scaledText(orig, scale))
	}
	b.Append(decimal128.FromBigInt(unscaled))
	return nil
}

// DecimalText appends a decimal number written in text (`-12.50`,
// `1.5E+3`) as Decimal does.
func (c *Col) DecimalText(s []byte) error {
	unscaled, scale, ok := ParseDecimalText(s)
	if !ok {
		return fmt.Errorf("cells: %q is not a decimal number", s)
	}
	return c.Decimal(unscaled, scale)
}

// ParseDecimalText reads decimal text (`-12.50`, `1.5E+3`) as its unscaled
// digits and scale (a negative scale for a value that ends in zeros).
func ParseDecimalText(s []byte) (unscaled *big.Int, scale int32, ok bool) {
	mant, exp := s, int64(0)
	for i, ch := range s {
		if ch == 'e' || ch == 'E' {
			mant = s[:i]
			e, err := strconv.ParseInt(string(s[i+1:]), 10, 32)
			if err != nil {
				return nil, 0, false
			}
			exp = e
			break
		}
	}
	digits := make([]byte, 0, len(mant))
	frac := int64(0)
	seenDot, seenDigit := false, false
	for i, ch := range mant {
		switch {
		case ch >= '0' && ch <= '9':
			digits = append(digits, ch)
			seenDigit = true
			if seenDot {
				frac++
			}
		case ch == '.' && !seenDot:
			seenDot = true
		case (ch == '-' || ch == '+') && i == 0:
			if ch == '-' {
				digits = append(digits, '-')
			}
		default:
			return nil, 0, false
		}
	}
	if !seenDigit {
		return nil, 0, false
	}
	unscaled, ok = new(big.Int).SetString(string(digits), 10)
	if !ok || frac-exp > math.MaxInt32/2 || frac-exp < -1000 {
		return nil, 0, false
	}
	return unscaled, int32(frac - exp), true
}

// String appends text to a string column (v is copied).
func (c *Col) String(v []byte) {
	c.b.(*array.StringBuilder).BinaryBuilder.Append(v)
}

// Binary appends bytes to a binary column (v is copied).
func (c *Col) Binary(v []byte) { c.b.(*array.BinaryBuilder).Append(v) }

// Date appends a date, in days since 1970-01-01, to a date column.
func (c *Col) Date(days int32) { c.b.(*array.Date32Builder).Append(arrow.Date32(days)) }

// Micros appends a timestamp, in microseconds since the epoch (UTC), to a
// timestamp column of any unit (truncated towards the past).
func (c *Col) Micros(us int64) {
	b := c.b.(*array.TimestampBuilder)
	switch b.Type().(*arrow.TimestampType).Unit {
	case arrow.Millisecond:
		us = floorDiv(us, 1000)
	case arrow.Second:
		us = floorDiv(us, 1_000_000)
	case arrow.Nanosecond:
		us *= 1000
	}
	b.Append(arrow.Timestamp(us))
}

// BeginList starts a non-null list value of a list column and returns the
// appender of its elements: append them, then go on with the next column.
func (c *Col) BeginList() *Col {
	c.b.(*array.ListBuilder).Append(true)
	return c.elem
}

func (c *Col) notFit(v string) error {
	return fmt.Errorf("%w: %s is beyond %s", ErrNotFit, v, c.Type())
}

func scaledText(unscaled string, scale int32) string {
	if scale <= 0 {
		for ; scale < 0 && unscaled != "0"; scale++ {
			unscaled += "0"
		}
		return unscaled
	}
	neg := len(unscaled) > 0 && unscaled[0] == '-'
	if neg {
		unscaled = unscaled[1:]
	}
	for len(unscaled) <= int(scale) {
		unscaled = "0" + unscaled
	}
	out := unscaled[:len(unscaled)-int(scale)] + "." + unscaled[len(unscaled)-int(scale):]
	if neg {
		out = "-" + out
	}
	return out
}

var pows []*big.Int

func init() {
	p := big.NewInt(1)
	for i := 0; i <= 80; i++ {
		pows = append(pows, new(big.Int).Set(p))
		p.Mul(p, big.NewInt(10))
	}
}

// pow10 is 10^n (shared for n ≤ 80: do not change it).
func pow10(n int) *big.Int {
	if n < len(pows) {
		return pows[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
