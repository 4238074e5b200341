package pipelines

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe/query"
)

// The `sql` and `filter` steps speak the SQL dialect of `sluice sql`
// (docs/sql.md) and run on the same query engine (package dataframe/query):
// FROM names earlier step ids or catalog tables (namespace.table). No
// temporary view is registered in the session, so a pipeline leaves no
// state behind in the catalog.

// Query is the parsed query of an sql step.
type Query struct {
	// From is the first table or step id the query reads.
	From string
	// FromTable is true when From names a catalog table (it has a namespace).
	FromTable bool
	// Tables are every table or step id the query reads, in order.
	Tables []string
	ast    query.Query
}

// queryError is a mistake in a query or a filter, at a 1-based line and
// column of the text the user wrote.
type queryError struct {
	Line, Column int
	Msg          string
}

func (e *queryError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// sqlError maps an error of the catalog/sqlparse parser or the query engine on
// text whose first line starts with prefix (added by us) to the user's
// positions.
func sqlError(err error, prefix string) error {
	var line, col int
	var msg string
	var se *sqlparse.SyntaxError
	var qe *query.Error
	switch {
	case errors.As(err, &se):
		line, col, msg = se.Pos.Line, se.Pos.Col, se.Msg
	case errors.As(err, &qe) && qe.Pos.Line > 0:
		line, col, msg = qe.Pos.Line, qe.Pos.Col, qe.Msg
	default:
		return &queryError{Msg: err.Error()}
	}
	if line == 1 {
		col -= len([]rune(prefix))
		if col < 1 {
			col = 1
		}
	}
	return &queryError{Line: line, Column: col, Msg: msg}
}

func parseQuery(src string) (*Query, error) {
	st, err := sqlparse.ParseOne(src)
	if err != nil {
		return nil, sqlError(err, "")
	}
	sel, ok := st.(*sqlparse.Select)
	if !ok || sel.Explain {
		return nil, &queryError{Msg: "an sql step runs one SELECT (other statements belong to sluice sql)"}
	}
	q := &Query{ast: sel.Query}
	for _, name := range query.TableNames(sel.Query) {
		q.Tables = append(q.Tables, strings.Join(name, "."))
	}
	if len(q.Tables) == 0 {
		return nil, &queryError{Msg: "the query reads no step or table (add FROM)"}
	}
	q.From, q.FromTable = q.Tables[0], strings.Contains(q.Tables[0], ".")
	return q, nil
}

// filterPrefix turns a filter expression into a statement the SQL parser
// takes; positions are mapped back by its length.
const filterPrefix = "SELECT * FROM _ WHERE "

// parseFilter parses a filter step's expression into the query it runs
// over its input (named `_`).
func parseFilter(expr string) (query.Query, error) {
	st, err := sqlparse.ParseOne(filterPrefix + expr)
	if err != nil {
		return nil, sqlError(err, filterPrefix)
	}
	sel, ok := st.(*sqlparse.Select)
	q, isSel := sel.Query.(*query.Select)
	if !ok || !isSel || q.Where == nil {
		return nil, &queryError{Msg: "want a WHERE expression"}
	}
	if q.Limit != nil || q.OrderBy != nil || q.GroupBy != nil {
		return nil, &queryError{Msg: "a filter is a WHERE expression only (use a limit or sort step)"}
	}
	return q, nil
}
