package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query"
	"github.com/sluicedata/sluice/internal/propref"
)

// Setting keys the session itself interprets.
const (
	// ProviderKey picks where a dataset's properties come from: HIVE (the
	// catalog table) or USER (the `<name>.dataSetProperties` entry).
	ProviderKey = "svc.catalog.provider"
	// LoggingKey set to CONSOLE logs each connector request to the
	// session's log output (stderr by default), secrets redacted.
	LoggingKey = "svc.logging.level"
	// DataSetPropertiesSuffix is appended to a dataset's name to form the
	// key of its USER-mode DataSetProperties entry, as in Gimel.
	DataSetPropertiesSuffix = ".dataSetProperties"
)

// Providers.
const (
	ProviderHive = "HIVE"
	ProviderUser = "USER"
)

// ErrProvider is returned (wrapped) for an svc.catalog.provider value other
// than HIVE or USER, and for a USER-mode read without its entry.
var ErrProvider = errors.New("catalog provider")

// Session holds settings and reads and writes datasets through the catalog
// and the connector registry. It is safe for concurrent use.
//
// Property precedence for a read or write, highest first: a session setting
// (SET / --set / Set) with an `svc.` key, a runtime property (the props
// passed to Read/Write, stringified), the table property (HIVE) or the
// DataSetProperties entry's property (USER), then the connector's default.
// The keys svc.catalog.*, svc.logging.* and svc.storage.type are the
// session's own and are never overridden: a table's connector type is part
// of what the table is.
type Session struct {
	cat *Catalog
	mem dataframe.Allocator // nil: each connector's default

	mu       sync.RWMutex
	settings map[string]string
	views    map[string]*view // temporary views by lower-case name (views.go)

	logMu sync.Mutex
	logW  io.Writer
}

// NewSession opens a session on cat. cat may be nil for a session that only
// reads and writes datasets described in Go (ReadDataset, USER mode).
func NewSession(cat *Catalog, opts ...SessionOption) *Session {
	s := &Session{cat: cat, settings: map[string]string{}, logW: os.Stderr}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Catalog is the session's catalog (nil if it has none).
func (s *Session) Catalog() *Catalog { return s.cat }

// SetLogOutput sends CONSOLE logging to w instead of stderr.
func (s *Session) SetLogOutput(w io.Writer) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.logW = w
}

// Set stores a setting. Any value is accepted, but for the session time
// zone (query.TimeZoneSetting), which must name one; an invalid provider
// fails the next read or write. Keys are case-sensitive.
func (s *Session) Set(key, value string) error {
	if strings.TrimSpace(key) == "" {
		return errors.New("setting key is empty")
	}
	if key == query.TimeZoneSetting {
		if _, err := query.ParseTimeZone(value); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings[key] = value
	return nil
}

// Get returns a setting and whether it is set.
func (s *Session) Get(key string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.settings[key]
	return v, ok
}

// Unset removes one setting.
func (s *Session) Unset(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.settings, key)
}

// Settings returns a copy of every setting (values not redacted).
func (s *Session) Settings() map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := make(map[string]string, len(s.settings))
	for k, v := range s.settings {
		c[k] = v
	}
	return c
}

// Reset removes every setting.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settings = map[string]string{}
}

// Read reads the dataset name into a frame. props are runtime properties;
// the entry `<name>.dataSetProperties` (a connectors.DataSetProperties, a
// pointer to one, or its JSON) describes the dataset in USER mode.
func (s *Session) Read(ctx context.Context, name string, props map[string]any) (f *dataframe.Frame, err error) {
	r, err := s.resolve(ctx, name, props)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("reading %s: %s connector panicked: %s", r.ds.Name, r.typ, r.red.String(fmt.Sprint(p)))
		}
	}()
	if st, ok, err := s.readOnce(ctx, r, props); ok {
		if err != nil {
			return nil, doing("reading", r.ds.Name, r.red.Error(err))
		}
		defer st.Release()
		if f, err = dataframe.Collect(st); err != nil {
			return nil, doing("reading", r.ds.Name, r.red.Error(err))
		}
		return f, nil
	}
	f, err = s.readResolved(ctx, r)
	if err != nil {
		return nil, doing("reading", r.ds.Name, r.red.Error(err))
	}
	return f, nil
}

