package fn

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
)

// Text → value conversions of Spark's CAST (ansi off): each reports false
// where Spark gives NULL. See docs/sql-functions.md#cast.

// trimSpaceControl drops leading and trailing bytes Spark's UTF8String
// trimAll drops: whitespace and ISO control characters (≤ 0x20, 0x7f).
func trimSpaceControl(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] <= ' ' || s[i] == 0x7f) {
		i++
	}
	for j > i && (s[j-1] <= ' ' || s[j-1] == 0x7f) {
		j--
	}
	return s[i:j]
}

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

// digitsRun reads 1..max ASCII digits from s at i; it returns the value,
// the position after them and how many there were.
func digitsRun(s string, i, max int) (v, next, n int) {
	for next = i; next < len(s) && next-i < max && s[next] >= '0' && s[next] <= '9'; next++ {
		v = v*10 + int(s[next]-'0')
	}
	return v, next, next - i
}

// ParseDate is Spark's string → date: `yyyy`, `yyyy-[m]m`, `yyyy-[m]m-[d]d`,
// optionally followed by a space or `T` and anything. It returns days since
// the epoch.
func ParseDate(str string) (int32, bool) {
	s := trimSpaceControl(str)
	y, m, d, rest, ok := parseDatePart(s)
	if !ok {
		return 0, false
	}
	if rest != "" && rest[0] != ' ' && rest[0] != 'T' {
		return 0, false
	}
	return CivilDays(y, m, d)
}

// parseDatePart reads `[+-]yyyy[-[m]m[-[d]d]]` and returns what follows.
func parseDatePart(s string) (y, m, d int, rest string, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	y, i, n := digitsRun(s, i, 7)
	if n < 4 {
		return 0, 0, 0, "", false
	}
	if neg {
		y = -y
	}
	m, d = 1, 1
	if i < len(s) && s[i] == '-' {
		if m, i, n = digitsRun(s, i+1, 2); n == 0 {
			return 0, 0, 0, "", false
		}
		if i < len(s) && s[i] == '-' {
			if d, i, n = digitsRun(s, i+1, 2); n == 0 {
				return 0, 0, 0, "", false
			}
		} else if i < len(s) {
			return 0, 0, 0, "", false
		}
	} else if i < len(s) {
		return 0, 0, 0, "", false
	}
	return y, m, d, s[i:], true
}

// CivilDays is the day number of y-m-d since 1970-01-01 in the proleptic
// Gregorian calendar, false if the date does not exist (2021-02-30).
func CivilDays(y, m, d int) (int32, bool) {
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	// Howard Hinnant's days_from_civil.
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int32(era*146097 + doe - 719468), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ParseTimestamp is Spark's string → timestamp in the UTC session time
// zone: `yyyy[-[m]m[-[d]d]]`, then optionally ` ` or `T` and
// `[h]h[:[m]m[:[s]s[.fraction]]]` and a zone (`Z`, `+hh[:mm]`, `-hhmm`,
// `UTC`, `GMT+h`, a region such as `Europe/Paris`). It returns microseconds
// since the epoch.
func ParseTimestamp(str string) (int64, bool) {
	s := trimSpaceControl(str)
	y, mo, d, rest, ok := parseDatePart(s)
	if !ok {
		// The date part may end where a zone starts: "2020-01-01Z".
		return 0, false
	}
	days, ok := CivilDays(y, mo, d)
	if !ok {
		return 0, false
	}
	var h, mi, sec, frac int
	loc := time.UTC
	if rest != "" {
		if rest[0] != ' ' && rest[0] != 'T' {
			return 0, false
		}
		rest = rest[1:]
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			var n, i int
			if h, i, n = digitsRun(rest, 0, 2); n == 0 {
				return 0, false
			}
			if i < len(rest) && rest[i] == ':' {
				if mi, i, n = digitsRun(rest, i+1, 2); n == 0 {
					return 0, false
				}
				if i < len(rest) && rest[i] == ':' {
					if sec, i, n = digitsRun(rest, i+1, 2); n == 0 {
						return 0, false
					}
					if i < len(rest) && rest[i] == '.' {
						var fd int
						frac, i, fd = digitsRun(rest, i+1, 9)
						for ; fd < 6; fd++ {
							frac *= 10
						}
						for ; fd > 6; fd-- {
							frac /= 10
						}
					}
				}
			}
			if h > 23 || mi > 59 || sec > 59 {
				return 0, false
			}
			rest = rest[i:]
		}
		if rest != "" {
			if loc, ok = ParseZone(rest); !ok {
				return 0, false
			}
		}
	}
	local := time.Date(y, time.Month(mo), d, h, mi, sec, 0, loc)
	if loc == time.UTC {
		return int64(days)*microsPerDay + int64(h*3600+mi*60+sec)*1_000_000 + int64(frac), true
	}
	return local.Unix()*1_000_000 + int64(frac), true
}

// ParseZone reads a time zone as Spark's timestamp texts write it: Z, UTC,
// GMT, UT, an offset (+h, +hh, +hh:mm, +hhmm, optionally after UTC/GMT/UT)
// or a region id (Europe/Paris). A leading space is allowed.
func ParseZone(z string) (*time.Location, bool) {
	z = strings.TrimPrefix(z, " ")
	if z == "" {
		return nil, false
	}
	if z == "Z" {
		return time.UTC, true
	}
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(z, p) {
			rest := z[len(p):]
			if rest == "" {
				return time.UTC, true
			}
			if rest[0] == '+' || rest[0] == '-' {
				return parseOffset(rest)
			}
		}
	}
	if z[0] == '+' || z[0] == '-' {
		return parseOffset(z)
	}
	loc, err := time.LoadLocation(z)
	if err != nil || z == "Local" {
		return nil, false
	}
	return loc, true
}

func parseOffset(z string) (*time.Location, bool) {
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	h, i, n := digitsRun(z, 1, 2)
	if n == 0 {
		return nil, false
	}
	m := 0
	if i < len(z) {
		if z[i] == ':' {
			i++
		}
		if m, i, n = digitsRun(z, i, 2); n != 2 {
			return nil, false
		}
		if i < len(z) && z[i] == ':' {
			if _, i, n = digitsRun(z, i+1, 2); n != 2 {
				return nil, false
			}
		}
	}
	if i != len(z) || h > 18 || m > 59 {
		return nil, false
	}
	return time.FixedZone(z, sign*(h*3600+m*60)), true
}
