package sqlparse

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// SyntaxError is a statement the parser rejects. Statement counts from 1
// (blank statements are not counted); Pos is in the whole batch text.
type SyntaxError struct {
	Statement int
	Pos       Pos
	Msg       string
	// Err is the error the message wraps (a literal's or a type's), or nil.
	Err error
}

// Unwrap is the error the syntax error wraps.
func (e *SyntaxError) Unwrap() error { return e.Err }

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("statement %d, line %d, column %d: %s", e.Statement, e.Pos.Line, e.Pos.Col, e.Msg)
}

// ErrSyntax is matched by errors.Is for every *SyntaxError.
var ErrSyntax = errors.New("syntax error")

// Is makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// Parse splits a batch on `;` (outside quotes, back-quotes and comments) and
// parses every statement. It stops at the first syntax error, so a batch
// with a mistake anywhere runs nothing. Tokens stream from the lexer to the
// parser with a few tokens of look-ahead: a batch is never held as a token
// list.
func Parse(text string) ([]Statement, error) { return ParseParams(text, nil) }

// ParseParams is Parse for text with `?` placeholders: the i-th `?` of the
// batch (outside quotes, back-quotes and comments) stands for params[i], a
// typed literal, wherever a literal may stand — in an expression, a VALUES
// row, a TBLPROPERTIES value or LOCATION (docs/go-api.md#parameters). The
// value goes into the syntax tree, never into the text. A `?` without a
// value is a syntax error at it; a value without a `?` is an error naming
// it.
func ParseParams(text string, params []*query.Literal) ([]Statement, error) {
	p := &parser{lx: newLexer(text), buf: make([]Token, 0, 4), params: params}
	out, err := p.batch()
	if err != nil {
		return nil, err
	}
	if p.nparams < len(params) {
		return nil, fmt.Errorf("argument %d has no ? placeholder: %s given, the text has %s", p.nparams+1, plural(len(params), "argument"), plural(p.nparams, "placeholder"))
	}
	return out, nil
}

func (p *parser) batch() ([]Statement, error) {
	var out []Statement
	for {
		// Blank statements (`;;`, only comments) are skipped, not counted.
		t := p.rawPeek(0)
		if t.Kind == EOF {
			return out, nil
		}
		if t.Kind == Symbol && t.Text == ";" {
			p.pop()
			continue
		}
		p.n++
		p.consumed = false
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		// statement() checked that the terminator follows; drop a `;`.
		if t := p.rawPeek(0); t.Kind != EOF {
			p.pop()
		}
	}
}

// ParseOne parses text that must hold exactly one statement.
func ParseOne(text string) (Statement, error) {
	stmts, err := Parse(text)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("want exactly one statement, found %d", len(stmts))
	}
	return stmts[0], nil
}

type parser struct {
	lx  *lexer
	n   int     // current statement number, from 1
	buf []Token // look-ahead, in order; never past a terminator
	// last is the statement's last consumed token (for end-of-statement
	// positions); consumed says whether there is one.
	last     Token
	consumed bool
	// lambdaParams are the parameters of the lambdas being read: names a
	// lambda's body may use even where they are reserved words
	// (`(left, right) -> …`).
	lambdaParams []string
	// params are the values of the batch's ? placeholders; nparams counts
	// the placeholders read so far.
	params  []*query.Literal
	nparams int
}

// pop drops the first look-ahead token. The look-ahead is a few tokens
// long: shifting them keeps its backing array, so streaming a batch does
// not allocate per token.
func (p *parser) pop() {
	copy(p.buf, p.buf[1:])
	p.buf = p.buf[:len(p.buf)-1]
}

// rawPeek returns the k-th token ahead, terminators included. Look-ahead
// stops at a terminator: asking past it returns the terminator again.
func (p *parser) rawPeek(k int) Token {
	for len(p.buf) <= k {
		if n := len(p.buf); n > 0 && p.buf[n-1].isTerminator() {
			return p.buf[n-1]
		}
		p.buf = append(p.buf, p.lx.next())
	}
	return p.buf[k]
}

// eof is the token that stands for the end of the statement, placed just
// after its last token.
func (p *parser) eof() Token {
	if !p.consumed {
		t := p.rawPeek(0)
		return Token{Kind: EOF, Pos: t.Pos, End: t.Pos.Offset}
	}
	return Token{Kind: EOF, Pos: posAfter(p.last), End: p.last.End}
}