// ReadStream reads the dataset name as a stream of record batches (see
// Read for props). A connector that streams (connectors.StreamReader) is
// read batch by batch, so memory does not grow with the rows; the others —
// and incremental and fan-out reads, which need every row — are read whole
// and streamed from memory (docs/frames.md#streams). The caller releases
// the stream.
func (s *Session) ReadStream(ctx context.Context, name string, props map[string]any) (st dataframe.Stream, err error) {
	r, err := s.resolve(ctx, name, props)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, fmt.Errorf("reading %s: %s connector panicked: %s", r.ds.Name, r.typ, r.red.String(fmt.Sprint(p)))
		}
	}()
	if once, ok, oerr := s.readOnce(ctx, r, props); ok {
		st, err = once, oerr
	} else if ir, ok := s.streamsIncremental(r); ok {
		st, err = s.readIncrementalStream(ctx, r, ir)
	} else if sr, ok := r.conn.(connectors.StreamReader); ok && !s.needsWholeRead(r) {
		st, err = sr.ReadStream(ctx, r.ds)
	} else {
		var f *dataframe.Frame
		if f, err = s.readResolved(ctx, r); err == nil {
			st = f.Stream()
			f.Release()
		}
	}
	if err != nil {
		return nil, doing("reading", r.ds.Name, r.red.Error(err))
	}
	return st, nil
}

// needsWholeRead reports whether r is an incremental or fan-out read, which
// readResolved runs on the whole frame.
func (s *Session) needsWholeRead(r *resolved) bool {
	if fr, ok := r.conn.(connectors.FanoutReader); ok {
		if _, _, ok := fr.FanoutFrom(r.ds.Props); ok {
			return true
		}
	}
	if _, ok := s.streamsIncremental(r); ok {
		return false
	}
	ir, ok := r.conn.(connectors.IncrementalReader)
	return ok && ir.Incremental(r.ds.Props)
}

// readResolved runs the connector's read: incremental when the connector
// and the properties say so (see docs/incremental.md).
func (s *Session) readResolved(ctx context.Context, r *resolved) (*dataframe.Frame, error) {
	if fr, ok := r.conn.(connectors.FanoutReader); ok {
		if prop, from, ok := fr.FanoutFrom(r.ds.Props); ok {
			return s.readFanout(ctx, r, fr, prop, from)
		}
	}
	if ir, ok := r.conn.(connectors.IncrementalReader); ok && ir.Incremental(r.ds.Props) {
		return s.readIncremental(ctx, r, ir)
	}
	return r.conn.Read(ctx, r.ds)
}

// Write writes f to the dataset name (see Read for props). The result
// reports the rows written even when the write fails part-way.
func (s *Session) Write(ctx context.Context, name string, f *dataframe.Frame, props map[string]any) (res connectors.WriteResult, err error) {
	return s.write(ctx, name, f, props, false)
}

// write is Write; overwrite replaces the target's rows whatever its mode
// (SQL's INSERT OVERWRITE).
func (s *Session) write(ctx context.Context, name string, f *dataframe.Frame, props map[string]any, overwrite bool) (res connectors.WriteResult, err error) {
	r, err := s.resolve(ctx, name, props)
	if err != nil {
		return connectors.WriteResult{}, fmt.Errorf("writing %s: %w", name, err)
	}
	w, ok := r.conn.(connectors.Writer)
	if !ok {
		return connectors.WriteResult{}, fmt.Errorf("writing %s: %s: %w", r.ds.Name, r.typ, connectors.ErrNotWritable)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("writing %s: %s connector panicked: %s", r.ds.Name, r.typ, r.red.String(fmt.Sprint(p)))
		}
	}()
	done := s.carryStates(ctx, r)
	r.ds.Overwrite = overwrite
	res, err = w.Write(ctx, r.ds, f)
	if err != nil {
		return res, doing("writing", r.ds.Name, r.red.Error(err))
	}
	done()
	return res, nil
}

