package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// trie holds the key sequences a mapping looks up; slots number the
// sequences ending at a node. A mapping has a handful of keys: slices,
// searched in order, beat a map here.
type trie struct {
	keys     []string
	children []*trie
	slots    []int
}

func (t *trie) add(keys []string, slot int) {
	n := t
	for _, k := range keys {
		i := slices.Index(n.keys, k)
		if i < 0 {
			i = len(n.keys)
			n.keys, n.children = append(n.keys, k), append(n.children, &trie{})
		}
		n = n.children[i]
	}
	n.slots = append(n.slots, slot)
}

// walk fills out[slot] with the raw value at each key sequence of t in the
// object starting at b[i], which must be valid JSON (json.Valid): one pass
// over each object on the way, skipping every other value without decoding
// it (intake spent most of its CPU in reflection-based decoding of fields it
// throws away). Keys match exactly (case-sensitive, after unescaping); a
// repeated key's last value wins, the whole value, as encoding/json's maps
// have it. A sequence through a value that is not an object finds nothing.
func (t *trie) walk(b []byte, i int, out [][]byte) {
	// Raw values first, so that a repeated key's last value wins whatever
	// the earlier ones were.
	var buf [8][]byte
	found := buf[:0]
	if len(t.keys) > len(buf) {
		found = make([][]byte, len(t.keys))
	} else {
		found = buf[:len(t.keys)]
	}
	_ = eachMember(b, i, func(key, v []byte) error {
		for j, k := range t.keys {
			if string(key) == k {
				found[j] = v
			}
		}
		return nil
	})
	for j, v := range found {
		if v == nil {
			continue
		}
		c := t.children[j]
		for _, s := range c.slots {
			out[s] = v
		}
		if c.children != nil && v[0] == '{' {
			c.walk(v, 0, out)
		}
	}
}

var errNotObject = fmt.Errorf("want a JSON object")

// eachMember calls fn for every member of the object starting at b[i],
// which must be valid JSON.
func eachMember(b []byte, i int, fn func(key, value []byte) error) error {
	i = skipWS(b, i+1) // past '{'
	for b[i] != '}' {
		ks := i
		i = skipString(b, i)
		key, err := unquoteBytes(b[ks:i])
		if err != nil {
			return err
		}
		i = skipWS(b, i)
		i = skipWS(b, i+1) // past ':'
		vs := i
		i = skipValue(b, i)
		if err := fn(key, b[vs:i]); err != nil {
			return err
		}
		i = skipWS(b, i)
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	return nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"').
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

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// unquoteBytes decodes a JSON string literal; the common case (no
// escapes, valid UTF-8) is its inner bytes, without a copy.
func unquoteBytes(lit []byte) ([]byte, error) {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, nil
	}
	// Escapes, or invalid UTF-8 that encoding/json turns into U+FFFD.
	var s string
	err := json.Unmarshal(lit, &s)
	return []byte(s), err
}

func unquote(lit []byte) (string, error) {
	b, err := unquoteBytes(lit)
	return string(b), err
}

func stringValue(field string, v []byte) (*string, error) {
	switch v[0] {
	case 'n':
		return nil, nil
	case '"':
		s, err := unquote(v)
		return &s, err
	}
	return nil, typeError(field, "a string", v)
}

func typeError(field, want string, v []byte) error {
	kind := "number"
	switch v[0] {
	case '"':
		kind = "string"
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "boolean"
	}
	return fmt.Errorf("field %q must be %s, got a JSON %s", field, want, kind)
}
