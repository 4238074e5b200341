package restapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
)

// A Gimel-style dataset: the URL comes from a pattern whose tokens are other
// properties; two pages are followed through nextPageToken and parsed into
// one row per element of items.
func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("key") != "s3cret" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		if r.URL.Query().Get("pageToken") == "" {
			_, _ = io.WriteString(w, `{"nextPageToken":"CAUQAA","items":[{"id":"a","snippet":{"title":"TEDx Talks"}}]}`)
			return
		}
		_, _ = io.WriteString(w, `{"items":[{"id":"b","snippet":{"title":"Google Developers","rank":2}}]}`)
	}))
	defer api.Close()

	dsp := connectors.DataSetProperties{
		Type: "RESTAPI",
		Props: map[string]string{
			"svc.restapi.url.pattern":           "svc.restapi.pattern.subscriptions",
			"svc.restapi.pattern.subscriptions": "{svc.restapi.baseURL}/youtube/{svc.restapi.apiVersion}/subscriptions?part=snippet%2CcontentDetails&key={svc.restapi.accessKey}",
			"svc.restapi.baseURL":               api.URL,
			"svc.restapi.apiVersion":            "v3",
			"svc.restapi.accessKey":             "s3cret",
			"svc.restapi.parse.payload":         "true",
			"svc.restapi.records.path":          "items",
			"svc.restapi.paginate.next.field":   "nextPageToken",
			"svc.restapi.paginate.next.param":   "pageToken",
		},
	}
	c, err := connectors.Lookup(dsp.Type)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := c.Read(context.Background(), &connectors.Dataset{Name: "yt.subscriptions", Props: dsp.Props})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Release()
	fmt.Print(dataframe.SchemaString(f.Schema()))
	_ = f.EachRowJSON(func(_ int64, obj []byte) error {
		fmt.Println(string(obj))
		return nil
	})
	// Output:
	// root
	//  |-- id: string (nullable = true)
	//  |-- snippet: struct (nullable = true)
	//  |    |-- rank: long (nullable = true)
	//  |    |-- title: string (nullable = true)
	// {"id":"a","snippet":{"rank":null,"title":"TEDx Talks"}}
	// {"id":"b","snippet":{"rank":2,"title":"Google Developers"}}
}