// WriteStream writes the stream st to the dataset name (see Read for
// props). A connector that writes streams (connectors.StreamWriter) takes
// it batch by batch; for the others st is collected into a frame first.
// The caller still releases st.
func (s *Session) WriteStream(ctx context.Context, name string, st dataframe.Stream, props map[string]any) (res connectors.WriteResult, err error) {
	r, err := s.resolve(ctx, name, props)
	if err != nil {
		return connectors.WriteResult{}, fmt.Errorf("writing %s: %w", name, err)
	}
	sw, streams := r.conn.(connectors.StreamWriter)
	w, writes := r.conn.(connectors.Writer)
	if !streams && !writes {
		return connectors.WriteResult{}, fmt.Errorf("writing %s: %s: %w", r.ds.Name, r.typ, connectors.ErrNotWritable)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("writing %s: %s connector panicked: %s", r.ds.Name, r.typ, r.red.String(fmt.Sprint(p)))
		}
	}()
	done := s.carryStates(ctx, r)
	if streams {
		res, err = sw.WriteStream(ctx, r.ds, st)
	} else {
		var f *dataframe.Frame
		if f, err = dataframe.Collect(st); err == nil {
			res, err = w.Write(ctx, r.ds, f)
			f.Release()
		}
	}
	if err != nil {
		return res, doing("writing", r.ds.Name, r.red.Error(err))
	}
	done()
	return res, nil
}

// carryStates hands a write to a catalog table whose connector keeps
// states (connectors.StateStore) the states of the incremental reads it
// delivers, to commit with its rows (docs/jdbc.md#exactly-once); done,
// called once the write succeeded, forgets them. Writes that cannot carry
// them leave them to Delivery.Commit's state files.
func (s *Session) carryStates(ctx context.Context, r *resolved) (done func()) {
	d := deliveryFrom(ctx)
	if _, ok := r.conn.(connectors.StateStore); !ok || r.table == "" || d == nil {
		return func() {}
	}
	r.ds.States = d.statesFor(s, r.ds.Name)
	return func() { d.delivered(ctx) }
}

// streamsIncremental reports whether r is an incremental read its
// connector streams.
func (s *Session) streamsIncremental(r *resolved) (connectors.IncrementalStreamReader, bool) {
	ir, ok := r.conn.(connectors.IncrementalStreamReader)
	if !ok || !ir.Incremental(r.ds.Props) {
		return nil, false
	}
	return ir, true
}

// Fields returns the columns of dataset name as Read and Write would see
// them (the table's columns in HIVE mode, the entry's fields in USER mode).
func (s *Session) Fields(ctx context.Context, name string, props map[string]any) ([]connectors.Field, error) {
	r, err := s.resolve(ctx, name, props)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", name, err)
	}
	return r.ds.Fields, nil
}

// doing prefixes err with what was being done, unless the connector
// already said it (`reading yt.subs page 2: …`).
func doing(op, name string, err error) error {
	if strings.HasPrefix(err.Error(), op+" "+name) {
		return err
	}
	return fmt.Errorf("%s %s: %w", op, name, err)
}

// resolved is a dataset ready for its connector.
type resolved struct {
	ds   *connectors.Dataset
	conn connectors.Connector
	typ  string
	red  *connectors.Redactor
	// ns and table name the catalog table (HIVE); empty in USER mode.
	ns, table string
	// frames are runtime properties given as frames, by key.
	frames map[string]*dataframe.Frame
}

// sessionOnly keys steer the session and are not connector properties.
func sessionOnly(k string) bool {
	return strings.HasPrefix(k, "svc.catalog.") || strings.HasPrefix(k, "svc.logging.") || k == connectors.TypeProperty
}

