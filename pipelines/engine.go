package pipelines

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/internal/suggest"
)

// queryInputs resolves the table names of a step's query for the query
// engine (docs/pipelines.md#streaming): earlier steps by id, catalog tables
// (ns.table) through the session. An input the planned query reads once is
// handed to the engine as the stream it is; one it reads more than once (a
// self-join, a CTE used twice) is collected first, and each read gets the
// collected frame's batches.
type queryInputs struct {
	r      *runner
	step   *Step
	inputs map[string]*queryInput // by lower-case name
	order  []*queryInput
}

type queryInput struct {
	name    string
	step    string // the step id, or "" for a catalog table
	schema  *dataframe.Schema
	planned int              // times the planner resolved it
	stream  dataframe.Stream // a catalog table's stream, until handed over
	frame   *dataframe.Frame // collected (read more than once)
	claimed bool             // a step input: taken from the runner
	from    *stepStream      // the step stream handed over, for timing
}

func (r *runner) newQueryInputs(s *Step) *queryInputs {
	q := &queryInputs{r: r, step: s, inputs: map[string]*queryInput{}}
	for _, id := range s.inputs {
		in := &queryInput{name: id, step: id, schema: r.schemaOf(id)}
		q.inputs[strings.ToLower(id)] = in
		q.order = append(q.order, in)
	}
	if s.Kind != KindSQL {
		// The transforming steps' queries name their input `_`.
		q.inputs["_"] = q.order[0]
	}
	return q
}

// Table implements query.Resolver.
func (q *queryInputs) Table(ctx context.Context, name []string) (query.Table, error) {
	key := strings.ToLower(strings.Join(name, "."))
	if in, ok := q.inputs[key]; ok {
		in.planned++
		return queryTable{q: q, in: in}, nil
	}
	if len(name) == 1 {
		names := make([]string, 0, len(q.inputs))
		for _, in := range q.order {
			names = append(names, in.name)
		}
		sort.Strings(names)
		return nil, &query.Error{Msg: fmt.Sprintf("unknown table %s%s", name[0], suggest.Phrase(name[0], names))}
	}
	if q.r.opts.Session == nil {
		return nil, fmt.Errorf("FROM %s: %w", strings.Join(name, "."), errNoSession)
	}
	st, err := q.r.readStream(ctx, strings.Join(name, "."), nil)
	if err != nil {
		return nil, err
	}
	in := &queryInput{name: strings.Join(name, "."), schema: st.Schema(), stream: st, planned: 1}
	q.inputs[key] = in
	q.order = append(q.order, in)
	return queryTable{q: q, in: in}, nil
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
	switch {
	case in.step != "" && !in.claimed:
		in.claimed = true
		if in.planned == 1 {
			st, from := t.q.r.takeStream(in.step)
			in.from = from
			return st, nil
		}
		f, err := t.q.r.takeFrame(in.step)
		if err != nil {
			return nil, err
		}
		in.frame = f
	case in.stream != nil:
		st := in.stream
		in.stream = nil
		if in.planned == 1 {
			return st, nil
		}
		f, err := t.q.r.collect(st)
		st.Release()
		if err != nil {
			return nil, err
		}
		in.frame = f
	default:
		return nil, fmt.Errorf("%s is read again after its stream was handed over", in.name)
	}
	return in.frame.Stream(), nil
}

// close drops what the query did not take and the collected frames; the
// step is done with its inputs.
func (q *queryInputs) close() {
	for _, in := range q.order {
		if in.step != "" && !in.claimed {
			in.claimed = true
			q.r.drop(in.step)
		}
		if in.stream != nil {
			in.stream.Release()
			in.stream = nil
		}
		if in.frame != nil {
			in.frame.Release()
			in.frame = nil
		}
	}
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
	plan, err := query.Compile(ctx, q, in, query.Options{Mem: r.mem})
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
