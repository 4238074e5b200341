package catalog

import (
	"context"
	"strings"
	"sync"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// statementReads makes a SQL statement read each table of a
// connectors.SpoolReader connector (RESTAPI: an API's pages) once, whatever
// its plan does: the first read spools the table and every later read of
// it in the statement — a self-join, the plan made again after a pruned
// plan failed, a stream opened again — streams from the spool; a failed
// read fails every one of them alike, without another request (see
// docs/restapi.md#one-read-per-statement). Other connectors are read as
// the plan asks (a Parquet file is opened again with other columns).
type statementReads struct {
	mu    sync.Mutex
	reads map[string]*spooledRead
}

// spooledRead is one table's read in a statement.
type spooledRead struct {
	once  sync.Once
	spool connectors.Spool
	err   error
}

type statementReadsKey struct{}

// in returns ctx carrying r, unless ctx carries a statement's reads
// already (an outer statement's).
func (r *statementReads) in(ctx context.Context) context.Context {
	if ctx.Value(statementReadsKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, statementReadsKey{}, r)
}

func statementReadsFrom(ctx context.Context) *statementReads {
	r, _ := ctx.Value(statementReadsKey{}).(*statementReads)
	return r
}

// open streams table key, reading it with read the first time only.
func (r *statementReads) open(ctx context.Context, key string, read func() (connectors.Spool, error)) (dataframe.Stream, error) {
	r.mu.Lock()
	if r.reads == nil {
		r.reads = map[string]*spooledRead{}
	}
	sr := r.reads[key]
	if sr == nil {
		sr = &spooledRead{}
		r.reads[key] = sr
	}
	r.mu.Unlock()
	sr.once.Do(func() { sr.spool, sr.err = read() })
	if sr.err != nil {
		return nil, sr.err
	}
	return sr.spool.Open(ctx)
}

// release frees the statement's spools; streams still open keep theirs
// until they are released.
func (r *statementReads) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sr := range r.reads {
		if sr.spool != nil {
			sr.spool.Release()
		}
	}
	r.reads = nil
}

// readOnce is the statement's read of a resolved dataset, when ctx carries
// a statement's reads and the connector reads once per statement; ok is
// false otherwise.
func (s *Session) readOnce(ctx context.Context, r *resolved, props map[string]any) (st dataframe.Stream, ok bool, err error) {
	reads := statementReadsFrom(ctx)
	sr, spools := r.conn.(connectors.SpoolReader)
	if reads == nil || !spools || len(props) > 0 {
		return nil, false, nil // runtime properties make a read of its own
	}
	st, err = reads.open(ctx, strings.ToLower(r.ds.Name), func() (connectors.Spool, error) {
		if s.needsWholeRead(r) {
			f, err := s.readResolved(ctx, r)
			if err != nil {
				return nil, err
			}
			return frameSpool{f}, nil
		}
		return sr.ReadSpool(ctx, r.ds)
	})
	return st, true, err
}

// frameSpool is a read held in memory (an incremental or fan-out read),
// streamed as often as asked.
type frameSpool struct{ f *dataframe.Frame }

func (s frameSpool) Open(context.Context) (dataframe.Stream, error) { return s.f.Stream(), nil }
func (s frameSpool) Release()                                       { s.f.Release() }
