package jsontext

// WalkPath follows path through nested objects from the value at pos,
// checking every value it skips, and calls leaf on the value at the path's
// end when there is one. It returns the position after the value at pos,
// or -1 after an error.
func (s *Scanner) WalkPath(pos int, path []string, depth int, leaf func(pos, depth int) int) int {
	d := s.Data
	if len(path) == 0 {
		return leaf(pos, depth)
	}
	if d[pos] != '{' {
		return s.SkipValue(pos, depth)
	}
	if depth >= s.MaxDepth {
		return s.Fail(pos, "nesting deeper than %d levels", s.MaxDepth)
	}
	matched := false
	var more bool
	for pos, more = s.First(pos, '}'); more; pos, more = s.Next(pos, '}', true) {
		if pos >= len(d) || d[pos] != '"' {
			return s.Fail(pos, "expected a field name: %s", s.Describe(pos))
		}
		end, flags := s.ScanString(pos)
		if end < 0 {
			return -1
		}
		key := StringBody(d, pos, end, flags, &s.KeyBuf)
		pos = s.SkipWS(end)
		if pos >= len(d) || d[pos] != ':' {
			return s.Fail(pos, "expected ':' after field name: %s", s.Describe(pos))
		}
		pos = s.SkipWS(pos + 1)
		if pos >= len(d) {
			return s.Fail(pos, "unexpected end of input, expected a value")
		}
		if !matched && string(key) == path[0] {
			matched = true
			pos = s.WalkPath(pos, path[1:], depth+1, leaf)
		} else {
			pos = s.SkipValue(pos, depth+1)
		}
		if pos < 0 {
			return -1
		}
	}
	return pos
}

func KindName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