// posAfter is the position just past t.
func posAfter(t Token) Pos {
	pos := t.Pos
	for _, r := range t.Raw {
		pos.Offset += utf8.RuneLen(r)
		if r == '\n' {
			pos.Line++
			pos.Col = 1
		} else {
			pos.Col++
		}
	}
	if r := t.Raw; len(r) > 0 && !utf8.ValidString(r) {
		// Invalid bytes count one column each; keep the offset exact.
		pos.Offset = t.End
	}
	return pos
}

func (p *parser) peek() Token { return p.peekAt(0) }

func (p *parser) peekAt(k int) Token {
	if t := p.rawPeek(k); !t.isTerminator() {
		return t
	}
	return p.eof()
}

func (p *parser) next() Token {
	t := p.peek()
	if t.Kind != EOF {
		p.pop()
		p.last, p.consumed = t, true
	}
	return t
}

// skipToEnd consumes the rest of the statement and returns the offset of
// its terminator.
func (p *parser) skipToEnd() int {
	for p.peek().Kind != EOF {
		p.next()
	}
	return p.rawPeek(0).Pos.Offset
}

func (p *parser) errorf(pos Pos, format string, args ...any) error {
	w := fmt.Errorf(format, args...) // a %w argument stays wrapped
	var inner error
	if u := errors.Unwrap(w); u != nil {
		inner = u
	} else if _, multi := w.(interface{ Unwrap() []error }); multi {
		inner = w
	}
	return &SyntaxError{Statement: p.n, Pos: pos, Msg: w.Error(), Err: inner}
}

// unexpected reports t where something else was wanted.
func (p *parser) unexpected(t Token, want string) error {
	if t.Kind == Illegal {
		return p.errorf(t.Pos, "%s", t.Err)
	}
	if want == "" {
		return p.errorf(t.Pos, "unexpected %s", t.describe())
	}
	return p.errorf(t.Pos, "expected %s, found %s", want, t.describe())
}

func (p *parser) acceptKeyword(kws ...string) bool {
	t := p.peek()
	for _, kw := range kws {
		if t.isKeyword(kw) {
			p.next()
			return true
		}
	}
	return false
}

func (p *parser) expectKeyword(kw string) (Token, error) {
	t := p.peek()
	if !t.isKeyword(kw) {
		return t, p.unexpected(t, kw)
	}
	p.next()
	return t, nil
}

