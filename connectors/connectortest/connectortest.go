package connectortest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// Harness tells the suite how to exercise one connector. Only NewDataset is
// required; each nil hook skips the checks that need it.
type Harness struct {
	// NewDataset returns a fresh dataset for one subtest (a new temp dir,
	// a new test server), called once per subtest that needs one.
	NewDataset func(t *testing.T) Case

	// Failing returns a dataset whose Read fails, and the error it must
	// wrap (errors.Is), or nil to check only that it fails. Its props should
	// hold a secret (a property named like *key*, *token*, *password*…) that
	// the error and the log must not show.
	Failing func(t *testing.T) (*connectors.Dataset, error)

	// Blocking returns a dataset whose Read waits on the far side (a server
	// that does not answer) until the context is cancelled, and a channel
	// that is closed once the far side holds the request (nil: the suite
	// cancels straight away).
	Blocking func(t *testing.T) (*connectors.Dataset, <-chan struct{})

	// BadProps are property sets the Validator must reject, each naming the
	// property its error must mention. Ignored if the connector has no
	// Validator.
	BadProps []BadProps

	// Fields are the columns of a valid table definition for the
	// Validator's positive check. Defaults to none.
	Fields []connectors.Field

	// Writes proves a writable connector's write guarantees: atomic
	// failure, merge semantics, type round trips. nil skips them.
	Writes *Writes
}

// Writes tells the suite how to prove a writable connector's guarantees.
type Writes struct {
	// Target returns a dataset whose target does not exist yet, fresh per
	// call. Required.
	Target func(t *testing.T) *connectors.Dataset
	// Merge returns ds set to merge rows by the key column id (nil: the
	// connector does not merge).
	Merge func(ds *connectors.Dataset) *connectors.Dataset
	// Refuse prepares ds's target (columns id long, name string, score
	// double) so that it refuses a name longer than 8 bytes; nil when the
	// connector refuses no value, and only a failing input is tested.
	Refuse func(t *testing.T, ds *connectors.Dataset)
	// Types are the Spark types a write and a read give back unchanged
	// (docs/jdbc.md#types): `long`, `decimal(10,2)`, `array<long>`…
	Types []string
}

// Case is a dataset and what reading it must give.
type Case struct {
	// Dataset is what Read and Write are called with. Its Log is replaced by
	// the suite's own buffer.
	Dataset *connectors.Dataset
	// Want is the frame a Read returns. With RoundTrip it is written first.
	// The suite does not release it; the harness owns it.
	Want *dataframe.Frame
	// RoundTrip writes Want to the dataset before reading it back. For
	// connectors with a Writer whose datasets can be read back.
	RoundTrip bool
	// WriteOnly marks a dataset that is written but whose read gives back
	// something else (a REST endpoint that only accepts posts): Write must
	// succeed and report one result per row or none.
	WriteOnly bool
}

// BadProps is a property set the Validator must reject.
type BadProps struct {
	Fields   []connectors.Field
	Props    connectors.Props
	Property string // the property name the error must mention
}

