package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
)

func TestCatalogNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "cat"))
	require.NoError(t, err)
	ctx := context.Background()
	props := map[string]string{"svc.storage.type": testType}
	bad := []string{"", "../x", "a/b", "..", "x.y", "1abc", "café", "a b", "a\x00b", `a\b`}
	for _, name := range bad {
		err := cat.Create(ctx, catalog.Table{Namespace: "ns", Name: name, Properties: props}, false)
		require.ErrorIs(t, err, catalog.ErrInvalidName, "table %q", name)
		err = cat.Create(ctx, catalog.Table{Namespace: name, Name: "t", Properties: props}, false)
		require.ErrorIs(t, err, catalog.ErrInvalidName, "namespace %q", name)
		_, err = cat.Get(ctx, "ns", name)
		require.ErrorIs(t, err, catalog.ErrInvalidName)
		require.ErrorIs(t, cat.Drop(ctx, name, "t", true), catalog.ErrInvalidName)
	}
	// Nothing escaped the catalog directory.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 0, "the catalog dir is only created by a valid CREATE")

	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "YT", Name: "My_Subs2", Properties: props}, false))
	_, err = os.Stat(filepath.Join(dir, "cat", "yt", "my_subs2.json"))
	require.NoError(t, err)
	got, err := cat.Get(ctx, "yt", "MY_SUBS2")
	require.NoError(t, err)
	require.Equal(t, "yt", got.Namespace)
	require.Equal(t, "my_subs2", got.Name)
	require.Equal(t, testType, got.Type)
}

func TestCatalogCreateGetDropList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat, err := catalog.Open(dir)
	require.NoError(t, err)
	ctx := context.Background()

	tbl := catalog.Table{
		Namespace: "yt", Name: "subs", External: true, Location: "/data/subs",
		Columns:    []catalog.Column{{Name: "id", Type: "BIGINT"}, {Name: "tags", Type: "array<string>"}},
		Properties: map[string]string{"svc.storage.type": "cattest", "svc.cattest.apiKey": "k-123", "svc.cattest.url": "http://h/?a=1&b=2"},
		CreatedAt:  time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
	}
	require.NoError(t, cat.Create(ctx, tbl, false))
	err = cat.Create(ctx, tbl, false)
	require.ErrorIs(t, err, catalog.ErrTableExists)
	require.EqualError(t, err, "creating yt.subs: table already exists")
	require.NoError(t, cat.Create(ctx, tbl, true), "IF NOT EXISTS")

	raw, err := os.ReadFile(filepath.Join(dir, "yt", "subs.json"))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"http://h/?a=1&b=2"`, "readable, not \\u0026")
	var file map[string]any
	require.NoError(t, json.Unmarshal(raw, &file))
	require.Equal(t, map[string]any{
		"namespace": "yt", "name": "subs", "type": "CATTEST", "external": true,
		"columns":    []any{map[string]any{"name": "id", "type": "long"}, map[string]any{"name": "tags", "type": "array<string>"}},
		"location":   "/data/subs",
		"properties": map[string]any{"svc.storage.type": "cattest", "svc.cattest.apiKey": "k-123", "svc.cattest.url": "http://h/?a=1&b=2"},
		"createdAt":  "2024-05-01T10:00:00Z",
	}, file)

	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "yt", Name: "chans", Properties: map[string]string{"svc.storage.type": testType}}, false))
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "files", Name: "out", Properties: map[string]string{"svc.storage.type": testType}}, false))
	// A stray temporary file is not a table.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "yt", ".x.json.tmp-1"), []byte("{"), 0o644))

	list, err := cat.List(ctx, "YT")
	require.NoError(t, err)
	require.Equal(t, []string{"yt.chans", "yt.subs"}, names(list))
	all, err := cat.List(ctx, "")
	require.NoError(t, err)
	require.Equal(t, []string{"files.out", "yt.chans", "yt.subs"}, names(all))
	none, err := cat.List(ctx, "nothing")
	require.NoError(t, err)
	require.Empty(t, none)
	spaces, err := cat.Namespaces(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"files", "yt"}, spaces)

	require.NoError(t, cat.Drop(ctx, "yt", "subs", false))
	err = cat.Drop(ctx, "yt", "subs", false)
	require.ErrorIs(t, err, catalog.ErrTableNotFound)
	require.EqualError(t, err, "dropping yt.subs: table not found")
	require.NoError(t, cat.Drop(ctx, "yt", "subs", true), "IF EXISTS")
	_, err = cat.Get(ctx, "yt", "subs")
	require.ErrorIs(t, err, catalog.ErrTableNotFound)
	_, err = cat.Get(ctx, "yt", "chan")
	require.ErrorIs(t, err, catalog.ErrTableNotFound)
	require.EqualError(t, err, `table not found: yt.chan (did you mean "yt.chans"?)`)
	err = cat.Drop(ctx, "yt", "chnas", false)
	require.EqualError(t, err, `dropping yt.chnas: table not found (did you mean "yt.chans"?)`)
}

func names(ts []*catalog.Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.FullName())
	}
	return out
}

func TestCatalogCreateValidation(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	ctx := context.Background()
	tests := []struct {
		name string
		tbl  catalog.Table
		want string
	}{
		{"no type", catalog.Table{Namespace: "a", Name: "b"},
			"creating a.b: table property svc.storage.type is required: it names the connector (RESTAPI, PARQUET, NOTIFICATIONS, …)"},
		{"unknown type", catalog.Table{Namespace: "a", Name: "b", Properties: map[string]string{"svc.storage.type": "NOPE"}},
			`creating a.b: property svc.storage.type: unknown connector "NOPE" (forgotten import of connectors/all?)`},
		{"bad column type", catalog.Table{Namespace: "a", Name: "b", Columns: []catalog.Column{{Name: "x", Type: "widget"}}, Properties: map[string]string{"svc.storage.type": testType}},
			`creating a.b: column x: invalid type "widget" at position 6: unknown type "widget"`},
		{"duplicate column", catalog.Table{Namespace: "a", Name: "b", Columns: []catalog.Column{{Name: "x", Type: "int"}, {Name: "X", Type: "int"}}, Properties: map[string]string{"svc.storage.type": testType}},
			`creating a.b: column X is defined twice`},
		{"validator, redacted", catalog.Table{Namespace: "a", Name: "b", Properties: map[string]string{"svc.storage.type": testType, "svc.cattest.invalid": "1", "svc.cattest.secret": "s3cr3t"}},
			`creating a.b: svc.cattest.invalid is set (secret ***)`},
		{"restapi columns", catalog.Table{Namespace: "a", Name: "b", Columns: []catalog.Column{{Name: "x", Type: "int"}}, Properties: map[string]string{"svc.storage.type": "RESTAPI"}},
			`creating a.b: RESTAPI tables have exactly one column, payload string (or none, which means the same); got (x integer)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cat.Create(ctx, tt.tbl, false)
			require.EqualError(t, err, tt.want)
			_, err = cat.Get(ctx, "a", "b")
			require.ErrorIs(t, err, catalog.ErrTableNotFound, "nothing half-written")
		})
	}

	// The Go API may name the type in the field instead of the property.
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "go", Name: "typed", Type: testType}, false))
	typed, err := cat.Get(ctx, "go", "typed")
	require.NoError(t, err)
	require.Equal(t, testType, typed.Type)
	require.Equal(t, map[string]string{"svc.storage.type": testType}, typed.Properties)

	// RESTAPI without columns stores payload string.
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "yt", Name: "raw", Properties: map[string]string{"svc.storage.type": "restapi", "svc.restapi.url": "http://127.0.0.1:1/x"}}, false))
	got, err := cat.Get(ctx, "yt", "raw")
	require.NoError(t, err)
	require.Equal(t, []catalog.Column{{Name: "payload", Type: "string"}}, got.Columns)
	require.Equal(t, "RESTAPI", got.Type)
}

func TestCatalogConcurrentCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		wins    []int
		exists  int
		unknown []error
	)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Each goroutine has its own Catalog, as separate processes would.
			cat, err := catalog.Open(dir)
			if err != nil {
				mu.Lock()
				unknown = append(unknown, err)
				mu.Unlock()
				return
			}
			err = cat.Create(ctx, catalog.Table{
				Namespace: "race", Name: "t", Location: string(rune('a' + i)),
				Properties: map[string]string{"svc.storage.type": testType},
			}, false)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins = append(wins, i)
			case errors.Is(err, catalog.ErrTableExists):
				exists++
			default:
				unknown = append(unknown, err)
			}
		}(i)
	}
	wg.Wait()
	require.Empty(t, unknown)
	require.Len(t, wins, 1, "exactly one winner")
	require.Equal(t, n-1, exists)
	cat, err := catalog.Open(dir)
	require.NoError(t, err)
	got, err := cat.Get(ctx, "race", "t")
	require.NoError(t, err, "the file is whole")
	require.Equal(t, string(rune('a'+wins[0])), got.Location, "the winner's content")
	entries, err := os.ReadDir(filepath.Join(dir, "race"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files left behind")
}

func TestCatalogCorruptFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ns"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ns", "t.json"), []byte(`{"name":`), 0o644))
	cat, err := catalog.Open(dir)
	require.NoError(t, err)
	_, err = cat.Get(context.Background(), "ns", "t")
	require.ErrorContains(t, err, "table file "+filepath.Join(dir, "ns", "t.json")+" is corrupt")
}

func TestOpenAndResolveDir(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err := catalog.Open(f)
	require.EqualError(t, err, "catalog "+f+": not a directory")

	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SLUICE_CATALOG" {
				return v
			}
			return ""
		}
	}
	require.Equal(t, "/flag", catalog.ResolveDir("/flag", env("/env"), "/wd"))
	require.Equal(t, "/env", catalog.ResolveDir("", env("/env"), "/wd"))
	require.Equal(t, filepath.Join("/wd", ".sluice", "catalog"), catalog.ResolveDir("", env(""), "/wd"))
	require.Equal(t, filepath.Join("/wd", ".sluice", "catalog"), catalog.ResolveDir("", nil, "/wd"))
}
