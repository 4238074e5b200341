package notifications_test

// Reliability tests against the real `sluice` binary: built once (or taken
// from SLUICE_TEST_BINARY), started as a child process on loopback, killed
// with SIGKILL where the test says so.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/storetest"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// sluiceBinary builds ./cmd/sluice once per test binary.
func sluiceBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping tests that build and run the sluice binary")
	}
	binOnce.Do(func() {
		if p := os.Getenv("SLUICE_TEST_BINARY"); p != "" {
			binPath = p
			return
		}
		binDir, binErr = os.MkdirTemp("", "sluice-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "sluice")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "go", "build", "-o", binPath, "github.com/sluicedata/sluice/cmd/sluice").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ./cmd/sluice: %w\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// sidecar is one running `sluice serve`.
type sidecar struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

func (s *sidecar) url(path string) string { return "http://" + s.addr + path }

func (s *sidecar) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// startSidecar runs `sluice serve --addr 127.0.0.1:0 --store dsn` with the
// given variables and waits for its "listening on" line.
func startSidecar(t *testing.T, dsn string, vars ...string) *sidecar {
	t.Helper()
	bin := sluiceBinary(t)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--store", dsn)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION=off",
		"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION=off"}, vars...)
	cmd.Dir = t.TempDir()
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	s := &sidecar{cmd: cmd, done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			s.mu.Unlock()
			if a, ok := strings.CutPrefix(line, "sluice serve: listening on "); ok {
				ready <- a
			}
		}
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.kill() })
	select {
	case s.addr = <-ready:
	case <-s.done:
		t.Fatalf("sluice serve exited before listening:\n%s", s.logs())
	case <-time.After(30 * time.Second):
		s.kill()
		t.Fatalf("sluice serve did not start in 30s:\n%s", s.logs())
	}
	return s
}

func (s *sidecar) kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (s *sidecar) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("sluice serve did not stop on SIGTERM:\n%s", s.logs())
	}
	require.True(t, s.cmd.ProcessState.Success(), "exit status %v:\n%s", s.cmd.ProcessState, s.logs())
}

func allRecords(t *testing.T, s *sidecar) []notifications.Record {
	t.Helper()
	// The listing pages (1000 records by default): follow the Next cursor.
	var all []notifications.Record
	after := ""
	for page := 0; page < 1000; page++ {
		resp, err := http.Get(s.url("/webhooks/notifications?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&after=" + after))
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode, string(b))
		var recs []notifications.Record
		require.NoError(t, json.Unmarshal(b, &recs))
		all = append(all, recs...)
		if after = resp.Header.Get("Next"); after == "" {
			return all
		}
	}
	t.Fatal("more than 1000 pages")
	return nil
}

func TestBinaryConcurrentIdenticalPosts(t *testing.T) {
	t.Parallel()
	s := startSidecar(t, "sqlite:"+filepath.Join(t.TempDir(), "n.db"))
	body := []byte(webhook("wbh-twenty", "usr-1", "2024-05-01T09:00:00Z"))
	var wg sync.WaitGroup
	codes := make(chan int, 20)
	start := make(chan struct{})
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := http.Post(s.url("/webhooks/notifications"), "application/json", bytes.NewReader(body))
			if err != nil {
				codes <- -1
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	close(start)
	wg.Wait()
	close(codes)
	for c := range codes {
		require.Equal(t, 200, c)
	}
	recs := allRecords(t, s)
	require.Len(t, recs, 1, "exactly one record")
	require.Equal(t, "wbh-twenty", recs[0].WebhookToken)
	s.stop(t)
}

func TestBinaryKill9LosesNoAcknowledgedNotification(t *testing.T) {
	t.Parallel()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "n.db")
	s := startSidecar(t, dsn)
	var (
		mu    sync.Mutex
		acked []string
		n     atomic.Int64
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	client := &http.Client{Timeout: 5 * time.Second}
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				tok := fmt.Sprintf("wbh-%d-%d", g, i)
				resp, err := client.Post(s.url("/webhooks/notifications"), "application/json",
					strings.NewReader(webhook(tok, fmt.Sprintf("usr-%d-%d", g, i), "")))
				if err != nil {
					return // the sidecar is gone
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, tok)
					mu.Unlock()
					n.Add(1)
				}
			}
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for n.Load() < 1500 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s.kill() // SIGKILL while the generators are still posting
	stop.Store(true)
	wg.Wait()
	require.Positive(t, n.Load())

	s2 := startSidecar(t, dsn)
	stored := map[string]bool{}
	for _, r := range allRecords(t, s2) {
		stored[r.WebhookToken] = true
	}
	mu.Lock()
	defer mu.Unlock()
	missing := 0
	for _, tok := range acked {
		if !stored[tok] {
			missing++
		}
	}
	require.Zero(t, missing, "of %d acknowledged notifications, %d are missing after kill -9", len(acked), missing)
	s2.stop(t)
}

