package pipelines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/internal/termline"
)

// Session is what a pipeline needs of a catalog session (catalog.Session
// implements it): settings, and dataset reads and writes through the
// connectors with the session's precedence rules. A Session that is also a
// StreamSession reads and writes datasets as streams.
type Session interface {
	Set(key, value string) error
	Read(ctx context.Context, name string, props map[string]any) (*dataframe.Frame, error)
	Write(ctx context.Context, name string, f *dataframe.Frame, props map[string]any) (connectors.WriteResult, error)
}

// StreamSession reads and writes datasets as streams of record batches
// (catalog.Session implements it; see docs/pipelines.md#streaming). Without
// it a read step reads its dataset whole.
type StreamSession interface {
	ReadStream(ctx context.Context, name string, props map[string]any) (dataframe.Stream, error)
	WriteStream(ctx context.Context, name string, st dataframe.Stream, props map[string]any) (connectors.WriteResult, error)
}

// SessionForker is a Session that makes a child session for a run. Run
// applies a pipeline's settings (and Options.Settings) to a child, so the
// caller's session keeps its own settings; a *catalog.Session is forked
// with its Fork method. A pipeline with settings run on a Session that is
// neither fails before any step runs.
type SessionForker interface {
	ForkSession() Session
}

// forkSession is the child session a run with settings works on.
func forkSession(s Session) (Session, error) {
	switch x := s.(type) {
	case SessionForker:
		return x.ForkSession(), nil
	case *catalog.Session:
		return x.Fork(), nil
	}
	return nil, fmt.Errorf("the session (a %T) cannot be forked to hold the run's settings apart from the caller's: implement pipelines.SessionForker", s)
}

// catalog.Session reads and writes datasets as streams.
var (
	_ Session       = (*catalog.Session)(nil)
	_ StreamSession = (*catalog.Session)(nil)
)

// Options configure a run.
type Options struct {
	// Session reads and writes datasets (read and write steps naming a
	// table or a type, sql over catalog tables). Defaults to nil: such steps
	// fail with an error saying a session is needed.
	Session Session
	// Settings are applied after the pipeline's own settings, so they win
	// (the CLI's --set). Both go to a fork of Session (see
	// SessionForker): the caller's session is left unchanged. Defaults to
	// none.
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
	// DiscardOutput runs the pipeline without keeping the last step's
	// output for Result.Output (which is then nil): a last step that
	// streams — typically a write — then runs in memory that does not grow
	// with the input. `sluice run` sets it. Defaults to false: the output
	// is collected into Result.Output.
	DiscardOutput bool
	// Allocator holds the batches the steps make (transformations, the
	// query engine, collected outputs). Defaults to dataframe.DefaultAllocator.
	Allocator dataframe.Allocator
}

// StepResult is what one step did.
type StepResult struct {
	ID      string
	Kind    Kind
	Rows    int64 // rows of the step's output
	Bytes   int64 // bytes written for writes; else the output's in-memory size
	Elapsed time.Duration
	Target  string // where a write step wrote (file or dataset)
}

