package pipelines

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/internal/suggest"
)

// Validate checks a pipeline before anything runs — unique ids, `from:`
// naming an existing step, SQL and filter syntax, an input for every step
// that needs one, no cycles — and works out the order the steps run in.
// Parse calls it; call it again after changing a Pipeline by hand.
func Validate(p *Pipeline) error {
	errf := func(pos Pos, format string, args ...any) error {
		w := fmt.Errorf(format, args...) // a %w argument stays wrapped
		return &Error{File: p.File, Pos: pos, Msg: w.Error(), Err: errors.Unwrap(w)}
	}
	if p.Name == "" {
		return errf(Pos{}, "pipeline: missing name")
	}
	if len(p.Steps) == 0 {
		return errf(Pos{}, "pipeline: no steps")
	}
	ids := map[string]*Step{}
	lower := map[string]*Step{}
	for i, s := range p.Steps {
		s.Index = i
		if s.ID == "" {
			s.ID = fmt.Sprintf("step_%d", i+1)
		}
		if prev, dup := ids[s.ID]; dup {
			return errf(s.Pos, "step %d: id %q is already the id of step %d", i+1, s.ID, prev.Index+1)
		}
		ids[s.ID] = s
		lower[strings.ToLower(s.ID)] = s
	}
	for i, s := range p.Steps {
		what := s.label()
		s.inputs = nil
		s.query, s.where = nil, nil
		switch s.Kind {
		case KindRead:
			if s.Read == nil {
				return errf(s.Pos, "%s: missing its settings", what)
			}
			if s.From != "" {
				return errf(s.FromPos, "%s: a read step takes no input (remove from: %s)", what, s.From)
			}
			// A fan-out whose parent is a step id reads that step's output
			// (docs/incremental.md#fan-out).
			if dep, ok := ids[strings.TrimSpace(s.Read.Properties[restapi.PropFanoutFrom])]; ok && dep != s {
				s.inputs = []string{dep.ID}
			}
		case KindSQL:
			if s.SQL == nil {
				return errf(s.Pos, "%s: missing its query", what)
			}
			if s.From != "" {
				return errf(s.FromPos, "%s: name the input in the query's FROM, not with from:", what)
			}
			q, err := parseQuery(s.SQL.Query)
			if err != nil {
				return errf(s.SQL.Pos, "%s: %s", what, describeQueryError(err, "query"))
			}
			s.query = q
			for _, t := range q.Tables {
				if strings.Contains(t, ".") {
					continue
				}
				dep, ok := ids[t]
				if !ok {
					dep, ok = lower[strings.ToLower(t)]
				}
				if !ok {
					return errf(s.SQL.Pos, "%s: FROM %s: no step has that id (catalog tables are written namespace.table)%s", what, t, suggest.Phrase(t, stepIDs(p.Steps)))
				}
				if !contains(s.inputs, dep.ID) {
					s.inputs = append(s.inputs, dep.ID)
				}
			}
		default:
			if err := s.checkKind(); err != nil {
				return errf(s.Pos, "%s: %w", what, err)
			}
			if s.Kind == KindFilter {
				w, err := parseFilter(s.Filter.Expr)
				if err != nil {
					return errf(s.Filter.Pos, "%s: %s", what, describeQueryError(err, "expression"))
				}
				s.where = w
			}
			switch {
			case s.From != "":
				dep, ok := ids[s.From]
				if !ok {
					return errf(s.FromPos, "%s: from: no step has the id %q%s", what, s.From, suggest.Phrase(s.From, stepIDs(p.Steps)))
				}
				s.inputs = []string{dep.ID}
			case i == 0:
				if s.Transform != nil {
					return errf(s.Pos, "%s: has no input (the first step must be a read or an sql step, or name one with from:)", what)
				}
				return errf(s.Pos, "%s: has no input (the first step must be a read or an sql step, or name one with from:)", what)
			default:
				s.inputs = []string{p.Steps[i-1].ID}
			}
			if t := s.Transform; t != nil {
				if s.Kind == KindJoin {
					dep, ok := ids[t.With]
					if !ok {
						return errf(t.Pos, "%s: with: no step has the id %q%s", what, t.With, suggest.Phrase(t.With, stepIDs(p.Steps)))
					}
					t.With = dep.ID
					if !contains(s.inputs, dep.ID) {
						s.inputs = append(s.inputs, dep.ID)
					}
				}
				if err := t.build(s.Kind, s.inputs[0]); err != nil {
					return errf(t.Pos, "%s: %s", what, describeQueryError(err, "expression"))
				}
			}
		}
	}
	outputs := map[string]*Step{}
	for _, s := range p.Steps {
		if s.Kind != KindWrite || s.Write == nil || s.Write.File == "" {
			continue
		}
		for _, k := range s.Write.PartitionBy {
			if strings.ContainsAny(k, "./=\\") {
				return errf(s.Pos, "%s: partition_by %q: want a top-level column name", s.label(), k)
			}
		}
		key := filepath.Clean(s.Write.File)
		if prev, dup := outputs[key]; dup {
			return errf(s.Pos, "%s: %s is also written by %s", s.label(), s.Write.File, prev.label())
		}
		outputs[key] = s
	}
	order, err := topoOrder(p.Steps, ids)
	if err != nil {
		return &Error{File: p.File, Msg: err.Error()}
	}
	p.order = order
	return nil
}

