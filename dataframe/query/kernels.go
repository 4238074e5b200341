package query

import (
	"math"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
)

// Vectorised kernels: each takes whole arrays of one batch (already cast to
// a common type by the compiler) and returns a new array.

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// arith computes a op b for +, -, *, % (and / on floats). Integer overflow
// wraps as in Spark with ANSI mode off; % and / by zero give NULL.
func arith[T number](mem memory.Allocator, dt arrow.DataType, op string, a, b arrow.Array) arrow.Array {
	n := a.Len()
	av, bv := fixedValues[T](a), fixedValues[T](b)
	buf, out := allocFixed[T](mem, n)
	valid := andValidity(mem, n, a, b)
	switch op {
	case "+":
		for i := range out {
			out[i] = av[i] + bv[i]
		}
	case "-":
		for i := range out {
			out[i] = av[i] - bv[i]
		}
	case "*":
		for i := range out {
			out[i] = av[i] * bv[i]
		}
	case "/", "%":
		isFloat := dt.ID() == arrow.FLOAT64 || dt.ID() == arrow.FLOAT32
		for i := range out {
			if bv[i] == 0 {
				if valid == nil {
					valid = newValidity(mem, n)
				}
				bitutil.ClearBit(valid.Bytes(), i)
				continue
			}
			switch {
			case op == "/":
				out[i] = av[i] / bv[i]
			case isFloat:
				out[i] = T(math.Mod(float64(av[i]), float64(bv[i])))
			default:
				out[i] = intMod(av[i], bv[i])
			}
		}
	}
	return fixedArray(dt, n, valid, buf)
}

// intMod is Java's % (the sign of the dividend); -1 is special-cased so
// that MinInt % -1 does not trap.
func intMod[T number](a, b T) T {
	if b == -1 {
		return 0
	}
	switch x := any(a).(type) {
	case int8:
		return T(x % int8(b))
	case int16:
		return T(x % int16(b))
	case int32:
		return T(x % int32(b))
	case int64:
		return T(x % int64(b))
	}
	return 0
}

// negate is -a.
func negate[T number](mem memory.Allocator, dt arrow.DataType, a arrow.Array) arrow.Array {
	av := fixedValues[T](a)
	buf, out := allocFixed[T](mem, a.Len())
	for i := range out {
		out[i] = -av[i]
	}
	return fixedArray(dt, a.Len(), andValidity(mem, a.Len(), a), buf)
}

// cmpResult turns a three-way comparison into the operator's answer.
func cmpResult(op string, c int) bool {
	switch op {
	case "=", "==", "<=>":
		return c == 0
	case "!=", "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	default: // ">="
		return c >= 0
	}
}

// boolArray makes a boolean array of n results, valid where valid says.
func boolArray(mem memory.Allocator, n int, valid *memory.Buffer, set func(i int) bool) arrow.Array {
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(n))))
	b := bits.Bytes()
	for i := 0; i < n; i++ {
		if set(i) {
			bitutil.SetBit(b, i)
		}
	}
	return fixedArray(arrow.FixedWidthTypes.Boolean, n, valid, bits)
}