func (p *parser) acceptSymbol(s string) bool {
	if t := p.peek(); t.Kind == Symbol && t.Text == s {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectSymbol(s string) (Token, error) {
	t := p.peek()
	if t.Kind != Symbol || t.Text != s {
		return t, p.unexpected(t, fmt.Sprintf("%q", s))
	}
	p.next()
	return t, nil
}

// end checks that nothing follows the statement.
func (p *parser) end() error {
	if t := p.peek(); t.Kind != EOF {
		return p.unexpected(t, "end of statement")
	}
	return nil
}

func (p *parser) statement() (Statement, error) {
	t := p.peek()
	base := stmtBase{N: p.n, Pos: t.Pos}
	var (
		s   Statement
		err error
	)
	switch {
	case t.isKeyword("CREATE") && p.isCreateView():
		s, err = p.createView(base)
	case t.isKeyword("CREATE"):
		s, err = p.createTable(base)
	case t.isKeyword("DROP") && p.peekAt(1).isKeyword("VIEW"):
		s, err = p.dropView(base)
	case t.isKeyword("DROP"):
		s, err = p.dropTable(base)
	case t.isKeyword("SHOW"):
		s, err = p.show(base)
	case t.isKeyword("DESCRIBE"), t.isKeyword("DESC"):
		s, err = p.describe(base)
	case t.isKeyword("SET"):
		return p.set(base)
	case t.isKeyword("RESET"):
		return p.reset(base)
	case t.isKeyword("SELECT"), t.isKeyword("WITH"), t.isKeyword("VALUES"), t.Kind == Symbol && t.Text == "(":
		s, err = p.selectStmt(base)
	case t.isKeyword("EXPLAIN"):
		p.next()
		var sel *Select
		if sel, err = p.selectStmt(stmtBase{N: base.N, Pos: p.peek().Pos}); err == nil {
			sel.stmtBase, sel.Explain = base, true
			s = sel
		}
	case t.isKeyword("INSERT"):
		s, err = p.insert(base)
	default:
		return nil, p.unexpected(t, "a statement (CREATE, DROP, SHOW, DESCRIBE, SET, RESET, SELECT or INSERT)")
	}
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return s, nil
}

// reserved words cannot be bare column names or aliases.
var reserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "LIMIT": true, "AND": true, "OR": true, "NOT": true,
	"IS": true, "NULL": true, "TRUE": true, "FALSE": true, "AS": true,
	"GROUP": true, "BY": true, "ORDER": true, "HAVING": true, "JOIN": true, "ON": true, "USING": true,
	"UNION": true, "LATERAL": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true,
	"OUTER": true, "DISTINCT": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true,
	"IN": true, "BETWEEN": true, "LIKE": true, "ILIKE": true, "WITH": true, "OFFSET": true,
	"INTERSECT": true, "EXCEPT": true, "MINUS": true, "NATURAL": true, "SEMI": true, "ANTI": true,
	"WINDOW": true, "CLUSTER": true, "DISTRIBUTE": true, "SORT": true, "QUALIFY": true, "PIVOT": true,
	"UNPIVOT": true, "TABLESAMPLE": true, "RLIKE": true, "REGEXP": true, "ESCAPE": true, "EXISTS": true,
}

func isReserved(t Token) bool { return t.Kind == Ident && reserved[strings.ToUpper(t.Text)] }

// ident reads a bare or back-quoted identifier; what names the thing wanted
// in errors.
func (p *parser) ident(what string) (Token, error) { return p.identOpt(what, false) }

// fieldIdent reads the part after a ".", where even a reserved word is
// unambiguous (`page.limit`).
func (p *parser) fieldIdent(what string) (Token, error) { return p.identOpt(what, true) }

func (p *parser) identOpt(what string, anyWord bool) (Token, error) {
	t := p.peek()
	if t.Kind == QuotedID || t.Kind == Ident && (anyWord || !isReserved(t)) {
		p.next()
		if t.Kind == QuotedID && t.Text == "" {
			return t, p.errorf(t.Pos, "empty %s", what)
		}
		return t, nil
	}
	return t, p.unexpected(t, what)
}

func (p *parser) tableName() (TableName, error) {
	first, err := p.ident("a table name (ns.table)")
	if err != nil {
		return TableName{}, err
	}
	tn := TableName{Name: first.Text, Pos: first.Pos}
	if p.acceptSymbol(".") {
		second, err := p.fieldIdent("a table name after the namespace")
		if err != nil {
			return TableName{}, err
		}
		tn.Namespace, tn.Name = first.Text, second.Text
		if t := p.peek(); t.Kind == Symbol && t.Text == "." {
			return TableName{}, p.errorf(t.Pos, "table name %s.%s.… has too many parts (want ns.table)", first.Text, second.Text)
		}
	}
	return tn, nil
}

func (p *parser) createTable(base stmtBase) (Statement, error) {
	p.next() // CREATE
	s := &CreateTable{stmtBase: base}
	s.External = p.acceptKeyword("EXTERNAL")
	if _, err := p.expectKeyword("TABLE"); err != nil {
		return nil, err
	}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if p.acceptSymbol("(") {
		seen := map[string]bool{}
		for {
			c, err := p.columnDef()
			if err != nil {
				return nil, err
			}
			if seen[strings.ToLower(c.Name)] {
				return nil, p.errorf(c.Pos, "column %s is defined twice", c.Name)
			}
			seen[strings.ToLower(c.Name)] = true
			s.Columns = append(s.Columns, c)
			if p.acceptSymbol(",") {
				continue
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return nil, p.unexpected(p.peek(), `"," or ")"`)
			}
			break
		}
	}
	var haveLoc, haveProps bool
	for {
		t := p.peek()
		switch {
		case t.isKeyword("USING") && s.Using == "":
			p.next()
			f, err := p.ident("a data source format after USING (parquet)")
			if err != nil {
				return nil, err
			}
			s.Using = f.Text
		case t.isKeyword("COMMENT"):
			p.next()
			if v := p.next(); v.Kind != String {
				return nil, p.unexpected(v, "a quoted comment")
			}
		case t.isKeyword("OPTIONS"), t.isKeyword("PARTITIONED"), t.isKeyword("CLUSTERED"):
			return nil, p.errorf(t.Pos, "CREATE TABLE … %s is not supported", strings.ToUpper(t.Text))
		case t.isKeyword("AS"):
			p.next()
			q, err := p.selectStmt(stmtBase{N: p.n, Pos: p.peek().Pos})
			if err != nil {
				return nil, err
			}
			s.Query = q
			return s, nil
		case t.isKeyword("LOCATION"):
			if haveLoc {
				return nil, p.errorf(t.Pos, "LOCATION given twice")
			}
			haveLoc = true
			p.next()
			v := p.next()
			switch v.Kind {
			case String:
				s.Location = v.Text
			case Param:
				if s.Location, err = p.textParam(v, "LOCATION"); err != nil {
					return nil, err
				}
			default:
				return nil, p.unexpected(v, "a quoted location")
			}
		case t.isKeyword("TBLPROPERTIES"):
			if haveProps {
				return nil, p.errorf(t.Pos, "TBLPROPERTIES given twice")
			}
			haveProps = true
			p.next()
			if s.Properties, err = p.properties(); err != nil {
				return nil, err
			}
		default:
			return s, nil
		}
	}
}

// columnDef reads `name type`; the type runs to the next `,` or `)` outside
// angle brackets and parentheses and must be a type Sluice knows.
func (p *parser) columnDef() (ColumnDef, error) {
	name, err := p.ident("a column name")
	if err != nil {
		return ColumnDef{}, err
	}
	first := p.peek()
	if first.Kind != Ident {
		return ColumnDef{}, p.unexpected(first, "a type for column "+name.Text)
	}
	depth := 0
	last := first
	for {
		t := p.peek()
		if t.Kind == EOF || t.Kind == Illegal {
			break
		}
		if t.Kind == Symbol {
			switch t.Text {
			case "<", "(":
				depth++
			case ">", ")":
				if depth == 0 {
					goto done
				}
				depth--
			case ">>", ">>>": // the ends of nested types: array<array<int>>
				depth -= len(t.Text)
				if depth < 0 {
					goto done
				}
			case "<>": // `struct<>`
			case ",":
				if depth == 0 {
					goto done
				}
			}
		}
		last = p.next()
	}
done:
	if depth != 0 {
		t := p.peek()
		return ColumnDef{}, p.unexpected(t, "the end of type "+p.lx.src[first.Pos.Offset:last.End])
	}
	typ := p.lx.src[first.Pos.Offset:last.End]
	dt, err := sparktype.ParseType(typ)
	if err != nil {
		return ColumnDef{}, p.errorf(first.Pos, "column %s: %w", name.Text, err)
	}
	return ColumnDef{Name: name.Text, Type: sparktype.Name(dt), Pos: name.Pos}, nil
}

func (p *parser) properties() ([]Property, error) {
	if _, err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	var props []Property
	seen := map[string]bool{}
	if p.acceptSymbol(")") {
		return props, nil
	}
	for {
		k := p.peek()
		var key string
		switch {
		case k.Kind == String:
			p.next()
			key = k.Text
		case k.Kind == Ident || k.Kind == QuotedID:
			// Spark also takes an unquoted dotted key: svc.storage.type='RESTAPI'.
			p.next()
			parts := []string{k.Text}
			for p.acceptSymbol(".") {
				t := p.next()
				if t.Kind != Ident && t.Kind != QuotedID {
					return nil, p.unexpected(t, "the rest of property key "+strings.Join(parts, "."))
				}
				parts = append(parts, t.Text)
			}
			key = strings.Join(parts, ".")
		default:
			return nil, p.unexpected(k, "a quoted property key")
		}
		if key == "" {
			return nil, p.errorf(k.Pos, "empty property key")
		}
		if seen[key] {
			return nil, p.errorf(k.Pos, "property %q is given twice", key)
		}
		seen[key] = true
		if _, err := p.expectSymbol("="); err != nil {
			return nil, err
		}
		v := p.next()
		var val string
		switch {
		case v.Kind == String:
			val = v.Text
		case v.Kind == Number:
			val = v.Text
		case v.isKeyword("TRUE"), v.isKeyword("FALSE"):
			val = strings.ToLower(v.Text)
		case v.Kind == Symbol && v.Text == "-" && p.peek().Kind == Number:
			val = "-" + p.next().Text
		case v.Kind == Param:
			var err error
			if val, err = p.textParam(v, "property "+strconv.Quote(key)); err != nil {
				return nil, err
			}
		default:
			// Not the token's text: it is likely the value itself, unquoted,
			// and the value may be a secret.
			return nil, p.errorf(v.Pos, "expected a quoted value for property %q, found %s", key, v.describeOpaque())
		}
		props = append(props, Property{Key: key, Value: val, Pos: k.Pos})
		if p.acceptSymbol(",") {
			continue
		}
		if _, err := p.expectSymbol(")"); err != nil {
			t := p.peek()
			// A word here is most likely the rest of a value quoted short.
			return nil, p.errorf(t.Pos, `expected "," or ")", found %s`, t.describeOpaque())
		}
		return props, nil
	}
}

// ifNotExists reads an optional IF NOT EXISTS.
func (p *parser) ifNotExists() (bool, error) {
	if !p.acceptKeyword("IF") {
		return false, nil
	}
	if _, err := p.expectKeyword("NOT"); err != nil {
		return false, err
	}
	_, err := p.expectKeyword("EXISTS")
	return err == nil, err
}

// ifExists reads an optional IF EXISTS.
func (p *parser) ifExists() (bool, error) {
	if !p.acceptKeyword("IF") {
		return false, nil
	}
	_, err := p.expectKeyword("EXISTS")
	return err == nil, err
}

// isCreateView says whether the CREATE ahead creates a view.
func (p *parser) isCreateView() bool {
	for k := 1; k < 6; k++ {
		t := p.peekAt(k)
		switch {
		case t.isKeyword("VIEW"):
			return true
		case t.isKeyword("OR"), t.isKeyword("REPLACE"), t.isKeyword("GLOBAL"), t.isKeyword("TEMPORARY"), t.isKeyword("TEMP"):
		default:
			return false
		}
	}
	return false
}

// createView reads CREATE [OR REPLACE] [GLOBAL] TEMPORARY|TEMP VIEW [IF NOT
// EXISTS] name [(col [COMMENT '…'], …)] AS query.
func (p *parser) createView(base stmtBase) (Statement, error) {
	p.next() // CREATE
	s := &CreateView{stmtBase: base}
	if p.acceptKeyword("OR") {
		if _, err := p.expectKeyword("REPLACE"); err != nil {
			return nil, err
		}
		s.Replace = true
	}
	s.Global = p.acceptKeyword("GLOBAL")
	if t := p.peek(); !p.acceptKeyword("TEMPORARY", "TEMP") {
		return nil, p.errorf(t.Pos, "CREATE VIEW (a view kept in the catalog) is not supported; use CREATE TEMPORARY VIEW")
	}
	if _, err := p.expectKeyword("VIEW"); err != nil {
		return nil, err
	}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	name, err := p.ident("a view name")
	if err != nil {
		return nil, err
	}
	if p.peek().Text == "." {
		return nil, p.errorf(p.peek().Pos, "a temporary view's name has one part (no namespace; a GLOBAL one is global_temp.name)")
	}
	s.Name = name.Text
	if p.acceptSymbol("(") {
		for {
			c, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			s.Columns = append(s.Columns, c.Text)
			if p.acceptKeyword("COMMENT") {
				if v := p.next(); v.Kind != String {
					return nil, p.unexpected(v, "a quoted comment")
				}
			}
			if !p.acceptSymbol(",") {
				break
			}
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.unexpected(p.peek(), `"," or ")"`)
		}
	}
	if _, err := p.expectKeyword("AS"); err != nil {
		return nil, err
	}
	if s.Query, err = p.queryExpr(); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) dropView(base stmtBase) (Statement, error) {
	p.next() // DROP
	p.next() // VIEW
	s := &DropView{stmtBase: base}
	var err error
	if s.IfExists, err = p.ifExists(); err != nil {
		return nil, err
	}
	name, err := p.ident("a view name")
	if err != nil {
		return nil, err
	}
	s.Name = name.Text
	if strings.EqualFold(name.Text, "global_temp") && p.acceptSymbol(".") {
		n, err := p.fieldIdent("a view name after global_temp.")
		if err != nil {
			return nil, err
		}
		s.Name, s.Global = n.Text, true
	}
	return s, nil
}

func (p *parser) dropTable(base stmtBase) (Statement, error) {
	p.next() // DROP
	if _, err := p.expectKeyword("TABLE"); err != nil {
		return nil, err
	}
	s := &DropTable{stmtBase: base}
	var err error
	if s.IfExists, err = p.ifExists(); err != nil {
		return nil, err
	}
	s.Table, err = p.tableName()
	return s, err
}

func (p *parser) show(base stmtBase) (Statement, error) {
	p.next() // SHOW
	t := p.next()
	switch {
	case t.isKeyword("TABLES"):
		s := &ShowTables{stmtBase: base}
		if p.acceptKeyword("IN", "FROM") {
			ns, err := p.ident("a namespace")
			if err != nil {
				return nil, err
			}
			s.Namespace = ns.Text
		}
		return s, nil
	case t.isKeyword("NAMESPACES"), t.isKeyword("DATABASES"), t.isKeyword("SCHEMAS"):
		return &ShowNamespaces{stmtBase: base}, nil
	}
	return nil, p.unexpected(t, "TABLES or NAMESPACES")
}

func (p *parser) describe(base stmtBase) (Statement, error) {
	p.next() // DESCRIBE
	p.acceptKeyword("TABLE")
	// EXTENDED / FORMATTED change nothing: the detailed rows always follow.
	if t := p.peek(); (t.isKeyword("EXTENDED") || t.isKeyword("FORMATTED")) && p.peekAt(1).Kind != EOF {
		p.next()
	}
	tn, err := p.tableName()
	if err != nil {
		return nil, err
	}
	return &Describe{stmtBase: base, Table: tn}, nil
}

// set takes the raw text after SET: Spark reads `SET k=v` by splitting on
// the first `=`, so values may hold any character (URLs, `{tokens}`). A value
// that is one quoted string is unquoted.
func (p *parser) set(base stmtBase) (Statement, error) {
	kw := p.next()
	if p.peek().isKeyword("TIME") && p.peekAt(1).isKeyword("ZONE") {
		return p.setTimeZone(base)
	}
	s := &Set{stmtBase: base}
	raw := strings.TrimSpace(p.lx.rawText(kw.End, p.skipToEnd()))
	if raw == "" {
		return s, nil
	}
	keyPart, val, hasVal := strings.Cut(raw, "=")
	key, err := p.settingKey(strings.TrimSpace(keyPart), kw)
	if err != nil {
		return nil, err
	}
	s.Key, s.HasKey = key, true
	if hasVal {
		s.Value, s.HasValue = unquoteValue(strings.TrimSpace(val)), true
	}
	return s, nil
}

// TimeZoneKey is the setting SET TIME ZONE sets (query.TimeZoneSetting).
const TimeZoneKey = "spark.sql.session.timeZone"

// setTimeZone is Spark's SET TIME ZONE LOCAL | 'zone' | INTERVAL …, which
// sets spark.sql.session.timeZone (docs/sql.md#time-zone): LOCAL is the
// machine's zone, an interval a fixed offset within ±18 hours.
func (p *parser) setTimeZone(base stmtBase) (Statement, error) {
	p.next() // TIME
	zone := p.next()
	s := &Set{stmtBase: base, Key: TimeZoneKey, HasKey: true, HasValue: true}
	t := p.next()
	switch {
	case t.isKeyword("LOCAL"):
		s.Value = localZoneName()
	case t.Kind == String:
		s.Value = t.Text
	case t.isKeyword("INTERVAL"):
		off, err := p.zoneOffset(t)
		if err != nil {
			return nil, err
		}
		s.Value = off
	case t.Kind == EOF:
		return nil, p.errorf(posAfter(zone), "SET TIME ZONE wants LOCAL, a time zone string or an INTERVAL")
	default:
		return nil, p.unexpected(t, "LOCAL, a time zone string or an INTERVAL")
	}
	if end := p.peek(); end.Kind != EOF {
		return nil, p.unexpected(end, "the end of the statement")
	}
	return s, nil
}

// zoneOffset reads the interval of SET TIME ZONE INTERVAL as an offset
// (+hh:mm[:ss]): `'08:30' HOUR TO MINUTE`, `'-08' HOUR`, `10 HOURS`,
// `1 HOUR 30 MINUTES`.
func (p *parser) zoneOffset(kw Token) (string, error) {
	unitSecs := map[string]int{"HOUR": 3600, "HOURS": 3600, "MINUTE": 60, "MINUTES": 60, "SECOND": 1, "SECONDS": 1}
	secs := 0
	if t := p.peek(); t.Kind == String {
		// 'h[:m[:s]]' HOUR [TO MINUTE | TO SECOND], or 'n' UNIT.
		p.next()
		text := strings.TrimSpace(t.Text)
		sign := 1
		if text != "" && (text[0] == '-' || text[0] == '+') {
			if text[0] == '-' {
				sign = -1
			}
			text = text[1:]
		}
		u := p.next()
		per, ok := unitSecs[strings.ToUpper(u.Text)]
		if u.Kind != Ident || !ok {
			return "", p.unexpected(u, "HOUR, MINUTE or SECOND")
		}
		parts := strings.Split(text, ":")
		if p.acceptKeyword("TO") {
			to := p.next()
			if !to.isKeyword("MINUTE") && !to.isKeyword("SECOND") {
				return "", p.unexpected(to, "MINUTE or SECOND")
			}
		}
		mult := []int{per, per / 60, per / 3600}
		for k, part := range parts {
			n, err := strconv.Atoi(part)
			if err != nil || n < 0 || k > 0 && n > 59 || k > 2 || mult[k] == 0 {
				return "", p.errorf(t.Pos, "%s is not an interval of hours, minutes and seconds", t.Raw)
			}
			secs += n * mult[k]
		}
		secs *= sign
	} else {
		for n := 0; ; n++ {
			t := p.peek()
			if t.Kind == EOF && n > 0 {
				break
			}
			sign := 1
			if t.Kind == Symbol && (t.Text == "-" || t.Text == "+") {
				p.next()
				if t.Text == "-" {
					sign = -1
				}
				t = p.peek()
			}
			v, err := strconv.Atoi(t.Text)
			if t.Kind != Number || err != nil {
				return "", p.unexpected(t, "a number of hours, minutes or seconds")
			}
			p.next()
			u := p.next()
			per, ok := unitSecs[strings.ToUpper(u.Text)]
			if u.Kind != Ident || !ok {
				return "", p.unexpected(u, "HOUR, MINUTE or SECOND")
			}
			secs += sign * v * per
		}
	}
	if secs < -18*3600 || secs > 18*3600 {
		return "", p.errorf(kw.Pos, "SET TIME ZONE INTERVAL: the offset must be within ±18 hours")
	}
	sign := byte('+')
	if secs < 0 {
		sign, secs = '-', -secs
	}
	off := fmt.Sprintf("%c%02d:%02d", sign, secs/3600, secs/60%60)
	if secs%60 != 0 {
		off += fmt.Sprintf(":%02d", secs%60)
	}
	return off, nil
}

// localZoneName is the machine's time zone as SET TIME ZONE LOCAL names
// it: $TZ, else the region /etc/localtime links to, else its offset now.
func localZoneName() string {
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" {
		if _, err := time.LoadLocation(tz); err == nil {
			return tz
		}
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if i := strings.Index(target, "zoneinfo/"); i >= 0 {
			if _, err := time.LoadLocation(target[i+len("zoneinfo/"):]); err == nil {
				return target[i+len("zoneinfo/"):]
			}
		}
	}
	_, off := time.Now().Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%c%02d:%02d", sign, off/3600, off/60%60)
}

