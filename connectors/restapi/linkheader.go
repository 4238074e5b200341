package restapi

import (
	"strings"
)

// link is one link of an RFC 8288 Link header field: its target as
// written and its parameters (names lower-cased, values unquoted).
type link struct {
	target string
	params map[string]string
}

// rels returns the link's relation types (rel is a space-separated list,
// compared case-insensitively).
func (l link) hasRel(rel string) bool {
	for _, r := range strings.Fields(l.params["rel"]) {
		if strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// parseLinks parses every Link header field value: `<uri>; rel="next";
// results="false", <uri2>; rel=prev`. Commas and semicolons inside <…> and
// quoted strings are part of them. A malformed link is skipped, never a
// panic: a server's odd header must not stop a read that would not use it.
func parseLinks(values []string) []link {
	var out []link
	for _, v := range values {
		for i := 0; i < len(v); {
			i = skipLWS(v, i)
			if i >= len(v) {
				break
			}
			if v[i] != '<' {
				// Not a link: skip to the next comma outside quotes.
				i = skipToComma(v, i)
				continue
			}
			end := strings.IndexByte(v[i+1:], '>')
			if end < 0 {
				break
			}
			l := link{target: strings.TrimSpace(v[i+1 : i+1+end]), params: map[string]string{}}
			i = i + 1 + end + 1
			for {
				i = skipLWS(v, i)
				if i >= len(v) || v[i] == ',' {
					i++
					break
				}
				if v[i] != ';' {
					i = skipToComma(v, i)
					break
				}
				i = skipLWS(v, i+1)
				start := i
				for i < len(v) && v[i] != '=' && v[i] != ';' && v[i] != ',' && v[i] != ' ' && v[i] != '\t' {
					i++
				}
				name := strings.ToLower(strings.TrimSuffix(v[start:i], "*"))
				i = skipLWS(v, i)
				val := ""
				if i < len(v) && v[i] == '=' {
					i = skipLWS(v, i+1)
					val, i = paramValue(v, i)
				}
				if name != "" {
					if _, dup := l.params[name]; !dup { // the first occurrence wins (RFC 8288 §3)
						l.params[name] = val
					}
				}
			}
			out = append(out, l)
		}
	}
	return out
}

// paramValue reads a token or a quoted string starting at i.
func paramValue(v string, i int) (string, int) {
	if i < len(v) && v[i] == '"' {
		var b strings.Builder
		i++
		for i < len(v) {
			c := v[i]
			switch {
			case c == '\\' && i+1 < len(v):
				b.WriteByte(v[i+1])
				i += 2
			case c == '"':
				return b.String(), i + 1
			default:
				b.WriteByte(c)
				i++
			}
		}
		return b.String(), i
	}
	start := i
	for i < len(v) && v[i] != ';' && v[i] != ',' && v[i] != ' ' && v[i] != '\t' {
		i++
	}
	return v[start:i], i
}

func skipLWS(v string, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	return i
}

// skipToComma returns the position after the next comma outside a quoted
// string or <…>, or len(v).
func skipToComma(v string, i int) int {
	inQuote, inAngle := false, false
	for ; i < len(v); i++ {
		switch c := v[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"' && !inAngle:
			inQuote = !inQuote
		case c == '<' && !inQuote:
			inAngle = true
		case c == '>' && !inQuote:
			inAngle = false
		case c == ',' && !inQuote && !inAngle:
			return i + 1
		}
	}
	return len(v)
}
