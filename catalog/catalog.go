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
	"time"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/atomicfile"
	"github.com/sluicedata/sluice/internal/suggest"
)

// Sentinel errors, wrapped with the table or name concerned.
var (
	ErrTableNotFound = errors.New("table not found")
	ErrTableExists   = errors.New("table already exists")
	ErrInvalidName   = errors.New("invalid name")
)

// DefaultNamespace is the namespace of a table named without one (`SELECT *
// FROM t`), as Spark's `default` database.
const DefaultNamespace = "default"

// Column is one column of a table: a name and a Spark type name.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Table is one catalog table, stored as <catalog>/<namespace>/<name>.json.
type Table struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Type is the connector type, the value of the svc.storage.type
	// property upper-cased (RESTAPI). Create fills it in; a Go caller may
	// set it instead of the property, which Create then adds.
	Type     string   `json:"type"`
	External bool     `json:"external"`
	Columns  []Column `json:"columns"`
	Location string   `json:"location"`
	// Properties are the table properties, keys exactly as written.
	Properties map[string]string `json:"properties"`
	CreatedAt  time.Time         `json:"createdAt"`
	// StateStore names the catalog table whose database keeps this
	// incremental table's state (docs/jdbc.md#exactly-once); empty when
	// the state is a file beside the table.
	StateStore string `json:"stateStore,omitempty"`
}

// FullName is `namespace.name`.
func (t *Table) FullName() string { return t.Namespace + "." + t.Name }

// Fields are the columns as connector field descriptors (all nullable).
func (t *Table) Fields() []connectors.Field {
	out := make([]connectors.Field, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = connectors.Field{Name: c.Name, Type: c.Type, Nullable: true}
	}
	return out
}

// DefaultFielder may be implemented by a connector whose tables have fixed
// columns: a CREATE without a column list stores these. The RESTAPI
// connector's tables default to `payload string` (docs/catalog.md); when the
// registered connector does not implement this interface, the catalog
// applies that default itself for type RESTAPI.
type DefaultFielder interface {
	DefaultFields() []connectors.Field
}

// Catalog is a directory of table files. It is safe for concurrent use, also
// by several processes: creation is exclusive and every write is atomic.
type Catalog struct {
	dir string
}

// Open returns the catalog stored in dir. The directory is created on the
// first CREATE, so opening a catalog to read USER-mode datasets leaves no
// trace.
func Open(dir string) (*Catalog, error) {
	if dir == "" {
		return nil, errors.New("catalog: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", dir, err)
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("catalog %s: not a directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("catalog %s: %w", dir, err)
	}
	return &Catalog{dir: abs}, nil
}

// Dir is the catalog's absolute directory.
func (c *Catalog) Dir() string { return c.dir }

// ResolveDir picks the catalog directory as docs/catalog.md says: the flag
// value, else $SLUICE_CATALOG, else .sluice/catalog under the working
// directory wd. getenv may be nil.
func ResolveDir(flagValue string, getenv func(string) string, wd string) string {
	if flagValue != "" {
		return flagValue
	}
	if getenv != nil {
		if v := getenv("SLUICE_CATALOG"); v != "" {
			return v
		}
	}
	return filepath.Join(wd, ".sluice", "catalog")
}

// ValidName reports whether s is an identifier [A-Za-z_][A-Za-z0-9_]*.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// normName checks an identifier and folds it to lower case; what says what
// it names ("namespace", "table").
func normName(what, s string) (string, error) {
	if !ValidName(s) {
		return "", fmt.Errorf("%w: %s %q (want letters, digits and _, not starting with a digit)", ErrInvalidName, what, s)
	}
	return strings.ToLower(s), nil
}

// SplitName splits `ns.t` (or `t`, in the default namespace) into checked,
// lower-cased parts.
func SplitName(name string) (ns, table string, err error) {
	ns, table, ok := strings.Cut(name, ".")
	if !ok {
		ns, table = DefaultNamespace, name
	}
	if !ValidName(ns) || !ValidName(table) {
		return "", "", fmt.Errorf("%w: %q (want ns.table, each part letters, digits and _, not starting with a digit)", ErrInvalidName, name)
	}
	return strings.ToLower(ns), strings.ToLower(table), nil
}

func (c *Catalog) path(ns, table string) string {
	return filepath.Join(c.dir, ns, table+".json")
}

// Create stores a new table. Namespace and name are checked and folded to
// lower case; the svc.storage.type property is required and names a
// registered connector, whose Validator (if any) checks the columns and
// properties. Column types are checked and written in Spark's canonical
// spelling. A table that exists is ErrTableExists, unless ifNotExists, when
// Create does nothing. Of several concurrent creations of one table exactly
// one succeeds. CreatedAt is set when zero.
func (c *Catalog) Create(ctx context.Context, t Table, ifNotExists bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var err error
	if t.Namespace, err = normName("namespace", t.Namespace); err != nil {
		return err
	}
	if t.Name, err = normName("table", t.Name); err != nil {
		return err
	}
	full := t.FullName()
	if err := prepare(&t); err != nil {
		return fmt.Errorf("creating %s: %w", full, err)
	}
	// Table files are for people too: keep & < > in URLs readable.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&t); err != nil {
		return fmt.Errorf("creating %s: %w", full, err)
	}
	data := buf.Bytes()
	err = writeExclusive(filepath.Join(c.dir, t.Namespace), t.Name+".json", data, tableFileMode(t.Properties))
	if errors.Is(err, fs.ErrExist) {
		if ifNotExists {
			return nil
		}
		return fmt.Errorf("creating %s: %w", full, ErrTableExists)
	}
	if err != nil {
		return fmt.Errorf("creating %s: %w", full, err)
	}
	return nil
}