func (p *parser) reset(base stmtBase) (Statement, error) {
	kw := p.next()
	s := &Reset{stmtBase: base}
	raw := strings.TrimSpace(p.lx.rawText(kw.End, p.skipToEnd()))
	if raw == "" {
		return s, nil
	}
	key, err := p.settingKey(raw, kw)
	if err != nil {
		return nil, err
	}
	s.Key = key
	return s, nil
}

// settingKey checks a SET/RESET key: one word, or a back-quoted name.
func (p *parser) settingKey(k string, kw Token) (string, error) {
	if len(k) >= 2 && k[0] == '`' && k[len(k)-1] == '`' {
		k = strings.ReplaceAll(k[1:len(k)-1], "``", "`")
	}
	if k == "" {
		return "", p.errorf(posAfter(kw), "SET wants key=value, key or nothing; the key is missing")
	}
	if strings.IndexFunc(k, unicode.IsSpace) >= 0 {
		return "", p.errorf(posAfter(kw), "setting key %q contains a space (back-quote it)", k)
	}
	return k, nil
}

func unquoteValue(v string) string {
	if len(v) < 2 {
		return v
	}
	q := v[0]
	if (q != '\'' && q != '"') || v[len(v)-1] != q {
		return v
	}
	inner := v[1 : len(v)-1]
	// Only a single well-formed string is unquoted: 'a' 'b' stays as typed.
	doubled := string([]byte{q, q})
	if strings.Count(strings.ReplaceAll(inner, doubled, ""), string(q)) != 0 {
		return v
	}
	return strings.ReplaceAll(inner, doubled, string(q))
}

