package functions

import (
	"github.com/sluicedata/sluice/internal/jsontext"
)

// JSON text for get_json_object and the other JSON functions, at the byte
// level with internal/jsontext's scanner: values are found by skipping,
// without decoding them.

// jsonDoc is one JSON document being read.
type jsonDoc struct{ s jsontext.Scanner }

func newJSONDoc(b []byte) *jsonDoc {
	return &jsonDoc{s: jsontext.Scanner{Data: b, MaxDepth: jsontext.DefaultMaxDepth}}
}

// valid reports whether the document is one JSON value (blanks around it
// allowed), as encoding/json.Valid does.
func (d *jsonDoc) valid() bool {
	pos := d.s.SkipWS(0)
	end := d.s.SkipValue(pos, 0)
	return end >= 0 && d.s.SkipWS(end) == len(d.s.Data)
}

// validJSON is jsonDoc.valid for b.
func validJSON(b []byte) bool { return newJSONDoc(b).valid() }

// value is the text of the (valid) value at pos and the position after it.
func (d *jsonDoc) value(pos int) ([]byte, int) {
	end := d.s.SkipValue(pos, 0)
	return d.s.Data[pos:end], end
}

// elements calls f with the position of each element of the array at pos.
func (d *jsonDoc) elements(pos int, f func(at int)) {
	var more bool
	for pos, more = d.s.First(pos, ']'); more; pos, more = d.s.Next(pos, ']', false) {
		f(pos)
		_, pos = d.value(pos)
	}
}

// members calls f with the quoted key and the value's position of each
// member of the object at pos, while f returns true.
func (d *jsonDoc) members(pos int, f func(key []byte, at int) bool) {
	var more bool
	for pos, more = d.s.First(pos, '}'); more; pos, more = d.s.Next(pos, '}', false) {
		kend, _ := d.s.ScanKey(pos)
		key := d.s.Data[pos:kend]
		at := d.s.SkipWS(d.s.SkipWS(kend) + 1)
		if !f(key, at) {
			return
		}
		_, pos = d.value(at)
	}
}

// keyText is a quoted key's text, decoded when it has escapes.
func (d *jsonDoc) keyText(key []byte) []byte {
	for _, c := range key[1 : len(key)-1] {
		if c == '\\' {
			return jsontext.AppendDecoded(nil, key[1:len(key)-1])
		}
	}
	return key[1 : len(key)-1]
}

// appendCompact appends the value at pos without insignificant blanks.
func (d *jsonDoc) appendCompact(dst []byte, pos int) []byte {
	out, _ := jsontext.AppendCompact(dst, d.s.Data, pos)
	return out
}
