package pipelines

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The `sql` and `filter` steps understand the SELECT subset of CONTRACT §5
// and evaluate it with the dataframe operations over the frames of earlier
// steps: no temporary views are registered in the session, so a pipeline
// never leaves state behind in the catalog.
//
//	SELECT * | path [AS alias], … FROM step_id | ns.table [WHERE expr] [LIMIT n]
//
// expr: comparisons (= != <> < <= > >=), IS [NOT] NULL, AND, OR, NOT,
// parentheses, 'strings', numbers, TRUE, FALSE, NULL; paths are column names
// or dotted nested paths, optionally `back-quoted`.

// SyntaxError is a SQL syntax error at a 1-based line and column of the
// query text.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tQuoted // back-quoted identifier
	tString
	tNumber
	tOp
	tComma
	tDot
	tLParen
	tRParen
	tStar
	tSemi
)

type token struct {
	kind tokKind
	text string
	off  int
}

type lexer struct {
	src  string
	toks []token
}

func lex(src string) ([]token, error) {
	l := &lexer{src: src}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\'':
			start := i
			var b strings.Builder
			i++
			for {
				if i >= len(src) {
					return nil, posErr(src, start, "unterminated string")
				}
				if src[i] == '\'' {
					if i+1 < len(src) && src[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(src[i])
				i++
			}
			l.toks = append(l.toks, token{tString, b.String(), start})
		case c == '`':
			start := i
			end := strings.IndexByte(src[i+1:], '`')
			if end < 0 {
				return nil, posErr(src, start, "unterminated back-quoted identifier")
			}
			l.toks = append(l.toks, token{tQuoted, src[i+1 : i+1+end], start})
			i += end + 2
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9' && !l.afterPath()):
			start := i
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '.' || src[i] == 'e' || src[i] == 'E' ||
				((src[i] == '+' || src[i] == '-') && (src[i-1] == 'e' || src[i-1] == 'E'))) {
				i++
			}
			l.toks = append(l.toks, token{tNumber, src[start:i], start})
		case c == '_' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)) || c >= utf8.RuneSelf:
			start := i
			for i < len(src) {
				r, n := utf8.DecodeRuneInString(src[i:])
				if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					i += n
					continue
				}
				break
			}
			if i == start {
				return nil, posErr(src, start, fmt.Sprintf("unexpected character %q", src[start:start+1]))
			}
			l.toks = append(l.toks, token{tIdent, src[start:i], start})
		case c == '=':
			l.toks = append(l.toks, token{tOp, "=", i})
			i++
		case c == '!' || c == '<' || c == '>':
			start := i
			i++
			if i < len(src) && (src[i] == '=' || (c == '<' && src[i] == '>')) {
				i++
			}
			op := src[start:i]
			if op == "!" {
				return nil, posErr(src, start, "unexpected '!' (did you mean != ?)")
			}
			l.toks = append(l.toks, token{tOp, op, start})
		case c == '-' || c == '+':
			// a signed number literal
			start := i
			i++
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '.' || src[i] == 'e' || src[i] == 'E') {
				i++
			}
			if i == start+1 {
				return nil, posErr(src, start, fmt.Sprintf("unexpected %q (arithmetic is not supported)", string(c)))
			}
			l.toks = append(l.toks, token{tNumber, src[start:i], start})
		case c == ',':
			l.toks = append(l.toks, token{tComma, ",", i})
			i++
		case c == '.':
			l.toks = append(l.toks, token{tDot, ".", i})
			i++
		case c == '(':
			l.toks = append(l.toks, token{tLParen, "(", i})
			i++
		case c == ')':
			l.toks = append(l.toks, token{tRParen, ")", i})
			i++
		case c == '*':
			l.toks = append(l.toks, token{tStar, "*", i})
			i++
		case c == ';':
			l.toks = append(l.toks, token{tSemi, ";", i})
			i++
		default:
			return nil, posErr(src, i, fmt.Sprintf("unexpected character %q", string(c)))
		}
	}
	l.toks = append(l.toks, token{tEOF, "", len(src)})
	return l.toks, nil
}