// literal reads a string, a number (with an optional sign), TRUE, FALSE or NULL.
func (p *parser) literal(want string) (*Literal, error) {
	t := p.next()
	switch {
	case t.Kind == String:
		return &Literal{Value: t.Text, Raw: t.Raw, Pos: t.Pos}, nil
	case t.Kind == Number:
		return p.number(t, "")
	case t.Kind == Symbol && (t.Text == "-" || t.Text == "+"):
		n := p.peek()
		if n.Kind != Number {
			return nil, p.unexpected(n, "a number after "+t.Text)
		}
		p.next()
		lit, err := p.number(n, t.Text)
		if err != nil {
			return nil, err
		}
		lit.Pos = t.Pos
		return lit, nil
	case t.isKeyword("TRUE"):
		return &Literal{Value: true, Raw: "true", Pos: t.Pos}, nil
	case t.isKeyword("FALSE"):
		return &Literal{Value: false, Raw: "false", Pos: t.Pos}, nil
	case t.isKeyword("NULL"):
		return &Literal{Value: nil, Raw: "NULL", Pos: t.Pos}, nil
	case t.Kind == Param:
		return p.valuesParam(t)
	}
	return nil, p.unexpected(t, want)
}

func (p *parser) number(t Token, sign string) (*Literal, error) {
	text := t.Text
	if sign == "-" {
		text = "-" + text
	}
	if !strings.ContainsAny(t.Text, ".eE") {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return &Literal{Value: n, Raw: text, Pos: t.Pos}, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, p.errorf(t.Pos, "number %s is out of range", text)
	}
	return &Literal{Value: f, Raw: text, Pos: t.Pos}, nil
}

