package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
)

func TestProviderResolution(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, cat := newSession(t)
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "ds", Name: "t", Properties: map[string]string{
		"svc.storage.type": testType, "svc.cattest.from": "table",
	}}, false))
	dsp := connectors.DataSetProperties{Type: testType, Props: map[string]string{"svc.cattest.from": "user"}}
	dspJSON, err := json.Marshal(dsp)
	require.NoError(t, err)
	gimelJSON := `{"datasetType":"CATTEST","fields":[{"fieldName":"payload","fieldType":"string","isFieldNullable":true}],` +
		`"partitionFields":[],"props":{"svc.cattest.from":"gimel","svc.cattest.n":5}}`

	tests := []struct {
		name     string
		provider string // "" = unset
		props    map[string]any
		want     string // value of svc.cattest.from, or the error
		wantErr  bool
	}{
		{name: "unset without entry is HIVE", want: "table"},
		{name: "unset with entry is USER", props: map[string]any{"ds.t.dataSetProperties": dsp}, want: "user"},
		{name: "unset with pointer entry", props: map[string]any{"ds.t.dataSetProperties": &dsp}, want: "user"},
		{name: "unset with JSON entry", props: map[string]any{"ds.t.dataSetProperties": string(dspJSON)}, want: "user"},
		{name: "unset with Gimel JSON entry", props: map[string]any{"ds.t.dataSetProperties": gimelJSON}, want: "gimel"},
		{name: "unset with map entry", props: map[string]any{"ds.t.dataSetProperties": map[string]any{"datasetType": testType, "props": map[string]any{"svc.cattest.from": "map"}}}, want: "map"},
		{name: "HIVE ignores the entry", provider: "HIVE", props: map[string]any{"ds.t.dataSetProperties": dsp}, want: "table"},
		{name: "hive any case", provider: "hive", props: map[string]any{"ds.t.dataSetProperties": dsp}, want: "table"},
		{name: "USER with entry", provider: "User", props: map[string]any{"ds.t.dataSetProperties": dsp}, want: "user"},
		{name: "USER without entry", provider: "USER", wantErr: true,
			want: "reading ds.t: catalog provider USER: no ds.t.dataSetProperties entry among the properties (set svc.catalog.provider=HIVE to read the catalog table)"},
		{name: "invalid provider", provider: "GIMEL", wantErr: true,
			want: `reading ds.t: catalog provider: svc.catalog.provider="GIMEL" is not HIVE or USER`},
		{name: "entry of the wrong type", props: map[string]any{"ds.t.dataSetProperties": 42}, wantErr: true,
			want: "reading ds.t: ds.t.dataSetProperties: a int; want connectors.DataSetProperties or its JSON"},
		{name: "bad JSON entry", props: map[string]any{"ds.t.dataSetProperties": `{"datasetType":"CATTEST","prop":{}}`}, wantErr: true,
			want: `reading ds.t: ds.t.dataSetProperties: not a DataSetProperties JSON object: json: unknown field "prop"`},
		{name: "entry without type", props: map[string]any{"ds.t.dataSetProperties": connectors.DataSetProperties{}}, wantErr: true,
			want: "reading ds.t: ds.t.dataSetProperties has no datasetType and no svc.storage.type property"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := catalog.NewSession(cat)
			if tt.provider != "" {
				require.NoError(t, s.Set(catalog.ProviderKey, tt.provider))
			}
			f, err := s.Read(ctx, "ds.t", tt.props)
			if tt.wantErr {
				require.EqualError(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			defer f.Release()
			require.Equal(t, tt.want, frameProps(t, f)["svc.cattest.from"])
		})
	}
	_ = s
	// Writes resolve the same way.
	bad := catalog.NewSession(cat)
	require.NoError(t, bad.Set(catalog.ProviderKey, "nope"))
	_, err = bad.Write(ctx, "ds.t", nil, nil)
	require.EqualError(t, err, `writing ds.t: catalog provider: svc.catalog.provider="nope" is not HIVE or USER`)
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, cat := newSession(t)
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "p", Name: "t", Properties: map[string]string{
		"svc.storage.type": testType,
		"svc.cattest.a":    "table", "svc.cattest.b": "table", "svc.cattest.c": "table",
	}}, false))
	require.NoError(t, s.Set("svc.cattest.a", "session"))
	require.NoError(t, s.Set("svc.storage.type", "RESTAPI"))          // never changes a table's type
	require.NoError(t, s.Set("other.setting", "not a connector one")) // only svc.* settings apply

	f, err := s.Read(ctx, "P.T", map[string]any{
		"svc.cattest.a": "runtime", "svc.cattest.b": "runtime", "svc.cattest.n": 3, "svc.cattest.ok": true,
		"svc.storage.type": "PARQUET",
	})
	require.NoError(t, err)
	defer f.Release()
	got := frameProps(t, f)
	require.Equal(t, map[string]string{
		"svc.storage.type": testType,
		"svc.cattest.a":    "session", // session > runtime > table
		"svc.cattest.b":    "runtime", // runtime > table
		"svc.cattest.c":    "table",
		"svc.cattest.n":    "3",
		"svc.cattest.ok":   "true",
	}, got)

	// The same holds in USER mode.
	f2, err := s.Read(ctx, "adhoc", map[string]any{
		"adhoc.dataSetProperties": connectors.DataSetProperties{Type: testType, Props: map[string]string{"svc.cattest.a": "user", "svc.cattest.c": "user"}},
		"svc.cattest.c":           "runtime",
	})
	require.NoError(t, err)
	defer f2.Release()
	got = frameProps(t, f2)
	require.Equal(t, "session", got["svc.cattest.a"])
	require.Equal(t, "runtime", got["svc.cattest.c"])
	require.Equal(t, testType, got["svc.storage.type"])

	// Settings API.
	v, ok := s.Get("svc.cattest.a")
	require.True(t, ok)
	require.Equal(t, "session", v)
	require.Len(t, s.Settings(), 3)
	s.Unset("other.setting")
	require.Len(t, s.Settings(), 2)
	s.Reset()
	require.Empty(t, s.Settings())
	require.Error(t, s.Set(" ", "x"))
}

