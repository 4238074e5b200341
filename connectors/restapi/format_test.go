package restapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

func TestResponseFormats(t *testing.T) {
	t.Parallel()
	pages := map[string][]string{
		"ndjson": {"{\"id\":1,\"n\":\"a\"}\n{\"id\":2}\n", "{\"id\":3,\"x\":1.5}\n"},
		"csv":    {"id,name,ok,score\n1,a,true,1.5\n2,,false,2\n", "id,name,ok,score\n3,c,TRUE,x\n"},
	}
	for _, format := range []string{"ndjson", "csv"} {
		srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
			if r.URL.Path != "/p2" {
				w.Header().Set("Link", `</p2>; rel="next"`)
				w.Write([]byte(pages[format][0]))
				return
			}
			w.Write([]byte(pages[format][1]))
		})
		base := connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.response.format": format, "svc.restapi.paginate.type": "link"}

		raw, err := read(t, base, nil)
		switch format {
		case "ndjson":
			require.NoError(t, err)
			require.Equal(t, pages[format], payloads(t, raw), "payload mode keeps one row per page")
		case "csv":
			require.NoError(t, err)
			require.Equal(t, "root\n |-- id: string (nullable = true)\n |-- name: string (nullable = true)\n |-- ok: string (nullable = true)\n |-- score: string (nullable = true)\n", schema(t, raw))
			require.EqualValues(t, 3, raw.NumRows())
		}

		parsed, err := read(t, with(base, "svc.restapi.parse.payload", "true"), nil)
		require.NoError(t, err)
		require.EqualValues(t, 3, parsed.NumRows())
		switch format {
		case "ndjson":
			require.Equal(t, "root\n |-- id: long (nullable = true)\n |-- n: string (nullable = true)\n |-- x: double (nullable = true)\n", schema(t, parsed))
		case "csv":
			require.Equal(t, "root\n |-- id: long (nullable = true)\n |-- name: string (nullable = true)\n |-- ok: boolean (nullable = true)\n |-- score: string (nullable = true)\n", schema(t, parsed))
		}
	}

	// A CSV page whose header differs, and invalid JSON lines, name the page.
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Link", `</p2>; rel="next"`)
			w.Write([]byte("a,b\n1,2\n"))
			return
		}
		w.Write([]byte("a,c\n1,2\n"))
	})
	_, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.response.format": "csv", "svc.restapi.paginate.type": "link"}, nil)
	require.ErrorContains(t, err, `page 2 (`+srv.URL+`/p2): the CSV header ["a" "c"] differs from page 1's ["a" "b"]`)

	srv2, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Link", `</p2>; rel="next"`)
			w.Write([]byte("{\"a\":1}\n"))
			return
		}
		w.Write([]byte("{\"a\":2}\n{\"a\":\n"))
	})
	_, err = read(t, connectors.Props{"svc.restapi.url": srv2.URL, "svc.restapi.response.format": "ndjson", "svc.restapi.paginate.type": "link", "svc.restapi.parse.payload": "true"}, nil)
	require.ErrorContains(t, err, "page 2 (")
	require.ErrorContains(t, err, "invalid JSON at byte offset")

	_, err = read(t, connectors.Props{"svc.restapi.url": srv2.URL, "svc.restapi.response.format": "csv", "svc.restapi.records.path": "items"}, nil)
	require.ErrorContains(t, err, "property svc.restapi.records.path applies to JSON responses, but svc.restapi.response.format=csv")
}

func schema(t testing.TB, f *dataframe.Frame) string {
	t.Helper()
	require.NotNil(t, f)
	return dataframe.SchemaString(f.Schema())
}
