package main

// Black-box acceptance tests of `sluice serve` (docs/sidecar.md,
// docs/http-api.md, docs/stores.md): they build the real binary and run it as a user would, with
// nothing but its environment, flags, stdout/stderr, exit code and HTTP.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/sqlstore"
)

var (
	srvAccBinOnce sync.Once
	srvAccBinPath string
	srvAccBinErr  error
)

// srvAccBinary builds cmd/sluice once per test run, to a fixed path under
// the temp dir (renamed into place, so runs side by side do not collide and
// nothing piles up).
func srvAccBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not building the sluice binary")
	}
	srvAccBinOnce.Do(func() {
		// One name per checkout: test runs of two checkouts side by side
		// must not run each other's binary.
		wd, _ := os.Getwd()
		final := filepath.Join(os.TempDir(), fmt.Sprintf("sluice-acceptance-serve-%x", crc32.ChecksumIEEE([]byte(wd))))
		tmp := fmt.Sprintf("%s.%d", final, os.Getpid())
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "go", "build", "-o", tmp, ".").CombinedOutput()
		if err != nil {
			srvAccBinErr = fmt.Errorf("%w: %s", err, out)
			return
		}
		srvAccBinErr = os.Rename(tmp, final)
		srvAccBinPath = final
	})
	require.NoError(t, srvAccBinErr, "building sluice")
	return srvAccBinPath
}

// srvAccEnv is a clean environment: PATH/HOME plus the given variables.
func srvAccEnv(vars map[string]string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// srvAccRun runs the binary to completion.
func srvAccRun(t *testing.T, dir string, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, srvAccBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = srvAccEnv(vars)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errb.String()
}

// srvAccServer is a running `sluice serve`.
type srvAccServer struct {
	cmd    *exec.Cmd
	base   string
	stderr *lockedBuffer
	done   chan error
}

func srvAccServe(t *testing.T, dir string, vars map[string]string, args ...string) *srvAccServer {
	t.Helper()
	if args == nil {
		args = []string{"--addr", "127.0.0.1:0"}
	}
	cmd := exec.Command(srvAccBinary(t), append([]string{"serve"}, args...)...)
	cmd.Dir = dir
	cmd.Env = srvAccEnv(vars)
	s := &srvAccServer{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)
		for sc.Scan() {
			s.stderr.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() { err := cmd.Wait(); pw.Close(); s.done <- err }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
		}
	})
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-s.done:
		t.Fatalf("sluice serve exited: %v\n%s", err, s.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("sluice serve did not start:\n%s", s.stderr.String())
	}
	return s
}

// stop sends SIGTERM and requires a clean exit.
func (s *srvAccServer) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-s.done:
		require.NoError(t, err, s.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("sluice serve did not stop on SIGTERM")
	}
}

func (s *srvAccServer) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatal("sluice serve did not die")
	}
}

func (s *srvAccServer) do(t *testing.T, method, path, body string, header ...string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// The variables of docs/environment.md with their defaults.
var srvAccContractVariables = map[string]string{
	"CONN_ADDR":                                         ":8080",
	"CONN_STORE":                                        "sqlite:.sluice/notifications.db",
	"CONN_MAX_BODY_BYTES":                               "1048576",
	"CONN_MARKETPLACE_URL":                              "",
	"PROVIDER_API_URL":                                  "",
	"CONN_DOWNSTREAM_TIMEOUT":                           "10s",
	"CONN_PROCESSING_DRAIN":                             "false",
	"CONN_PROCESSING_CONCURRENCY":                       "1",
	"CONN_TOGGLE_FEATURES_MANAGEMENT_API":               "false",
	"CONN_API_TOKEN":                                    "",
	"CONN_MAIL_SMTP_HOST":                               "",
	"CONN_MAIL_SMTP_PORT":                               "25",
	"CONN_MAIL_SMTP_USERNAME":                           "",
	"CONN_MAIL_SMTP_PASSWORD":                           "",
	"CONN_MAIL_SMTP_STARTTLS":                           "auto",
	"CONN_MAIL_FROM":                                    "",
	"CONN_MAIL_RECIPIENT":                               "",
	"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES":       "5",
	"PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY":         "PT1M",
	"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER":    "2.0",
	"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "0/30 * * * * ?",
	"PROVIDER_NOTIFICATIONS_BATCH_SIZE":                 "100",
	"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION":    "0 0 1 * * ?",
	"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS":     "90",
}

func TestAcceptanceServeHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := srvAccRun(t, t.TempDir(), nil, "serve", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "--addr")
	require.Contains(t, out, "--store")
	for name, def := range srvAccContractVariables {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, name+" ") {
				line = l
			}
		}
		require.NotEmpty(t, line, "%s listed", name)
		if def != "" {
			require.Contains(t, line, " "+def+" ", "%s lists its default", name)
		}
	}
}

