package restapi_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/fileio"
)

// readStream reads props with ReadStream, its spool in dir, and collects
// the stream.
func readStream(t *testing.T, ctx context.Context, props connectors.Props, dir string) (*dataframe.Frame, error) {
	t.Helper()
	ctx = restapi.WithReadOptions(ctx, restapi.ReadOptions{SpoolDir: dir})
	s, err := connector(t).(connectors.StreamReader).ReadStream(ctx, &connectors.Dataset{Name: "yt.subs", Props: props})
	if err != nil {
		return nil, err
	}
	defer s.Release()
	return dataframe.Collect(s)
}

// dump is a frame as its printed schema and its rows as JSON lines.
func dump(t *testing.T, f *dataframe.Frame) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(dataframe.SchemaString(f.Schema()))
	s := f.Stream()
	defer s.Release()
	_, err := fileio.WriteStreamTo(context.Background(), &b, s, "ndjson", fileio.FileOptions{})
	require.NoError(t, err)
	return b.String()
}

// spoolCtx is ctx with o and a spool directory of the test's own.
func spoolCtx(t *testing.T, ctx context.Context, o restapi.ReadOptions) (context.Context, string) {
	t.Helper()
	o.SpoolDir = t.TempDir()
	return restapi.WithReadOptions(ctx, o), o.SpoolDir
}

// requireEmptyDir checks that no spool file is left behind.
func requireEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "spool files left in %s", dir)
}

// sameBothWays reads props whole (Read) and streamed (ReadStream) and
// requires the same schema and rows, or the same error.
func sameBothWays(t *testing.T, props connectors.Props) string {
	t.Helper()
	dir := t.TempDir()
	whole, werr := read(t, props, nil)
	streamed, serr := readStream(t, ctxT(t), props, dir)
	requireEmptyDir(t, dir)
	if werr != nil {
		require.Error(t, serr, "the in-memory read failed: %v", werr)
		require.Equal(t, werr.Error(), serr.Error())
		return werr.Error()
	}
	require.NoError(t, serr)
	defer whole.Release()
	defer streamed.Release()
	want := dump(t, whole)
	require.Equal(t, want, dump(t, streamed))
	return want
}

// pagesServer serves bodies[i] as page i+1 of a Link-paginated listing
// (?p=N; the first request has no parameter).
func pagesServer(t *testing.T, contentType string, bodies ...string) string {
	t.Helper()
	var srv string
	s, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		n, _ := strconv.Atoi(r.URL.Query().Get("p"))
		n = max(n, 1)
		w.Header().Set("Content-Type", contentType)
		if n < len(bodies) {
			w.Header().Set("Link", "<"+srv+"/list?p="+strconv.Itoa(n+1)+`>; rel="next"`)
		}
		if n <= len(bodies) {
			_, _ = io.WriteString(w, bodies[n-1])
		}
	})
	srv = s.URL
	return srv
}

func pagedProps(base string, kv ...string) connectors.Props {
	return with(connectors.Props{
		"svc.restapi.url":                base + "/list",
		"svc.restapi.paginate.type":      "link",
		"svc.restapi.parse.payload":      "true",
		"svc.restapi.retry.max":          "0",
		"svc.restapi.paginate.max.pages": "100",
	}, kv...)
}

