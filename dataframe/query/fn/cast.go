package fn

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/compute"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Cast converts arr to type to with Spark's CAST semantics under
// spark.sql.ansi.enabled=false: a value that does not convert becomes NULL
// rather than an error (see docs/sql-functions.md#cast). Timestamps read
// and print in UTC here; the executor and the functions cast with
// Ctx.Cast, in the session time zone, for CAST(x AS t), implicit casts and
// their own. The caller releases the result (arr itself, retained, when no
// conversion is needed).
//
// An error means the conversion between the two types does not exist in
// Spark (array to long); its message names both types.
func Cast(mem memory.Allocator, arr arrow.Array, to arrow.DataType) (arrow.Array, error) {
	return castIn(mem, arr, to, time.UTC)
}

// castIn is Cast with session time zone loc.
func castIn(mem memory.Allocator, arr arrow.Array, to arrow.DataType, loc *time.Location) (arrow.Array, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	from := arr.DataType()
	if from != to && from.ID() == to.ID() && sparktype.IsInterval(to) {
		// Arrow's types are equal, Spark's fields differ
		// (docs/sql.md#intervals).
		return castToInterval(mem, arr, to)
	}
	if arrow.TypeEqual(from, to) {
		arr.Retain()
		return arr, nil
	}
	if from.ID() == arrow.NULL {
		return NullArray(mem, to, arr.Len()), nil
	}
	if plain, err := plainForm(mem, arr); err != nil || plain != nil {
		if err != nil {
			return nil, err
		}
		defer plain.Release()
		return castIn(mem, plain, to, loc)
	}
	if !CanCast(from, to) {
		return nil, fmt.Errorf("cannot cast %s to %s", sparktype.Name(from), sparktype.Name(to))
	}
	switch to.ID() {
	case arrow.STRING:
		return castToString(mem, arr, loc), nil
	case arrow.BINARY:
		return castToBinary(mem, arr), nil
	case arrow.BOOL:
		return castToBool(mem, arr), nil
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return castToInt(mem, arr, to), nil
	case arrow.FLOAT32, arrow.FLOAT64:
		return castToFloat(mem, arr, to), nil
	case arrow.DECIMAL128:
		return castToDecimal(mem, arr, to.(*arrow.Decimal128Type)), nil
	case arrow.TIMESTAMP:
		return castToTimestamp(mem, arr, to.(*arrow.TimestampType), loc), nil
	case arrow.DATE32:
		return castToDate(mem, arr, loc), nil
	case arrow.LIST:
		return castList(mem, arr.(*array.List), to.(*arrow.ListType), loc)
	case arrow.STRUCT:
		return castStruct(mem, arr.(*array.Struct), to.(*arrow.StructType), loc)
	case arrow.MAP:
		return castMap(mem, arr.(*array.Map), to.(*arrow.MapType), loc)
	case arrow.DURATION, arrow.INTERVAL_MONTHS:
		return castToInterval(mem, arr, to)
	}
	return nil, fmt.Errorf("cannot cast %s to %s", sparktype.Name(from), sparktype.Name(to))
}

// plainForm turns the encodings Arrow has for one Spark type into the one
// the casts handle: large strings and string views into strings,
// dictionaries into their values. It returns nil for an array already plain.
func plainForm(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	switch a := arr.(type) {
	case *array.LargeString, *array.StringView:
		return castToString(mem, arr, time.UTC), nil
	case *array.Dictionary:
		return compute.TakeArray(compute.WithAllocator(context.Background(), mem), a.Dictionary(), a.Indices())
	}
	return nil, nil
}

