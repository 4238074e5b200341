package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
)

// demoUpload is one activity of the demo's made-up activities feed.
type demoUpload struct {
	channel, id, title, publishedAt string
}

// serveActivities answers GET /youtube/v3/activities?channelId=…
// [&publishedAfter=…] like the YouTube Data API's activities.list, with
// made-up data (nothing recorded): every channel has two uploads, plus
// those the demo added. publishedAfter is inclusive, as YouTube documents
// it ("the earliest date and time"), so the last run's newest activity comes
// back and the primary key drops it.
func (y *ytServer) serveActivities(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ch := q.Get("channelId")
	after := q.Get("publishedAfter")
	y.mu.Lock()
	all := []demoUpload{
		{ch, "act-" + ch + "-1", "Welcome to the channel", "2024-03-01T09:00:00Z"},
		{ch, "act-" + ch + "-2", "Behind the scenes", "2024-04-15T18:30:00Z"},
	}
	for _, u := range y.uploads {
		if u.channel == ch {
			all = append(all, u)
		}
	}
	y.mu.Unlock()
	items := []map[string]any{}
	for _, u := range all {
		if after != "" && u.publishedAt < after {
			continue
		}
		items = append(items, map[string]any{
			"kind": "youtube#activity", "id": u.id,
			"snippet": map[string]any{"publishedAt": u.publishedAt, "channelId": u.channel, "title": u.title, "type": "upload"},
		})
	}
	sort.SliceStable(items, func(i, j int) bool {
		return items[i]["snippet"].(map[string]any)["publishedAt"].(string) < items[j]["snippet"].(map[string]any)["publishedAt"].(string)
	})
	b, _ := json.Marshal(map[string]any{"kind": "youtube#activityListResponse", "etag": "demo", "pageInfo": map[string]any{"totalResults": len(items), "resultsPerPage": 50}, "items": items})
	ytJSON(w, b)
}

func (y *ytServer) addUpload(u demoUpload) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.uploads = append(y.uploads, u)
}

const demoActivitiesPattern = "{svc.restapi.baseURL}/activities?part=snippet&channelId={svc.restapi.channelId}&maxResults=50&key={svc.restapi.accessKey}"

// activitiesTable is the CREATE TABLE of a RESTAPI table over the demo's
// activities feed: the properties every such table shares (the key as a
// file reference), then props, name-value pairs (the channel, the cursor,
// the fan-out).
func (d *demo) activitiesTable(name string, props ...[2]string) string {
	all := append([][2]string{
		{"svc.storage.type", "RESTAPI"},
		{"svc.restapi.baseURL", d.api.url + "/youtube/v3"},
		{"svc.restapi.accessKey", d.keyRef},
		{"svc.restapi.url.pattern", "svc.restapi.pattern.activities"},
		{"svc.restapi.pattern.activities", demoActivitiesPattern},
		{"svc.restapi.parse.payload", "true"},
		{"svc.restapi.records.path", "items"},
	}, props...)
	width := 0
	for _, p := range all {
		width = max(width, len(p[0])+2)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s TBLPROPERTIES (", name)
	for i, p := range all {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n  %-*s = '%s'", width, "'"+p[0]+"'", p[1])
	}
	b.WriteString("\n)")
	return b.String()
}

// ---- step: incremental load into merged Parquet -------------------------

func (d *demo) stepIncremental(ctx context.Context) error {
	d.say("An incremental table remembers where the last delivered read ended: the cursor")
	d.say("(snippet.publishedAt) goes into publishedAfter on the next run, and the state file")
	d.say("moves only after the rows were written. The Parquet table merges on id, so a row")
	d.say("sent again replaces itself instead of doubling (docs/incremental.md).")
	s := d.session()
	file := filepath.Join(d.dir, "out", "activities.parquet")
	create := d.activitiesTable("yt.activities",
		[2]string{"svc.restapi.channelId", demoChannel},
		[2]string{"svc.restapi.incremental.cursor", "snippet.publishedAt"},
		[2]string{"svc.restapi.incremental.param", "publishedAfter"},
		[2]string{"svc.restapi.incremental.initial", "2024-01-01T00:00:00Z"},
		[2]string{"svc.restapi.primary.key", "id"})
	if err := d.sql(ctx, s, create, nil); err != nil {
		return err
	}
	if err := d.sql(ctx, s, fmt.Sprintf(`CREATE TABLE lake.activities TBLPROPERTIES (
  'svc.storage.type' = 'PARQUET', 'svc.parquet.path' = '%s',
  'svc.parquet.mode' = 'merge',   'svc.parquet.merge.key' = 'id'
)`, file), nil); err != nil {
		return err
	}
	load := "INSERT INTO lake.activities SELECT id, snippet.title AS title, snippet.publishedAt AS publishedAt FROM yt.activities"
	d.say("First run: everything since incremental.initial.")
	if err := d.sql(ctx, s, load, nil); err != nil {
		return err
	}
	if err := d.showState(ctx); err != nil {
		return err
	}
	d.say("A new upload appears. The second run asks for publishedAfter=2024-04-15T18:30:00Z; the")
	d.say("API sends that activity again (inclusive), the state's keys drop it, and one row is new:")
	d.api.addUpload(demoUpload{demoChannel, "act-" + demoChannel + "-3", "Live from the demo", "2024-06-01T12:00:00Z"})
	if err := d.sql(ctx, s, load, nil); err != nil {
		return err
	}
	n, err := d.queryShow(ctx, s, "SELECT id, title, publishedAt FROM lake.activities", nil)
	if err != nil {
		return err
	}
	d.result("%d rows in %s, each id once; `sluice state show yt.activities` prints the state, `--full-refresh` ignores it for a run", n, file)
	return nil
}

// showState prints yt.activities' state file as `sluice state show` does.
func (d *demo) showState(ctx context.Context) error {
	d.echoCmd("sluice state show yt.activities")
	st, err := d.cat.State(ctx, "yt", "activities")
	if err != nil {
		return err
	}
	if st == nil {
		return fmt.Errorf("no state after a delivered incremental load")
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "updated_at") {
			line = strings.SplitN(line, ":", 2)[0] + `: "…"` // changes every run
		}
		d.result("%s", line)
	}
	return nil
}

// ---- step: fan-out ------------------------------------------------------

func (d *demo) stepFanout(ctx context.Context) error {
	d.say("A fan-out table reads one child per value of a parent table's column: here the")
	d.say("activities of each channel in lake.subscriptions (the Parquet file of step 4), four")
	d.say("requests at a time, rows in the parent's order with the value in _parent_channelId.")
	s := d.session()
	create := d.activitiesTable("yt.subscribed_activities",
		[2]string{"svc.restapi.fanout.from", "lake.subscriptions"},
		[2]string{"svc.restapi.fanout.column", "channelId"},
		[2]string{"svc.restapi.fanout.token", "svc.restapi.channelId"},
		[2]string{"svc.restapi.fanout.concurrency", "4"})
	if err := d.sql(ctx, s, create, nil); err != nil {
		return err
	}
	before := d.api.requests()
	n, err := d.queryShow(ctx, s, "SELECT _parent_channelId, snippet.title AS title, snippet.publishedAt AS publishedAt FROM yt.subscribed_activities LIMIT 6", nil)
	if err != nil {
		return err
	}
	d.result("%d rows shown; %d child requests, one per subscribed channel", n, d.api.requests()-before)
	return nil
}
