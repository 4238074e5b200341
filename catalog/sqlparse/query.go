package sqlparse

import (
	"strings"
	"unicode"

	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/suggest"
)

// The query grammar (docs/sql.md#select): SELECT blocks, UNION, WITH,
// joins, LATERAL VIEW and Spark's expression syntax, parsed into the query
// engine's tree (package dataframe/query). Constructs of Spark SQL outside
// the dialect are reported as "… is not supported" where they start.

// notSupported names Spark SQL words that begin a construct the dialect
// lacks.
var notSupported = map[string]string{
	"CLUSTER":    "CLUSTER BY",
	"DISTRIBUTE": "DISTRIBUTE BY", "SORT": "SORT BY", "QUALIFY": "QUALIFY", "PIVOT": "PIVOT",
	"UNPIVOT": "UNPIVOT", "TABLESAMPLE": "TABLESAMPLE",
	"TRANSFORM": "TRANSFORM", "MAP": "MAP", "REDUCE": "REDUCE",
}

// unsupportedAt is the error for t when it starts an unsupported construct,
// else nil.
func (p *parser) unsupportedAt(t Token) error {
	if t.Kind == Ident {
		if what, ok := notSupported[strings.ToUpper(t.Text)]; ok {
			return p.errorf(t.Pos, "%s is not supported", what)
		}
	}
	if t.Kind == Symbol {
		switch t.Text {
		case "!":
			return p.errorf(t.Pos, "the operator %s is not supported", t.Text)
		}
	}
	return nil
}

// fail is unexpected(t, want), unless t starts an unsupported construct.
func (p *parser) fail(t Token, want string) error {
	if err := p.unsupportedAt(t); err != nil {
		return err
	}
	return p.unexpected(t, want)
}

func (p *parser) selectStmt(base stmtBase) (*Select, error) {
	q, err := p.queryExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.Kind != EOF {
		if t.Kind == Ident {
			if _, near := suggest.Closest(t.Text, []string{"FROM"}); near && !t.isKeyword("FROM") {
				return nil, p.unexpected(t, "FROM")
			}
		}
		return nil, p.fail(t, "end of statement")
	}
	return &Select{stmtBase: base, Query: q}, nil
}

// queryExpr is [WITH …] setExpr [ORDER BY …] [LIMIT n [OFFSET m]].
func (p *parser) queryExpr() (query.Query, error) {
	start := p.peek()
	var with []query.CTE
	if p.acceptKeyword("WITH") {
		if t := p.peek(); t.isKeyword("RECURSIVE") {
			return nil, p.errorf(t.Pos, "WITH RECURSIVE is not supported")
		}
		for {
			name, err := p.ident("a name for the WITH query")
			if err != nil {
				return nil, err
			}
			cte := query.CTE{Name: name.Text, Pos: name.Pos}
			if p.acceptSymbol("(") {
				if cte.Columns, err = p.columnNames(); err != nil {
					return nil, err
				}
				if _, err := p.expectSymbol(")"); err != nil {
					return nil, err
				}
			}
			if _, err := p.expectKeyword("AS"); err != nil {
				return nil, err
			}
			if _, err := p.expectSymbol("("); err != nil {
				return nil, err
			}
			if cte.Query, err = p.parenQueryRest(); err != nil {
				return nil, err
			}
			for _, c := range with {
				if strings.EqualFold(c.Name, cte.Name) {
					return nil, p.errorf(name.Pos, "the WITH query %s is defined twice", name.Text)
				}
			}
			with = append(with, cte)
			if !p.acceptSymbol(",") {
				break
			}
		}
	}
	q, err := p.setExpr()
	if err != nil {
		return nil, err
	}
	order, limit, offset, err := p.orderLimit()
	if err != nil {
		return nil, err
	}
	switch x := q.(type) {
	case *query.Select:
		if order != nil || limit != nil || offset != nil {
			if x.OrderBy != nil || x.Limit != nil || x.Offset != nil {
				// (SELECT … LIMIT 1) ORDER BY …: wrap.
				q = &query.Select{Items: []query.SelectItem{{Expr: &query.Star{Pos: start.Pos}, Pos: start.Pos}},
					From: &query.SubqueryRef{Query: x, Pos: start.Pos}, Pos: start.Pos}
				x = q.(*query.Select)
			}
			x.OrderBy, x.Limit, x.Offset = order, limit, offset
		}
		x.With = append(with, x.With...)
	case *query.SetOp:
		x.OrderBy, x.Limit, x.Offset = order, limit, offset
		x.With = with
	}
	return q, nil
}

// setExpr is term {(UNION | EXCEPT | MINUS) [ALL | DISTINCT] term}, where
// INTERSECT binds tighter than UNION and EXCEPT (as in Spark and the SQL
// standard).
func (p *parser) setExpr() (query.Query, error) {
	q, err := p.intersectTerm()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !t.isKeyword("UNION") && !t.isKeyword("EXCEPT") && !t.isKeyword("MINUS") {
			return q, nil
		}
		p.next()
		op := strings.ToUpper(t.Text)
		if op == "MINUS" {
			op = "EXCEPT"
		}
		all := p.acceptKeyword("ALL")
		if !all {
			p.acceptKeyword("DISTINCT")
		}
		r, err := p.intersectTerm()
		if err != nil {
			return nil, err
		}
		q = &query.SetOp{Op: op, All: all, L: q, R: r, Pos: t.Pos}
	}
}

func (p *parser) intersectTerm() (query.Query, error) {
	q, err := p.queryBlock()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !t.isKeyword("INTERSECT") {
			return q, nil
		}
		p.next()
		all := p.acceptKeyword("ALL")
		if !all {
			p.acceptKeyword("DISTINCT")
		}
		r, err := p.queryBlock()
		if err != nil {
			return nil, err
		}
		q = &query.SetOp{Op: "INTERSECT", All: all, L: q, R: r, Pos: t.Pos}
	}
}

// parenQueryRest reads a query and the `)` that closes it, once the `(`
// before it was read (subqueries, CTE bodies).
func (p *parser) parenQueryRest() (query.Query, error) {
	q, err := p.queryExpr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expectSymbol(")"); err != nil {
		return nil, p.fail(p.peek(), `")"`)
	}
	return q, nil
}

