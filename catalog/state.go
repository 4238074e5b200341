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

	mu      sync.Mutex
	pending map[string]pendingState
}

type pendingState struct {
	cat       *Catalog
	ns, table string
	st        *connectors.State
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

func (d *Delivery) add(cat *Catalog, ns, table string, st *connectors.State) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pending == nil {
		d.pending = map[string]pendingState{}
	}
	d.pending[ns+"."+table] = pendingState{cat: cat, ns: ns, table: table, st: st}
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
		if err := p.cat.SaveState(context.WithoutCancel(ctx), p.ns, p.table, p.st); err != nil {
			return err
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
	var prev *connectors.State
	if r.table != "" && (d == nil || !d.FullRefresh) {
		var err error
		if prev, err = s.cat.State(ctx, r.ns, r.table); err != nil {
			return nil, err
		}
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
		d.add(s.cat, r.ns, r.table, next)
	}
	return f, nil
}
