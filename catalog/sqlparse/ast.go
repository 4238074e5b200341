package sqlparse

import "github.com/sluicedata/sluice/dataframe/query"

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

// CreateTable is CREATE [EXTERNAL] TABLE [IF NOT EXISTS] ns.t [(…)]
// [USING format] [LOCATION '…'] [TBLPROPERTIES (…)] [AS query].
type CreateTable struct {
	stmtBase
	External    bool
	IfNotExists bool
	Table       TableName
	Columns     []ColumnDef
	Using       string // a data source format (parquet): a table Sluice stores itself
	Location    string
	Properties  []Property
	Query       *Select // AS query: the table's columns and first rows
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

// CreateView is `CREATE [OR REPLACE] TEMPORARY VIEW [IF NOT EXISTS] v
// [(col, …)] AS query`: a name for a query that lives as long as the
// session (docs/sql.md#views).
type CreateView struct {
	stmtBase
	Name        string
	Global      bool // GLOBAL TEMPORARY: named global_temp.v
	Columns     []string
	Replace     bool
	IfNotExists bool
	Query       query.Query
}

// DropView is `DROP VIEW [IF EXISTS] v` (or global_temp.v).
type DropView struct {
	stmtBase
	Name     string
	Global   bool
	IfExists bool
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

// Select is a query: SELECT … [UNION …] with its clauses (docs/sql.md),
// parsed into the query engine's syntax tree; Explain marks EXPLAIN SELECT.
type Select struct {
	stmtBase
	Query   query.Query
	Explain bool
}

// Insert is INSERT INTO ns.t [(cols)] SELECT … | VALUES (…), ….
type Insert struct {
	stmtBase
	// Overwrite is INSERT OVERWRITE: the rows replace the table's.
	Overwrite bool
	Table     TableName
	Columns   []string // explicit column list, if any
	Query     *Select  // set for INSERT … SELECT
	Rows      [][]*Literal
}

// Literal is a value of INSERT … VALUES: nil, string, int64, float64 or
// bool.
type Literal struct {
	Value any
	Raw   string
	Pos   Pos
	// Param is the bound value of a ? placeholder, typed as the query
	// engine types literals (a time.Time is a timestamp, []byte binary);
	// nil for a literal written in the text. Value then holds its Go value
	// (integers as int64, floats as float64).
	Param *query.Literal
}

func (e *Literal) Position() Pos  { return e.Pos }
func (e *Literal) String() string { return e.Raw }