// queryBlock is a SELECT block or a parenthesised query.
func (p *parser) queryBlock() (query.Query, error) {
	if p.acceptSymbol("(") {
		return p.parenQueryRest()
	}
	t := p.peek()
	if t.isKeyword("VALUES") {
		// VALUES (…), (…) as a query: SELECT * FROM the inline table.
		v, err := p.values()
		if err != nil {
			return nil, err
		}
		return &query.Select{Items: []query.SelectItem{{Expr: &query.Star{Pos: t.Pos}, Pos: t.Pos}}, From: v, Pos: t.Pos}, nil
	}
	if !t.isKeyword("SELECT") {
		return nil, p.fail(t, "SELECT")
	}
	p.next()
	s := &query.Select{Pos: t.Pos}
	if p.acceptKeyword("DISTINCT") {
		s.Distinct = true
	} else if n := p.peekAt(1); !(n.Kind == Symbol && n.Text == ",") && !n.isKeyword("FROM") {
		p.acceptKeyword("ALL") // SELECT ALL a; but SELECT all, b selects a column all
	}
	items, err := commaList(p, p.selectItem)
	if err != nil {
		return nil, err
	}
	s.Items = items
	if p.acceptKeyword("FROM") {
		if s.From, err = p.fromClause(); err != nil {
			return nil, err
		}
	}
	if p.acceptKeyword("WHERE") {
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.isKeyword("GROUP") {
		p.next()
		if _, err := p.expectKeyword("BY"); err != nil {
			return nil, err
		}
		if s.GroupBy, err = p.groupBy(); err != nil {
			return nil, err
		}
	}
	if p.acceptKeyword("HAVING") {
		if s.Having, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if p.acceptKeyword("WINDOW") {
		if s.Windows, err = p.windowClause(); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.Kind == Ident && notSupported[strings.ToUpper(t.Text)] != "" {
		return nil, p.unsupportedAt(t)
	}
	return s, nil
}

// values is an inline table: VALUES row, … [[AS] alias [(col, …)]], a row
// being (expr, …) or one expression.
func (p *parser) values() (*query.ValuesRef, error) {
	t := p.next() // VALUES
	v := &query.ValuesRef{Pos: t.Pos}
	for {
		var row []query.Expr
		if p.peek().Kind == Symbol && p.peek().Text == "(" && !p.startsQuery(1) {
			p.next()
			var err error
			// A value may carry an alias (1 AS one), which Spark ignores.
			if row, err = commaList(p, p.aliasedExpr); err != nil {
				return nil, err
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return nil, p.fail(p.peek(), `"," or ")"`)
			}
		} else {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			row = []query.Expr{e}
		}
		v.Rows = append(v.Rows, row)
		if !p.acceptSymbol(",") {
			break
		}
	}
	var err error
	if v.Alias, v.Columns, err = p.tableAlias(); err != nil {
		return nil, err
	}
	return v, nil
}

// aliasedExpr is an expression with an optional AS alias that is read
// and dropped (VALUES (1 AS one)).
func (p *parser) aliasedExpr() (query.Expr, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.acceptKeyword("AS") {
		if _, err := p.ident("an alias after AS"); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// startsQuery says whether the token k ahead starts a query (SELECT, WITH,
// VALUES).
func (p *parser) startsQuery(k int) bool {
	t := p.peekAt(k)
	return t.isKeyword("SELECT") || t.isKeyword("WITH") || t.isKeyword("VALUES")
}

// tableAlias reads an optional `[AS] alias [(col, …)]`.
func (p *parser) tableAlias() (string, []string, error) {
	a, err := p.alias()
	if err != nil || a == "" {
		return a, nil, err
	}
	var cols []string
	if p.acceptSymbol("(") {
		if cols, err = p.columnNames(); err != nil {
			return "", nil, err
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return "", nil, p.fail(p.peek(), `"," or ")"`)
		}
	}
	return a, cols, nil
}

func (p *parser) orderLimit() ([]query.OrderItem, query.Expr, query.Expr, error) {
	var order []query.OrderItem
	var err error
	if t := p.peek(); t.isKeyword("ORDER") {
		p.next()
		if _, err := p.expectKeyword("BY"); err != nil {
			return nil, nil, nil, err
		}
		if order, err = p.orderItems(); err != nil {
			return nil, nil, nil, err
		}
	}
	var limit, offset query.Expr
	if p.acceptKeyword("LIMIT") {
		if !p.acceptKeyword("ALL") {
			if limit, err = p.expr(); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if p.acceptKeyword("OFFSET") {
		if offset, err = p.expr(); err != nil {
			return nil, nil, nil, err
		}
	}
	return order, limit, offset, nil
}

// aliasNext reads an optional `[AS] alias`.
func (p *parser) alias() (string, error) {
	if p.acceptKeyword("AS") {
		a, err := p.ident("an alias after AS")
		return a.Text, err
	}
	if a := p.peek(); a.Kind == QuotedID || a.Kind == Ident && !isReserved(a) && !clauseWord(a) {
		p.next()
		return a.Text, nil
	}
	return "", nil
}

// clauseWord is a word that may follow an item without AS and so is never
// taken for an alias.
func clauseWord(t Token) bool {
	switch strings.ToUpper(t.Text) {
	case "ASC", "DESC", "NULLS", "LIMIT", "OFFSET", "OVER", "FILTER", "VALUES":
		return true
	}
	return false
}

func (p *parser) selectItem() (query.SelectItem, error) {
	t := p.peek()
	if t.Kind == Symbol && t.Text == "*" {
		p.next()
		return query.SelectItem{Expr: &query.Star{Pos: t.Pos}, Pos: t.Pos}, nil
	}
	// t.* and ns.t.*
	if star, ok := p.qualifiedStar(); ok {
		return query.SelectItem{Expr: star, Pos: t.Pos}, nil
	}
	e, err := p.expr()
	if err != nil {
		return query.SelectItem{}, err
	}
	it := query.SelectItem{Expr: e, Pos: t.Pos}
	if p.acceptKeyword("AS") {
		if p.acceptSymbol("(") {
			// A generator's columns: explode(m) AS (k, v).
			if it.Aliases, err = p.columnNames(); err != nil {
				return it, err
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return it, err
			}
			return it, nil
		}
		a, err := p.ident("an alias after AS")
		if err != nil {
			return it, err
		}
		it.Alias = a.Text
	} else if a := p.peek(); a.Kind == QuotedID || a.Kind == Ident && !isReserved(a) && !clauseWord(a) {
		p.next()
		it.Alias = a.Text
	}
	return it, nil
}

// fromClause is a source followed by joins and lateral views.
func (p *parser) fromClause() (query.Source, error) {
	src, err := p.sourceItem()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.Kind == Symbol && t.Text == ",":
			p.next()
			r, err := p.sourceItem()
			if err != nil {
				return nil, err
			}
			src = &query.JoinRef{L: src, R: r, Kind: query.CrossJoin, Pos: t.Pos}
		case t.isKeyword("LATERAL"):
			p.next()
			if _, err := p.expectKeyword("VIEW"); err != nil {
				return nil, err
			}
			lv := &query.LateralView{Input: src, Pos: t.Pos}
			lv.Outer = p.acceptKeyword("OUTER")
			g, err := p.primary()
			if err != nil {
				return nil, err
			}
			call, ok := g.(*query.Call)
			if !ok {
				return nil, p.errorf(g.Position(), "LATERAL VIEW needs a generator call such as explode(x)")
			}
			lv.Gen = call
			a, err := p.ident("a table alias after LATERAL VIEW " + call.String())
			if err != nil {
				return nil, err
			}
			lv.Alias = a.Text
			// The column names, after AS or (as Spark allows) without it.
			if n := p.peek(); p.acceptKeyword("AS") || n.Kind == QuotedID || n.Kind == Ident && !isReserved(n) && !clauseWord(n) {
				if lv.Columns, err = p.columnNames(); err != nil {
					return nil, err
				}
			}
			src = lv
		case t.isKeyword("JOIN"), t.isKeyword("INNER"), t.isKeyword("LEFT"), t.isKeyword("RIGHT"),
			t.isKeyword("FULL"), t.isKeyword("CROSS"), t.isKeyword("NATURAL"), t.isKeyword("SEMI"), t.isKeyword("ANTI"):
			j, err := p.join(src)
			if err != nil {
				return nil, err
			}
			src = j
		default:
			return src, nil
		}
	}
}

// join reads `[NATURAL] [INNER | CROSS | LEFT [OUTER | SEMI | ANTI] |
// RIGHT [OUTER] | FULL [OUTER] | SEMI | ANTI] JOIN source [ON expr |
// USING (cols)]` after its left side. Without a condition a join pairs
// every row, as in Spark.
func (p *parser) join(left query.Source) (query.Source, error) {
	t := p.next()
	j := &query.JoinRef{L: left, Kind: query.InnerJoin, Pos: t.Pos}
	if t.isKeyword("NATURAL") {
		j.Natural = true
		t = p.next()
	}
	switch strings.ToUpper(t.Text) {
	case "JOIN":
	case "INNER":
	case "CROSS":
		j.Kind = query.CrossJoin
	case "LEFT":
		j.Kind = query.LeftJoin
		switch {
		case p.acceptKeyword("SEMI"):
			j.Kind = query.SemiJoin
		case p.acceptKeyword("ANTI"):
			j.Kind = query.AntiJoin
		default:
			p.acceptKeyword("OUTER")
		}
	case "RIGHT", "FULL":
		j.Kind = query.JoinKind(strings.ToUpper(t.Text))
		p.acceptKeyword("OUTER")
	case "SEMI":
		j.Kind = query.SemiJoin
	case "ANTI":
		j.Kind = query.AntiJoin
	default:
		return nil, p.fail(t, "JOIN")
	}
	if !t.isKeyword("JOIN") {
		if _, err := p.expectKeyword("JOIN"); err != nil {
			return nil, err
		}
	}
	r, err := p.sourceItem()
	if err != nil {
		return nil, err
	}
	j.R = r
	switch {
	case p.acceptKeyword("ON"):
		if j.Natural {
			return nil, p.errorf(p.last.Pos, "a NATURAL JOIN takes no ON condition")
		}
		if j.On, err = p.expr(); err != nil {
			return nil, err
		}
	case p.acceptKeyword("USING"):
		if j.Natural {
			return nil, p.errorf(p.last.Pos, "a NATURAL JOIN takes no USING list")
		}
		if _, err := p.expectSymbol("("); err != nil {
			return nil, err
		}
		if j.Using, err = p.columnNames(); err != nil {
			return nil, err
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func (p *parser) sourceItem() (query.Source, error) {
	t := p.peek()
	if t.isKeyword("VALUES") {
		return p.values()
	}
	if p.acceptSymbol("(") {
		if !p.startsQuery(0) && !(p.peek().Kind == Symbol && p.peek().Text == "(") {
			// (t JOIN u …) [alias [(cols)]]: a parenthesised FROM item.
			inner, err := p.fromClause()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return nil, p.fail(p.peek(), `")"`)
			}
			alias, cols, err := p.tableAlias()
			if err != nil || alias == "" {
				return inner, err
			}
			star := []query.SelectItem{{Expr: &query.Star{Pos: t.Pos}, Pos: t.Pos}}
			return &query.SubqueryRef{Query: &query.Select{Items: star, From: inner, Pos: t.Pos}, Alias: alias, Columns: cols, Pos: t.Pos}, nil
		}
		q, err := p.parenQueryRest()
		if err != nil {
			return nil, err
		}
		sq := &query.SubqueryRef{Query: q, Pos: t.Pos}
		if sq.Alias, sq.Columns, err = p.tableAlias(); err != nil {
			return nil, err
		}
		return sq, nil
	}
	if err := p.unsupportedAt(t); err != nil {
		return nil, err
	}
	first, err := p.ident("a table name")
	if err != nil {
		return nil, err
	}
	if first.Kind == Ident && p.peek().Kind == Symbol && p.peek().Text == "(" {
		// A table-valued function: range(1, 5).
		p.next()
		fr := &query.FunctionRef{Name: first.Text, Pos: first.Pos}
		if !p.acceptSymbol(")") {
			if fr.Args, err = commaList(p, p.expr); err != nil {
				return nil, err
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return nil, p.fail(p.peek(), `"," or ")"`)
			}
		}
		if fr.Alias, fr.Columns, err = p.tableAlias(); err != nil {
			return nil, err
		}
		return fr, nil
	}
	ref := &query.TableRef{Name: []string{first.Text}, Pos: first.Pos}
	for p.acceptSymbol(".") {
		seg, err := p.fieldIdent("a table name after the namespace")
		if err != nil {
			return nil, err
		}
		ref.Name = append(ref.Name, seg.Text)
	}
	if len(ref.Name) > 2 {
		return nil, p.errorf(first.Pos, "table name %s has more than two parts (ns.table)", strings.Join(ref.Name, "."))
	}
	if n := p.peek(); n.isKeyword("TABLESAMPLE") {
		return nil, p.unsupportedAt(n)
	}
	if ref.Alias, ref.Columns, err = p.tableAlias(); err != nil {
		return nil, err
	}
	return ref, nil
}

// Expressions, loosest binding first: OR, AND, NOT, comparison and
// predicates, + - ||, * / %, unary -, postfix [i] and .f, primary.

func (p *parser) expr() (query.Expr, error) { return p.orExpr() }

// chain reads `operand {op operand}`, left-associative, where isOp says
// which token is the operator and opName names it in the tree.
func (p *parser) chain(operand func() (query.Expr, error), isOp func(Token) bool, opName func(Token) string) (query.Expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !isOp(t) {
			return l, nil
		}
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = &query.Binary{Op: opName(t), L: l, R: r, Pos: t.Pos}
	}
}

func keyword(kw string) (func(Token) bool, func(Token) string) {
	return func(t Token) bool { return t.isKeyword(kw) }, func(Token) string { return kw }
}

func (p *parser) orExpr() (query.Expr, error) {
	is, name := keyword("OR")
	return p.chain(p.andExpr, is, name)
}

func (p *parser) andExpr() (query.Expr, error) {
	is, name := keyword("AND")
	return p.chain(p.notExpr, is, name)
}

func (p *parser) notExpr() (query.Expr, error) {
	if t := p.peek(); t.isKeyword("NOT") {
		p.next()
		x, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &query.Unary{Op: "NOT", X: x, Pos: t.Pos}, nil
	}
	return p.predicate()
}

var comparisons = map[string]bool{"=": true, "==": true, "!=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "<=>": true}

func (p *parser) predicate() (query.Expr, error) {
	l, err := p.bitOr()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.Kind == Symbol && comparisons[t.Text]:
			p.next()
			r, err := p.bitOr()
			if err != nil {
				return nil, err
			}
			op := t.Text
			if op == "<>" {
				op = "!="
			}
			l = &query.Binary{Op: op, L: l, R: r, Pos: t.Pos}
			continue
		case t.isKeyword("IS"):
			p.next()
			not := p.acceptKeyword("NOT")
			n := p.peek()
			if n.isKeyword("DISTINCT") {
				// a IS [NOT] DISTINCT FROM b: NOT (a <=> b) / a <=> b.
				p.next()
				if _, err := p.expectKeyword("FROM"); err != nil {
					return nil, err
				}
				r, err := p.additive()
				if err != nil {
					return nil, err
				}
				l = &query.Binary{Op: "<=>", L: l, R: r, Pos: t.Pos}
				if !not {
					l = &query.Unary{Op: "NOT", X: l, Pos: t.Pos}
				}
				continue
			}
			if n.isKeyword("TRUE") || n.isKeyword("FALSE") || n.isKeyword("UNKNOWN") {
				return nil, p.errorf(n.Pos, "IS %s is not supported", strings.ToUpper(n.Text))
			}
			if _, err := p.expectKeyword("NULL"); err != nil {
				return nil, err
			}
			l = &query.IsNull{X: l, Not: not, Pos: t.Pos}
			continue
		}
		not := false
		if t.isKeyword("NOT") {
			n := p.peekAt(1)
			if !n.isKeyword("IN") && !n.isKeyword("BETWEEN") && !n.isKeyword("LIKE") && !n.isKeyword("ILIKE") &&
				!n.isKeyword("RLIKE") && !n.isKeyword("REGEXP") {
				if err := p.unsupportedAt(n); err != nil {
					return nil, err
				}
				return l, nil
			}
			p.next()
			not = true
			t = p.peek()
		}
		switch {
		case t.isKeyword("IN"):
			p.next()
			if _, err := p.expectSymbol("("); err != nil {
				return nil, err
			}
			if p.startsSubquery(0) {
				q, err := p.parenQueryRest()
				if err != nil {
					return nil, err
				}
				x := []query.Expr{l}
				if tu, ok := l.(*query.Tuple); ok {
					x = tu.Items
				}
				l = &query.InSubquery{X: x, Query: q, Not: not, Pos: t.Pos}
				continue
			}
			in := &query.In{X: l, Not: not, Pos: t.Pos}
			if in.List, err = commaList(p, p.expr); err != nil {
				return nil, err
			}
			if _, err := p.expectSymbol(")"); err != nil {
				return nil, err
			}
			l = in
		case t.isKeyword("BETWEEN"):
			p.next()
			lo, err := p.additive()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectKeyword("AND"); err != nil {
				return nil, err
			}
			hi, err := p.additive()
			if err != nil {
				return nil, err
			}
			l = &query.Between{X: l, Lo: lo, Hi: hi, Not: not, Pos: t.Pos}
		case t.isKeyword("LIKE"), t.isKeyword("ILIKE"):
			p.next()
			lk := &query.Like{X: l, Not: not, ILike: t.isKeyword("ILIKE"), Pos: t.Pos}
			if n := p.peek(); n.isKeyword("ANY") || n.isKeyword("ALL") || n.isKeyword("SOME") {
				// x LIKE ANY|SOME|ALL (p, …)
				p.next()
				lk.Quantifier = strings.ToUpper(n.Text)
				if lk.Quantifier == "SOME" {
					lk.Quantifier = "ANY"
				}
				if _, err := p.expectSymbol("("); err != nil {
					return nil, err
				}
				if !p.acceptSymbol(")") {
					if lk.Patterns, err = commaList(p, p.expr); err != nil {
						return nil, err
					}
					if _, err := p.expectSymbol(")"); err != nil {
						return nil, p.fail(p.peek(), `"," or ")"`)
					}
				}
				l = lk
				continue
			}
			pat, err := p.additive()
			if err != nil {
				return nil, err
			}
			lk.Pattern = pat
			if p.acceptKeyword("ESCAPE") {
				e := p.next()
				if e.Kind != String || len([]rune(e.Text)) != 1 {
					return nil, p.fail(e, "one character in quotes after ESCAPE")
				}
				lk.Escape = []rune(e.Text)[0]
			}
			l = lk
		case t.isKeyword("RLIKE"), t.isKeyword("REGEXP"):
			p.next()
			pat, err := p.additive()
			if err != nil {
				return nil, err
			}
			l = &query.Like{X: l, Pattern: pat, Not: not, Regex: true, Pos: t.Pos}
		default:
			if err := p.unsupportedAt(t); err != nil && t.Kind == Ident {
				return nil, err
			}
			return l, nil
		}
	}
}

// Spark's precedence below comparisons: | then ^ then & then the shifts
// << >> >>> then + - ||.
func (p *parser) bitOr() (query.Expr, error) {
	return p.chain(p.bitXor, func(t Token) bool { return t.Kind == Symbol && t.Text == "|" }, func(t Token) string { return t.Text })
}

func (p *parser) bitXor() (query.Expr, error) {
	return p.chain(p.bitAnd, func(t Token) bool { return t.Kind == Symbol && t.Text == "^" }, func(t Token) string { return t.Text })
}

func (p *parser) bitAnd() (query.Expr, error) {
	return p.chain(p.shift, func(t Token) bool { return t.Kind == Symbol && t.Text == "&" }, func(t Token) string { return t.Text })
}

func (p *parser) shift() (query.Expr, error) {
	return p.chain(p.additive, func(t Token) bool {
		return t.Kind == Symbol && (t.Text == "<<" || t.Text == ">>" || t.Text == ">>>")
	}, func(t Token) string { return t.Text })
}

func (p *parser) additive() (query.Expr, error) {
	l, err := p.multiplicative()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.Kind != Symbol || t.Text != "+" && t.Text != "-" && t.Text != "||" {
			return l, nil
		}
		p.next()
		r, err := p.multiplicative()
		if err != nil {
			return nil, err
		}
		l = &query.Binary{Op: t.Text, L: l, R: r, Pos: t.Pos}
	}
}

func (p *parser) multiplicative() (query.Expr, error) {
	return p.chain(p.unary, func(t Token) bool {
		return t.Kind == Symbol && (t.Text == "*" || t.Text == "/" || t.Text == "%") || t.isKeyword("DIV")
	}, func(t Token) string { return strings.ToUpper(t.Text) })
}

func (p *parser) unary() (query.Expr, error) {
	t := p.peek()
	if t.Kind == Symbol && t.Text == "~" {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &query.Unary{Op: "~", X: x, Pos: t.Pos}, nil
	}
	if t.Kind == Symbol && (t.Text == "-" || t.Text == "+") {
		p.next()
		if n := p.peek(); n.Kind == Number {
			lit, err := p.numberLiteral(p.next(), t.Text)
			if err != nil {
				return nil, err
			}
			lit.Pos = t.Pos
			return p.postfix(lit)
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &query.Unary{Op: t.Text, X: x, Pos: t.Pos}, nil
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.postfix(x)
}

// postfix reads [i], ['k'] and .field after an expression.
func (p *parser) postfix(x query.Expr) (query.Expr, error) {
	for {
		t := p.peek()
		switch {
		case t.Kind == Symbol && t.Text == "[":
			p.next()
			i, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectSymbol("]"); err != nil {
				return nil, err
			}
			x = &query.Index{X: x, Index: i, Pos: t.Pos}
		case t.Kind == Symbol && t.Text == ".":
			p.next()
			f, err := p.fieldIdent("a field name after \".\"")
			if err != nil {
				return nil, err
			}
			if col, ok := x.(*query.Column); ok {
				col.Path = append(col.Path, f.Text)
				continue
			}
			x = &query.Field{X: x, Name: f.Text, Pos: f.Pos}
		default:
			return x, nil
		}
	}
}

func (p *parser) primary() (query.Expr, error) {
	t := p.peek()
	switch {
	case t.Kind == Symbol && t.Text == "(":
		if p.startsLambda() {
			return p.lambda()
		}
		p.next()
		if n := p.peek(); n.isKeyword("SELECT") || n.isKeyword("WITH") {
			q, err := p.parenQueryRest()
			if err != nil {
				return nil, err
			}
			return &query.ScalarSubquery{Query: q, Pos: t.Pos}, nil
		}
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		alias, err := p.tupleAlias()
		if err != nil {
			return nil, err
		}
		if p.peek().Kind == Symbol && p.peek().Text == "," {
			// (a, b AS y): a row of values (the left side of a
			// multi-column IN; elsewhere a struct).
			tu := &query.Tuple{Items: []query.Expr{x}, Names: []string{alias}, Pos: t.Pos}
			for p.acceptSymbol(",") {
				y, err := p.expr()
				if err != nil {
					return nil, err
				}
				a, err := p.tupleAlias()
				if err != nil {
					return nil, err
				}
				tu.Items, tu.Names = append(tu.Items, y), append(tu.Names, a)
			}
			x = tu
		} else if alias != "" {
			return nil, p.fail(p.peek(), `","`)
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.fail(p.peek(), `")"`)
		}
		return x, nil
	case t.Kind == String:
		p.next()
		v, raw := t.Text, t.Raw
		// 'hello' 'world' is one string, as in Spark.
		for p.peek().Kind == String {
			n := p.next()
			v, raw = v+n.Text, raw+" "+n.Raw
		}
		return &query.Literal{Value: v, Type: sparktype.StringType, Raw: raw, Pos: t.Pos}, nil
	case t.Kind == Number:
		p.next()
		return p.numberLiteral(t, "")
	case t.isKeyword("TRUE"), t.isKeyword("FALSE"):
		p.next()
		return &query.Literal{Value: t.isKeyword("TRUE"), Type: sparktype.BooleanType, Raw: strings.ToLower(t.Text), Pos: t.Pos}, nil
	case t.isKeyword("NULL"):
		p.next()
		return &query.Literal{Value: nil, Type: sparktype.NullType, Raw: "NULL", Pos: t.Pos}, nil
	case t.isKeyword("CASE"):
		return p.caseExpr()
	case t.isKeyword("CAST") && p.peekAt(1).Text == "(":
		return p.castExpr()
	case t.isKeyword("DATE") || t.isKeyword("TIMESTAMP") || t.isKeyword("TIMESTAMP_LTZ") || t.isKeyword("TIMESTAMP_NTZ"):
		if n := p.peekAt(1); n.Kind == String {
			p.next()
			p.next()
			return p.typedLiteral(t, n)
		}
	case t.Kind == HexString:
		p.next()
		return p.hexLiteral(t)
	case t.Kind == Param:
		p.next()
		return p.param(t)
	case t.isKeyword("EXISTS") && p.peekAt(1).Text == "(":
		p.next()
		if p.startsSubquery(1) {
			p.next() // (
			q, err := p.parenQueryRest()
			if err != nil {
				return nil, err
			}
			return &query.Exists{Query: q, Pos: t.Pos}, nil
		}
		return p.call(t) // exists(array, x -> …), the higher-order function
	case t.isKeyword("INTERVAL") && p.startsInterval():
		return p.intervalLiteral()
	}
	if t.Kind == Ident && !isReserved(t) && p.peekAt(1).Kind == Symbol && p.peekAt(1).Text == "->" {
		return p.lambda()
	}
	if t.Kind == Ident && isReserved(t) && p.isLambdaParam(t.Text) {
		p.next()
		return &query.Column{Path: []string{t.Text}, Pos: t.Pos}, nil
	}
	if t.Kind == Ident && !isReserved(t) || t.Kind == QuotedID {
		p.next()
		if t.Kind == QuotedID && t.Text == "" {
			return nil, p.errorf(t.Pos, "empty a column")
		}
		if t.Kind == Ident && p.peek().Kind == Symbol && p.peek().Text == "(" {
			return p.call(t)
		}
		return &query.Column{Path: []string{t.Text}, Pos: t.Pos}, nil
	}
	if t.Kind == Ident && keywordFunctions[strings.ToUpper(t.Text)] && p.peekAt(1).Kind == Symbol && p.peekAt(1).Text == "(" {
		p.next()
		return p.call(t)
	}
	return nil, p.fail(t, "an expression")
}

// keywordFunctions are reserved words that are also function names where
// an expression is wanted, as in Spark: left('abc', 1), rlike(s, p).
var keywordFunctions = map[string]bool{"LEFT": true, "RIGHT": true, "LIKE": true, "ILIKE": true, "RLIKE": true, "REGEXP": true}

func (p *parser) call(name Token) (query.Expr, error) {
	p.next() // (
	c := &query.Call{Name: name.Text, Pos: name.Pos}
	if strings.EqualFold(name.Text, "extract") && p.peekAt(1).isKeyword("FROM") {
		// EXTRACT(field FROM x): extract('field', x).
		f := p.next()
		p.next() // FROM
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.fail(p.peek(), `")" after EXTRACT(… FROM …)`)
		}
		c.Args = []query.Expr{&query.Literal{Value: f.Text, Type: sparktype.StringType, Raw: f.Text, Pos: f.Pos}, x}
		return p.afterCall(c)
	}
	if strings.EqualFold(name.Text, "trim") {
		if done, err := p.trimForm(c); done || err != nil {
			return c, err
		}
	}
	if done, err := p.keywordForm(c); done || err != nil {
		if err != nil {
			return nil, err
		}
		return p.afterCall(c)
	}
	if t := p.peek(); t.Kind == Symbol && t.Text == "*" {
		p.next()
		c.Star = true
	} else if !p.acceptSymbol(")") {
		if p.acceptKeyword("DISTINCT") {
			c.Distinct = true
		} else {
			p.acceptKeyword("ALL")
		}
		arg := p.callArg
		if strings.EqualFold(name.Text, "struct") {
			arg = p.structArg(c)
		}
		var err error
		if c.Args, err = commaList(p, arg); err != nil {
			return nil, err
		}
		p.callNullsOption(c)
	} else {
		return p.afterCall(c)
	}
	if _, err := p.expectSymbol(")"); err != nil {
		return nil, p.fail(p.peek(), `")" after the arguments of `+name.Text)
	}
	return p.afterCall(c)
}

// structArg reads an argument of STRUCT(x [AS] name, …), Spark's named
// struct fields, keeping the names in c.ArgNames.
func (p *parser) structArg(c *query.Call) func() (query.Expr, error) {
	n := 0 // arguments read so far
	return func() (query.Expr, error) {
		n++
		x, err := p.callArg()
		if err != nil {
			return nil, err
		}
		name := ""
		if _, star := x.(*query.Star); !star {
			if p.acceptKeyword("AS") {
				t := p.next()
				if t.Kind != Ident && t.Kind != QuotedID {
					return nil, p.fail(t, "a field name after AS")
				}
				name = t.Text
			} else if t := p.peek(); t.Kind == QuotedID || t.Kind == Ident && !isReserved(t) {
				p.next()
				name = t.Text
			}
		}
		if name != "" && c.ArgNames == nil {
			c.ArgNames = make([]string, n-1)
		}
		if c.ArgNames != nil {
			c.ArgNames = append(c.ArgNames, name)
		}
		return x, nil
	}
}

// callArg is a function argument: an expression, or `*` / `t.*` (which
// the analyser expands into the columns they name: count(t.*)).
func (p *parser) callArg() (query.Expr, error) {
	if t := p.peek(); t.Kind == Symbol && t.Text == "*" {
		p.next()
		return &query.Star{Pos: t.Pos}, nil
	}
	if star, ok := p.qualifiedStar(); ok {
		return star, nil
	}
	return p.expr()
}

// qualifiedStar reads `t.*` or `ns.t.*` when it is next.
func (p *parser) qualifiedStar() (*query.Star, bool) {
	t := p.peek()
	if !(t.Kind == Ident && !isReserved(t) || t.Kind == QuotedID) || p.peekAt(1).Text != "." {
		return nil, false
	}
	k := 1
	qual := []string{t.Text}
	for p.peekAt(k).Kind == Symbol && p.peekAt(k).Text == "." {
		nt := p.peekAt(k + 1)
		if nt.Kind == Symbol && nt.Text == "*" {
			for i := 0; i < k+2; i++ { // the qualifier parts, the dots and the *
				p.next()
			}
			return &query.Star{Qualifier: strings.Join(qual, "."), Pos: t.Pos}, true
		}
		if nt.Kind != Ident && nt.Kind != QuotedID {
			break
		}
		qual = append(qual, nt.Text)
		k += 2
	}
	return nil, false
}

// keywordForms are the functions Spark also takes with keywords between
// their arguments, and the keyword after the first.
var keywordForms = map[string]string{"position": "IN", "substring": "FROM", "substr": "FROM", "overlay": "PLACING"}

// keywordForm reads POSITION(sub IN str), SUBSTRING(str FROM pos [FOR
// len]) and OVERLAY(str PLACING rep FROM pos [FOR len]) into the calls'
// plain arguments. It reports false, having read nothing, for the
// comma form.
func (p *parser) keywordForm(c *query.Call) (bool, error) {
	kw := keywordForms[strings.ToLower(c.Name)]
	if kw == "" || !p.keywordAhead(kw) {
		return false, nil
	}
	arg := func() error {
		x, err := p.bitOr()
		if err == nil {
			c.Args = append(c.Args, x)
		}
		return err
	}
	if err := arg(); err != nil {
		return true, err
	}
	if _, err := p.expectKeyword(kw); err != nil {
		return true, err
	}
	if err := arg(); err != nil {
		return true, err
	}
	if kw == "PLACING" {
		if _, err := p.expectKeyword("FROM"); err != nil {
			return true, err
		}
		if err := arg(); err != nil {
			return true, err
		}
	}
	if kw != "IN" && p.acceptKeyword("FOR") {
		if err := arg(); err != nil {
			return true, err
		}
	}
	if _, err := p.expectSymbol(")"); err != nil {
		return true, p.fail(p.peek(), `")" after the arguments of `+c.Name)
	}
	return true, nil
}

// keywordAhead says whether keyword kw comes before the call's closing
// parenthesis or first comma, outside nested parentheses.
func (p *parser) keywordAhead(kw string) bool {
	depth := 0
	for k := 0; k < 256; k++ {
		n := p.peekAt(k)
		switch {
		case n.Kind == EOF:
			return false
		case n.Kind == Symbol && n.Text == "(":
			depth++
		case n.Kind == Symbol && n.Text == ")":
			if depth == 0 {
				return false
			}
			depth--
		case depth == 0 && n.Kind == Symbol && n.Text == ",":
			return false
		case depth == 0 && n.isKeyword(kw):
			return true
		}
	}
	return false
}

// trimForm reads Spark's TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)
// into trim/ltrim/rtrim(chars, s) (the characters first, as the functions
// take them). It reports false, having read nothing, for a plain trim(s).
func (p *parser) trimForm(c *query.Call) (bool, error) {
	t := p.peek()
	side := ""
	switch {
	case t.isKeyword("BOTH"):
		side = "trim"
	case t.isKeyword("LEADING"):
		side = "ltrim"
	case t.isKeyword("TRAILING"):
		side = "rtrim"
	}
	if side == "" {
		// TRIM(chars FROM s) is told from trim(s) by the FROM after the
		// first argument.
		if !p.keywordAhead("FROM") {
			return false, nil
		}
		side = "trim"
	} else {
		p.next()
	}
	c.Name = side
	if !p.acceptKeyword("FROM") {
		chars, err := p.expr()
		if err != nil {
			return true, err
		}
		if _, err := p.expectKeyword("FROM"); err != nil {
			return true, err
		}
		c.Args = append(c.Args, chars)
	}
	s, err := p.expr()
	if err != nil {
		return true, err
	}
	c.Args = append([]query.Expr{}, append(c.Args, s)...)
	if _, err := p.expectSymbol(")"); err != nil {
		return true, p.fail(p.peek(), `")" after TRIM(…)`)
	}
	return true, nil
}

func (p *parser) caseExpr() (query.Expr, error) {
	t := p.next() // CASE
	c := &query.Case{Pos: t.Pos}
	if n := p.peek(); !n.isKeyword("WHEN") {
		op, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Operand = op
	}
	for p.acceptKeyword("WHEN") {
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectKeyword("THEN"); err != nil {
			return nil, err
		}
		then, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, query.When{Cond: cond, Then: then})
	}
	if len(c.Whens) == 0 {
		return nil, p.fail(p.peek(), "WHEN")
	}
	if p.acceptKeyword("ELSE") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Else = e
	}
	if _, err := p.expectKeyword("END"); err != nil {
		return nil, p.fail(p.peek(), "WHEN, ELSE or END")
	}
	return c, nil
}

func (p *parser) castExpr() (query.Expr, error) {
	t := p.next() // CAST
	p.next()      // (
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expectKeyword("AS"); err != nil {
		return nil, err
	}
	// The type is every token up to the matching ")".
	start := p.peek()
	var b strings.Builder
	depth := 0
	for {
		n := p.peek()
		if n.Kind == EOF {
			return nil, p.fail(n, `")" after the type`)
		}
		if n.Kind == Symbol && n.Text == ")" {
			if depth == 0 {
				break
			}
			depth--
		}
		if n.Kind == Symbol && (n.Text == "(" || n.Text == "<") {
			depth++
		}
		if n.Kind == Symbol && (n.Text == ">" || n.Text == ">>" || n.Text == ">>>") {
			depth -= len(n.Text) // array<array<int>> ends in one >> token
		}
		b.WriteString(n.Raw)
		if n.Kind == Ident && p.peekAt(1).Kind == Ident {
			b.WriteString(" ")
		}
		p.next()
	}
	p.next() // )
	name := b.String()
	dt, err := sparktype.ParseType(name)
	if err != nil {
		return nil, p.errorf(start.Pos, "CAST to %s: %w", name, err)
	}
	return &query.Cast{X: x, To: dt, TypeName: strings.ToUpper(name), Pos: t.Pos}, nil
}

// numberLiteral types a number as Spark does (query.NumberLiteral); a
// value outside its type is a syntax error at the number.
func (p *parser) numberLiteral(t Token, sign string) (*query.Literal, error) {
	lit, err := query.NumberLiteral(sign + t.Text)
	if err != nil {
		return nil, p.errorf(t.Pos, "%w", err)
	}
	lit.Raw, lit.Pos = sign+t.Raw, t.Pos
	return lit, nil
}

// typedLiteral is DATE '…' or TIMESTAMP '…': a value Spark cannot read is
// an error, not NULL.
func (p *parser) typedLiteral(kw, val Token) (query.Expr, error) {
	var lit *query.Literal
	var err error
	switch {
	case kw.isKeyword("DATE"):
		lit, err = query.DateLiteral(val.Text)
	case kw.isKeyword("TIMESTAMP_NTZ"):
		lit, err = query.TimestampNTZLiteral(val.Text)
	default:
		lit, err = query.TimestampLiteral(val.Text)
	}
	if err != nil {
		return nil, p.errorf(val.Pos, "%s %w", val.Raw, err)
	}
	lit.Raw, lit.Pos = strings.ToUpper(kw.Text)+" "+val.Raw, kw.Pos
	return lit, nil
}

// hexLiteral is X'0A1B', a binary value.
func (p *parser) hexLiteral(t Token) (query.Expr, error) {
	lit, err := query.BinaryLiteral(t.Text)
	if err != nil {
		return nil, p.errorf(t.Pos, "%s %w", t.Raw, err)
	}
	lit.Raw, lit.Pos = t.Raw, t.Pos
	return lit, nil
}

// ParseExpr parses one SQL expression (a pipeline's filter, sort key or
// aggregate). Positions count in expr itself.
func ParseExpr(expr string) (query.Expr, error) {
	p := &parser{lx: newLexer(expr), buf: make([]Token, 0, 4), n: 1}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.Kind != EOF {
		return nil, p.fail(t, "end of the expression")
	}
	return e, nil
}

// commaList parses one or more items separated by commas.
func commaList[T any](p *parser, item func() (T, error)) ([]T, error) {
	var out []T
	for {
		x, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		if !p.acceptSymbol(",") {
			return out, nil
		}
	}
}

// columnNames parses `a, b, …`: the column names of LATERAL VIEW … AS and
// JOIN … USING.
func (p *parser) columnNames() ([]string, error) {
	return commaList(p, func() (string, error) {
		c, err := p.ident("a column name")
		return c.Text, err
	})
}

// startsSubquery says whether the tokens k ahead start a query in
// parentheses' place: SELECT or WITH, or a parenthesised one
// (`IN ((SELECT …) UNION (SELECT …))`).
func (p *parser) startsSubquery(k int) bool {
	for {
		t := p.peekAt(k)
		if t.isKeyword("SELECT") || t.isKeyword("WITH") {
			return true
		}
		if t.Kind != Symbol || t.Text != "(" {
			return false
		}
		k++
	}
}

// startsLambda says whether `(` starts a lambda's parameter list:
// `(x, y) -> …`.
func (p *parser) startsLambda() bool {
	k := 1
	for {
		t := p.peekAt(k)
		if t.Kind != Ident && t.Kind != QuotedID {
			return false
		}
		n := p.peekAt(k + 1)
		if n.Kind == Symbol && n.Text == ")" {
			a := p.peekAt(k + 2)
			return a.Kind == Symbol && a.Text == "->"
		}
		if n.Kind != Symbol || n.Text != "," {
			return false
		}
		k += 2
	}
}

// lambda reads `x -> body` or `(x, y, …) -> body`.
func (p *parser) lambda() (query.Expr, error) {
	t := p.peek()
	lam := &query.Lambda{Pos: t.Pos}
	if p.acceptSymbol("(") {
		for {
			n := p.next()
			lam.Params = append(lam.Params, n.Text)
			if !p.acceptSymbol(",") {
				break
			}
		}
		p.next() // )
	} else {
		lam.Params = []string{p.next().Text}
	}
	p.next() // ->
	depth := len(p.lambdaParams)
	p.lambdaParams = append(p.lambdaParams, lam.Params...)
	body, err := p.expr()
	p.lambdaParams = p.lambdaParams[:depth]
	if err != nil {
		return nil, err
	}
	lam.Body = body
	return lam, nil
}

// tupleAlias reads the optional `AS name` after a value of a row of values.
func (p *parser) tupleAlias() (string, error) {
	if !p.acceptKeyword("AS") {
		return "", nil
	}
	a, err := p.ident("a field name after AS")
	return a.Text, err
}

func (p *parser) isLambdaParam(name string) bool {
	for _, n := range p.lambdaParams {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// intervalUnits are the unit words of an interval literal (a plural s
// allowed).
var intervalUnits = map[string]bool{"YEAR": true, "MONTH": true, "WEEK": true, "DAY": true, "HOUR": true,
	"MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true}

func isIntervalUnit(t Token) bool {
	return t.Kind == Ident && intervalUnits[strings.TrimSuffix(strings.ToUpper(t.Text), "S")]
}

// startsInterval says whether the INTERVAL ahead starts an interval literal:
// a string or a number follows, possibly signed.
func (p *parser) startsInterval() bool {
	k := 1
	if t := p.peekAt(k); t.Kind == Symbol && (t.Text == "-" || t.Text == "+") {
		k++
	}
	t := p.peekAt(k)
	return t.Kind == String || t.Kind == Number
}

// intervalLiteral is Spark's interval literal (docs/sql.md#intervals):
// INTERVAL 'text' (value-unit pairs in the text), INTERVAL v unit [v unit …]
// with v a number or a string, and INTERVAL 'text' unit TO unit.
func (p *parser) intervalLiteral() (query.Expr, error) {
	kw := p.next() // INTERVAL
	type pair struct {
		val, unit Token
		neg       bool
	}
	var pairs []pair
	for {
		t := p.peek()
		neg := false
		if t.Kind == Symbol && (t.Text == "-" || t.Text == "+") && len(pairs) > 0 {
			if n := p.peekAt(1); n.Kind != String && n.Kind != Number {
				break
			}
		}
		if t.Kind == Symbol && (t.Text == "-" || t.Text == "+") {
			p.next()
			neg = t.Text == "-"
			t = p.peek()
		}
		if t.Kind != String && t.Kind != Number {
			if len(pairs) == 0 {
				return nil, p.unexpected(t, "an interval value (a number or a string)")
			}
			return nil, p.unexpected(t, "an interval value after "+strings.ToUpper(pairs[len(pairs)-1].unit.Text))
		}
		p.next()
		u := p.peek()
		if !isIntervalUnit(u) {
			if len(pairs) == 0 && t.Kind == String {
				// INTERVAL '1 day 2 hours': the units are in the text.
				text := t.Text
				if neg {
					text = "-" + strings.TrimPrefix(text, "-")
				}
				lit, err := query.IntervalUnitsLiteral(text)
				if err != nil {
					return nil, p.errorf(t.Pos, "INTERVAL %s: %w", t.Raw, err)
				}
				lit.Pos = kw.Pos
				return lit, nil
			}
			return nil, p.unexpected(u, "an interval unit (YEAR, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND)")
		}
		p.next()
		if len(pairs) == 0 && p.peek().isKeyword("TO") {
			p.next()
			to := p.next()
			if !isIntervalUnit(to) {
				return nil, p.unexpected(to, "an interval unit after TO")
			}
			if t.Kind != String {
				return nil, p.errorf(t.Pos, "INTERVAL %s %s TO %s: the value of a unit-to-unit interval is a string", t.Raw, u.Text, to.Text)
			}
			text := t.Text
			if neg {
				text = signFlip(text)
			}
			lit, err := query.IntervalLiteral(text, u.Text, to.Text)
			if err != nil {
				return nil, p.errorf(t.Pos, "INTERVAL %s %s TO %s: %w", t.Raw, strings.ToUpper(u.Text), strings.ToUpper(to.Text), err)
			}
			lit.Pos = kw.Pos
			return lit, nil
		}
		pairs = append(pairs, pair{val: t, unit: u, neg: neg})
		if !p.startsIntervalPair() {
			break
		}
	}
	var text strings.Builder
	for _, pr := range pairs {
		v := pr.val.Text
		if pr.val.Kind == String && strings.IndexFunc(v, unicode.IsLetter) >= 0 {
			return nil, p.errorf(pr.val.Pos, "INTERVAL %s %s: the value of a unit is a number, not %s", pr.val.Raw, pr.unit.Text, pr.val.Raw)
		}
		if pr.neg {
			v = signFlip(strings.TrimSpace(v))
		}
		text.WriteString(" " + v + " " + pr.unit.Text)
	}
	lit, err := query.IntervalUnitsLiteral(strings.TrimSpace(text.String()))
	if err != nil {
		return nil, p.errorf(kw.Pos, "INTERVAL%s: %w", text.String(), err)
	}
	lit.Pos = kw.Pos
	return lit, nil
}

// startsIntervalPair says whether another value-unit pair of an interval
// literal follows.
func (p *parser) startsIntervalPair() bool {
	k := 0
	if t := p.peekAt(k); t.Kind == Symbol && (t.Text == "-" || t.Text == "+") {
		k++
	}
	t := p.peekAt(k)
	return (t.Kind == String || t.Kind == Number) && isIntervalUnit(p.peekAt(k+1))
}

// signFlip negates the text of a signed interval value: -'1' is '-1',
// -'-1' is '1'.
func signFlip(v string) string {
	if strings.HasPrefix(v, "-") {
		return v[1:]
	}
	return "-" + strings.TrimPrefix(v, "+")
}
