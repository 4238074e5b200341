package connectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/sluicedata/sluice/dataframe"
)

// Field describes one column of a dataset: a name and a Spark type name
// (`string`, `long`, `integer`, `double`, `boolean`, `timestamp`, `binary`,
// or a nested `struct<…>`/`array<…>`).
type Field struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// DataSetProperties describes a dataset without a catalog, as Gimel's
// DataSetProperties: the connector type, its columns and its properties. In
// USER provider mode it is passed to Read/Write under the key
// `<dataset>.dataSetProperties`.
type DataSetProperties struct {
	Type            string            `json:"datasetType"`
	Fields          []Field           `json:"fields"`
	PartitionFields []Field           `json:"partitionFields"`
	Props           map[string]string `json:"props"`
}

// Dataset is what a connector is asked to read or write: the dataset's name,
// its columns and the effective properties after the session has applied
// precedence (session > runtime > table > default).
type Dataset struct {
	Name   string
	Fields []Field
	Props  Props
	// Log receives one line per request when the session's logging level
	// is CONSOLE; nil means quiet. Connectors must redact secrets in it.
	Log io.Writer
	// States, when not nil, gives the incremental states of the sources of
	// the rows a write delivers. A StateStore connector calls it once, after
	// the last row was read and before its commit, and stores them in the
	// same transaction as the rows (docs/jdbc.md#exactly-once). It is nil
	// for reads and for writes whose states go to files.
	States func() ([]SourceState, error)
	// Overwrite asks a write to replace the rows the target holds whatever
	// its mode property says (SQL's INSERT OVERWRITE).
	Overwrite bool
	// Allocator allocates the frames and record batches a read returns, so
	// that their owner can account for them (catalog.WithAllocator; a
	// memory.NewCheckedAllocator in tests finds leaks). nil: the
	// connector's default (dataframe.DefaultAllocator, or the recycling
	// allocator of streams).
	Allocator dataframe.Allocator
}

// Logf writes one log line if logging is on.
func (d *Dataset) Logf(format string, args ...any) {
	if d.Log == nil {
		return
	}
	fmt.Fprintf(d.Log, format+"\n", args...)
}

// Connector reads a dataset into a frame. It is the one capability every
// connector has; the others (Writer, Validator) are detected by assertion.
type Connector interface {
	Read(ctx context.Context, ds *Dataset) (*dataframe.Frame, error)
}

// Writer is implemented by connectors that can write frames.
type Writer interface {
	Write(ctx context.Context, ds *Dataset, f *dataframe.Frame) (WriteResult, error)
}

// StreamReader is implemented by connectors that can read a dataset as a
// stream of record batches without holding it whole (docs/frames.md#streams).
// The caller releases the stream; releasing it before its end stops the read
// and frees what it holds (open files, temporary spools).
type StreamReader interface {
	ReadStream(ctx context.Context, ds *Dataset) (dataframe.Stream, error)
}

// SpoolReader is implemented by connectors whose reads are costly or not
// repeatable (an API's pages): the session reads such a dataset once per
// SQL statement into a Spool and serves every read the statement's plan
// makes from it (docs/restapi.md#one-read-per-statement). A failed read is
// not repeated within the statement either.
type SpoolReader interface {
	ReadSpool(ctx context.Context, ds *Dataset) (Spool, error)
}

// Spool is a dataset read once, streamed as often as asked.
type Spool interface {
	// Open streams the dataset from the spool, never from its source; the
	// caller releases the stream. Streams may be open at the same time.
	Open(ctx context.Context) (dataframe.Stream, error)
	// Release frees the spool (its temporary file) once every stream
	// opened from it is released.
	Release()
}

// StreamWriter is implemented by connectors that can write a stream of
// record batches as it arrives, so memory does not grow with the rows
// (docs/frames.md#streams). On error nothing is half-written: the target
// is either the old or the new content. The caller still releases s.
type StreamWriter interface {
	WriteStream(ctx context.Context, ds *Dataset, s dataframe.Stream) (WriteResult, error)
}

// Validator is implemented by connectors that check a table definition when
// it is created (columns, required properties).
type Validator interface {
	Validate(fields []Field, props Props) error
}

// RowResult is the outcome of writing one row.
type RowResult struct {
	Row    int64 `json:"row"`
	Status int   `json:"status,omitempty"` // HTTP status where the connector has one
	Err    error `json:"-"`
}

// WriteResult reports a write.
type WriteResult struct {
	Rows    int64       // rows in the frame
	Written int64       // rows written successfully before the first failure
	Results []RowResult // per-row outcome, where the connector reports them
	// Counts are the row counts of a connector that knows them (a database
	// write); nil otherwise.
	Counts *WriteCounts
}

// ErrUnknownConnector is returned (wrapped) for an unregistered type.
var ErrUnknownConnector = errors.New("unknown connector")

// ErrNotWritable is returned (wrapped) when a connector has no Writer.
var ErrNotWritable = errors.New("connector does not support writes")

var (
	registryMu sync.RWMutex
	registry   = map[string]Connector{}
	describers []*PropertySet
)

// Register makes a connector available under name (upper-case by
// convention, e.g. RESTAPI). It panics if name is taken or c is nil, like
// database/sql.Register.
func Register(name string, c Connector) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if c == nil {
		panic("connectors: Register connector is nil")
	}
	if _, dup := registry[name]; dup {
		panic("connectors: Register called twice for connector " + name)
	}
	registry[name] = c
	if d, ok := c.(Describer); ok {
		sets := append([]*PropertySet(nil), describers...)
		describers = append(sets, d.Properties())
	}
}

// declaredSets returns the declarations of the registered connectors. The
// slice is replaced, never changed, by Register, so it is read unlocked
// after the read lock.
func declaredSets() []*PropertySet {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return describers
}

// Lookup returns the connector registered under typ (case-insensitive).
func Lookup(typ string) (Connector, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	if c, ok := registry[typ]; ok {
		return c, nil
	}
	for name, c := range registry {
		if equalFold(name, typ) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%w %q (forgotten import of connectors/all?)", ErrUnknownConnector, typ)
}

// Names returns the registered connector names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
