package sparktype

import (
	"math/bits"
	"strconv"

	"github.com/apache/arrow/go/v17/arrow/decimal128"
)

// IntegerPrecision is the number of digits of an integer literal (an
// optional '-' then digits, as JSON writes them): the p of the decimal(p,0)
// Spark infers for an integer beyond long.
func IntegerPrecision(lit []byte) int {
	if len(lit) > 0 && lit[0] == '-' {
		return len(lit) - 1
	}
	return len(lit)
}

// ParseDecimal reads an integer literal (an optional '-' then up to
// MaxPrecision digits) as a decimal128 with scale 0. ok is false for
// anything else: an empty literal, a stray byte, more than 38 digits.
func ParseDecimal(lit []byte) (n decimal128.Num, ok bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	digits := lit
	if neg {
		digits = lit[1:]
	}
	if len(digits) == 0 || len(digits) > MaxPrecision {
		return decimal128.Num{}, false
	}
	var hi, lo uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return decimal128.Num{}, false
		}
		// (hi, lo) = (hi, lo)*10 + digit; 38 digits stay below 2^127.
		carry, l := bits.Mul64(lo, 10)
		hi = hi*10 + carry
		var c2 uint64
		lo, c2 = bits.Add64(l, uint64(c-'0'), 0)
		hi += c2
	}
	n = decimal128.New(int64(hi), lo)
	if neg {
		n = n.Negate()
	}
	return n, true
}

// AppendDecimal appends the value unscaled·10^-scale, unscaled given as an
// integer's text (an optional '-' then digits, as strconv and big.Int write
// it), the way Spark writes a decimal(p,s) value in show() and as text:
// plain digits with exactly scale fraction digits, so decimal(10,2) 19.9 is
// 19.90 and 0 is 0.00 (docs/frames.md, table output). A negative scale appends
// zeros.
func AppendDecimal(dst, unscaled []byte, scale int32) []byte {
	if len(unscaled) > 0 && unscaled[0] == '-' {
		dst = append(dst, '-')
		unscaled = unscaled[1:]
	}
	if scale <= 0 {
		dst = append(dst, unscaled...)
		for ; scale < 0; scale++ {
			dst = append(dst, '0')
		}
		return dst
	}
	whole := len(unscaled) - int(scale)
	if whole <= 0 {
		dst = append(dst, '0', '.')
		for ; whole < 0; whole++ {
			dst = append(dst, '0')
		}
		return append(dst, unscaled...)
	}
	dst = append(dst, unscaled[:whole]...)
	dst = append(dst, '.')
	return append(dst, unscaled[whole:]...)
}

// AppendDecimal128 is AppendDecimal of a decimal128 value.
func AppendDecimal128(dst []byte, n decimal128.Num, scale int32) []byte {
	var buf [48]byte
	var digits []byte
	if hi, lo := n.HighBits(), n.LowBits(); (hi == 0 && lo>>63 == 0) || (hi == -1 && lo>>63 == 1) {
		digits = strconv.AppendInt(buf[:0], int64(lo), 10)
	} else {
		digits = n.BigInt().Append(buf[:0], 10)
	}
	return AppendDecimal(dst, digits, scale)
}