// prepare checks a table definition and fills in its defaults.
func prepare(t *Table) error {
	if t.Properties == nil {
		t.Properties = map[string]string{}
	}
	for k := range t.Properties {
		if k == "" {
			return errors.New("empty property key")
		}
	}
	typ := strings.TrimSpace(t.Properties[connectors.TypeProperty])
	if typ == "" && strings.TrimSpace(t.Type) != "" {
		// Go callers may name the type in the field; the file keeps both.
		typ = strings.TrimSpace(t.Type)
		t.Properties[connectors.TypeProperty] = typ
	}
	if typ == "" {
		return fmt.Errorf("table property %s is required: it names the connector (RESTAPI, PARQUET, NOTIFICATIONS, …)", connectors.TypeProperty)
	}
	conn, err := connectors.Lookup(typ)
	if err != nil {
		return fmt.Errorf("property %s: %w", connectors.TypeProperty, err)
	}
	t.Type = strings.ToUpper(typ)
	seen := map[string]bool{}
	for i, col := range t.Columns {
		if strings.TrimSpace(col.Name) == "" {
			return fmt.Errorf("column %d has no name", i+1)
		}
		if seen[strings.ToLower(col.Name)] {
			return fmt.Errorf("column %s is defined twice", col.Name)
		}
		seen[strings.ToLower(col.Name)] = true
		dt, err := sparktype.ParseType(col.Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		t.Columns[i].Type = sparktype.Name(dt)
	}
	if len(t.Columns) == 0 {
		for _, f := range defaultFields(conn, t.Type) {
			t.Columns = append(t.Columns, Column{Name: f.Name, Type: f.Type})
		}
	}
	if t.Columns == nil {
		t.Columns = []Column{}
	}
	if v, ok := conn.(connectors.Validator); ok {
		if err := v.Validate(t.Fields(), withLocation(t.Type, t.Location, t.Properties)); err != nil {
			return connectors.NewRedactor(t.Properties).Error(err)
		}
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = time.Now().UTC().Truncate(time.Millisecond)
	}
	return nil
}

// withLocation returns props with a PARQUET table's LOCATION as its
// svc.parquet.path when no property sets it, as a Spark user expects of
// LOCATION. The table file keeps what the user wrote.
func withLocation(typ, location string, props map[string]string) connectors.Props {
	p := connectors.Props(props)
	if location != "" && strings.EqualFold(typ, "PARQUET") && p["svc.parquet.path"] == "" {
		p = p.Clone()
		p["svc.parquet.path"] = location
	}
	return p
}

func defaultFields(conn connectors.Connector, typ string) []connectors.Field {
	if d, ok := conn.(DefaultFielder); ok {
		return d.DefaultFields()
	}
	if typ == "RESTAPI" {
		return []connectors.Field{{Name: "payload", Type: "string", Nullable: true}}
	}
	return nil
}

// writeExclusive writes dir/name atomically and only if it does not exist
// (exactly one of several concurrent creators wins; readers never see a
// partial file); the error wraps fs.ErrExist when the name is taken.
func writeExclusive(dir, name string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.CreateExclusivePerm(filepath.Join(dir, name), data, perm)
}

// tableFileMode is the permissions of a table file with props: readable by
// its owner only (0600) when it holds the literal value of a secret — a
// secret property's, or one inside a URL (key=…, a password) — as a
// reference (${env:…}, ${file:…}) is not a secret. Every write of a table
// file takes its mode from here (docs/catalog.md#secret-references).
func tableFileMode(props map[string]string) fs.FileMode {
	red := connectors.NewRedactor(props)
	for _, v := range props {
		if red.String(v) != v {
			return 0o600
		}
	}
	return 0o644
}

// Get returns the table ns.name (case-insensitive).
func (c *Catalog) Get(ctx context.Context, ns, name string) (*Table, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, err := normName("namespace", ns)
	if err != nil {
		return nil, err
	}
	t, err := normName("table", name)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(c.path(n, t))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s.%s%s", ErrTableNotFound, n, t, c.suggestTable(n+"."+t))
	}
	if err != nil {
		return nil, fmt.Errorf("reading table %s.%s: %w", n, t, err)
	}
	var tbl Table
	if err := json.Unmarshal(data, &tbl); err != nil {
		return nil, fmt.Errorf("table file %s is corrupt: %w", c.path(n, t), err)
	}
	if tbl.Properties == nil {
		tbl.Properties = map[string]string{}
	}
	// The file's location decides the name, not its content.
	tbl.Namespace, tbl.Name = n, t
	return &tbl, nil
}

