package functions

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	regexp2 "github.com/dlclark/regexp2/v2"
)

// javaRegexp is a pattern of Spark's regular-expression functions, which
// use java.util.regex. It is compiled into Go's RE2 when RE2 takes it, and
// finds successive matches there as Java's Matcher.find() does (see
// findAll). A pattern RE2 refuses — look-around, backreferences,
// possessive quantifiers, atomic groups — goes to regexp2, a backtracking
// engine like Java's, in its RE2-compatible mode (\d, \w, \s ASCII as in
// Java; `$` only at the end) with groups numbered in pattern order as Java
// numbers them. See docs/sql-functions.md#regular-expressions.
type javaRegexp struct {
	src string
	re  *regexp.Regexp
	// prog is re's program, to tell whether the pattern matches the empty
	// string at a position (emptyAt).
	prog *syntax.Prog
	// canEmpty is false when no match of re can be empty: Java's and Go's
	// successive matches are then the same.
	canEmpty bool
	// bt is the backtracking engine, when re is nil.
	bt     *regexp2.Regexp
	groups int
}

// maxBacktrack bounds the backtracking stack of one match (regexp2's
// default): a pattern that needs more fails the query rather than the
// process, as Java's matcher fails with a StackOverflowError.
const maxBacktrack = 100_000

// compileRegex compiles a pattern of regexp_extract, rlike, split, … .
func compileRegex(p string) (*javaRegexp, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		bt, btErr := regexp2.Compile(p, regexp2.RE2, regexp2.OptionMaintainCaptureOrder(),
			regexp2.OptionMaxBacktrackingStackSize(maxBacktrack))
		if btErr != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %w", p, btErr)
		}
		groups := 0
		for _, g := range bt.GetGroupNumbers() {
			groups = max(groups, g)
		}
		return &javaRegexp{src: p, bt: bt, groups: groups}, nil
	}
	// regexp.Compile parsed it with these flags, so this cannot fail.
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", p, err)
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %w", p, err)
	}
	j := &javaRegexp{src: p, re: re, prog: prog, groups: re.NumSubexp()}
	j.canEmpty = j.reachesMatch(func(syntax.EmptyOp) bool { return true })
	return j, nil
}

// String is the pattern as written.
func (re *javaRegexp) String() string { return re.src }

// NumSubexp is the number of capturing groups.
func (re *javaRegexp) NumSubexp() int { return re.groups }

// SubexpIndex is the number of the group named name, or -1.
func (re *javaRegexp) SubexpIndex(name string) int {
	if re.re != nil {
		return re.re.SubexpIndex(name)
	}
	if n := re.bt.GroupNumberFromName(name); n > 0 {
		return n
	}
	return -1
}

// btErr names the pattern in a matching error of the backtracking engine.
func (re *javaRegexp) btErr(err error) error {
	return fmt.Errorf("regular expression %q: %w", re.src, err)
}

// MatchString reports whether the pattern matches somewhere in s.
func (re *javaRegexp) MatchString(s string) (bool, error) {
	if re.re != nil {
		return re.re.MatchString(s), nil
	}
	ok, err := re.bt.MatchString(s)
	if err != nil {
		return false, re.btErr(err)
	}
	return ok, nil
}

// first is the submatch indices (byte offsets, -1 for a group that took no
// part) of the first match in s, or nil.
func (re *javaRegexp) first(s string) ([]int, error) {
	if re.re != nil {
		return re.re.FindStringSubmatchIndex(s), nil
	}
	m, err := re.bt.FindStringMatch(s)
	if err != nil {
		return nil, re.btErr(err)
	}
	if m == nil {
		return nil, nil
	}
	return re.indices(m), nil
}

// indices are the submatch indices of a match of bt.
func (re *javaRegexp) indices(m *regexp2.Match) []int {
	out := make([]int, 2*(re.groups+1))
	for k := range out {
		out[k] = -1
	}
	for k := 0; k <= re.groups; k++ {
		g := m.GroupByNumber(k)
		if g == nil || len(g.Captures) == 0 {
			continue
		}
		start, n := g.Capture.ByteRange()
		out[2*k], out[2*k+1] = start, start+n
	}
	return out
}

