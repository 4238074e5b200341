package restapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// childAPI serves GET /channels/{id}/videos: two pages per channel (the
// second through ?page=2), each answered after a random pause so children
// finish out of order. A channel named "bad…" answers 404. It counts the
// requests in flight at once.
type childAPI struct {
	inFlight, maxInFlight atomic.Int64
	requests              atomic.Int64
}

func (a *childAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := a.inFlight.Add(1)
	defer a.inFlight.Add(-1)
	for {
		m := a.maxInFlight.Load()
		if n <= m || a.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	a.requests.Add(1)
	time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) != 3 || parts[0] != "channels" {
		http.NotFound(w, r)
		return
	}
	ch := parts[1]
	if strings.HasPrefix(ch, "bad") {
		http.Error(w, `{"error":"no such channel"}`, http.StatusNotFound)
		return
	}
	body := map[string]any{}
	if r.URL.Query().Get("page") == "2" {
		body["items"] = []map[string]any{{"video": ch + "-v3"}}
	} else {
		body["items"] = []map[string]any{{"video": ch + "-v1"}, {"video": ch + "-v2", "views": 7}}
		body["next"] = "2"
	}
	_ = json.NewEncoder(w).Encode(body)
}

func fanoutDS(url string, extra ...string) *connectors.Dataset {
	p := connectors.Props{
		"svc.storage.type":           "RESTAPI",
		restapi.PropURLPattern:       "svc.restapi.pattern.videos",
		"svc.restapi.pattern.videos": url + "/channels/{svc.restapi.channelId}/videos",
		restapi.PropParsePayload:     "true",
		restapi.PropRecordsPath:      "items",
		restapi.PropNextField:        "next",
		restapi.PropNextParam:        "page",
		restapi.PropFanoutFrom:       "yt.channels",
		restapi.PropFanoutColumn:     "channel.id",
		restapi.PropFanoutToken:      "svc.restapi.channelId",
		restapi.PropRetryMax:         "0",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	return &connectors.Dataset{Name: "yt.videos", Props: p}
}

// parentOf is a frame with a struct column channel{id}: ids in order
// (nil for a null id).
func parentOf(t testing.TB, ids ...any) *dataframe.Frame {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		v, _ := json.Marshal(map[string]any{"channel": map[string]any{"id": id}})
		b.Write(v)
		b.WriteByte('\n')
	}
	f, err := jsonframe.ReadNDJSON([]byte(b.String()), jsonframe.Options{})
	require.NoError(t, err)
	return f
}

func TestFanoutKeepsParentOrderUnderConcurrency(t *testing.T) {
	t.Parallel()
	api := &childAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	var ids []any
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("c%02d", (i*7)%40))
	}
	ids = append(ids, nil, "c03") // a null and a repeat: no child read for either
	parent := parentOf(t, ids...)
	defer parent.Release()
	f, err := (&restapi.Connector{}).ReadFanout(context.Background(), fanoutDS(srv.URL, restapi.PropFanoutConcurrency, "8"), parent, nil)
	require.NoError(t, err)
	defer f.Release()
	rows := rowsJSON(t, f)
	require.Len(t, rows, 40*3)
	for i := range 40 {
		ch := ids[i].(string)
		require.Equal(t, []string{
			fmt.Sprintf(`{"video":"%s-v1","views":null,"_parent_channel_id":"%s"}`, ch, ch),
			fmt.Sprintf(`{"video":"%s-v2","views":7,"_parent_channel_id":"%s"}`, ch, ch),
			fmt.Sprintf(`{"video":"%s-v3","views":null,"_parent_channel_id":"%s"}`, ch, ch),
		}, rows[3*i:3*i+3], "parent value %d", i)
	}
	require.EqualValues(t, 80, api.requests.Load(), "one child read, fully paginated, per distinct value")
	require.LessOrEqual(t, api.maxInFlight.Load(), int64(8))
}

