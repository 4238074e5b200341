package query

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// count_min_sketch(x, eps, confidence, seed) (docs/sql.md#aggregates):
// Spark's CountMinSketchAgg, byte for byte. The sketch has
// width ⌈2/eps⌉ and depth ⌈−ln(1−confidence)/ln 2⌉; row i of the table
// hashes with a multiplier drawn from java.util.Random(seed). An integral
// value goes to bucket ((m·v + (m·v >> 32)) & (2³¹−1)) mod width of each
// row; a string's UTF-8 bytes or a binary value to
// |(h1 + i·h2) mod width| with h1, h2 Spark's Murmur3 of the bytes (seed 0,
// then h1). The result is CountMinSketch.writeTo's serialization:
// version 1, the total count, depth, width, the multipliers and the table,
// big-endian. NULLs are skipped; a group without a value is the empty
// sketch, never NULL.

func init() {
	aggDefs["count_min_sketch"] = &aggDef{bind: bindCountMinSketch, acc: func(c *aggCall) accumulator {
		return &sketchAcc{depth: c.sketch.depth, width: c.sketch.width, hashA: c.sketch.hashA}
	}}
}

// sketchShape is the constant shape of a count_min_sketch call.
type sketchShape struct {
	depth, width int
	hashA        []int64
}

// bindCountMinSketch: count_min_sketch(integral|string|binary, double,
// double, int) → binary; the last three are constants.
func bindCountMinSketch(r *exprResolver, c *aggCall, x *Call) error {
	if err := arity(x, c.args, 4, 4); err != nil {
		return err
	}
	t := plainType(c.args[0].Type())
	switch {
	case isNull(t):
		var err error
		if c.args[0], err = r.implicitCast(c.args[0], tInt, x.Args[0]); err != nil {
			return err
		}
	case isIntegral(t), isString(t), isBinary(t):
	default:
		return errorf(x.Args[0].Position(), "%s: count_min_sketch needs an integral number, a string or binary, got %s", x, typeName(c.args[0].Type()))
	}
	var consts [3]float64
	for k, what := range []string{"the relative error (eps)", "the confidence", "the seed"} {
		lit, ok := c.args[k+1].(*rLit)
		f, isNum := 0.0, false
		if ok && lit.v != nil {
			f, isNum = literalFloat(lit)
		}
		if !isNum {
			return errorf(x.Args[k+1].Position(), "%s: %s must be a numeric constant, got %s", x, what, c.args[k+1].sql())
		}
		consts[k] = f
	}
	eps, confidence, seed := consts[0], consts[1], consts[2]
	if !(eps > 0) {
		return errorf(x.Args[1].Position(), "%s: the relative error must be positive, got %v", x, eps)
	}
	if !(confidence > 0 && confidence < 1) {
		return errorf(x.Args[2].Position(), "%s: the confidence must be within (0.0, 1.0), got %v", x, confidence)
	}
	if !isIntegral(plainType(c.args[3].Type())) || seed != math.Trunc(seed) || seed < math.MinInt32 || seed > math.MaxInt32 {
		return errorf(x.Args[3].Position(), "%s: the seed must be an int constant, got %s", x, c.args[3].sql())
	}
	width := int(math.Ceil(2 / eps))
	depth := int(math.Ceil(-math.Log(1-confidence) / math.Log(2)))
	if width <= 0 || depth <= 0 || int64(width)*int64(depth) > 1<<24 {
		return errorf(x.Pos, "%s: a sketch of depth %d and width %d is too large", x, depth, width)
	}
	rnd := newJavaRandom(int64(seed))
	hashA := make([]int64, depth)
	for i := range hashA {
		hashA[i] = int64(rnd.nextInt(math.MaxInt32))
	}
	c.sketch = &sketchShape{depth: depth, width: width, hashA: hashA}
	d := ""
	if c.distinct {
		d = "DISTINCT "
	}
	c.name = "count_min_sketch(" + d + c.args[0].sql() + ", " + c.args[1].sql() + ", " + c.args[2].sql() + ", " + c.args[3].sql() + ")"
	c.args = c.args[:1]
	c.typ = tBinary
	return nil
}

// sketchAcc holds each group's total count and table.
type sketchAcc struct {
	depth, width int
	hashA        []int64
	totals       []int64
	tables       [][]int64 // depth·width counts a group, nil until its first value
}

