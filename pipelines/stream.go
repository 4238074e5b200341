package pipelines

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicedata/sluice/dataframe"
)

// Steps hand their outputs on as streams of record batches
// (docs/pipelines.md#streaming): a step's output is pulled, batch by batch,
// by the one step that reads it, so a read → filter → write chain holds a
// few batches at a time whatever the input's size.

// stepStream is a step's output as a stream. It counts the rows and bytes
// that pass, times the step, and records the step's own failure — an error
// of its inner stream or a library panic — with the runner, so that the
// run's error names the step where it happened even though a later step
// was pulling.
type stepStream struct {
	run    *runner
	step   *Step
	n      int // 1-based position in run order
	in     dataframe.Stream
	inputs []*stepStream // streams the step pulls from (their time is theirs)

	open    time.Duration // opening the step (a read's first pass)
	busy    atomic.Int64  // nanoseconds inside Next, inputs included
	rows    atomic.Int64
	bytes   atomic.Int64
	refs    atomic.Int64
	once    sync.Once // reports the step once: at its end or its release
	err     error
	stopped bool // the end came (no more batches, or an error)
}

func (r *runner) newStepStream(s *Step, n int, in dataframe.Stream, inputs []*stepStream, open time.Duration) *stepStream {
	st := &stepStream{run: r, step: s, n: n, in: in, inputs: inputs, open: open}
	st.refs.Store(1)
	r.streams = append(r.streams, st)
	return st
}

func (s *stepStream) Schema() *dataframe.Schema { return s.in.Schema() }
func (s *stepStream) Record() dataframe.Record  { return s.in.Record() }
func (s *stepStream) Err() error                { return s.err }
func (s *stepStream) Retain()                   { s.refs.Add(1) }

func (s *stepStream) Release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	s.in.Release()
	s.report()
}

func (s *stepStream) Next() (ok bool) {
	if s.stopped {
		return false
	}
	start := time.Now()
	defer func() {
		s.busy.Add(int64(time.Since(start)))
		if v := recover(); v != nil {
			// Library panics (Arrow, Parquet) become errors of this step.
			ok = false
			s.fail(fmt.Errorf("internal error: %v", v))
		}
	}()
	if s.in.Next() {
		rec := s.in.Record()
		s.rows.Add(rec.NumRows())
		s.bytes.Add(recordBytes(rec))
		return true
	}
	s.stopped = true
	if err := s.in.Err(); err != nil {
		s.fail(err)
		return false
	}
	s.report()
	return false
}

// fail records err as this step's error, and as the run's failure unless
// an earlier step failed first (its error then reached this step).
func (s *stepStream) fail(err error) {
	s.stopped = true
	s.err = err
	s.run.failMu.Lock()
	if s.run.failed == nil {
		s.run.failed = s
	}
	s.run.failMu.Unlock()
}

// result is the step's StepResult so far: its own time is the time inside
// it minus the time its inputs took.
func (s *stepStream) result() StepResult {
	own := s.open + time.Duration(s.busy.Load())
	for _, in := range s.inputs {
		own -= time.Duration(in.busy.Load())
	}
	return StepResult{ID: s.step.ID, Kind: s.step.Kind, Rows: s.rows.Load(), Bytes: s.bytes.Load(), Elapsed: max(own, 0)}
}

// report adds the step to the run's results, once, when it ended without
// an error (a failed step is reported by Run).
func (s *stepStream) report() {
	if s.err != nil {
		return
	}
	s.once.Do(func() { s.run.done(s.n, s.result()) })
}

// recordBytes is the in-memory size of a batch.
func recordBytes(rec dataframe.Record) int64 {
	rec.Retain()
	f, err := dataframe.New(rec.Schema(), rec)
	if err != nil {
		rec.Release()
		return 0
	}
	defer f.Release()
	return dataframe.ByteSize(f)
}

