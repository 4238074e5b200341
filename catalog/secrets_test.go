package catalog_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
)

// authAPI answers /data when the request carries the expected bearer token
// and records each Authorization it saw.
type authAPI struct {
	mu   sync.Mutex
	want string
	seen []string
}

func (a *authAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, r.Header.Get("Authorization"))
	if r.Header.Get("Authorization") != "Bearer "+a.want {
		http.Error(w, "bad token", http.StatusUnauthorized)
		return
	}
	io.WriteString(w, `{"items":[{"id":1}]}`)
}

// describeValue is the DESCRIBE value of property key of table name.
func describeValue(t *testing.T, s *catalog.Session, name, key string) string {
	t.Helper()
	for _, row := range exec(t, s, "DESCRIBE "+name) {
		if strings.Contains(row, `"col_name":"`+key+`"`) {
			return row
		}
	}
	t.Fatalf("DESCRIBE %s has no %s", name, key)
	return ""
}

func fileMode(t *testing.T, s *catalog.Session, ns, name string) os.FileMode {
	t.Helper()
	st, err := os.Stat(filepath.Join(s.Catalog().Dir(), ns, name+".json"))
	require.NoError(t, err)
	return st.Mode().Perm()
}

// ${env:NAME} and ${file:PATH} references stand for a value anywhere: the
// catalog stores the reference, DESCRIBE and SET show it, each read
// resolves it. Not parallel: it sets environment variables.
func TestSecretReferences(t *testing.T) {
	api := &authAPI{want: "tok-from-env"}
	srv := httptest.NewServer(api)
	defer srv.Close()
	t.Setenv("SLUICE_TEST_TOKEN", "tok-from-env")
	t.Setenv("SLUICE_TEST_HOST", strings.TrimPrefix(srv.URL, "http://"))
	s, _ := newSession(t)
	ctx := context.Background()
	exec(t, s, `CREATE TABLE api.ref TBLPROPERTIES ('svc.storage.type'='RESTAPI',
		'svc.restapi.url'='http://${env:SLUICE_TEST_HOST}/data', 'svc.restapi.parse.payload'='true',
		'svc.restapi.records.path'='items', 'svc.restapi.retry.max'='0',
		'svc.restapi.auth.type'='bearer', 'svc.restapi.auth.token'='${env:SLUICE_TEST_TOKEN}',
		'svc.restapi.note'='costs $${env:NOT_A_REFERENCE}')`)
	data, err := os.ReadFile(filepath.Join(s.Catalog().Dir(), "api", "ref.json"))
	require.NoError(t, err)
	require.Contains(t, string(data), `"svc.restapi.auth.token": "${env:SLUICE_TEST_TOKEN}"`, "the catalog stores the reference")
	require.NotContains(t, string(data), "tok-from-env")
	require.Equal(t, os.FileMode(0o644), fileMode(t, s, "api", "ref"), "a reference is not a secret value")
	require.Contains(t, describeValue(t, s, "api.ref", "svc.restapi.auth.token"), `"data_type":"${env:SLUICE_TEST_TOKEN}"`)
	require.Contains(t, describeValue(t, s, "api.ref", "svc.restapi.note"), `"data_type":"costs $${env:NOT_A_REFERENCE}"`)

	require.Equal(t, []string{`{"id":1}`}, exec(t, s, `SELECT id FROM api.ref`))
	// Resolved at use: a new value is picked up by the next read.
	t.Setenv("SLUICE_TEST_TOKEN", "rotated")
	api.mu.Lock()
	api.want = "rotated"
	api.mu.Unlock()
	require.Equal(t, []string{`{"id":1}`}, exec(t, s, `SELECT id FROM api.ref`))

	// Files: one trailing newline removed; relative to the working directory.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token.txt"), []byte("from-file\n"), 0o600))
	api.mu.Lock()
	api.want = "from-file"
	api.mu.Unlock()
	t.Chdir(dir)
	require.Equal(t, []string{`{"key":"svc.restapi.auth.token","value":"${file:token.txt}"}`},
		exec(t, s, `SET svc.restapi.auth.token=${file:token.txt}`), "SET shows the reference")
	require.Equal(t, []string{`{"id":1}`}, exec(t, s, `SELECT id FROM api.ref`))

	// An unset variable or unreadable file is an error naming it; nothing is sent.
	before := len(api.seen)
	for _, tc := range []struct{ set, want string }{
		{"${env:SLUICE_TEST_UNSET}", "environment variable SLUICE_TEST_UNSET is not set"},
		{"${file:missing.txt}", "missing.txt"},
		{"${nope:x}", "${env:NAME} or ${file:PATH}"},
		{"${env:UNCLOSED", "not closed"},
	} {
		exec(t, s, `SET svc.restapi.auth.token=`+tc.set)
		_, err := s.ExecuteBatch(ctx, `SELECT id FROM api.ref`)
		require.ErrorContains(t, err, tc.want, tc.set)
		require.ErrorContains(t, err, "svc.restapi.auth.token", tc.set)
	}
	require.Len(t, api.seen, before, "nothing was sent")

	// Settings may be references too, and runtime properties.
	exec(t, s, `RESET svc.restapi.auth.token`)
	t.Setenv("SLUICE_TEST_RETRIES", "0")
	exec(t, s, `SET svc.restapi.retry.max=${env:SLUICE_TEST_RETRIES}`)
	f, err := s.Read(ctx, "api.ref", map[string]any{"svc.restapi.auth.token": "${file:" + filepath.Join(dir, "token.txt") + "}"})
	require.NoError(t, err)
	f.Release()
}

// A table file holding the literal value of a secret property is written
// readable by its owner only; auth.token.params.* values are secrets.
func TestLiteralSecretsInTableFiles(t *testing.T) {
	t.Parallel()
	s, _ := newSession(t)
	exec(t, s, `CREATE TABLE api.lit TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/',
		'svc.restapi.auth.type'='bearer', 'svc.restapi.auth.token'='ghp_literal')`)
	require.Equal(t, os.FileMode(0o600), fileMode(t, s, "api", "lit"))
	exec(t, s, `CREATE TABLE api.plain TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/')`)
	require.Equal(t, os.FileMode(0o644), fileMode(t, s, "api", "plain"))

	exec(t, s, `CREATE TABLE api.jwt TBLPROPERTIES ('svc.storage.type'='RESTAPI', 'svc.restapi.url'='http://127.0.0.1:1/',
		'svc.restapi.auth.type'='oauth2', 'svc.restapi.auth.token.url'='http://127.0.0.1:1/token',
		'svc.restapi.auth.client.id'='id', 'svc.restapi.auth.client.secret'='${env:X}',
		'svc.restapi.auth.token.params.client_assertion'='eyJhbGciOiJSUzI1NiJ9.payload.sig')`)
	row := describeValue(t, s, "api.jwt", "svc.restapi.auth.token.params.client_assertion")
	require.Contains(t, row, `"data_type":"***"`)
	require.Equal(t, os.FileMode(0o600), fileMode(t, s, "api", "jwt"))
	require.Contains(t, fmt.Sprint(exec(t, s, "DESCRIBE api.jwt")), "${env:X}")
}
