package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
)

// eventsAPI serves /events?since=…&page=… from a growing list: items with
// updated_at ≥ since (inclusive, as many APIs are), two a page, with a
// next-page token. fail makes every request a 500.
type eventsAPI struct {
	mu     sync.Mutex
	items  []map[string]any
	sinces []string // the since parameter of each first-page request
	fail   bool
	// onFirstPage, when set, runs as each read's first page is served.
	onFirstPage func()
}

func (a *eventsAPI) add(id int, ts string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.items = append(a.items, map[string]any{"id": id, "updated_at": ts})
}

func (a *eventsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	since := r.URL.Query().Get("since")
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page == 0 {
		a.sinces = append(a.sinces, since)
		if a.onFirstPage != nil {
			a.onFirstPage()
		}
	}
	var sel []map[string]any
	for _, it := range a.items {
		if since == "" || it["updated_at"].(string) >= since {
			sel = append(sel, it)
		}
	}
	sort.SliceStable(sel, func(i, j int) bool { return sel[i]["updated_at"].(string) < sel[j]["updated_at"].(string) })
	body := map[string]any{"data": []map[string]any{}}
	if lo := page * 2; lo < len(sel) {
		hi := min(lo+2, len(sel))
		body["data"] = sel[lo:hi]
		if hi < len(sel) {
			body["next"] = strconv.Itoa(page + 1)
		}
	}
	_ = json.NewEncoder(w).Encode(body)
}

func (a *eventsAPI) firstSinces() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.sinces...)
}

// incrementalSetup makes a catalog with api.events (incremental, primary
// key id) reading srv, and a PARQUET table lake.events at dir/events.parquet.
func incrementalSetup(t *testing.T, api *eventsAPI) (*catalog.Session, string) {
	t.Helper()
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "cat"))
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	_, err = s.ExecuteBatch(context.Background(), fmt.Sprintf(`
		CREATE TABLE api.events TBLPROPERTIES (
		  'svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/events',
		  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='data',
		  'svc.restapi.paginate.next.field'='next', 'svc.restapi.paginate.next.param'='page',
		  'svc.restapi.incremental.cursor'='updated_at', 'svc.restapi.incremental.param'='since',
		  'svc.restapi.incremental.initial'='2024-01-01T00:00:00Z',
		  'svc.restapi.primary.key'='id');
		CREATE TABLE lake.events TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%s');
	`, srv.URL, filepath.Join(dir, "events.parquet")))
	require.NoError(t, err)
	return s, dir
}

func statePath(t *testing.T, s *catalog.Session) string {
	t.Helper()
	p, err := s.Catalog().StatePath("api", "events")
	require.NoError(t, err)
	return p
}

func insertRows(ctx context.Context, t *testing.T, s *catalog.Session) (int64, error) {
	t.Helper()
	f, err := s.ExecuteBatch(ctx, `INSERT INTO lake.events SELECT * FROM api.events`)
	if err != nil {
		return 0, err
	}
	defer f.Release()
	var res struct {
		N int64 `json:"num_inserted_rows"`
	}
	require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error { return json.Unmarshal(obj, &res) }))
	return res.N, nil
}

func TestIncrementalInsertMovesStateAfterWrite(t *testing.T) {
	t.Parallel()
	api := &eventsAPI{}
	api.add(1, "2024-01-02T00:00:00Z")
	api.add(2, "2024-01-03T00:00:00Z")
	api.add(3, "2024-01-03T00:00:00Z")
	s, _ := incrementalSetup(t, api)
	ctx := context.Background()

	// A plain SELECT reads but leaves no state.
	f, err := s.ExecuteBatch(ctx, `SELECT * FROM api.events`)
	require.NoError(t, err)
	require.EqualValues(t, 3, f.NumRows())
	f.Release()
	require.NoFileExists(t, statePath(t, s))

	n, err := insertRows(ctx, t, s)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	st, err := s.Catalog().State(ctx, "api", "events")
	require.NoError(t, err)
	require.Equal(t, "2024-01-03T00:00:00Z", st.LastValue)
	require.Equal(t, []string{"2", "3"}, st.KeysAtLastValue)

	// The API re-sends 2 and 3 (since is inclusive): only 4 is new.
	api.add(4, "2024-01-03T00:00:00Z")
	n, err = insertRows(ctx, t, s)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	st, err = s.Catalog().State(ctx, "api", "events")
	require.NoError(t, err)
	require.Equal(t, []string{"2", "3", "4"}, st.KeysAtLastValue)
	require.Equal(t, []string{"2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-01-03T00:00:00Z"}, api.firstSinces())

	// A full refresh ignores the state for one run, then stores the new one.
	api.add(5, "2024-01-05T00:00:00Z")
	d := &catalog.Delivery{FullRefresh: true}
	n, err = insertRows(catalog.WithDelivery(ctx, d), t, s)
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
	require.Equal(t, "2024-01-01T00:00:00Z", api.firstSinces()[3], "the full refresh starts from initial")
	st, err = s.Catalog().State(ctx, "api", "events")
	require.NoError(t, err)
	require.Equal(t, "2024-01-05T00:00:00Z", st.LastValue)

	// DROP TABLE takes the state with it.
	_, err = s.ExecuteBatch(ctx, `DROP TABLE api.events`)
	require.NoError(t, err)
	require.NoFileExists(t, statePath(t, s))
}

