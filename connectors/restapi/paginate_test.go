package restapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/connectors/restapi/restapitest"
)

// TestPaginatorMatrix runs every paginator through a normal end, max.pages
// hit, a repeated token (or a server ignoring the page parameter), an empty
// last page and a last page without the records array.
func TestPaginatorMatrix(t *testing.T) {
	t.Parallel()
	for _, kind := range restapitest.Kinds {
		for _, scenario := range []string{"normal", "max", "repeated", "empty", "missing"} {
			t.Run(kind+"/"+scenario, func(t *testing.T) {
				t.Parallel()
				l := &restapitest.Listing{Kind: kind, Sizes: []int{10, 10, 5}, Loop: scenario == "repeated"}
				switch scenario {
				case "empty":
					l.Sizes[2] = 0
				case "missing":
					l.Sizes[2] = -1 // no data array at all
				}
				srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { l.ServeHTTP(w, r) })
				p := connectors.Props(l.Props(srv.URL))
				if scenario == "max" {
					p["svc.restapi.paginate.max.pages"] = "2"
				}
				f, err := read(t, p, nil)
				switch scenario {
				case "normal":
					require.NoError(t, err)
					require.EqualValues(t, 25, f.NumRows())
					require.Equal(t, l.Requests(), rec.count())
				case "max":
					require.ErrorIs(t, err, restapi.ErrTooManyPages)
					require.ErrorContains(t, err, "more than 2 pages")
					require.Equal(t, 2, rec.count())
				case "repeated":
					if kind == "offset" || kind == "page" {
						require.ErrorIs(t, err, restapi.ErrRepeatedPage)
						require.ErrorContains(t, err, "page 2 is the same as page 1")
					} else {
						require.ErrorIs(t, err, restapi.ErrRepeatedToken)
						require.ErrorContains(t, err, "was already returned by page")
					}
					require.Equal(t, 2, rec.count())
				case "empty", "missing":
					require.NoError(t, err)
					require.EqualValues(t, 20, f.NumRows())
					require.Equal(t, 3, rec.count())
				}
				if f != nil {
					f.Release()
				}
			})
		}
	}
}

// TestPaginatorMatrixWithTotal runs offset and page listings whose first
// page gives the total, read concurrently, through the same scenarios.
func TestPaginatorMatrixWithTotal(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"offset", "page"} {
		for _, scenario := range []string{"normal", "max", "repeated", "empty"} {
			t.Run(kind+"/"+scenario, func(t *testing.T) {
				t.Parallel()
				l := &restapitest.Listing{Kind: kind, Sizes: []int{10, 10, 5}, Loop: scenario == "repeated", Total: true}
				if scenario == "empty" {
					l.Sizes[2] = 0
				}
				srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { l.ServeHTTP(w, r) })
				p := connectors.Props(l.Props(srv.URL))
				if scenario == "max" {
					p["svc.restapi.paginate.max.pages"] = "2"
				}
				f, err := read(t, p, nil)
				if f != nil {
					defer f.Release()
				}
				switch {
				case scenario == "normal":
					require.NoError(t, err)
					require.EqualValues(t, 25, f.NumRows())
					require.Equal(t, 3, rec.count())
				case scenario == "max":
					require.ErrorIs(t, err, restapi.ErrTooManyPages)
					require.ErrorContains(t, err, "more than 2 pages")
					require.Equal(t, 2, rec.count())
				case scenario == "repeated":
					require.ErrorIs(t, err, restapi.ErrRepeatedPage)
					require.ErrorContains(t, err, "page 2 is the same as page 1")
					require.LessOrEqual(t, rec.count(), 3)
				default: // the total counts 20 records: offset stops there, page on the empty third page
					require.NoError(t, err)
					require.EqualValues(t, 20, f.NumRows())
					require.Equal(t, map[string]int{"offset": 2, "page": 3}[kind], rec.count())
				}
			})
		}
	}
}

