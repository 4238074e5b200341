package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/atomicfile"
)

// stateSuffix ends a table's incremental state file,
// <catalog>/<ns>/<table>.state.json (see docs/incremental.md#state-files).
const stateSuffix = ".state.json"

func (c *Catalog) statePath(ns, table string) string {
	return filepath.Join(c.dir, ns, table+stateSuffix)
}

// StatePath is the state file of table ns.name.
func (c *Catalog) StatePath(ns, name string) (string, error) {
	n, t, err := normPair(ns, name)
	if err != nil {
		return "", err
	}
	return c.statePath(n, t), nil
}

func normPair(ns, name string) (string, string, error) {
	n, err := normName("namespace", ns)
	if err != nil {
		return "", "", err
	}
	t, err := normName("table", name)
	if err != nil {
		return "", "", err
	}
	return n, t, nil
}

// State returns the incremental state of table ns.name, nil when it has
// none.
func (c *Catalog) State(ctx context.Context, ns, name string) (*connectors.State, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := c.StatePath(ns, name)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the state of %s.%s: %w", ns, name, err)
	}
	st, err := parseState(data)
	if err != nil {
		return nil, damagedState(err, path, ns, name)
	}
	return st, nil
}

// parseState reads a state file's content. Anything but an object with a
// cursor and a last value — null, an array, {}, … — is damaged
// (connectors.ErrDamagedState): a read must never start over from
// incremental.initial silently.
func parseState(data []byte) (*connectors.State, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		if !json.Valid(data) {
			return nil, fmt.Errorf("%w: it is not JSON: %w", connectors.ErrDamagedState, err)
		}
		return nil, fmt.Errorf("%w: it holds %s, not an object", connectors.ErrDamagedState, jsonKind(data))
	}
	if fields == nil {
		return nil, fmt.Errorf("%w: it holds null, not an object", connectors.ErrDamagedState)
	}
	var st connectors.State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%w: %w", connectors.ErrDamagedState, err)
	}
	var missing []string
	if st.Cursor == "" {
		missing = append(missing, "cursor")
	}
	if st.LastValue == "" {
		missing = append(missing, "last_value")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: it has no %s", connectors.ErrDamagedState, strings.Join(missing, " and no "))
	}
	return &st, nil
}

// jsonKind names the kind of a JSON value for a message.
func jsonKind(data []byte) string {
	switch b := bytes.TrimSpace(data); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '[':
		return "an array"
	case b[0] == '"':
		return "a string"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// damagedState names the state file and how to start over.
func damagedState(err error, path, ns, name string) error {
	return fmt.Errorf("state file %s: %w (run sluice state reset %s.%s to start over, or --full-refresh to ignore it for one run)", path, err, ns, name)
}

// SaveState replaces the state of table ns.name atomically.
func (c *Catalog) SaveState(ctx context.Context, ns, name string, st *connectors.State) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	path, err := c.StatePath(ns, name)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(st); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(path, buf.Bytes()); err != nil {
		return fmt.Errorf("saving the state of %s.%s: %w", ns, name, err)
	}
	return nil
}

// ResetState deletes the state of table ns.name; it reports whether there
// was one.
func (c *Catalog) ResetState(ctx context.Context, ns, name string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	path, err := c.StatePath(ns, name)
	if err != nil {
		return false, err
	}
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("resetting the state of %s.%s: %w", ns, name, err)
	}
	return true, atomicfile.SyncDir(filepath.Dir(path))
}

// Delivery collects the incremental states of the reads made under it
// (WithDelivery). They are stored only by Commit, which the caller runs
// once the rows are delivered: a file in place, an INSERT written, a
// pipeline's last write done. Reads without a Delivery never move a state.
type Delivery struct {
	// FullRefresh reads as if no state were stored; Commit then stores the
	// new one.
	FullRefresh bool
	// OneWrite says that one write delivers the rows: when its target keeps
	// states (a JDBC table), the states are committed in that write's
	// transaction instead of files (docs/jdbc.md#exactly-once).
	OneWrite bool

	mu      sync.Mutex
	pending map[string]pendingState
}