// Result reports a run.
type Result struct {
	Pipeline string
	Steps    []StepResult // in run order
	Elapsed  time.Duration
	// Output is the output of the pipeline's last step in file order. The
	// caller owns it and must Release it. Nil with Options.DiscardOutput.
	Output *dataframe.Frame
	// Rows is the number of rows of the last step's output.
	Rows int64
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

// Run validates p if needed and runs its steps in dependency order, each
// step's output streaming to the step that reads it
// (docs/pipelines.md#streaming). Files written by write steps appear only
// when the whole pipeline succeeds: they are written beside their target
// under a temporary name and renamed into place at the end, so a failing
// pipeline leaves no partial output file. Dataset writes (tables, inline
// types) happen when their step runs.
func Run(ctx context.Context, p *Pipeline, opts Options) (res *Result, err error) {
	if p.order == nil {
		if err := Validate(p); err != nil {
			return nil, err
		}
	}
	// One write may commit the states of the reads with its rows (a JDBC
	// table: docs/jdbc.md#exactly-once); with several, files after all.
	delivery := &catalog.Delivery{FullRefresh: opts.FullRefresh, OneWrite: writeCount(p) == 1}
	ctx = catalog.WithDelivery(ctx, delivery)
	r := &runner{p: p, opts: opts, mem: opts.Allocator, outs: map[string]*output{}, uses: map[string]int{}, results: map[int]StepResult{}}
	if r.mem == nil {
		r.mem = dataframe.DefaultAllocator
	}
	defer r.cleanup(&err)
	if err := r.applySettings(); err != nil {
		return nil, err
	}
	// The session time zone of the sql steps (docs/sql.md#time-zone).
	if g, ok := r.opts.Session.(interface{ Get(string) (string, bool) }); ok {
		if v, set := g.Get(query.TimeZoneSetting); set {
			if r.zone, err = query.ParseTimeZone(v); err != nil {
				return nil, fmt.Errorf("pipeline %s: %w", r.p.Name, err)
			}
		}
	}
	for _, s := range p.order {
		for _, in := range s.inputs {
			r.uses[in]++
		}
	}
	last := p.Steps[len(p.Steps)-1].ID
	r.last = last
	if !opts.DiscardOutput {
		r.keep = last
		r.uses[last]++ // the caller gets it
	}
	start := time.Now()
	res = &Result{Pipeline: p.Name}
	for i, s := range p.order {
		if err := ctx.Err(); err != nil {
			return nil, &StepError{Pipeline: p.Name, Step: s, Err: err}
		}
		if err := r.step(ctx, s, i+1); err != nil {
			return nil, r.stepError(s, i+1, err)
		}
	}
	if err := r.commit(); err != nil {
		return nil, fmt.Errorf("pipeline %s: %w", p.Name, err)
	}
	// Incremental reads move their state once every write is in place; a
	// pipeline without a write delivers nothing (docs/incremental.md).
	if writeCount(p) > 0 {
		if err := delivery.Commit(ctx); err != nil {
			return nil, fmt.Errorf("pipeline %s: the writes are done, but the incremental state was not stored (the next run reads the rows again): %w", p.Name, err)
		}
	}
	res.Elapsed = time.Since(start)
	for i := range p.order {
		res.Steps = append(res.Steps, r.results[i+1])
		if p.order[i].ID == last {
			res.Rows = r.results[i+1].Rows
		}
	}
	if o := r.outs[r.keep]; r.keep != "" && o != nil {
		res.Output = o.frame
		delete(r.outs, r.keep)
	}
	r.summary(res)
	return res, nil
}

// output is a step's output waiting for its readers: a stream for its one
// reader, or a collected frame for several.
type output struct {
	stream *stepStream
	frame  *dataframe.Frame
}

type runner struct {
	p       *Pipeline
	opts    Options
	mem     dataframe.Allocator
	zone    *time.Location     // the session time zone (nil: UTC)
	outs    map[string]*output // live outputs
	uses    map[string]int     // remaining readers of each output
	keep    string             // the step whose output is Result.Output ("": none)
	last    string             // the last step in file order
	staged  []staged           // file outputs waiting for the end
	spinner *termline.Line
	streams []*stepStream // every step stream made, for cleanup

	failMu sync.Mutex
	failed *stepStream // the first step stream that failed

	progressMu sync.Mutex
	results    map[int]StepResult // by position in run order
}

func (r *runner) progressf(format string, args ...any) {
	if r.opts.Progress != nil {
		if r.spinner != nil {
			r.spinner.Clear()
		}
		fmt.Fprintf(r.opts.Progress, format, args...)
	}
}

// done records that the step at position n (in run order) finished.
func (r *runner) done(n int, sr StepResult) {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	if _, dup := r.results[n]; dup {
		return
	}
	r.results[n] = sr
	r.progressf("  %d/%d %-10s %-8s %s rows, %s, %s%s\n", n, len(r.p.order), sr.ID, sr.Kind,
		termline.Count(sr.Rows), termline.Bytes(sr.Bytes), round(sr.Elapsed), targetSuffix(sr.Target))
}

// stepError is the run's error when step s (at position n) failed with
// err: the step where the failure started — an earlier step whose stream
// s was pulling, or s itself.
func (r *runner) stepError(s *Step, n int, err error) error {
	r.failMu.Lock()
	origin := r.failed
	r.failMu.Unlock()
	elapsed := time.Duration(0)
	if origin != nil {
		s, n, err = origin.step, origin.n, origin.err
		elapsed = origin.result().Elapsed
	}
	r.progressf("  %d/%d %-10s %-8s FAILED after %s\n", n, len(r.p.order), s.ID, s.Kind, round(elapsed))
	return &StepError{Pipeline: r.p.Name, Step: s, Err: err}
}

func (r *runner) applySettings() error {
	if len(r.p.Settings) == 0 && len(r.opts.Settings) == 0 {
		return nil
	}
	if r.opts.Session == nil {
		return fmt.Errorf("pipeline %s: settings: %w", r.p.Name, errNoSession)
	}
	sess, err := forkSession(r.opts.Session)
	if err != nil {
		return fmt.Errorf("pipeline %s: settings: %w", r.p.Name, err)
	}
	r.opts.Session = sess
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

// cleanup releases every output still held and, when the run failed,
// removes staged files.
func (r *runner) cleanup(errp *error) {
	for id, o := range r.outs {
		o.release()
		delete(r.outs, id)
	}
	if *errp != nil {
		for _, s := range r.staged {
			s.Abort()
		}
	}
	r.staged = nil
}

func (o *output) release() {
	if o.stream != nil {
		o.stream.Release()
		o.stream = nil
	}
	if o.frame != nil {
		o.frame.Release()
		o.frame = nil
	}
}

// schemaOf is the schema of step id's output.
func (r *runner) schemaOf(id string) *dataframe.Schema {
	o := r.outs[id]
	if o.stream != nil {
		return o.stream.Schema()
	}
	return o.frame.Schema()
}

// takeStream hands step id's output to one of its readers: the stream
// itself (from says which step stream it is, for timing), or a stream over
// the collected frame. The reader releases it.
func (r *runner) takeStream(id string) (st dataframe.Stream, from *stepStream) {
	o := r.outs[id]
	if o.stream != nil {
		st, from = o.stream, o.stream
		o.stream = nil
	} else {
		st = o.frame.Stream()
	}
	r.drop(id)
	return st, from
}

// takeFrame gives one of step id's readers its output as a frame, collected
// if it was a stream. The reader releases it.
func (r *runner) takeFrame(id string) (*dataframe.Frame, error) {
	o := r.outs[id]
	if o.stream != nil {
		st := o.stream
		o.stream = nil
		r.drop(id)
		defer st.Release()
		return r.collect(st)
	}
	f, err := share(o.frame)
	r.drop(id)
	return f, err
}

// drop says one reader of step id's output is done with it.
func (r *runner) drop(id string) {
	r.uses[id]--
	if r.uses[id] <= 0 {
		if o := r.outs[id]; o != nil {
			o.release()
			delete(r.outs, id)
		}
	}
}

// step runs s (at position n in run order). Its output waits for its
// readers: the stream itself for one reader, a collected frame for several
// (or for Result.Output); an output nobody reads is pulled to its end now.
func (r *runner) step(ctx context.Context, s *Step, n int) error {
	if r.opts.Terminal && r.opts.Progress != nil {
		r.spinner = startSpinner(r.opts.Progress, fmt.Sprintf("  %d/%d %s %s", n, len(r.p.order), s.ID, s.Kind))
		defer func() {
			r.spinner.Stop()
			r.spinner = nil
		}()
	}
	if s.Kind == KindWrite {
		return r.writeStep(ctx, s, n)
	}
	st, err := r.open(ctx, s, n)
	if err != nil {
		return err
	}
	switch uses := r.uses[s.ID]; {
	case uses == 0:
		for st.Next() {
		}
		err := st.Err()
		st.Release()
		return err
	case uses == 1 && s.ID != r.keep:
		r.outs[s.ID] = &output{stream: st}
	default:
		f, err := r.collect(st)
		st.Release()
		if err != nil {
			return err
		}
		r.outs[s.ID] = &output{frame: f}
	}
	return nil
}

// open starts step s: its output stream, which does the work as it is
// pulled.
func (r *runner) open(ctx context.Context, s *Step, n int) (_ *stepStream, err error) {
	start := time.Now()
	var inputs []*stepStream
	var closers []func()
	defer func() {
		// Library panics (Arrow, Parquet) become errors of this step.
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error: %v", v)
		}
		if err != nil {
			for _, c := range closers {
				c()
			}
		}
	}()
	var st dataframe.Stream
	switch s.Kind {
	case KindRead:
		st, err = r.read(ctx, s)
	case KindSQL:
		var in *queryInputs
		st, in, err = r.runQuery(ctx, s, s.query.ast, "")
		if err == nil {
			inputs, closers = in.timed(), append(closers, in.close)
		}
	case KindFilter, KindAggregate, KindSort, KindJoin, KindDistinct, KindWithColumns:
		q, prefix := s.where, filterPrefix
		if s.Kind != KindFilter {
			q, prefix = s.Transform.query, ""
			if s.Kind == KindWithColumns {
				if q, err = s.Transform.withColumns(r.schemaOf(s.inputs[0])); err != nil {
					return nil, err
				}
			}
		}
		var in *queryInputs
		st, in, err = r.runQuery(ctx, s, q, prefix)
		if err == nil {
			inputs, closers = in.timed(), append(closers, in.close)
		}
	default:
		in, from := r.takeStream(s.inputs[0])
		if from != nil {
			inputs = []*stepStream{from}
		}
		st, err = rowStep(s, in, r.mem)
		if err != nil {
			in.Release()
		}
	}
	if err != nil {
		return nil, err
	}
	out := r.newStepStream(s, n, &closing{Stream: st, closers: closers}, inputs, time.Since(start))
	closers = nil
	return out, nil
}

// rowStep makes the stream of a step that works batch by batch.
func rowStep(s *Step, in dataframe.Stream, mem dataframe.Allocator) (dataframe.Stream, error) {
	var op func(*dataframe.Frame) (*dataframe.Frame, error)
	switch s.Kind {
	case KindSelect:
		op = func(f *dataframe.Frame) (*dataframe.Frame, error) { return project(f, s.Select.Columns) }
	case KindExplode:
		op = func(f *dataframe.Frame) (*dataframe.Frame, error) { return dataframe.Explode(f, s.Explode.Path) }
	case KindFlatten:
		op = dataframe.Flatten
	case KindRename:
		op = func(f *dataframe.Frame) (*dataframe.Frame, error) { return rename(f, s.Rename.Pairs) }
	case KindLimit:
		return newLimitStream(in, s.Limit.N), nil
	default:
		return nil, fmt.Errorf("unknown step kind %q", s.Kind)
	}
	return newBatchStream(in, mem, op)
}

// closing is a stream that runs closers after its release.
type closing struct {
	dataframe.Stream
	closers []func()
	refs    int
}

func (c *closing) Retain() { c.refs++ }

func (c *closing) Release() {
	if c.refs > 0 {
		c.refs--
		return
	}
	c.Stream.Release()
	for _, f := range c.closers {
		f()
	}
	c.closers = nil
}

func (r *runner) read(ctx context.Context, s *Step) (dataframe.Stream, error) {
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
		in, err := r.takeFrame(s.inputs[0])
		if err != nil {
			return nil, err
		}
		defer in.Release()
		if props == nil {
			props = map[string]any{}
		}
		props[restapi.PropFanoutFrom] = in
	}
	return r.readStream(ctx, name, props)
}