// CanCast reports whether Spark (ansi off) has a CAST from one type to the
// other; Cast fails exactly when it does not.
func CanCast(from, to arrow.DataType) bool {
	if arrow.TypeEqual(from, to) || from.ID() == arrow.NULL {
		return true
	}
	switch from.ID() {
	case arrow.LARGE_STRING, arrow.STRING_VIEW:
		return CanCast(arrow.BinaryTypes.String, to)
	case arrow.DICTIONARY:
		return CanCast(from.(*arrow.DictionaryType).ValueType, to)
	}
	switch to.ID() {
	case arrow.STRING:
		return castableScalar(from) || isComplex(from) || sparktype.IsInterval(from)
	case arrow.DURATION, arrow.INTERVAL_MONTHS:
		return from.ID() == arrow.STRING || from.ID() == to.ID()
	case arrow.BINARY:
		return from.ID() == arrow.STRING || isInteger(from)
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
		return castableScalar(from) && from.ID() != arrow.BINARY
	case arrow.TIMESTAMP:
		return castableScalar(from) && from.ID() != arrow.BINARY
	case arrow.DATE32:
		switch from.ID() {
		case arrow.STRING, arrow.TIMESTAMP, arrow.DATE32:
			return true
		}
		return false
	case arrow.LIST:
		f, ok := from.(*arrow.ListType)
		return ok && CanCast(f.Elem(), to.(*arrow.ListType).Elem())
	case arrow.STRUCT:
		f, ok := from.(*arrow.StructType)
		t := to.(*arrow.StructType)
		if !ok || f.NumFields() != t.NumFields() {
			return false
		}
		for i := range f.Fields() {
			if !CanCast(f.Field(i).Type, t.Field(i).Type) {
				return false
			}
		}
		return true
	case arrow.MAP:
		f, ok := from.(*arrow.MapType)
		t := to.(*arrow.MapType)
		return ok && CanCast(f.KeyType(), t.KeyType()) && CanCast(f.ItemType(), t.ItemType())
	}
	return false
}

func castableScalar(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.TIMESTAMP, arrow.DATE32:
		return true
	}
	return false
}

func isComplex(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.STRUCT, arrow.MAP:
		return true
	}
	return false
}

func isInteger(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

// IntValue is value i of an integer array of any width.
func IntValue(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int8:
		return int64(a.Value(i))
	}
	panic(fmt.Sprintf("fn: intValue of %s", arr.DataType()))
}

// FloatValue is value i of a float32 or float64 array.
func FloatValue(arr arrow.Array, i int) float64 {
	if a, ok := arr.(*array.Float64); ok {
		return a.Value(i)
	}
	return float64(arr.(*array.Float32).Value(i))
}

// TimestampMicros is value i of a timestamp array as microseconds since the
// epoch, Spark's own resolution, whatever the array's unit.
func TimestampMicros(a *array.Timestamp, i int) int64 {
	return toMicros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
}

func toMicros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1_000_000
	case arrow.Millisecond:
		return v * 1_000
	case arrow.Nanosecond:
		return floorDiv(v, 1_000)
	}
	return v
}

// FromMicros converts microseconds to unit, flooring toward the past.
func FromMicros(us int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return floorDiv(us, 1_000_000)
	case arrow.Millisecond:
		return floorDiv(us, 1_000)
	case arrow.Nanosecond:
		return us * 1_000
	}
	return us
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

const microsPerDay = 86_400_000_000

// javaD2L is Java's (long) d: saturating, NaN → 0, as Spark's non-ANSI cast.
func javaD2L(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// javaD2I is Java's (int) d.
func javaD2I(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(int32(f))
}

// wrapInt narrows v to the integer type's width the way Java's narrowing
// conversions do (keeping the low bits).
func wrapInt(v int64, id arrow.Type) int64 {
	switch id {
	case arrow.INT32:
		return int64(int32(v))
	case arrow.INT16:
		return int64(int16(v))
	case arrow.INT8:
		return int64(int8(v))
	}
	return v
}

func buildInts(mem memory.Allocator, to arrow.DataType, vals []int64, valid []bool) arrow.Array {
	b := array.NewBuilder(mem, to)
	defer b.Release()
	b.Reserve(len(vals))
	switch x := b.(type) {
	case *array.Int64Builder:
		x.AppendValues(vals, valid)
	case *array.Int32Builder:
		appendNarrow(x, vals, valid)
	case *array.Int16Builder:
		appendNarrow(x, vals, valid)
	case *array.Int8Builder:
		appendNarrow(x, vals, valid)
	}
	return b.NewArray()
}

// appendNarrow appends vals (already in range) to a narrower integer builder.
func appendNarrow[T int8 | int16 | int32](b interface {
	UnsafeAppend(T)
	UnsafeAppendBoolToBitmap(bool)
}, vals []int64, valid []bool) {
	for i, v := range vals {
		if valid[i] {
			b.UnsafeAppend(T(v))
		} else {
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
}

func castToInt(mem memory.Allocator, arr arrow.Array, to arrow.DataType) arrow.Array {
	n := arr.Len()
	vals := make([]int64, n)
	valid := make([]bool, n)
	id := to.ID()
	switch a := arr.(type) {
	case *array.String:
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				continue
			}
			vals[i], valid[i] = parseSparkInt(a.Value(i), id)
		}
		return buildInts(mem, to, vals, valid)
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if valid[i] = a.IsValid(i); valid[i] && a.Value(i) {
				vals[i] = 1
			}
		}
		return buildInts(mem, to, vals, valid)
	case *array.Float32, *array.Float64:
		for i := 0; i < n; i++ {
			if valid[i] = arr.IsValid(i); valid[i] {
				f := FloatValue(arr, i)
				if id == arrow.INT64 {
					vals[i] = javaD2L(f)
				} else {
					vals[i] = wrapInt(javaD2I(f), id)
				}
			}
		}
		return buildInts(mem, to, vals, valid)
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		for i := 0; i < n; i++ {
			if valid[i] = a.IsValid(i); valid[i] {
				q := a.Value(i).ReduceScaleBy(scale, false)
				vals[i] = wrapInt(int64(q.LowBits()), id)
			}
		}
		return buildInts(mem, to, vals, valid)
	case *array.Timestamp:
		for i := 0; i < n; i++ {
			if valid[i] = a.IsValid(i); valid[i] {
				vals[i] = wrapInt(floorDiv(TimestampMicros(a, i), 1_000_000), id)
			}
		}
		return buildInts(mem, to, vals, valid)
	case *array.Date32:
		// Spark (ansi off) casts a date to a number as NULL.
		return NullArray(mem, to, n)
	}
	for i := 0; i < n; i++ {
		if valid[i] = arr.IsValid(i); valid[i] {
			vals[i] = wrapInt(IntValue(arr, i), id)
		}
	}
	return buildInts(mem, to, vals, valid)
}

