package functions_test

import (
	"math"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

var (
	dec51  = &arrow.Decimal128Type{Precision: 5, Scale: 1}
	dec100 = &arrow.Decimal128Type{Precision: 10, Scale: 0}
	dec21  = &arrow.Decimal128Type{Precision: 2, Scale: 1}
	i8     = arrow.PrimitiveTypes.Int8
	i16    = arrow.PrimitiveTypes.Int16
)

func TestMoreMathFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "nan outside domain", fn: "acos", args: []in{col(f64, 1.0, 2.0, nil)}, typ: f64, want: []any{0.0, math.NaN(), nil}},
		{name: "strings are doubles", fn: "sqrt", args: []in{col(str, "4", "x")}, typ: f64, want: []any{2.0, nil}},
		{name: "not a number", fn: "sin", args: []in{lit(boolT, true)}, err: "argument 1 must be a number, got boolean"},
		{name: "null at or below 0", fn: "ln", args: []in{col(f64, 1.0, 0.0, -1.0)}, want: []any{0.0, nil, nil}},
		{name: "log1p asymptote", fn: "log1p", args: []in{col(f64, 0.0, -1.0)}, want: []any{0.0, nil}},
		{name: "base", fn: "log", args: []in{col(f64, 2.0, 0.0, 10.0), col(f64, 8.0, 1.0, -1.0)}, want: []any{3.0, nil, nil}},
		{name: "natural", fn: "log", args: []in{lit(f64, math.E)}, want: []any{1.0}},
		{name: "zeros", fn: "signum", args: []in{col(f64, -3.5, 0.0, 2.0)}, want: []any{-1.0, 0.0, 1.0}},
		{name: "negative", fn: "bin", args: []in{col(i64, 13, -1, 0)}, typ: str, want: []any{"1101", "1111111111111111111111111111111111111111111111111111111111111111", "0"}},
		{name: "kinds", fn: "hex", args: []in{col(i64, 17, -1, nil)}, want: []any{"11", "FFFFFFFFFFFFFFFF", nil}},
		{name: "bytes", fn: "hex", args: []in{col(bin, "\x00\xff")}, want: []any{"00FF"}},
		{name: "bases", fn: "conv", args: []in{col(str, "100", "-10", "ff", "zz", "12x", "", "18446744073709551616"), col(i32, 2, 16, 16, 36, 10, 10, 10), col(i32, 10, -10, 2, 10, 10, 10, 10)},
			typ: str, want: []any{"4", "-16", "11111111", "1295", "12", nil, "18446744073709551615"}},
		{name: "invalid base", fn: "conv", args: []in{lit(str, "1"), lit(i32, 1), lit(i32, 10)}, want: []any{nil}},
		{name: "negative unsigned", fn: "conv", args: []in{lit(str, "-1"), lit(i32, 10), lit(i32, 16)}, want: []any{"FFFFFFFFFFFFFFFF"}},
		{name: "bounds", fn: "factorial", args: []in{col(i32, 0, 20, 21, -1)}, typ: i64, want: []any{int64(1), int64(2432902008176640000), nil, nil}},
		{name: "ints", fn: "pmod", args: []in{col(i32, 10, -10, 7, nil), col(i32, 3, 3, 0, 1)}, typ: i32, want: []any{int32(1), int32(2), nil, nil}},
		{name: "wider int", fn: "pmod", args: []in{lit(i32, -7), lit(i64, 3)}, typ: i64, want: []any{int64(2)}},
		{name: "doubles", fn: "mod", args: []in{col(f64, 5.5, -5.5), lit(f64, 2.0)}, typ: f64, want: []any{1.5, -1.5}},
		{name: "decimals", fn: "mod", args: []in{lit(dec51, "10.5"), lit(i32, 3)}, typ: &arrow.Decimal128Type{Precision: 5, Scale: 1}, want: []any{"1.5"}},
		{name: "min by -1", fn: "mod", args: []in{lit(i64, math.MinInt64), lit(i64, -1)}, want: []any{int64(0)}},
		{name: "truncates", fn: "div", args: []in{col(i64, 7, -7, 1), col(i64, 2, 2, 0)}, typ: i64, want: []any{int64(3), int64(-3), nil}},
		{name: "decimals", fn: "div", args: []in{lit(dec51, "10.5"), lit(dec51, "0.5")}, typ: i64, want: []any{int64(21)}},
		{name: "types", fn: "negative", args: []in{col(dec51, "1.5", nil)}, typ: dec51, want: []any{"-1.5", nil}},
		{name: "int wraps", fn: "negative", args: []in{col(i32, math.MinInt32, 5)}, typ: i32, want: []any{int32(math.MinInt32), int32(-5)}},
		{name: "identity", fn: "positive", args: []in{col(i64, -3)}, typ: i64, want: []any{int64(-3)}},
		{name: "edges", fn: "width_bucket", args: []in{col(f64, 5.3, -2.1, 8.1, -0.9, 1.0, math.NaN()), col(f64, 0.2, 1.3, 0.0, 5.2, 1.0, 0.0), col(f64, 10.6, 3.4, 5.7, 0.5, 1.0, 1.0), col(i64, 5, 3, 4, 2, 3, 2)},
			typ: i64, want: []any{int64(3), int64(0), int64(5), int64(3), nil, nil}},
		{name: "half even", fn: "bround", args: []in{col(f64, 2.5, 3.5, -2.5, 2.675), lit(i32, 0)}, typ: f64, want: []any{2.0, 4.0, -2.0, 3.0}},
		{name: "decimal half even", fn: "bround", args: []in{col(dec51, "2.5", "3.5", "-0.5"), lit(i32, 0)}, typ: &arrow.Decimal128Type{Precision: 5, Scale: 0}, want: []any{"2", "4", "0"}},
		{name: "int tens", fn: "bround", args: []in{col(i32, 25, 35, -25), lit(i32, -1)}, typ: i32, want: []any{int32(20), int32(40), int32(-20)}},
		{name: "single rounding", fn: "round", args: []in{lit(dec51, "14.5"), lit(i32, -1)}, typ: &arrow.Decimal128Type{Precision: 5, Scale: 0}, want: []any{"10"}},
		{name: "scale", fn: "floor", args: []in{col(dec51, "3.1", "-3.1"), lit(i32, 0)}, typ: &arrow.Decimal128Type{Precision: 5, Scale: 0}, want: []any{"3", "-4"}},
		{name: "double with scale", fn: "ceil", args: []in{lit(f64, 3.1411), lit(i32, 2)}, typ: &arrow.Decimal128Type{Precision: 18, Scale: 2}, want: []any{"3.15"}},
		{name: "int with scale", fn: "ceil", args: []in{lit(i32, 1234), lit(i32, -2)}, typ: &arrow.Decimal128Type{Precision: 11, Scale: 0}, want: []any{"1300"}},
		{name: "scale not literal", fn: "floor", args: []in{lit(f64, 1.0), col(i32, 1)}, err: "argument 2 must be an integer literal"},
		{name: "overflow", fn: "try_add", args: []in{col(i32, math.MaxInt32, 1), lit(i32, 1)}, typ: i32, want: []any{nil, int32(2)}},
		{name: "long overflow", fn: "try_multiply", args: []in{lit(i64, math.MaxInt64), col(i64, 2, 1)}, typ: i64, want: []any{nil, int64(math.MaxInt64)}},
		{name: "small ints", fn: "try_subtract", args: []in{lit(i8, -128), col(i8, 1, 0)}, typ: i8, want: []any{nil, int32(-128)}},
		{name: "decimal type", fn: "try_add", args: []in{lit(dec51, "1.5"), lit(i32, 2)}, typ: &arrow.Decimal128Type{Precision: 12, Scale: 1}, want: []any{"3.5"}},
		{name: "decimal divide", fn: "try_divide", args: []in{lit(dec100, "1"), col(dec100, "3", "0")}, typ: &arrow.Decimal128Type{Precision: 21, Scale: 11}, want: []any{"0.33333333333", nil}},
		{name: "doubles", fn: "try_divide", args: []in{col(i32, 3, 1), col(i32, 2, 0)}, typ: f64, want: []any{1.5, nil}},
		{name: "dates", fn: "try_subtract", args: []in{lit(date, tm("2021-01-02 00:00:00")), col(i32, 1, nil)}, typ: date, want: []any{"2021-01-01", nil}},
		{name: "not numbers", fn: "try_add", args: []in{lit(boolT, true), lit(i32, 1)}, err: "arguments must be numbers, got boolean and integer"},
		{name: "constants", fn: "pi", args: nil, want: []any{math.Pi}},
		{name: "arity", fn: "e", args: []in{lit(i32, 1)}, err: "takes 0 arguments, got 1"},
	})
}

