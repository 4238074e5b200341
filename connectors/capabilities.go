package connectors

import (
	"context"
	"errors"
	"slices"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// ScanReader is implemented by connectors that can do part of a query's
// work while they read: take only some columns, evaluate filters, stop
// after a limit, read rows by position (see docs/sql.md#pushdown). The
// stream holds at least the asked columns (more is allowed: the query
// selects by name); Applied says which filters, the limit and the rows it
// honoured exactly, and the query engine applies the rest itself. The
// caller releases the stream.
type ScanReader interface {
	ReadScan(ctx context.Context, ds *Dataset, req scan.Request) (dataframe.Stream, scan.Applied, error)
}

// WriteCounts are the row counts of a write that knows them (a database
// write: `num_affected_rows`, `num_inserted_rows`, `num_updated_rows`).
type WriteCounts struct {
	// Affected is the rows inserted or updated (or, for an overwrite, the
	// rows the table holds after it).
	Affected int64
	// Inserted is the rows added.
	Inserted int64
	// Updated is the existing rows a merge replaced.
	Updated int64
}

// SourceState is the incremental state of a source dataset that a write
// delivers (see docs/jdbc.md#exactly-once).
type SourceState struct {
	// Source is the source's catalog name, `ns.table`.
	Source string
	// State is its state once the write is committed.
	State *State
	// Check asks the store to verify, under a lock held until the commit,
	// that it still holds Expect for Source (nil: no state) — what the
	// read started from — and to fail the write with ErrStateChanged
	// otherwise. A load whose state another load committed in the meantime
	// (a concurrent run, or a killed run's COMMIT the server finished after
	// the rerun read the state) would otherwise deliver the same rows twice.
	Check  bool
	Expect *State
}

// ErrStateChanged is returned (wrapped) by a write whose sources' state in
// the target's store is no longer the one its read started from: nothing
// is written, and a rerun reads on from the state that is there (see
// docs/jdbc.md#exactly-once).
var ErrStateChanged = errors.New("the source's stored state changed while this load ran")

// SameState says whether a and b are the same position of a source: the
// same cursor, last value and keys at that value (when each was computed
// does not matter). Two nil states are the same.
func SameState(a, b *State) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Cursor == b.Cursor && a.LastValue == b.LastValue && slices.Equal(a.KeysAtLastValue, b.KeysAtLastValue)
}

// StateStore is implemented by connectors whose targets can keep the
// incremental states of their sources in the same transaction as the rows
// a write delivers, so that a load is exactly once (see
// docs/jdbc.md#exactly-once). The catalog hands a write the states of its
// sources in Dataset.States; without a StateStore they go to state files
// after the write (docs/incremental.md#state-files).
type StateStore interface {
	// LoadState returns the state of source kept in ds's store, nil when
	// it keeps none.
	LoadState(ctx context.Context, ds *Dataset, source string) (*State, error)
	// ResetState deletes the state of source kept in ds's store; it
	// reports whether there was one.
	ResetState(ctx context.Context, ds *Dataset, source string) (bool, error)
}

// IncrementalStreamReader is an IncrementalReader that streams: the rows
// after prev as a stream, and the state to store once they are delivered,
// which is known when the stream has ended (state returns nil before, and
// when nothing was read).
type IncrementalStreamReader interface {
	IncrementalReader
	ReadIncrementalStream(ctx context.Context, ds *Dataset, prev *State) (s dataframe.Stream, state func() *State, err error)
}

// Overwriter is implemented by connectors whose writes honour
// Dataset.Overwrite (SQL's INSERT OVERWRITE): the rows the target holds are
// replaced. The catalog refuses INSERT OVERWRITE into a table of another
// connector rather than appending to it.
type Overwriter interface {
	Overwrites() bool
}

// SchemaReader is implemented by connectors whose datasets know their own
// columns (a database table): a catalog table that declares none takes
// them from it where it needs them (INSERT … VALUES).
type SchemaReader interface {
	ReadSchema(ctx context.Context, ds *Dataset) ([]Field, error)
}
