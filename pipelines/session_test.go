package pipelines_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/pipelines"
)

// isolationPipeline reads an API whose records are under items: only the
// pipeline's settings (records.path) make it give rows.
const isolationPipeline = `
name: isolated
settings:
  svc.restapi.parse.payload: "true"
  svc.restapi.records.path: items
steps:
  - read: {type: RESTAPI, properties: {svc.restapi.url: "${API}/subs"}}
  - select: [id]
`

func itemsAPI(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items": [{"id": "a"}, {"id": "b"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRunLeavesSessionUnchanged: the YAML's settings and Options.Settings
// apply to the run, and the caller's session keeps exactly its own.
func TestRunLeavesSessionUnchanged(t *testing.T) {
	t.Parallel()
	api := itemsAPI(t)
	s := newSession(t)
	require.NoError(t, s.Set("svc.restapi.timeout", "7s"))
	require.NoError(t, s.Set("svc.restapi.records.path", "caller"))
	before := s.Settings()
	res, err := run(t, isolationPipeline, map[string]string{"API": api}, pipelines.Options{
		Session:  s,
		Settings: map[string]string{"svc.restapi.header.X-Run": "1"},
	})
	require.NoError(t, err)
	defer res.Output.Release()
	require.EqualValues(t, 2, res.Rows, "the pipeline's settings applied to its run")
	require.Equal(t, before, s.Settings(), "the caller's session is unchanged")

	// The caller's own settings still reach the run where the pipeline
	// does not set them: the fork starts from them.
	res2, err := run(t, `
name: inherits
settings:
  svc.restapi.parse.payload: "true"
steps:
  - read: {type: RESTAPI, properties: {svc.restapi.url: "${API}/subs"}}
`, map[string]string{"API": api}, pipelines.Options{Session: s})
	require.ErrorContains(t, err, "caller", "svc.restapi.records.path=caller comes from the caller's session")
	require.Nil(t, res2)
}

// plainSession is a Session of the caller's own that cannot be forked.
type plainSession struct{ *catalog.Session }

// forkingSession forks itself as SessionForker says.
type forkingSession struct {
	*catalog.Session
	forks *int
}

func (f forkingSession) ForkSession() pipelines.Session {
	*f.forks++
	return forkingSession{Session: f.Session.Fork(), forks: f.forks}
}

func TestRunForksOnlyWhatItCan(t *testing.T) {
	t.Parallel()
	api := itemsAPI(t)
	env := map[string]string{"API": api}

	// A session that cannot be forked is refused before any step runs,
	// rather than left holding the run's settings.
	plain := plainSession{newSession(t)}
	_, err := run(t, isolationPipeline, env, pipelines.Options{Session: plain})
	require.ErrorContains(t, err, "pipeline isolated: settings: the session (a pipelines_test.plainSession) cannot be forked")
	require.Empty(t, plain.Settings())

	// Without settings nothing needs a fork.
	res, err := run(t, "name: nosettings\nsteps:\n  - read: {type: RESTAPI, properties: {svc.restapi.url: \"${API}/subs\"}}\n", env, pipelines.Options{Session: plain})
	require.NoError(t, err)
	res.Output.Release()

	forks := 0
	fs := forkingSession{Session: newSession(t), forks: &forks}
	res, err = run(t, isolationPipeline, env, pipelines.Options{Session: fs})
	require.NoError(t, err)
	res.Output.Release()
	require.Equal(t, 1, forks)
	require.Empty(t, fs.Settings())
}