func TestAcceptanceServeInvalidVariables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := map[string]string{
		"CONN_STORE":                                        "mysql://x",
		"CONN_MAX_BODY_BYTES":                               "big",
		"CONN_MARKETPLACE_URL":                              "market",
		"PROVIDER_API_URL":                                  "::",
		"CONN_DOWNSTREAM_TIMEOUT":                           "soon",
		"CONN_PROCESSING_DRAIN":                             "sometimes",
		"CONN_PROCESSING_CONCURRENCY":                       "-2",
		"CONN_TOGGLE_FEATURES_MANAGEMENT_API":               "on-ish",
		"CONN_MAIL_SMTP_PORT":                               "x",
		"CONN_MAIL_SMTP_STARTTLS":                           "perhaps",
		"PROVIDER_MAX_AMOUNT_OF_NOTIFICATION_RETRIES":       "0",
		"PROVIDER_NOTIFICATION_INITIAL_RETRY_DELAY":         "PTX",
		"PROVIDER_NOTIFICATION_RETRY_BACKOFF_MULTIPLIER":    "x2",
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "0 0 12 ? * 6#3",
		"PROVIDER_NOTIFICATIONS_BATCH_SIZE":                 "0",
		"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION":    "0 0 1 * * ? 2030",
		"PROVIDER_NOTIFICATIONS_CLEANUP_RETENTION_DAYS":     "-5",
	}
	// Values only Listen or the store would trip over still name their source.
	code, _, stderr := srvAccRun(t, dir, map[string]string{"CONN_ADDR": "nohost"}, "serve")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "CONN_ADDR")
	code, _, stderr = srvAccRun(t, dir, map[string]string{"CONN_ADDR": "127.0.0.1:99999"}, "serve")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "CONN_ADDR")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)) // a file where a directory should be
	code, _, stderr = srvAccRun(t, dir, map[string]string{"CONN_STORE": "sqlite:" + filepath.Join(dir, "file", "sub", "n.db")}, "serve", "--addr", "127.0.0.1:0")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "CONN_STORE")
	code, _, stderr = srvAccRun(t, dir, map[string]string{"CONN_STORE": "postgres://nobody@127.0.0.1:1/x?connect_timeout=2"}, "serve", "--addr", "127.0.0.1:0")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "CONN_STORE")
	code, _, stderr = srvAccRun(t, dir, nil, "serve", "--addr", "nohost")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--addr")
	for name, v := range bad {
		code, _, stderr := srvAccRun(t, dir, map[string]string{name: v, "CONN_STORE": "sqlite:" + filepath.Join(dir, "n.db")}, "serve", "--addr", "127.0.0.1:0")
		if name == "CONN_STORE" {
			code, _, stderr = srvAccRun(t, dir, map[string]string{name: v}, "serve", "--addr", "127.0.0.1:0")
		}
		require.Equal(t, 1, code, "%s=%s: %s", name, v, stderr)
		require.True(t, strings.HasPrefix(stderr, "sluice: "), stderr)
		require.Contains(t, stderr, name, "%s=%s", name, v)
	}
}