// readStream reads a dataset as a stream when the session can, else whole.
func (r *runner) readStream(ctx context.Context, name string, props map[string]any) (dataframe.Stream, error) {
	if ss, ok := r.opts.Session.(StreamSession); ok {
		return ss.ReadStream(ctx, name, props)
	}
	f, err := r.opts.Session.Read(ctx, name, props)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	return f.Stream(), nil
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

// writeStep runs a write step: a dataset now, a file at commit time. Its
// input streams into the writer unless a later step (or Result.Output)
// reads the write's output: then the input is collected, written and
// passed on.
func (r *runner) writeStep(ctx context.Context, s *Step, n int) (err error) {
	start := time.Now()
	id := s.inputs[0]
	from := r.outs[id].stream
	var in dataframe.Stream
	var pass *dataframe.Frame
	if r.uses[s.ID] > 0 || s.ID == r.keep {
		if pass, err = r.takeFrame(id); err != nil {
			return err
		}
		in = pass.Stream()
	} else {
		in, _ = r.takeStream(id)
	}
	cs := &countStream{Stream: in}
	defer func() {
		cs.Release()
		// Library panics (Arrow, Parquet) become errors of this step.
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error: %v", v)
		}
		if err != nil && pass != nil {
			pass.Release()
		}
	}()
	sr := StepResult{ID: s.ID, Kind: s.Kind}
	if err := r.write(ctx, s, cs, &sr); err != nil {
		return err
	}
	sr.Rows = cs.rows
	sr.Elapsed = time.Since(start)
	if from != nil {
		sr.Elapsed = max(sr.Elapsed-time.Duration(from.busy.Load()), 0)
	}
	if pass != nil {
		r.outs[s.ID] = &output{frame: pass}
	}
	r.done(n, sr)
	return nil
}

