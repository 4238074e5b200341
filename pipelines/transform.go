package pipelines

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
)

// The transforming steps (docs/pipelines.md#transforming-steps) are queries
// on the SQL engine over the step's input, named `_` (and, for join, the
// other step by its id):
//
//	aggregate:    {group_by: [expr…], aggregates: {alias: expr}}  → SELECT keys, aggs FROM _ GROUP BY keys
//	sort:         [expr [asc|desc]…]                              → SELECT * FROM _ ORDER BY …
//	join:         {with: step, on: expr, how: inner|left|right|full}
//	distinct:     {}                                              → SELECT DISTINCT * FROM _
//	with_columns: {name: expr}                                    → every column, replaced or added

// TransformStep is an aggregate, sort, join, distinct or with_columns step.
type TransformStep struct {
	// GroupBy and Aggregates are the aggregate step's keys and named
	// aggregates (in file order).
	GroupBy    []string
	Aggregates []NamedExpr
	// Sort is the sort step's keys, as written (`x desc`).
	Sort []string
	// With, On and How are the join step's other input, condition and kind.
	With, On, How string
	// Columns are the with_columns step's new columns (in file order).
	Columns []NamedExpr
	Pos     Pos

	query query.Query // built by Validate (not for with_columns: at run time)
}

// NamedExpr is `name: expr`.
type NamedExpr struct {
	Name, Expr string
}

func (d *decoder) namedExprs(n *yaml.Node, what string) ([]NamedExpr, error) {
	fields, err := d.mapping(n, what, nil)
	if err != nil {
		return nil, err
	}
	out := make([]NamedExpr, 0, len(fields))
	for _, f := range fields {
		e, err := d.nonEmpty(f.value, what+": "+f.key)
		if err != nil {
			return nil, err
		}
		out = append(out, NamedExpr{Name: f.key, Expr: e})
	}
	if len(out) == 0 {
		return nil, d.errf(n, "%s: want at least one `name: expression`", what)
	}
	return out, nil
}

