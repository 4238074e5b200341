package pipelines

import (
	"errors"
	"fmt"

	csql "github.com/sluicedata/sluice/catalog/sql"
	"github.com/sluicedata/sluice/dataframe"
)

// The `sql` and `filter` steps speak the SQL dialect of `sluice sql`
// (CONTRACT §5), parsed and compiled by package catalog/sql, so a WHERE
// clause means the same thing in a pipeline as in a SQL batch. They are
// evaluated with the dataframe operations over the frames of earlier steps:
// no temporary view is registered in the session, so a pipeline leaves no
// state behind in the catalog.
//
//	SELECT * | path [AS alias], … FROM step_id | ns.table [WHERE expr] [LIMIT n]

// Query is the parsed SELECT of an sql step.
type Query struct {
	// From is the step id or the catalog table (ns.table) the query reads.
	From string
	// FromTable is true when From names a catalog table (it has a namespace).
	FromTable bool
	plan      *csql.SelectPlan
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

// sqlError maps an error of the catalog/sql parser on text whose first
// line starts with prefix (added by us) to the user's positions.
func sqlError(err error, prefix string) error {
	var se *csql.SyntaxError
	if !errors.As(err, &se) {
		return &queryError{Msg: err.Error()}
	}
	line, col := se.Pos.Line, se.Pos.Col
	if line == 1 {
		col -= len([]rune(prefix))
		if col < 1 {
			col = 1
		}
	}
	return &queryError{Line: line, Column: col, Msg: se.Msg}
}

func parseQuery(src string) (*Query, error) {
	st, err := csql.ParseOne(src)
	if err != nil {
		return nil, sqlError(err, "")
	}
	sel, ok := st.(*csql.Select)
	if !ok {
		return nil, &queryError{Msg: "an sql step runs one SELECT (other statements belong to sluice sql)"}
	}
	pl, err := sel.Plan()
	if err != nil {
		return nil, sqlError(err, "")
	}
	return &Query{From: sel.From.String(), FromTable: sel.From.Namespace != "", plan: pl}, nil
}

// filterPrefix turns a filter expression into a statement the SQL parser
// takes; positions are mapped back by its length.
const filterPrefix = "SELECT * FROM _ WHERE "

func parseFilter(expr string) (csql.Predicate, error) {
	st, err := csql.ParseOne(filterPrefix + expr)
	if err != nil {
		return nil, sqlError(err, filterPrefix)
	}
	sel, ok := st.(*csql.Select)
	if !ok || sel.Where == nil {
		return nil, &queryError{Msg: "want a WHERE expression"}
	}
	if sel.Limit >= 0 {
		return nil, &queryError{Msg: "a filter is a WHERE expression only (use a limit step for LIMIT)"}
	}
	pl, err := sel.Plan()
	if err != nil {
		return nil, sqlError(err, filterPrefix)
	}
	return pl.Where, nil
}

func filter(f *dataframe.Frame, where csql.Predicate) (*dataframe.Frame, error) {
	return dataframe.Filter(f, func(r *dataframe.Row) (bool, error) { return where(r) })
}

// runQuery evaluates WHERE, then LIMIT, then the projection, as `sluice
// sql` does.
func runQuery(src *dataframe.Frame, q *Query) (*dataframe.Frame, error) {
	pl := q.plan
	cur, owned := src, false
	replace := func(g *dataframe.Frame) {
		if owned {
			cur.Release()
		}
		cur, owned = g, true
	}
	if pl.Where != nil {
		g, err := filter(cur, pl.Where)
		if err != nil {
			return nil, err
		}
		replace(g)
	}
	if pl.Limit >= 0 {
		replace(dataframe.Limit(cur, pl.Limit))
	}
	if !pl.Star {
		proj := make([]dataframe.Projection, len(pl.Projections))
		for i, p := range pl.Projections {
			proj[i] = dataframe.Projection{Path: p.Path, Alias: p.Alias}
		}
		g, err := dataframe.Project(cur, proj)
		if err != nil {
			if owned {
				cur.Release()
			}
			return nil, err
		}
		replace(g)
	}
	if !owned {
		return share(cur)
	}
	return cur, nil
}
