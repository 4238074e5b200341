package jsontext

import (
	"encoding/base64"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendFloat writes f as a JSON number: encoding/json's format with ".0"
// on integral values, and NaN/±Infinity as strings.
func AppendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	// encoding/json's format choice, plus ".0" on integral values so the
	// column reads back as double.
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		return dst
	}
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// AppendTime writes t in UTC with milliseconds, or with the full
// fraction when it is finer than a millisecond.
func AppendTime(dst []byte, t time.Time) []byte { return AppendTimeIn(dst, t, time.UTC) }

// AppendTimeIn is AppendTime with t's wall-clock time in loc and its
// offset (`2016-03-11T20:54:00.000-08:00`; `Z` for UTC), as Spark writes
// JSON and CSV in the session time zone. nil is UTC.
func AppendTimeIn(dst []byte, t time.Time, loc *time.Location) []byte {
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	dst = append(dst, '"')
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		dst = t.AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
	} else {
		dst = t.AppendFormat(dst, time.RFC3339Nano)
	}
	return append(dst, '"')
}

// AppendBase64 writes b as a JSON string in standard base64.
func AppendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// jsonSafe marks bytes that may be copied into a JSON string as they are.
var jsonSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString quotes s as a JSON string. Invalid UTF-8 becomes U+FFFD so
// the output is always valid JSON.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonSafe[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
