package functions

import (
	"bytes"
	"encoding/json"
)

// A scanner over JSON text already checked with json.Valid: it finds
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