// write writes in to the write step's target: a dataset now, a file under
// a temporary name until commit.
func (r *runner) write(ctx context.Context, s *Step, in *countStream, sr *StepResult) error {
	w := s.Write
	switch {
	case w.Table != "" || w.Type != "":
		if r.opts.Session == nil {
			return errNoSession
		}
		name, props := w.Table, runtimeProps(w.Properties)
		if w.Type != "" {
			name, props = s.ID, userProps(s.ID, w.Type, withWriteMode(w.Type, w, w.Properties))
		} else if w.Mode != "" {
			typ, err := tableType(ctx, r.opts.Session, name)
			if err != nil {
				return err
			}
			props = runtimeProps(withWriteMode(typ, w, w.Properties))
		}
		// A failed write's error says how many rows went out before it
		// (the session and the connector report it).
		var err error
		if ss, ok := r.opts.Session.(StreamSession); ok {
			_, err = ss.WriteStream(ctx, name, in, props)
		} else {
			var f *dataframe.Frame
			if f, err = r.collect(in); err == nil {
				_, err = r.opts.Session.Write(ctx, name, f, props)
				f.Release()
			}
		}
		if err != nil {
			return err
		}
		sr.Target = name
		sr.Bytes = in.bytes
		return nil
	}
	st, err := r.stageFile(ctx, w, in)
	if err != nil {
		return err
	}
	r.staged = append(r.staged, st)
	sr.Target = w.File
	sr.Bytes = st.Size()
	return nil
}

