package pipelines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/termline"
)

// Session is what a pipeline needs of a catalog session (catalog.Session
// implements it): settings, and dataset reads and writes through the
// connectors with the session's precedence rules.
type Session interface {
	Set(key, value string) error
	Read(ctx context.Context, name string, props map[string]any) (*dataframe.Frame, error)
	Write(ctx context.Context, name string, f *dataframe.Frame, props map[string]any) (connectors.WriteResult, error)
}

// Options configure a run.
type Options struct {
	// Session reads and writes datasets (read and write steps naming a
	// table or a type, sql over catalog tables). Defaults to nil: such steps
	// fail with an error saying a session is needed.
	Session Session
	// Settings are applied to the session after the pipeline's own
	// settings, so they win (the CLI's --set). Defaults to none.
	Settings map[string]string
	// Progress receives a line per step and the summary. Defaults to nil
	// (quiet).
	Progress io.Writer
	// Terminal draws a live spinner on Progress while a step runs. The CLI
	// sets it when stderr is a terminal. Defaults to false.
	Terminal bool
	// FullRefresh reads incremental tables as if they had no state; the
	// new states are stored after the last write. Defaults to false.
	FullRefresh bool
}

// StepResult is what one step did.
type StepResult struct {
	ID      string
	Kind    Kind
	Rows    int64 // rows of the step's output
	Bytes   int64 // bytes written for writes; else the output frame's in-memory size
	Elapsed time.Duration
	Target  string // where a write step wrote (file or dataset)
}

// Result reports a run.
type Result struct {
	Pipeline string
	Steps    []StepResult // in run order
	Elapsed  time.Duration
	// Output is the output of the pipeline's last step in file order. The
	// caller owns it and must Release it.
	Output *dataframe.Frame
}

