// Package scan describes what a query asks of one table read: the columns
// it uses, the conjuncts of its WHERE clause that concern that table alone,
// a row limit, and row positions (late materialisation). The query planner
// (dataframe/query) fills a Request; a connector that can do part of the
// work itself (a database evaluates a filter, a Parquet file skips columns
// and rows) implements connectors.ScanReader and reports what it applied.
// Nothing here is a hint passed through a context: the request is an
// argument. See docs/sql.md#pushdown.
//
// A Request never changes a query's result. The planner still applies every
// filter and the limit above the scan unless the reader says it applied them
// exactly, so a reader may honour any part of a request, or none.
package scan

import (
	"fmt"
	"strings"
	"time"
)

// Request is what a query needs of one table.
type Request struct {
	// Columns are the top-level columns the query may use, as the table
	// names them; nil means every column. A reader may return more columns
	// than asked (the planner selects by name), never fewer.
	Columns []string
	// Filters are conjuncts (AND-ed) over this table's columns only. A row
	// the query needs satisfies every one of them.
	Filters []Expr
	// Limit, when positive, says that at most Limit rows satisfying every
	// filter are needed, in any order — or, when Order is set, the first
	// Limit rows in that order (a top-N). A reader may apply it only when it
	// applies every filter exactly, and, when Order is set, only when it
	// applies Order too.
	Limit int64
	// Order, meaningful only with Limit > 0, is the sort order of a top-N
	// (ORDER BY … LIMIT n): the rows needed are the first Limit rows of
	// the filtered table in this order. Ties may be broken any way. A
	// reader that cannot sort exactly as the query engine does (Spark's
	// order, see SortKey) ignores both Order and Limit.
	Order []SortKey
	// Rows, when not nil, are the only row positions needed (0-based in the
	// order a plain read gives them; ascending).
	Rows []int64
}

// Applied is what a reader did of a Request.
type Applied struct {
	// Filters has one entry per Request.Filters: true when the reader's
	// rows satisfy that filter exactly as the query engine evaluates it
	// (Spark's semantics: NULL is not true, string comparison is binary).
	Filters []bool
	// Limit is true when no more than Request.Limit rows were returned.
	Limit bool
	// Order is true when the rows returned include the first
	// Request.Limit rows in Request.Order (so Limit is true too); the rows
	// need not come in that order. The planner sorts them again.
	Order bool
	// Rows is true when only the rows at Request.Rows were returned, in
	// that order.
	Rows bool
	// RowPositions is true when the source gives its rows in the same
	// order on every read (a file), so that a later request can name rows
	// by position in Request.Rows; a database table's order can change
	// between two reads.
	RowPositions bool
}

// SortKey is one key of Request.Order: a top-level column of the table
// (by the table's name for it), in Spark's order — numbers by value with
// NaN above every other number, strings and binaries byte by byte, false
// before true, dates and timestamps by time — ascending unless Desc, NULLs
// before every value when NullsFirst, after when not.
type SortKey struct {
	Column     string
	Desc       bool
	NullsFirst bool
}

func (k SortKey) String() string {
	s := Column{Name: k.Column}.String()
	if k.Desc {
		s += " DESC"
	}
	if k.NullsFirst {
		return s + " NULLS FIRST"
	}
	return s + " NULLS LAST"
}

// Expr is a filter expression over one table's columns and literals: a
// connector translates it into its own language (SQL for a database) or
// evaluates it (row-group statistics). Any part it cannot translate makes
// it skip that filter.
type Expr interface {
	fmt.Stringer
	expr()
}

// Column is a top-level column of the table, by the table's name for it.
type Column struct{ Name string }

// Literal is a constant. Value is nil (NULL), bool, int64, float64, string,
// []byte, time.Time (a date at midnight UTC or a timestamp) or, for a
// decimal, its exact text such as "12.50". Type is the Spark type name
// (long, double, string, date, timestamp, decimal(10,2), boolean, binary).
type Literal struct {
	Value any
	Type  string
}

// Compare is Left Op Right with Op one of = <> < <= > >= and <=> (equal,
// NULL-safe).
type Compare struct {
	Op          string
	Left, Right Expr
}

// In is Expr [NOT] IN (List…).
type In struct {
	Expr Expr
	List []Literal
	Not  bool
}

// IsNull is Expr IS [NOT] NULL.
type IsNull struct {
	Expr Expr
	Not  bool
}

// Between is Expr [NOT] BETWEEN Lo AND Hi.
type Between struct {
	Expr, Lo, Hi Expr
	Not          bool
}

// And, Or and Not are the logical connectives with SQL's three-valued
// logic.
type (
	And struct{ Left, Right Expr }
	Or  struct{ Left, Right Expr }
	Not struct{ Expr Expr }
)

func (Column) expr()  {}
func (Literal) expr() {}
func (Compare) expr() {}
func (In) expr()      {}
func (IsNull) expr()  {}
func (Between) expr() {}
func (And) expr()     {}
func (Or) expr()      {}
func (Not) expr()     {}

func (c Column) String() string { return "`" + strings.ReplaceAll(c.Name, "`", "``") + "`" }

func (l Literal) String() string {
	switch v := l.Value.(type) {
	case nil:
		return "NULL"
	case string:
		if strings.HasPrefix(l.Type, "decimal") {
			return v
		}
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case time.Time:
		if l.Type == "date" {
			return "DATE '" + v.UTC().Format(time.DateOnly) + "'"
		}
		return "TIMESTAMP '" + v.UTC().Format("2006-01-02 15:04:05.999999") + "'"
	case []byte:
		return fmt.Sprintf("X'%X'", v)
	}
	return fmt.Sprint(l.Value)
}

func (c Compare) String() string {
	return "(" + c.Left.String() + " " + c.Op + " " + c.Right.String() + ")"
}

func (x In) String() string {
	parts := make([]string, len(x.List))
	for i, l := range x.List {
		parts[i] = l.String()
	}
	not := ""
	if x.Not {
		not = "NOT "
	}
	return "(" + x.Expr.String() + " " + not + "IN (" + strings.Join(parts, ", ") + "))"
}

func (x IsNull) String() string {
	if x.Not {
		return "(" + x.Expr.String() + " IS NOT NULL)"
	}
	return "(" + x.Expr.String() + " IS NULL)"
}

func (x Between) String() string {
	not := ""
	if x.Not {
		not = "NOT "
	}
	return "(" + x.Expr.String() + " " + not + "BETWEEN " + x.Lo.String() + " AND " + x.Hi.String() + ")"
}

func (x And) String() string { return "(" + x.Left.String() + " AND " + x.Right.String() + ")" }
func (x Or) String() string  { return "(" + x.Left.String() + " OR " + x.Right.String() + ")" }
func (x Not) String() string { return "(NOT " + x.Expr.String() + ")" }

// Columns lists the columns e refers to, each once, in order of first use.
func Columns(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case Column:
			if !seen[x.Name] {
				seen[x.Name] = true
				out = append(out, x.Name)
			}
		case Compare:
			walk(x.Left)
			walk(x.Right)
		case In:
			walk(x.Expr)
		case IsNull:
			walk(x.Expr)
		case Between:
			walk(x.Expr)
			walk(x.Lo)
			walk(x.Hi)
		case And:
			walk(x.Left)
			walk(x.Right)
		case Or:
			walk(x.Left)
			walk(x.Right)
		case Not:
			walk(x.Expr)
		}
	}
	walk(e)
	return out
}
