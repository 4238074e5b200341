package fn

import "github.com/apache/arrow/go/v17/arrow"

// MaxDecimalPrecision is the most digits a Spark decimal holds.
const MaxDecimalPrecision = 38

// DecimalArithmetic is the type of `a op b` for decimals under Spark's rules
// (DecimalPrecision) with spark.sql.decimalOperations.allowPrecisionLoss=true
// (its default): op is one of + - * / %. Beyond 38 digits the scale gives
// way, keeping the integer digits and at least 6 fraction digits (or its
// own, if fewer): see docs/sql.md#types-and-implicit-casts. The executor's
// operators and the try_ functions both type decimals with it.
func DecimalArithmetic(op byte, a, b *arrow.Decimal128Type) *arrow.Decimal128Type {
	p1, s1, p2, s2 := a.Precision, a.Scale, b.Precision, b.Scale
	switch op {
	case '+', '-':
		s := max(s1, s2)
		return adjustPrecisionScale(max(p1-s1, p2-s2)+s+1, s)
	case '*':
		return adjustPrecisionScale(p1+p2+1, s1+s2)
	case '/':
		s := max(minAdjustedScale, s1+p2+1)
		return adjustPrecisionScale(p1-s1+s2+s, s)
	case '%':
		s := max(s1, s2)
		return adjustPrecisionScale(min(p1-s1, p2-s2)+s, s)
	}
	panic("fn: DecimalArithmetic of " + string(op))
}

// minAdjustedScale is the fraction digits a result beyond 38 digits keeps
// at least (DecimalType.MINIMUM_ADJUSTED_SCALE).
const minAdjustedScale = 6

// adjustPrecisionScale is Spark's DecimalType.adjustPrecisionScale.
func adjustPrecisionScale(p, s int32) *arrow.Decimal128Type {
	switch {
	case p <= MaxDecimalPrecision:
		return &arrow.Decimal128Type{Precision: p, Scale: s}
	case s < 0:
		return &arrow.Decimal128Type{Precision: MaxDecimalPrecision, Scale: s}
	}
	intDigits := p - s
	minScale := min(s, minAdjustedScale)
	return &arrow.Decimal128Type{Precision: MaxDecimalPrecision, Scale: max(MaxDecimalPrecision-intDigits, minScale)}
}
