package fn

import "github.com/apache/arrow/go/v17/arrow"

// MaxDecimalPrecision is the most digits a Spark decimal holds.
const MaxDecimalPrecision = 38

// DecimalArithmetic is the type of `a op b` for decimals under Spark's rules
// with spark.sql.decimalOperations.allowPrecisionLoss=true (its default):
// op is one of + - * / %. Beyond 38 digits the scale gives way, keeping
// at least 6 fraction digits (see docs/sql.md#decimals).
func DecimalArithmetic(op byte, a, b *arrow.Decimal128Type) *arrow.Decimal128Type {
	p1, s1, p2, s2 := a.Precision, a.Scale, b.Precision, b.Scale
	var p, s int32
	switch op {
	case '+', '-':
		s = max(s1, s2)
		p = max(p1-s1, p2-s2) + s + 1
	case '*':
		p, s = p1+p2+1, s1+s2
	case '/':
		s = max(6, s1+p2+1)
		p = p1 - s1 + s2 + s
	case '%':
		s = max(s1, s2)
		return &arrow.Decimal128Type{Precision: min(min(p1-s1, p2-s2)+s, MaxDecimalPrecision), Scale: min(s, MaxDecimalPrecision)}
	default:
		panic("fn: DecimalArithmetic of " + string(op))
	}
	if p <= MaxDecimalPrecision {
		return &arrow.Decimal128Type{Precision: p, Scale: s}
	}
	intDigits := p - s
	minScale := min(s, 6)
	return &arrow.Decimal128Type{Precision: MaxDecimalPrecision, Scale: max(MaxDecimalPrecision-intDigits, minScale)}
}
