package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// A rex is a resolved expression, the analyser's output: every column is
// bound to a position of its input, every type is known, Spark's implicit
// casts are explicit rCast nodes and constant sub-expressions are folded.
// The rewrites move and re-bind rexes; the physical planner compiles each
// once into a closure over Arrow arrays (compile.go).
//
// A new kind of expression (a window function's result, a scalar subquery,
// a lambda) is a new type implementing rex; analysis creates it, a rewrite
// or the physical planner replaces it before compile sees it.
type rex interface {
	// Type is the result type.
	Type() arrow.DataType
	// sql is Spark's pretty SQL of the expression (toPrettySQL): columns
	// by their name alone, string literals unquoted, implicit casts left
	// out. It is the name of an unaliased select item.
	sql() string
	// kids are the sub-expressions, in a fixed order.
	kids() []rex
	// with is a copy of the node over new sub-expressions (same order and
	// number as kids).
	with(kids []rex) rex
}

// keyedRex is a rex kind defined outside this file that tells rexKey what
// it computes besides its kids (its kind and parameters).
type keyedRex interface {
	rex
	key() string
}

// compiledRex is a rex kind defined outside this file that compiles
// itself (its kids compiled with compile).
type compiledRex interface {
	rex
	compile() (*cexpr, error)
}

// rCol is column idx of the input.
type rCol struct {
	idx  int
	t    arrow.DataType
	name string
	pos  Pos // where the query names it, for errors found later
}

// rLit is a constant: nil, bool, int8…int64, float32, float64, string,
// []byte, decimal128.Num or time.Time, of type t.
type rLit struct {
	v    any
	t    arrow.DataType
	name string // the pretty SQL of what it was folded from; "" for its own
}

// rCast converts x to type to with Spark's CAST (ANSI off). user marks a
// CAST the query wrote: implicit casts do not show in generated names.
type rCast struct {
	x    rex
	to   arrow.DataType
	user bool
	pos  Pos
	src  string
}

// rArith is l op r for + - * / % over operands already cast to the kernel
// type (t, or a decimal type for decimal arithmetic with result type t),
// and for the bitwise & | ^ << >> >>> and ~ (unary: l and r are the
// operand).
type rArith struct {
	op   string
	l, r rex
	t    arrow.DataType
}

// rCmp is a comparison of two operands of one type: = != < <= > >= <=>.
type rCmp struct {
	op   string
	l, r rex
}

// rLogic is three-valued AND or OR.
type rLogic struct {
	and  bool
	l, r rex
}

type rNot struct{ x rex }

// rNeg is unary minus (or, with plus, unary plus: the value itself).
type rNeg struct {
	x    rex
	plus bool
}

type rIsNull struct {
	x   rex
	not bool
}

// rIn is x IN (list…), every operand of one type.
type rIn struct {
	x    rex
	list []rex
}

// rLike is x LIKE pat or ILIKE (fold); RLIKE is the rlike function.
type rLike struct {
	x, pat rex
	esc    rune
	escSet bool // an ESCAPE clause was written
	fold   bool
}

// rLikeAll is x LIKE|ILIKE ANY|ALL (patterns…), every pattern a string;
// not negates each match (NOT LIKE ANY: some pattern does not match).
type rLikeAll struct {
	x    rex
	pats []rex
	any  bool
	not  bool
	fold bool
	name string
}

// rCase is CASE WHEN conds[i] THEN vals[i] … ELSE els END (els may be a
// NULL literal), every value of type t.
type rCase struct {
	conds, vals []rex
	els         rex
	t           arrow.DataType
	noElse      bool // written without ELSE (for its generated name)
}

// rField is field idx of a struct (or of every struct of an array of
// structs, giving an array).
type rField struct {
	x    rex
	idx  int
	name string
	t    arrow.DataType
}

// rIndex is element i (0-based) of an array; past the end: NULL.
type rIndex struct {
	x, i rex
	t    arrow.DataType
}

// rCall is a scalar function bound at its call site.
type rCall struct {
	name     string // lower-case
	pretty   string // its generated name
	b        fn.Bound
	args     []rex
	volatile bool // rand(), uuid(): never folded
	pos      Pos
	src      string
}