func TestFanoutChildFailure(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&childAPI{})
	defer srv.Close()
	parent := parentOf(t, "a", "bad1", "b", "bad2")
	defer parent.Release()
	c := &restapi.Connector{}

	_, err := c.ReadFanout(context.Background(), fanoutDS(srv.URL), parent, nil)
	require.ErrorContains(t, err, "fan-out child channel.id=bad")
	require.ErrorContains(t, err, "404")

	var warn bytes.Buffer
	f, err := c.ReadFanout(context.Background(), fanoutDS(srv.URL, restapi.PropFanoutOnError, "skip"), parent, &warn)
	require.NoError(t, err)
	defer f.Release()
	require.EqualValues(t, 6, f.NumRows())
	lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
	require.Len(t, lines, 3)
	require.True(t, strings.HasPrefix(lines[0], "sluice: warning: skipped channel.id=bad1: "), lines[0])
	require.Contains(t, lines[0], "HTTP 404")
	require.True(t, strings.HasPrefix(lines[1], "sluice: warning: skipped channel.id=bad2: "), lines[1])
	require.True(t, strings.HasSuffix(lines[2], "skipped 2 of 4 parent values"), lines[2])
}

func TestFanoutConfigErrors(t *testing.T) {
	t.Parallel()
	c := &restapi.Connector{}
	for _, tc := range []struct {
		props []string
		want  string
	}{
		{[]string{restapi.PropFanoutFrom, "a.b"}, "svc.restapi.fanout.column"},
		{[]string{restapi.PropFanoutFrom, "a.b", restapi.PropFanoutColumn, "id"}, "svc.restapi.fanout.token"},
		{[]string{restapi.PropFanoutToken, "svc.restapi.x"}, "needs svc.restapi.fanout.from"},
		{[]string{restapi.PropFanoutFrom, "a.b", restapi.PropFanoutColumn, "id", restapi.PropFanoutToken, "svc.restapi.x", restapi.PropFanoutOnError, "ignore"}, "svc.restapi.fanout.on.error"},
	} {
		p := connectors.Props{restapi.PropURL: "http://127.0.0.1:1/"}
		for i := 0; i+1 < len(tc.props); i += 2 {
			p[tc.props[i]] = tc.props[i+1]
		}
		require.ErrorContains(t, c.Validate(nil, p), tc.want)
	}
	// A parent column that does not exist is named.
	parent := parentOf(t, "a")
	defer parent.Release()
	_, err := c.ReadFanout(context.Background(), fanoutDS("http://127.0.0.1:1", restapi.PropFanoutColumn, "channel.name"), parent, nil)
	require.ErrorContains(t, err, `svc.restapi.fanout.column "channel.name"`)
}

// The children of one fan-out share svc.restapi.rate.limit: eight at once
// still send no two requests closer than the limit allows. (A lower bound
// only: a slow machine spaces them further, never closer.)
func TestFanoutSharesTheRateLimit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		fmt.Fprint(w, `{"items":[{"v":1}]}`)
	}))
	defer srv.Close()
	ids := []any{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	parent := parentOf(t, ids...)
	defer parent.Release()
	ds := fanoutDS(srv.URL, restapi.PropFanoutConcurrency, "8", restapi.PropRateLimit, "50", restapi.PropRateBurst, "1")
	delete(ds.Props, restapi.PropNextField)
	delete(ds.Props, restapi.PropNextParam)
	f, err := (&restapi.Connector{}).ReadFanout(context.Background(), ds, parent, nil)
	require.NoError(t, err)
	f.Release()
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, arrivals, len(ids))
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i].Before(arrivals[j]) })
	// 10 requests at 50/s with a bucket of 1: at least 9 × 20 ms from first
	// to last (less a little for clock granularity).
	require.GreaterOrEqual(t, arrivals[len(arrivals)-1].Sub(arrivals[0]), 150*time.Millisecond)
}
