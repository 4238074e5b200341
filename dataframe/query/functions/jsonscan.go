package functions

import (
	"bytes"
	"encoding/json"
)

// A scanner over JSON text already checked with validJSON: it finds
// values by skipping, without decoding them.

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && isJSONSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isJSONSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// skipValue is the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && !isJSONSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
		i++
	}
	return i
}

// skipString is the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// forEachElement calls f with each element of the array v.
func forEachElement(v []byte, f func(elem []byte)) {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == ']' {
		return
	}
	for i < len(v) {
		i = skipSpace(v, i)
		end := skipValue(v, i)
		f(v[i:end])
		i = skipSpace(v, end)
		if i >= len(v) || v[i] != ',' {
			return
		}
		i++
	}
}

// forEachMember calls f with the quoted key and the value of each member
// of the object v, while f returns true.
func forEachMember(v []byte, f func(key, val []byte) bool) {
	i := skipSpace(v, 1)
	if i < len(v) && v[i] == '}' {
		return
	}
	for i < len(v) {
		i = skipSpace(v, i)
		kend := skipString(v, i)
		key := v[i:kend]
		i = skipSpace(v, kend) + 1 // the colon
		i = skipSpace(v, i)
		end := skipValue(v, i)
		if !f(key, v[i:end]) {
			return
		}
		i = skipSpace(v, end)
		if i >= len(v) || v[i] != ',' {
			return
		}
		i++
	}
}

// keyEquals compares a quoted JSON key with a name.
func keyEquals(key []byte, name string) bool {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	var s string
	return json.Unmarshal(key, &s) == nil && s == name
}

// unquoteKey is a JSON key as text.
func unquoteKey(key []byte) string {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(key, &s) // valid JSON
	return s
}

// appendCompact appends the JSON value v without insignificant space.
func appendCompact(dst, v []byte) []byte {
	for _, c := range v {
		if isJSONSpace(c) {
			var b bytes.Buffer
			_ = json.Compact(&b, v) // valid JSON
			return append(dst, b.Bytes()...)
		}
	}
	return append(dst, v...)
}

// maxJSONDepth bounds the nesting validJSON follows; deeper text counts as
// invalid rather than exhausting the stack.
const maxJSONDepth = 512

// validJSON reports whether b is one JSON value (surrounded by blanks at
// most), as encoding/json.Valid does, in one pass without allocating.
func validJSON(b []byte) bool {
	i := skipSpace(b, 0)
	i, ok := validValue(b, i, 0)
	return ok && skipSpace(b, i) == len(b)
}

func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxJSONDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = validString(b, i); !ok {
				return i, false
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = validValue(b, skipSpace(b, i+1), depth+1); !ok {
				return i, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(b, i, depth+1); !ok {
				return i, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '"':
		return validString(b, i)
	case c == 't':
		return i + 4, len(b) >= i+4 && string(b[i:i+4]) == "true"
	case c == 'f':
		return i + 5, len(b) >= i+5 && string(b[i:i+5]) == "false"
	case c == 'n':
		return i + 4, len(b) >= i+4 && string(b[i:i+4]) == "null"
	case c == '-' || c >= '0' && c <= '9':
		return validNumber(b, i)
	}
	return i, false
}

func validString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return i, false
				}
				for k := 1; k <= 4; k++ {
					if digitValue(b[i+k]) < 0 || digitValue(b[i+k]) > 15 {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, false
		}
	}
	return i, true
}