// rAgg stands for aggregate i of the aggregation being analysed; it only
// lives between the analysis of a grouped select list and its mapping onto
// the aggregate's output (see groupedSpace).
type rAgg struct {
	i    int
	t    arrow.DataType
	name string
}

func (e *rCol) Type() arrow.DataType     { return e.t }
func (e *rLit) Type() arrow.DataType     { return e.t }
func (e *rCast) Type() arrow.DataType    { return e.to }
func (e *rArith) Type() arrow.DataType   { return e.t }
func (e *rCmp) Type() arrow.DataType     { return tBool }
func (e *rLogic) Type() arrow.DataType   { return tBool }
func (e *rNot) Type() arrow.DataType     { return tBool }
func (e *rNeg) Type() arrow.DataType     { return e.x.Type() }
func (e *rIsNull) Type() arrow.DataType  { return tBool }
func (e *rIn) Type() arrow.DataType      { return tBool }
func (e *rLike) Type() arrow.DataType    { return tBool }
func (e *rLikeAll) Type() arrow.DataType { return tBool }
func (e *rCase) Type() arrow.DataType    { return e.t }
func (e *rField) Type() arrow.DataType   { return e.t }
func (e *rIndex) Type() arrow.DataType   { return e.t }
func (e *rCall) Type() arrow.DataType    { return e.b.Type }
func (e *rAgg) Type() arrow.DataType     { return e.t }

func (e *rCol) kids() []rex     { return nil }
func (e *rLit) kids() []rex     { return nil }
func (e *rCast) kids() []rex    { return []rex{e.x} }
func (e *rArith) kids() []rex   { return []rex{e.l, e.r} }
func (e *rCmp) kids() []rex     { return []rex{e.l, e.r} }
func (e *rLogic) kids() []rex   { return []rex{e.l, e.r} }
func (e *rNot) kids() []rex     { return []rex{e.x} }
func (e *rNeg) kids() []rex     { return []rex{e.x} }
func (e *rIsNull) kids() []rex  { return []rex{e.x} }
func (e *rIn) kids() []rex      { return append([]rex{e.x}, e.list...) }
func (e *rLike) kids() []rex    { return []rex{e.x, e.pat} }
func (e *rLikeAll) kids() []rex { return append([]rex{e.x}, e.pats...) }
func (e *rCase) kids() []rex {
	out := make([]rex, 0, 2*len(e.conds)+1)
	for i := range e.conds {
		out = append(out, e.conds[i], e.vals[i])
	}
	return append(out, e.els)
}
func (e *rField) kids() []rex { return []rex{e.x} }
func (e *rIndex) kids() []rex { return []rex{e.x, e.i} }
func (e *rCall) kids() []rex  { return e.args }
func (e *rAgg) kids() []rex   { return nil }

func (e *rCol) with([]rex) rex { c := *e; return &c }
func (e *rLit) with([]rex) rex { c := *e; return &c }
func (e *rCast) with(k []rex) rex {
	c := *e
	c.x = k[0]
	return &c
}
func (e *rArith) with(k []rex) rex {
	c := *e
	c.l, c.r = k[0], k[1]
	return &c
}
func (e *rCmp) with(k []rex) rex {
	c := *e
	c.l, c.r = k[0], k[1]
	return &c
}
func (e *rLogic) with(k []rex) rex {
	c := *e
	c.l, c.r = k[0], k[1]
	return &c
}
func (e *rNot) with(k []rex) rex    { return &rNot{x: k[0]} }
func (e *rNeg) with(k []rex) rex    { return &rNeg{x: k[0], plus: e.plus} }
func (e *rIsNull) with(k []rex) rex { return &rIsNull{x: k[0], not: e.not} }
func (e *rIn) with(k []rex) rex     { return &rIn{x: k[0], list: append([]rex(nil), k[1:]...)} }
func (e *rLike) with(k []rex) rex {
	c := *e
	c.x, c.pat = k[0], k[1]
	return &c
}
func (e *rLikeAll) with(k []rex) rex {
	c := *e
	c.x, c.pats = k[0], append([]rex(nil), k[1:]...)
	return &c
}
func (e *rCase) with(k []rex) rex {
	c := &rCase{t: e.t, noElse: e.noElse}
	for i := range e.conds {
		c.conds = append(c.conds, k[2*i])
		c.vals = append(c.vals, k[2*i+1])
	}
	c.els = k[len(k)-1]
	return c
}
func (e *rField) with(k []rex) rex {
	c := *e
	c.x = k[0]
	return &c
}
func (e *rIndex) with(k []rex) rex {
	c := *e
	c.x, c.i = k[0], k[1]
	return &c
}
func (e *rCall) with(k []rex) rex {
	c := *e
	c.args = append([]rex(nil), k...)
	return &c
}
func (e *rAgg) with([]rex) rex { c := *e; return &c }

