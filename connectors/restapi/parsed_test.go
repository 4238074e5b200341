package restapi_test

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	require.Equal(t, string(want), got)
}

func rowsJSON(t *testing.T, f *dataframe.Frame) []string {
	t.Helper()
	var rows []string
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
		rows = append(rows, string(obj))
		return nil
	}))
	return rows
}

func TestReadParsedSchemas(t *testing.T) {
	t.Parallel()
	srv, _ := youtube(t)
	tests := []struct {
		golden  string
		props   []string
		rows    int64
		firstID string
	}{
		{golden: "subscriptions_p1", rows: 1},
		{golden: "subscriptions_p1_items", props: []string{"svc.restapi.records.path", "items"}, rows: 5, firstID: "FMP3Mleijt-52zZDGkHtR5KhwkvCcdQKWWWIA1j5eGc"},
		{golden: "channels", props: []string{"svc.restapi.url.pattern", "svc.restapi.pattern.channels"}, rows: 1},
		{golden: "channels_items", props: []string{"svc.restapi.url.pattern", "svc.restapi.pattern.channels", "svc.restapi.records.path", "items"}, rows: 1},
		{golden: "subscriptions_p1p2", props: []string{"svc.restapi.paginate.next.field", "nextPageToken", "svc.restapi.paginate.next.param", "pageToken"}, rows: 2},
		{golden: "subscriptions_p1p2_items", props: []string{"svc.restapi.records.path", "items", "svc.restapi.paginate.next.field", "nextPageToken", "svc.restapi.paginate.next.param", "pageToken"}, rows: 7, firstID: "FMP3Mleijt-52zZDGkHtR5KhwkvCcdQKWWWIA1j5eGc"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			props := with(ytProps(srv.URL), append([]string{"svc.restapi.parse.payload", "TRUE"}, tt.props...)...)
			f, err := read(t, props, nil)
			require.NoError(t, err)
			defer f.Release()
			golden(t, tt.golden, dataframe.SchemaString(f.Schema()))
			require.Equal(t, tt.rows, f.NumRows())
			if tt.firstID != "" {
				require.Contains(t, rowsJSON(t, f)[0], `"id":"`+tt.firstID+`"`)
			}
		})
	}
}

// A page without the records array gives no rows; the others still do.
func TestReadParsedPageWithoutRecords(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Query().Get("c") {
		case "":
			_, _ = io.WriteString(w, `{"data":[{"a":1},{"a":2}],"next":"x"}`)
		case "x":
			_, _ = io.WriteString(w, `{"next":"y"}`)
		default:
			_, _ = io.WriteString(w, `{"data":[{"a":3.5,"b":"z"}]}`)
		}
	})
	f, err := read(t, connectors.Props{
		"svc.restapi.url":                 srv.URL,
		"svc.restapi.parse.payload":       "true",
		"svc.restapi.records.path":        "data",
		"svc.restapi.paginate.next.field": "next",
		"svc.restapi.paginate.next.param": "c",
	}, nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, "root\n |-- a: double (nullable = true)\n |-- b: string (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	require.Equal(t, []string{`{"a":1.0,"b":null}`, `{"a":2.0,"b":null}`, `{"a":3.5,"b":"z"}`}, normaliseFloats(rowsJSON(t, f)))
}

// normaliseFloats makes the test independent of how whole doubles print (1 or 1.0).
func normaliseFloats(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		r = strings.ReplaceAll(r, `"a":1,`, `"a":1.0,`)
		out[i] = strings.ReplaceAll(r, `"a":2,`, `"a":2.0,`)
	}
	return out
}

func TestReadParsedInvalidJSON(t *testing.T) {
	t.Parallel()
	const bad = `{"next":"","items":[{"a":1},{"a":tru}]}`
	tests := []struct {
		name     string
		paginate bool
		page     int
	}{
		{name: "single page", page: 1},
		// The next-page token lookup reads the whole page and meets the
		// damage first; the error names the page all the same.
		{name: "second page", paginate: true, page: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if tt.paginate && r.URL.Query().Get("p") == "" {
					_, _ = io.WriteString(w, `{"next":"2","items":[{"a":0}]}`)
					return
				}
				_, _ = io.WriteString(w, bad)
			})
			props := connectors.Props{
				"svc.restapi.url":           srv.URL + "/list",
				"svc.restapi.parse.payload": "true",
				"svc.restapi.records.path":  "items",
			}
			pageURL := srv.URL + "/list"
			if tt.paginate {
				props["svc.restapi.paginate.next.field"] = "next"
				props["svc.restapi.paginate.next.param"] = "p"
				pageURL += "?p=2"
			}
			_, err := read(t, props, nil)
			require.Error(t, err)
			var se *jsonframe.SyntaxError
			require.ErrorAs(t, err, &se)
			off := int64(strings.Index(bad, "tru"))
			require.GreaterOrEqual(t, se.Offset, off, "the offset points into the bad token, page-relative")
			require.LessOrEqual(t, se.Offset, off+int64(len("tru}")))
			require.Contains(t, err.Error(), "reading yt.subs page "+strconv.Itoa(tt.page)+" ("+pageURL+"): ")
			require.Contains(t, err.Error(), "invalid JSON at byte offset "+strconv.FormatInt(se.Offset, 10))
			require.NotContains(t, err.Error(), "in document", "pages are counted from 1 in the message")
		})
	}
}

func TestReadPayloadModeInvalidJSONWithPagination(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { _, _ = io.WriteString(w, `<html>`) })
	_, err := read(t, connectors.Props{
		"svc.restapi.url":                 srv.URL,
		"svc.restapi.paginate.next.field": "next",
		"svc.restapi.paginate.next.param": "p",
	}, nil)
	require.ErrorContains(t, err, "at byte offset 0")
	require.ErrorContains(t, err, "next-page token next")
}

func TestReadPayloadModeKeepsBytes(t *testing.T) {
	t.Parallel()
	body := []byte("not json \u00e9\n\x00 at all")
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { _, _ = w.Write(body) })
	f, err := read(t, connectors.Props{"svc.restapi.url": srv.URL}, nil)
	require.NoError(t, err)
	defer f.Release()
	require.True(t, bytes.Equal(body, []byte(payloads(t, f)[0])))
}

func TestReadParsedBlankPageHasNoRows(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Query().Get("p") {
		case "":
			_, _ = io.WriteString(w, `{"items":[{"a":1}],"next":"2"}`)
		default:
			w.WriteHeader(http.StatusNoContent) // past the end
		}
	})
	paged := connectors.Props{
		"svc.restapi.url":                 srv.URL,
		"svc.restapi.parse.payload":       "true",
		"svc.restapi.records.path":        "items",
		"svc.restapi.paginate.next.field": "next",
		"svc.restapi.paginate.next.param": "p",
	}
	f, err := read(t, paged, nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{`{"a":1}`}, rowsJSON(t, f))
	require.Equal(t, 2, rec.count())

	// A blank page alone gives an empty frame.
	f2, err := read(t, connectors.Props{"svc.restapi.url": srv.URL + "/?p=2", "svc.restapi.parse.payload": "true"}, nil)
	require.NoError(t, err)
	defer f2.Release()
	require.Zero(t, f2.NumRows())
	require.Equal(t, "root\n", dataframe.SchemaString(f2.Schema()))

	// In payload mode a blank body is still a row.
	f3, err := read(t, with(paged, "svc.restapi.parse.payload", "false"), nil)
	require.NoError(t, err)
	defer f3.Release()
	require.Equal(t, []string{`{"items":[{"a":1}],"next":"2"}`, ""}, payloads(t, f3))
}
