package functions

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Hash functions: see docs/sql-functions.md#hash-functions. hash and
// xxhash64 feed each value to the hash the way Spark encodes it, so the
// numbers match Spark's.

func init() {
	def(fn.Scalar{Name: "md5", Group: gHash, Signature: "md5(expr)", Returns: "string",
		Bind: bindDigest(func(b []byte) []byte { s := md5.Sum(b); return s[:] }),
		Doc:  "The MD5 digest of `expr` (a string is taken as its UTF-8 bytes), in hex.", Examples: ex("md5('Spark')", "8cde774d6f7333752ed72cacddb05126")})
	def(fn.Scalar{Name: "sha1", Group: gHash, Signature: "sha1(expr)", Returns: "string",
		Bind: bindDigest(func(b []byte) []byte { s := sha1.Sum(b); return s[:] }),
		Doc:  "The SHA-1 digest of `expr`, in hex.", Examples: ex("sha1('Spark')", "85f5955f4b27a9a4c2aab6ffe5d7189fc298b92c")}, aliases("sha"))
	def(fn.Scalar{Name: "sha2", Group: gHash, Signature: "sha2(expr, bitLength)", Returns: "string", Bind: bindSha2,
		Doc: "The SHA-2 digest of `expr` in hex, of `bitLength` 224, 256 (or 0), 384 or 512; NULL for another length.",
		Examples: ex("sha2('Spark', 256)", "529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b",
			"sha2('Spark', 1)", "NULL")})
	def(fn.Scalar{Name: "crc32", Group: gHash, Signature: "crc32(expr)", Returns: "bigint",
		Bind: rows("B", int64Type, always(func(r row) int64 { return int64(crc32.ChecksumIEEE(r.bin(0))) })),
		Doc:  "The CRC-32 checksum of `expr`.", Examples: ex("crc32('Spark')", "1557323817")})
	def(fn.Scalar{Name: "hash", Group: gHash, Signature: "hash(expr1, expr2, …)", Returns: "int", Bind: bindHash(false),
		Doc:      "Spark's 32-bit Murmur3 hash (seed 42) of the arguments; NULLs are skipped.",
		Examples: ex("hash('Spark', array(123), 2)", "-1321691492", "hash(1)", "-559580957")})
	def(fn.Scalar{Name: "xxhash64", Group: gHash, Signature: "xxhash64(expr1, expr2, …)", Returns: "bigint", Bind: bindHash(true),
		Doc:      "Spark's 64-bit xxHash (seed 42) of the arguments; NULLs are skipped.",
		Examples: ex("xxhash64('Spark', array(123), 2)", "5602566077635097486")})
}

func bindDigest(sum func([]byte) []byte) bindFunc {
	return bindStrings("B", func(dst []byte, r row) []byte { return hex.AppendEncode(dst, sum(r.bin(0))) })
}

func bindSha2(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "Bi")
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: stringType, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		return mapStrings(ctx, a, n, func(dst []byte, i int) ([]byte, bool, error) {
			r := row{a: a, i: i}
			b := r.bin(0)
			switch r.int(1, 0) {
			case 224:
				s := sha256.Sum224(b)
				return hex.AppendEncode(dst, s[:]), true, nil
			case 0, 256:
				s := sha256.Sum256(b)
				return hex.AppendEncode(dst, s[:]), true, nil
			case 384:
				s := sha512.Sum384(b)
				return hex.AppendEncode(dst, s[:]), true, nil
			case 512:
				s := sha512.Sum512(b)
				return hex.AppendEncode(dst, s[:]), true, nil
			}
			return dst, false, nil
		})
	}}, nil
}

// hasher is Murmur3 (x86, 32-bit) or xxHash64 over Spark's encodings of
// values: an int, a long or bytes at a time, chained through the seed.
type hasher interface {
	int32(v int32)
	int64(v int64)
	bytes(b []byte)
}

type murmur3 struct{ h uint32 }

func mixK1(k uint32) uint32 {
	k *= 0xcc9e2d51
	k = bits.RotateLeft32(k, 15)
	return k * 0x1b873593
}

