package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Pos is a place in the query text: 0-based byte offset, 1-based line and
// column. The zero Pos means "no position" (expressions built in Go).
type Pos struct {
	Offset, Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("line %d, column %d", p.Line, p.Col) }

// Expr is a scalar expression as written: SQL text and pipeline steps parse
// into it, Go code may build it. It is resolved against a schema and
// compiled into a closure over Arrow arrays before it runs.
type Expr interface {
	Position() Pos
	// String is the expression as SQL, which is also the name of an
	// unaliased output column.
	String() string
	expr()
}

// Column is a column reference or a dotted path: `a`, `t.a`, `a.b.c`. The
// first segments may name a table (or alias); the rest is a column and the
// struct fields inside it.
type Column struct {
	Path []string
	Pos  Pos
}

// Literal is a constant. Value is nil (NULL), bool, int8, int16, int32,
// int64, float32, float64, string, []byte (binary), decimal128.Num (Type is
// then a *arrow.Decimal128Type) or time.Time (a date or a timestamp, UTC);
// Type is its Arrow type. Raw is the text as written, for messages.
// Text is a TIMESTAMP literal's text: the analyser reads it again in the
// session time zone (Value is its reading in UTC), see docs/sql.md#time-zone.
type Literal struct {
	Value any
	Type  arrow.DataType
	Raw   string
	Text  string
	Pos   Pos
}

// Binary is `l op r` for + - * / % DIV || & | ^ << >> >>> = == != < <=
// > >= <=> AND OR (the parser reads <> as !=).
type Binary struct {
	Op   string
	L, R Expr
	Pos  Pos
}

// Unary is `-x`, `+x` or `NOT x`.
type Unary struct {
	Op  string
	X   Expr
	Pos Pos
}

// IsNull is `x IS [NOT] NULL`.
type IsNull struct {
	X   Expr
	Not bool
	Pos Pos
}

// In is `x [NOT] IN (list)`.
type In struct {
	X    Expr
	List []Expr
	Not  bool
	Pos  Pos
}

// Between is `x [NOT] BETWEEN lo AND hi`.
type Between struct {
	X, Lo, Hi Expr
	Not       bool
	Pos       Pos
}

// Like is `x [NOT] LIKE|ILIKE pattern [ESCAPE 'c']`, `x [NOT] RLIKE
// pattern` (Regex: a Java regular expression found anywhere in x), or with a
// quantifier `x [NOT] LIKE|ILIKE ANY|SOME|ALL (p1, p2, …)` (Patterns set,
// Pattern nil).
type Like struct {
	X, Pattern Expr
	Escape     rune // 0: the default, backslash
	Not, ILike bool
	Regex      bool
	Quantifier string // "", "ANY" (also SOME) or "ALL"
	Patterns   []Expr
	Pos        Pos
}

// When is one WHEN … THEN … of a CASE.
type When struct{ Cond, Then Expr }

// Case is `CASE [operand] WHEN … THEN … [ELSE …] END`.
type Case struct {
	Operand Expr // nil for the searched form
	Whens   []When
	Else    Expr // nil: NULL
	Pos     Pos
}

// Cast is `CAST(x AS type)`.
type Cast struct {
	X        Expr
	To       arrow.DataType
	TypeName string
	Pos      Pos
}

// Index is `x[i]` (array, 0-based) or `x['k']` (struct field by name).
type Index struct {
	X, Index Expr
	Pos      Pos
}

// Field is `x.f` where x is not a plain column path (`(a).f`, `f(x).f`,
// `x[0].f`).
type Field struct {
	X    Expr
	Name string
	Pos  Pos
}

// Call is a function call: a scalar function, an aggregate
// (`count(DISTINCT x)`, `count(*)`, `sum(x) FILTER (WHERE p)`), a window
// function (`rank() OVER (…)`, see ast_window.go) or a generator (explode).
type Call struct {
	Name string // as written
	Args []Expr
	// ArgNames, when not nil, name the arguments of struct(x AS a, …)
	// ("" for an argument without AS); the struct's fields take them.
	ArgNames []string
	Distinct bool
	Star     bool // count(*)
	// WithinGroup is the ordering of `percentile_cont(p) WITHIN GROUP
	// (ORDER BY x)`.
	WithinGroup []OrderItem
	Filter      Expr        // FILTER (WHERE …) of an aggregate
	Nulls       string      // "IGNORE" or "RESPECT" (… NULLS); "" when not written
	Over        *WindowSpec // OVER …: a window function call
	Pos         Pos
}