// StepError is the error of a failing step; the run stops at it.
type StepError struct {
	Pipeline string
	Step     *Step
	Err      error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("pipeline %s: %s failed: %v", e.Pipeline, e.Step.label(), e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// errNoSession is returned by steps that need a catalog session.
var errNoSession = errors.New("this step needs a catalog session (run it with sluice run, or set Options.Session)")

// Run validates p if needed and runs its steps in dependency order. Files
// written by write steps appear only when the whole pipeline succeeds: they
// are written beside their target under a temporary name and renamed into
// place at the end, so a failing pipeline leaves no partial output file.
// Dataset writes (tables, inline types) happen when their step runs.
func Run(ctx context.Context, p *Pipeline, opts Options) (res *Result, err error) {
	if p.order == nil {
		if err := Validate(p); err != nil {
			return nil, err
		}
	}
	delivery := &catalog.Delivery{FullRefresh: opts.FullRefresh}
	ctx = catalog.WithDelivery(ctx, delivery)
	r := &runner{p: p, opts: opts, frames: map[string]*dataframe.Frame{}, uses: map[string]int{}}
	defer r.cleanup(&err)
	if err := r.applySettings(); err != nil {
		return nil, err
	}
	for _, s := range p.order {
		for _, in := range s.inputs {
			r.uses[in]++
		}
	}
	last := p.Steps[len(p.Steps)-1].ID
	r.uses[last]++ // the caller gets it
	start := time.Now()
	res = &Result{Pipeline: p.Name}
	for i, s := range p.order {
		if err := ctx.Err(); err != nil {
			return nil, &StepError{Pipeline: p.Name, Step: s, Err: err}
		}
		sr, err := r.step(ctx, s, i+1)
		if err != nil {
			r.progressf("  %d/%d %-10s %-8s FAILED after %s\n", i+1, len(p.order), s.ID, s.Kind, round(sr.Elapsed))
			return nil, &StepError{Pipeline: p.Name, Step: s, Err: err}
		}
		res.Steps = append(res.Steps, sr)
		r.progressf("  %d/%d %-10s %-8s %s rows, %s, %s%s\n", i+1, len(p.order), s.ID, s.Kind,
			termline.Count(sr.Rows), termline.Bytes(sr.Bytes), round(sr.Elapsed), targetSuffix(sr.Target))
	}
	if err := r.commit(); err != nil {
		return nil, fmt.Errorf("pipeline %s: %w", p.Name, err)
	}
	// Incremental reads move their state once every write is in place; a
	// pipeline without a write delivers nothing (docs/incremental.md).
	if hasWrite(p) {
		if err := delivery.Commit(ctx); err != nil {
			return nil, fmt.Errorf("pipeline %s: the writes are done, but the incremental state was not stored (the next run reads the rows again): %w", p.Name, err)
		}
	}
	res.Elapsed = time.Since(start)
	res.Output = r.frames[last]
	delete(r.frames, last)
	r.summary(res)
	return res, nil
}

type runner struct {
	p       *Pipeline
	opts    Options
	frames  map[string]*dataframe.Frame // live outputs
	uses    map[string]int              // remaining readers of each output
	staged  []staged                    // file outputs waiting for the end
	spinner *termline.Line
}

func (r *runner) progressf(format string, args ...any) {
	if r.opts.Progress != nil {
		if r.spinner != nil {
			r.spinner.Clear()
		}
		fmt.Fprintf(r.opts.Progress, format, args...)
	}
}

func (r *runner) applySettings() error {
	if len(r.p.Settings) == 0 && len(r.opts.Settings) == 0 {
		return nil
	}
	if r.opts.Session == nil {
		return fmt.Errorf("pipeline %s: settings: %w", r.p.Name, errNoSession)
	}
	for _, s := range r.p.Settings {
		if err := r.opts.Session.Set(s.Key, s.Value); err != nil {
			return &Error{File: r.p.File, Pos: s.Pos, Msg: fmt.Sprintf("settings.%s: %v", s.Key, err)}
		}
	}
	for _, k := range sortedKeys(r.opts.Settings) {
		if err := r.opts.Session.Set(k, r.opts.Settings[k]); err != nil {
			return fmt.Errorf("--set %s: %w", k, err)
		}
	}
	return nil
}

// cleanup releases every frame still held and, when the run failed,
// removes staged files.
func (r *runner) cleanup(errp *error) {
	for id, f := range r.frames {
		f.Release()
		delete(r.frames, id)
	}
	if *errp != nil {
		for _, s := range r.staged {
			_ = os.RemoveAll(s.tmp)
		}
	}
	r.staged = nil
}

// input returns the frame a step reads; done() drops the step's claim.
func (r *runner) input(s *Step) (*dataframe.Frame, func()) { return r.inputOf(s.inputs[0]) }

// inputOf is the output of step id and the function that says this step is
// done with it.
func (r *runner) inputOf(id string) (*dataframe.Frame, func()) {
	f := r.frames[id]
	return f, func() {
		r.uses[id]--
		if r.uses[id] <= 0 {
			f.Release()
			delete(r.frames, id)
		}
	}
}

func (r *runner) step(ctx context.Context, s *Step, n int) (StepResult, error) {
	sr := StepResult{ID: s.ID, Kind: s.Kind}
	start := time.Now()
	if r.opts.Terminal && r.opts.Progress != nil {
		r.spinner = startSpinner(r.opts.Progress, fmt.Sprintf("  %d/%d %s %s", n, len(r.p.order), s.ID, s.Kind))
	}
	out, err := r.exec(ctx, s, &sr)
	if r.spinner != nil {
		r.spinner.Stop()
		r.spinner = nil
	}
	sr.Elapsed = time.Since(start)
	if err != nil {
		return sr, err
	}
	sr.Rows = out.NumRows()
	if sr.Bytes == 0 {
		sr.Bytes = dataframe.ByteSize(out)
	}
	if r.uses[s.ID] > 0 {
		r.frames[s.ID] = out
	} else {
		out.Release()
	}
	return sr, nil
}

// exec runs one step and returns its output frame (owned by the runner).
func (r *runner) exec(ctx context.Context, s *Step, sr *StepResult) (out *dataframe.Frame, err error) {
	// Library panics (Arrow, Parquet) become errors of this step.
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("internal error: %v", v)
		}
	}()
	switch s.Kind {
	case KindRead:
		return r.read(ctx, s)
	case KindSQL:
		return r.sql(ctx, s)
	}
	in, done := r.input(s)
	defer done()
	switch s.Kind {
	case KindSelect:
		return project(in, s.Select.Columns)
	case KindFilter:
		return runOver(ctx, r.opts.Session, s.where, map[string]*dataframe.Frame{"_": in}, filterPrefix)
	case KindExplode:
		return dataframe.Explode(in, s.Explode.Path)
	case KindFlatten:
		return dataframe.Flatten(in)
	case KindRename:
		return rename(in, s.Rename.Pairs)
	case KindLimit:
		return dataframe.Limit(in, s.Limit.N), nil
	case KindAggregate, KindSort, KindJoin, KindDistinct, KindWithColumns:
		frames := map[string]*dataframe.Frame{}
		for _, id := range s.inputs[1:] {
			f, done := r.inputOf(id)
			defer done()
			frames[id] = f
		}
		return s.Transform.run(ctx, r.opts.Session, s.Kind, in, frames)
	case KindWrite:
		if err := r.write(ctx, s, in, sr); err != nil {
			return nil, err
		}
		return share(in)
	}
	return nil, fmt.Errorf("unknown step kind %q", s.Kind)
}

func (r *runner) read(ctx context.Context, s *Step) (*dataframe.Frame, error) {
	if r.opts.Session == nil {
		return nil, errNoSession
	}
	rs := s.Read
	name, props := rs.Table, runtimeProps(rs.Properties)
	if rs.Table == "" {
		name, props = s.ID, userProps(s.ID, rs.Type, rs.Properties)
	}
	if len(s.inputs) > 0 {
		// A fan-out from an earlier step: its output is the parent.
		in, done := r.input(s)
		defer done()
		if props == nil {
			props = map[string]any{}
		}
		props[restapi.PropFanoutFrom] = in
	}
	return r.opts.Session.Read(ctx, name, props)
}