func castToFloat(mem memory.Allocator, arr arrow.Array, to arrow.DataType) arrow.Array {
	n := arr.Len()
	vals := make([]float64, n)
	valid := make([]bool, n)
	single := to.ID() == arrow.FLOAT32
	switch a := arr.(type) {
	case *array.String:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				vals[i], valid[i] = parseSparkDouble(a.Value(i), single)
			}
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if valid[i] = a.IsValid(i); valid[i] && a.Value(i) {
				vals[i] = 1
			}
		}
	case *array.Float32, *array.Float64:
		for i := 0; i < n; i++ {
			if valid[i] = arr.IsValid(i); valid[i] {
				vals[i] = FloatValue(arr, i)
			}
		}
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		for i := 0; i < n; i++ {
			if valid[i] = a.IsValid(i); valid[i] {
				vals[i] = a.Value(i).ToFloat64(scale)
			}
		}
	case *array.Timestamp:
		for i := 0; i < n; i++ {
			if valid[i] = a.IsValid(i); valid[i] {
				vals[i] = float64(TimestampMicros(a, i)) / 1e6
			}
		}
	case *array.Date32:
		return NullArray(mem, to, n)
	default:
		for i := 0; i < n; i++ {
			if valid[i] = arr.IsValid(i); valid[i] {
				vals[i] = float64(IntValue(arr, i))
			}
		}
	}
	if single {
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i, v := range vals {
			if valid[i] {
				b.UnsafeAppend(float32(v))
			} else {
				b.UnsafeAppendBoolToBitmap(false)
			}
		}
		return b.NewArray()
	}
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func castToBool(mem memory.Allocator, arr arrow.Array) arrow.Array {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	appendEach(b, arr, func(i int) (bool, bool) {
		switch a := arr.(type) {
		case *array.String:
			return parseSparkBool(a.Value(i))
		case *array.Float32, *array.Float64:
			return FloatValue(arr, i) != 0, true
		case *array.Decimal128:
			return a.Value(i).Sign() != 0, true
		case *array.Timestamp:
			return a.Value(i) != 0, true
		case *array.Date32:
			return false, false
		}
		return IntValue(arr, i) != 0, true
	})
	return b.NewArray()
}

// appendEach appends one value per row of arr to b: NULL where arr is NULL
// or f reports false, else f's value.
func appendEach[T any](b interface {
	Reserve(int)
	UnsafeAppend(T)
	UnsafeAppendBoolToBitmap(bool)
}, arr arrow.Array, f func(i int) (T, bool)) {
	n := arr.Len()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		if v, ok := f(i); ok {
			b.UnsafeAppend(v)
		} else {
			b.UnsafeAppendBoolToBitmap(false)
		}
	}
}