type pendingState struct {
	s         *Session // the session that read it
	cat       *Catalog
	ns, table string
	st        *connectors.State
	// lazy gives the state of a streamed read, known once it has ended.
	lazy func() *connectors.State
	// from is what the read started from: a write to the store it was
	// read from checks that the store still holds it.
	from stateOrigin
	// carried: a write committed the state with its rows.
	carried bool
}

func (p pendingState) state() *connectors.State {
	if p.lazy != nil {
		return p.lazy()
	}
	return p.st
}

type deliveryKey struct{}

// WithDelivery returns ctx carrying d.
func WithDelivery(ctx context.Context, d *Delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

func deliveryFrom(ctx context.Context) *Delivery {
	d, _ := ctx.Value(deliveryKey{}).(*Delivery)
	return d
}

func (d *Delivery) add(s *Session, ns, table string, st *connectors.State, from stateOrigin) {
	d.put(pendingState{s: s, cat: s.cat, ns: ns, table: table, st: st, from: from})
}

func (d *Delivery) put(p pendingState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending == nil {
		d.pending = map[string]pendingState{}
	}
	d.pending[p.ns+"."+p.table] = p
}

// Tables are the tables whose state waits for Commit, sorted.
func (d *Delivery) Tables() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sortedLocked()
}