// overlapMarketplace counts deliveries per webhook token and detects two
// deliveries of one token in flight at the same time.
type overlapMarketplace struct {
	*httptest.Server
	mu       sync.Mutex
	inFlight map[string]int
	count    map[string]int
	overlaps int
}

func newOverlapMarketplace(t *testing.T) *overlapMarketplace {
	m := &overlapMarketplace{inFlight: map[string]int{}, count: map[string]int{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c marketCall
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		tok := c.Notification.WebhookToken
		m.mu.Lock()
		m.inFlight[tok]++
		if m.inFlight[tok] > 1 {
			m.overlaps++
		}
		m.count[tok]++
		m.mu.Unlock()
		time.Sleep(200 * time.Microsecond)
		m.mu.Lock()
		m.inFlight[tok]--
		m.mu.Unlock()
		w.WriteHeader(200)
	}))
	t.Cleanup(m.Close)
	return m
}

func TestBinaryTwoSidecarsOnePostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresDSN(t)

	m := newOverlapMarketplace(t)
	vars := []string{"CONN_MARKETPLACE_URL=" + m.URL, "CONN_PROCESSING_DRAIN=true", "CONN_PROCESSING_CONCURRENCY=4",
		"PROVIDER_NOTIFICATIONS_BATCH_SIZE=50"}
	a := startSidecar(t, dsn, vars...)
	b := startSidecar(t, dsn, vars...)

	const total = 1000
	began := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, total)
	sem := make(chan struct{}, 16)
	for i := range total {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			target := a
			if i%2 == 1 {
				target = b
			}
			resp, err := http.Post(target.url("/webhooks/notifications"), "application/json",
				strings.NewReader(webhook(fmt.Sprintf("wbh-%04d", i), fmt.Sprintf("usr-%d", i), "")))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	t.Logf("intake of %d notifications over two sidecars: %s", total, time.Since(began))
	began = time.Now()
	recs := allRecords(t, a)
	require.NotEmpty(t, recs)
	live := 0
	for _, r := range recs {
		if r.Status == notifications.StatusPending {
			live++
		}
	}

	// Both triggered together, twice each.
	var tw sync.WaitGroup
	for _, s := range []*sidecar{a, b, a, b} {
		tw.Add(1)
		go func() {
			defer tw.Done()
			resp, err := http.Post(s.url("/job/process-notifications"), "", nil)
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	tw.Wait()
	eventuallyWithin(t, 90*time.Second, "every record processed", func() bool {
		for _, r := range allRecords(t, b) {
			if r.Status == notifications.StatusPending || r.Status == notifications.StatusRetrying {
				return false
			}
		}
		return true
	})
	t.Logf("processing of %d live records: %s", live, time.Since(began))
	m.mu.Lock()
	defer m.mu.Unlock()
	require.Zero(t, m.overlaps, "no token delivered twice at the same time")
	require.Equal(t, total, live, "every notification stored PENDING")
	require.Len(t, m.count, live, "every live record delivered")
	for _, r := range allRecords(t, a) {
		require.NotEqual(t, notifications.StatusPending, r.Status, r.WebhookToken)
	}
	a.stop(t)
	b.stop(t)
}
