package restapi_test

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/connectortest"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// storeServer is a tiny REST collection behind a key and a bearer token:
// POST and PUT append the body, GET lists everything as {"items":[…]}.
// Reading it parsed with records.path=items gives back the rows written.
func storeServer(t *testing.T) string {
	t.Helper()
	var mu sync.Mutex
	var items [][]byte
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Query().Get("key") != testKey || r.Header.Get("Authorization") != "Bearer "+testKey+"-bearer" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, "denied: "+r.RequestURI)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch r.Method {
		case http.MethodPost, http.MethodPut:
			b, _ := io.ReadAll(r.Body)
			items = append(items, b)
			w.WriteHeader(http.StatusCreated)
		case http.MethodGet:
			_, _ = io.WriteString(w, `{"items":[`+string(bytes.Join(items, []byte(",")))+`]}`)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
	return srv.URL
}

func storeProps(base string) connectors.Props {
	return connectors.Props{
		"svc.storage.type":                 "RESTAPI",
		"svc.restapi.url.pattern":          "svc.restapi.pattern.items",
		"svc.restapi.pattern.items":        "{svc.restapi.baseURL}/items?key={svc.restapi.accessKey}",
		"svc.restapi.baseURL":              base,
		"svc.restapi.accessKey":            testKey,
		"svc.restapi.header.Authorization": "Bearer " + testKey + "-bearer",
		"svc.restapi.parse.payload":        "true",
		"svc.restapi.records.path":         "items",
		"svc.restapi.retry.wait.min":       "1ms",
		"svc.restapi.retry.wait.max":       "2ms",
	}
}

func TestConformance(t *testing.T) {
	want, err := jsonframe.ReadDocument([]byte(`[
		{"id":1,"snippet":{"title":"TEDx Talks","tags":["a","b"]},"score":0.5},
		{"id":2,"snippet":{"title":"Google Developers","tags":[]},"score":null}
	]`), jsonframe.Options{})
	require.NoError(t, err)
	t.Cleanup(want.Release)

	connectortest.Run(t, restapi.Type, connectortest.Harness{
		NewDataset: func(t *testing.T) connectortest.Case {
			return connectortest.Case{
				Dataset:   &connectors.Dataset{Name: "api.items", Props: storeProps(storeServer(t))},
				Want:      want,
				RoundTrip: true,
			}
		},
		Failing: func(t *testing.T) (*connectors.Dataset, error) {
			props := storeProps(storeServer(t))
			props["svc.restapi.header.Authorization"] = "Bearer wrong-" + testKey
			return &connectors.Dataset{Name: "api.items", Props: props}, restapi.ErrHTTPStatus
		},
		Blocking: func(t *testing.T) (*connectors.Dataset, <-chan struct{}) {
			started := make(chan struct{})
			var once sync.Once
			srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				once.Do(func() { close(started) })
				select {
				case <-r.Context().Done():
				case <-time.After(30 * time.Second):
				}
			})
			return &connectors.Dataset{Name: "slow", Props: connectors.Props{"svc.restapi.url": srv.URL}}, started
		},
		Fields: []connectors.Field{{Name: "payload", Type: "string", Nullable: true}},
		BadProps: []connectortest.BadProps{
			{Props: connectors.Props{"svc.restapi.write.mode": "PATCH"}, Property: "svc.restapi.write.mode"},
			{Props: connectors.Props{"svc.restapi.timeout": "forever"}, Property: "svc.restapi.timeout"},
			{Props: connectors.Props{"svc.restapi.retry.max": "x"}, Property: "svc.restapi.retry.max"},
			{Props: connectors.Props{"svc.restapi.paginate.max.pages": "-3"}, Property: "svc.restapi.paginate.max.pages"},
			{Props: connectors.Props{"svc.restapi.max.response.bytes": "big"}, Property: "svc.restapi.max.response.bytes"},
			{Fields: []connectors.Field{{Name: "id", Type: "long"}}, Property: "payload string"},
		},
	})
}