func TestPatternSwitchedBySetAgainstLiveServer(t *testing.T) {
	t.Parallel()
	srv := newYTServer(t)
	s, _ := newSession(t)
	exec(t, s, fmt.Sprintf(`
		CREATE EXTERNAL TABLE yt.api TBLPROPERTIES (
		  'svc.storage.type' = 'RESTAPI',
		  'svc.restapi.baseURL' = '%s',
		  'svc.restapi.url.pattern' = 'svc.restapi.pattern.subs',
		  'svc.restapi.pattern.subs' = '{svc.restapi.baseURL}/subs?channelId={svc.restapi.channelId}&key={svc.restapi.accessKey}',
		  'svc.restapi.pattern.channels' = '{svc.restapi.baseURL}/channels?id={svc.restapi.channelId}&key={svc.restapi.accessKey}',
		  'svc.restapi.channelId' = 'UC1',
		  'svc.restapi.accessKey' = 'AIza-secret'
		)`, srv.URL))

	f, err := s.Read(context.Background(), "yt.api", nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, f.NumRows())
	f.Release()

	exec(t, s, "SET svc.restapi.url.pattern=svc.restapi.pattern.channels; SET svc.restapi.channelId=UC2")
	f, err = s.Read(context.Background(), "yt.api", nil)
	require.NoError(t, err)
	rows := rowsJSON(t, f)
	f.Release()
	require.Len(t, rows, 1)
	require.Contains(t, rows[0], "Google Developers")

	reqs, _ := srv.seen()
	require.Equal(t, []string{
		"GET /subs?channelId=UC1&key=AIza-secret",
		"GET /channels?id=UC2&key=AIza-secret",
	}, reqs)
}

func TestConsoleLoggingRedacted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newYTServer(t)
	s, cat := newSession(t)
	var logs syncBuffer
	s.SetLogOutput(&logs)
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "yt", Name: "subs", Properties: map[string]string{
		"svc.storage.type":      "RESTAPI",
		"svc.restapi.url":       srv.URL + "/subs?key=AIza-secret-1",
		"svc.restapi.accessKey": "AIza-secret-1",
	}}, false))
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "t", Name: "c", Properties: map[string]string{
		"svc.storage.type": testType, "svc.cattest.secret": "hunter2-secret",
	}}, false))

	// Quiet by default.
	f, err := s.Read(ctx, "yt.subs", nil)
	require.NoError(t, err)
	f.Release()
	require.Empty(t, logs.String())

	require.NoError(t, s.Set(catalog.LoggingKey, "console"))
	f, err = s.Read(ctx, "yt.subs", nil)
	require.NoError(t, err)
	f.Release()
	f, err = s.Read(ctx, "t.c", nil)
	require.NoError(t, err)
	f.Release()
	out := logs.String()
	require.Contains(t, out, "GET "+srv.URL+"/subs?key=***")
	require.Contains(t, out, "cattest: read t.c secret=***")
	require.NotContains(t, out, "AIza-secret-1")
	require.NotContains(t, out, "hunter2-secret")

	// Errors are redacted too, and say what was being done.
	_, err = s.Read(ctx, "t.c", map[string]any{"svc.cattest.fail": "boom"})
	require.EqualError(t, err, "reading t.c: failing as asked: boom (secret ***)")
}

func TestSessionConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, cat := newSession(t)
	require.NoError(t, cat.Create(ctx, catalog.Table{Namespace: "c", Name: "t", Properties: map[string]string{"svc.storage.type": testType}}, false))
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 20; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			errs <- s.Set(fmt.Sprintf("svc.cattest.k%d", i), "v")
		}(i)
		go func() {
			defer wg.Done()
			f, err := s.Read(ctx, "c.t", nil)
			if err == nil {
				f.Release()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, s.Settings(), 20)
	require.True(t, strings.HasPrefix(catalog.ProviderKey, "svc.catalog."))
}