func castToDecimal(mem memory.Allocator, arr arrow.Array, to *arrow.Decimal128Type) arrow.Array {
	b := array.NewDecimal128Builder(mem, to)
	defer b.Release()
	appendEach(b, arr, func(i int) (decimal128.Num, bool) {
		switch a := arr.(type) {
		case *array.String:
			return ParseDecimal(a.Value(i), to.Precision, to.Scale)
		case *array.Boolean:
			if a.Value(i) {
				return rescaleDecimal(decimal128.FromI64(1), 0, to.Precision, to.Scale)
			}
			return decimal128.Num{}, true
		case *array.Float32, *array.Float64:
			return floatToDecimal(FloatValue(arr, i), to.Precision, to.Scale)
		case *array.Decimal128:
			return rescaleDecimal(a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale, to.Precision, to.Scale)
		case *array.Timestamp:
			return rescaleDecimal(decimal128.FromI64(TimestampMicros(a, i)), 6, to.Precision, to.Scale)
		case *array.Date32:
			return decimal128.Num{}, false
		}
		return rescaleDecimal(decimal128.FromI64(IntValue(arr, i)), 0, to.Precision, to.Scale)
	})
	return b.NewArray()
}

// rescaleDecimal changes v from scale from to scale s rounding HALF_UP, and
// reports false when the result does not fit precision p (Spark's
// changePrecision, which makes the cast NULL).
func rescaleDecimal(v decimal128.Num, from, p, s int32) (decimal128.Num, bool) {
	switch {
	case s > from:
		if s-from > 38 {
			return v, v.Sign() == 0
		}
		bi := v.BigInt()
		bi.Mul(bi, decimal128.GetScaleMultiplier(int(s-from)).BigInt())
		if bi.BitLen() > 127 {
			return v, false
		}
		v = decimal128.FromBigInt(bi)
	case s < from:
		v = v.ReduceScaleBy(from-s, true)
	}
	return v, v.FitsInPrecision(p)
}

func floatToDecimal(f float64, p, s int32) (decimal128.Num, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal128.Num{}, false
	}
	// Spark goes through BigDecimal(d), which takes Double.toString's
	// shortest decimal digits: 0.1 is 0.1, not 0.1000000000000000055….
	return ParseDecimal(string(formatJavaDouble(nil, f, 64)), p, s)
}

// bigDecimal parses a Java BigDecimal literal ("-1.5", "1e3", ".5") into an
// unscaled integer and a scale.
func bigDecimal(s string) (*big.Int, int32, bool) {
	if s == "" {
		return nil, 0, false
	}
	mant, exp := s, int64(0)
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			mant = s[:i]
			e := s[i+1:]
			if len(e) > 0 && e[0] == '+' {
				e = e[1:]
			}
			var ok bool
			if exp, ok = parseDigitsInt(e); !ok {
				return nil, 0, false
			}
			break
		}
	}
	neg := false
	if len(mant) > 0 && (mant[0] == '+' || mant[0] == '-') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	digits := make([]byte, 0, len(mant))
	scale := int64(0)
	seenDot := false
	for i := 0; i < len(mant); i++ {
		c := mant[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			if seenDot {
				scale++
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			return nil, 0, false
		}
	}
	if len(digits) == 0 {
		return nil, 0, false
	}
	scale -= exp
	if scale > math.MaxInt32/2 || scale < math.MinInt32/2 {
		return nil, 0, false
	}
	bi, _ := new(big.Int).SetString(string(digits), 10)
	if neg {
		bi.Neg(bi)
	}
	return bi, int32(scale), true
}

// parseDigitsInt parses an optionally negative decimal integer of at most 9
// digits (a BigDecimal exponent).
func parseDigitsInt(s string) (int64, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if s == "" || len(s) > 9 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// ParseDecimal is Spark's string → decimal(p,s): a trimmed BigDecimal
// literal rounded HALF_UP to scale s; NULL (false) when it does not parse
// or does not fit.
func ParseDecimal(str string, p, s int32) (decimal128.Num, bool) {
	bi, scale, ok := bigDecimal(trimSpaceControl(str))
	if !ok {
		return decimal128.Num{}, false
	}
	return roundBig(bi, scale, p, s)
}

// roundBig rounds unscaled/10^scale HALF_UP to scale s and checks precision p.
func roundBig(bi *big.Int, scale, p, s int32) (decimal128.Num, bool) {
	switch {
	case s > scale:
		if s-scale > 76 {
			return decimal128.Num{}, bi.Sign() == 0
		}
		bi.Mul(bi, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-scale)), nil))
	case s < scale:
		d := int64(scale - s)
		if d > 80 {
			return decimal128.Num{}, true
		}
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(d), nil)
		q, r := new(big.Int).QuoRem(bi, div, new(big.Int))
		r.Abs(r).Lsh(r, 1)
		if r.Cmp(div) >= 0 {
			q.Add(q, big.NewInt(int64(bi.Sign())))
		}
		bi = q
	}
	if bi.BitLen() > 127 {
		return decimal128.Num{}, false
	}
	v := decimal128.FromBigInt(bi)
	return v, v.FitsInPrecision(p)
}