func mixH1(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

func fmix32(h, length uint32) uint32 {
	h ^= length
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

func (m *murmur3) int32(v int32) { m.h = fmix32(mixH1(m.h, mixK1(uint32(v))), 4) }

func (m *murmur3) int64(v int64) {
	h := mixH1(m.h, mixK1(uint32(v)))
	h = mixH1(h, mixK1(uint32(uint64(v)>>32)))
	m.h = fmix32(h, 8)
}

// bytes is Spark's hashUnsafeBytes: whole words, then each remaining
// byte (sign-extended) as a word of its own.
func (m *murmur3) bytes(b []byte) {
	h := m.h
	aligned := len(b) - len(b)%4
	for k := 0; k < aligned; k += 4 {
		h = mixH1(h, mixK1(uint32(b[k])|uint32(b[k+1])<<8|uint32(b[k+2])<<16|uint32(b[k+3])<<24))
	}
	for k := aligned; k < len(b); k++ {
		h = mixH1(h, mixK1(uint32(int32(int8(b[k])))))
	}
	m.h = fmix32(h, uint32(len(b)))
}

const (
	prime64_1 = 0x9E3779B185EBCA87
	prime64_2 = 0xC2B2AE3D27D4EB4F
	prime64_3 = 0x165667B19E3779F9
	prime64_4 = 0x85EBCA77C2B2AE63
	prime64_5 = 0x27D4EB2F165667C5
)

type xxh64 struct{ seed uint64 }

func xxFmix(h uint64) uint64 {
	h ^= h >> 33
	h *= prime64_2
	h ^= h >> 29
	h *= prime64_3
	return h ^ h>>32
}

func xxRound(acc, input uint64) uint64 {
	acc += input * prime64_2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime64_1
}

func (x *xxh64) int32(v int32) {
	h := x.seed + prime64_5 + 4
	h ^= uint64(uint32(v)) * prime64_1
	h = bits.RotateLeft64(h, 23)*prime64_2 + prime64_3
	x.seed = xxFmix(h)
}

func (x *xxh64) int64(v int64) {
	h := x.seed + prime64_5 + 8
	h ^= bits.RotateLeft64(uint64(v)*prime64_2, 31) * prime64_1
	h = bits.RotateLeft64(h, 27)*prime64_1 + prime64_4
	x.seed = xxFmix(h)
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// bytes is standard XXH64 with the running seed.
func (x *xxh64) bytes(b []byte) {
	seed, n := x.seed, len(b)
	var h uint64
	if n >= 32 {
		v1, v2, v3, v4 := seed+prime64_1+prime64_2, seed+prime64_2, seed, seed-prime64_1
		for len(b) >= 32 {
			v1, v2, v3, v4 = xxRound(v1, le64(b)), xxRound(v2, le64(b[8:])), xxRound(v3, le64(b[16:])), xxRound(v4, le64(b[24:]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		for _, v := range []uint64{v1, v2, v3, v4} {
			h ^= xxRound(0, v)
			h = h*prime64_1 + prime64_4
		}
	} else {
		h = seed + prime64_5
	}
	h += uint64(n)
	for len(b) >= 8 {
		h ^= xxRound(0, le64(b))
		h = bits.RotateLeft64(h, 27)*prime64_1 + prime64_4
		b = b[8:]
	}
	if len(b) >= 4 {
		h ^= uint64(uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16|uint32(b[3])<<24) * prime64_1
		h = bits.RotateLeft64(h, 23)*prime64_2 + prime64_3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime64_5
		h = bits.RotateLeft64(h, 11) * prime64_1
	}
	x.seed = xxFmix(h)
}

// hashValue feeds value i of arr to h as Spark's HashExpression does;
// NULL leaves the hash as it is.
func hashValue(h hasher, arr arrow.Array, i int) {
	if nullAt(arr, i) {
		return
	}
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			h.int32(1)
		} else {
			h.int32(0)
		}
	case *array.Int8:
		h.int32(int32(a.Value(i)))
	case *array.Int16:
		h.int32(int32(a.Value(i)))
	case *array.Int32:
		h.int32(a.Value(i))
	case *array.Date32:
		h.int32(int32(a.Value(i)))
	case *array.Int64:
		h.int64(a.Value(i))
	case *array.Timestamp:
		h.int64(fn.TimestampMicros(a, i))
	case *array.Float32:
		f := a.Value(i)
		if f == 0 {
			f = 0 // -0.0 hashes as 0.0
		}
		h.int32(int32(math.Float32bits(f)))
	case *array.Float64:
		f := a.Value(i)
		if f == 0 {
			f = 0
		}
		if f != f {
			f = math.NaN() // Java's canonical NaN
		}
		h.int64(int64(math.Float64bits(f)))
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		v := a.Value(i)
		if dt.Precision <= 18 {
			h.int64(int64(v.LowBits()))
		} else {
			h.bytes(javaBigIntBytes(v.BigInt()))
		}
	case *array.String:
		h.bytes([]byte(a.Value(i)))
	case *array.Binary:
		h.bytes(a.Value(i))
	case *array.List:
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			hashValue(h, a.ListValues(), int(j))
		}
	case *array.Map:
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			hashValue(h, a.Keys(), int(j))
			hashValue(h, a.Items(), int(j))
		}
	case *array.Struct:
		for f := 0; f < a.NumField(); f++ {
			hashValue(h, a.Field(f), i)
		}
	}
}

// javaBigIntBytes is java.math.BigInteger.toByteArray of a decimal's
// unscaled value: big-endian two's complement, shortest form.
func javaBigIntBytes(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x - 1 in bits, inverted.
	m := new(big.Int).Neg(x)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for k := range b {
		b[k] = ^b[k]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xFF}, b...)
	}
	return b
}

func bindHash(xx bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if len(args) == 0 {
			return fn.Bound{}, fmt.Errorf("takes at least 1 argument, got 0")
		}
		for i, a := range args {
			if hasMap(a.Type) {
				return fn.Bound{}, argErr(i, a, "a value that is not a map (Spark does not hash maps)")
			}
		}
		out := arrow.DataType(int32Type)
		if xx {
			out = int64Type
		}
		return fn.Bound{Type: out, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			if xx {
				return rowsWith(ctx, out, a, n, false, func(r row) (int64, bool) {
					h := &xxh64{seed: 42}
					for _, x := range a {
						hashValue(h, x, r.i)
					}
					return int64(h.seed), true
				}), nil
			}
			return rowsWith(ctx, out, a, n, false, func(r row) (int32, bool) {
				h := &murmur3{h: 42}
				for _, x := range a {
					hashValue(h, x, r.i)
				}
				return int32(h.h), true
			}), nil
		}}, nil
	}
}

func hasMap(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.MapType:
		return true
	case *arrow.ListType:
		return hasMap(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if hasMap(f.Type) {
				return true
			}
		}
	}
	return false
}