// The sidecar end to end: env configuration, schedule with seconds, the
// stored body surviving a restart and a kill -9, graceful SIGTERM.
func TestAcceptanceServeEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var mu sync.Mutex
	var bodies []string
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	t.Cleanup(market.Close)
	store := "sqlite:" + filepath.Join(dir, "data", "n.db")
	vars := map[string]string{
		"CONN_STORE": store, "CONN_API_TOKEN": "tkn", "CONN_TOGGLE_FEATURES_MANAGEMENT_API": "true",
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off",
	}
	s := srvAccServe(t, dir, vars)
	hook := `{"token":"wbh-e2e","createdOn":"2024-05-01T10:00:00","object":{"token":"usr-1","programToken":"prg-1"},"x":{"y":[1,2]}}`
	code, out := s.do(t, "POST", "/webhooks/notifications", hook)
	require.Equal(t, 200, code, out)
	require.Empty(t, out)
	code, _ = s.do(t, "GET", "/management/failed-notifications/wbh-e2e", "")
	require.Equal(t, 401, code)
	code, out = s.do(t, "GET", "/management/failed-notifications/wbh-e2e", "", "Authorization", "Bearer tkn")
	require.Equal(t, 200, code, out)
	require.JSONEq(t, `{"notificationToken":"wbh-e2e","type":"USR","target":"usr-1","program":"prg-1","retryCounter":0,"creationDate":"2024-05-01T10:00:00.000Z","status":"PENDING","source":"notifications"}`, out)
	s.stop(t)

	// Acknowledged then killed: the record is there after a restart.
	s = srvAccServe(t, dir, vars)
	code, out = s.do(t, "POST", "/webhook/notifications", `{"token":"wbh-kill","object":{"token":"stk-1"}}`)
	require.Equal(t, 200, code, out)
	s.kill(t)

	// Restart with a marketplace and a schedule every second: the stored
	// bodies are delivered.
	vars["CONN_MARKETPLACE_URL"] = market.URL
	vars["PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION"] = "* * * * * ?"
	s = srvAccServe(t, dir, vars)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(bodies)
		mu.Unlock()
		if n >= 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	got := append([]string(nil), bodies...)
	mu.Unlock()
	require.Len(t, got, 2, s.stderr.String())
	var first struct {
		Notification map[string]any  `json:"notification"`
		Payload      json.RawMessage `json:"payload"`
	}
	require.NoError(t, json.Unmarshal([]byte(got[0]), &first))
	require.Equal(t, "wbh-e2e", first.Notification["webhookToken"])
	require.JSONEq(t, hook, string(first.Payload))
	code, out = s.do(t, "GET", "/webhooks/notifications?from=2000-01-01T00:00:00&to=2100-01-01T00:00:00", "", "Authorization", "Bearer tkn")
	require.Equal(t, 200, code, out)
	require.Equal(t, 2, strings.Count(out, `"status":"SUCCESS"`), out)
	code, out = s.do(t, "GET", "/health", "")
	require.Equal(t, 200, code)
	require.JSONEq(t, `{"status":"UP"}`, out)
	s.stop(t)
}

// Defaults: CONN_ADDR from the environment, the store at
// sqlite:.sluice/notifications.db created on first use, schema migrations
// at start-up (a second start on the same file works).
func TestAcceptanceServeDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vars := map[string]string{"CONN_ADDR": "127.0.0.1:0"}
	s := srvAccServe(t, dir, vars, []string{}...)
	code, out := s.do(t, "POST", "/webhooks/notifications", `{"token":"wbh-d","object":{"token":"pmt-1"}}`)
	require.Equal(t, 200, code, out)
	code, out = s.do(t, "POST", "/management/failed-notifications/", `{"notificationToken":"x"}`)
	require.Equal(t, 403, code)
	require.JSONEq(t, `{"errorMessage":"management API is disabled"}`, out)
	s.stop(t)
	fi, err := os.Stat(filepath.Join(dir, ".sluice", "notifications.db"))
	require.NoError(t, err)
	require.False(t, fi.IsDir())
	s = srvAccServe(t, dir, vars, []string{}...)
	code, out = s.do(t, "GET", "/webhooks/notifications?from=2000-01-01T00:00:00&to=2100-01-01T00:00:00", "")
	require.Equal(t, 200, code, out)
	require.Contains(t, out, `"webhookToken":"wbh-d"`)
	require.Contains(t, out, `"notificationType":"PMT"`)
	s.stop(t)
}