// Spark's pretty SQL (Expression.sql over usePrettyExpression).

func (e *rCol) sql() string { return e.name }
func (e *rLit) sql() string {
	if e.name != "" {
		return e.name
	}
	return prettyLiteral(e.v, e.t)
}
func (e *rCast) sql() string {
	if !e.user {
		return e.x.sql()
	}
	if l, ok := e.x.(*rLit); ok && l.name == "" && l.v == nil && isArrayOrMap(e.to) {
		// Spark names a NULL cast to an array or a map `NULL` (bitwise.sql:
		// `cast(null as map<int, array<int>>)`), a NULL cast to an atomic
		// type CAST(NULL AS INT).
		return "NULL"
	}
	return "CAST(" + e.x.sql() + " AS " + sparktype.SQL(e.to) + ")"
}
func (e *rArith) sql() string {
	if e.op == "~" {
		return "~" + e.l.sql()
	}
	return "(" + e.l.sql() + " " + e.op + " " + e.r.sql() + ")"
}
func (e *rCmp) sql() string {
	if e.op == "!=" {
		return "(NOT (" + e.l.sql() + " = " + e.r.sql() + "))"
	}
	return "(" + e.l.sql() + " " + e.op + " " + e.r.sql() + ")"
}
func (e *rLogic) sql() string {
	op := " OR "
	if e.and {
		op = " AND "
	}
	return "(" + e.l.sql() + op + e.r.sql() + ")"
}
func (e *rNot) sql() string { return "(NOT " + e.x.sql() + ")" }
func (e *rNeg) sql() string {
	if e.plus {
		return "(+ " + e.x.sql() + ")"
	}
	return "(- " + e.x.sql() + ")"
}
func (e *rIsNull) sql() string {
	if e.not {
		return "(" + e.x.sql() + " IS NOT NULL)"
	}
	return "(" + e.x.sql() + " IS NULL)"
}
func (e *rIn) sql() string { return "(" + e.x.sql() + " IN (" + sqlList(e.list) + "))" }
func (e *rLike) sql() string {
	if e.fold {
		return "ilike(" + e.x.sql() + ", " + e.pat.sql() + ")"
	}
	s := e.x.sql() + " LIKE " + e.pat.sql()
	if e.escSet {
		s += " ESCAPE '" + string(e.esc) + "'"
	}
	return s
}
func (e *rLikeAll) sql() string { return e.name }
func (e *rCase) sql() string {
	var b strings.Builder
	b.WriteString("CASE")
	for i := range e.conds {
		b.WriteString(" WHEN " + e.conds[i].sql() + " THEN " + e.vals[i].sql())
	}
	if !e.noElse {
		b.WriteString(" ELSE " + e.els.sql())
	}
	b.WriteString(" END")
	return b.String()
}
func (e *rField) sql() string { return e.x.sql() + "." + e.name }
func (e *rIndex) sql() string { return e.x.sql() + "[" + e.i.sql() + "]" }
func (e *rCall) sql() string  { return e.pretty }
func (e *rAgg) sql() string   { return e.name }

func sqlList(xs []rex) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = x.sql()
	}
	return strings.Join(s, ", ")
}

// walkRex calls f on e and its sub-expressions, depth first, while f
// returns true.
func walkRex(e rex, f func(rex) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, k := range e.kids() {
		walkRex(k, f)
	}
}

