package catalog_test

import (
	"context"
	"fmt"
	"os"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// A USER-mode read, as in Gimel: the dataset is described by a
// DataSetProperties passed under `<name>.dataSetProperties`, no catalog
// table needed.
func ExampleSession_Read() {
	srv := serveFixture("youtube_subscriptions_by_channel_p1.json")
	defer srv.Close()

	s := catalog.NewSession(nil) // USER mode needs no catalog
	dsp := connectors.DataSetProperties{
		Type:   "RESTAPI",
		Fields: []connectors.Field{{Name: "payload", Type: "string", Nullable: true}},
		Props: map[string]string{
			"svc.restapi.url.pattern":   "svc.restapi.pattern.subs",
			"svc.restapi.pattern.subs":  "{svc.restapi.baseURL}/subscriptions?channelId={svc.restapi.channelId}",
			"svc.restapi.baseURL":       srv.URL,
			"svc.restapi.channelId":     "UCAuUUnT6oDeKwE6v1NGQxug",
			"svc.restapi.parse.payload": "true",
			"svc.restapi.records.path":  "items",
		},
	}
	f, err := s.Read(context.Background(), "yt.subs", map[string]any{"yt.subs.dataSetProperties": dsp})
	if err != nil {
		panic(err)
	}
	defer f.Release()
	titles, err := dataframe.Project(f, []dataframe.Projection{{Path: "snippet.title"}, {Path: "snippet.resourceId.channelId", Alias: "channel"}})
	if err != nil {
		panic(err)
	}
	defer titles.Release()
	_ = titles.EachRowJSON(func(_ int64, obj []byte) error {
		fmt.Println(string(obj))
		return nil
	})
	// Output:
	// {"title":"TEDx Talks","channel":"UCsT0YIqwnpJCM-mx7-gSA4Q"}
	// {"title":"TED Residency","channel":"UCtC8aQzdEHAmuw8YvtH1CcQ"}
	// {"title":"TED-Ed","channel":"UCsooa4yRKGN_zEE8iknghZA"}
	// {"title":"TEDxYouth","channel":"UC-yTB2bUcin9mmah36sXiYA"}
	// {"title":"TED-Ed Educator Talks","channel":"UC9k9wQAp0SrWYZVORZnPIlg"}
}

// SQL over the catalog: create a table, then query it.
func ExampleSession_ExecuteBatch() {
	srv := serveFixture("youtube_channels_info.json")
	defer srv.Close()
	cat, _, done := exampleCatalog()
	defer done()
	s := catalog.NewSession(cat)
	f, err := s.ExecuteBatch(context.Background(), `
		CREATE EXTERNAL TABLE yt.channels TBLPROPERTIES (
		  'svc.storage.type' = 'RESTAPI',
		  'svc.restapi.url' = '`+srv.URL+`/channels?id=UC_x5XG1OV2P6uZZ5FSM9Ttw',
		  'svc.restapi.parse.payload' = 'true',
		  'svc.restapi.records.path' = 'items');
		SELECT id, snippet.title AS title, snippet.publishedAt
		FROM yt.channels WHERE snippet.customUrl = '@googledevelopers'`)
	if err != nil {
		panic(err)
	}
	defer f.Release()
	_ = f.EachRowJSON(func(_ int64, obj []byte) error {
		fmt.Println(string(obj))
		return nil
	})
	// Output:
	// {"id":"UC_x5XG1OV2P6uZZ5FSM9Ttw","title":"Google Developers","publishedAt":"2007-08-23T00:34:43Z"}
}

// SQL over a Go program's own frames: each map key is a table name.
func ExampleSQLFrames() {
	subs, err := jsonframe.FromValues([]string{"channel", "title"}, [][]any{
		{"TED", "TED-Ed"}, {"Google", "Android"}, {"TED", "TEDx"}, {"TED", nil},
	})
	if err != nil {
		panic(err)
	}
	defer subs.Release()
	out, err := catalog.SQLFrames(context.Background(), nil,
		"SELECT channel, count(*) AS n, count(title) AS titled FROM subs GROUP BY channel ORDER BY n DESC",
		map[string]*dataframe.Frame{"subs": subs})
	if err != nil {
		panic(err)
	}
	defer out.Release()
	if err := dataframe.WriteTable(os.Stdout, out, dataframe.TableOptions{}); err != nil {
		panic(err)
	}
	// Output:
	// +-------+---+------+
	// |channel|n  |titled|
	// +-------+---+------+
	// |TED    |3  |2     |
	// |Google |1  |1     |
	// +-------+---+------+
}