// A streamed read gives what the whole read gives: the YouTube fixtures
// (also /work/shared/fixtures' copies), every vendor fake, and the JSON
// shapes whose rows depend on how pages are split into lines.
func TestReadStreamSameAsRead(t *testing.T) {
	t.Parallel()
	t.Run("youtube", func(t *testing.T) {
		t.Parallel()
		srv, _ := youtube(t)
		paged := []string{"svc.restapi.paginate.next.field", "nextPageToken", "svc.restapi.paginate.next.param", "pageToken"}
		for _, extra := range [][]string{
			{"svc.restapi.records.path", "items"},
			{},
			{"svc.restapi.parse.payload", "false"},
			{"svc.restapi.records.path", "pageInfo"},
		} {
			props := with(ytProps(srv.URL), append(append([]string{"svc.restapi.parse.payload", "true"}, paged...), extra...)...)
			out := sameBothWays(t, props)
			require.NotEmpty(t, out)
		}
	})
	t.Run("shared fixtures", func(t *testing.T) {
		t.Parallel()
		var bodies []string
		for _, name := range []string{"youtube_subscriptions_by_channel_p1.json", "youtube_subscriptions_by_channel_p2.json", "youtube_channels_info.json"} {
			b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "fixtures", name))
			if errors.Is(err, os.ErrNotExist) {
				b = fixture(t, name) // the same files, kept in testdata
			} else {
				require.NoError(t, err)
			}
			bodies = append(bodies, string(b))
		}
		base := pagesServer(t, "application/json", bodies...)
		sameBothWays(t, pagedProps(base, "svc.restapi.records.path", "items"))
		sameBothWays(t, pagedProps(base))
	})
	t.Run("vendors", func(t *testing.T) {
		t.Parallel()
		for _, vd := range vendors {
			t.Run(vd.name, func(t *testing.T) {
				t.Parallel()
				v := newVendorAPI(t, vd)
				sameBothWays(t, vd.props(v.base()))
			})
		}
	})
	shapes := map[string][]string{
		"objects":             {`{"data":[{"a":1},{"b":"x"}],"more":true}`, `{"data":[{"a":2.5,"c":[1,2]}],"more":false}`},
		"scalars":             {`{"data":[1,2],"more":true}`, `{"data":[{"a":1}],"more":false}`},
		"mixed":               {`{"data":[{"a":1},2,"s",null],"more":false}`},
		"nested arrays":       {`{"data":[[1,2],[3]],"more":true}`, `{"data":[{"a":[{"b":1}]}],"more":false}`},
		"empty and null":      {`{"data":[],"more":true}`, `{"data":null,"more":true}`, `{"other":1,"more":true}`, `{"data":[{"a":""}],"more":false}`},
		"empty string widens": {`{"data":[{"a":""}],"more":true}`, `{"data":[{"a":5}],"more":false}`},
		"big integers":        {`{"data":[{"n":123456789012345678901234567890}],"more":true}`, `{"data":[{"n":1}],"more":false}`},
		"whitespace":          {"{\n \"data\" : [\n  { \"a\" : \"x y\" } ,\n  {\"a\":\"\\n\"}\n ],\n \"more\":false}"},
		"strings":             {`{"data":[{"s":"a,b]}{\"c"},{"s":"\u00e9\u2028"}],"more":false}`},
		"invalid utf8":        {"{\"data\":[{\"s\":\"\xff\xfe\"}],\"more\":false}"},
		"path missing":        {`{"items":[{"a":1}],"more":true}`, `{"meta":{"n":1},"more":false}`},
		"invalid json":        {`{"data":[{"a":1}],"more":true}`, `{"data":[{"a":1,}],"more":false}`},
		"not an array":        {`{"data":{"a":1},"more":false}`},
		"deep":                {`{"data":[` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `],"more":false}`},
	}
	for name, bodies := range shapes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := pagesServer(t, "application/json", bodies...)
			sameBothWays(t, pagedProps(base, "svc.restapi.records.path", "data"))
			// The whole body as the records, and payload mode.
			sameBothWays(t, pagedProps(base))
			sameBothWays(t, pagedProps(base, "svc.restapi.parse.payload", "false"))
		})
	}
	t.Run("arrays as bodies", func(t *testing.T) {
		t.Parallel()
		base := pagesServer(t, "application/json", `[{"a":1},{"a":2}]`, `[3]`, ``)
		sameBothWays(t, pagedProps(base))
	})
	t.Run("ndjson", func(t *testing.T) {
		t.Parallel()
		base := pagesServer(t, "application/x-ndjson", "{\"a\":1}\n{\"a\":\"x\"}\n", "\r\n{\"b\":[1]}\r{\"a\":null}", "\n")
		props := pagedProps(base, "svc.restapi.response.format", "ndjson")
		sameBothWays(t, props)
		sameBothWays(t, with(props, "svc.restapi.parse.payload", "false"))
		bad := pagesServer(t, "application/x-ndjson", "{\"a\":1}\n", "{\"a\":2}\n{\"a\":\n", "")
		msg := sameBothWays(t, pagedProps(bad, "svc.restapi.response.format", "ndjson"))
		require.Contains(t, msg, "page 2 (")
	})
	t.Run("csv", func(t *testing.T) {
		t.Parallel()
		base := pagesServer(t, "text/csv", "id,n,ok\n1,2.5,true\n2,,false\n", "id,n,ok\n3,x,true\n", "")
		props := pagedProps(base, "svc.restapi.response.format", "csv")
		sameBothWays(t, props)
		sameBothWays(t, with(props, "svc.restapi.parse.payload", "false"))
		empty := pagesServer(t, "text/csv", "")
		sameBothWays(t, pagedProps(empty, "svc.restapi.response.format", "csv"))
		other := pagesServer(t, "text/csv", "id\n1\n", "key\n2\n", "")
		msg := sameBothWays(t, pagedProps(other, "svc.restapi.response.format", "csv"))
		require.Contains(t, msg, "differs from page 1")
	})
}

