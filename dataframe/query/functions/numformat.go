package functions

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
)

// Spark's number format strings for to_number and to_char (its
// ToNumberParser): `0`/`9` digits, `.`/`D` the decimal point, `,`/`G` a
// thousands separator, `$`, `S` an optional sign, `MI` an optional minus,
// `PR` angle brackets around a negative number.

type nfKind int

const (
	nfExact  nfKind = iota // a run of digits starting with 0 before the point
	nfAtMost               // any other run of digits
	nfPoint                // . or D
	nfComma                // , or G
	nfDollar               // $
	nfSign                 // S
	nfMinus                // MI
	nfOpen                 // < (from PR)
	nfClose                // > (from PR)
	nfGroups               // digits and commas grouped
	nfInvalid
)

type nfToken struct {
	kind   nfKind
	n      int       // digits of nfExact / nfAtMost
	c      byte      // the character of nfInvalid
	tokens []nfToken // nfGroups: digits and commas, right to left
	digits []nfToken // nfGroups: the digit runs, right to left
}

// numberFormat is a compiled format string.
type numberFormat struct {
	src              string
	tokens           []nfToken
	precision, scale int
}

func (t nfToken) describe() string {
	switch t.kind {
	case nfPoint:
		return ". or D"
	case nfComma:
		return ", or G"
	case nfDollar:
		return "$"
	case nfSign:
		return "S"
	case nfMinus:
		return "MI"
	case nfOpen, nfClose:
		return "PR"
	case nfInvalid:
		return fmt.Sprintf("character '%c'", t.c)
	}
	return "digit sequence"
}

func compileNumberFormat(f string) (*numberFormat, error) {
	var raw []nfToken
	afterPoint := false
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == '0' || c == '9':
			start := i
			for i++; i < len(f) && (f[i] == '0' || f[i] == '9'); i++ {
			}
			k := nfAtMost
			if c == '0' && !afterPoint {
				k = nfExact
			}
			raw = append(raw, nfToken{kind: k, n: i - start})
			continue
		case c == '.' || c == 'D':
			raw = append(raw, nfToken{kind: nfPoint})
			afterPoint = true
		case c == ',' || c == 'G':
			raw = append(raw, nfToken{kind: nfComma})
		case c == '$':
			raw = append(raw, nfToken{kind: nfDollar})
		case c == 'S':
			raw = append(raw, nfToken{kind: nfSign})
		case c == 'M' && i+1 < len(f) && f[i+1] == 'I':
			raw = append(raw, nfToken{kind: nfMinus})
			i++
		case c == 'P' && i+1 < len(f) && f[i+1] == 'R':
			raw = append([]nfToken{{kind: nfOpen}}, raw...)
			raw = append(raw, nfToken{kind: nfClose})
			i++
		default:
			raw = append(raw, nfToken{kind: nfInvalid, c: c})
		}
		i++
	}
	// Group runs of digits and commas, reversed.
	var tokens []nfToken
	var group, digits []nfToken
	flush := func() {
		if len(group) > 0 {
			tokens = append(tokens, nfToken{kind: nfGroups, tokens: reverseTokens(group), digits: reverseTokens(digits)})
			group, digits = nil, nil
		}
	}
	for _, t := range raw {
		switch t.kind {
		case nfExact, nfAtMost:
			group, digits = append(group, t), append(digits, t)
		case nfComma:
			group = append(group, t)
		default:
			flush()
			tokens = append(tokens, t)
		}
	}
	flush()
	nf := &numberFormat{src: f, tokens: tokens}
	point := -1
	for i, t := range tokens {
		if t.kind == nfPoint && point < 0 {
			point = i
		}
		if t.kind == nfGroups {
			for _, d := range t.digits {
				nf.precision += d.n
				if point >= 0 {
					nf.scale += d.n
				}
			}
		}
	}
	return nf, nf.check(point)
}

func reverseTokens(t []nfToken) []nfToken {
	out := make([]nfToken, len(t))
	for i := range t {
		out[len(t)-1-i] = t[i]
	}
	return out
}