// Star is `*` or `t.*` in a select list.
type Star struct {
	Qualifier string
	Pos       Pos
}

func (e *Column) Position() Pos  { return e.Pos }
func (e *Literal) Position() Pos { return e.Pos }
func (e *Binary) Position() Pos  { return e.Pos }
func (e *Unary) Position() Pos   { return e.Pos }
func (e *IsNull) Position() Pos  { return e.Pos }
func (e *In) Position() Pos      { return e.Pos }
func (e *Between) Position() Pos { return e.Pos }
func (e *Like) Position() Pos    { return e.Pos }
func (e *Case) Position() Pos    { return e.Pos }
func (e *Cast) Position() Pos    { return e.Pos }
func (e *Index) Position() Pos   { return e.Pos }
func (e *Field) Position() Pos   { return e.Pos }
func (e *Call) Position() Pos    { return e.Pos }
func (e *Star) Position() Pos    { return e.Pos }

func (*Column) expr()  {}
func (*Literal) expr() {}
func (*Binary) expr()  {}
func (*Unary) expr()   {}
func (*IsNull) expr()  {}
func (*In) expr()      {}
func (*Between) expr() {}
func (*Like) expr()    {}
func (*Case) expr()    {}
func (*Cast) expr()    {}
func (*Index) expr()   {}
func (*Field) expr()   {}
func (*Call) expr()    {}
func (*Star) expr()    {}

