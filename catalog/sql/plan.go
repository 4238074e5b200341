package sql

import (
	"errors"
	"strings"
)

// Projection is one output column of a SELECT: a dotted path and the name
// it takes.
type Projection struct {
	Path  string
	Alias string
}

// SelectPlan is a SELECT ready to run over a frame: filter, then project,
// then limit.
type SelectPlan struct {
	Star        bool
	Projections []Projection
	// Where is nil when the statement has no WHERE clause.
	Where Predicate
	// Limit is -1 for no limit.
	Limit int64
}

// Plan compiles the statement. Mistakes visible without data (a literal
// compared with a literal of another type, `WHERE 1`) are reported with the
// statement number and position like syntax errors.
func (s *Select) Plan() (*SelectPlan, error) {
	pl := &SelectPlan{Star: s.Star, Limit: s.Limit}
	qualify := s.qualifier()
	for _, it := range s.Items {
		pl.Projections = append(pl.Projections, Projection{Path: strings.Join(qualify(it.Path), "."), Alias: it.Name()})
	}
	if s.Where != nil {
		pred, err := compiler{qualify: qualify}.predicate(s.Where)
		if err != nil {
			var ee *exprError
			if errors.As(err, &ee) {
				return nil, &SyntaxError{Statement: s.N, Pos: ee.pos, Msg: ee.msg}
			}
			return nil, &SyntaxError{Statement: s.N, Pos: s.Where.Position(), Msg: err.Error()}
		}
		pl.Where = pred
	}
	return pl, nil
}

// qualifier drops a leading table qualifier from column paths, as Spark
// resolves `s.id` in `SELECT s.id FROM yt.subs s` (or `subs.id`): the
// alias, the table name and ns.table name the frame itself.
func (s *Select) qualifier() func([]string) []string {
	names := []string{s.From.Name}
	if s.Alias != "" {
		names = []string{s.Alias}
	}
	return func(path []string) []string {
		if s.From.Namespace != "" && s.Alias == "" && len(path) > 2 &&
			strings.EqualFold(path[0], s.From.Namespace) && strings.EqualFold(path[1], s.From.Name) {
			return path[2:]
		}
		if len(path) > 1 {
			for _, n := range names {
				if strings.EqualFold(path[0], n) {
					return path[1:]
				}
			}
		}
		return path
	}
}

// PlanBatch parses a batch and compiles every SELECT in it (also those of
// INSERT … SELECT), so that a batch with any mistake runs nothing.
func PlanBatch(text string) ([]Statement, map[*Select]*SelectPlan, error) {
	stmts, err := Parse(text)
	if err != nil {
		return nil, nil, err
	}
	plans := map[*Select]*SelectPlan{}
	for _, st := range stmts {
		var sel *Select
		switch x := st.(type) {
		case *Select:
			sel = x
		case *Insert:
			sel = x.Query
		}
		if sel == nil {
			continue
		}
		pl, err := sel.Plan()
		if err != nil {
			return nil, nil, err
		}
		plans[sel] = pl
	}
	return stmts, plans, nil
}