func (nf *numberFormat) check(point int) error {
	bad := func(why string) error { return fmt.Errorf("the number format %q is invalid: %s", nf.src, why) }
	if nf.src == "" {
		return bad("it is empty")
	}
	firstDollar, firstDigit := -1, -1
	for i, t := range nf.tokens {
		if t.kind == nfDollar && firstDollar < 0 {
			firstDollar = i
		}
		if t.kind == nfGroups && firstDigit < 0 {
			firstDigit = i
		}
	}
	if firstDigit < 0 {
		return bad("it has no digits")
	}
	if firstDigit < firstDollar {
		return bad("the currency sign must come before any digit")
	}
	if point >= 0 && point < firstDollar {
		return bad("the currency sign must come before the decimal point")
	}
	for i, t := range nf.tokens {
		if t.kind != nfGroups {
			continue
		}
		if point < 0 || i < point {
			for j, g := range t.tokens {
				if g.kind == nfComma && (j == 0 || j == len(t.tokens)-1 || t.tokens[j-1].kind == nfComma || t.tokens[j+1].kind == nfComma) {
					return bad("a thousands separator must have digits on both sides")
				}
			}
		} else if i > point && len(t.tokens) > len(t.digits) {
			return bad("thousands separators must come before the decimal point")
		}
	}
	counts := map[nfKind]int{}
	for _, t := range nf.tokens {
		counts[t.kind]++
	}
	for _, k := range []nfKind{nfPoint, nfSign, nfMinus, nfDollar, nfClose} {
		if counts[k] > 1 {
			return bad(fmt.Sprintf("%s appears more than once", nfToken{kind: k}.describe()))
		}
	}
	allowed := [][]nfKind{{nfOpen}, {nfMinus, nfSign}, {nfDollar}, {nfGroups}, {nfPoint}, {nfGroups}, {nfDollar}, {nfMinus, nfSign, nfClose}}
	k := 0
	for _, set := range allowed {
		if k < len(nf.tokens) {
			for _, want := range set {
				if nf.tokens[k].kind == want {
					k++
					break
				}
			}
		}
	}
	if k < len(nf.tokens) {
		return bad("unexpected " + nf.tokens[k].describe())
	}
	return nil
}

// decimalType is the type to_number gives.
func (nf *numberFormat) decimalType() *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: int32(max(nf.precision, 1)), Scale: int32(nf.scale)}
}

// parse reads s; ok is false when it does not match the format.
func (nf *numberFormat) parse(s string) (decimal128.Num, bool) {
	rs := []rune(s)
	var before, after []rune
	afterPoint, opened, closed, negate := false, false, false, false
	i := 0
	for _, t := range nf.tokens {
		var c rune = -1
		if i < len(rs) {
			c = rs[i]
		}
		switch t.kind {
		case nfGroups:
			var sizes []int
			cur := 0
			for ; i < len(rs); i++ {
				ch := rs[i]
				if unicode.IsSpace(ch) {
					continue
				}
				if ch >= '0' && ch <= '9' {
					cur++
					if afterPoint {
						after = append(after, ch)
					} else {
						before = append(before, ch)
					}
					continue
				}
				if ch == ',' {
					sizes = append([]int{cur}, sizes...)
					cur = 0
					continue
				}
				break
			}
			sizes = append([]int{cur}, sizes...)
			if len(sizes) > len(t.digits) {
				return decimal128.Num{}, false
			}
			for k, d := range t.digits {
				got := 0
				if k < len(sizes) {
					got = sizes[k]
				}
				if d.kind == nfExact && got != d.n || d.kind == nfAtMost && got > d.n {
					return decimal128.Num{}, false
				}
			}
		case nfPoint:
			if c == '.' {
				afterPoint = true
				i++
			}
		case nfDollar:
			if c >= 0 {
				if c != '$' {
					return decimal128.Num{}, false
				}
				i++
			}
		case nfSign:
			if c == '+' {
				i++
			} else if c == '-' {
				negate = !negate
				i++
			}
		case nfMinus:
			if c == '-' {
				negate = !negate
				i++
			}
		case nfOpen:
			if c == '<' {
				if opened {
					return decimal128.Num{}, false
				}
				opened = true
				i++
			}
		case nfClose:
			if c == '>' {
				if !opened {
					return decimal128.Num{}, false
				}
				closed, negate = true, !negate
				i++
			}
		}
	}
	if i < len(rs) || opened != closed || len(before) == 0 && len(after) == 0 {
		return decimal128.Num{}, false
	}
	for len(after) < nf.scale {
		after = append(after, '0')
	}
	v, ok := new(big.Int).SetString("0"+string(before)+string(after), 10)
	if !ok {
		return decimal128.Num{}, false
	}
	if negate {
		v.Neg(v)
	}
	n := decimal128.FromBigInt(v)
	return n, n.FitsInPrecision(int32(max(nf.precision, 1)))
}