// collect reads a stream to its end into a frame of the run's allocator.
func (r *runner) collect(st dataframe.Stream) (*dataframe.Frame, error) {
	f, err := dataframe.Collect(st)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(r.mem)
	return f, nil
}

// countStream counts the rows and bytes read from a stream.
type countStream struct {
	dataframe.Stream
	rows, bytes int64
}

func (c *countStream) Next() bool {
	if !c.Stream.Next() {
		return false
	}
	rec := c.Stream.Record()
	c.rows += rec.NumRows()
	c.bytes += recordBytes(rec)
	return true
}

// writeCount is the number of write steps of p.
func writeCount(p *Pipeline) int {
	n := 0
	for _, s := range p.Steps {
		if s.Kind == KindWrite {
			n++
		}
	}
	return n
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
	fmt.Fprintf(r.opts.Progress, "pipeline %s: %d steps, %s rows out, %s\n", res.Pipeline, len(res.Steps), termline.Count(res.Rows), round(res.Elapsed))
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

// TableTyper is a Session that can tell a catalog table's connector type
// (a *catalog.Session).
type TableTyper interface {
	TableType(ctx context.Context, name string) (string, error)
}

func tableType(ctx context.Context, s Session, name string) (string, error) {
	tt, ok := s.(TableTyper)
	if !ok {
		return "", fmt.Errorf("write to %s: mode and key need a catalog session that knows the table's type", name)
	}
	return tt.TableType(ctx, name)
}

// withWriteMode adds a write step's mode and key to props as the
// connector's svc.<type>.mode and svc.<type>.merge.key (JDBC, PARQUET).
func withWriteMode(typ string, w *WriteStep, props map[string]string) map[string]string {
	if w.Mode == "" {
		return props
	}
	out := make(map[string]string, len(props)+2)
	for k, v := range props {
		out[k] = v
	}
	prefix := "svc." + strings.ToLower(typ) + "."
	out[prefix+"mode"] = w.Mode
	if len(w.Key) > 0 {
		out[prefix+"merge.key"] = strings.Join(w.Key, ",")
	}
	return out
}
