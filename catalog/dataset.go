package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/suggest"
)

// ErrNoCatalog is returned (wrapped) when a session without a catalog
// (NewSession(nil)) is asked for a catalog table: a HIVE-mode read or
// write, or a statement such as CREATE TABLE or SHOW TABLES.
var ErrNoCatalog = errors.New("the session has no catalog")

// SessionOption configures a session made by NewSession.
type SessionOption func(*Session)

// WithAllocator makes the session's reads (Read, ReadStream, ReadDataset,
// the tables of a SQL query) and its query results allocate their Arrow
// memory from mem, so the caller can account for it — with a
// memory.NewCheckedAllocator, find leaks. The RESTAPI connector and
// PARQUET files honour it; a connector that does not allocates from its
// default. Defaults to each connector's default allocator.
func WithAllocator(mem dataframe.Allocator) SessionOption {
	return func(s *Session) { s.mem = mem }
}

// Allocator is the allocator set with WithAllocator (nil if none).
func (s *Session) Allocator() dataframe.Allocator { return s.mem }

// Fork returns a new session on the same catalog, allocator and log output
// with a copy of s's settings: what is set or reset on either afterwards
// stays its own. pipelines.Run runs a pipeline's settings on a fork, so
// the caller's session is left as it was.
func (s *Session) Fork() *Session {
	return &Session{cat: s.cat, mem: s.mem, settings: s.Settings(), logW: &sharedLog{s}}
}

// sharedLog writes a fork's log lines to its parent's log output, under the
// parent's lock.
type sharedLog struct{ s *Session }

func (l *sharedLog) Write(p []byte) (int, error) {
	l.s.logMu.Lock()
	defer l.s.logMu.Unlock()
	return l.s.logW.Write(p)
}

var _ io.Writer = (*sharedLog)(nil)

// describedDataset is a dataset description passed by ReadDataset and its
// siblings: it always reads in USER mode, whatever svc.catalog.provider
// says, since the caller described the dataset in Go.
type describedDataset struct{ dsp connectors.DataSetProperties }

// described is the property map that hands dsp to the session's read and
// write paths under name's entry key.
func described(name string, dsp connectors.DataSetProperties) map[string]any {
	return map[string]any{name + DataSetPropertiesSuffix: describedDataset{dsp}}
}

// ReadDataset reads the dataset described by dsp into a frame, without a
// catalog table: Gimel's USER provider, typed. name names the dataset in
// errors, logs and incremental state; session settings still override
// dsp's properties (see Session). The caller releases the frame.
func (s *Session) ReadDataset(ctx context.Context, name string, dsp connectors.DataSetProperties) (*dataframe.Frame, error) {
	return s.Read(ctx, name, described(name, dsp))
}

// ReadDatasetStream is ReadDataset as a stream of record batches (see
// ReadStream). The caller releases the stream.
func (s *Session) ReadDatasetStream(ctx context.Context, name string, dsp connectors.DataSetProperties) (dataframe.Stream, error) {
	return s.ReadStream(ctx, name, described(name, dsp))
}

// WriteDataset writes f to the dataset described by dsp (see ReadDataset
// and Write).
func (s *Session) WriteDataset(ctx context.Context, name string, dsp connectors.DataSetProperties, f *dataframe.Frame) (connectors.WriteResult, error) {
	return s.Write(ctx, name, f, described(name, dsp))
}

// WriteDatasetStream writes st to the dataset described by dsp (see
// ReadDataset and WriteStream). The caller still releases st.
func (s *Session) WriteDatasetStream(ctx context.Context, name string, dsp connectors.DataSetProperties, st dataframe.Stream) (connectors.WriteResult, error) {
	return s.WriteStream(ctx, name, st, described(name, dsp))
}

// hasOtherEntry reports whether props hold a `<name>.dataSetProperties`
// entry (for some dataset).
func hasOtherEntry(props map[string]any) bool {
	for k := range props {
		if strings.HasSuffix(k, DataSetPropertiesSuffix) {
			return true
		}
	}
	return false
}

// entryMismatch is the error of a USER-mode read of name whose properties
// hold no entry for it, listing the keys that were passed: a misspelt
// name or key must not read something else.
func entryMismatch(name string, props map[string]any) error {
	keys := suggest.Sorted(props)
	var others []string
	for _, k := range keys {
		if n, ok := strings.CutSuffix(k, DataSetPropertiesSuffix); ok {
			others = append(others, n)
		}
	}
	msg := fmt.Sprintf("no %s entry among the properties", name+DataSetPropertiesSuffix)
	if len(others) > 0 {
		msg += ", which describe another dataset" + suggest.Phrase(name, others)
	}
	var tail []string
	if len(keys) > 0 {
		tail = append(tail, "keys passed: "+strings.Join(keys, ", "))
	}
	if len(others) == 0 {
		tail = append(tail, "set "+ProviderKey+"=HIVE to read the catalog table")
	}
	if len(tail) > 0 {
		msg += " (" + strings.Join(tail, "; ") + ")"
	}
	return fmt.Errorf("%w %s: %s", ErrProvider, ProviderUser, msg)
}
