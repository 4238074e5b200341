package catalog

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sluicedata/sluice/catalog/sqlparse"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// Query runs a parsed query (docs/sql.md#select) over the session's tables
// on the query engine and returns its rows.
func (s *Session) Query(ctx context.Context, q query.Query) (*dataframe.Frame, error) {
	plan, release, err := s.compileQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	defer release()
	return plan.Frame(ctx)
}

// compileQuery plans q, reading the tables it names through the session;
// release drops them once the plan has run.
func (s *Session) compileQuery(ctx context.Context, q query.Query) (*query.Plan, func(), error) {
	r := &sessionTables{s: s}
	opts := query.Options{Mem: s.mem}
	if v, ok := s.Get(query.SortLimitSetting); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return nil, nil, fmt.Errorf("setting %s=%q: want a number of bytes", query.SortLimitSetting, v)
		}
		opts.SortMemory = n
	}
	zone, err := settingZone(s)
	if err != nil {
		return nil, nil, err
	}
	opts.TimeZone = zone
	plan, err := query.Compile(ctx, q, r, opts)
	if err != nil {
		r.release()
		return nil, nil, err
	}
	return plan, r.release, nil
}

// settingGetter reads a session setting (a Session).
type settingGetter interface {
	Get(key string) (string, bool)
}

// TimeZone is the session time zone, spark.sql.session.timeZone (UTC when
// it is not set): where timestamps are read and shown (docs/sql.md#time-zone).
func (s *Session) TimeZone() (*time.Location, error) { return settingZone(s) }

// settingZone is the session time zone of spark.sql.session.timeZone, UTC
// when it is not set (docs/sql.md#time-zone).
func settingZone(g settingGetter) (*time.Location, error) {
	v, ok := g.Get(query.TimeZoneSetting)
	if !ok {
		return time.UTC, nil
	}
	return query.ParseTimeZone(v)
}

// TableReader reads catalog tables by name: a Session, or a pipeline's.
type TableReader interface {
	Read(ctx context.Context, name string, props map[string]any) (*dataframe.Frame, error)
}

// TableStreamer is a TableReader that can also read a table as a stream
// (a Session): the query engine then runs over record batches as they are
// read instead of whole frames (see docs/sql.md#performance).
type TableStreamer interface {
	TableReader
	ReadStream(ctx context.Context, name string, props map[string]any) (dataframe.Stream, error)
}

// TableScanner is a TableStreamer whose tables can do part of a query's
// work while they are read (a Session over connectors.ScanReader: columns,
// filters, a limit, rows by position; see docs/sql.md#pushdown).
type TableScanner interface {
	TableStreamer
	ReadScan(ctx context.Context, name string, props map[string]any, req scan.Request) (dataframe.Stream, scan.Applied, error)
}

// sessionTables resolves a query's table names with ReadScan or ReadStream
// where the reader has them, else with Read. Its reads are one statement's:
// each RESTAPI table is read once (statementReads).
type sessionTables struct {
	s      TableReader
	frames []*dataframe.Frame
	tables []*streamTable
	reads  statementReads
}

var (
	_ query.ScanResolver    = (*sessionTables)(nil)
	_ query.ColumnsResolver = (*sessionTables)(nil)
)

func (r *sessionTables) Table(ctx context.Context, name []string) (query.Table, error) {
	return r.ScanTable(ctx, name, scan.Request{})
}

// TableColumns reads a table with only the columns need names, where its
// connector can skip columns.
func (r *sessionTables) TableColumns(ctx context.Context, name []string, need []string) (query.Table, error) {
	return r.ScanTable(ctx, name, scan.Request{Columns: need})
}

// ScanTable reads a table under req: through the connector's ScanReader
// when it has one, which reports what it applied; otherwise whole.
func (r *sessionTables) ScanTable(ctx context.Context, name []string, req scan.Request) (query.ScannedTable, error) {
	ctx = r.reads.in(ctx)
	full := strings.Join(name, ".")
	if st, ok := r.s.(TableStreamer); ok {
		t := &streamTable{r: st, name: full, req: req, reads: &r.reads}
		s, err := t.scan(ctx, req)
		if err != nil {
			return nil, err
		}
		t.schema, t.first = s.Schema(), s
		r.tables = append(r.tables, t)
		return t, nil
	}
	f, err := r.s.Read(ctx, full, nil)
	if err != nil {
		return nil, err
	}
	r.frames = append(r.frames, f)
	return unscanned(query.FrameTable(f), req), nil
}

