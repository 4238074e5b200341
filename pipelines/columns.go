package pipelines

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/suggest"
)

// DeclaredColumns gives the columns a catalog table declares (none: the
// table declares no columns, so its columns are not known before a read).
type DeclaredColumns func(ctx context.Context, table string) ([]connectors.Field, error)

// CheckColumns checks, without reading anything, that every column a step
// uses exists in its input — `sluice run --dry-run` (docs/pipelines.md#dry-run).
// Inputs are known from the columns the catalog tables declare, carried
// through the steps: select paths, explode paths, rename sources, and the
// columns of filter, aggregate, sort, join, with_columns and sql
// expressions. Each error names the step, the column and the closest known
// name. Steps after a table that declares no columns (or an inline dataset,
// or a fan-out read) are not checked; notes say which.
func CheckColumns(ctx context.Context, p *Pipeline, declared DeclaredColumns) (notes []string, err error) {
	if p.order == nil {
		if err := Validate(p); err != nil {
			return nil, err
		}
	}
	c := &columnCheck{ctx: ctx, p: p, declared: declared, schemas: map[string]*dataframe.Schema{}, tables: map[string]*dataframe.Schema{}}
	var errs []error
	for _, s := range p.order {
		out, err := c.step(s)
		if err != nil {
			errs = append(errs, &Error{File: p.File, Pos: s.Pos, Msg: fmt.Sprintf("%s: %v", s.label(), err)})
			continue
		}
		c.schemas[s.ID] = out
	}
	if len(c.checked) > 0 {
		c.notes = append([]string{"checked against the declared columns of " + strings.Join(c.checked, ", ")}, c.notes...)
	}
	return c.notes, errors.Join(errs...)
}

type columnCheck struct {
	ctx      context.Context
	p        *Pipeline
	declared DeclaredColumns
	schemas  map[string]*dataframe.Schema // step id → output schema; nil: unknown
	tables   map[string]*dataframe.Schema // catalog tables seen
	checked  []string                     // tables with declared columns
	notes    []string
}

// table is the declared schema of a catalog table, nil when it declares no
// columns (noted once, for step s).
func (c *columnCheck) table(s *Step, name string) (*dataframe.Schema, error) {
	key := strings.ToLower(name)
	if sc, seen := c.tables[key]; seen {
		return sc, nil
	}
	fields, err := c.declared(c.ctx, name)
	if err != nil {
		return nil, err
	}
	var sc *dataframe.Schema
	if len(fields) == 0 {
		c.notes = append(c.notes, fmt.Sprintf("%s reads %s, which declares no columns: the steps that use its columns are not checked", s.label(), name))
	} else {
		var err error
		if sc, err = declaredSchema(fields); err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		c.checked = append(c.checked, name)
	}
	c.tables[key] = sc
	return sc, nil
}

// declaredSchema is the schema of declared columns.
func declaredSchema(fields []connectors.Field) (*dataframe.Schema, error) {
	fs := make([]dataframe.Field, len(fields))
	for i, f := range fields {
		dt, err := sparktype.ParseType(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		fs[i] = dataframe.Field{Name: f.Name, Type: dt, Nullable: true}
	}
	return dataframe.NewSchema(fs), nil
}

// step is s's output schema (nil: unknown) or the mistake in its columns.
func (c *columnCheck) step(s *Step) (*dataframe.Schema, error) {
	switch s.Kind {
	case KindRead:
		switch {
		case len(s.inputs) > 0:
			c.notes = append(c.notes, fmt.Sprintf("%s is a fan-out read: the steps after it are not checked", s.label()))
			return nil, nil
		case s.Read.Table == "":
			c.notes = append(c.notes, fmt.Sprintf("%s reads an inline %s dataset: the steps after it are not checked", s.label(), s.Read.Type))
			return nil, nil
		}
		return c.table(s, s.Read.Table)
	case KindWrite:
		return c.schemas[s.inputs[0]], nil
	case KindSQL, KindFilter, KindAggregate, KindSort, KindJoin, KindDistinct, KindWithColumns:
		return c.query(s)
	}
	in := c.schemas[s.inputs[0]]
	if in == nil {
		return nil, nil
	}
	names := make([]string, in.NumFields())
	for i, f := range in.Fields() {
		names[i] = f.Name
	}
	known := func(path string) error {
		first, _, _ := strings.Cut(path, ".")
		if contains(names, path) || contains(names, first) {
			return nil
		}
		return fmt.Errorf("unknown column %q%s", path, suggest.Phrase(first, names))
	}
	switch s.Kind {
	case KindSelect:
		for _, col := range s.Select.Columns {
			if err := known(col.Path); err != nil {
				return nil, err
			}
		}
	case KindExplode:
		if err := known(s.Explode.Path); err != nil {
			return nil, err
		}
	case KindRename:
		for _, pr := range s.Rename.Pairs {
			if !contains(names, pr.From) {
				return nil, fmt.Errorf("rename: unknown column %q%s", pr.From, suggest.Phrase(pr.From, names))
			}
		}
	}
	// The step itself on an empty frame: nested paths, types.
	empty := dataframe.Empty(in).Stream()
	st, err := rowStep(s, empty, dataframe.DefaultAllocator)
	if err != nil {
		empty.Release()
		return nil, &relabeled{msg: strings.TrimPrefix(err.Error(), "dataframe: "), err: err}
	}
	defer st.Release()
	return st.Schema(), nil
}

// query plans a query step over empty frames of its inputs' schemas, which
// finds every unknown column (with the planner's did-you-mean).
func (c *columnCheck) query(s *Step) (*dataframe.Schema, error) {
	tables := query.Tables{}
	for _, id := range s.inputs {
		sc := c.schemas[id]
		if sc == nil {
			return nil, nil
		}
		tables[strings.ToLower(id)] = query.FrameTable(dataframe.Empty(sc))
	}
	q, prefix := s.where, filterPrefix
	switch s.Kind {
	case KindSQL:
		q, prefix = s.query.ast, ""
		for _, t := range s.query.Tables {
			if !strings.Contains(t, ".") {
				continue
			}
			sc, err := c.table(s, t)
			if err != nil || sc == nil {
				return nil, err
			}
			tables[strings.ToLower(t)] = query.FrameTable(dataframe.Empty(sc))
		}
	case KindFilter:
	default:
		q, prefix = s.Transform.query, ""
		if s.Kind == KindWithColumns {
			var err error
			if q, err = s.Transform.withColumns(c.schemas[s.inputs[0]]); err != nil {
				return nil, err
			}
		}
	}
	if s.Kind != KindSQL {
		tables["_"] = tables[strings.ToLower(s.inputs[0])]
	}
	plan, err := query.Compile(c.ctx, q, tables, query.Options{})
	if err != nil {
		return nil, queryErr(err, prefix)
	}
	return plan.Schema(), nil
}

// relabeled is an error with another text that still wraps it (a
// dataframe error without its package prefix).
type relabeled struct {
	msg string
	err error
}

func (e *relabeled) Error() string { return e.msg }
func (e *relabeled) Unwrap() error { return e.err }