func castToTimestamp(mem memory.Allocator, arr arrow.Array, to *arrow.TimestampType, loc *time.Location) arrow.Array {
	b := array.NewTimestampBuilder(mem, to)
	defer b.Release()
	toNTZ := to.TimeZone == ""
	from, isTS := arr.(*array.Timestamp)
	fromNTZ := isTS && from.DataType().(*arrow.TimestampType).TimeZone == ""
	appendEach(b, arr, func(i int) (arrow.Timestamp, bool) {
		var us int64
		ok := true
		switch {
		case isTS && fromNTZ == toNTZ:
			us = TimestampMicros(from, i)
		case isTS && toNTZ: // an instant's wall-clock time in the session zone
			us = sparktype.WallMicros(TimestampMicros(from, i), loc)
		case isTS: // a wall-clock time in the session zone
			us = sparktype.FromWallMicros(TimestampMicros(from, i), loc)
		case toNTZ: // text and dates are the wall-clock time itself
			us, ok = timestampMicrosOf(arr, i, time.UTC)
		default:
			us, ok = timestampMicrosOf(arr, i, loc)
		}
		return arrow.Timestamp(FromMicros(us, to.Unit)), ok
	})
	return b.NewArray()
}

// timestampMicrosOf is Spark's cast of the valid value i to a timestamp, in
// microseconds: numbers are seconds since the epoch; text and dates are
// wall-clock times in loc.
func timestampMicrosOf(arr arrow.Array, i int, loc *time.Location) (int64, bool) {
	switch a := arr.(type) {
	case *array.String:
		return ParseTimestamp(a.Value(i), loc)
	case *array.Boolean:
		if a.Value(i) {
			return 1, true
		}
		return 0, true
	case *array.Float32, *array.Float64:
		f := FloatValue(arr, i)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return javaD2L(f * 1e6), true
	case *array.Decimal128:
		v, fits := rescaleDecimal(a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale, 38, 6)
		return int64(v.LowBits()), fits
	case *array.Timestamp:
		return TimestampMicros(a, i), true
	case *array.Date32:
		return sparktype.FromWallMicros(int64(a.Value(i))*microsPerDay, loc), true
	}
	v := IntValue(arr, i)
	switch {
	case v > math.MaxInt64/1_000_000:
		return math.MaxInt64, true
	case v < math.MinInt64/1_000_000:
		return math.MinInt64, true
	}
	return v * 1_000_000, true
}

func castToDate(mem memory.Allocator, arr arrow.Array, loc *time.Location) arrow.Array {
	b := array.NewDate32Builder(mem)
	defer b.Release()
	if ts, ok := arr.(*array.Timestamp); ok && ts.DataType().(*arrow.TimestampType).TimeZone == "" {
		loc = time.UTC // timestamp_ntz: the day of its own wall-clock time
	}
	appendEach(b, arr, func(i int) (arrow.Date32, bool) {
		if a, ok := arr.(*array.String); ok {
			d, ok := ParseDate(a.Value(i))
			return arrow.Date32(d), ok
		}
		// The day of the instant in the session time zone.
		return arrow.Date32(floorDiv(sparktype.WallMicros(TimestampMicros(arr.(*array.Timestamp), i), loc), microsPerDay)), true
	})
	return b.NewArray()
}

func castToBinary(mem memory.Allocator, arr arrow.Array) arrow.Array {
	n := arr.Len()
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	b.Reserve(n)
	var scratch []byte
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		if s, ok := arr.(*array.String); ok {
			b.AppendString(s.Value(i))
			continue
		}
		// Spark casts an integer to its big-endian bytes at its width.
		v := IntValue(arr, i)
		width := arr.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
		scratch = scratch[:0]
		for k := width - 1; k >= 0; k-- {
			scratch = append(scratch, byte(v>>(8*k)))
		}
		b.Append(scratch)
	}
	return b.NewArray()
}