func (s *Step) label() string {
	if s.ExplicitID {
		return fmt.Sprintf("step %d %q (%s)", s.Index+1, s.ID, s.Kind)
	}
	return fmt.Sprintf("step %d (%s)", s.Index+1, s.Kind)
}

func (s *Step) checkKind() error {
	var missing bool
	switch s.Kind {
	case KindSelect:
		missing = s.Select == nil
	case KindFilter:
		missing = s.Filter == nil
	case KindExplode:
		missing = s.Explode == nil
	case KindFlatten:
		missing = s.Flatten == nil
	case KindRename:
		missing = s.Rename == nil
	case KindLimit:
		missing = s.Limit == nil
	case KindWrite:
		missing = s.Write == nil
	case KindAggregate, KindSort, KindJoin, KindDistinct, KindWithColumns:
		missing = s.Transform == nil
	default:
		return fmt.Errorf("unknown step kind %q (want one of: %s)", s.Kind, kindList())
	}
	if missing {
		return errors.New("missing its settings")
	}
	return nil
}

func describeQueryError(err error, of string) string {
	var qe *queryError
	if errors.As(err, &qe) && qe.Line > 0 {
		return fmt.Sprintf("syntax error at line %d, column %d of the %s: %s", qe.Line, qe.Column, of, qe.Msg)
	}
	return err.Error()
}

// stepIDs lists the steps' ids, for did-you-mean.
func stepIDs(steps []*Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}

// topoOrder orders the steps so that each runs after its inputs, keeping
// file order wherever the dependencies allow it.
func topoOrder(steps []*Step, ids map[string]*Step) ([]*Step, error) {
	const (
		unseen = iota
		visiting
		done
	)
	state := make(map[string]int, len(steps))
	var order []*Step
	var stack []*Step
	var visit func(s *Step) error
	visit = func(s *Step) error {
		switch state[s.ID] {
		case done:
			return nil
		case visiting:
			// Report the cycle in reading order: s reads from the next, and so on.
			var cyc []string
			for j := 0; j < len(stack); j++ {
				if stack[j] == s {
					for _, t := range stack[j:] {
						cyc = append(cyc, fmt.Sprintf("%q", t.ID))
					}
					break
				}
			}
			cyc = append(cyc, fmt.Sprintf("%q", s.ID))
			return fmt.Errorf("steps form a cycle: %s reads from %s", cyc[0], strings.Join(cyc[1:], ", which reads from "))
		}
		state[s.ID] = visiting
		stack = append(stack, s)
		for _, in := range s.inputs {
			if err := visit(ids[in]); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[s.ID] = done
		order = append(order, s)
		return nil
	}
	for _, s := range steps {
		if err := visit(s); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// Order returns the steps in the order they run (inputs first). It is nil
// until the pipeline has been validated.
func (p *Pipeline) Order() []*Step { return p.order }

// Inputs are the ids of the steps whose output this step reads.
func (s *Step) Inputs() []string { return s.inputs }

// Query is the parsed query of an sql step (nil for other kinds).
func (s *Step) Query() *Query { return s.query }