// batchStream applies a frame operation that works row by row (select,
// explode, flatten, rename) to each batch of in: its output schema is the
// operation's on an empty frame of in's schema.
type batchStream struct {
	in     dataframe.Stream
	mem    dataframe.Allocator
	op     func(*dataframe.Frame) (*dataframe.Frame, error)
	schema *dataframe.Schema
	out    *dataframe.Frame // the current batch's output
	i      int              // next record of out
	cur    dataframe.Record
	err    error
	refs   atomic.Int64
}

func newBatchStream(in dataframe.Stream, mem dataframe.Allocator, op func(*dataframe.Frame) (*dataframe.Frame, error)) (*batchStream, error) {
	empty := dataframe.Empty(in.Schema())
	empty.SetAllocator(mem)
	o, err := op(empty)
	if err != nil {
		return nil, err
	}
	defer o.Release()
	b := &batchStream{in: in, mem: mem, op: op, schema: o.Schema()}
	b.refs.Store(1)
	return b, nil
}

func (b *batchStream) Schema() *dataframe.Schema { return b.schema }
func (b *batchStream) Record() dataframe.Record  { return b.cur }
func (b *batchStream) Err() error                { return b.err }
func (b *batchStream) Retain()                   { b.refs.Add(1) }

func (b *batchStream) Release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	b.drop()
	b.in.Release()
}

func (b *batchStream) drop() {
	b.cur = nil
	if b.out != nil {
		b.out.Release()
		b.out = nil
	}
}

func (b *batchStream) Next() bool {
	for b.err == nil {
		if b.out != nil && b.i < len(b.out.Records()) {
			b.cur = b.out.Records()[b.i]
			b.i++
			return true
		}
		b.drop()
		if !b.in.Next() {
			b.err = b.in.Err()
			return false
		}
		rec := b.in.Record()
		rec.Retain()
		f, err := dataframe.New(b.in.Schema(), rec)
		if err != nil {
			rec.Release()
			b.err = err
			return false
		}
		f.SetAllocator(b.mem)
		out, err := b.op(f)
		f.Release()
		if err != nil {
			b.err = err
			return false
		}
		if !out.Schema().Equal(b.schema) {
			out.Release()
			b.err = fmt.Errorf("a batch's result has schema %s, the step's is %s", out.Schema(), b.schema)
			return false
		}
		b.out, b.i = out, 0
	}
	return false
}

// limitStream passes the first n rows of in and then stops: it releases in
// at once, so the steps before it stop reading too.
type limitStream struct {
	in   dataframe.Stream
	left int64
	cur  dataframe.Record
	err  error
	refs atomic.Int64
	done bool
}

func newLimitStream(in dataframe.Stream, n int64) *limitStream {
	l := &limitStream{in: in, left: max(n, 0)}
	l.refs.Store(1)
	return l
}

func (l *limitStream) Schema() *dataframe.Schema { return l.in.Schema() }
func (l *limitStream) Record() dataframe.Record  { return l.cur }
func (l *limitStream) Err() error                { return l.err }
func (l *limitStream) Retain()                   { l.refs.Add(1) }

func (l *limitStream) Release() {
	if l.refs.Add(-1) != 0 {
		return
	}
	l.clear()
	l.stop()
}

func (l *limitStream) clear() {
	if l.cur != nil {
		l.cur.Release()
		l.cur = nil
	}
}

func (l *limitStream) stop() {
	if !l.done {
		l.done = true
		l.in.Release()
	}
}

func (l *limitStream) Next() bool {
	l.clear()
	for !l.done && l.left > 0 {
		if !l.in.Next() {
			l.err = l.in.Err()
			l.stop()
			return false
		}
		rec := l.in.Record()
		if rec.NumRows() == 0 {
			continue
		}
		if rec.NumRows() <= l.left {
			rec.Retain()
			l.cur = rec
		} else {
			l.cur = rec.NewSlice(0, l.left)
		}
		l.left -= l.cur.NumRows()
		return true
	}
	l.stop()
	return false
}
