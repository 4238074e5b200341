package catalog_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// subsAPI serves the recorded subscriptions page on loopback.
func subsAPI(t *testing.T) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile("testdata/youtube_subscriptions_by_channel_p1.json")
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func subsDataset(url string) connectors.DataSetProperties {
	return connectors.DataSetProperties{Type: "RESTAPI", Props: map[string]string{
		"svc.restapi.url":           url + "/subscriptions",
		"svc.restapi.parse.payload": "true",
		"svc.restapi.records.path":  "items",
	}}
}

func TestReadDataset(t *testing.T) {
	t.Parallel()
	srv := subsAPI(t)
	ctx := context.Background()
	dsp := subsDataset(srv.URL)

	s := catalog.NewSession(nil)
	typed, err := s.ReadDataset(ctx, "yt.subs", dsp)
	require.NoError(t, err)
	defer typed.Release()
	require.EqualValues(t, 5, typed.NumRows())

	// The Gimel map key reads the same.
	gimel, err := s.Read(ctx, "yt.subs", map[string]any{"yt.subs.dataSetProperties": dsp})
	require.NoError(t, err)
	defer gimel.Release()
	require.Equal(t, typed.ColumnNames(), gimel.ColumnNames())

	// A description given in Go is read in USER mode even when the session
	// says HIVE (the map key then reads the catalog, which is not there).
	hive := catalog.NewSession(nil)
	require.NoError(t, hive.Set(catalog.ProviderKey, "HIVE"))
	f, err := hive.ReadDataset(ctx, "yt.subs", dsp)
	require.NoError(t, err)
	f.Release()
	_, err = hive.Read(ctx, "yt.subs", map[string]any{"yt.subs.dataSetProperties": dsp})
	require.ErrorIs(t, err, catalog.ErrNoCatalog)

	// Session settings still win over the description's properties.
	require.NoError(t, s.Set("svc.restapi.records.path", "nope"))
	_, err = s.ReadDataset(ctx, "yt.subs", dsp)
	require.ErrorContains(t, err, "nope")
	s.Unset("svc.restapi.records.path")

	st, err := s.ReadDatasetStream(ctx, "yt.subs", dsp)
	require.NoError(t, err)
	streamed, err := dataframe.Collect(st)
	st.Release()
	require.NoError(t, err)
	defer streamed.Release()
	require.Equal(t, typed.NumRows(), streamed.NumRows())
}

func TestReadDatasetKeyMismatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsp := subsDataset("http://127.0.0.1:1")
	for _, tc := range []struct {
		name     string
		props    map[string]any
		provider string
		want     string
	}{{
		name:  "another dataset's entry",
		props: map[string]any{"yt.sub.dataSetProperties": dsp, "svc.restapi.timeout": "5s"},
		want:  `reading yt.subs: catalog provider USER: no yt.subs.dataSetProperties entry among the properties, which describe another dataset (did you mean "yt.sub"?) (keys passed: svc.restapi.timeout, yt.sub.dataSetProperties)`,
	}, {
		name:     "USER without any entry",
		props:    map[string]any{"svc.restapi.timeout": "5s"},
		provider: "USER",
		want:     "reading yt.subs: catalog provider USER: no yt.subs.dataSetProperties entry among the properties (keys passed: svc.restapi.timeout; set svc.catalog.provider=HIVE to read the catalog table)",
	}, {
		name:     "USER, another dataset's entry",
		props:    map[string]any{"other.t.dataSetProperties": dsp},
		provider: "USER",
		want:     "reading yt.subs: catalog provider USER: no yt.subs.dataSetProperties entry among the properties, which describe another dataset (keys passed: other.t.dataSetProperties)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := catalog.NewSession(nil)
			if tc.provider != "" {
				require.NoError(t, s.Set(catalog.ProviderKey, tc.provider))
			}
			_, err := s.Read(ctx, "yt.subs", tc.props)
			require.ErrorIs(t, err, catalog.ErrProvider)
			require.EqualError(t, err, tc.want)
		})
	}

	// With a catalog, an explicit HIVE provider reads the table and ignores
	// entries for other datasets (a shared property map).
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	require.NoError(t, s.Set(catalog.ProviderKey, "HIVE"))
	_, err = s.Read(ctx, "yt.subs", map[string]any{"yt.sub.dataSetProperties": dsp})
	require.ErrorIs(t, err, catalog.ErrTableNotFound)
}

func TestErrNoCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := catalog.NewSession(nil)
	_, err := s.Read(ctx, "yt.subs", nil)
	require.ErrorIs(t, err, catalog.ErrNoCatalog)
	require.EqualError(t, err, "reading yt.subs: the session has no catalog (HIVE provider: describe the dataset with ReadDataset or a yt.subs.dataSetProperties entry)")
	_, err = s.Exec(ctx, "CREATE TABLE a.b TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='x.parquet')")
	require.ErrorIs(t, err, catalog.ErrNoCatalog)
	_, err = s.ExecuteBatch(ctx, "SHOW TABLES")
	require.ErrorIs(t, err, catalog.ErrNoCatalog)
}