func (s *Session) resolve(ctx context.Context, name string, props map[string]any) (*resolved, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	settings, err := resolveRefs("setting", s.Settings())
	if err != nil {
		return nil, err
	}
	entryKey := name + DataSetPropertiesSuffix
	entry, hasEntry := props[entryKey]

	runtime := make(map[string]string, len(props))
	var frames map[string]*dataframe.Frame
	for k, v := range props {
		if strings.HasSuffix(k, DataSetPropertiesSuffix) || v == nil {
			continue
		}
		if f, ok := v.(*dataframe.Frame); ok {
			// A frame handed over as a property value: a pipeline step's
			// output as a fan-out parent (docs/incremental.md#fan-out).
			if frames == nil {
				frames = map[string]*dataframe.Frame{}
			}
			frames[k] = f
			runtime[k] = "(frame)"
			continue
		}
		sv, err := stringify(v)
		if err != nil {
			return nil, fmt.Errorf("runtime property %s: %w", k, err)
		}
		runtime[k] = sv
	}
	// The redactor knows every secret in sight before anything can fail.
	red := connectors.NewRedactor(settings, runtime)

	provider, set := settings[ProviderKey]
	if !set || strings.TrimSpace(provider) == "" {
		provider, set = runtime[ProviderKey]
	}
	set = set && strings.TrimSpace(provider) != ""
	_, described := entry.(describedDataset) // ReadDataset & co.: always USER
	switch p := strings.ToUpper(strings.TrimSpace(provider)); {
	case described:
		provider = ProviderUser
	case !set && !hasEntry && hasOtherEntry(props):
		return nil, entryMismatch(name, props)
	case !set && hasEntry:
		provider = ProviderUser
	case !set:
		provider = ProviderHive
	case p == ProviderHive || p == ProviderUser:
		provider = p
	default:
		return nil, fmt.Errorf("%w: %s=%q is not HIVE or USER", ErrProvider, ProviderKey, red.String(provider))
	}

	var (
		base     map[string]string
		fields   []connectors.Field
		typ      string
		location string
		dsName   = name

		tableNS, tableName string
	)
	if provider == ProviderUser {
		if !hasEntry {
			return nil, entryMismatch(name, props)
		}
		dsp, err := toDataSetProperties(entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", entryKey, err)
		}
		base = dsp.Props
		fields = dsp.Fields
		typ = strings.TrimSpace(dsp.Type)
		if typ == "" {
			typ = strings.TrimSpace(base[connectors.TypeProperty])
		}
		if typ == "" {
			return nil, fmt.Errorf("%s has no datasetType and no %s property", entryKey, connectors.TypeProperty)
		}
	} else {
		if s.cat == nil {
			return nil, fmt.Errorf("%w (HIVE provider: describe the dataset with ReadDataset or a %s entry)", ErrNoCatalog, entryKey)
		}
		ns, t, err := SplitName(name)
		if err != nil {
			return nil, err
		}
		tbl, err := s.cat.Get(ctx, ns, t)
		if err != nil {
			return nil, err
		}
		dsName = tbl.FullName()
		tableNS, tableName = tbl.Namespace, tbl.Name
		base = tbl.Properties
		fields = tbl.Fields()
		typ = tbl.Type
		if typ == "" {
			typ = strings.TrimSpace(base[connectors.TypeProperty])
		}
		location = tbl.Location
		if typ == "" {
			return nil, fmt.Errorf("table %s has no %s property", dsName, connectors.TypeProperty)
		}
	}
	red = connectors.NewRedactor(settings, runtime, base)

	eff := make(connectors.Props, len(base)+len(runtime)+len(settings)+1)
	for k, v := range base {
		eff[k] = v
	}
	if _, ok := eff[connectors.TypeProperty]; !ok {
		eff[connectors.TypeProperty] = typ
	}
	for k, v := range runtime {
		if !sessionOnly(k) {
			eff[k] = v
		}
	}
	for k, v := range settings {
		if strings.HasPrefix(k, "svc.") && !sessionOnly(k) {
			eff[k] = v
		}
	}
	// ${env:…}/${file:…} references are resolved now, at each use, never
	// stored resolved (docs/catalog.md#secret-references).
	if eff, err = resolveRefs("property", eff); err != nil {
		return nil, err
	}
	red = connectors.NewRedactor(settings, runtime, base, eff)
	eff = withLocation(typ, location, eff)

	conn, err := connectors.Lookup(typ)
	if err != nil {
		return nil, err
	}
	ds := &connectors.Dataset{Name: dsName, Fields: fields, Props: eff, Allocator: s.mem}
	level, ok := settings[LoggingKey]
	if !ok {
		level = runtime[LoggingKey]
	}
	if strings.EqualFold(strings.TrimSpace(level), "CONSOLE") {
		ds.Log = &redactingWriter{s: s, red: red}
	}
	return &resolved{ds: ds, conn: conn, typ: strings.ToUpper(typ), red: red, ns: tableNS, table: tableName, frames: frames}, nil
}

// resolveRefs returns m with the ${env:NAME} / ${file:PATH} references of
// its values resolved (and $${ written as ${); what names the kind of key
// in an error ("property", "setting"). m itself is not changed.
func resolveRefs[M ~map[string]string](what string, m M) (M, error) {
	var out M
	for k, v := range m {
		if !strings.Contains(v, "${") {
			continue
		}
		rv, err := propref.Resolve(v, propref.OS)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, k, err)
		}
		if out == nil {
			out = make(M, len(m))
			for k2, v2 := range m {
				out[k2] = v2
			}
		}
		out[k] = rv
	}
	if out == nil {
		return m, nil
	}
	return out, nil
}