// afterPath reports whether the last token can be followed by `.name`, so
// that `a.1` is not read as `a` `.1`.
func (l *lexer) afterPath() bool {
	if len(l.toks) == 0 {
		return false
	}
	k := l.toks[len(l.toks)-1].kind
	return k == tIdent || k == tQuoted
}

func posErr(src string, off int, msg string) *SyntaxError {
	line, col := 1, 1
	for i, r := range src {
		if i >= off {
			break
		}
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

// Query is a parsed SELECT.
type Query struct {
	Star    bool
	Columns []Projection
	From    string // step id or ns.table, as written
	FromOff int
	Where   Expr  // nil: every row
	Limit   int64 // -1: no limit
}

// Expr is a WHERE expression.
type Expr interface {
	// eval returns true, false or nil (SQL's unknown).
	eval(get func(path string) (any, error)) (any, error)
	String() string
}

type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return posErr(p.src, t.off, fmt.Sprintf(format, args...))
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) keyword(t token, kw string) bool {
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) expectKeyword(kw string) error {
	t := p.next()
	if !p.keyword(t, kw) {
		return p.errAt(t, "expected %s, found %s", kw, describe(t))
	}
	return nil
}

var reserved = map[string]bool{"SELECT": true, "FROM": true, "WHERE": true, "LIMIT": true, "AS": true, "AND": true,
	"OR": true, "NOT": true, "IS": true, "NULL": true, "TRUE": true, "FALSE": true}

func (p *parser) name(what string) (string, token, error) {
	t := p.next()
	switch {
	case t.kind == tQuoted:
		return t.text, t, nil
	case t.kind == tIdent && !reserved[strings.ToUpper(t.text)]:
		return t.text, t, nil
	}
	return "", t, p.errAt(t, "expected %s, found %s", what, describe(t))
}

func (p *parser) path(what string) (string, token, error) {
	first, t, err := p.name(what)
	if err != nil {
		return "", t, err
	}
	parts := []string{first}
	for p.peek().kind == tDot {
		p.next()
		seg, _, err := p.name("a field name after '.'")
		if err != nil {
			return "", t, err
		}
		parts = append(parts, seg)
	}
	return strings.Join(parts, "."), t, nil
}

// ParseQuery parses one SELECT statement.
func ParseQuery(src string) (*Query, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	q := &Query{Limit: -1}
	if err := p.expectKeyword("SELECT"); err != nil {
		return nil, err
	}
	if p.peek().kind == tStar {
		p.next()
		q.Star = true
	} else {
		for {
			path, _, err := p.path("a column")
			if err != nil {
				return nil, err
			}
			pr := Projection{Path: path}
			if p.keyword(p.peek(), "AS") {
				p.next()
				if pr.Alias, _, err = p.name("an alias after AS"); err != nil {
					return nil, err
				}
			} else if t := p.peek(); t.kind == tQuoted || (t.kind == tIdent && !reserved[strings.ToUpper(t.text)]) {
				pr.Alias = t.text
				p.next()
			}
			q.Columns = append(q.Columns, pr)
			if p.peek().kind != tComma {
				break
			}
			p.next()
		}
	}
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	from, ft, err := p.path("a step id or table name")
	if err != nil {
		return nil, err
	}
	q.From, q.FromOff = from, ft.off
	if p.keyword(p.peek(), "WHERE") {
		p.next()
		if q.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if p.keyword(p.peek(), "LIMIT") {
		p.next()
		t := p.next()
		n, err := strconv.ParseInt(t.text, 10, 64)
		if t.kind != tNumber || err != nil || n < 0 {
			return nil, p.errAt(t, "LIMIT wants a non-negative integer, found %s", describe(t))
		}
		q.Limit = n
	}
	if p.peek().kind == tSemi {
		p.next()
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s (one SELECT per sql step)", describe(t))
	}
	return q, nil
}

// ParseExpr parses a WHERE expression on its own (the filter step).
func ParseExpr(src string) (Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s", describe(t))
	}
	return e, nil
}

func (p *parser) expr() (Expr, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.keyword(p.peek(), "OR") {
		p.next()
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = &logical{op: "OR", l: left, r: right}
	}
	return left, nil
}

func (p *parser) and() (Expr, error) {
	left, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.keyword(p.peek(), "AND") {
		p.next()
		right, err := p.not()
		if err != nil {
			return nil, err
		}
		left = &logical{op: "AND", l: left, r: right}
	}
	return left, nil
}

func (p *parser) not() (Expr, error) {
	if p.keyword(p.peek(), "NOT") {
		p.next()
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return &notExpr{e: e}, nil
	}
	return p.comparison()
}

func (p *parser) comparison() (Expr, error) {
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tOp:
		p.next()
		right, err := p.operand()
		if err != nil {
			return nil, err
		}
		op := t.text
		if op == "<>" {
			op = "!="
		}
		return &compare{op: op, l: left, r: right}, nil
	case p.keyword(t, "IS"):
		p.next()
		neg := false
		if p.keyword(p.peek(), "NOT") {
			p.next()
			neg = true
		}
		if n := p.next(); !p.keyword(n, "NULL") {
			return nil, p.errAt(n, "expected NULL after IS, found %s", describe(n))
		}
		return &isNull{e: left, neg: neg}, nil
	}
	return left, nil
}