// Drop removes the table ns.name. A missing table is ErrTableNotFound,
// unless ifExists.
func (c *Catalog) Drop(ctx context.Context, ns, name string, ifExists bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := normName("namespace", ns)
	if err != nil {
		return err
	}
	t, err := normName("table", name)
	if err != nil {
		return err
	}
	err = os.Remove(c.path(n, t))
	if errors.Is(err, fs.ErrNotExist) {
		if ifExists {
			return nil
		}
		return fmt.Errorf("dropping %s.%s: %w%s", n, t, ErrTableNotFound, c.suggestTable(n+"."+t))
	}
	if err != nil {
		return fmt.Errorf("dropping %s.%s: %w", n, t, err)
	}
	// A table created again under the name starts without state.
	if err := os.Remove(c.statePath(n, t)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("dropping the state of %s.%s: %w", n, t, err)
	}
	return atomicfile.SyncDir(filepath.Join(c.dir, n))
}

// suggestTable is the did-you-mean tail for a missing table "ns.t": the
// closest existing table name, read from file names alone.
func (c *Catalog) suggestTable(full string) string {
	spaces, err := os.ReadDir(c.dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, sp := range spaces {
		if !sp.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(c.dir, sp.Name()))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() && ValidName(name) {
				names = append(names, sp.Name()+"."+name)
			}
		}
	}
	return suggest.Phrase(full, names)
}

// List returns the tables of namespace ns, sorted by name; ns "" lists every
// namespace. An unknown namespace has no tables.
func (c *Catalog) List(ctx context.Context, ns string) ([]*Table, error) {
	var spaces []string
	if ns == "" {
		var err error
		if spaces, err = c.Namespaces(ctx); err != nil {
			return nil, err
		}
	} else {
		n, err := normName("namespace", ns)
		if err != nil {
			return nil, err
		}
		spaces = []string{n}
	}
	var out []*Table
	for _, n := range spaces {
		entries, err := os.ReadDir(filepath.Join(c.dir, n))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing namespace %s: %w", n, err)
		}
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || e.IsDir() || !ValidName(name) || name != strings.ToLower(name) {
				continue // temporary files and strangers
			}
			t, err := c.Get(ctx, n, name)
			if errors.Is(err, ErrTableNotFound) {
				continue // dropped meanwhile
			}
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Namespaces returns the namespaces, sorted. A namespace exists once a
// table was created in it, and stays after its last table is dropped, as a
// Spark database does.
func (c *Catalog) Namespaces(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && ValidName(e.Name()) && e.Name() == strings.ToLower(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}
