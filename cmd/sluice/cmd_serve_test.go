package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
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
	var out, errb lockedBuffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		return map[string]string{"CONN_ADDR": "127.0.0.1:1", "PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off"}[k]
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, env, []string{"serve", "--addr", "127.0.0.1:0", "--store", store}) }()

	var addr string
	deadline := time.Now().Add(20 * time.Second)
	for addr == "" && time.Now().Before(deadline) {
		if m := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`).FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.NotEmpty(t, addr, "the flag overrides CONN_ADDR: %s", errb.String())

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

	cancel() // SIGTERM/SIGINT cancel this context in main
	select {
	case code := <-done:
		require.Equal(t, 0, code, errb.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	_, err = http.Get("http://" + addr + "/health")
	require.Error(t, err, "the listener is closed")
}
