package gotabridge

import (
	"errors"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	json "github.com/goccy/go-json"
)

// Arrow's JSON decoding of a cell expects maps as [{"key":…,"value":…}],
// while the text ToGota produced (AppendJSONValue) writes a map as a JSON
// object. Types that contain a map are therefore decoded here, token by
// token, keeping the key order of the text.

func containsMap(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.MapType:
		return true
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if containsMap(f.Type) {
				return true
			}
		}
	case arrow.ListLikeType:
		return containsMap(t.Elem())
	}
	return false
}

// appendJSONTokens appends the next JSON value of dec to b.
func appendJSONTokens(b array.Builder, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.MapBuilder:
		if tok != json.Delim('{') {
			return fmt.Errorf("want a JSON object for a map, got %v", tok)
		}
		bb.Append(true)
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			if sk, ok := bb.KeyBuilder().(*array.StringBuilder); ok {
				sk.Append(key)
			} else if err := bb.KeyBuilder().AppendValueFromString(key); err != nil {
				return fmt.Errorf("map key %q: %w", key, err)
			}
			if err := appendJSONTokens(bb.ItemBuilder(), dec); err != nil {
				return err
			}
		}
		_, err := dec.Token() // '}'
		return err
	case *array.StructBuilder:
		if tok != json.Delim('{') {
			return fmt.Errorf("want a JSON object for a struct, got %v", tok)
		}
		st := bb.Type().(*arrow.StructType)
		seen := make([]bool, st.NumFields())
		bb.Append(true)
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			idx, ok := st.FieldIdx(key)
			if !ok || seen[idx] {
				var skip any
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			seen[idx] = true
			if err := appendJSONTokens(bb.FieldBuilder(idx), dec); err != nil {
				return err
			}
		}
		for i, s := range seen {
			if !s {
				bb.FieldBuilder(i).AppendNull()
			}
		}
		_, err := dec.Token() // '}'
		return err
	case array.ListLikeBuilder:
		if tok != json.Delim('[') {
			return fmt.Errorf("want a JSON array for a list, got %v", tok)
		}
		bb.Append(true)
		for dec.More() {
			if err := appendJSONTokens(bb.ValueBuilder(), dec); err != nil {
				return err
			}
		}
		_, err := dec.Token() // ']'
		return err
	case *array.StringBuilder:
		if s, ok := tok.(string); ok {
			bb.Append(s)
			return nil
		}
	}
	switch v := tok.(type) {
	case string:
		return b.AppendValueFromString(v)
	case json.Number:
		return b.AppendValueFromString(v.String())
	case bool:
		return b.AppendValueFromString(fmt.Sprint(v))
	}
	return errors.New("unexpected JSON value")
}