// format writes the decimal whose plain text (toPlainString) is plain;
// a number with more digits than the format comes out as # signs.
func (nf *numberFormat) format(plain string) string {
	neg := strings.HasPrefix(plain, "-")
	intPart, frac, _ := strings.Cut(plain, ".")
	intPart = strings.TrimLeft(intPart, "-0")
	frac = strings.TrimRight(frac, "0")
	fmtBefore, fmtAfter := 0, 0
	afterPoint := false
	for _, t := range nf.tokens {
		switch t.kind {
		case nfGroups:
			for _, d := range t.digits {
				if afterPoint {
					fmtAfter += d.n
				} else {
					fmtBefore += d.n
				}
			}
		case nfPoint:
			afterPoint = true
		}
	}
	overflow := fmtBefore < len(intPart) || fmtAfter < len(frac)
	if overflow {
		intPart, frac = strings.Repeat("#", fmtBefore), strings.Repeat("#", fmtAfter)
	}
	before := strings.Repeat(" ", fmtBefore-len(intPart)) + intPart
	after := frac + strings.Repeat("0", fmtAfter-len(frac))
	var out []byte
	bi, ai := 0, 0
	afterPoint = false
	for _, t := range nf.tokens {
		switch t.kind {
		case nfGroups:
			for k := len(t.tokens) - 1; k >= 0; k-- {
				g := t.tokens[k]
				switch {
				case g.kind == nfComma:
					if len(out) > 0 && out[len(out)-1] >= '0' && out[len(out)-1] <= '9' {
						out = append(out, ',')
					} else {
						out = addSpaceBeforeSign(out)
					}
				case !afterPoint:
					for d := 0; d < g.n; d++ {
						switch c := before[bi]; {
						case c == ' ' && g.kind == nfExact:
							out = append(out, '0')
						case c == ' ':
							out = addSpaceBeforeSign(out)
						default:
							out = append(out, c)
						}
						bi++
					}
				default:
					for d := 0; d < g.n; d++ {
						out = append(out, after[ai])
						ai++
					}
				}
			}
		case nfPoint:
			if len(out) > 0 && out[len(out)-1] == ' ' {
				out[len(out)-1] = '0'
			}
			out = append(out, '.')
			afterPoint = true
		case nfDollar:
			out = append(out, '$')
		case nfSign:
			out = stripLonePoint(out)
			if neg {
				out = addCharAfterSpaces(out, '-')
			} else {
				out = addCharAfterSpaces(out, '+')
			}
		case nfMinus:
			if neg {
				out = stripLonePoint(out)
				out = addCharAfterSpaces(out, '-')
			} else {
				out = append(out, ' ')
			}
		case nfOpen:
			if neg {
				out = append(out, '<')
			}
		case nfClose:
			out = stripLonePoint(out)
			if neg {
				out = addCharAfterSpaces(out, '>')
			} else {
				out = append(out, ' ', ' ')
			}
		}
	}
	out = stripLonePoint(out)
	if s := string(out); s != "" && s != "+" && s != "-" {
		return s
	}
	return "0"
}

// addCharAfterSpaces appends c and moves it in front of the spaces before
// it.
func addCharAfterSpaces(out []byte, c byte) []byte {
	out = append(out, c)
	for i := len(out) - 1; i >= 1 && out[i-1] == ' ' && out[i] == c; i-- {
		out[i], out[i-1] = ' ', c
	}
	return out
}

// addSpaceBeforeSign appends a space and moves it in front of a sign or
// bracket before it.
func addSpaceBeforeSign(out []byte) []byte {
	out = append(out, ' ')
	for i := len(out) - 1; i >= 1 && (out[i-1] == '+' || out[i-1] == '-' || out[i-1] == '<') && out[i] == ' '; i-- {
		out[i], out[i-1] = out[i-1], ' '
	}
	return out
}

// stripLonePoint turns a decimal point with no digit after it into a
// space.
func stripLonePoint(out []byte) []byte {
	for i, c := range out {
		if c == '.' {
			if i == len(out)-1 || out[i+1] == ' ' {
				out[i] = ' '
			}
			break
		}
	}
	return out
}