// redactingWriter masks every known secret before a log line reaches the
// session's log output, whatever the connector forgot to mask.
type redactingWriter struct {
	s   *Session
	red *connectors.Redactor
}

func (w *redactingWriter) Write(p []byte) (int, error) {
	w.s.logMu.Lock()
	defer w.s.logMu.Unlock()
	if _, err := io.WriteString(w.s.logW, w.red.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// stringify renders a runtime property value as a property string.
func stringify(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), nil
	case json.Number:
		return x.String(), nil
	case []byte:
		return string(x), nil
	case fmt.Stringer:
		return x.String(), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("a %T cannot be a property value", v)
	}
	return string(b), nil
}

// jsonField accepts Sluice's (name, type, nullable) and Gimel's (fieldName,
// fieldType, isFieldNullable) spellings.
type jsonField struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	Nullable        *bool  `json:"nullable"`
	FieldName       string `json:"fieldName"`
	FieldType       string `json:"fieldType"`
	IsFieldNullable *bool  `json:"isFieldNullable"`
}

func (f jsonField) field(i int) (connectors.Field, error) {
	out := connectors.Field{Name: f.Name, Type: f.Type, Nullable: true}
	if out.Name == "" {
		out.Name = f.FieldName
	}
	if out.Type == "" {
		out.Type = f.FieldType
	}
	if out.Type == "" {
		out.Type = "string"
	}
	if f.Nullable != nil {
		out.Nullable = *f.Nullable
	} else if f.IsFieldNullable != nil {
		out.Nullable = *f.IsFieldNullable
	}
	if out.Name == "" {
		return out, fmt.Errorf("field %d has no name", i+1)
	}
	return out, nil
}

// toDataSetProperties accepts the USER-mode entry in the forms Gimel
// accepts: the object (or a pointer to it), or its JSON text; a decoded
// JSON/YAML map is taken as JSON too.
func toDataSetProperties(v any) (connectors.DataSetProperties, error) {
	var data []byte
	switch x := v.(type) {
	case describedDataset:
		return toDataSetProperties(x.dsp)
	case connectors.DataSetProperties:
		x.Props = cloneMap(x.Props)
		return x, nil
	case *connectors.DataSetProperties:
		if x == nil {
			return connectors.DataSetProperties{}, errors.New("nil DataSetProperties")
		}
		c := *x
		c.Props = cloneMap(x.Props)
		return c, nil
	case string:
		data = []byte(x)
	case []byte:
		data = x
	case json.RawMessage:
		data = x
	case map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return connectors.DataSetProperties{}, err
		}
		data = b
	default:
		return connectors.DataSetProperties{}, fmt.Errorf("a %T; want connectors.DataSetProperties or its JSON", v)
	}
	var raw struct {
		DatasetType     string         `json:"datasetType"`
		Type            string         `json:"type"`
		Fields          []jsonField    `json:"fields"`
		PartitionFields []jsonField    `json:"partitionFields"`
		Props           map[string]any `json:"props"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return connectors.DataSetProperties{}, fmt.Errorf("not a DataSetProperties JSON object: %w", err)
	}
	out := connectors.DataSetProperties{Type: raw.DatasetType, Props: map[string]string{}}
	if out.Type == "" {
		out.Type = raw.Type
	}
	for i, f := range raw.Fields {
		fd, err := f.field(i)
		if err != nil {
			return out, fmt.Errorf("fields: %w", err)
		}
		out.Fields = append(out.Fields, fd)
	}
	for i, f := range raw.PartitionFields {
		fd, err := f.field(i)
		if err != nil {
			return out, fmt.Errorf("partitionFields: %w", err)
		}
		out.PartitionFields = append(out.PartitionFields, fd)
	}
	keys := make([]string, 0, len(raw.Props))
	for k := range raw.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if raw.Props[k] == nil {
			continue
		}
		sv, err := stringify(raw.Props[k])
		if err != nil {
			return out, fmt.Errorf("props.%s: %w", k, err)
		}
		out.Props[k] = sv
	}
	return out, nil
}

func cloneMap(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
