package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// lockedBuffer is written by the server's goroutines while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServeHelpListsEveryVariable(t *testing.T) {
	t.Parallel()
	code, out, _ := runSluice(t, "serve", "--help")
	require.Equal(t, 0, code)
	require.Equal(t, 1, strings.Count(out, "Usage: sluice serve"), "usage printed once")
	require.Contains(t, out, "--addr")
	require.Contains(t, out, "--store")
	for _, v := range notifications.Variables {
		def := v.Default
		if def == "" {
			def = "(unset)"
		}
		require.Regexp(t, regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(v.Name)+` +`+regexp.QuoteMeta(def)+` `), out, v.Name)
	}
	for _, name := range []string{"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES", "CONN_MAIL_SMTP_STARTTLS", "CONN_API_TOKEN", "CONN_STORE"} {
		require.Contains(t, out, name)
	}
}

func TestServeInvalidVariableStopsStartUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{map[string]string{"PROVIDER_NOTIFICATIONS_BATCH_SIZE": "lots"}, nil, 1, "PROVIDER_NOTIFICATIONS_BATCH_SIZE"},
		{map[string]string{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "0 0 0 L * ?"}, nil, 1, "PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION"},
		{map[string]string{"CONN_STORE": "mysql://root:hunter2@db/x"}, nil, 1, "CONN_STORE"},
		{nil, []string{"--store", "postgres://127.0.0.1:1/x?connect_timeout=1"}, 1, "store"},
		{nil, []string{"stray"}, 2, `unexpected argument "stray"`},
		{nil, []string{"--nope"}, 2, "-nope"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.env, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
		require.Equal(t, tt.code, code, stderr)
		require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
		require.Contains(t, stderr, tt.want)
		require.NotContains(t, stderr, "hunter2")
	}
}

func TestServeStartsAndStopsGracefully(t *testing.T) {
	t.Parallel()
	store := "sqlite:" + filepath.Join(t.TempDir(), "n.db")
	s := startServe(t, map[string]string{"CONN_ADDR": "127.0.0.1:1", "PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off"},
		"serve", "--addr", "127.0.0.1:0", "--store", store)
	addr := s.addr

	resp, err := http.Post("http://"+addr+"/webhooks/notifications", "application/json",
		strings.NewReader(`{"token":"wbh-1","object":{"token":"usr-1"}}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	resp, err = http.Get("http://" + addr + "/health")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.JSONEq(t, `{"status":"UP"}`, string(b))

	s.stop(t) // SIGTERM/SIGINT cancel the context in main
	_, err = http.Get("http://" + addr + "/health")
	require.Error(t, err, "the listener is closed")
}

// A bad sources file stops start-up: exit 1 and one `sluice:` line naming
// the file, the line and what is wrong (never a secret).
func TestServeConfigFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	unknownKey := write("key.yaml", "sources:\n  - name: stripe\n    scheme: stripe\n    secret: [whsec_hunter2]\n")
	unknownScheme := write("scheme.yaml", "sources:\n  - name: gh\n    scheme: githb\n    secrets: [x]\n")
	noSecrets := write("secrets.yaml", "sources:\n  - name: gh\n    scheme: github\n")
	dupName := write("dup.yaml", "sources:\n  - name: gh\n    scheme: github\n    secrets: [x]\n  - name: gh\n    scheme: github\n    secrets: [y]\n")
	dupPath := write("path.yaml", "sources:\n  - name: a\n    scheme: github\n    secrets: [x]\n  - name: b\n    path: /webhooks/a\n    scheme: github\n    secrets: [y]\n")
	missing := filepath.Join(dir, "missing.yaml")
	tests := []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{[]string{"--config", unknownKey}, nil, []string{"--config: config " + unknownKey + ", line 4", `unknown key "secret" (did you mean "secrets"?)`}},
		{[]string{"--config", unknownScheme}, nil, []string{`unknown scheme "githb" (did you mean "github"?)`}},
		{[]string{"--config", noSecrets}, nil, []string{`source "gh": secrets: at least one secret is required`}},
		{[]string{"--config", dupName}, nil, []string{`source "gh" is defined twice`}},
		{[]string{"--config", dupPath}, nil, []string{`path /webhooks/a is source "a"'s already`}},
		{[]string{"--config", missing}, nil, []string{"config " + missing + ": cannot read it: no such file or directory"}},
		{nil, map[string]string{"CONN_CONFIG": missing}, []string{"CONN_CONFIG: config " + missing}},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.env, append([]string{"serve", "--addr", "127.0.0.1:0",
			"--store", "sqlite:" + filepath.Join(dir, "n.db")}, tt.args...)...)
		require.Equal(t, 1, code, stderr)
		require.True(t, strings.HasPrefix(stderr, "sluice: serve: invalid configuration: "), stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
		for _, w := range tt.want {
			require.Contains(t, stderr, w)
		}
		require.NotContains(t, stderr, "hunter2")
	}
}

// With --config the sidecar serves each source at its path; the HMC source
// keeps its own.
func TestServeWithConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "sources.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("sources:\n  - name: gh\n    scheme: github\n    secrets:\n      - ${env:GH_SECRET}\n"), 0o600))
	s := startServe(t, map[string]string{"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off", "GH_SECRET": "It's a Secret to Everybody"},
		"serve", "--addr", "127.0.0.1:0", "--store", "sqlite:"+filepath.Join(dir, "n.db"), "--config", cfgPath)
	addr := s.addr
	require.Contains(t, s.stderr.String(), "sources=\"notifications=/webhooks/notifications gh=/webhooks/gh\"")
	post := func(path, body string, h ...string) int {
		req, err := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(h); i += 2 {
			req.Header.Set(h[i], h[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	// GitHub's documented example signature.
	require.Equal(t, 401, post("/webhooks/gh", "Hello, World!"))
	require.Equal(t, 400, post("/webhooks/gh", "Hello, World!", "X-GitHub-Delivery", "d-1",
		"X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"), "signed, but not JSON")
	require.Equal(t, 200, post("/webhooks/notifications", `{"token":"wbh-1","object":{"token":"usr-1"}}`))
	s.stop(t)
}

// served is a `sluice serve` running in-process.
type served struct {
	addr   string
	stderr *lockedBuffer
	cancel context.CancelFunc
	done   chan int
}

// startServe runs args with the environment env until stop, and waits for
// the address it prints.
func startServe(t *testing.T, env map[string]string, args ...string) *served {
	t.Helper()
	var out lockedBuffer
	s := &served{stderr: &lockedBuffer{}, done: make(chan int, 1)}
	cli := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: s.stderr, getenv: func(k string) string { return env[k] }}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	t.Cleanup(cancel)
	go func() { s.done <- run(ctx, cli, args) }()
	deadline := time.Now().Add(20 * time.Second)
	for s.addr == "" && time.Now().Before(deadline) {
		if m := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`).FindStringSubmatch(s.stderr.String()); m != nil {
			s.addr = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.NotEmpty(t, s.addr, "serve did not print its address: %s", s.stderr.String())
	return s
}

// stop ends the server as SIGTERM does and requires exit status 0.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		require.Equal(t, 0, code, s.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}
