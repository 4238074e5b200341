package query

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
	// The scalar functions register themselves: a query can call them
	// without the caller importing anything.
	_ "github.com/sluicedata/sluice/dataframe/query/functions"
)

// DefaultSortMemory is the sort memory when Options leave it 0.
const DefaultSortMemory = 2 << 30

// Options tune a compiled query.
type Options struct {
	// Mem allocates every result. Defaults to memory.DefaultAllocator.
	Mem memory.Allocator
	// Now is current_timestamp(). Defaults to the time Compile is called.
	Now time.Time
	// SortMemory bounds the bytes a sort (a full ORDER BY, a window) holds
	// in memory; beyond it sorted runs spill to temporary files. Defaults
	// to DefaultSortMemory.
	SortMemory int64
	// TimeZone is the session time zone (spark.sql.session.timeZone):
	// where a timestamp's wall-clock time is read and shown — TIMESTAMP
	// literals and text cast to timestamps, timestamps cast to text or
	// dates, hour(), date_format() and the other date-time functions
	// (docs/sql.md#time-zone). nil is UTC.
	TimeZone *time.Location
}

// TimeZoneSetting is the session setting naming the session time zone, as
// in Spark (docs/sql.md#time-zone): a region (`America/Los_Angeles`),
// `UTC`, or an offset (`+08:00`, `GMT-5`). Unset, it is UTC.
const TimeZoneSetting = "spark.sql.session.timeZone"

// ParseTimeZone reads a value of TimeZoneSetting; the error names it.
func ParseTimeZone(v string) (*time.Location, error) {
	loc, ok := fn.ParseZone(strings.TrimSpace(v))
	if !ok {
		return nil, fmt.Errorf("%s=%q: not a time zone (want a region such as America/Los_Angeles, UTC, or an offset such as +08:00)", TimeZoneSetting, v)
	}
	return loc, nil
}

// Plan is a compiled query, ready to run (more than once).
type Plan struct {
	root    *node
	logical lnode
	opts    Options
}

// Schema is the result's schema.
func (p *Plan) Schema() *arrow.Schema { return p.root.schema }

// Explain is the physical plan, one operator a line, inputs indented.
func (p *Plan) Explain() string {
	var b strings.Builder
	p.root.explain(&b, 0)
	return b.String()
}

// Run executes the plan and returns its result as a stream.
func (p *Plan) Run(ctx context.Context) (_ array.RecordReader, err error) {
	defer recoverError(&err)
	e := &env{ctx: ctx, mem: p.opts.Mem, sortLimit: p.opts.SortMemory}
	e.ec = &ectx{mem: e.mem, fctx: &fn.Ctx{Mem: e.mem, Now: p.opts.Now, Zone: p.opts.TimeZone}}
	e.ec.run = &subRun{e: e}
	o, err := p.root.start(e)
	if err != nil {
		e.ec.run.release()
		return nil, err
	}
	return &opReader{o: &runOp{op: o, run: e.ec.run}, schema: p.root.schema, refs: 1}, nil
}

// Frame executes the plan and collects its result.
func (p *Plan) Frame(ctx context.Context) (*dataframe.Frame, error) {
	r, err := p.Run(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var recs []arrow.Record
	for r.Next() {
		rec := r.Record()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		for _, rec := range recs {
			rec.Release()
		}
		return nil, err
	}
	f, err := dataframe.New(p.root.schema, recs...)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(p.opts.Mem)
	return f, nil
}

// opReader is an operator seen as an array.RecordReader.
type opReader struct {
	o      op
	schema *arrow.Schema
	cur    arrow.Record
	err    error
	refs   int
	closed bool
}

func (r *opReader) Schema() *arrow.Schema { return r.schema }
func (r *opReader) Retain()               { r.refs++ }
func (r *opReader) Release() {
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if !r.closed {
		r.closed = true
		r.o.close()
	}
}
func (r *opReader) Record() arrow.Record { return r.cur }
func (r *opReader) Err() error           { return r.err }
func (r *opReader) Next() (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			r.err = internalError(p)
			ok = false
		}
	}()
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.closed {
		return false
	}
	rec, err := r.o.next()
	if err != nil {
		r.err = err
		return false
	}
	if rec == nil {
		return false
	}
	r.cur = rec
	return true
}

// Compile plans q over the tables r resolves: it analyses the query (names,
// types, Spark's naming and coercion rules) into a logical plan, rewrites
// it (pushdown, pruning) and builds the physical operators. See doc.go.
func Compile(ctx context.Context, q Query, r Resolver, opts Options) (plan *Plan, err error) {
	defer recoverError(&err)
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now().UTC()
	}
	if opts.SortMemory == 0 {
		opts.SortMemory = DefaultSortMemory
	}
	if opts.TimeZone == nil {
		opts.TimeZone = time.UTC
	}
	// A ColumnsResolver is asked for the columns the query's text names
	// first (so a table is read once, with those only). If that plan
	// fails, plan again over whole tables: the error then names (and
	// suggests) what they really have.
	if cr, ok := r.(ColumnsResolver); ok {
		if _, isScan := r.(ScanResolver); !isScan {
			if need := neededColumns(q, r); need != nil {
				if p, err := compile1(ctx, q, pruning{cr, need}, opts); err == nil {
					return p, nil
				}
			}
		}
	}
	return compile1(ctx, q, r, opts)
}

func compile1(ctx context.Context, q Query, r Resolver, opts Options) (*Plan, error) {
	a := &analyzer{ctx: ctx, r: r, now: opts.Now, zone: opts.TimeZone}
	out, err := a.analyze(q)
	if err != nil {
		return nil, err
	}
	logical, err := rewrite(ctx, out.n, r)
	if err != nil {
		return nil, err
	}
	root, err := physical(logical)
	if err != nil {
		return nil, err
	}
	return &Plan{root: root, logical: logical, opts: opts}, nil
}

// recoverError turns a panic into an error: a query gives a result or an
// error, never a crash (every panic found is a bug to fix; this is the last
// line of defence).
func recoverError(err *error) {
	if p := recover(); p != nil {
		*err = internalError(p)
	}
}

// internalError is a recovered panic as an error naming where it happened
// (the innermost frame of Sluice's code), for a bug report.
func internalError(p any) error {
	site := ""
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "sluicedata/sluice/") && !strings.Contains(f.Function, "recoverError") && !strings.Contains(f.Function, "internalError") {
			site = fmt.Sprintf(" (at %s:%d)", f.File[strings.LastIndex(f.File, "/")+1:], f.Line)
			break
		}
		if !more {
			break
		}
	}
	return fmt.Errorf("query: internal error: %v%s; please report it with the query", p, site)
}
