package fn

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Text → value conversions of Spark's CAST (ansi off): each reports false
// where Spark gives NULL. See docs/sql-functions.md#cast.

// parseSparkInt is UTF8String.toLong/toInt as CAST uses them: trimmed,
// an optional sign, digits, and an optional fraction that is checked and
// dropped ("1.9" → 1); out of the target's range → NULL.
func parseSparkInt(str string, id arrow.Type) (int64, bool) {
	s := trimSpaceControl(str)
	if s == "" {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		if len(s) == 1 {
			return 0, false
		}
		s = s[1:]
	}
	limit := int64(math.MinInt64)
	if id != arrow.INT64 {
		limit = math.MinInt32
	}
	// Accumulate negatively, as Spark does, so the minimum value parses.
	var v int64
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			i++
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if v < limit/10 || v*10 < limit+d {
			return 0, false
		}
		v = v*10 - d
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	if !neg {
		if v == limit {
			return 0, false
		}
		v = -v
	}
	switch id {
	case arrow.INT16:
		return v, v == int64(int16(v))
	case arrow.INT8:
		return v, v == int64(int8(v))
	}
	return v, true
}

// parseSparkDouble is Java's Double.parseDouble (Float.parseFloat when
// single) plus Spark's special literals inf, infinity and nan in any case.
func parseSparkDouble(str string, single bool) (float64, bool) {
	s := strings.TrimFunc(str, func(r rune) bool { return r <= ' ' })
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan", "+nan", "-nan":
		return math.NaN(), true
	}
	if s == "" {
		return 0, false
	}
	// Java accepts a type suffix: 1.5d, 2f.
	if c := s[len(s)-1]; c == 'd' || c == 'D' || c == 'f' || c == 'F' {
		s = s[:len(s)-1]
	}
	if !javaDecimalFloat(s) {
		return 0, false
	}
	bits := 64
	if single {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

// javaDecimalFloat reports whether s has the shape of Java's decimal
// floating-point literal: [sign] digits [. digits] [e [sign] digits], with
// at least one digit in the mantissa. ParseFloat alone would also take
// "1_000", "0x1p3" and "Inf".
func javaDecimalFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// parseSparkBool is Spark's string → boolean.
func parseSparkBool(str string) (bool, bool) {
	switch strings.ToLower(trimSpaceControl(str)) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

// ParseDate is Spark's string → date (sparktype.ParseDateDays): days since
// the epoch.
func ParseDate(str string) (int32, bool) { return sparktype.ParseDateDays(str) }

// ParseTimestamp is Spark's string → timestamp in the session time zone
// loc, nil for UTC (sparktype.ParseTimestampMicrosIn): microseconds since
// the epoch.
func ParseTimestamp(str string, loc *time.Location) (int64, bool) {
	return sparktype.ParseTimestampMicrosIn(str, loc)
}

func trimSpaceControl(s string) string { return sparktype.TrimSpaceControl(s) }

// ParseZone reads a time zone as Spark's timestamp texts write it
// (sparktype.ParseZone).
func ParseZone(z string) (*time.Location, bool) { return sparktype.ParseZone(z) }

// CivilDays is the day number of y-m-d since 1970-01-01 in the proleptic
// Gregorian calendar (sparktype.CivilDays).
func CivilDays(y, m, d int) (int32, bool) { return sparktype.CivilDays(y, m, d) }
