package jdbc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// maxParallel bounds the connections of a partitioned read.
const maxParallel = 8

// readPlan is one read: the SELECT, its arguments and the schema of the
// batches.
type readPlan struct {
	cfg    *config
	d      dialect
	c      conn // the planning connection, handed to the first range
	name   string
	cols   []column
	sql    string // SELECT … FROM … [WHERE …], without the range predicate
	args   []any
	ranges []string // partition predicates ("": none)
	rargs  [][]any
	order  string // ORDER BY keys of a pushed top-N ("": none)
	limit  int64
	schema *dataframe.Schema
	mem    dataframe.Allocator
	ds     *connectors.Dataset
}

// plan describes the source, picks the columns and translates the filters
// of req; extra are columns the read needs whatever req says (an
// incremental read's cursor and key); where is an added predicate.
func (c *Connector) plan(ctx context.Context, ds *connectors.Dataset, req scan.Request, inc *incPlan) (p *readPlan, applied scan.Applied, err error) {
	cfg, err := parseConfig(ds.Props)
	if err != nil {
		return nil, applied, err
	}
	if cfg.Table == "" && cfg.Query == "" {
		return nil, applied, fmt.Errorf("property %s (or %s) is required", PropDBTable, PropQuery)
	}
	d := cfg.Target.dialect
	cn, err := connect(ctx, ds, cfg)
	if err != nil {
		return nil, applied, err
	}
	defer func() {
		if err != nil {
			cn.close()
		}
	}()
	var all []column
	var from, name string
	if cfg.Table != "" {
		tn := parseTableName(cfg.Table)
		name = tn.String()
		info, err := cn.tableInfo(ctx, tn)
		if err != nil {
			return nil, applied, err
		}
		if info == nil {
			return nil, applied, tableNotFound(ctx, cn, d, cfg.Target, tn)
		}
		all, from = info.Columns, tn.quoted(d)
		if inc != nil && len(inc.key) == 0 {
			inc.key = info.Key
		}
	} else {
		name = "query"
		if all, err = cn.describe(ctx, cfg.Query, nil); err != nil {
			return nil, applied, queryError(ctx, cn, d, cfg.Target, err)
		}
		from = "(" + cfg.Query + ") AS " + d.quote("sluice_query")
	}
	if len(all) == 0 {
		return nil, applied, fmt.Errorf("%s has no columns", name)
	}
	// Columns: those asked for (at least one), and those the read needs.
	var need []string
	if inc != nil {
		need = append(append(need, inc.cursor), inc.key...)
	}
	cols := all
	if req.Columns != nil {
		want := map[string]bool{}
		for _, n := range append(append([]string{}, req.Columns...), need...) {
			want[strings.ToLower(n)] = true
		}
		cols = nil
		for _, col := range all {
			if want[strings.ToLower(col.Name)] {
				cols = append(cols, col)
			}
		}
		if len(cols) == 0 {
			cols = all[:1]
		}
	}
	for _, n := range need {
		if !hasColumn(cols, n) {
			return nil, applied, fmt.Errorf("%s: %s has no column %q%s", propFor(inc, n), name, n, columnHint(all, n))
		}
	}
	w := &where{d: d, cols: all}
	var conds []string
	applied.Filters = make([]bool, len(req.Filters))
	if inc == nil {
		for i, f := range req.Filters {
			if s, ok := w.translate(f); ok {
				conds = append(conds, s)
				applied.Filters[i] = true
			}
		}
	} else if inc.prev != nil {
		cur, _ := findColumn(all, inc.cursor)
		s, err := inc.since(w, cur)
		if err != nil {
			return nil, applied, err
		}
		conds = append(conds, s)
	}
	sel := make([]string, len(cols))
	for i, col := range cols {
		sel[i] = d.quote(col.Name)
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	p = &readPlan{cfg: cfg, d: d, c: cn, name: name, cols: cols, args: w.args, mem: c.Allocator, ds: ds}
	p.ranges, p.rargs = []string{""}, [][]any{nil}
	if pt := cfg.Partition; pt != nil {
		pc, ok := findColumn(all, pt.Column)
		if !ok {
			return nil, applied, fmt.Errorf("property %s: %s has no column %q%s", PropPartitionColumn, name, pt.Column, columnHint(all, pt.Column))
		}
		if p.ranges, p.rargs, err = partitionWhere(d, pt, pc, len(w.args)); err != nil {
			return nil, applied, err
		}
	}
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	p.sql = q
	all1 := true
	for _, a := range applied.Filters {
		all1 = all1 && a
	}
	if req.Limit > 0 && all1 && len(p.ranges) == 1 && inc == nil {
		if len(req.Order) == 0 {
			p.limit = req.Limit
			applied.Limit = true
		} else if order, ok := orderBy(d, all, req.Order); ok {
			p.order, p.limit = order, req.Limit
			applied.Limit, applied.Order = true, true
		}
	}
	fields := make([]dataframe.Field, len(cols))
	for i, col := range cols {
		dt, err := cells.ParseType(col.Spark)
		if err != nil {
			return nil, applied, fmt.Errorf("column %s: %w", col.Name, err)
		}
		fields[i] = dataframe.Field{Name: col.Name, Type: dt, Nullable: col.Nullable}
	}
	p.schema = dataframe.NewSchema(fields)
	return p, applied, nil
}

func propFor(inc *incPlan, n string) string {
	if inc != nil && n == inc.cursor {
		return PropIncrementalCursor
	}
	return PropIncrementalKey
}

func hasColumn(cols []column, name string) bool {
	_, ok := findColumn(cols, name)
	return ok
}

func findColumn(cols []column, name string) (column, bool) {
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return column{}, false
}

func columnHint(cols []column, name string) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return didYouMean(name, names)
}

