package pipelines

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/internal/suggest"
)

// queryInputs resolves the table names of a step's query for the query
// engine (docs/pipelines.md#streaming): earlier steps by id, catalog tables
// (ns.table) through the session as SQL does (catalog.SessionTables). An
// input the planned query reads once is handed to the engine as the stream
// it is; one it reads more than once (a self-join, a CTE used twice) is
// collected first, and each read gets the collected frame's batches.
type queryInputs struct {
	r       *runner
	step    *Step
	inputs  map[string]*queryInput // step inputs by lower-case id (and `_`)
	order   []*queryInput
	catalog query.ColumnsResolver // nil without a session
	release func()
	// whole is set once the planner resolves a name with every column: it
	// planned again after a pruned plan failed, so the counts of that
	// second planning are the ones that hold.
	whole bool
}

type queryInput struct {
	id      string
	schema  *dataframe.Schema
	planned [2]int           // times the planner resolved it: pruned, whole
	frame   *dataframe.Frame // collected (read more than once)
	claimed bool             // taken from the runner
	from    *stepStream      // the step stream handed over, for timing
}

func (r *runner) newQueryInputs(s *Step) *queryInputs {
	q := &queryInputs{r: r, step: s, inputs: map[string]*queryInput{}, release: func() {}}
	for _, id := range s.inputs {
		in := &queryInput{id: id, schema: r.schemaOf(id)}
		q.inputs[strings.ToLower(id)] = in
		q.order = append(q.order, in)
	}
	if s.Kind != KindSQL {
		// The transforming steps' queries name their input `_`.
		q.inputs["_"] = q.order[0]
	}
	if r.opts.Session != nil {
		q.catalog, q.release = catalog.SessionTables(r.opts.Session)
	}
	return q
}

// Table implements query.Resolver.
func (q *queryInputs) Table(ctx context.Context, name []string) (query.Table, error) {
	q.whole = true
	return q.table(ctx, name, nil)
}

// TableColumns implements query.ColumnsResolver: catalog tables are read
// with the columns need names only.
func (q *queryInputs) TableColumns(ctx context.Context, name []string, need []string) (query.Table, error) {
	return q.table(ctx, name, need)
}

func (q *queryInputs) table(ctx context.Context, name, need []string) (query.Table, error) {
	if in, ok := q.inputs[strings.ToLower(strings.Join(name, "."))]; ok {
		if need == nil {
			in.planned[1]++
		} else {
			in.planned[0]++
		}
		return queryTable{q: q, in: in}, nil
	}
	if len(name) == 1 {
		names := make([]string, 0, len(q.order))
		for _, in := range q.order {
			names = append(names, in.id)
		}
		sort.Strings(names)
		return nil, &query.Error{Msg: fmt.Sprintf("unknown table %s%s", name[0], suggest.Phrase(name[0], names))}
	}
	if q.catalog == nil {
		return nil, fmt.Errorf("FROM %s: %w", strings.Join(name, "."), errNoSession)
	}
	if need == nil {
		return q.catalog.Table(ctx, name)
	}
	return q.catalog.TableColumns(ctx, name, need)
}

type queryTable struct {
	q  *queryInputs
	in *queryInput
}

func (t queryTable) Schema() *dataframe.Schema { return t.in.schema }

func (t queryTable) Open(ctx context.Context) (dataframe.Stream, error) {
	in := t.in
	if in.frame != nil {
		return in.frame.Stream(), nil
	}
	if in.claimed {
		return nil, fmt.Errorf("%s is read again after its stream was handed over", in.id)
	}
	in.claimed = true
	planned := in.planned[0]
	if t.q.whole {
		planned = in.planned[1]
	}
	if planned == 1 {
		st, from := t.q.r.takeStream(in.id)
		in.from = from
		return st, nil
	}
	f, err := t.q.r.takeFrame(in.id)
	if err != nil {
		return nil, err
	}
	in.frame = f
	return in.frame.Stream(), nil
}

// close drops what the query did not take and the collected frames; the
// step is done with its inputs.
func (q *queryInputs) close() {
	for _, in := range q.order {
		if !in.claimed {
			in.claimed = true
			q.r.drop(in.id)
		}
		if in.frame != nil {
			in.frame.Release()
			in.frame = nil
		}
	}
	q.release()
}

// timed lists the step streams handed to the engine.
func (q *queryInputs) timed() []*stepStream {
	var out []*stepStream
	for _, in := range q.order {
		if in.from != nil {
			out = append(out, in.from)
		}
	}
	return out
}

// runQuery plans query over the step's inputs and starts it: the result
// streams as far as the engine's operators do (sort, aggregation, distinct
// and a join's build side collect their input). prefix is what was put
// before the user's text (a filter's SELECT), for error positions.
func (r *runner) runQuery(ctx context.Context, s *Step, q query.Query, prefix string) (dataframe.Stream, *queryInputs, error) {
	in := r.newQueryInputs(s)
	plan, err := query.Compile(ctx, q, in, query.Options{Mem: r.mem, TimeZone: r.zone})
	if err == nil {
		var st dataframe.Stream
		if st, err = plan.Run(ctx); err == nil {
			return &queryStream{Stream: st, prefix: prefix}, in, nil
		}
	}
	in.close()
	return nil, nil, queryErr(err, prefix)
}

// queryErr maps the engine's positioned errors to the user's text.
func queryErr(err error, prefix string) error {
	var qe *query.Error
	if errors.As(err, &qe) && qe.Pos.Line > 0 {
		return sqlError(err, prefix)
	}
	return err
}

// queryStream is the engine's result with its errors at the user's
// positions.
type queryStream struct {
	dataframe.Stream
	prefix string
}

func (s *queryStream) Err() error {
	if err := s.Stream.Err(); err != nil {
		return queryErr(err, s.prefix)
	}
	return nil
}