// Run runs the suite against the connector registered as name.
func Run(t *testing.T, name string, h Harness) {
	t.Helper()
	require.NotNil(t, h.NewDataset, "connectortest: Harness.NewDataset is required")

	t.Run("Registered", func(t *testing.T) {
		require.Contains(t, connectors.Names(), name)
		for _, n := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			c, err := connectors.Lookup(n)
			require.NoError(t, err, "Lookup(%q)", n)
			require.NotNil(t, c)
		}
	})

	c, err := connectors.Lookup(name)
	require.NoError(t, err)
	w, isWriter := c.(connectors.Writer)
	v, isValidator := c.(connectors.Validator)

	t.Run("ReadSchemaStable", func(t *testing.T) {
		tc := h.NewDataset(t)
		if tc.WriteOnly {
			t.Skip("the harness's dataset is write-only")
		}
		if tc.RoundTrip {
			require.True(t, isWriter, "RoundTrip needs a Writer")
			res, err := w.Write(ctx(t), tc.Dataset, tc.Want)
			require.NoError(t, err)
			require.Equal(t, tc.Want.NumRows(), res.Rows)
			require.Equal(t, tc.Want.NumRows(), res.Written)
		}
		log := &syncBuffer{}
		tc.Dataset.Log = log
		first := readOK(t, c, tc.Dataset)
		second := readOK(t, c, tc.Dataset)
		requireNoSecrets(t, tc.Dataset.Props, log.String())
		require.Equal(t, schema(first), schema(second), "two reads print different schemas")
		require.True(t, strings.HasPrefix(schema(first), "root\n"), "schema printing starts with root")
		require.Equal(t, rows(t, first), rows(t, second), "two reads give different rows")
		if tc.Want != nil {
			require.Equal(t, schema(tc.Want), schema(first))
			require.Equal(t, rows(t, tc.Want), rows(t, first))
		}
	})

	t.Run("Write", func(t *testing.T) {
		if !isWriter {
			t.Skip("the connector has no Writer")
		}
		tc := h.NewDataset(t)
		if tc.Want == nil {
			t.Skip("the harness gives no frame to write")
		}
		res, err := w.Write(ctx(t), tc.Dataset, tc.Want)
		require.NoError(t, err)
		require.Equal(t, tc.Want.NumRows(), res.Rows)
		require.Equal(t, tc.Want.NumRows(), res.Written)
		if len(res.Results) > 0 {
			require.Len(t, res.Results, int(tc.Want.NumRows()), "per-row results cover every row")
			for i, r := range res.Results {
				require.Equal(t, int64(i), r.Row)
				require.NoError(t, r.Err)
			}
		}
		if tc.RoundTrip {
			got := readOK(t, c, tc.Dataset)
			require.Equal(t, schema(tc.Want), schema(got))
			require.Equal(t, rows(t, tc.Want), rows(t, got))
		}
	})

	if h.Writes != nil {
		runWrites(t, c, *h.Writes)
	}

	t.Run("ErrorsWrapWithoutSecrets", func(t *testing.T) {
		if h.Failing == nil {
			t.Skip("the harness has no failing dataset")
		}
		ds, want := h.Failing(t)
		log := &syncBuffer{}
		ds.Log = log
		f, err := c.Read(ctx(t), ds)
		if f != nil {
			f.Release()
		}
		require.Error(t, err)
		require.Nil(t, f, "a failed read returns no frame")
		if want != nil {
			require.ErrorIs(t, err, want)
		}
		requireNoSecrets(t, ds.Props, err.Error(), log.String())
		if isWriter {
			tc := h.NewDataset(t)
			if tc.Want != nil {
				_, werr := w.Write(ctx(t), ds, tc.Want)
				if werr != nil {
					requireNoSecrets(t, ds.Props, werr.Error(), log.String())
				}
			}
		}
	})

	t.Run("Validator", func(t *testing.T) {
		if !isValidator {
			t.Skip("the connector has no Validator")
		}
		tc := h.NewDataset(t)
		require.NoError(t, v.Validate(h.Fields, tc.Dataset.Props), "the harness's dataset is valid")
		for _, bad := range h.BadProps {
			props := tc.Dataset.Props.Clone()
			for k, val := range bad.Props {
				props[k] = val
			}
			fields := bad.Fields
			if fields == nil {
				fields = h.Fields
			}
			err := v.Validate(fields, props)
			require.Error(t, err, "Validate accepted %v", bad.Props)
			require.Contains(t, err.Error(), bad.Property, "the error names the property")
			requireNoSecrets(t, props, err.Error())
		}
	})

	t.Run("PropertyDeclaration", func(t *testing.T) {
		d, ok := c.(connectors.Describer)
		if !ok || !isValidator {
			t.Skip("the connector declares no properties or has no Validator")
		}
		set := d.Properties()
		require.NotEmpty(t, set.Specs)
		tc := h.NewDataset(t)
		for _, sp := range set.Specs {
			require.True(t, strings.HasPrefix(sp.Name, set.Prefix), "%s is under %s", sp.Name, set.Prefix)
			require.NotEmpty(t, sp.Doc, "%s has a doc line for docs/properties.md", sp.Name)
			if sp.Family {
				continue
			}
			got, found := set.Lookup(sp.Name)
			require.True(t, found)
			require.Equal(t, sp.Name, got.Name)
			// A misspelling of a declared name is rejected with a suggestion.
			typo := sp.Name[:len(sp.Name)-1] + "Q"
			if _, declared := set.Lookup(typo); !declared {
				props := tc.Dataset.Props.Clone()
				props[typo] = "x"
				err := v.Validate(h.Fields, props)
				require.Error(t, err, "Validate accepted the misspelt %s", typo)
				require.Contains(t, err.Error(), "did you mean "+sp.Name+"?")
			}
		}
	})

	t.Run("ContextCancelled", func(t *testing.T) {
		tc := h.NewDataset(t)
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		f, err := c.Read(cctx, tc.Dataset)
		if f != nil {
			f.Release()
		}
		require.ErrorIs(t, err, context.Canceled, "Read with a cancelled context")
		if isWriter && tc.Want != nil && tc.Want.NumRows() > 0 {
			_, err := w.Write(cctx, tc.Dataset, tc.Want)
			require.ErrorIs(t, err, context.Canceled, "Write with a cancelled context")
		}
	})

	t.Run("ContextCancelledWhileBlocked", func(t *testing.T) {
		if h.Blocking == nil {
			t.Skip("the harness has no blocking dataset")
		}
		ds, started := h.Blocking(t)
		cctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		type result struct {
			f   *dataframe.Frame
			err error
		}
		done := make(chan result, 1)
		go func() {
			f, err := c.Read(cctx, ds)
			done <- result{f, err}
		}()
		if started != nil {
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				t.Fatal("the blocking dataset's far side never got the request")
			}
		}
		cancel()
		select {
		case r := <-done:
			if r.f != nil {
				r.f.Release()
			}
			require.ErrorIs(t, r.err, context.Canceled)
		case <-time.After(30 * time.Second):
			t.Fatal("Read did not return after its context was cancelled")
		}
	})
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func readOK(t *testing.T, c connectors.Connector, ds *connectors.Dataset) *dataframe.Frame {
	t.Helper()
	f, err := c.Read(ctx(t), ds)
	require.NoError(t, err)
	require.NotNil(t, f)
	t.Cleanup(f.Release)
	return f
}

func schema(f *dataframe.Frame) string { return dataframe.SchemaString(f.Schema()) }

func rows(t *testing.T, f *dataframe.Frame) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		out = append(out, string(obj))
		return nil
	}))
	return out
}

// requireNoSecrets checks that no secret value of props (see docs/properties.md)
// shows in any of outputs.
func requireNoSecrets(t *testing.T, props connectors.Props, outputs ...string) {
	t.Helper()
	for k, val := range props {
		if !connectors.IsSecretKey(k) || len(val) < 4 {
			continue
		}
		secrets := []string{val}
		if i := strings.IndexByte(val, ' '); i > 0 && len(val)-i-1 >= 4 {
			secrets = append(secrets, val[i+1:]) // "Bearer xyz": the credential alone
		}
		for _, out := range outputs {
			for _, s := range secrets {
				require.NotContains(t, out, s, "the value of %s shows", k)
			}
		}
	}
}

// syncBuffer is a log sink the connector may write from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