func (d *Delivery) sortedLocked() []string {
	out := make([]string, 0, len(d.pending))
	for k := range d.pending {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Commit stores every pending state and forgets them. The rows are
// delivered by then: a cancelled ctx does not stop it.
func (d *Delivery) Commit(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, k := range d.sortedLocked() {
		p := d.pending[k]
		if st := p.state(); st != nil && !p.carried {
			if err := p.cat.SaveState(context.WithoutCancel(ctx), p.ns, p.table, st); err != nil {
				return err
			}
			if err := p.unstore(ctx); err != nil {
				return err
			}
		}
		delete(d.pending, k)
	}
	return nil
}

// readIncremental reads a dataset whose connector reads incrementally: the
// catalog table's state goes in (unless a full refresh), the next state
// waits in ctx's Delivery. USER-mode datasets have no state file: every
// read is a first run.
func (s *Session) readIncremental(ctx context.Context, r *resolved, ir connectors.IncrementalReader) (*dataframe.Frame, error) {
	d := deliveryFrom(ctx)
	prev, from, err := s.prevState(ctx, r, d)
	if err != nil {
		return nil, err
	}
	f, next, err := ir.ReadIncremental(ctx, r.ds, prev)
	if err != nil {
		if errors.Is(err, connectors.ErrDamagedState) && r.table != "" {
			// Another cursor's state: the connector found it out.
			return nil, fmt.Errorf("%w; state file %s (run sluice state reset %s.%s to start over, or --full-refresh to ignore it for one run)", err, s.cat.statePath(r.ns, r.table), r.ns, r.table)
		}
		return nil, err
	}
	if d != nil && next != nil && r.table != "" {
		d.add(s, r.ns, r.table, next, from)
	}
	return f, nil
}

// setStateStore records in the table file of ns.table that its state is
// kept by the catalog table target ("" drops the record). The file is
// replaced atomically with its mode kept (a file holding secrets stays
// 0600) and every field it has kept as written.
func (c *Catalog) setStateStore(ns, table, target string) error {
	n, t, err := normPair(ns, table)
	if err != nil {
		return err
	}
	path := c.path(n, t)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("recording where the state of %s.%s is kept: %w", n, t, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("table file %s is corrupt: %w", path, err)
	}
	var cur string
	_ = json.Unmarshal(doc["stateStore"], &cur)
	if cur == target {
		return nil
	}
	if target == "" {
		delete(doc, "stateStore")
	} else {
		doc["stateStore"], _ = json.Marshal(target)
	}
	// Keep the field order of Create's encoding: re-encode through Table,
	// then add back any field Table does not know.
	var tbl Table
	if err := json.Unmarshal(data, &tbl); err != nil {
		return fmt.Errorf("table file %s is corrupt: %w", path, err)
	}
	tbl.StateStore = target
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&tbl); err != nil {
		return err
	}
	out := buf.Bytes()
	var known map[string]json.RawMessage
	_ = json.Unmarshal(out, &known)
	for k := range doc {
		if _, ok := known[k]; !ok {
			// A field of a newer Sluice: keep the file as it was plus ours.
			out, _ = json.MarshalIndent(doc, "", "  ")
			out = append(out, '\n')
			break
		}
	}
	st, err := atomicfile.StageAt(path, func(tmp string) error {
		return os.WriteFile(tmp, out, fi.Mode().Perm())
	})
	if err != nil {
		return err
	}
	return st.Commit()
}

// loadState is the stored state of catalog table ns.table: from the
// database of the table its entry names as its state store, else (or when
// that database keeps none yet) from the state file.
func (s *Session) loadState(ctx context.Context, ns, table string) (*connectors.State, stateOrigin, error) {
	tbl, err := s.cat.Get(ctx, ns, table)
	if err != nil {
		return nil, stateOrigin{}, err
	}
	var from stateOrigin
	if tbl.StateStore != "" {
		st, err := s.storedState(ctx, tbl.StateStore, tbl.FullName())
		if err != nil || st != nil {
			return st, stateOrigin{store: tbl.StateStore, stored: st}, err
		}
		from.store = tbl.StateStore // it holds none yet
	}
	st, err := s.cat.State(ctx, ns, table)
	return st, from, err
}

// stateOrigin is where a read's previous state was looked up: the catalog
// table whose database keeps the source's state ("" for none) and what it
// held (nil: nothing yet, the state file was read).
type stateOrigin struct {
	store  string
	stored *connectors.State
}

// storedState reads the state of source from the state store of the
// catalog table target.
func (s *Session) storedState(ctx context.Context, target, source string) (*connectors.State, error) {
	r, err := s.resolve(ctx, target, nil)
	if err != nil {
		return nil, fmt.Errorf("the state of %s is kept by %s: %w", source, target, err)
	}
	store, ok := r.conn.(connectors.StateStore)
	if !ok {
		return nil, fmt.Errorf("the state of %s is kept by %s, whose connector %s keeps no states", source, target, r.typ)
	}
	st, err := store.LoadState(ctx, r.ds, source)
	if err != nil {
		return nil, fmt.Errorf("reading the state of %s kept by %s: %w", source, target, r.red.Error(err))
	}
	return st, nil
}

// State is the incremental state of the catalog table name (nil: none)
// and where it is kept: the state file's path, or the catalog table whose
// database keeps it (see docs/incremental.md#state-commands).
func (s *Session) State(ctx context.Context, name string) (*connectors.State, string, error) {
	ns, table, err := SplitName(name)
	if err != nil {
		return nil, "", err
	}
	tbl, err := s.cat.Get(ctx, ns, table)
	if err != nil {
		return nil, "", err
	}
	if tbl.StateStore != "" {
		st, err := s.storedState(ctx, tbl.StateStore, tbl.FullName())
		if err != nil || st != nil {
			return st, tbl.StateStore, err
		}
	}
	path, _ := s.cat.StatePath(tbl.Namespace, tbl.Name)
	st, err := s.cat.State(ctx, tbl.Namespace, tbl.Name)
	return st, path, err
}

// ResetState deletes the incremental state of the catalog table name,
// wherever it is kept; it reports whether there was one.
func (s *Session) ResetState(ctx context.Context, name string) (bool, error) {
	ns, table, err := SplitName(name)
	if err != nil {
		return false, err
	}
	tbl, err := s.cat.Get(ctx, ns, table)
	if err != nil {
		return false, err
	}
	had := false
	if tbl.StateStore != "" {
		r, err := s.resolve(ctx, tbl.StateStore, nil)
		if err != nil {
			return false, fmt.Errorf("the state of %s is kept by %s: %w", tbl.FullName(), tbl.StateStore, err)
		}
		if store, ok := r.conn.(connectors.StateStore); ok {
			if had, err = store.ResetState(ctx, r.ds, tbl.FullName()); err != nil {
				return false, fmt.Errorf("resetting the state of %s kept by %s: %w", tbl.FullName(), tbl.StateStore, r.red.Error(err))
			}
		}
		if err := s.cat.setStateStore(tbl.Namespace, tbl.Name, ""); err != nil {
			return false, err
		}
	}
	hadFile, err := s.cat.ResetState(ctx, tbl.Namespace, tbl.Name)
	return had || hadFile, err
}

// statesFor is Dataset.States of a write to the catalog table target that
// keeps states (a connectors.StateStore): called right before the write
// commits, it records in each source's entry that target keeps its state —
// first, so that a crash after the commit finds it there — and hands the
// states over. nil when the write cannot carry them: d is nil, a full
// refresh reads nothing stored, or more than one write delivers d's rows.
func (d *Delivery) statesFor(s *Session, target string) func() ([]connectors.SourceState, error) {
	if d == nil || !d.OneWrite {
		return nil
	}
	d.mu.Lock()
	n := len(d.pending)
	d.mu.Unlock()
	if n == 0 {
		return nil
	}
	return func() ([]connectors.SourceState, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		var out []connectors.SourceState
		for _, k := range d.sortedLocked() {
			p := d.pending[k]
			st := p.state()
			if st == nil {
				continue
			}
			if p.cat != s.cat {
				continue // a source of another catalog keeps its file
			}
			if err := p.cat.setStateStore(p.ns, p.table, target); err != nil {
				return nil, err
			}
			ss := connectors.SourceState{Source: k, State: st}
			if p.from.store != "" && strings.EqualFold(p.from.store, target) {
				ss.Check, ss.Expect = true, p.from.stored
			}
			out = append(out, ss)
			p.carried = true
			d.pending[k] = p
		}
		return out, nil
	}
}

// delivered forgets the states a write committed with its rows, and
// removes their state files, which they replace.
func (d *Delivery) delivered(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, p := range d.pending {
		if p.carried {
			_, _ = p.cat.ResetState(context.WithoutCancel(ctx), p.ns, p.table)
			delete(d.pending, k)
		}
	}
}

// prevState is the state an incremental read of r starts from: none for a
// USER-mode dataset or a full refresh.
func (s *Session) prevState(ctx context.Context, r *resolved, d *Delivery) (*connectors.State, stateOrigin, error) {
	if r.table == "" || (d != nil && d.FullRefresh) {
		return nil, stateOrigin{}, nil
	}
	return s.loadState(ctx, r.ns, r.table)
}

// readIncrementalStream streams an incremental read whose connector
// streams (a JDBC cursor); its state waits in ctx's Delivery and is known
// once the stream has ended.
func (s *Session) readIncrementalStream(ctx context.Context, r *resolved, ir connectors.IncrementalStreamReader) (dataframe.Stream, error) {
	d := deliveryFrom(ctx)
	prev, from, err := s.prevState(ctx, r, d)
	if err != nil {
		return nil, err
	}
	st, state, err := ir.ReadIncrementalStream(ctx, r.ds, prev)
	if err != nil {
		return nil, err
	}
	if d != nil && r.table != "" {
		d.put(pendingState{s: s, cat: s.cat, ns: r.ns, table: r.table, lazy: state, from: from})
	}
	return st, nil
}

// TableType is the connector type of the catalog table name (JDBC,
// PARQUET…): a pipeline's write step maps its mode and key to the
// connector's properties with it.
func (s *Session) TableType(ctx context.Context, name string) (string, error) {
	if s.cat == nil {
		return "", errors.New("the session has no catalog")
	}
	ns, t, err := SplitName(name)
	if err != nil {
		return "", err
	}
	tbl, err := s.cat.Get(ctx, ns, t)
	if err != nil {
		return "", err
	}
	return tbl.Type, nil
}

// unstore moves a state kept by a database back to its file: the row in
// the database goes (a later load into that database must not start from
// it), then the entry's record of it.
func (p pendingState) unstore(ctx context.Context) error {
	tbl, err := p.cat.Get(context.WithoutCancel(ctx), p.ns, p.table)
	if err != nil || tbl.StateStore == "" {
		return err
	}
	if p.s != nil {
		r, err := p.s.resolve(context.WithoutCancel(ctx), tbl.StateStore, nil)
		if err != nil {
			return fmt.Errorf("the state of %s was kept by %s: %w", tbl.FullName(), tbl.StateStore, err)
		}
		if store, ok := r.conn.(connectors.StateStore); ok {
			if _, err := store.ResetState(context.WithoutCancel(ctx), r.ds, tbl.FullName()); err != nil {
				return fmt.Errorf("moving the state of %s out of %s: %w", tbl.FullName(), tbl.StateStore, r.red.Error(err))
			}
		}
	}
	return p.cat.setStateStore(p.ns, p.table, "")
}