// findAll calls f with the submatch indices of each match of s in turn,
// as Java's repeated Matcher.find() finds them, until f returns false.
// Java and Go differ in one place: after a non-empty match, an empty match
// right at its end counts in Java (regexp_extract_all('1a', '(\d+)?', 1)
// is ["1","",""]) while Go's FindAll skips it. In such an empty match
// every group is unset. The backtracking engine iterates as Java does.
func (re *javaRegexp) findAll(s string, f func(m []int) bool) error {
	if re.re == nil {
		m, err := re.bt.FindStringMatch(s)
		for ; err == nil && m != nil; m, err = re.bt.FindNextMatch(m) {
			if !f(re.indices(m)) {
				return nil
			}
		}
		if err != nil {
			return re.btErr(err)
		}
		return nil
	}
	ms := re.re.FindAllStringSubmatchIndex(s, -1)
	for k, m := range ms {
		if !f(m) {
			return nil
		}
		e := m[1]
		if !re.canEmpty || e == m[0] || k+1 < len(ms) && ms[k+1][0] == e {
			continue
		}
		// Go searched on from e and found no non-empty match there: if the
		// pattern matches at e at all, its match there is the empty one
		// Go skipped.
		if re.emptyAt(s, e) {
			empty := make([]int, len(m))
			for g := range empty {
				empty[g] = -1
			}
			empty[0], empty[1] = e, e
			if !f(empty) {
				return nil
			}
		}
	}
	return nil
}

// countAll is the number of matches findAll finds.
func (re *javaRegexp) countAll(s string) (int, error) {
	if re.re != nil && !re.canEmpty {
		return len(re.re.FindAllStringIndex(s, -1)), nil
	}
	n := 0
	err := re.findAll(s, func([]int) bool { n++; return true })
	return n, err
}

// emptyAt reports whether the pattern matches the empty string at byte
// offset e of s (its assertions see the characters around e).
func (re *javaRegexp) emptyAt(s string, e int) bool {
	before, after := rune(-1), rune(-1)
	if e > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:e])
	}
	if e < len(s) {
		after, _ = utf8.DecodeRuneInString(s[e:])
	}
	ctx := syntax.EmptyOpContext(before, after)
	return re.reachesMatch(func(op syntax.EmptyOp) bool { return op&^ctx == 0 })
}

// reachesMatch reports whether the program reaches its match without
// consuming a character, taking the zero-width assertions that holds
// says hold.
func (re *javaRegexp) reachesMatch(holds func(syntax.EmptyOp) bool) bool {
	seen := make([]bool, len(re.prog.Inst))
	stack := []uint32{uint32(re.prog.Start)}
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		inst := &re.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstMatch:
			return true
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, inst.Out)
		case syntax.InstEmptyWidth:
			if holds(syntax.EmptyOp(inst.Arg)) {
				stack = append(stack, inst.Out)
			}
		}
	}
	return false
}

// replaceAll is Java's Matcher.replaceAll(rep) over s, appended to dst;
// tmpl is rep as javaReplacement gives it: a Go template (`${1}`,
// `${name}`, `$$`) when it refers to groups, literal otherwise.
func (re *javaRegexp) replaceAll(dst []byte, s, tmpl string) ([]byte, error) {
	literal := !strings.Contains(tmpl, "$")
	if re.re != nil && !re.canEmpty {
		if literal {
			return append(dst, re.re.ReplaceAllLiteralString(s, tmpl)...), nil
		}
		return append(dst, re.re.ReplaceAllString(s, tmpl)...), nil
	}
	last := 0
	err := re.findAll(s, func(m []int) bool {
		dst = append(dst, s[last:m[0]]...)
		switch {
		case literal:
			dst = append(dst, tmpl...)
		case re.re != nil:
			dst = re.re.ExpandString(dst, tmpl, s, m)
		default:
			dst = re.expand(dst, tmpl, s, m)
		}
		last = m[1]
		return true
	})
	if err != nil {
		return nil, err
	}
	return append(dst, s[last:]...), nil
}

// expand is regexp.ExpandString for the templates javaReplacement makes:
// `$$` is a dollar, `${n}` and `${name}` the group's text ("" when it took
// no part).
func (re *javaRegexp) expand(dst []byte, tmpl, s string, m []int) []byte {
	for len(tmpl) > 0 {
		i := strings.IndexByte(tmpl, '$')
		if i < 0 || i+1 == len(tmpl) {
			return append(dst, tmpl...)
		}
		dst = append(dst, tmpl[:i]...)
		tmpl = tmpl[i+1:]
		if tmpl[0] == '$' {
			dst = append(dst, '$')
			tmpl = tmpl[1:]
			continue
		}
		end := strings.IndexByte(tmpl, '}')
		if tmpl[0] != '{' || end < 0 {
			dst = append(dst, '$')
			continue
		}
		name := tmpl[1:end]
		tmpl = tmpl[end+1:]
		g, err := strconv.Atoi(name)
		if err != nil {
			g = re.SubexpIndex(name)
		}
		if g >= 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
			dst = append(dst, s[m[2*g]:m[2*g+1]]...)
		}
	}
	return dst
}