func (p *parser) operand() (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == tLParen:
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, p.errAt(c, "expected ')', found %s", describe(c))
		}
		return e, nil
	case t.kind == tString:
		p.next()
		return &literal{v: t.text}, nil
	case t.kind == tNumber:
		p.next()
		if n, err := strconv.ParseInt(t.text, 10, 64); err == nil {
			return &literal{v: n}, nil
		}
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.errAt(t, "bad number %q", t.text)
		}
		return &literal{v: f}, nil
	case p.keyword(t, "TRUE"), p.keyword(t, "FALSE"):
		p.next()
		return &literal{v: strings.EqualFold(t.text, "TRUE")}, nil
	case p.keyword(t, "NULL"):
		p.next()
		return &literal{v: nil}, nil
	case t.kind == tIdent || t.kind == tQuoted:
		path, _, err := p.path("a column")
		if err != nil {
			return nil, err
		}
		return &column{path: path}, nil
	}
	return nil, p.errAt(t, "expected a column, a literal or '(', found %s", describe(t))
}

type literal struct{ v any }

func (l *literal) eval(func(string) (any, error)) (any, error) { return l.v, nil }
func (l *literal) String() string {
	switch v := l.v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	}
	return fmt.Sprint(l.v)
}

type column struct{ path string }

func (c *column) eval(get func(string) (any, error)) (any, error) { return get(c.path) }
func (c *column) String() string                                  { return c.path }

type logical struct {
	op   string
	l, r Expr
}

func (e *logical) String() string { return "(" + e.l.String() + " " + e.op + " " + e.r.String() + ")" }

func (e *logical) eval(get func(string) (any, error)) (any, error) {
	lv, err := e.l.eval(get)
	if err != nil {
		return nil, err
	}
	lb, err := truth(lv, e.l)
	if err != nil {
		return nil, err
	}
	// Short-circuit where three-valued logic allows it.
	if e.op == "AND" && lb != nil && !*lb {
		return false, nil
	}
	if e.op == "OR" && lb != nil && *lb {
		return true, nil
	}
	rv, err := e.r.eval(get)
	if err != nil {
		return nil, err
	}
	rb, err := truth(rv, e.r)
	if err != nil {
		return nil, err
	}
	if e.op == "AND" {
		switch {
		case rb != nil && !*rb:
			return false, nil
		case lb == nil || rb == nil:
			return nil, nil
		}
		return true, nil
	}
	switch {
	case rb != nil && *rb:
		return true, nil
	case lb == nil || rb == nil:
		return nil, nil
	}
	return false, nil
}

// truth reads a value as a SQL boolean: nil is unknown.
func truth(v any, e Expr) (*bool, error) {
	switch b := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return &b, nil
	}
	return nil, fmt.Errorf("%s is not a boolean (got %v)", e, v)
}

type notExpr struct{ e Expr }

func (n *notExpr) String() string { return "NOT " + n.e.String() }
func (n *notExpr) eval(get func(string) (any, error)) (any, error) {
	v, err := n.e.eval(get)
	if err != nil {
		return nil, err
	}
	b, err := truth(v, n.e)
	if err != nil || b == nil {
		return nil, err
	}
	return !*b, nil
}

type isNull struct {
	e   Expr
	neg bool
}

