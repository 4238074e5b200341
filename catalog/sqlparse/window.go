package sqlparse

import (
	"strings"

	"github.com/sluicedata/sluice/dataframe/query"
)

// Window functions, the WINDOW clause, aggregate FILTER and grouping
// analytics (docs/sql.md#window-functions, docs/sql.md#grouping-sets), as
// Spark's grammar has them:
//
//	f(args) [WITHIN GROUP (ORDER BY …)] [FILTER (WHERE cond)] [IGNORE|RESPECT NULLS] [OVER name | OVER (spec)]
//	spec:  [name] [PARTITION|DISTRIBUTE BY e, …] [ORDER|SORT BY e [ASC|DESC] [NULLS FIRST|LAST], …] [frame]
//	frame: ROWS|RANGE start | ROWS|RANGE BETWEEN start AND end
//	bound: UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | value PRECEDING | value FOLLOWING
//	GROUP BY item, …   item: e | ROLLUP (set, …) | CUBE (set, …) | GROUPING SETS (set | ROLLUP … | CUBE …, …)
//	GROUP BY e, … WITH ROLLUP | WITH CUBE | GROUPING SETS (set, …)
//	set: (e, …) | () | e

// afterCall reads what may follow a call's argument list.
func (p *parser) afterCall(c *query.Call) (query.Expr, error) {
	if t := p.peek(); t.isKeyword("WITHIN") && p.peekAt(1).isKeyword("GROUP") {
		p.next()
		p.next()
		if _, err := p.expectSymbol("("); err != nil {
			return nil, err
		}
		if _, err := p.expectKeyword("ORDER"); err != nil {
			return nil, err
		}
		if _, err := p.expectKeyword("BY"); err != nil {
			return nil, err
		}
		items, err := p.orderItems()
		if err != nil {
			return nil, err
		}
		c.WithinGroup = items
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.fail(p.peek(), `")" after WITHIN GROUP (ORDER BY …`)
		}
	}
	if t := p.peek(); t.isKeyword("FILTER") && p.peekAt(1).Text == "(" {
		p.next()
		p.next()
		if _, err := p.expectKeyword("WHERE"); err != nil {
			return nil, err
		}
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		c.Filter = cond
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.fail(p.peek(), `")" after FILTER (WHERE …`)
		}
	}
	if t := p.peek(); (t.isKeyword("IGNORE") || t.isKeyword("RESPECT")) && p.peekAt(1).isKeyword("NULLS") {
		p.next()
		p.next()
		c.Nulls = strings.ToUpper(t.Text)
	}
	if t := p.peek(); t.isKeyword("OVER") {
		p.next()
		w, err := p.windowSpec()
		if err != nil {
			return nil, err
		}
		w.Pos = t.Pos
		c.Over = w
	}
	return c, nil
}

// callNullsOption reads `IGNORE NULLS` written inside the parentheses, as
// in `first(x IGNORE NULLS)`.
func (p *parser) callNullsOption(c *query.Call) {
	if t := p.peek(); (t.isKeyword("IGNORE") || t.isKeyword("RESPECT")) && p.peekAt(1).isKeyword("NULLS") {
		p.next()
		p.next()
		c.Nulls = strings.ToUpper(t.Text)
	}
}