// TestWithAllocator checks a session's memory from outside: every buffer
// of what Read, ReadStream and SQL return comes from the caller's checked
// allocator, and all of it is freed once released.
func TestWithAllocator(t *testing.T) {
	t.Parallel()
	srv := subsAPI(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	s := catalog.NewSession(cat, catalog.WithAllocator(mem))
	require.Same(t, mem, s.Allocator())
	held := func(what string) {
		t.Helper()
		require.Positive(t, mem.CurrentAlloc(), "%s allocated nothing from the session's allocator", what)
	}

	f, err := s.ReadDataset(ctx, "yt.subs", subsDataset(srv.URL))
	require.NoError(t, err)
	held("ReadDataset")
	f.Release()
	mem.AssertSize(t, 0)

	for _, mode := range []string{"payload", "parsed"} {
		dsp := subsDataset(srv.URL)
		if mode == "payload" {
			dsp.Props = map[string]string{"svc.restapi.url": srv.URL}
		}
		st, err := s.ReadDatasetStream(ctx, "yt.subs", dsp)
		require.NoError(t, err)
		require.True(t, st.Next(), mode)
		held("ReadStream " + mode)
		st.Release()
		mem.AssertSize(t, 0)
	}

	pq := filepath.Join(t.TempDir(), "subs.parquet")
	_, err = s.Exec(ctx, `
		CREATE TABLE yt.subs TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='`+srv.URL+`/subscriptions',
		  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='items');
		CREATE TABLE lake.subs TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='`+pq+`');
		INSERT INTO lake.subs SELECT id, snippet.title AS title FROM yt.subs`)
	require.NoError(t, err)
	mem.AssertSize(t, 0)

	for _, q := range []string{
		"SELECT snippet.title, count(*) AS n FROM yt.subs GROUP BY snippet.title ORDER BY n DESC",
		"SELECT upper(title) AS t FROM lake.subs WHERE title LIKE 'TED%'",
	} {
		out, err := s.ExecuteBatch(ctx, q)
		require.NoError(t, err, q)
		require.Positive(t, out.NumRows(), q)
		held(q)
		out.Release()
		mem.AssertSize(t, 0)
	}
	pf, err := s.Read(ctx, "lake.subs", nil)
	require.NoError(t, err)
	held("PARQUET Read")
	pf.Release()
}

func TestExec(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	pq := filepath.Join(t.TempDir(), "n") + "/"
	res, err := s.Exec(ctx, `
		CREATE TABLE lake.n (id long, name string) TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='`+pq+`',
		  'svc.parquet.mode'='append');
		SET svc.logging.level=NONE;
		INSERT INTO lake.n VALUES (1, 'a'), (2, 'b');
		INSERT INTO lake.n SELECT id + 10, name FROM lake.n;
		RESET svc.logging.level`)
	require.NoError(t, err)
	require.Equal(t, catalog.ExecResult{Statements: 5, RowsAffected: 4}, res)
	_, set := s.Get("svc.logging.level")
	require.False(t, set)

	// A statement with rows is refused before anything runs.
	_, err = s.Exec(ctx, "DROP TABLE lake.n; SELECT * FROM lake.n")
	require.EqualError(t, err, "statement 2: SELECT gives rows: run it with ExecuteBatch or Query, not Exec")
	for stmt, kind := range map[string]string{
		"SHOW TABLES": "SHOW TABLES", "DESCRIBE lake.n": "DESCRIBE", "SET svc.a": "SET without a value",
		"EXPLAIN SELECT * FROM lake.n": "EXPLAIN", "SHOW NAMESPACES": "SHOW NAMESPACES",
	} {
		_, err = s.Exec(ctx, stmt)
		require.EqualError(t, err, "statement 1: "+kind+" gives rows: run it with ExecuteBatch or Query, not Exec", stmt)
	}
	f, err := s.ExecuteBatch(ctx, "SELECT count(*) AS n FROM lake.n")
	require.NoError(t, err)
	defer f.Release()
	var out bytes.Buffer
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error { out.Write(obj); return nil }))
	require.Equal(t, `{"n":4}`, out.String())

	// A failing statement stops the batch; the summary counts what ran.
	res, err = s.Exec(ctx, "DROP TABLE IF EXISTS lake.none; INSERT INTO lake.missing VALUES (1)")
	require.ErrorIs(t, err, catalog.ErrTableNotFound)
	require.Equal(t, 1, res.Statements)
	require.ErrorContains(t, err, "statement 2: ")
}

func TestFork(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	s := catalog.NewSession(nil)
	s.SetLogOutput(&log)
	require.NoError(t, s.Set("a", "1"))
	c := s.Fork()
	require.NoError(t, c.Set("a", "2"))
	require.NoError(t, c.Set("b", "3"))
	s.Unset("a")
	require.Equal(t, map[string]string{}, s.Settings())
	require.Equal(t, map[string]string{"a": "2", "b": "3"}, c.Settings())
}