func (r *sessionTables) release() {
	for _, f := range r.frames {
		f.Release()
	}
	r.frames = nil
	for _, t := range r.tables {
		t.release()
	}
	r.tables = nil
	r.reads.release()
}

// scannedTable is a table read whole: nothing of a request applied.
type scannedTable struct {
	query.Table
	applied scan.Applied
}

func (t scannedTable) Applied() scan.Applied { return t.applied }

func unscanned(t query.Table, req scan.Request) query.ScannedTable {
	return scannedTable{Table: t, applied: scan.Applied{Filters: make([]bool, len(req.Filters))}}
}

// streamTable is a table read as a stream: its schema is known at planning
// (for Parquet, from the footer, without reading data) and its batches are
// read when the query runs. The stream opened at planning serves the first
// Open; a plan run again, or a table read twice (a self-join), opens it
// again with the same request.
type streamTable struct {
	r       TableStreamer
	name    string
	req     scan.Request
	applied scan.Applied
	schema  *dataframe.Schema
	reads   *statementReads // the statement's: a RESTAPI table is not read again

	mu    sync.Mutex
	first dataframe.Stream
}

func (t *streamTable) Schema() *dataframe.Schema { return t.schema }

// Applied says which parts of the request the rows honour.
func (t *streamTable) Applied() scan.Applied { return t.applied }

// scan opens the table under req, recording what the connector applied.
func (t *streamTable) scan(ctx context.Context, req scan.Request) (dataframe.Stream, error) {
	ctx = t.reads.in(ctx)
	if sc, ok := t.r.(TableScanner); ok {
		s, applied, err := sc.ReadScan(ctx, t.name, nil, req)
		if err != nil {
			return nil, err
		}
		if applied.Filters == nil {
			applied.Filters = make([]bool, len(req.Filters))
		}
		if t.schema == nil {
			t.applied = applied
		}
		return s, nil
	}
	t.applied = scan.Applied{Filters: make([]bool, len(req.Filters))}
	return t.r.ReadStream(ctx, t.name, nil)
}

func (t *streamTable) Open(ctx context.Context) (dataframe.Stream, error) {
	t.mu.Lock()
	s := t.first
	t.first = nil
	t.mu.Unlock()
	if s != nil {
		return s, nil
	}
	return t.read(ctx)
}

// read opens the table again with the query's request.
func (t *streamTable) read(ctx context.Context) (dataframe.Stream, error) {
	s, err := t.scan(ctx, t.req)
	if err != nil {
		return nil, err
	}
	if !s.Schema().Equal(t.schema) {
		s.Release()
		return nil, fmt.Errorf("table %s changed while the query ran: its columns are now %s, were %s", t.name, s.Schema(), t.schema)
	}
	return s, nil
}

// OpenColumns streams the columns cols only (a top-N's sort keys first).
func (t *streamTable) OpenColumns(ctx context.Context, cols []string) (dataframe.Stream, error) {
	req := t.req
	req.Columns = cols
	return t.scan(ctx, req)
}

// RowPositions says whether the connector keeps its rows' positions from
// one read to the next (a PARQUET file), so that OpenRows can read the
// winners of a top-N by position; otherwise the top-N reads the table once.
func (t *streamTable) RowPositions() bool { return t.applied.RowPositions }

// OpenRows streams the rows at positions rows, where the connector can
// read rows by position (PARQUET files).
func (t *streamTable) OpenRows(ctx context.Context, rows []int64) (dataframe.Stream, bool, error) {
	sc, ok := t.r.(TableScanner)
	if !ok {
		return nil, false, nil
	}
	req := t.req
	req.Rows = rows
	s, applied, err := sc.ReadScan(t.reads.in(ctx), t.name, nil, req)
	if err != nil {
		return nil, false, err
	}
	if !applied.Rows {
		s.Release()
		return nil, false, nil
	}
	if !s.Schema().Equal(t.schema) {
		s.Release()
		return nil, false, fmt.Errorf("table %s changed while the query ran: its columns are now %s, were %s", t.name, s.Schema(), t.schema)
	}
	return s, true, nil
}