// windowSpec reads `name` or `(spec)` after OVER or `name AS`.
func (p *parser) windowSpec() (*query.WindowSpec, error) {
	t := p.peek()
	if t.Kind == Ident && !isReserved(t) || t.Kind == QuotedID {
		p.next()
		return &query.WindowSpec{Ref: t.Text, Pos: t.Pos}, nil
	}
	if _, err := p.expectSymbol("("); err != nil {
		return nil, p.fail(p.peek(), `a window name or "(" after OVER`)
	}
	w := &query.WindowSpec{Pos: t.Pos}
	if n := p.peek(); n.Kind == QuotedID || n.Kind == Ident && !isReserved(n) && !windowWord(n) {
		p.next()
		w.Ref = n.Text
	}
	var err error
	if n := p.peek(); (n.isKeyword("PARTITION") || n.isKeyword("DISTRIBUTE") || n.isKeyword("CLUSTER")) && p.peekAt(1).isKeyword("BY") {
		p.next()
		p.next()
		if w.PartitionBy, err = commaList(p, p.expr); err != nil {
			return nil, err
		}
	}
	if n := p.peek(); (n.isKeyword("ORDER") || n.isKeyword("SORT")) && p.peekAt(1).isKeyword("BY") {
		p.next()
		p.next()
		if w.OrderBy, err = p.orderItems(); err != nil {
			return nil, err
		}
	}
	if n := p.peek(); n.isKeyword("ROWS") || n.isKeyword("RANGE") {
		if w.Frame, err = p.windowFrame(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expectSymbol(")"); err != nil {
		return nil, p.fail(p.peek(), `")" after the window specification`)
	}
	return w, nil
}

// windowWord is a word that starts a part of a window specification.
func windowWord(t Token) bool {
	switch strings.ToUpper(t.Text) {
	case "PARTITION", "DISTRIBUTE", "CLUSTER", "ORDER", "SORT", "ROWS", "RANGE":
		return true
	}
	return false
}

func (p *parser) windowFrame() (*query.WindowFrame, error) {
	t := p.next() // ROWS or RANGE
	f := &query.WindowFrame{Rows: t.isKeyword("ROWS"), Pos: t.Pos}
	var err error
	if p.acceptKeyword("BETWEEN") {
		if f.Start, err = p.frameBound(); err != nil {
			return nil, err
		}
		if _, err := p.expectKeyword("AND"); err != nil {
			return nil, err
		}
		if f.End, err = p.frameBound(); err != nil {
			return nil, err
		}
		return f, nil
	}
	if f.Start, err = p.frameBound(); err != nil {
		return nil, err
	}
	f.End = query.FrameBound{Kind: query.CurrentRow, Pos: f.Start.Pos}
	return f, nil
}

func (p *parser) frameBound() (query.FrameBound, error) {
	t := p.peek()
	b := query.FrameBound{Pos: t.Pos}
	switch {
	case t.isKeyword("UNBOUNDED"):
		p.next()
		switch {
		case p.acceptKeyword("PRECEDING"):
			b.Kind = query.UnboundedPreceding
		case p.acceptKeyword("FOLLOWING"):
			b.Kind = query.UnboundedFollowing
		default:
			return b, p.fail(p.peek(), "PRECEDING or FOLLOWING after UNBOUNDED")
		}
		return b, nil
	case t.isKeyword("CURRENT"):
		p.next()
		if _, err := p.expectKeyword("ROW"); err != nil {
			return b, err
		}
		b.Kind = query.CurrentRow
		return b, nil
	}
	off, err := p.expr()
	if err != nil {
		return b, err
	}
	b.Offset = off
	switch {
	case p.acceptKeyword("PRECEDING"):
		b.Kind = query.Preceding
	case p.acceptKeyword("FOLLOWING"):
		b.Kind = query.Following
	default:
		return b, p.fail(p.peek(), "PRECEDING or FOLLOWING after a frame offset")
	}
	return b, nil
}

// windowClause reads `WINDOW name AS spec, …` (WINDOW read).
func (p *parser) windowClause() ([]query.NamedWindow, error) {
	return commaList(p, func() (query.NamedWindow, error) {
		name, err := p.ident("a window name")
		if err != nil {
			return query.NamedWindow{}, err
		}
		if _, err := p.expectKeyword("AS"); err != nil {
			return query.NamedWindow{}, err
		}
		spec, err := p.windowSpec()
		if err != nil {
			return query.NamedWindow{}, err
		}
		return query.NamedWindow{Name: name.Text, Spec: spec, Pos: name.Pos}, nil
	})
}

// orderItems reads `e [ASC|DESC] [NULLS FIRST|LAST], …`.
func (p *parser) orderItems() ([]query.OrderItem, error) {
	var order []query.OrderItem
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		it := query.OrderItem{Expr: e}
		if p.acceptKeyword("DESC") {
			it.Desc = true
		} else {
			p.acceptKeyword("ASC")
		}
		if t := p.peek(); t.isKeyword("NULLS") {
			p.next()
			first := p.peek()
			switch {
			case p.acceptKeyword("FIRST"):
				v := true
				it.NullsFirst = &v
			case p.acceptKeyword("LAST"):
				v := false
				it.NullsFirst = &v
			default:
				return nil, p.fail(first, "FIRST or LAST after NULLS")
			}
		}
		order = append(order, it)
		if !p.acceptSymbol(",") {
			return order, nil
		}
	}
}

// groupBy reads the items after GROUP BY.
func (p *parser) groupBy() ([]query.Expr, error) {
	items, err := commaList(p, p.groupByItem)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	kind := ""
	switch {
	case t.isKeyword("WITH") && (p.peekAt(1).isKeyword("ROLLUP") || p.peekAt(1).isKeyword("CUBE")):
		p.next()
		kind = strings.ToUpper(p.next().Text)
	case t.isKeyword("GROUPING") && p.peekAt(1).isKeyword("SETS"):
		p.next()
		p.next()
		kind = "GROUPING SETS"
	default:
		return items, nil
	}
	for _, it := range items {
		if g, ok := it.(*query.GroupingSets); ok {
			return nil, p.errorf(g.Pos, "%s cannot be mixed with %s", kind, g.Kind)
		}
	}
	g := &query.GroupingSets{Kind: kind, Pos: t.Pos}
	if kind == "GROUPING SETS" {
		g.Exprs = items
		if _, err := p.expectSymbol("("); err != nil {
			return nil, err
		}
		if g.Sets, err = commaList(p, p.groupingSet); err != nil {
			return nil, err
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.fail(p.peek(), `")" after GROUPING SETS (…`)
		}
	} else {
		for _, it := range items {
			g.Sets = append(g.Sets, []query.Expr{it})
		}
	}
	return []query.Expr{g}, nil
}

// groupByItem is an expression or ROLLUP/CUBE/GROUPING SETS.
func (p *parser) groupByItem() (query.Expr, error) {
	if g, ok, err := p.groupingAnalytics(); ok || err != nil {
		return g, err
	}
	return p.expr()
}

// groupingAnalytics reads ROLLUP (…), CUBE (…) or GROUPING SETS (…); ok is
// false (nothing read) when none starts here.
func (p *parser) groupingAnalytics() (*query.GroupingSets, bool, error) {
	t := p.peek()
	var kind string
	switch {
	case (t.isKeyword("ROLLUP") || t.isKeyword("CUBE")) && p.peekAt(1).Text == "(":
		p.next()
		kind = strings.ToUpper(t.Text)
	case t.isKeyword("GROUPING") && p.peekAt(1).isKeyword("SETS") && p.peekAt(2).Text == "(":
		p.next()
		p.next()
		kind = "GROUPING SETS"
	default:
		return nil, false, nil
	}
	p.next() // (
	g := &query.GroupingSets{Kind: kind, Pos: t.Pos}
	var err error
	if kind == "GROUPING SETS" {
		g.Sets, err = commaList(p, func() ([]query.Expr, error) {
			if inner, ok, err := p.groupingAnalytics(); ok || err != nil {
				return []query.Expr{inner}, err
			}
			return p.groupingSet()
		})
	} else {
		g.Sets, err = commaList(p, func() ([]query.Expr, error) {
			at := p.peek()
			set, err := p.groupingSet()
			if err == nil && len(set) == 0 {
				err = p.errorf(at.Pos, "an empty set () in %s is not supported", kind)
			}
			return set, err
		})
	}
	if err != nil {
		return nil, true, err
	}
	if _, err := p.expectSymbol(")"); err != nil {
		return nil, true, p.fail(p.peek(), `")" after `+kind+" (…")
	}
	return g, true, nil
}

// groupingSet is `(e, …)`, `()` or one expression. A parenthesis opens a
// set when what follows its closing parenthesis ends the set (`,` or `)`);
// otherwise it belongs to an expression (`(a + b) * 2`).
func (p *parser) groupingSet() ([]query.Expr, error) {
	if t := p.peek(); t.Kind == Symbol && t.Text == "(" && p.closesSet() {
		p.next()
		if p.acceptSymbol(")") {
			return []query.Expr{}, nil
		}
		set, err := commaList(p, p.expr)
		if err != nil {
			return nil, err
		}
		if _, err := p.expectSymbol(")"); err != nil {
			return nil, p.fail(p.peek(), `"," or ")" in a grouping set`)
		}
		return set, nil
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	return []query.Expr{e}, nil
}

// closesSet says whether the parenthesis ahead is followed, after its
// matching one, by `,` or `)`.
func (p *parser) closesSet() bool {
	depth := 0
	for k := 0; k < 4096; k++ {
		t := p.peekAt(k)
		switch {
		case t.Kind == EOF:
			return false
		case t.Kind == Symbol && t.Text == "(":
			depth++
		case t.Kind == Symbol && t.Text == ")":
			depth--
			if depth == 0 {
				n := p.peekAt(k + 1)
				return n.Kind == Symbol && (n.Text == "," || n.Text == ")")
			}
		}
	}
	return false
}
