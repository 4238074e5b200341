package pipelines_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/parquet"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/pipelines"
)

// docTicketsAPI answers like the API docs/incremental.md describes:
// GET /tickets?updated_since=T (inclusive) and GET /tickets/{id}/comments.
func docTicketsAPI(t *testing.T) *httptest.Server {
	t.Helper()
	tickets := []map[string]any{
		{"id": 1, "subject": "Printer on fire", "status": "open", "updated_at": "2024-05-01T10:00:00Z"},
		{"id": 2, "subject": "Login loop", "status": "solved", "updated_at": "2024-05-02T08:00:00Z"},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /tickets", func(w http.ResponseWriter, r *http.Request) {
		since := r.URL.Query().Get("updated_since")
		out := []map[string]any{}
		for _, tk := range tickets {
			if tk["updated_at"].(string) >= since {
				out = append(out, tk)
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"tickets": out})
	})
	mux.HandleFunc("GET /tickets/{id}/comments", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		fmt.Fprintf(w, `{"comments":[{"author":"ana","body":"on it (%s)"}]}`, id)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestIncrementalDocExamplesRun runs every sql and yaml block of
// docs/incremental.md, in order, against docTicketsAPI.
func TestIncrementalDocExamplesRun(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "incremental.md"))
	require.NoError(t, err)
	srv := docTicketsAPI(t)
	lake := filepath.Join(t.TempDir(), "lake")
	sess := newSession(t)
	env := map[string]string{"API_URL": srv.URL, "LAKE": lake}
	blocks := regexp.MustCompile("(?s)```(sql|yaml)\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.GreaterOrEqual(t, len(blocks), 5)
	ctx := context.Background()
	for i, b := range blocks {
		text := strings.ReplaceAll(b[2], "https://api.example.com", srv.URL)
		text = strings.ReplaceAll(text, "'lake/", "'"+lake+"/")
		if b[1] == "sql" {
			f, err := sess.ExecuteBatch(ctx, text)
			require.NoError(t, err, "sql block %d:\n%s", i+1, text)
			f.Release()
			continue
		}
		p, err := pipelines.Parse(fmt.Sprintf("block%d.yaml", i+1), []byte(text), func(k string) string { return env[k] })
		require.NoError(t, err, "yaml block %d", i+1)
		// A full refresh: the INSERT above already delivered every ticket.
		res, err := pipelines.Run(ctx, p, pipelines.Options{Session: sess, FullRefresh: true})
		require.NoError(t, err, "yaml block %d", i+1)
		require.Positive(t, res.Output.NumRows(), "yaml block %d", i+1)
		res.Output.Release()
	}
	// The INSERT and the first pipeline delivered api.tickets: its state moved.
	st, err := sess.Catalog().State(ctx, "api", "tickets")
	require.NoError(t, err)
	require.Equal(t, "2024-05-02T08:00:00Z", st.LastValue)
	require.Equal(t, []string{"2"}, st.KeysAtLastValue)
	require.FileExists(t, filepath.Join(lake, "comments.parquet"))
}

// TestIncrementalDocCoversEveryProperty fails when a declared incremental,
// fan-out or merge property is missing from docs/incremental.md.
func TestIncrementalDocCoversEveryProperty(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "incremental.md"))
	require.NoError(t, err)
	var names []string
	for _, sp := range restapi.Properties.Specs {
		if strings.Contains(sp.Name, ".incremental.") || strings.Contains(sp.Name, ".fanout.") || strings.HasSuffix(sp.Name, ".primary.key") {
			names = append(names, sp.Name)
		}
	}
	require.GreaterOrEqual(t, len(names), 11)
	names = append(names, parquet.PropMode, parquet.PropMergeKey, "sluice state show", "sluice state reset", "--full-refresh", "mode: merge", "_parent_")
	for _, n := range names {
		if !strings.Contains(string(doc), n) {
			t.Errorf("docs/incremental.md does not mention %s", n)
		}
	}
}