func cmpOrdered[T number](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	// NaN: Spark orders NaN above every other value and equal to itself.
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// compareArrays evaluates a op b for two arrays of the same comparable
// type. <=> (null-safe equality) is never NULL.
func compareArrays(mem memory.Allocator, op string, a, b arrow.Array) arrow.Array {
	n := a.Len()
	var valid *memory.Buffer
	if op != "<=>" {
		valid = andValidity(mem, n, a, b)
	}
	c := comparer(a, b)
	if op == "<=>" {
		return boolArray(mem, n, nil, func(i int) bool {
			an, bn := isNullAt(a, i), isNullAt(b, i)
			if an || bn {
				return an && bn
			}
			return c(i, i) == 0
		})
	}
	return boolArray(mem, n, valid, func(i int) bool { return cmpResult(op, c(i, i)) })
}

// comparer orders element i of a against element j of b (same type, both
// valid).
func comparer(a, b arrow.Array) func(i, j int) int {
	switch a.DataType().ID() {
	case arrow.INT8:
		return fixedCmp[int8](a, b)
	case arrow.INT16:
		return fixedCmp[int16](a, b)
	case arrow.INT32, arrow.DATE32, arrow.INTERVAL_MONTHS:
		return fixedCmp[int32](a, b)
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		return fixedCmp[int64](a, b)
	case arrow.FLOAT32:
		return fixedCmp[float32](a, b)
	case arrow.FLOAT64:
		return fixedCmp[float64](a, b)
	case arrow.BOOL:
		x, y := a.(*array.Boolean), b.(*array.Boolean)
		return func(i, j int) int {
			p, q := x.Value(i), y.Value(j)
			switch {
			case p == q:
				return 0
			case !p:
				return -1
			}
			return 1
		}
	case arrow.STRING:
		x, y := a.(*array.String), b.(*array.String)
		return func(i, j int) int { return strings.Compare(x.Value(i), y.Value(j)) }
	case arrow.LARGE_STRING:
		x, y := a.(*array.LargeString), b.(*array.LargeString)
		return func(i, j int) int { return strings.Compare(x.Value(i), y.Value(j)) }
	case arrow.BINARY:
		x, y := a.(*array.Binary), b.(*array.Binary)
		return func(i, j int) int { return strings.Compare(x.ValueString(i), y.ValueString(j)) }
	case arrow.DECIMAL128:
		x, y := a.(*array.Decimal128), b.(*array.Decimal128)
		return func(i, j int) int { return x.Value(i).Cmp(y.Value(j)) }
	}
	if c := nestedComparer(a, b); c != nil {
		return c // structs and arrays: Spark's order
	}
	// Maps compare by their JSON text: equal values are equal, which is
	// what DISTINCT, GROUP BY and joins need of them.
	return func(i, j int) int {
		return strings.Compare(string(dataframe.AppendJSONValue(nil, a, i)), string(dataframe.AppendJSONValue(nil, b, j)))
	}
}

func fixedCmp[T number](a, b arrow.Array) func(i, j int) int {
	av, bv := fixedValues[T](a), fixedValues[T](b)
	return func(i, j int) int { return cmpOrdered(av[i], bv[j]) }
}

// truthAt is element i of a boolean array as three-valued logic: -1 NULL,
// 0 false, 1 true.
func truthAt(a *array.Boolean, i int) int8 {
	if a.IsNull(i) {
		return -1
	}
	if a.Value(i) {
		return 1
	}
	return 0
}

// andOr is SQL's three-valued AND (absorbing false) or OR (absorbing true).
func andOr(mem memory.Allocator, isAnd bool, a, b *array.Boolean) arrow.Array {
	n := a.Len()
	absorb := int8(0)
	if !isAnd {
		absorb = 1
	}
	valid := newValidity(mem, n)
	vb := valid.Bytes()
	return boolArray(mem, n, valid, func(i int) bool {
		x, y := truthAt(a, i), truthAt(b, i)
		switch {
		case x == absorb || y == absorb:
			return absorb == 1
		case x == -1 || y == -1:
			bitutil.ClearBit(vb, i)
			return false
		}
		return absorb == 0
	})
}

// notArray is three-valued NOT.
func notArray(mem memory.Allocator, a *array.Boolean) arrow.Array {
	return boolArray(mem, a.Len(), andValidity(mem, a.Len(), a), func(i int) bool { return !a.Value(i) })
}

// isNullArray is x IS NULL (or IS NOT NULL).
func isNullArray(mem memory.Allocator, a arrow.Array, not bool) arrow.Array {
	return boolArray(mem, a.Len(), nil, func(i int) bool { return isNullAt(a, i) != not })
}

// concatStrings is a || b over strings.
func concatStrings(mem memory.Allocator, a, b *array.String) arrow.Array {
	n := a.Len()
	bld := array.NewStringBuilder(mem)
	defer bld.Release()
	bld.Reserve(n)
	bld.ReserveData(len(a.ValueBytes()) + len(b.ValueBytes()))
	for i := 0; i < n; i++ {
		if a.IsNull(i) || b.IsNull(i) {
			bld.AppendNull()
			continue
		}
		bld.Append(a.Value(i) + b.Value(i))
	}
	return bld.NewArray()
}

// bitwise computes a op b for & | ^, the shifts << >> >>> (b an int32
// count, taken modulo the width as Java does) and ~ (of a; b is a again).
func bitwise[T int8 | int16 | int32 | int64](mem memory.Allocator, dt arrow.DataType, op string, a, b arrow.Array) arrow.Array {
	n := a.Len()
	av := fixedValues[T](a)
	buf, out := allocFixed[T](mem, n)
	valid := andValidity(mem, n, a, b)
	var width uint
	switch any(T(0)).(type) {
	case int64:
		width = 64
	default:
		width = 32
	}
	switch op {
	case "~":
		for i := range out {
			out[i] = ^av[i]
		}
	case "<<", ">>", ">>>":
		bv := fixedValues[int32](b)
		for i := range out {
			s := uint(bv[i]) & (width - 1)
			switch op {
			case "<<":
				out[i] = av[i] << s
			case ">>":
				out[i] = av[i] >> s
			default:
				if width == 64 {
					out[i] = T(uint64(av[i]) >> s)
				} else {
					out[i] = T(int32(uint32(int32(av[i])) >> s))
				}
			}
		}
	default:
		bv := fixedValues[T](b)
		for i := range out {
			switch op {
			case "&":
				out[i] = av[i] & bv[i]
			case "|":
				out[i] = av[i] | bv[i]
			default:
				out[i] = av[i] ^ bv[i]
			}
		}
	}
	return fixedArray(dt, n, valid, buf)
}