func TestIncrementalStateUnchangedOnFailure(t *testing.T) {
	t.Parallel()
	api := &eventsAPI{}
	api.add(1, "2024-01-02T00:00:00Z")
	s, dir := incrementalSetup(t, api)
	ctx := context.Background()
	_, err := insertRows(ctx, t, s)
	require.NoError(t, err)
	before, err := os.ReadFile(statePath(t, s))
	require.NoError(t, err)
	api.add(2, "2024-01-09T00:00:00Z")
	unchanged := func() {
		t.Helper()
		after, err := os.ReadFile(statePath(t, s))
		require.NoError(t, err)
		require.Equal(t, string(before), string(after))
	}

	// HTTP failure.
	require.NoError(t, s.Set("svc.restapi.retry.max", "0"))
	api.mu.Lock()
	api.fail = true
	api.mu.Unlock()
	_, err = insertRows(ctx, t, s)
	require.ErrorContains(t, err, "500")
	unchanged()
	api.mu.Lock()
	api.fail = false
	api.mu.Unlock()

	// Write failure: the target's directory is a file.
	blocker := filepath.Join(dir, "blocker")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	_, err = s.ExecuteBatch(ctx, fmt.Sprintf(`CREATE TABLE lake.broken TBLPROPERTIES ('svc.storage.type'='PARQUET', 'svc.parquet.path'='%s')`, filepath.Join(blocker, "x.parquet")))
	require.NoError(t, err)
	_, err = s.ExecuteBatch(ctx, `INSERT INTO lake.broken SELECT * FROM api.events`)
	require.Error(t, err)
	unchanged()

	// A cancelled context.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = insertRows(cctx, t, s)
	require.ErrorIs(t, err, context.Canceled)
	unchanged()

	// A read under a Delivery that is never committed (a read to stdout).
	d := &catalog.Delivery{}
	f, err := s.Read(catalog.WithDelivery(ctx, d), "api.events", nil)
	require.NoError(t, err)
	f.Release()
	require.Equal(t, []string{"api.events"}, d.Tables())
	unchanged()
	require.NoError(t, d.Commit(ctx))
	st, err := s.Catalog().State(ctx, "api", "events")
	require.NoError(t, err)
	require.Equal(t, "2024-01-09T00:00:00Z", st.LastValue)
}

func TestIncrementalConfigErrors(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Open(t.TempDir())
	require.NoError(t, err)
	s := catalog.NewSession(cat)
	for _, tc := range []struct{ props, want string }{
		{`'svc.restapi.incremental.cursor'='updated_at', 'svc.restapi.parse.payload'='true'`, "svc.restapi.incremental.param"},
		{`'svc.restapi.incremental.param'='since'`, "needs svc.restapi.incremental.cursor"},
		{`'svc.restapi.incremental.cursor'='u', 'svc.restapi.incremental.param'='since'`, "svc.restapi.parse.payload=true"},
		{`'svc.restapi.incremental.cursor'='u', 'svc.restapi.incremental.param'='since', 'svc.restapi.parse.payload'='true', 'svc.restapi.incremental.end'='x'`, "go together"},
	} {
		_, err := s.ExecuteBatch(context.Background(), `CREATE TABLE a.b TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/', `+tc.props+`)`)
		require.ErrorContains(t, err, tc.want)
	}
}

// A damaged state file — null, not an object, {}, no cursor or last_value,
// another cursor's state — is an error naming the file and `sluice state
// reset`: the read never starts again from incremental.initial silently,
// nothing is requested or written, and the file stays as it was.
func TestIncrementalDamagedState(t *testing.T) {
	t.Parallel()
	api := &eventsAPI{}
	api.add(1, "2024-01-02T00:00:00Z")
	s, dir := incrementalSetup(t, api)
	ctx := context.Background()
	for _, damaged := range []string{
		`null`, `[]`, `"x"`, `42`, `{}`,
		`{"cursor":"updated_at"}`,
		`{"last_value":"2024-01-02T00:00:00Z"}`,
		`{"cursor":"created_at","last_value":"2024-01-02T00:00:00Z"}`,
	} {
		require.NoError(t, os.WriteFile(statePath(t, s), []byte(damaged), 0o644))
		requests := len(api.firstSinces())
		_, err := insertRows(ctx, t, s)
		require.Error(t, err, damaged)
		t.Log(err)
		require.Contains(t, err.Error(), statePath(t, s), damaged)
		require.Contains(t, err.Error(), "sluice state reset api.events", damaged)
		require.Len(t, api.firstSinces(), requests, "%s: nothing requested", damaged)
		require.NoFileExists(t, filepath.Join(dir, "events.parquet"), damaged)
		after, err := os.ReadFile(statePath(t, s))
		require.NoError(t, err)
		require.Equal(t, damaged, string(after))
	}
}
