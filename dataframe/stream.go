package dataframe

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// Stream is a frame as a sequence of record batches that share one schema:
// Arrow's array.RecordReader (Schema, Next, Record, Err, Retain, Release).
// The record Next makes current is valid until the following Next or
// Release; Retain it to keep it longer. After Next returns false, Err tells
// an error from the end of the data. A materialised Frame is the special
// case Frame.Stream. See docs/frames.md#streams.
type Stream = array.RecordReader

// Stream returns a stream over f's records. The stream holds its own
// references, so f may be released before the stream is; the caller releases
// the stream.
func (f *Frame) Stream() Stream {
	rr, err := array.NewRecordReader(f.schema, f.records)
	if err != nil {
		// New checked every record's schema, so this cannot happen.
		panic(fmt.Sprintf("dataframe: frame stream: %v", err))
	}
	return rr
}

// Collect reads s to its end into a frame: the one place a stream is
// materialised, so memory grows with the input (see docs/frames.md#memory).
// The caller still releases s, and releases the frame.
func Collect(s Stream) (*Frame, error) {
	var recs []arrow.Record
	for s.Next() {
		rec := s.Record()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := s.Err(); err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, err
	}
	return New(s.Schema(), recs...)
}

// ErrStreamChanged is returned (wrapped) by a file stream whose file changed
// between its inference pass and its build pass.
var ErrStreamChanged = errors.New("file changed while it was being read")

// pipe is a Stream fed by a producer goroutine: batches arrive on a channel
// in order, and Release (or the end of the data) stops the producer and
// waits for it, so no goroutine outlives the stream.
type pipe struct {
	refs   atomic.Int64
	schema *arrow.Schema
	ctx    context.Context
	cancel context.CancelFunc
	recs   chan arrow.Record
	done   chan struct{} // closed when the producer returned
	err    error         // the producer's error, read after done
	cur    arrow.Record
	final  error // what Err reports
	ended  bool
}

// NewStream makes a stream fed by produce, which runs on its own goroutine:
// it sends batches of schema with emit (which reports false once the stream
// is released or ctx is cancelled: produce must then return) and returns nil
// at the end of the data or its error, which the stream's Err reports.
// Ownership of each emitted record passes to the stream; depth batches may
// wait between produce and the reader.
func NewStream(ctx context.Context, schema *arrow.Schema, depth int, produce func(ctx context.Context, emit func(arrow.Record) bool) error) Stream {
	return newPipe(ctx, schema, depth, produce)
}

func newPipe(ctx context.Context, schema *arrow.Schema, depth int, produce func(ctx context.Context, emit func(arrow.Record) bool) error) *pipe {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipe{schema: schema, ctx: ctx, cancel: cancel, recs: make(chan arrow.Record, depth), done: make(chan struct{})}
	p.refs.Store(1)
	go func() {
		defer close(p.done)
		defer close(p.recs)
		emit := func(r arrow.Record) bool {
			select {
			case p.recs <- r:
				return true
			case <-ctx.Done():
				r.Release()
				return false
			}
		}
		p.err = produce(ctx, emit)
	}()
	return p
}

func (p *pipe) Schema() *arrow.Schema { return p.schema }

func (p *pipe) Next() bool {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	if p.ended {
		return false
	}
	select {
	case r, ok := <-p.recs:
		if ok {
			p.cur = r
			return true
		}
	case <-p.ctx.Done():
	}
	p.finish()
	return false
}

// finish stops the producer, waits for it and settles Err: the producer's
// error, else the context's (a cancelled read is not a complete one).
func (p *pipe) finish() {
	p.ended = true
	ctxErr := p.ctx.Err()
	p.cancel()
	for r := range p.recs {
		r.Release()
	}
	<-p.done
	switch {
	case p.err != nil && !(ctxErr == nil && errors.Is(p.err, context.Canceled)):
		p.final = p.err
	case ctxErr != nil:
		p.final = ctxErr
	}
}

func (p *pipe) Record() arrow.Record { return p.cur }

func (p *pipe) Err() error { return p.final }

func (p *pipe) Retain() { p.refs.Add(1) }

func (p *pipe) Release() {
	if p.refs.Add(-1) != 0 {
		return
	}
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	if !p.ended {
		p.finish()
	}
}

func release(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}