func (d *decoder) transformStep(kind Kind, n *yaml.Node, what string) (*TransformStep, error) {
	t := &TransformStep{Pos: posOf(resolve(n))}
	switch kind {
	case KindAggregate:
		fields, err := d.mapping(n, what, []string{"group_by", "aggregates"})
		if err != nil {
			return nil, err
		}
		for _, f := range fields {
			switch f.key {
			case "group_by":
				if t.GroupBy, err = d.strList(f.value, what+": group_by"); err != nil {
					return nil, err
				}
			case "aggregates":
				if t.Aggregates, err = d.namedExprs(f.value, what+": aggregates"); err != nil {
					return nil, err
				}
			}
		}
		if len(t.Aggregates) == 0 && len(t.GroupBy) == 0 {
			return nil, d.errf(n, "%s: want group_by, aggregates or both", what)
		}
	case KindSort:
		var err error
		if t.Sort, err = d.strList(n, what); err != nil {
			return nil, err
		}
		if len(t.Sort) == 0 {
			return nil, d.errf(n, "%s: want at least one sort key", what)
		}
	case KindJoin:
		fields, err := d.mapping(n, what, []string{"with", "on", "how"})
		if err != nil {
			return nil, err
		}
		t.How = "inner"
		for _, f := range fields {
			var v string
			if v, err = d.nonEmpty(f.value, what+": "+f.key); err != nil {
				return nil, err
			}
			switch f.key {
			case "with":
				t.With = v
			case "on":
				t.On = v
			case "how":
				t.How = strings.ToLower(v)
				switch t.How {
				case "inner", "left", "right", "full":
				default:
					return nil, d.errf(f.value, "%s: how %q: want inner, left, right or full", what, v)
				}
			}
		}
		if t.With == "" || t.On == "" {
			return nil, d.errf(n, "%s: want with: (a step id) and on: (a condition)", what)
		}
	case KindDistinct:
		if _, err := d.flattenStep(n, what); err != nil {
			return nil, fmt.Errorf("%w", err)
		}
	case KindWithColumns:
		var err error
		if t.Columns, err = d.namedExprs(n, what); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// parseStepExpr parses one expression of a step.
func parseStepExpr(e string) (query.Expr, error) {
	x, err := sqlparse.ParseExpr(e)
	if err != nil {
		return nil, sqlError(err, "")
	}
	return x, nil
}

// build makes the step's query over `_` (the input) and, for join, the
// other step's id; errors name the expression.
func (t *TransformStep) build(kind Kind, input string) error {
	in := &query.TableRef{Name: []string{"_"}, Alias: input}
	star := []query.SelectItem{{Expr: &query.Star{}}}
	switch kind {
	case KindAggregate:
		s := &query.Select{From: in}
		for _, g := range t.GroupBy {
			x, err := parseStepExpr(g)
			if err != nil {
				return fmt.Errorf("group_by %q: %w", g, err)
			}
			s.GroupBy = append(s.GroupBy, x)
			s.Items = append(s.Items, query.SelectItem{Expr: x})
		}
		for _, a := range t.Aggregates {
			x, err := parseStepExpr(a.Expr)
			if err != nil {
				return fmt.Errorf("aggregates: %s: %w", a.Name, err)
			}
			s.Items = append(s.Items, query.SelectItem{Expr: x, Alias: a.Name})
		}
		t.query = s
	case KindSort:
		s := &query.Select{From: in, Items: star}
		for _, k := range t.Sort {
			expr, desc := k, false
			low := strings.ToLower(strings.TrimSpace(k))
			switch {
			case strings.HasSuffix(low, " desc"):
				expr, desc = strings.TrimSpace(k)[:len(low)-5], true
			case strings.HasSuffix(low, " asc"):
				expr = strings.TrimSpace(k)[:len(low)-4]
			}
			x, err := parseStepExpr(expr)
			if err != nil {
				return fmt.Errorf("sort key %q: %w", k, err)
			}
			s.OrderBy = append(s.OrderBy, query.OrderItem{Expr: x, Desc: desc})
		}
		t.query = s
	case KindJoin:
		on, err := parseStepExpr(t.On)
		if err != nil {
			return fmt.Errorf("on: %w", err)
		}
		t.query = &query.Select{Items: star, From: &query.JoinRef{
			L: in, R: &query.TableRef{Name: []string{t.With}}, Kind: query.JoinKind(strings.ToUpper(t.How)), On: on,
		}}
	case KindDistinct:
		t.query = &query.Select{Distinct: true, Items: star, From: in}
	case KindWithColumns:
		for _, c := range t.Columns {
			if _, err := parseStepExpr(c.Expr); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
	}
	return nil
}

// withColumns is the with_columns step's query over an input of schema
// in: every column, replaced or added.
func (t *TransformStep) withColumns(in *dataframe.Schema) (query.Query, error) {
	sel := &query.Select{From: &query.TableRef{Name: []string{"_"}}}
	done := map[string]bool{}
	exprs := map[string]query.Expr{}
	for _, c := range t.Columns {
		x, err := parseStepExpr(c.Expr)
		if err != nil {
			return nil, err
		}
		exprs[strings.ToLower(c.Name)] = x
	}
	for _, f := range in.Fields() {
		name := f.Name
		if x, ok := exprs[strings.ToLower(name)]; ok {
			sel.Items = append(sel.Items, query.SelectItem{Expr: x, Alias: name})
			done[strings.ToLower(name)] = true
			continue
		}
		sel.Items = append(sel.Items, query.SelectItem{Expr: &query.Column{Path: []string{name}}, Alias: name})
	}
	for _, c := range t.Columns {
		if !done[strings.ToLower(c.Name)] {
			sel.Items = append(sel.Items, query.SelectItem{Expr: exprs[strings.ToLower(c.Name)], Alias: c.Name})
		}
	}
	return sel, nil
}
