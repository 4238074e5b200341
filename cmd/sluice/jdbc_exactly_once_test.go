package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

// feedAPI serves /events?since=…&page=…: the events with updated_at ≥
// since (inclusive, as many APIs are), 500 a page.
type feedAPI struct {
	mu     sync.Mutex
	events []map[string]any
}

func (a *feedAPI) grow(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := 0; i < n; i++ {
		id := len(a.events) + 1
		// Ten events share each second: a run can end in the middle of one.
		a.events = append(a.events, map[string]any{"id": id, "updated_at": time.Unix(1_700_000_000+int64(id/10), 0).UTC().Format(time.RFC3339), "v": strings.Repeat("x", id%7)})
	}
}

func (a *feedAPI) ids() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.events))
	for i, e := range a.events {
		out[i] = strconv.Itoa(e["id"].(int))
	}
	sort.Strings(out)
	return out
}

func (a *feedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	since := r.URL.Query().Get("since")
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	var sel []map[string]any
	for _, e := range a.events {
		if since == "" || e["updated_at"].(string) >= since {
			sel = append(sel, e)
		}
	}
	body := map[string]any{"data": []map[string]any{}}
	if lo := page * 500; lo < len(sel) {
		hi := min(lo+500, len(sel))
		body["data"] = sel[lo:hi]
		if hi < len(sel) {
			body["next"] = strconv.Itoa(page + 1)
		}
	}
	_ = json.NewEncoder(w).Encode(body)
}

// TestExactlyOnceKilled loads an incremental API into a JDBC table in
// append mode — where a repeated delivery shows as duplicate rows — and
// kills `sluice` with SIGKILL at several points of the load: while it
// connects, while it copies, right before and at its commit. After every
// kill the table holds no duplicate, and a rerun completes it: no
// duplicate, no gap (docs/jdbc.md#exactly-once).
func TestExactlyOnceKilled(t *testing.T) {
	bin := srvAccBinary(t)
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		api := &feedAPI{}
		srv := httptest.NewServer(api)
		t.Cleanup(srv.Close)
		dir := t.TempDir()
		run := func(ctx context.Context, killAt string) (killed bool, out string, err error) {
			cmd := exec.CommandContext(ctx, bin, "sql", "--catalog", dir, "--set", "svc.logging.level=CONSOLE",
				"-e", "INSERT INTO db.events SELECT * FROM api.events")
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			var log strings.Builder
			sc := bufio.NewScanner(stderr)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				log.WriteString(line + "\n")
				if killAt != "" && !killed && strings.Contains(line, killAt) {
					require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
					killed = true
				}
			}
			_, _ = io.Copy(io.Discard, stderr)
			return killed, log.String(), cmd.Wait()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		setup := exec.CommandContext(ctx, bin, "sql", "--catalog", dir, "-e", fmt.Sprintf(`
			CREATE TABLE api.events TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='%s/events',
			  'svc.restapi.parse.payload'='true', 'svc.restapi.records.path'='data',
			  'svc.restapi.paginate.next.field'='next', 'svc.restapi.paginate.next.param'='page',
			  'svc.restapi.incremental.cursor'='updated_at', 'svc.restapi.incremental.param'='since',
			  'svc.restapi.primary.key'='id');
			CREATE TABLE db.events TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='%s',
			  'svc.jdbc.dbtable'='events', 'svc.jdbc.batch.rows'='2000')`, srv.URL, db.URL))
		out, err := setup.CombinedOutput()
		require.NoError(t, err, string(out))

		check := func(stage string) (rows int) {
			got := db.Query(t, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events")
			require.Equal(t, got[0][0], got[0][1], "%s: duplicate rows", stage)
			n, _ := strconv.Atoi(got[0][0])
			return n
		}
		complete := func(stage string) {
			_, log, err := run(ctx, "")
			if err != nil && strings.Contains(log, connectors.ErrStateChanged.Error()) {
				// The killed run's COMMIT reached the server, which
				// finished it after this run had read the state: this run
				// delivered nothing and says so; the next reads on from it.
				check(stage + " (refused: the state changed)")
				_, log, err = run(ctx, "")
			}
			require.NoError(t, err, log)
			check(stage)
			var ids []string
			for _, r := range db.Query(t, "SELECT id FROM events") {
				ids = append(ids, r[0])
			}
			sort.Strings(ids)
			require.Equal(t, api.ids(), ids, "%s: the table is the source, every row once\n%s", stage, log)
		}
		created := false
		load := map[string]string{"postgres": "COPY ", "mysql": "LOAD DATA "}[db.Dialect]
		for i, point := range []string{"connect ", load, "INSERT INTO " + map[string]string{"postgres": `"sluice_state"`, "mysql": "`sluice_state`"}[db.Dialect], "COMMIT", ""} {
			api.grow(7_000 + 333*i)
			if !created {
				// The table must exist for the checks: the first load runs whole.
				complete("first load")
				created = true
				api.grow(3_000)
			}
			killed, log, err := run(ctx, point)
			if !killed {
				require.NoError(t, err, log)
			}
			if point != "" {
				require.True(t, killed, "the load never reached %q:\n%s", point, log)
			}
			check("killed at " + point)
			complete("rerun after a kill at " + point)
		}
		st, err := exec.CommandContext(ctx, bin, "state", "show", "api.events", "--catalog", dir).CombinedOutput()
		require.NoError(t, err, string(st))
		require.Contains(t, string(st), `"last_value"`)
		tbl, err := os.ReadFile(filepath.Join(dir, "api", "events.json"))
		require.NoError(t, err)
		require.Contains(t, string(tbl), `"stateStore": "db.events"`)
	})
}