func TestPaginationConfigErrors(t *testing.T) {
	t.Parallel()
	base := connectors.Props{"svc.restapi.url": "http://127.0.0.1:1/x", "svc.restapi.parse.payload": "true"}
	tests := []struct {
		kv   []string
		want string
	}{
		{[]string{"svc.restapi.paginate.next.field", "next"},
			"svc.restapi.paginate.next.field is set but not where the token goes: set svc.restapi.paginate.next.param"},
		{[]string{"svc.restapi.paginate.next.param", "cursor"},
			"svc.restapi.paginate.next.param is set but not where the token is"},
		{[]string{"svc.restapi.paginate.type", "token"}, "svc.restapi.paginate.type=token needs where the token is"},
		{[]string{"svc.restapi.paginate.type", "link", "svc.restapi.paginate.total.field", "total"},
			"svc.restapi.paginate.total.field is not used by svc.restapi.paginate.type=link (it uses link.has.more.attr)"},
		{[]string{"svc.restapi.paginate.type", "offset", "svc.restapi.paginate.next.param", "c", "svc.restapi.paginate.page.param", "p"},
			"svc.restapi.paginate.next.param, svc.restapi.paginate.page.param are not used by svc.restapi.paginate.type=offset"},
		{[]string{"svc.restapi.paginate.total.pages.field", "pages"}, "is not used by svc.restapi.paginate.type=none"},
		{[]string{"svc.restapi.paginate.type", "page", "svc.restapi.paginate.size", "10"},
			"svc.restapi.paginate.size.param and svc.restapi.paginate.size go together"},
		{[]string{"svc.restapi.paginate.next.field", "a", "svc.restapi.paginate.next.header", "X", "svc.restapi.paginate.next.param", "c"},
			"are both set: the token comes from one place"},
		{[]string{"svc.restapi.paginate.next.field", "a", "svc.restapi.paginate.next.body.field", "c"},
			"svc.restapi.paginate.next.body.field needs svc.restapi.read.method=POST"},
		{[]string{"svc.restapi.paginate.type", "next_url", "svc.restapi.response.format", "csv"},
			"svc.restapi.paginate.next.url.field reads a field of a JSON body, but svc.restapi.response.format=csv"},
		{[]string{"svc.restapi.paginate.next.feild", "a"},
			"unknown property svc.restapi.paginate.next.feild (did you mean svc.restapi.paginate.next.field?)"},
		{[]string{"svc.restapi.read.body", `{"a":1}`}, "svc.restapi.read.body needs svc.restapi.read.method=POST"},
		{[]string{"svc.restapi.records.path", "a..b"}, "svc.restapi.records.path: \"a..b\" has an empty key"},
	}
	v := connector(t).(connectors.Validator)
	for _, tt := range tests {
		p := with(base, tt.kv...)
		_, err := read(t, p, nil)
		require.ErrorContains(t, err, tt.want, "read %v", tt.kv)
		require.ErrorContains(t, v.Validate(nil, p), tt.want, "CREATE %v", tt.kv)
	}
}

func TestRecordsPathNotFound(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Write([]byte(`{"data":{"results":[1],"cursor":null},"meta":{"count":1},"ok":true}`))
	})
	_, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "data.items"}, nil)
	require.ErrorIs(t, err, restapi.ErrRecordsPathNotFound)
	require.ErrorContains(t, err, `records.path "data.items" not found; the response has: data.cursor, data.results, meta.count, ok`)

	// null at the path is present: no rows, no error.
	srv2, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{"items":null}`)) })
	f, err := read(t, connectors.Props{"svc.restapi.url": srv2.URL, "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "items"}, nil)
	require.NoError(t, err)
	require.EqualValues(t, 0, f.NumRows())
}

func TestResponseErrorFields(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Write([]byte(`{"ok":true,"members":[{"id":1}],"response_metadata":{"next_cursor":"abc"}}`))
			return
		}
		w.Write([]byte(`{"ok":false,"error":"ratelimited"}`))
	})
	p := connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "members",
		"svc.restapi.response.ok.field": "ok", "svc.restapi.paginate.next.field": "response_metadata.next_cursor", "svc.restapi.paginate.next.param": "cursor"}
	_, err := read(t, p, nil)
	require.ErrorIs(t, err, restapi.ErrResponseError)
	require.ErrorContains(t, err, `page 2 (`)
	require.ErrorContains(t, err, `svc.restapi.response.ok.field ok is false: {"ok":false,"error":"ratelimited"}`)
	require.Equal(t, 2, rec.count())

	srv2, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Write([]byte(`{"data":null,"errors":[{"message":"Field 'x' doesn't exist"}]}`))
	})
	_, err = read(t, connectors.Props{"svc.restapi.url": srv2.URL, "svc.restapi.response.error.field": "errors"}, nil)
	require.ErrorContains(t, err, `svc.restapi.response.error.field errors is set: [{"message":"Field 'x' doesn't exist"}]`)
}

func TestDottedPaths(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 1:
			fmt.Fprintf(w, `{"value":[{"id":1}],"@odata.nextLink":"http://%s/next?skip=1"}`, r.Host)
		case 2:
			w.Write([]byte(`{"value":[{"id":2}],"a.b":{"c":"tok"}}`))
		default:
			w.Write([]byte(`{"value":[{"id":3}]}`))
		}
	})
	f, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.parse.payload": "true", "svc.restapi.records.path": "value",
		"svc.restapi.paginate.type": "next_url", "svc.restapi.paginate.next.url.field": "@odata.nextLink"}, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, f.NumRows())
	require.Equal(t, "/next?skip=1", rec.all()[1].URI)

	// \. escapes a dot inside a key.
	srv2, rec2 := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Write([]byte(`{"value":[{"id":1}],"a.b":{"c":7}}`))
			return
		}
		w.Write([]byte(`{"value":[{"id":2}]}`))
	})
	_, err = read(t, connectors.Props{"svc.restapi.url": srv2.URL + "/l", "svc.restapi.paginate.next.field": `a\.b.c`, "svc.restapi.paginate.next.param": "after"}, nil)
	require.NoError(t, err)
	require.Equal(t, "/l?after=7", rec2.all()[1].URI, "a numeric token is sent as its JSON text")
}