// release drops the stream opened at planning if the query never ran.
func (t *streamTable) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.first != nil {
		t.first.Release()
		t.first = nil
	}
}

// QueryFrames runs q where a one-part table name is looked up in frames
// first (case-insensitively: pipeline step ids, frames of a Go program),
// then — when s is not nil — in the session's catalog. It is the Go API for
// running SQL over frames; frames stay the caller's.
func QueryFrames(ctx context.Context, s TableReader, q query.Query, frames map[string]*dataframe.Frame) (*dataframe.Frame, error) {
	r := &frameTables{frames: map[string]*dataframe.Frame{}}
	for k, f := range frames {
		r.frames[strings.ToLower(k)] = f
	}
	var opts query.Options
	if s != nil && !isNilReader(s) {
		r.session = &sessionTables{s: s}
		defer r.session.release()
		if g, ok := s.(settingGetter); ok {
			zone, err := settingZone(g)
			if err != nil {
				return nil, err
			}
			opts.TimeZone = zone
		}
	}
	plan, err := query.Compile(ctx, q, r, opts)
	if err != nil {
		return nil, err
	}
	return plan.Frame(ctx)
}

type frameTables struct {
	frames  map[string]*dataframe.Frame
	session *sessionTables
}

func (r *frameTables) Table(ctx context.Context, name []string) (query.Table, error) {
	if len(name) == 1 {
		if f, ok := r.frames[strings.ToLower(name[0])]; ok {
			return query.FrameTable(f), nil
		}
	}
	if r.session == nil || len(name) == 1 {
		m := query.Tables{}
		for k, f := range r.frames {
			m[k] = query.FrameTable(f)
		}
		return m.Table(ctx, name)
	}
	return r.session.Table(ctx, name)
}

// TableColumns reads a session table with only the columns need names
// (a frame is already in memory and comes whole).
func (r *frameTables) TableColumns(ctx context.Context, name []string, need []string) (query.Table, error) {
	return r.ScanTable(ctx, name, scan.Request{Columns: need})
}

// ScanTable reads a session table under req (a frame is already in memory
// and comes whole, nothing applied).
func (r *frameTables) ScanTable(ctx context.Context, name []string, req scan.Request) (query.ScannedTable, error) {
	if len(name) > 1 && r.session != nil {
		return r.session.ScanTable(ctx, name, req)
	}
	t, err := r.Table(ctx, name)
	if err != nil {
		return nil, err
	}
	return unscanned(t, req), nil
}

func isNilReader(s TableReader) bool {
	ss, ok := s.(*Session)
	return ok && ss == nil
}

// SQLFrames runs one SELECT, given as SQL text, over frames named by their
// map keys and — when s is not nil — the session's catalog tables: SQL over
// a Go program's frames (see docs/go-api.md). Frames stay the caller's; the
// result is the caller's to release. args are the values of the text's ?
// placeholders, as Session.ExecuteBatch takes them.
func SQLFrames(ctx context.Context, s TableReader, text string, frames map[string]*dataframe.Frame, args ...any) (*dataframe.Frame, error) {
	stmts, err := parseBatch(text, args)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("SQLFrames runs one SELECT; got %d statements", len(stmts))
	}
	sel, ok := stmts[0].(*sqlparse.Select)
	if !ok || sel.Explain {
		return nil, fmt.Errorf("SQLFrames runs one SELECT; got another statement")
	}
	return QueryFrames(ctx, s, sel.Query, frames)
}

// SessionTables is the resolver SQL over a session uses, for callers that
// add table names of their own (a pipeline's step ids): catalog tables
// (ns.table) read through s — streamed where s is a TableStreamer, with only
// the columns a query uses (TableColumns). release drops what the plan did
// not read; call it once the plan has run.
func SessionTables(s TableReader) (r query.ColumnsResolver, release func()) {
	t := &sessionTables{s: s}
	return t, t.release
}