func runtimeProps(p map[string]string) map[string]any {
	if len(p) == 0 {
		return nil
	}
	m := make(map[string]any, len(p))
	for k, v := range p {
		m[k] = v
	}
	return m
}

// userProps passes an inline dataset the Gimel way: USER provider mode with
// the dataset's DataSetProperties under `<name>.dataSetProperties`.
func userProps(name, typ string, p map[string]string) map[string]any {
	props := connectors.Props{}
	for k, v := range p {
		props[k] = v
	}
	props[connectors.TypeProperty] = typ
	// The provider is left to the session: USER because the entry is there,
	// unless a setting says otherwise.
	return map[string]any{name + ".dataSetProperties": connectors.DataSetProperties{Type: typ, Props: props}}
}

func (r *runner) sql(ctx context.Context, s *Step) (*dataframe.Frame, error) {
	frames := map[string]*dataframe.Frame{}
	for _, id := range s.inputs {
		f, done := r.inputOf(id)
		defer done()
		frames[id] = f
	}
	for _, t := range s.query.Tables {
		if strings.Contains(t, ".") && r.opts.Session == nil {
			return nil, fmt.Errorf("FROM %s: %w", t, errNoSession)
		}
	}
	return runOver(ctx, r.opts.Session, s.query.ast, frames, "")
}

func project(f *dataframe.Frame, cols []Projection) (*dataframe.Frame, error) {
	ps := make([]dataframe.Projection, len(cols))
	for i, c := range cols {
		ps[i] = dataframe.Projection{Path: c.Path, Alias: c.Alias}
	}
	return dataframe.Project(f, ps)
}

// share returns a new frame holding its own references to f's records, so
// that releasing one does not empty the other.
func share(f *dataframe.Frame) (*dataframe.Frame, error) {
	f.Retain()
	out, err := dataframe.New(f.Schema(), f.Records()...)
	if err != nil {
		for _, rec := range f.Records() {
			rec.Release() // only the references taken above
		}
		return nil, err
	}
	out.SetAllocator(f.Allocator())
	return out, nil
}

// rename renames top-level columns; the data is shared, not copied.
func rename(f *dataframe.Frame, pairs []RenamePair) (*dataframe.Frame, error) {
	names := f.ColumnNames()
	to := map[string]string{}
	for _, p := range pairs {
		if !contains(names, p.From) {
			return nil, fmt.Errorf("rename: no column %q (columns: %s)", p.From, strings.Join(names, ", "))
		}
		to[p.From] = p.To
	}
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		alias := n
		if t, ok := to[n]; ok {
			alias = t
		}
		if seen[alias] {
			return nil, fmt.Errorf("rename: two columns would be called %q", alias)
		}
		seen[alias] = true
		out[i] = alias
	}
	return dataframe.WithColumnNames(f, out)
}

// write runs a write step: a dataset now, a file at commit time.
func (r *runner) write(ctx context.Context, s *Step, in *dataframe.Frame, sr *StepResult) error {
	w := s.Write
	switch {
	case w.Table != "" || w.Type != "":
		if r.opts.Session == nil {
			return errNoSession
		}
		name, props := w.Table, runtimeProps(w.Properties)
		if w.Type != "" {
			name, props = s.ID, userProps(s.ID, w.Type, w.Properties)
		}
		// A failed write's error says how many rows went out before it
		// (the session and the connector report it).
		if _, err := r.opts.Session.Write(ctx, name, in, props); err != nil {
			return err
		}
		sr.Target = name
		sr.Bytes = dataframe.ByteSize(in)
		return nil
	}
	st, err := stageFile(ctx, w, in)
	if err != nil {
		return err
	}
	r.staged = append(r.staged, st)
	sr.Target = w.File
	sr.Bytes = st.bytes
	return nil
}

func hasWrite(p *Pipeline) bool {
	for _, s := range p.Steps {
		if s.Kind == KindWrite {
			return true
		}
	}
	return false
}

func targetSuffix(t string) string {
	if t == "" {
		return ""
	}
	return " -> " + t
}

func (r *runner) summary(res *Result) {
	if r.opts.Progress == nil {
		return
	}
	var total time.Duration
	for _, s := range res.Steps {
		total += s.Elapsed
	}
	rows := int64(0)
	if res.Output != nil {
		rows = res.Output.NumRows()
	}
	fmt.Fprintf(r.opts.Progress, "pipeline %s: %d steps, %s rows out, %s\n", res.Pipeline, len(res.Steps), termline.Count(rows), round(res.Elapsed))
	for _, s := range res.Steps {
		share := 0.0
		if total > 0 {
			share = 100 * float64(s.Elapsed) / float64(total)
		}
		fmt.Fprintf(r.opts.Progress, "  %-12s %-8s %9s %5.1f%%\n", s.ID, s.Kind, round(s.Elapsed), share)
	}
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