func TestBitwiseFunctions(t *testing.T) {
	t.Parallel()
	runCases(t, []fcase{
		{name: "sign extended", fn: "bit_count", args: []in{col(i32, 0, 7, -1, nil)}, typ: i32, want: []any{int32(0), int32(3), int32(64), nil}},
		{name: "boolean", fn: "bit_count", args: []in{col(boolT, true, false)}, want: []any{int32(1), int32(0)}},
		{name: "not integral", fn: "bit_count", args: []in{lit(f64, 1)}, err: "argument 1 must be an integer or a boolean, got double"},
		{name: "bits", fn: "bit_get", args: []in{lit(i32, 11), col(i32, 0, 1, 2, 3, nil)}, typ: i8, want: []any{int32(1), int32(1), int32(0), int32(1), nil}},
		{name: "position beyond type", fn: "bit_get", args: []in{lit(i8, 1), lit(i32, 8)}, err: "invalid bit position 8"},
		{name: "position per row", fn: "getbit", args: []in{lit(i32, 1), col(i32, -1)}, err: "invalid bit position -1"},
		{name: "int", fn: "shiftleft", args: []in{lit(i32, 1), col(i32, 1, 31, 32)}, typ: i32, want: []any{int32(2), int32(math.MinInt32), int32(1)}},
		{name: "long", fn: "shiftleft", args: []in{lit(i64, 1), lit(i32, 40)}, typ: i64, want: []any{int64(1 << 40)}},
		{name: "arithmetic", fn: "shiftright", args: []in{col(i32, -4, 4), lit(i32, 1)}, want: []any{int32(-2), int32(2)}},
		{name: "logical", fn: "shiftrightunsigned", args: []in{col(i32, -4), lit(i32, 28)}, want: []any{int32(15)}},
		{name: "logical long", fn: "shiftrightunsigned", args: []in{lit(i64, -1), lit(i32, 60)}, want: []any{int64(15)}},
		{name: "short becomes int", fn: "shiftleft", args: []in{lit(i16, 1), lit(i32, 3)}, typ: i32, want: []any{int32(8)}},
	})
}
