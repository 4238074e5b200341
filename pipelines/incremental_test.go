package pipelines_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/pipelines"
)

// ticketsAPI answers GET /tickets?updated_since=N with the tickets whose
// version is ≥ N, as a top-level array.
type ticketsAPI struct {
	mu      sync.Mutex
	tickets map[int]int // id → version
}

func (a *ticketsAPI) set(id, version int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tickets[id] = version
}

func (a *ticketsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var since int
	fmt.Sscan(r.URL.Query().Get("updated_since"), &since)
	out := []map[string]any{}
	for id, v := range a.tickets {
		if v >= since {
			out = append(out, map[string]any{"id": id, "version": v, "title": fmt.Sprintf("t%d v%d", id, v)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["id"].(int) < out[j]["id"].(int) })
	_ = json.NewEncoder(w).Encode(out)
}

func TestRunIncrementalMerge(t *testing.T) {
	t.Parallel()
	api := &ticketsAPI{tickets: map[int]int{1: 1, 2: 1}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	sess := newSession(t)
	_, err := sess.ExecuteBatch(context.Background(), fmt.Sprintf(`CREATE TABLE api.tickets TBLPROPERTIES (
		'svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/tickets', 'svc.restapi.parse.payload'='true',
		'svc.restapi.incremental.cursor'='version', 'svc.restapi.incremental.param'='updated_since',
		'svc.restapi.primary.key'='id')`, srv.URL))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "tickets.parquet")
	src := fmt.Sprintf(`
name: tickets
steps:
  - read: {table: api.tickets}
  - write: {file: %s, mode: merge, key: [id]}
`, out)
	state := func() string {
		st, err := sess.Catalog().State(context.Background(), "api", "tickets")
		require.NoError(t, err)
		if st == nil {
			return "none"
		}
		return fmt.Sprintf("%s %v", st.LastValue, st.KeysAtLastValue)
	}
	stored := func() []string {
		f := readFile(t, out)
		defer f.Release()
		rows := jsonRows(t, f)
		sort.Strings(rows)
		return rows
	}
	res, err := run(t, src, nil, pipelines.Options{Session: sess})
	require.NoError(t, err)
	res.Output.Release()
	require.Equal(t, "1 [1 2]", state())
	require.Len(t, stored(), 2)

	// Ticket 2 changes, 3 is new; 1 comes again (inclusive since) and is dropped.
	api.set(2, 2)
	api.set(3, 2)
	res, err = run(t, src, nil, pipelines.Options{Session: sess})
	require.NoError(t, err)
	require.EqualValues(t, 2, res.Output.NumRows())
	res.Output.Release()
	require.Equal(t, "2 [2 3]", state())
	require.Equal(t, []string{
		`{"id":1,"title":"t1 v1","version":1}`,
		`{"id":2,"title":"t2 v2","version":2}`,
		`{"id":3,"title":"t3 v2","version":2}`,
	}, stored())

	// Nothing new: the run succeeds and the stored rows stay.
	res, err = run(t, src, nil, pipelines.Options{Session: sess})
	require.NoError(t, err)
	require.EqualValues(t, 0, res.Output.NumRows())
	res.Output.Release()
	require.Len(t, stored(), 3)
	require.Equal(t, "2 [2 3]", state())

	// A pipeline that fails after reading moves nothing.
	api.set(4, 3)
	before := stored()
	bad := src + "  - write: {table: nope.missing}\n"
	_, err = run(t, bad, nil, pipelines.Options{Session: sess})
	require.Error(t, err)
	require.Equal(t, "2 [2 3]", state())
	require.Equal(t, before, stored())

	// A pipeline without a write delivers nothing.
	_, err = run(t, "name: peek\nsteps:\n  - read: {table: api.tickets}\n", nil, pipelines.Options{Session: sess})
	require.NoError(t, err)
	require.Equal(t, "2 [2 3]", state())

	// --full-refresh reads everything again; the merge keeps one row a key.
	res, err = run(t, src, nil, pipelines.Options{Session: sess, FullRefresh: true})
	require.NoError(t, err)
	require.EqualValues(t, 4, res.Output.NumRows())
	res.Output.Release()
	require.Len(t, stored(), 4)
	require.Equal(t, "3 [4]", state())
	_, err = os.Stat(out)
	require.NoError(t, err)
}

func TestParseMergeWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ write, want string }{
		{`{file: a.parquet, mode: merge}`, "mode merge needs key"},
		{`{file: a.parquet, key: [id]}`, "key applies to mode merge"},
		{`{file: a.csv, mode: merge, key: [id]}`, "mode merge needs format parquet"},
		{`{file: a.parquet, mode: upsert, key: [id]}`, `mode "upsert": want overwrite, merge or append (tables)`},
		{`{file: a.parquet, mode: append}`, "mode append applies to table outputs"},
		{`{table: a.b, mode: merge}`, "mode merge needs key"},
		{`{table: a.b, key: [id]}`, "key applies to mode merge"},
		{`{table: a.b, format: csv}`, "apply to file outputs only"},
	} {
		_, err := pipelines.Parse("p.yaml", []byte("name: p\nsteps:\n  - read: {table: a.b}\n  - write: "+tc.write+"\n"), nil)
		require.ErrorContains(t, err, tc.want, tc.write)
	}
}

func TestRunFanoutFromStep(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/teams" {
			fmt.Fprint(w, `{"teams":[{"slug":"red"},{"slug":"blue"},{"slug":"red"}]}`)
			return
		}
		fmt.Fprintf(w, `[{"member":"%s-1"}]`, r.URL.Path[len("/members/"):])
	}))
	defer srv.Close()
	src := fmt.Sprintf(`
name: members
steps:
  - id: teams
    read:
      type: RESTAPI
      properties: {svc.restapi.url: "%[1]s/teams", svc.restapi.parse.payload: "true"}
  - id: members
    read:
      type: RESTAPI
      properties:
        svc.restapi.url.pattern: svc.restapi.pattern.m
        svc.restapi.pattern.m: "%[1]s/members/{svc.restapi.team}"
        svc.restapi.parse.payload: "true"
        svc.restapi.fanout.from: teams
        svc.restapi.fanout.column: teams.slug
        svc.restapi.fanout.token: svc.restapi.team
`, srv.URL)
	res, err := run(t, src, nil, pipelines.Options{})
	require.NoError(t, err)
	defer res.Output.Release()
	require.Equal(t, []string{`{"member":"red-1","_parent_teams_slug":"red"}`, `{"member":"blue-1","_parent_teams_slug":"blue"}`}, jsonRows(t, res.Output))
}