// stream runs the plan: one query, or one per range on up to maxParallel
// connections, each cutting batches of fetchsize rows. post, when not nil,
// sees each batch before it is emitted and may replace it.
func (p *readPlan) stream(ctx context.Context, post func(dataframe.Record) (dataframe.Record, error)) dataframe.Stream {
	return dataframe.NewStream(ctx, p.schema, 2, func(ctx context.Context, emit func(dataframe.Record) bool) error {
		first := p.c
		defer func() {
			if first != nil {
				first.close()
			}
		}()
		if len(p.ranges) == 1 {
			c := first
			first = nil
			defer c.close()
			return p.runRange(ctx, c, 0, emit, post)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var mu sync.Mutex
		var firstErr error
		fail := func(err error) {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
			cancel()
		}
		sem := make(chan struct{}, maxParallel)
		var wg sync.WaitGroup
		for i := range p.ranges {
			var c conn
			if first != nil {
				c, first = first, nil
			}
			wg.Add(1)
			go func(i int, c conn) {
				defer wg.Done()
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					if c != nil {
						c.close()
					}
					return
				}
				defer func() { <-sem }()
				if c == nil {
					var err error
					if c, err = connect(ctx, p.ds, p.cfg); err != nil {
						fail(err)
						return
					}
				}
				defer c.close()
				if err := p.runRange(ctx, c, i, emit, post); err != nil {
					fail(fmt.Errorf("partition %d of %d: %w", i+1, len(p.ranges), err))
				}
			}(i, c)
		}
		wg.Wait()
		if firstErr != nil && !errors.Is(firstErr, context.Canceled) {
			return firstErr
		}
		return ctx.Err()
	})
}

// runRange streams one range's rows as batches.
func (p *readPlan) runRange(ctx context.Context, c conn, i int, emit func(dataframe.Record) bool, post func(dataframe.Record) (dataframe.Record, error)) error {
	q, args := p.sql, append([]any{}, p.args...)
	if r := p.ranges[i]; r != "" {
		if strings.Contains(q, " WHERE ") {
			q += " AND " + r
		} else {
			q += " WHERE " + r
		}
		args = append(args, p.rargs[i]...)
	}
	if p.order != "" {
		q += " ORDER BY " + p.order
	}
	if p.limit > 0 {
		q += " LIMIT " + strconv.FormatInt(p.limit, 10)
	}
	b := cells.NewBuilder(p.mem, p.schema, p.cfg.FetchSize)
	defer b.Release()
	stopped := false
	send := func() error {
		rec := b.NewRecord()
		if rec == nil {
			return nil
		}
		if post != nil {
			var err error
			if rec, err = post(rec); err != nil {
				return err
			}
			if rec == nil {
				return nil
			}
		}
		if !emit(rec) {
			stopped = true
			return context.Canceled
		}
		return nil
	}
	err := c.stream(ctx, q, args, p.cols, b, func() error {
		if b.EndRow() {
			return send()
		}
		return nil
	})
	if err == nil {
		err = send()
	}
	if stopped {
		return ctx.Err()
	}
	var rv *readValueError
	if errors.As(err, &rv) {
		msg := strings.TrimPrefix(rv.Err.Error(), cells.ErrNotFit.Error()+": ")
		what := "table " + p.name
		if p.cfg.Table == "" {
			what = PropQuery
		}
		return fmt.Errorf("%w: %s, column %s, row %d: %s", ErrValue, what, rv.Column, rv.Row, msg)
	}
	return err
}