// endless serves pages of two records (?page=N), page `fail` failing
// with a 500.
func endless(t *testing.T, fail int) string {
	t.Helper()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n == fail {
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, `{"data":[{"id":`+strconv.Itoa(2*n)+`,"s":"`+strings.Repeat("x", 100)+`"},{"id":`+strconv.Itoa(2*n+1)+`}]}`)
	})
	return srv.URL
}

// The spool file is removed after a read, after a failed read, and after a
// read cancelled while pages arrive or while the stream is read.
func TestReadStreamRemovesSpool(t *testing.T) {
	t.Parallel()
	endlessProps := func(base string) connectors.Props {
		return connectors.Props{
			"svc.restapi.url": base, "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "data",
			"svc.restapi.paginate.type": "page", "svc.restapi.paginate.max.pages": "1000", "svc.restapi.retry.max": "0",
		}
	}
	sr := connector(t).(connectors.StreamReader)
	ds := func(p connectors.Props) *connectors.Dataset { return &connectors.Dataset{Name: "t.spool", Props: p} }
	twoPages := func(t *testing.T) connectors.Props {
		return pagedProps(pagesServer(t, "application/json", `{"data":[{"a":1}]}`, `{"data":[{"a":2}]}`), "svc.restapi.records.path", "data")
	}

	t.Run("read to the end", func(t *testing.T) {
		t.Parallel()
		ctx, dir := spoolCtx(t, ctxT(t), restapi.ReadOptions{})
		s, err := sr.ReadStream(ctx, ds(twoPages(t)))
		require.NoError(t, err)
		defer s.Release()
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, entries, 1, "the spool is there while the stream is read")
		require.True(t, strings.HasPrefix(entries[0].Name(), "sluice-restapi-"))
		info, err := entries[0].Info()
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the spool may hold secrets: owner only")
		rows := int64(0)
		for s.Next() {
			rows += s.Record().NumRows()
		}
		require.NoError(t, s.Err())
		require.EqualValues(t, 2, rows)
		requireEmptyDir(t, dir) // removed at the end of the data already
	})
	t.Run("released early", func(t *testing.T) {
		t.Parallel()
		ctx, dir := spoolCtx(t, ctxT(t), restapi.ReadOptions{})
		s, err := sr.ReadStream(ctx, ds(twoPages(t)))
		require.NoError(t, err)
		s.Release() // before the first batch
		requireEmptyDir(t, dir)
	})
	t.Run("error mid-read", func(t *testing.T) {
		t.Parallel()
		ctx, dir := spoolCtx(t, ctxT(t), restapi.ReadOptions{})
		s, err := sr.ReadStream(ctx, ds(endlessProps(endless(t, 31))))
		require.ErrorContains(t, err, "reading t.spool page 31: GET")
		require.ErrorContains(t, err, "HTTP 500")
		require.Nil(t, s)
		requireEmptyDir(t, dir)
	})
	t.Run("cancelled while reading pages", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(ctxT(t))
		defer cancel()
		ctx, dir := spoolCtx(t, ctx, restapi.ReadOptions{OnPage: func(p restapi.PageInfo) error {
			if p.Number == 5 {
				cancel() // Ctrl-C
			}
			return nil
		}})
		s, err := sr.ReadStream(ctx, ds(endlessProps(endless(t, -1))))
		require.ErrorIs(t, err, context.Canceled)
		require.Nil(t, s)
		requireEmptyDir(t, dir)
	})
	t.Run("cancelled while streaming", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(ctxT(t))
		defer cancel()
		ctx, dir := spoolCtx(t, ctx, restapi.ReadOptions{})
		s, err := sr.ReadStream(ctx, ds(twoPages(t)))
		require.NoError(t, err)
		cancel()
		for s.Next() {
		}
		require.ErrorIs(t, s.Err(), context.Canceled)
		s.Release()
		requireEmptyDir(t, dir)
	})
}

