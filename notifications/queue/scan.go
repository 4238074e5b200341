package queue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// decodeDelivery reads token, createdOn and object{token, programToken}
// from a webhook body. It validates the whole body with json.Valid, then
// walks the top-level object once, skipping every other value without
// decoding it: intake spent most of its CPU in reflection-based decoding of
// fields it throws away. Keys match exactly (case-sensitive, after
// unescaping, as the provider's Jackson does); a repeated key's last value
// wins. FuzzDecodeDelivery checks it against encoding/json.
func decodeDelivery(b []byte) (delivery, error) {
	var d delivery
	if !json.Valid(b) {
		// encoding/json says what is wrong and where.
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return d, err
		}
		return d, fmt.Errorf("invalid JSON")
	}
	i := skipWS(b, 0)
	if b[i] != '{' {
		return d, errNotObject
	}
	// Raw values first, so that a repeated key's last value wins whatever
	// the earlier ones were.
	var token, object []byte
	_ = eachMember(b, i, func(key, v []byte) error {
		switch string(key) {
		case "token":
			token = v
		case "createdOn":
			d.CreatedOn = v
		case "object":
			object = v
		}
		return nil
	})
	var err error
	if token != nil {
		if d.Token, err = stringValue("token", token); err != nil {
			return d, err
		}
	}
	// The object and its tokens are read leniently: a value of another
	// type counts as missing (type UNK, no program), as the contract only
	// refuses empty or malformed JSON and a missing token. Refusing the
	// delivery would lose a notification the provider stops re-sending.
	if object == nil || object[0] != '{' {
		return d, nil
	}
	var objToken, program []byte
	_ = eachMember(object, 0, func(key, v []byte) error {
		switch string(key) {
		case "token":
			objToken = v
		case "programToken":
			program = v
		}
		return nil
	})
	d.Object = &deliveryObject{}
	if objToken != nil && objToken[0] == '"' {
		if d.Object.Token, err = stringValue("object.token", objToken); err != nil {
			return d, err
		}
	}
	if program != nil && program[0] == '"' {
		if d.Object.ProgramToken, err = stringValue("object.programToken", program); err != nil {
			return d, err
		}
	}
	return d, nil
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