func (n *isNull) String() string {
	if n.neg {
		return n.e.String() + " IS NOT NULL"
	}
	return n.e.String() + " IS NULL"
}

func (n *isNull) eval(get func(string) (any, error)) (any, error) {
	v, err := n.e.eval(get)
	if err != nil {
		return nil, err
	}
	return isNullValue(v) != n.neg, nil
}

func isNullValue(v any) bool { return v == nil }

type compare struct {
	op   string
	l, r Expr
}

func (c *compare) String() string { return c.l.String() + " " + c.op + " " + c.r.String() }

func (c *compare) eval(get func(string) (any, error)) (any, error) {
	lv, err := c.l.eval(get)
	if err != nil {
		return nil, err
	}
	rv, err := c.r.eval(get)
	if err != nil {
		return nil, err
	}
	if lv == nil || rv == nil {
		return nil, nil // NULL compares as unknown
	}
	cmp, ok, err := compareValues(lv, rv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c, err)
	}
	if !ok {
		return nil, nil // incomparable after casting: unknown, as Spark's failed cast gives NULL
	}
	switch c.op {
	case "=":
		return cmp == 0, nil
	case "!=":
		return cmp != 0, nil
	case "<":
		return cmp < 0, nil
	case "<=":
		return cmp <= 0, nil
	case ">":
		return cmp > 0, nil
	case ">=":
		return cmp >= 0, nil
	}
	return nil, fmt.Errorf("unknown operator %s", c.op)
}

// number converts numeric Go values to float64 (and reports exact int64s).
func number(v any) (float64, int64, bool, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), int64(n), true, true
	case int8:
		return float64(n), int64(n), true, true
	case int16:
		return float64(n), int64(n), true, true
	case int32:
		return float64(n), int64(n), true, true
	case int64:
		return float64(n), n, true, true
	case uint8:
		return float64(n), int64(n), true, true
	case uint16:
		return float64(n), int64(n), true, true
	case uint32:
		return float64(n), int64(n), true, true
	case uint64:
		if n <= math.MaxInt64 {
			return float64(n), int64(n), true, true
		}
		return float64(n), 0, false, true
	case float32:
		return float64(n), 0, false, true
	case float64:
		return n, 0, false, true
	}
	return 0, 0, false, false
}

// compareValues orders a and b (−1, 0, 1). ok is false when the values
// cannot be compared after Spark-like casting (a string that is no number
// against a number): the comparison is then unknown.
func compareValues(a, b any) (int, bool, error) {
	if af, ai, aInt, aNum := number(a); aNum {
		if bf, bi, bInt, bNum := number(b); bNum {
			if aInt && bInt {
				return cmpOrdered(ai, bi), true, nil
			}
			return cmpOrdered(af, bf), true, nil
		}
		if s, ok := b.(string); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return 0, false, nil
			}
			return cmpOrdered(af, f), true, nil
		}
	}
	if _, _, _, bNum := number(b); bNum {
		c, ok, err := compareValues(b, a)
		return -c, ok, err
	}
	switch x := a.(type) {
	case string:
		switch y := b.(type) {
		case string:
			return strings.Compare(x, y), true, nil
		case bool:
			bx, err := strconv.ParseBool(x)
			if err != nil {
				return 0, false, nil
			}
			return cmpBool(bx, y), true, nil
		case time.Time:
			t, ok := parseTime(x)
			if !ok {
				return 0, false, nil
			}
			return t.Compare(y), true, nil
		}
	case bool:
		switch y := b.(type) {
		case bool:
			return cmpBool(x, y), true, nil
		case string:
			c, ok, err := compareValues(b, a)
			return -c, ok, err
		}
	case time.Time:
		switch y := b.(type) {
		case time.Time:
			return x.Compare(y), true, nil
		case string:
			c, ok, err := compareValues(b, a)
			return -c, ok, err
		}
	}
	return 0, false, fmt.Errorf("cannot compare %s with %s", typeName(a), typeName(b))
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case time.Time:
		return "a timestamp"
	case map[string]any:
		return "a struct"
	case []any:
		return "an array"
	}
	if _, _, _, ok := number(v); ok {
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// parseTime reads the timestamp literals users write in filters: RFC 3339
// with or without fraction and offset (UTC when absent), or a date.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