// A streamed read frees every batch it made (payload, JSON and CSV
// spools), read to the end or released early.
func TestReadStreamNoLeak(t *testing.T) {
	t.Parallel()
	base := pagesServer(t, "application/json", `{"data":[{"a":1,"b":[{"c":"x"}]}]}`, `{"data":[{"a":2.5}]}`, `{"data":[{"b":[]}]}`)
	csvBase := pagesServer(t, "text/csv", "a,b\n1,x\n", "a,b\n2,\n", "")
	for name, props := range map[string]connectors.Props{
		"json":    pagedProps(base, "svc.restapi.records.path", "data"),
		"payload": pagedProps(base, "svc.restapi.parse.payload", "false"),
		"csv":     pagedProps(csvBase, "svc.restapi.response.format", "csv"),
	} {
		for _, early := range []bool{false, true} {
			t.Run(name+"/early="+strconv.FormatBool(early), func(t *testing.T) {
				t.Parallel()
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				ctx, dir := spoolCtx(t, ctxT(t), restapi.ReadOptions{Allocator: mem})
				s, err := connector(t).(connectors.StreamReader).ReadStream(ctx, &connectors.Dataset{Name: "t.leak", Props: props})
				require.NoError(t, err)
				rows := int64(0)
				for !early && s.Next() {
					rows += s.Record().NumRows()
				}
				if early {
					require.True(t, s.Next())
				} else {
					require.NoError(t, s.Err())
					require.EqualValues(t, 3-btoi(name == "csv"), rows)
				}
				s.Release()
				requireEmptyDir(t, dir)
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A spool streams the read as often as asked, without another request, and
// goes once it and every stream opened from it are released.
func TestReadSpoolServesEveryOpen(t *testing.T) {
	t.Parallel()
	for _, parse := range []string{"true", "false"} {
		ctx, dir := spoolCtx(t, ctxT(t), restapi.ReadOptions{})
		var requests atomic.Int64
		srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
			requests.Add(1)
			if r.URL.Query().Get("page") == "2" {
				io.WriteString(w, `{"data":[{"a":2}]}`)
				return
			}
			io.WriteString(w, `{"data":[{"a":1}],"next":"2"}`)
		})
		sp, err := connector(t).(connectors.SpoolReader).ReadSpool(ctx, &connectors.Dataset{Name: "t.spool", Props: connectors.Props{
			"svc.restapi.url": srv.URL, "svc.restapi.parse.payload": parse, "svc.restapi.records.path": "data",
			"svc.restapi.paginate.next.field": "next", "svc.restapi.paginate.next.param": "page"}})
		require.NoError(t, err)
		first, err := sp.Open(ctx)
		require.NoError(t, err)
		second, err := sp.Open(ctx)
		require.NoError(t, err)
		a, err := dataframe.Collect(first)
		require.NoError(t, err)
		b, err := dataframe.Collect(second)
		require.NoError(t, err)
		require.EqualValues(t, 2, a.NumRows(), parse)
		require.Equal(t, rowsJSON(t, a), rowsJSON(t, b), parse)
		a.Release()
		b.Release()
		first.Release()
		third, err := sp.Open(ctx)
		require.NoError(t, err)
		require.NotEmpty(t, mustReadDir(t, dir), "the spool stays while it is not released")
		sp.Release()
		second.Release()
		require.NotEmpty(t, mustReadDir(t, dir), "an open stream keeps it")
		third.Release()
		requireEmptyDir(t, dir)
		require.EqualValues(t, 2, requests.Load(), "one request per page, whatever the opens")
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	return entries
}
