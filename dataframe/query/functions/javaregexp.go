package functions

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// javaRegexp is a pattern of Spark's regular-expression functions, which
// use java.util.regex, compiled into Go's RE2. Where the two differ in how
// successive matches are found, it finds them as Java's Matcher.find()
// does (see findAll); the syntax differences are in
// docs/sql-functions.md#known-differences-from-spark.
type javaRegexp struct {
	*regexp.Regexp
	// prog is the compiled program, to tell whether the pattern matches
	// the empty string at a position (emptyAt).
	prog *syntax.Prog
	// canEmpty is false when no match can be empty: Java's and Go's
	// successive matches are then the same.
	canEmpty bool
}

// compileRegex compiles a pattern of regexp_extract, rlike, split, … .
func compileRegex(p string) (*javaRegexp, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", p, err)
	}
	// regexp.Compile parsed it with these flags, so this cannot fail.
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", p, err)
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", p, err)
	}
	j := &javaRegexp{Regexp: re, prog: prog}
	j.canEmpty = j.reachesMatch(func(syntax.EmptyOp) bool { return true })
	return j, nil
}

// findAll calls f with the submatch indices of each match of s in turn,
// as Java's repeated Matcher.find() finds them, until f returns false.
// Java and Go differ in one place: after a non-empty match, an empty match
// right at its end counts in Java (regexp_extract_all('1a', '(\d+)?', 1)
// is ["1","",""]) while Go's FindAll skips it. In such an empty match
// every group is unset.
func (re *javaRegexp) findAll(s string, f func(m []int) bool) {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	for k, m := range ms {
		if !f(m) {
			return
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
				return
			}
		}
	}
}

// countAll is the number of matches findAll finds.
func (re *javaRegexp) countAll(s string) int {
	if !re.canEmpty {
		return len(re.FindAllStringIndex(s, -1))
	}
	n := 0
	re.findAll(s, func([]int) bool { n++; return true })
	return n
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

// replaceAll is Java's Matcher.replaceAll(rep) over s, rep a replacement
// already checked by javaReplacement (as a Go template when it refers to
// groups, literal otherwise).
func (re *javaRegexp) replaceAll(dst []byte, s, tmpl string) []byte {
	literal := !strings.Contains(tmpl, "$")
	if !re.canEmpty {
		if literal {
			return append(dst, re.ReplaceAllLiteralString(s, tmpl)...)
		}
		return append(dst, re.ReplaceAllString(s, tmpl)...)
	}
	last := 0
	re.findAll(s, func(m []int) bool {
		dst = append(dst, s[last:m[0]]...)
		if literal {
			dst = append(dst, tmpl...)
		} else {
			dst = re.ExpandString(dst, tmpl, s, m)
		}
		last = m[1]
		return true
	})
	return append(dst, s[last:]...)
}
