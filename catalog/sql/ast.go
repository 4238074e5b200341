package sql

import "strings"

// Statement is one parsed SQL statement. Every statement knows its number in
// the batch (from 1) and where it starts.
type Statement interface {
	// Number is the statement's position in its batch, counting from 1.
	Number() int
	// Position is where the statement's first token is.
	Position() Pos
	stmt()
}

type stmtBase struct {
	N   int
	Pos Pos
}

func (s stmtBase) Number() int   { return s.N }
func (s stmtBase) Position() Pos { return s.Pos }
func (stmtBase) stmt()           {}

// TableName is `ns.t` or `t` (Namespace empty). Names keep the case the user
// typed; the catalog folds them.
type TableName struct {
	Namespace string
	Name      string
	Pos       Pos
}

func (t TableName) String() string {
	if t.Namespace == "" {
		return t.Name
	}
	return t.Namespace + "." + t.Name
}

// ColumnDef is one `name type` of a CREATE column list; Type is Spark's
// canonical spelling (`bigint` → `long`).
type ColumnDef struct {
	Name string
	Type string
	Pos  Pos
}

// Property is one `'k'='v'` of TBLPROPERTIES.
type Property struct {
	Key   string
	Value string
	Pos   Pos
}

// CreateTable is CREATE [EXTERNAL] TABLE [IF NOT EXISTS] ns.t [(…)] [LOCATION '…'] [TBLPROPERTIES (…)].
type CreateTable struct {
	stmtBase
	External    bool
	IfNotExists bool
	Table       TableName
	Columns     []ColumnDef
	Location    string
	Properties  []Property
}

// DropTable is DROP TABLE [IF EXISTS] ns.t.
type DropTable struct {
	stmtBase
	IfExists bool
	Table    TableName
}

// ShowTables is SHOW TABLES [IN ns]; Namespace is empty for every namespace.
type ShowTables struct {
	stmtBase
	Namespace string
}

// ShowNamespaces is SHOW NAMESPACES (also DATABASES, SCHEMAS).
type ShowNamespaces struct{ stmtBase }

// Describe is DESCRIBE [TABLE] ns.t.
type Describe struct {
	stmtBase
	Table TableName
}

// Set is `SET` (HasKey false: list all), `SET k` (show one) or `SET k=v`.
type Set struct {
	stmtBase
	Key      string
	Value    string
	HasKey   bool
	HasValue bool
}

// Reset is RESET (Key empty: every setting) or RESET k.
type Reset struct {
	stmtBase
	Key string
}

// SelectItem is one projected column: a dotted path and its alias.
type SelectItem struct {
	Path  []string
	Alias string
	Pos   Pos
}

// Name is the output column name: the alias, else the path's last segment
// (as Spark names `pageInfo.totalResults` → `totalResults`).
func (it SelectItem) Name() string {
	if it.Alias != "" {
		return it.Alias
	}
	return it.Path[len(it.Path)-1]
}

// Select is SELECT * | items FROM ns.t [WHERE …] [LIMIT n].
type Select struct {
	stmtBase
	Star  bool
	Items []SelectItem
	From  TableName
	// Alias is the table alias (`FROM yt.subs s`), or "".
	Alias string
	Where Expr  // nil without WHERE
	Limit int64 // -1 without LIMIT
}

// Insert is INSERT INTO ns.t [(cols)] SELECT … | VALUES (…), ….
type Insert struct {
	stmtBase
	Table   TableName
	Columns []string // explicit column list, if any
	Query   *Select  // set for INSERT … SELECT
	Rows    [][]*Literal
}

// Expr is a WHERE expression.
type Expr interface {
	Position() Pos
	String() string
	expr()
}

// ColumnRef is a column or a dotted nested path.
type ColumnRef struct {
	Path []string
	Pos  Pos
}

// Literal is a string, number, boolean or NULL. Value is nil, string,
// int64, float64 or bool.
type Literal struct {
	Value any
	Raw   string
	Pos   Pos
}

// Binary is a comparison (= != <> < <= > >=) or AND / OR.
type Binary struct {
	Op   string
	L, R Expr
	Pos  Pos
}

// Not is NOT x.
type Not struct {
	X   Expr
	Pos Pos
}

// IsNull is x IS [NOT] NULL.
type IsNull struct {
	X   Expr
	Not bool
	Pos Pos
}

func (e *ColumnRef) Position() Pos { return e.Pos }
func (e *Literal) Position() Pos   { return e.Pos }
func (e *Binary) Position() Pos    { return e.Pos }
func (e *Not) Position() Pos       { return e.Pos }
func (e *IsNull) Position() Pos    { return e.Pos }

func (*ColumnRef) expr() {}
func (*Literal) expr()   {}
func (*Binary) expr()    {}
func (*Not) expr()       {}
func (*IsNull) expr()    {}

func (e *ColumnRef) String() string { return strings.Join(e.Path, ".") }
func (e *Literal) String() string   { return e.Raw }
func (e *Binary) String() string    { return "(" + e.L.String() + " " + e.Op + " " + e.R.String() + ")" }
func (e *Not) String() string       { return "(NOT " + e.X.String() + ")" }
func (e *IsNull) String() string {
	if e.Not {
		return "(" + e.X.String() + " IS NOT NULL)"
	}
	return "(" + e.X.String() + " IS NULL)"
}
