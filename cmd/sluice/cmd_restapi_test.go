package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRESTAPILoudConfiguration: a misspelt property at CREATE TABLE, a
// half-set pagination pair at read and a records.path no page has are
// each one clear error and exit 1, with the secret redacted.
func TestRESTAPILoudConfiguration(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"results":[{"id":1}]},"next":"x"}`))
	}))
	defer srv.Close()
	cat := filepath.Join(t.TempDir(), "cat")

	code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e",
		"CREATE TABLE api.t TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='"+srv.URL+"', "+
			"'svc.restapi.paginate.next.feild'='next', 'svc.restapi.auth.type'='bearer', 'svc.restapi.auth.token'='t0p-s3cret')")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "unknown property svc.restapi.paginate.next.feild (did you mean svc.restapi.paginate.next.field?)")
	require.NotContains(t, stderr, "t0p-s3cret")

	code, _, stderr = datasetCLI(t, "", nil, "read", "adhoc", "--catalog", cat, "--type", "restapi",
		"--prop", "svc.restapi.url="+srv.URL, "--prop", "svc.restapi.paginate.next.field=next")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "sluice: ")
	require.Contains(t, stderr, "svc.restapi.paginate.next.field is set but not where the token goes")

	code, stdout, stderr := datasetCLI(t, "", nil, "read", "adhoc", "--catalog", cat, "--type", "restapi",
		"--prop", "svc.restapi.url="+srv.URL, "--prop", "svc.restapi.parse.payload=true", "--prop", "svc.restapi.records.path=data.items")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, `records.path "data.items" not found; the response has: data.results, next`)
}

// TestDescribeRedactsByDeclaration: DESCRIBE masks declared secrets and
// keeps values that only look secret by name (fanout.token, auth.token.url).
func TestDescribeRedactsByDeclaration(t *testing.T) {
	t.Parallel()
	cat := filepath.Join(t.TempDir(), "cat")
	code, stdout, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "--format", "csv", "-e",
		"CREATE TABLE api.o TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/x', "+
			"'svc.restapi.auth.type'='oauth2', 'svc.restapi.auth.token.url'='http://127.0.0.1:1/token', "+
			"'svc.restapi.auth.client.id'='app', 'svc.restapi.auth.client.secret'='cl13nt-s3cret'); DESCRIBE api.o")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "svc.restapi.auth.client.secret,***")
	require.Contains(t, stdout, "svc.restapi.auth.token.url,http://127.0.0.1:1/token")
	require.NotContains(t, stdout, "cl13nt-s3cret")
}