func (a *sketchAcc) update(gids []int32, groups int, args []arrow.Array, n int) error {
	a.totals, a.tables = growTo(a.totals, groups), growTo(a.tables, groups)
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return nil
	}
	bytesOf := sketchBytes(col)
	for i, g := range gids {
		if g < 0 || col.IsNull(i) {
			continue
		}
		t := a.tables[g]
		if t == nil {
			t = make([]int64, a.depth*a.width)
			a.tables[g] = t
		}
		if bytesOf == nil {
			v := fn.IntValue(col, i)
			for d := 0; d < a.depth; d++ {
				h := a.hashA[d] * v
				h += h >> 32
				h &= 1<<31 - 1
				t[d*a.width+int(int32(h))%a.width]++
			}
		} else {
			b := bytesOf(i)
			h1 := int32(sparkMurmur3Bytes(b, 0))
			h2 := int32(sparkMurmur3Bytes(b, uint32(h1)))
			for d := 0; d < a.depth; d++ {
				k := (h1 + int32(d)*h2) % int32(a.width)
				if k < 0 {
					k = -k
				}
				t[d*a.width+int(k)]++
			}
		}
		a.totals[g]++
	}
	return nil
}

// sketchBytes reads value i of a string or binary column as bytes; nil for
// an integral column.
func sketchBytes(col arrow.Array) func(i int) []byte {
	switch x := col.(type) {
	case *array.String:
		return func(i int) []byte { return []byte(x.Value(i)) }
	case *array.LargeString:
		return func(i int) []byte { return []byte(x.Value(i)) }
	case *array.StringView:
		return func(i int) []byte { return []byte(x.Value(i)) }
	case *array.Binary:
		return x.Value
	case *array.LargeBinary:
		return x.Value
	case *array.Dictionary:
		inner := sketchBytes(x.Dictionary())
		if inner == nil {
			return nil
		}
		return func(i int) []byte { return inner(x.GetValueIndex(i)) }
	}
	return nil
}

func (a *sketchAcc) result(mem memory.Allocator, groups int) (arrow.Array, error) {
	a.totals, a.tables = growTo(a.totals, groups), growTo(a.tables, groups)
	b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	size := 4 + 8 + 4 + 4 + 8*a.depth + 8*a.depth*a.width
	buf := make([]byte, 0, size)
	for g := 0; g < groups; g++ {
		buf = binary.BigEndian.AppendUint32(buf[:0], 1) // CountMinSketch.Version.V1
		buf = binary.BigEndian.AppendUint64(buf, uint64(a.totals[g]))
		buf = binary.BigEndian.AppendUint32(buf, uint32(a.depth))
		buf = binary.BigEndian.AppendUint32(buf, uint32(a.width))
		for _, h := range a.hashA {
			buf = binary.BigEndian.AppendUint64(buf, uint64(h))
		}
		t := a.tables[g]
		for k := 0; k < a.depth*a.width; k++ {
			var v int64
			if t != nil {
				v = t[k]
			}
			buf = binary.BigEndian.AppendUint64(buf, uint64(v))
		}
		b.Append(buf)
	}
	return b.NewArray(), nil
}

func (a *sketchAcc) release() {}

// sparkMurmur3Bytes is Spark's Murmur3_x86_32.hashUnsafeBytes: whole
// little-endian words, then each remaining byte, sign-extended, as a word
// of its own.
func sparkMurmur3Bytes(b []byte, seed uint32) uint32 {
	mixK1 := func(k uint32) uint32 {
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		return k * 0x1b873593
	}
	mixH1 := func(h, k uint32) uint32 {
		h ^= k
		h = bits.RotateLeft32(h, 13)
		return h*5 + 0xe6546b64
	}
	h := seed
	aligned := len(b) - len(b)%4
	for k := 0; k < aligned; k += 4 {
		h = mixH1(h, mixK1(binary.LittleEndian.Uint32(b[k:])))
	}
	for k := aligned; k < len(b); k++ {
		h = mixH1(h, mixK1(uint32(int32(int8(b[k])))))
	}
	h ^= uint32(len(b))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

// javaRandom is java.util.Random's linear congruential generator.
type javaRandom struct{ seed int64 }

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ 0x5DEECE66D) & (1<<48 - 1)}
}

func (r *javaRandom) next(n uint) int32 {
	r.seed = (r.seed*0x5DEECE66D + 0xB) & (1<<48 - 1)
	return int32(uint64(r.seed) >> (48 - n))
}

// nextInt is Random.nextInt(bound) for a positive bound.
func (r *javaRandom) nextInt(bound int32) int32 {
	x := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(x)) >> 31)
	}
	for u := x; ; u = r.next(31) {
		x = u % bound
		if u-x+m >= 0 { // Java's loop condition u - r + m < 0 overflows int
			break
		}
	}
	return x
}
