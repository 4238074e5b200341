package notifications

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	notif "github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

// The connector's properties.
const (
	// PropStore is the store DSN: sqlite:<path> or postgres://… Required.
	PropStore = "svc.notifications.store"
	// PropFrom and PropTo bound the records' receptionDate (inclusive,
	// ISO-8601; UTC without an offset), as the sidecar's date-range query.
	// Defaults to open bounds.
	PropFrom = "svc.notifications.from"
	PropTo   = "svc.notifications.to"
)

// Properties declares every svc.notifications.* property: validation,
// redaction, DESCRIBE and docs/properties.md all read it.
var Properties = &connectors.PropertySet{
	Connector: Type,
	Prefix:    "svc.notifications.",
	Specs: []connectors.PropertySpec{
		{Name: PropStore, Doc: "Store DSN: `sqlite:<path>` or `postgres://…` (a password in it is redacted). Required."},
		{Name: PropFrom, Doc: "Lower bound of receptionDate (inclusive, ISO-8601; UTC without an offset)."},
		{Name: PropTo, Doc: "Upper bound of receptionDate (inclusive, ISO-8601; UTC without an offset)."},
	},
}

// Properties returns the connector's property declaration.
func (Connector) Properties() *connectors.PropertySet { return Properties }

// Type is the connector's registered name.
const Type = "NOTIFICATIONS"

func init() { connectors.Register(Type, Connector{}) }

// Connector exposes a notification store as a read-only dataset: it
// implements connectors.Connector, connectors.StreamReader and
// connectors.Validator but not
// connectors.Writer, so a write fails with connectors.ErrNotWritable — the
// records belong to the sidecar, which alone applies the intake rules.
type Connector struct{}

var (
	_ connectors.Connector    = Connector{}
	_ connectors.StreamReader = Connector{}
	_ connectors.Validator    = Connector{}
)

// Columns are the dataset's columns (see docs/properties.md#notifications),
// made from the one declaration, notifications.DatasetColumns. Every column
// is nullable in the frame's schema, as Spark reads a data source's.
var Columns = func() []dataframe.TypedColumn {
	out := make([]dataframe.TypedColumn, len(notif.DatasetColumns))
	for i, c := range notif.DatasetColumns {
		k, err := dataframe.ParseColumnKind(string(c.Kind))
		if err != nil {
			panic(fmt.Sprintf("NOTIFICATIONS column %s: %v", c.Name, err))
		}
		out[i] = dataframe.TypedColumn{Name: c.Name, Kind: k, Nullable: true}
	}
	return out
}()

// Validate checks a table definition: the store DSN is given, the date
// bounds parse, and a column list, when given, is the dataset's.
func (Connector) Validate(fields []connectors.Field, props connectors.Props) error {
	if err := Properties.Validate(props); err != nil {
		return fmt.Errorf("NOTIFICATIONS: %w", err)
	}
	if strings.TrimSpace(props.String(PropStore, "")) == "" {
		return fmt.Errorf("NOTIFICATIONS: property %s is required (sqlite:<path> or postgres://…)", PropStore)
	}
	if _, err := rangeOf(props); err != nil {
		return err
	}
	if len(fields) == 0 {
		return nil
	}
	if len(fields) != len(Columns) {
		return fmt.Errorf("NOTIFICATIONS: the columns are fixed (%s); omit the column list", columnList())
	}
	for i, f := range fields {
		if f.Name != Columns[i].Name || !strings.EqualFold(f.Type, Columns[i].Kind.String()) {
			return fmt.Errorf("NOTIFICATIONS: column %d is %s %s, want %s %s; omit the column list to get them",
				i+1, f.Name, f.Type, Columns[i].Name, Columns[i].Kind)
		}
	}
	return nil
}

func columnList() string {
	parts := make([]string, len(Columns))
	for i, c := range Columns {
		parts[i] = c.Name + " " + c.Kind.String()
	}
	return strings.Join(parts, ", ")
}

func rangeOf(p connectors.Props) (notif.Range, error) {
	var r notif.Range
	for _, b := range []struct {
		key string
		dst **time.Time
	}{{PropFrom, &r.From}, {PropTo, &r.To}} {
		v := strings.TrimSpace(p.String(b.key, ""))
		if v == "" {
			continue
		}
		t, err := parseDate(v)
		if err != nil {
			return r, fmt.Errorf("NOTIFICATIONS: property %s: %q is not an ISO-8601 date-time", b.key, v)
		}
		*b.dst = &t
	}
	if r.From != nil && r.To != nil && r.From.After(*r.To) {
		return r, fmt.Errorf("NOTIFICATIONS: %s %s is later than %s %s", PropFrom, notif.FormatDate(*r.From), PropTo, notif.FormatDate(*r.To))
	}
	return r, nil
}

func parseDate(s string) (time.Time, error) { return sparktype.ParseTimestamp(s) }

