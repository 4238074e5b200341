package restapi

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/internal/jsonpath"
)

// jsonPath is a dotted path into a response (see docs/restapi.md#dotted-paths):
// a key equal to the whole path matches first (`@odata.nextLink`), then the
// path's dot-separated keys, where `\.` is a dot inside a key.
type jsonPath struct {
	text  string   // as written, for messages
	whole string   // the whole path as one key, escapes removed
	segs  []string // the keys
}

func parsePath(s string) (jsonPath, error) {
	p := jsonPath{text: s}
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '.':
			cur.WriteByte('.')
			i++
		case s[i] == '.':
			p.segs = append(p.segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	p.segs = append(p.segs, cur.String())
	for _, k := range p.segs {
		if k == "" {
			return jsonPath{}, fmt.Errorf("%q has an empty key (use \\. for a dot inside a key)", s)
		}
	}
	p.whole = strings.ReplaceAll(s, `\.`, ".")
	return p, nil
}

func (p jsonPath) isZero() bool { return p.text == "" }

// lookup returns the raw JSON at the path; found is false when it is absent
// (null is found). Invalid JSON is a *jsonframe.SyntaxError.
func (p jsonPath) lookup(doc []byte) ([]byte, bool, error) {
	raw, found, _, err := p.lookupKeyed(doc)
	return raw, found, err
}

// lookupKeyed is lookup, also saying whether the path matched as its plain
// dotted keys (as dataframe's records path reads it) rather than as one
// whole key or with escapes.
func (p jsonPath) lookupKeyed(doc []byte) (raw []byte, found, plain bool, err error) {
	if len(p.segs) > 1 {
		raw, found, err := jsonpath.LookupPath(doc, []string{p.whole})
		if err != nil || found {
			return raw, found, false, err
		}
	}
	raw, found, err = jsonpath.LookupPath(doc, p.segs)
	return raw, found, !strings.Contains(p.text, `\`), err
}

// lookupScalar returns a string (decoded) or number (as written) at the
// path; absent, null and "" give ok=false. A number stays JSON text
// (docs/restapi.md#pagination: a numeric token is sent as its JSON text);
// raw is the JSON value itself, for bodies.
func (p jsonPath) lookupScalar(doc []byte) (text string, raw []byte, ok bool, err error) {
	raw, found, err := p.lookup(doc)
	if err != nil || !found {
		return "", nil, false, err
	}
	raw = trimJSONSpace(raw)
	switch c := raw[0]; {
	case c == 'n':
		return "", nil, false, nil
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", nil, false, fmt.Errorf("%s: %w", p.text, err)
		}
		return s, raw, s != "", nil
	case c == '-' || ('0' <= c && c <= '9'):
		return string(raw), raw, true, nil
	}
	return "", nil, false, fmt.Errorf("%s is %s, not a string or a number", p.text, describeJSON(raw))
}

// lookupBool returns the boolean at the path; set is false when it is
// absent or null. Any other value is an error naming the path.
func (p jsonPath) lookupBool(doc []byte) (val, set bool, err error) {
	raw, found, err := p.lookup(doc)
	if err != nil || !found {
		return false, false, err
	}
	switch s := string(trimJSONSpace(raw)); s {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	case "null":
		return false, false, nil
	case `"true"`, `"false"`:
		return s == `"true"`, true, nil
	}
	return false, false, fmt.Errorf("%s is %s, not a boolean", p.text, describeJSON(trimJSONSpace(raw)))
}

func describeJSON(raw []byte) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case 'n':
		return "null"
	}
	return "a number"
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// setJSONPath returns body (a JSON object, or empty for {}) with the value
// at the dotted path set to raw, creating objects on the way.
func setJSONPath(body []byte, p jsonPath, raw []byte) ([]byte, error) {
	root := map[string]any{}
	if len(trimJSONSpace(body)) > 0 {
		d := json.NewDecoder(strings.NewReader(string(body)))
		d.UseNumber()
		if err := d.Decode(&root); err != nil {
			return nil, fmt.Errorf("the request body is not a JSON object: %w", err)
		}
	}
	m := root
	for _, k := range p.segs[:len(p.segs)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[p.segs[len(p.segs)-1]] = json.RawMessage(raw)
	return json.Marshal(root)
}

// topFields lists a document's top-level fields, objects expanded one level
// (data.results, meta.count), for a records.path that was not found.
func topFields(doc []byte) string {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		return "a " + strings.TrimPrefix(describeJSON(trimJSONSpace(doc)), "a ") + " at the top level"
	}
	var out []string
	for _, k := range sortedKeys(top) {
		var sub map[string]json.RawMessage
		if json.Unmarshal(top[k], &sub) == nil && len(sub) > 0 {
			for _, s := range sortedKeys(sub) {
				out = append(out, k+"."+s)
			}
			continue
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return "no fields"
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