// incPlan is an incremental read (docs/jdbc.md#incremental-reads).
type incPlan struct {
	cursor string
	key    []string
	prev   *connectors.State
}

// since is the predicate cursor ≥ the stored value, bound as the
// column's type.
func (inc *incPlan) since(w *where, cur column) (string, error) {
	v := inc.prev.LastValue
	col := w.d.quote(cur.Name)
	if op, ok := w.d.exactOperand(col, cur); ok {
		col = op
	}
	bad := func(err error) error {
		return fmt.Errorf("the stored state's last_value %q is not a %s for column %s (sluice state reset starts over): %w", v, cur.Spark, cur.Name, err)
	}
	switch f := family(cur.Spark); {
	case f == "number" && strings.HasPrefix(cur.Spark, "decimal"):
		if _, _, ok := cellsDecimal(v); !ok {
			return "", bad(errors.New("not a number"))
		}
		w.args = append(w.args, v)
		return col + " >= " + w.d.decimalParam(len(w.args)), nil
	case cur.Spark == "double" || cur.Spark == "float":
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", bad(err)
		}
		return col + " >= " + w.arg(x), nil
	case f == "number":
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", bad(err)
		}
		return col + " >= " + w.arg(x), nil
	case f == "date":
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return "", bad(err)
		}
		return col + " >= " + w.arg(t), nil
	case f == "timestamp":
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return "", bad(err)
		}
		return col + " >= " + w.arg(t.UTC()), nil
	case f == "string":
		return col + " >= " + w.arg(v), nil
	}
	return "", fmt.Errorf("property %s: column %s is %s; a cursor is a number, string, date or timestamp column", PropIncrementalCursor, cur.Name, cur.Spark)
}

// ReadIncrementalStream streams the rows whose cursor is ≥ the stored
// value, less those delivered at that value (by incremental.key, default
// the primary key, else the whole row); state gives the state after the
// rows streamed so far (docs/jdbc.md#incremental-reads).
func (c *Connector) ReadIncrementalStream(ctx context.Context, ds *connectors.Dataset, prev *connectors.State) (dataframe.Stream, func() *connectors.State, error) {
	cursor := strings.TrimSpace(ds.Props[PropIncrementalCursor])
	if prev != nil && prev.Cursor != "" && prev.Cursor != cursor {
		return nil, nil, fmt.Errorf("the stored state is of cursor %q, not %s=%s (sluice state reset starts over)", prev.Cursor, PropIncrementalCursor, cursor)
	}
	inc := &incPlan{cursor: cursor, key: list(ds.Props[PropIncrementalKey]), prev: prev}
	p, _, err := c.plan(ctx, ds, scan.Request{}, inc)
	if err != nil {
		return nil, nil, err
	}
	tr := newTracker(p.schema, inc, prev)
	return p.stream(ctx, tr.filter), tr.state, nil
}

// tracker drops the rows delivered at the stored value and follows the
// largest cursor value and the keys at it.
type tracker struct {
	mu      sync.Mutex
	cur     int   // cursor column index
	key     []int // key column indices (all columns without a key)
	prevVal string
	seen    map[string]bool
	last    string
	hasLast bool
	keys    []string
	keySet  map[string]bool
	cursor  string
	mem     dataframe.Allocator
}

func newTracker(schema *dataframe.Schema, inc *incPlan, prev *connectors.State) *tracker {
	t := &tracker{cursor: inc.cursor, keySet: map[string]bool{}, mem: dataframe.DefaultAllocator}
	idx := func(name string) int {
		for i, f := range schema.Fields() {
			if f.Name == name {
				return i
			}
		}
		for i, f := range schema.Fields() {
			if strings.EqualFold(f.Name, name) {
				return i
			}
		}
		return -1
	}
	t.cur = idx(inc.cursor)
	for _, k := range inc.key {
		t.key = append(t.key, idx(k))
	}
	if len(t.key) == 0 {
		for i := range schema.Fields() {
			t.key = append(t.key, i)
		}
	}
	if prev != nil && prev.LastValue != "" {
		t.prevVal, t.last, t.hasLast = prev.LastValue, prev.LastValue, true
		t.seen = map[string]bool{}
		for _, k := range prev.KeysAtLastValue {
			t.seen[k] = true
			t.keySet[k] = true
			t.keys = append(t.keys, k)
		}
	}
	return t
}

