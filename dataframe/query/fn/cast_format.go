package fn

import (
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// AppendSparkString appends the text Spark's CAST(x AS STRING) gives for
// the non-null value i of arr: Java's Double.toString for doubles (1.0E10),
// plain digits for decimals, `yyyy-MM-dd HH:mm:ss[.ffffff]` for timestamps
// (their wall-clock time in the session time zone loc; nil is UTC),
// `[a, b]`, `{a, b}` and `{k -> v}` for arrays, structs and maps, with
// `null` for null elements. See docs/sql-functions.md#cast.
func AppendSparkString(dst []byte, arr arrow.Array, i int, loc *time.Location) []byte {
	switch a := arr.(type) {
	case *array.String:
		return append(dst, a.Value(i)...)
	case *array.LargeString:
		return append(dst, a.Value(i)...)
	case *array.Binary:
		return append(dst, a.Value(i)...)
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		return strconv.AppendInt(dst, IntValue(arr, i), 10)
	case *array.Float64:
		return formatJavaDouble(dst, a.Value(i), 64)
	case *array.Float32:
		return formatJavaDouble(dst, float64(a.Value(i)), 32)
	case *array.Decimal128:
		return sparktype.AppendDecimal128(dst, a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Timestamp:
		if a.DataType().(*arrow.TimestampType).TimeZone == "" {
			loc = nil // timestamp_ntz: its own wall-clock time
		}
		return AppendTimestamp(dst, TimestampMicros(a, i), loc)
	case *array.Date32:
		return appendDate(dst, int64(a.Value(i)))
	case *array.Duration, *array.MonthInterval, *array.MonthDayNanoInterval:
		s, _ := sparktype.IntervalText(arr, i)
		return append(dst, s...)
	case *array.List:
		start, end := a.ValueOffsets(i)
		dst = append(dst, '[')
		vals := a.ListValues()
		for k := start; k < end; k++ {
			if k > start {
				dst = append(dst, ", "...)
			}
			dst = appendElem(dst, vals, int(k), loc)
		}
		return append(dst, ']')
	case *array.Struct:
		dst = append(dst, '{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendElem(dst, a.Field(f), i, loc)
		}
		return append(dst, '}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '{')
		for k := start; k < end; k++ {
			if k > start {
				dst = append(dst, ", "...)
			}
			dst = appendElem(dst, keys, int(k), loc)
			dst = append(dst, " -> "...)
			dst = appendElem(dst, items, int(k), loc)
		}
		return append(dst, '}')
	}
	return append(dst, arr.ValueStr(i)...)
}

func appendElem(dst []byte, arr arrow.Array, i int, loc *time.Location) []byte {
	if arr.IsNull(i) || arr.DataType().ID() == arrow.NULL { // a void array has no bitmap
		return append(dst, "null"...)
	}
	return AppendSparkString(dst, arr, i, loc)
}

// formatJavaDouble is Java's Double.toString (Float.toString for bits 32):
// shortest digits, decimal notation with at least one fraction digit for
// 1e-3 ≤ |f| < 1e7, computerized scientific notation (1.0E10) otherwise.
func formatJavaDouble(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, bits) // -d.ddde±xx
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		dst = append(dst, '-')
	}
	var digits []byte
	k := 0
	for ; e[k] != 'e'; k++ {
		if e[k] != '.' {
			digits = append(digits, e[k])
		}
	}
	exp, _ := strconv.Atoi(string(e[k+1:]))
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		if exp >= 0 {
			// Integer part is digits[:exp+1], padded with zeros.
			for j := 0; j <= exp; j++ {
				if j < len(digits) {
					dst = append(dst, digits[j])
				} else {
					dst = append(dst, '0')
				}
			}
			dst = append(dst, '.')
			if exp+1 < len(digits) {
				return append(dst, digits[exp+1:]...)
			}
			return append(dst, '0')
		}
		dst = append(dst, '0', '.')
		for j := 0; j < -exp-1; j++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[0], '.')
	if len(digits) > 1 {
		dst = append(dst, digits[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// AppendTimestamp writes microseconds since the epoch as Spark prints a
// timestamp in the session time zone loc (nil is UTC): `yyyy-MM-dd
// HH:mm:ss`, then `.` and the fraction without trailing zeros when it is
// not zero.
func AppendTimestamp(dst []byte, us int64, loc *time.Location) []byte {
	us = sparktype.WallMicros(us, loc)
	secs := floorDiv(us, 1_000_000)
	frac := us - secs*1_000_000
	t := time.Unix(secs, 0).UTC()
	dst = t.AppendFormat(dst, "2006-01-02 15:04:05")
	if frac != 0 {
		var f [7]byte
		f[0] = '.'
		for k := 6; k >= 1; k-- {
			f[k] = byte('0' + frac%10)
			frac /= 10
		}
		end := 7
		for f[end-1] == '0' {
			end--
		}
		dst = append(dst, f[:end]...)
	}
	return dst
}

func appendDate(dst []byte, days int64) []byte {
	return time.Unix(days*86400, 0).UTC().AppendFormat(dst, "2006-01-02")
}