// docs/sidecar.md (processing): a sidecar killed in the middle of processing loses nothing: after a
// restart the claimed record is processed again (within the job and claim
// leases, 30 s, not minutes).
func TestAcceptanceServeCrashMidProcessing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	called := make(chan struct{}, 16)
	var mu sync.Mutex
	hang := true
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		h := hang
		mu.Unlock()
		called <- struct{}{}
		if h {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(market.Close)
	vars := map[string]string{
		"CONN_STORE":              "sqlite:" + filepath.Join(dir, "n.db"),
		"CONN_MARKETPLACE_URL":    market.URL,
		"CONN_DOWNSTREAM_TIMEOUT": "5m",
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "* * * * * ?",
	}
	s := srvAccServe(t, dir, vars)
	code, out := s.do(t, "POST", "/webhooks/notifications", `{"token":"wbh-crash","object":{"token":"usr-1"}}`)
	require.Equal(t, 200, code, out)
	select {
	case <-called:
	case <-time.After(30 * time.Second):
		t.Fatal("the marketplace was not called")
	}
	s.kill(t) // mid-call: nothing committed about the attempt
	mu.Lock()
	hang = false
	mu.Unlock()
	s = srvAccServe(t, dir, vars)
	deadline := time.Now().Add(2 * time.Minute)
	status := ""
	for time.Now().Before(deadline) {
		code, out = s.do(t, "GET", "/webhooks/notifications?from=2000-01-01T00:00:00&to=2100-01-01T00:00:00", "")
		require.Equal(t, 200, code, out)
		var recs []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &recs))
		require.Len(t, recs, 1)
		if status = recs[0]["status"].(string); status == "SUCCESS" {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	require.Equal(t, "SUCCESS", status, "the claimed record is processed again after a crash")
	s.stop(t)
}

// The graceful stop of docs/production.md#systemd: on SIGTERM the running
// batch finishes (its marketplace call answered after the signal), a
// second SIGTERM does not cut it short, and the process exits 0 with the
// outcome saved.
func TestAcceptanceServeGracefulStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	called := make(chan struct{}, 16)
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	market := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		called <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(market.Close)
	store := filepath.Join(dir, "n.db")
	s := srvAccServe(t, dir, map[string]string{
		"CONN_STORE":              "sqlite:" + store,
		"CONN_MARKETPLACE_URL":    market.URL,
		"CONN_DOWNSTREAM_TIMEOUT": "5m",
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION": "off",
	})
	code, out := s.do(t, "POST", "/webhooks/notifications", `{"token":"wbh-stop","object":{"token":"usr-1"}}`)
	require.Equal(t, 200, code, out)
	code, out = s.do(t, "POST", "/job/process-notifications", "")
	require.Equal(t, 202, code, out)
	select {
	case <-called:
	case <-time.After(30 * time.Second):
		t.Fatal("the marketplace was not called")
	}

	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool {
		return strings.Contains(s.stderr.String(), "shutting down: finishing in-flight requests and the running batch")
	}, 30*time.Second, 10*time.Millisecond, s.stderr.String())
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM), "a second SIGTERM")
	select {
	case err := <-s.done:
		t.Fatalf("sluice serve exited before its running batch finished: %v\n%s", err, s.stderr.String())
	default:
	}
	once.Do(func() { close(release) }) // the marketplace answers 200 now
	select {
	case err := <-s.done:
		require.NoError(t, err, "exit status 0\n%s", s.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("sluice serve did not stop:\n%s", s.stderr.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := sqlstore.Open(ctx, "sqlite:"+store)
	require.NoError(t, err)
	defer st.Close()
	rec, err := st.Get(ctx, "wbh-stop")
	require.NoError(t, err)
	require.Equal(t, "SUCCESS", string(rec.Status), "the running batch finished and its outcome was saved")
}