func (t *tracker) filter(rec dataframe.Record) (dataframe.Record, error) {
	cols := cells.Columns(rec)
	n := int(rec.NumRows())
	var keep []int64
	dropped := false
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := 0; i < n; i++ {
		cur, ok := cellText(cols[t.cur], i)
		if !ok {
			keep = append(keep, int64(i))
			continue
		}
		key := t.keyText(cols, i)
		cmp := 1
		if t.hasLast {
			cmp = connectors.CompareValues(cur, t.last)
		}
		if t.seen != nil && connectors.CompareValues(cur, t.prevVal) == 0 && t.seen[key] {
			dropped = true
			continue
		}
		keep = append(keep, int64(i))
		switch {
		case cmp > 0:
			t.last, t.hasLast = cur, true
			t.keys, t.keySet = t.keys[:0], map[string]bool{}
			fallthrough
		case cmp == 0:
			if !t.keySet[key] {
				t.keySet[key] = true
				t.keys = append(t.keys, key)
			}
		}
	}
	if !dropped {
		return rec, nil
	}
	defer rec.Release()
	if len(keep) == 0 {
		return nil, nil
	}
	return dataframe.TakeRecord(t.mem, rec, keep)
}

func (t *tracker) keyText(cols []cells.Column, i int) string {
	if len(t.key) == 1 {
		s, _ := cellText(cols[t.key[0]], i)
		return s
	}
	parts := make([]string, len(t.key))
	for j, k := range t.key {
		parts[j], _ = cellText(cols[k], i)
	}
	return "[" + strings.Join(quoteEach(parts), ",") + "]"
}

func quoteEach(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func (t *tracker) state() *connectors.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.hasLast {
		return nil
	}
	keys := append([]string{}, t.keys...)
	return &connectors.State{Cursor: t.cursor, LastValue: t.last, KeysAtLastValue: keys, UpdatedAt: time.Now().UTC()}
}

// cellText is a value as a state stores it (connectors.ValueText's forms).
func cellText(c cells.Column, i int) (string, bool) {
	if c.IsNull(i) {
		return "", false
	}
	switch c.Kind() {
	case cells.KindInt:
		return strconv.FormatInt(c.Int(i), 10), true
	case cells.KindFloat:
		return strconv.FormatFloat(c.Float(i), 'f', -1, 64), true
	case cells.KindDecimal:
		return string(c.AppendDecimalText(nil, i)), true
	case cells.KindString:
		return string(c.Bytes(i)), true
	case cells.KindBool:
		return strconv.FormatBool(c.Bool(i)), true
	case cells.KindDate:
		return time.Unix(int64(c.Days(i))*86400, 0).UTC().Format(time.DateOnly), true
	case cells.KindTimestamp:
		return time.UnixMicro(c.Micros(i)).UTC().Format(time.RFC3339Nano), true
	}
	return string(c.AppendText(nil, i)), true
}

// deferredStream is a read whose SELECT is sent on the first Next: the
// query engine opens each table once for its schema while it plans, then
// again with the columns, filters and limit it pushes down
// (docs/sql.md#pushdown); the first stream, never read, must not start a
// scan of the whole table. Released unread, it closes the planning
// connection.
type deferredStream struct {
	refs   atomic.Int64
	ctx    context.Context
	p      *readPlan
	s      dataframe.Stream // nil until the first Next
	closed bool
}

func (p *readPlan) deferred(ctx context.Context) dataframe.Stream {
	d := &deferredStream{ctx: ctx, p: p}
	d.refs.Store(1)
	return d
}

func (d *deferredStream) Schema() *dataframe.Schema { return d.p.schema }

func (d *deferredStream) Next() bool {
	if d.closed {
		return false
	}
	if d.s == nil {
		d.s = d.p.stream(d.ctx, nil)
	}
	return d.s.Next()
}

func (d *deferredStream) Record() dataframe.Record {
	if d.s == nil {
		return nil
	}
	return d.s.Record()
}

func (d *deferredStream) Err() error {
	if d.s == nil {
		return nil
	}
	return d.s.Err()
}

func (d *deferredStream) Retain() { d.refs.Add(1) }

func (d *deferredStream) Release() {
	if d.refs.Add(-1) != 0 {
		return
	}
	d.closed = true
	if d.s != nil {
		d.s.Release()
		return
	}
	d.p.c.close()
}