func (e *Column) String() string { return strings.Join(e.Path, ".") }
func (e *Literal) String() string {
	if e.Raw != "" {
		return e.Raw
	}
	switch v := e.Value.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(v, "'", "\\'") + "'"
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	return fmt.Sprint(e.Value)
}
func (e *Binary) String() string { return "(" + e.L.String() + " " + e.Op + " " + e.R.String() + ")" }
func (e *Unary) String() string {
	if e.Op == "NOT" {
		return "(NOT " + e.X.String() + ")"
	}
	return "(" + e.Op + " " + e.X.String() + ")"
}
func (e *IsNull) String() string {
	if e.Not {
		return "(" + e.X.String() + " IS NOT NULL)"
	}
	return "(" + e.X.String() + " IS NULL)"
}
func (e *In) String() string {
	parts := make([]string, len(e.List))
	for i, x := range e.List {
		parts[i] = x.String()
	}
	return "(" + e.X.String() + not(e.Not) + " IN (" + strings.Join(parts, ", ") + "))"
}
func (e *Between) String() string {
	return "(" + e.X.String() + not(e.Not) + " BETWEEN " + e.Lo.String() + " AND " + e.Hi.String() + ")"
}
func (e *Like) String() string {
	op := " LIKE "
	switch {
	case e.Regex:
		op = " RLIKE "
	case e.ILike:
		op = " ILIKE "
	}
	if e.Quantifier != "" {
		parts := make([]string, len(e.Patterns))
		for i, p := range e.Patterns {
			parts[i] = p.String()
		}
		return "(" + e.X.String() + not(e.Not) + op + e.Quantifier + " (" + strings.Join(parts, ", ") + "))"
	}
	s := "(" + e.X.String() + not(e.Not) + op + e.Pattern.String()
	if e.Escape != 0 {
		s += " ESCAPE " + strconv.Quote(string(e.Escape))
	}
	return s + ")"
}
func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if e.Operand != nil {
		b.WriteString(" " + e.Operand.String())
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	if e.Else != nil {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}
func (e *Cast) String() string  { return "CAST(" + e.X.String() + " AS " + e.TypeName + ")" }
func (e *Index) String() string { return e.X.String() + "[" + e.Index.String() + "]" }
func (e *Field) String() string { return e.X.String() + "." + e.Name }
func (e *Call) String() string {
	if e.Star {
		return e.Name + "(*)"
	}
	parts := make([]string, len(e.Args))
	for i, x := range e.Args {
		parts[i] = x.String()
		if i < len(e.ArgNames) && e.ArgNames[i] != "" {
			parts[i] += " AS " + e.ArgNames[i]
		}
	}
	d := ""
	if e.Distinct {
		d = "DISTINCT "
	}
	return e.Name + "(" + d + strings.Join(parts, ", ") + ")" + callSuffix(e)
}
func (e *Star) String() string {
	if e.Qualifier != "" {
		return e.Qualifier + ".*"
	}
	return "*"
}

func not(b bool) string {
	if b {
		return " NOT"
	}
	return ""
}

// Query is a SELECT or a UNION of them.
type Query interface {
	Position() Pos
	query()
}

// SelectItem is one output of a select list.
type SelectItem struct {
	Expr  Expr
	Alias string // "" when not aliased
	// Aliases name a generator's columns: `explode(m) AS (k, v)`.
	Aliases []string
	Pos     Pos
}

// OrderItem is one ORDER BY key.
type OrderItem struct {
	Expr       Expr
	Desc       bool
	NullsFirst *bool // nil: Spark's default (first for ASC, last for DESC)
}

// CTE is one `name [(col, …)] AS (query)` of a WITH clause.
type CTE struct {
	Name    string
	Columns []string // the column alias list; nil: the query's own names
	Query   Query
	Pos     Pos
}

// Select is one SELECT block.
type Select struct {
	With     []CTE
	Distinct bool
	Items    []SelectItem
	From     Source // nil: SELECT without FROM (one row)
	Where    Expr
	GroupBy  []Expr
	Having   Expr
	Windows  []NamedWindow // WINDOW w AS (…), …
	OrderBy  []OrderItem
	Limit    Expr // a constant expression of an integer type; nil: none
	Offset   Expr
	Pos      Pos
}

// SetOp is `l UNION|INTERSECT|EXCEPT [ALL|DISTINCT] r`, with the ORDER BY
// and LIMIT that follow the last branch applying to the whole result.
type SetOp struct {
	With    []CTE
	Op      string // UNION, INTERSECT or EXCEPT (the parser reads MINUS as EXCEPT)
	All     bool
	L, R    Query
	OrderBy []OrderItem
	Limit   Expr
	Offset  Expr
	Pos     Pos
}

func (s *Select) Position() Pos { return s.Pos }
func (s *SetOp) Position() Pos  { return s.Pos }
func (*Select) query()          {}
func (*SetOp) query()           {}

// Source is a FROM item.
type Source interface {
	Position() Pos
	source()
}

// TableRef names a table: a catalog table (`ns.t`), a CTE, a temporary
// view, or — in the Go API and pipelines — a frame given by name.
type TableRef struct {
	Name    []string
	Alias   string
	Columns []string // `AS x(a, b)`: new names for the columns, in order
	Pos     Pos
}

// SubqueryRef is `(query) [AS] alias [(col, …)]`.
type SubqueryRef struct {
	Query   Query
	Alias   string
	Columns []string
	Pos     Pos
}

// ValuesRef is an inline table: `VALUES (…), (…) [AS] alias [(col, …)]`.
// Every row has the same number of constant expressions; the columns are
// named col1, col2, … unless Columns names them.
type ValuesRef struct {
	Rows    [][]Expr
	Alias   string
	Columns []string
	Pos     Pos
}

// JoinKind is the kind of a join.
type JoinKind string

// Join kinds.
const (
	InnerJoin JoinKind = "INNER"
	LeftJoin  JoinKind = "LEFT"
	RightJoin JoinKind = "RIGHT"
	FullJoin  JoinKind = "FULL"
	CrossJoin JoinKind = "CROSS"
	SemiJoin  JoinKind = "LEFT SEMI" // the left rows that have a partner, once
	AntiJoin  JoinKind = "LEFT ANTI" // the left rows that have none
)

// JoinRef is `l [NATURAL] [kind] JOIN r [ON cond | USING (cols)]`. Without
// a condition (and not NATURAL) every pair joins, as in Spark.
type JoinRef struct {
	L, R    Source
	Kind    JoinKind
	On      Expr
	Using   []string
	Natural bool // NATURAL: USING every column name both sides have
	Pos     Pos
}

// LateralView is `input LATERAL VIEW [OUTER] explode(x) alias AS col` (or
// posexplode with `AS pos, col`).
type LateralView struct {
	Input   Source
	Outer   bool
	Gen     *Call
	Alias   string
	Columns []string
	Pos     Pos
}

// FunctionRef is a table-valued function in FROM: `range(1, 5) [AS] t`.
type FunctionRef struct {
	Name    string
	Args    []Expr
	Alias   string
	Columns []string
	Pos     Pos
}

func (s *FunctionRef) Position() Pos { return s.Pos }
func (*FunctionRef) source()         {}

func (s *TableRef) Position() Pos    { return s.Pos }
func (s *SubqueryRef) Position() Pos { return s.Pos }
func (s *ValuesRef) Position() Pos   { return s.Pos }
func (s *JoinRef) Position() Pos     { return s.Pos }
func (s *LateralView) Position() Pos { return s.Pos }
func (*TableRef) source()            {}
func (*SubqueryRef) source()         {}
func (*ValuesRef) source()           {}
func (*JoinRef) source()             {}
func (*LateralView) source()         {}

// TableNames lists the tables q reads (not its CTEs), in order of
// appearance, each once.
func TableNames(q Query) [][]string {
	var out [][]string
	seen := map[string]bool{}
	var walkQ func(q Query, ctes map[string]bool)
	var walkS func(s Source, ctes map[string]bool)
	walkS = func(s Source, ctes map[string]bool) {
		switch x := s.(type) {
		case *TableRef:
			key := strings.ToLower(strings.Join(x.Name, "."))
			if len(x.Name) == 1 && ctes[key] || seen[key] {
				return
			}
			seen[key] = true
			out = append(out, x.Name)
		case *SubqueryRef:
			walkQ(x.Query, ctes)
		case *JoinRef:
			walkS(x.L, ctes)
			walkS(x.R, ctes)
			for _, sq := range subqueriesOf(x.On) {
				walkQ(sq, ctes)
			}
		case *LateralView:
			walkS(x.Input, ctes)
		}
	}
	walkQ = func(q Query, outer map[string]bool) {
		ctes := map[string]bool{}
		for k := range outer {
			ctes[k] = true
		}
		var with []CTE
		switch x := q.(type) {
		case *Select:
			with = x.With
		case *SetOp:
			with = x.With
		}
		for _, c := range with {
			walkQ(c.Query, ctes)
			ctes[strings.ToLower(c.Name)] = true
		}
		switch x := q.(type) {
		case *Select:
			if x.From != nil {
				walkS(x.From, ctes)
			}
			for _, e := range exprsOf(x) {
				for _, sq := range subqueriesOf(e) {
					walkQ(sq, ctes)
				}
			}
		case *SetOp:
			walkQ(x.L, ctes)
			walkQ(x.R, ctes)
		}
	}
	walkQ(q, nil)
	return out
}

// visit calls f on e and its sub-expressions (depth first) while f
// returns true.
func visit(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch x := e.(type) {
	case *Binary:
		visit(x.L, f)
		visit(x.R, f)
	case *Unary:
		visit(x.X, f)
	case *IsNull:
		visit(x.X, f)
	case *In:
		visit(x.X, f)
		for _, y := range x.List {
			visit(y, f)
		}
	case *Between:
		visit(x.X, f)
		visit(x.Lo, f)
		visit(x.Hi, f)
	case *Like:
		visit(x.X, f)
		visit(x.Pattern, f)
		for _, p := range x.Patterns {
			visit(p, f)
		}
	case *Case:
		visit(x.Operand, f)
		for _, w := range x.Whens {
			visit(w.Cond, f)
			visit(w.Then, f)
		}
		visit(x.Else, f)
	case *Cast:
		visit(x.X, f)
	case *Index:
		visit(x.X, f)
		visit(x.Index, f)
	case *Field:
		visit(x.X, f)
	case *Call:
		for _, y := range x.Args {
			visit(y, f)
		}
		visitCallParts(x, f)
	case *GroupingSets:
		visitGroupingSets(x, f)
	case *InSubquery: // the values, not the query (its own scope)
		for _, y := range x.X {
			visit(y, f)
		}
	case *Tuple:
		for _, y := range x.Items {
			visit(y, f)
		}
	case *Lambda:
		visit(x.Body, f)
	}
}
