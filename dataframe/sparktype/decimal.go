package sparktype

import (
	"math/bits"

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
