package catalog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/parquet"
	_ "github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// testType is a connector registered only for these tests. A read returns
// the effective properties it was given as (key, value) rows, so tests see
// precedence directly; a write records what it was asked to write.
const testType = "CATTEST"

type testConnector struct {
	mu     sync.Mutex
	writes map[string][]writeCall
}

type writeCall struct {
	props connectors.Props
	rows  []string // rows as JSON objects
}

var testConn = &testConnector{writes: map[string][]writeCall{}}

func init() { connectors.Register(testType, testConn) }

func (c *testConnector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	// Deliberately unredacted: the session must mask what a connector forgets.
	ds.Logf("cattest: read %s secret=%s", ds.Name, ds.Props["svc.cattest.secret"])
	if msg := ds.Props["svc.cattest.fail"]; msg != "" {
		return nil, fmt.Errorf("failing as asked: %s (secret %s)", msg, ds.Props["svc.cattest.secret"])
	}
	keys := make([]string, 0, len(ds.Props))
	for k := range ds.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{k, ds.Props[k]}
	}
	return jsonframe.FromValues([]string{"key", "value"}, rows)
}

func (c *testConnector) Write(ctx context.Context, ds *connectors.Dataset, f *dataframe.Frame) (connectors.WriteResult, error) {
	call := writeCall{props: ds.Props.Clone()}
	err := f.EachRowJSON(func(_ int64, obj []byte) error {
		call.rows = append(call.rows, string(obj))
		return nil
	})
	if err != nil {
		return connectors.WriteResult{}, err
	}
	c.mu.Lock()
	c.writes[ds.Name] = append(c.writes[ds.Name], call)
	c.mu.Unlock()
	return connectors.WriteResult{Rows: f.NumRows(), Written: f.NumRows()}, nil
}

func (c *testConnector) Validate(fields []connectors.Field, props connectors.Props) error {
	if props["svc.cattest.invalid"] != "" {
		return fmt.Errorf("svc.cattest.invalid is set (secret %s)", props["svc.cattest.secret"])
	}
	return nil
}

func (c *testConnector) written(name string) []writeCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]writeCall(nil), c.writes[name]...)
}

// props reads a CATTEST frame back into a map.
func frameProps(t *testing.T, f *dataframe.Frame) map[string]string {
	t.Helper()
	keys, _, err := f.StringValues("key")
	require.NoError(t, err)
	vals, _, err := f.StringValues("value")
	require.NoError(t, err)
	m := map[string]string{}
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m
}

// rowsJSON renders a frame's rows as JSON objects.
func rowsJSON(t *testing.T, f *dataframe.Frame) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		out = append(out, string(obj))
		return nil
	}))
	return out
}

func newSession(t *testing.T) (*catalog.Session, *catalog.Catalog) {
	t.Helper()
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	return catalog.NewSession(cat), cat
}

func exec(t *testing.T, s *catalog.Session, sql string) []string {
	t.Helper()
	f, err := s.ExecuteBatch(context.Background(), sql)
	require.NoError(t, err)
	defer f.Release()
	return rowsJSON(t, f)
}

// ytServer serves the YouTube subscription fixtures: /subs pages through
// p1 then p2 (pageToken=CAUQAA), /channels serves the channel listing. It
// records every request line and body.
type ytServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
	bodies   []string
}

func newYTServer(t *testing.T) *ytServer {
	t.Helper()
	p1, err := os.ReadFile("testdata/youtube_subscriptions_by_channel_p1.json")
	require.NoError(t, err)
	p2, err := os.ReadFile("testdata/youtube_subscriptions_by_channel_p2.json")
	require.NoError(t, err)
	ch, err := os.ReadFile("testdata/youtube_channels_info.json")
	require.NoError(t, err)
	s := &ytServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body strings.Builder
		if r.Body != nil {
			b := make([]byte, 4096)
			for {
				n, err := r.Body.Read(b)
				body.Write(b[:n])
				if err != nil {
					break
				}
			}
		}
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
		if r.Method != http.MethodGet {
			s.bodies = append(s.bodies, body.String())
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/subs" && r.URL.Query().Get("pageToken") == "CAUQAA":
			_, _ = w.Write(p2)
		case r.URL.Path == "/subs":
			_, _ = w.Write(p1)
		case r.URL.Path == "/nulls":
			_, _ = w.Write([]byte(`[{"a":"x","n":1,"ok":true},{"a":null,"n":2.5,"ok":null},{"a":"y","n":null,"ok":false},{"n":-3}]`))
		case r.URL.Path == "/channels":
			_, _ = w.Write(ch)
		case r.URL.Path == "/events" && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *ytServer) seen() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...), append([]string(nil), s.bodies...)
}

// syncBuffer is a log sink safe for the connector's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}
