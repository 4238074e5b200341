package catalog_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
)

// channelsAPI: GET /channels lists three channels; GET /videos/{id} lists
// a channel's videos, 500 for channel "x".
func channelsAPI(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/channels" {
			fmt.Fprint(w, `[{"id":"a"},{"id":"x"},{"id":"b"}]`)
			return
		}
		id := strings.TrimPrefix(r.URL.Path, "/videos/")
		if id == "x" {
			http.Error(w, "broken", http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, `[{"video":"%s1"},{"video":"%s2"}]`, id, id)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFanoutFromCatalogTable(t *testing.T) {
	t.Parallel()
	srv := channelsAPI(t)
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	var logs bytes.Buffer
	s.SetLogOutput(&logs)
	ctx := context.Background()
	_, err = s.ExecuteBatch(ctx, fmt.Sprintf(`
		CREATE TABLE yt.channels TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/channels', 'svc.restapi.parse.payload'='true');
		CREATE TABLE yt.videos TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.parse.payload'='true',
		  'svc.restapi.url.pattern'='svc.restapi.pattern.v', 'svc.restapi.pattern.v'='%[1]s/videos/{svc.restapi.channelId}',
		  'svc.restapi.retry.max'='0',
		  'svc.restapi.fanout.from'='yt.channels', 'svc.restapi.fanout.column'='id', 'svc.restapi.fanout.token'='svc.restapi.channelId');
	`, srv.URL))
	require.NoError(t, err)

	_, err = s.ExecuteBatch(ctx, `SELECT * FROM yt.videos`)
	require.ErrorContains(t, err, "fan-out child id=x")
	require.ErrorContains(t, err, "HTTP 500")

	require.NoError(t, s.Set("svc.restapi.fanout.on.error", "skip"))
	f, err := s.ExecuteBatch(ctx, `SELECT video, _parent_id FROM yt.videos`)
	require.NoError(t, err)
	defer f.Release()
	var rows []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error { rows = append(rows, string(obj)); return nil }))
	require.Equal(t, []string{
		`{"video":"a1","_parent_id":"a"}`, `{"video":"a2","_parent_id":"a"}`,
		`{"video":"b1","_parent_id":"b"}`, `{"video":"b2","_parent_id":"b"}`,
	}, rows)
	require.Contains(t, logs.String(), "sluice: warning: skipped id=x: ")
	require.Contains(t, logs.String(), "skipped 1 of 3 parent values\n")

	// A table fanning out from itself is a cycle, not endless recursion.
	require.NoError(t, s.Set("svc.restapi.fanout.from", "yt.videos"))
	_, err = s.ExecuteBatch(ctx, `SELECT * FROM yt.videos`)
	require.ErrorContains(t, err, "fan-out cycle")
}

// A child URL taken whole from the parent's values goes to the parent
// table's origin only: the API's data never sends the credentials
// elsewhere (docs/restapi.md#origins).
func TestFanoutChildURLFromValuesKeepsToTheParentOrigin(t *testing.T) {
	t.Parallel()
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		fmt.Fprint(w, `[{"video":"stolen"}]`)
	}))
	t.Cleanup(other.Close)
	var api *httptest.Server
	api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/channels" {
			fmt.Fprintf(w, `[{"url":"%s/videos/a"},{"url":"%s/videos/b"}]`, api.URL, r.URL.Query().Get("evil"))
			return
		}
		fmt.Fprintf(w, `[{"video":"%s"}]`, strings.TrimPrefix(r.URL.Path, "/videos/"))
	}))
	t.Cleanup(api.Close)
	s, _ := newSession(t)
	for i, evil := range []string{api.URL, other.URL} {
		exec(t, s, fmt.Sprintf(`
		CREATE TABLE yt.channels%[3]d TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/channels?evil=%[2]s', 'svc.restapi.parse.payload'='true');
		CREATE TABLE yt.videos%[3]d TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.parse.payload'='true',
		  'svc.restapi.url.pattern'='svc.restapi.pattern.v', 'svc.restapi.pattern.v'='{svc.restapi.videosURL}',
		  'svc.restapi.auth.type'='bearer', 'svc.restapi.auth.token'='t0ken', 'svc.restapi.retry.max'='0',
		  'svc.restapi.fanout.from'='yt.channels%[3]d', 'svc.restapi.fanout.column'='url', 'svc.restapi.fanout.token'='svc.restapi.videosURL')`, api.URL, evil, i))
	}
	require.Equal(t, []string{`{"video":"a"}`, `{"video":"b"}`}, exec(t, s, `SELECT video FROM yt.videos0`))
	_, err := s.ExecuteBatch(context.Background(), `SELECT video FROM yt.videos1`)
	require.ErrorContains(t, err, "is on origin "+other.URL)
	require.ErrorContains(t, err, "not the table's origin "+api.URL)
	require.Zero(t, otherHits.Load())
}

// The columns a query asks of a fan-out table are not asked of its parent:
// a Parquet parent is read with its fan-out column, whatever the query
// selects, and the children are read once.
func TestFanoutParentReadWithItsColumn(t *testing.T) {
	t.Parallel()
	srv := channelsAPI(t)
	s, _ := newSession(t)
	exec(t, s, fmt.Sprintf(`
		CREATE TABLE yt.channels TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%[1]s/channels', 'svc.restapi.parse.payload'='true');
		CREATE TABLE lake.channels TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%[2]s');
		INSERT INTO lake.channels SELECT id, 'x' AS video FROM yt.channels WHERE id <> 'x';
		CREATE TABLE yt.videos TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.parse.payload'='true',
		  'svc.restapi.url.pattern'='svc.restapi.pattern.v', 'svc.restapi.pattern.v'='%[1]s/videos/{svc.restapi.channelId}',
		  'svc.restapi.fanout.from'='lake.channels', 'svc.restapi.fanout.column'='id', 'svc.restapi.fanout.token'='svc.restapi.channelId')`,
		srv.URL, t.TempDir()+"/channels.parquet"))
	require.Equal(t, []string{`{"video":"a1"}`, `{"video":"a2"}`, `{"video":"b1"}`, `{"video":"b2"}`},
		exec(t, s, `SELECT video FROM yt.videos ORDER BY video`))
}