func castToString(mem memory.Allocator, arr arrow.Array, loc *time.Location) arrow.Array {
	n := arr.Len()
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	var buf []byte
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		buf = AppendSparkString(buf[:0], arr, i, loc)
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

func castList(mem memory.Allocator, arr *array.List, to *arrow.ListType, loc *time.Location) (arrow.Array, error) {
	vals := arr.ListValues()
	elems, err := castIn(mem, vals, to.Elem(), loc)
	if err != nil {
		return nil, err
	}
	defer elems.Release()
	d := arr.Data()
	out := array.NewData(to, d.Len(), []*memory.Buffer{d.Buffers()[0], d.Buffers()[1]},
		[]arrow.ArrayData{elems.Data()}, d.NullN(), d.Offset())
	defer out.Release()
	return array.MakeFromData(out), nil
}

func castStruct(mem memory.Allocator, arr *array.Struct, to *arrow.StructType, loc *time.Location) (arrow.Array, error) {
	d := arr.Data()
	children := make([]arrow.ArrayData, arr.NumField())
	for i := range children {
		// Cast the unsliced child and keep the struct's offset: Field(i)
		// is already sliced.
		raw := array.MakeFromData(d.Children()[i])
		c, err := castIn(mem, raw, to.Field(i).Type, loc)
		raw.Release()
		if err != nil {
			for _, done := range children[:i] {
				done.Release()
			}
			return nil, err
		}
		children[i] = c.Data()
		children[i].Retain()
		c.Release()
	}
	out := array.NewData(to, d.Len(), []*memory.Buffer{d.Buffers()[0]}, children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	defer out.Release()
	return array.MakeFromData(out), nil
}

func castMap(mem memory.Allocator, arr *array.Map, to *arrow.MapType, loc *time.Location) (arrow.Array, error) {
	keys, err := castIn(mem, arr.Keys(), to.KeyType(), loc)
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	items, err := castIn(mem, arr.Items(), to.ItemType(), loc)
	if err != nil {
		return nil, err
	}
	defer items.Release()
	entries := array.NewData(to.Elem(), keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), items.Data()}, 0, 0)
	defer entries.Release()
	d := arr.Data()
	out := array.NewData(to, d.Len(), []*memory.Buffer{d.Buffers()[0], d.Buffers()[1]}, []arrow.ArrayData{entries}, d.NullN(), d.Offset())
	defer out.Release()
	return array.MakeFromData(out), nil
}

// NullArray is an array of n NULLs of type dt, nested types with NULL-typed
// (void) parts included, which Arrow's MakeArrayOfNull cannot build.
func NullArray(mem memory.Allocator, dt arrow.DataType, n int) arrow.Array {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if !hasVoid(dt) {
		return array.MakeArrayOfNull(mem, dt, n)
	}
	if dt.ID() == arrow.NULL {
		return array.NewNull(n)
	}
	bitmap := memory.NewResizableBuffer(mem)
	bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(bitmap.Bytes())
	defer bitmap.Release()
	var buffers []*memory.Buffer
	var children []arrow.ArrayData
	switch t := dt.(type) {
	case *arrow.StructType:
		buffers = []*memory.Buffer{bitmap}
		for _, f := range t.Fields() {
			c := NullArray(mem, f.Type, n)
			defer c.Release()
			children = append(children, c.Data())
		}
	case arrow.ListLikeType:
		offs := memory.NewResizableBuffer(mem)
		offs.Resize((n + 1) * arrow.Int32SizeBytes)
		clear(offs.Bytes())
		defer offs.Release()
		buffers = []*memory.Buffer{bitmap, offs}
		var child arrow.DataType = t.Elem()
		if m, ok := dt.(*arrow.MapType); ok {
			child = m.Elem()
		}
		c := NullArray(mem, child, 0)
		defer c.Release()
		children = []arrow.ArrayData{c.Data()}
	default:
		return array.MakeArrayOfNull(mem, dt, n)
	}
	data := array.NewData(dt, n, buffers, children, n, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func hasVoid(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.NullType:
		return true
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if hasVoid(f.Type) {
				return true
			}
		}
	case *arrow.MapType:
		return hasVoid(t.KeyType()) || hasVoid(t.ItemType())
	case arrow.ListLikeType:
		return hasVoid(t.Elem())
	}
	return false
}