// Read opens the store, streams its records (in id order) into typed
// columns and closes it.
func (c Connector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	st, err := c.ReadStream(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	f, err := dataframe.Collect(st)
	if err != nil {
		return nil, fmt.Errorf("NOTIFICATIONS %s: %w", ds.Name, err)
	}
	return f, nil
}

// ReadStream opens the store and streams its records (in id order) in
// batches of BatchRows rows, reading the store a page at a time: memory
// does not grow with the records (docs/connectors.md#notifications). The
// store is closed at the stream's end or release.
func (Connector) ReadStream(ctx context.Context, ds *connectors.Dataset) (dataframe.Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dsn := strings.TrimSpace(ds.Props.String(PropStore, ""))
	if dsn == "" {
		return nil, fmt.Errorf("NOTIFICATIONS %s: property %s is required (sqlite:<path> or postgres://…)", ds.Name, PropStore)
	}
	r, err := rangeOf(ds.Props)
	if err != nil {
		return nil, err
	}
	if err := checkSQLiteExists(dsn); err != nil {
		return nil, fmt.Errorf("NOTIFICATIONS %s: %w", ds.Name, err)
	}
	store, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("NOTIFICATIONS %s: opening the store: %w", ds.Name, err)
	}
	return streamStore(ctx, store, r, nil, BatchRows, func() { _ = store.Close() }), nil
}

// BatchRows is the rows of each batch of a stream of the dataset.
const BatchRows = 8192

// checkSQLiteExists refuses to read a SQLite store that is not there:
// opening it would create an empty one and hide a wrong path.
func checkSQLiteExists(dsn string) error {
	scheme, rest, ok := strings.Cut(dsn, ":")
	if !ok || !(strings.EqualFold(scheme, "sqlite") || strings.EqualFold(scheme, "sqlite3")) {
		return nil
	}
	path := strings.TrimPrefix(rest, "//")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == "" || path == ":memory:" {
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store %s does not exist", path)
		}
		return fmt.Errorf("store %s: %w", path, err)
	}
	return nil
}

// ReadStore reads the records of store received within r as a frame.
func ReadStore(ctx context.Context, store notif.Store, r notif.Range) (*dataframe.Frame, error) {
	st := StreamStore(ctx, store, r, nil)
	defer st.Release()
	return dataframe.Collect(st)
}

// StreamStore streams the records of store received within r in batches of
// BatchRows rows allocated with mem (nil: the default allocator), reading
// the store a page at a time (notif.Store.Scan). The caller releases the
// stream; store stays open and the caller's.
func StreamStore(ctx context.Context, store notif.Store, r notif.Range, mem dataframe.Allocator) dataframe.Stream {
	return streamStore(ctx, store, r, mem, BatchRows, nil)
}

// errStopped ends a scan whose stream was released.
var errStopped = errors.New("stream released")

func streamStore(ctx context.Context, store notif.Store, r notif.Range, mem dataframe.Allocator, batchRows int, closeStore func()) dataframe.Stream {
	sb := dataframe.NewTypedBuilder(mem, Columns, 1)
	schema := sb.Schema()
	sb.Release()
	return dataframe.NewStream(ctx, schema, 1, func(ctx context.Context, emit func(dataframe.Record) bool) error {
		if closeStore != nil {
			defer closeStore()
		}
		b := dataframe.NewTypedBuilder(mem, Columns, batchRows)
		defer b.Release()
		send := func() error {
			f, err := b.Frame()
			if err != nil {
				return err
			}
			defer f.Release()
			for _, rec := range f.Records() {
				rec.Retain()
				if !emit(rec) {
					return errStopped
				}
			}
			return nil
		}
		err := store.Scan(ctx, r, func(rec *notif.Record) error {
			for i := range notif.DatasetColumns {
				appendValue(b, i, &notif.DatasetColumns[i], rec)
			}
			if err := b.EndRow(); err != nil {
				return err
			}
			if b.Rows() >= int64(batchRows) {
				return send()
			}
			return nil
		})
		if err == nil {
			err = send()
		}
		switch {
		case errors.Is(err, errStopped):
			return ctx.Err()
		case err != nil:
			return fmt.Errorf("reading records: %w", err)
		}
		return nil
	})
}

// appendValue appends rec's value of column c (at index col), or a null.
func appendValue(b *dataframe.TypedBuilder, col int, c *notif.Column, rec *notif.Record) {
	switch {
	case c.Int != nil:
		n, ok := c.Int(rec)
		switch {
		case !ok:
			b.AppendNull(col)
		case c.Kind == queue.KindInteger:
			b.AppendInteger(col, int32(n))
		default:
			b.AppendLong(col, n)
		}
	case c.Text != nil:
		if s, ok := c.Text(rec); ok {
			b.AppendString(col, s)
		} else {
			b.AppendNull(col)
		}
	case c.Time != nil:
		if t, ok := c.Time(rec); ok {
			b.AppendTimestamp(col, t)
		} else {
			b.AppendNull(col)
		}
	}
}