// mapRex rebuilds e bottom-up, replacing each node by f's answer (f sees
// the node with its new children).
func mapRex(e rex, f func(rex) (rex, error)) (rex, error) {
	ks := e.kids()
	if len(ks) > 0 {
		nk := make([]rex, len(ks))
		changed := false
		for i, k := range ks {
			m, err := mapRex(k, f)
			if err != nil {
				return nil, err
			}
			nk[i] = m
			changed = changed || m != k
		}
		if changed {
			e = e.with(nk)
		}
	}
	return f(e)
}

// rebind maps the columns of e through m (old index → new index); it
// panics on an index m drops, which is a planner bug.
func rebind(e rex, m []int) rex {
	out, _ := mapRex(e, func(x rex) (rex, error) {
		if c, ok := x.(*rCol); ok {
			n := *c
			if c.idx >= len(m) || m[c.idx] < 0 {
				panic(fmt.Sprintf("query: column %d (%s) was pruned but is used", c.idx, c.name))
			}
			n.idx = m[c.idx]
			return &n, nil
		}
		return x, nil
	})
	return out
}

// substitute replaces every column i of e by exprs[i] (an expression over
// a projection's output becomes one over its input).
func substitute(e rex, exprs []rex) rex {
	out, _ := mapRex(e, func(x rex) (rex, error) {
		if c, ok := x.(*rCol); ok {
			return exprs[c.idx], nil
		}
		return x, nil
	})
	return out
}

// columnsOf marks the input columns e reads.
func columnsOf(e rex, used []bool) {
	walkRex(e, func(x rex) bool {
		if c, ok := x.(*rCol); ok && c.idx < len(used) {
			used[c.idx] = true
		}
		return true
	})
}

// deterministic says whether e gives the same answer every time it is
// evaluated on the same row (no rand()): only such an expression may be
// moved to another place in the plan.
func deterministic(e rex) bool {
	ok := true
	walkRex(e, func(x rex) bool {
		if c, isCall := x.(*rCall); isCall && c.volatile {
			ok = false
		}
		return ok
	})
	return ok
}

// rexKey is a text that is equal for two expressions exactly when they
// compute the same thing over the same input (Spark's semanticEquals): a
// GROUP BY key and a select item written with or without a qualifier match.
func rexKey(e rex) string {
	var b strings.Builder
	writeKey(&b, e)
	return b.String()
}

func writeKey(b *strings.Builder, e rex) {
	switch x := e.(type) {
	case *rCol:
		fmt.Fprintf(b, "#%d", x.idx)
		return
	case *rLit:
		fmt.Fprintf(b, "lit(%s:%v)", typeName(x.t), x.v)
		return
	case *rAgg:
		fmt.Fprintf(b, "agg#%d", x.i)
		return
	case *rWin:
		fmt.Fprintf(b, "win#%d", x.i)
		return
	case *rCast:
		fmt.Fprintf(b, "cast<%s>", typeName(x.to))
	case *rArith:
		b.WriteString(x.op)
	case *rCmp:
		b.WriteString(x.op)
	case *rLogic:
		if x.and {
			b.WriteString("and")
		} else {
			b.WriteString("or")
		}
	case *rNot:
		b.WriteString("not")
	case *rNeg:
		fmt.Fprintf(b, "neg<%v>", x.plus)
	case *rIsNull:
		fmt.Fprintf(b, "isnull<%v>", x.not)
	case *rIn:
		b.WriteString("in")
	case *rLike:
		fmt.Fprintf(b, "like<%v,%q>", x.fold, x.esc)
	case *rLikeAll:
		fmt.Fprintf(b, "likeall<%s>", x.name)
	case *rCase:
		b.WriteString("case")
	case *rField:
		fmt.Fprintf(b, "field<%d>", x.idx)
	case *rIndex:
		b.WriteString("index")
	case *rCall:
		b.WriteString(x.name)
		if x.volatile {
			fmt.Fprintf(b, "<%p>", x) // two calls of rand() differ
		}
	case keyedRex:
		b.WriteString(x.key())
	default:
		fmt.Fprintf(b, "%T", e)
	}
	b.WriteByte('(')
	for i, k := range e.kids() {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(b, k)
	}
	b.WriteByte(')')
}

// isArrayOrMap reports whether t is an array or a map type.
func isArrayOrMap(t arrow.DataType) bool {
	switch t.(type) {
	case *arrow.ListType, *arrow.MapType:
		return true
	}
	return false
}