func (p *parser) insert(base stmtBase) (Statement, error) {
	p.next() // INSERT
	s := &Insert{stmtBase: base}
	if p.acceptKeyword("OVERWRITE") {
		s.Overwrite = true
	} else if _, err := p.expectKeyword("INTO"); err != nil {
		return nil, p.unexpected(p.peek(), "INTO or OVERWRITE")
	}
	p.acceptKeyword("TABLE")
	var err error
	if s.Table, err = p.tableName(); err != nil {
		return nil, err
	}
	if t := p.peek(); s.Overwrite && (t.isKeyword("PARTITION") || t.isKeyword("IF")) {
		return nil, p.errorf(t.Pos, "INSERT OVERWRITE … %s is not supported", strings.ToUpper(t.Text))
	}
	if p.acceptSymbol("(") {
		seen := map[string]bool{}
		for {
			c, err := p.ident("a column name")
			if err != nil {
				return nil, err
			}
			if seen[c.Text] {
				return nil, p.errorf(c.Pos, "column %s is listed twice", c.Text)
			}
			seen[c.Text] = true
			s.Columns = append(s.Columns, c.Text)
			if p.acceptSymbol(",") {
				continue
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return nil, p.unexpected(p.peek(), `"," or ")"`)
			}
			break
		}
	}
	t := p.peek()
	switch {
	case t.isKeyword("SELECT"), t.isKeyword("WITH"):
		q, err := p.selectStmt(stmtBase{N: base.N, Pos: t.Pos})
		if err != nil {
			return nil, err
		}
		s.Query = q
		return s, nil
	case t.isKeyword("VALUES"):
		p.next()
		for {
			open, err := p.expectSymbol("(")
			if err != nil {
				return nil, err
			}
			var row []*Literal
			for {
				lit, err := p.literal("a value (string, number, TRUE, FALSE or NULL)")
				if err != nil {
					return nil, err
				}
				row = append(row, lit)
				if p.acceptSymbol(",") {
					continue
				}
				if _, err := p.expectSymbol(")"); err != nil {
					return nil, p.unexpected(p.peek(), `"," or ")"`)
				}
				break
			}
			if len(s.Rows) > 0 && len(row) != len(s.Rows[0]) {
				return nil, p.errorf(open.Pos, "row %d has %d values, row 1 has %d", len(s.Rows)+1, len(row), len(s.Rows[0]))
			}
			if len(s.Columns) > 0 && len(row) != len(s.Columns) {
				return nil, p.errorf(open.Pos, "row %d has %d values for %d listed columns", len(s.Rows)+1, len(row), len(s.Columns))
			}
			s.Rows = append(s.Rows, row)
			if !p.acceptSymbol(",") {
				return s, nil
			}
		}
	}
	return nil, p.unexpected(t, "SELECT or VALUES")
}
