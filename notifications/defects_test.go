package notifications_test

// Regression tests of the defects an attack pass found (issue 11), each
// named after it. See docs/http-api.md.

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
)

// startService starts svc on a loopback port and returns its base URL.
func startService(t *testing.T, svc *notifications.Service) string {
	t.Helper()
	require.NoError(t, svc.Start(context.Background()))
	return "http://" + svc.Addr()
}

func post(t *testing.T, url string, body []byte, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func encode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch enc {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "br":
		w = brotli.NewWriter(&buf)
	}
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// D1: encoded bodies are decoded with the limit on the decoded bytes.
func TestD1EncodedBodiesLimitDecodedBytes(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxBodyBytes = 4096
	st := openStore(t)
	svc := newService(t, cfg, st)
	url := startService(t, svc) + "/webhooks/notifications"

	for _, enc := range []string{"gzip", "deflate", "br"} {
		small := webhook("wbh-"+enc, "usr-1", "")
		code, body := post(t, url, encode(t, enc, []byte(small)), "Content-Encoding", enc)
		require.Equal(t, 200, code, "%s: %s", enc, body)
		rec := mustGet(t, st, "wbh-"+enc)
		require.JSONEq(t, small, string(rec.Payload), "the decoded body is stored")

		// A few hundred bytes that expand to 8 MiB.
		bomb := append([]byte(`{"token":"wbh-bomb-`+enc+`","pad":"`), bytes.Repeat([]byte("0"), 8<<20)...)
		bomb = append(bomb, `"}`...)
		packed := encode(t, enc, bomb)
		require.Less(t, len(packed), 64<<10)
		code, body = post(t, url, packed, "Content-Encoding", enc)
		require.Equal(t, 413, code, "%s: %s", enc, body)
		require.Contains(t, body, `"errorMessage"`)
		_, err := st.Get(context.Background(), "wbh-bomb-"+enc)
		require.ErrorIs(t, err, notifications.ErrNotFound)
	}
	code, body := post(t, url, []byte(webhook("wbh-x", "usr-1", "")), "Content-Encoding", "compress")
	require.Equal(t, 415, code, body)
	require.Contains(t, body, `"errorMessage"`)
	require.Contains(t, body, `compress`)
	code, body = post(t, url, []byte("not gzip at all"), "Content-Encoding", "gzip")
	require.Equal(t, 400, code, body)
	require.Contains(t, body, `"errorMessage"`)
	// raw deflate (no zlib header) is accepted too, as browsers send it.
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	_, _ = fw.Write([]byte(webhook("wbh-rawdeflate", "usr-1", "")))
	_ = fw.Close()
	code, body = post(t, url, raw.Bytes(), "Content-Encoding", "deflate")
	require.Equal(t, 200, code, body)
}

// D2: an announced Content-Length over the limit is refused before the
// body is read, and the connection does not wait for it.
func TestD2AnnouncedLengthOverLimit(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.MaxBodyBytes = 1024
	svc := newService(t, cfg, openStore(t))
	startService(t, svc)
	conn, err := net.DialTimeout("tcp", svc.Addr(), 10*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = fmt.Fprintf(conn, "POST /webhooks/notifications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{\"token\":")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "answered without the body")
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, 413, resp.StatusCode, string(b))
	require.Contains(t, string(b), "CONN_MAX_BODY_BYTES")

	// Within the limit, a body sent slowly is still taken whole.
	conn2, err := net.DialTimeout("tcp", svc.Addr(), 10*time.Second)
	require.NoError(t, err)
	defer conn2.Close()
	require.NoError(t, conn2.SetDeadline(time.Now().Add(20*time.Second)))
	body := webhook("wbh-slow", "usr-1", "")
	_, err = fmt.Fprintf(conn2, "POST /webhooks/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
	require.NoError(t, err)
	for i := 0; i < len(body); i += 16 {
		_, err = conn2.Write([]byte(body[i:min(i+16, len(body))]))
		require.NoError(t, err)
		time.Sleep(5 * time.Millisecond)
	}
	resp, err = http.ReadResponse(bufio.NewReader(conn2), nil)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
}

// D3: every stored string reads back as valid JSON, whatever it holds.
func TestD3RecordJSONIsValidJSON(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	svc := newService(t, cfg, st)
	// Control characters, DEL and a U+2028 in the tokens; \u escapes in JSON.
	body := `{"token":"wbh-ctl\u0001\u001f\u007f\u2028x","object":{"token":"usr-\u0007bell\u007f","programToken":"prg-\t\"q\""}}`
	code, resp := do(t, svc, "POST", "/webhooks/notifications", body)
	require.Equal(t, 200, code, resp)

	code, list := do(t, svc, "GET", "/webhooks/notifications?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z", "")
	require.Equal(t, 200, code)
	require.True(t, json.Valid([]byte(list)), list)
	var recs []notifications.Record
	require.NoError(t, json.Unmarshal([]byte(list), &recs))
	require.Len(t, recs, 1)
	require.Equal(t, "wbh-ctl\x01\x1f\x7f\u2028x", recs[0].WebhookToken)
	require.Equal(t, "usr-\abell\x7f", recs[0].ObjectToken)
	require.Equal(t, "prg-\t\"q\"", recs[0].Program)

	code, nd := do(t, svc, "GET", "/datasets/notifications?format=ndjson", "")
	require.Equal(t, 200, code)
	for _, line := range strings.Split(strings.TrimSpace(nd), "\n") {
		require.True(t, json.Valid([]byte(line)), line)
	}

	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, notifications.StatusSuccess, mustGet(t, st, "wbh-ctl\x01\x1f\x7f\u2028x").Status,
		"the marketplace body is valid JSON")
}

// D3: invalid UTF-8 is replaced by U+FFFD and counted.
func TestD3InvalidUTF8Replaced(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	svc := newService(t, testConfig(), st)
	body := []byte("{\"token\":\"wbh-utf\",\"object\":{\"token\":\"usr-\xff\xfe-1\",\"programToken\":\"prg-\xc3\"}}")
	code, resp := do(t, svc, "POST", "/webhooks/notifications", string(body))
	require.Equal(t, 200, code, resp)
	rec := mustGet(t, st, "wbh-utf")
	require.Equal(t, "usr-\uFFFD\uFFFD-1", rec.ObjectToken)
	require.Equal(t, "prg-\uFFFD", rec.Program)
	_, metrics := do(t, svc, "GET", "/metrics", "")
	require.Contains(t, metrics, `sluice_notifications_invalid_utf8_total{source="notifications"} 1
`)
}

// The null objectToken: a delivery without an object has objectToken null.
func TestMissingObjectGivesNullObjectToken(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	svc := newService(t, testConfig(), st)
	code, _ := do(t, svc, "POST", "/webhooks/notifications", `{"token":"wbh-noobj"}`)
	require.Equal(t, 200, code)
	code, list := do(t, svc, "GET", "/webhooks/notifications?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z", "")
	require.Equal(t, 200, code)
	var raw []map[string]any
	require.NoError(t, json.Unmarshal([]byte(list), &raw))
	require.Len(t, raw, 1)
	v, ok := raw[0]["objectToken"]
	require.True(t, ok)
	require.Nil(t, v, "objectToken is null, not \"\"")
	require.Equal(t, "UNK", raw[0]["notificationType"])
}

// D4: marketplace URL query secrets and echoed bodies stay out of logs and
// stored errors.
func TestD4DownstreamSecretsNotLogged(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	st := openStore(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		fmt.Fprintf(w, "bad request %s with key=%s", r.URL.String(), r.URL.Query().Get("key"))
	}))
	t.Cleanup(echo.Close)
	cfg := testConfig()
	cfg.MarketplaceURL = echo.URL + "/hook?key=s3cr3t-k3y&user=ops"
	svc := newService(t, cfg, st, notifications.WithLogger(jsonLogger(&logs)))
	deliver(t, svc, "wbh-d4", "usr-1", "")
	_, err := svc.RunProcessing(context.Background())
	require.NoError(t, err)
	require.Equal(t, notifications.StatusRetrying, mustGet(t, st, "wbh-d4").Status)
	require.NotContains(t, logs.String(), "s3cr3t-k3y")
	require.Contains(t, logs.String(), "marketplace answered 500")

	// A transport error names the URL: without its query either.
	cfg.MarketplaceURL = "http://127.0.0.1:1/hook?key=s3cr3t-k3y"
	svc2 := newService(t, cfg, openStore(t), notifications.WithLogger(jsonLogger(&logs)))
	deliver(t, svc2, "wbh-d4b", "usr-1", "")
	_, err = svc2.RunProcessing(context.Background())
	require.NoError(t, err)
	require.NotContains(t, logs.String(), "s3cr3t-k3y")
}

// D5: the provider API fetch never carries credentials to another host on
// a redirect.
func TestD5ProviderRedirectToOtherHost(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key")+"|"+r.Header.Get("Referer"))
		mu.Unlock()
		w.Write([]byte(`{"token":"wbh-d5"}`))
	}))
	t.Cleanup(other.Close)
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) // another host
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+"/elsewhere", http.StatusFound)
	}))
	t.Cleanup(provider.Close)
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.ProviderAPIURL = "http://user:pw@" + strings.TrimPrefix(provider.URL, "http://") + "/api?key=k"
	st := openStore(t)
	svc := newService(t, cfg, st)
	require.NoError(t, st.Insert(context.Background(), &notifications.Record{WebhookToken: "wbh-d5", Status: notifications.StatusFailed}))
	_, err := st.Requeue(context.Background(), "wbh-d5")
	require.NoError(t, err)
	_, err = svc.RunProcessing(context.Background())
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	for _, l := range leaked {
		require.Equal(t, "||", l, "no credentials sent to another host")
	}
}

// D7: long tokens and bad management parameters are 400 on both stores.
func TestD7TokenLimitsAndBadParameters(t *testing.T) {
	t.Parallel()
	for _, tc := range storeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.ManagementAPI = true
			svc := newService(t, cfg, tc.open(t))
			long := strings.Repeat("w", 256)
			code, body := do(t, svc, "POST", "/webhooks/notifications", webhook(long, "usr-1", ""))
			require.Equal(t, 400, code, body)
			require.Contains(t, body, "255")
			huge := strings.Repeat("w", 3000)
			code, body = do(t, svc, "POST", "/webhooks/notifications", webhook("wbh-ok", huge, ""))
			require.Equal(t, 400, code, body)
			code, _ = do(t, svc, "POST", "/webhooks/notifications", webhook(strings.Repeat("w", 255), "usr-1", ""))
			require.Equal(t, 200, code)
			code, body = do(t, svc, "POST", "/management/failed-notifications", `{"notificationToken":"`+huge+`"}`)
			require.Equal(t, 400, code, body)
			for _, p := range []string{
				"/management/failed-notifications/" + huge,
				"/management/failed-notifications/a%00b",
				"/management/failed-notifications/a%FFb",
				"/management/failed-notifications?target=a%00b",
				"/management/failed-notifications?target=a%FFb",
				"/management/failed-notifications?type=US%00R",
				"/management/failed-notifications?target=" + huge,
			} {
				code, body := do(t, svc, "GET", p, "")
				require.Equal(t, 400, code, "%s: %s", p, body)
				require.True(t, json.Valid([]byte(body)), body)
				require.NotContains(t, body, "\x00")
			}
		})
	}
}

// D8: a store that cannot commit makes /health 503 with a reason, and the
// repeated error is logged once, with a count, not per request.
func TestD8HealthWhenStoreCannotCommit(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	st := &failingStore{Store: openStore(t)}
	svc := newService(t, testConfig(), st, notifications.WithLogger(jsonLogger(&logs)))
	code, _ := do(t, svc, "GET", "/health", "")
	require.Equal(t, 200, code)
	st.fail.Store(true)
	for i := range 50 {
		code, _ := do(t, svc, "POST", "/webhooks/notifications", webhook(fmt.Sprintf("wbh-%d", i), "usr-1", ""))
		require.Equal(t, 503, code)
	}
	code, body := do(t, svc, "GET", "/health", "")
	require.Equal(t, 503, code, body)
	require.Contains(t, body, `"DOWN"`)
	require.Contains(t, body, "database or disk is full")
	require.LessOrEqual(t, strings.Count(logs.String(), "database or disk is full"), 3, logs.String())
	st.fail.Store(false)
	code, _ = do(t, svc, "POST", "/webhooks/notifications", webhook("wbh-after", "usr-1", ""))
	require.Equal(t, 200, code)
	code, body = do(t, svc, "GET", "/health", "")
	require.Equal(t, 200, code, body)
}

// D9: retryCounter is 0…1000.
func TestD9RetryCounterBounded(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.ManagementAPI = true
	st := openStore(t)
	svc := newService(t, cfg, st)
	code, _ := do(t, svc, "POST", "/management/failed-notifications", `{"notificationToken":"wbh-9","retryCounter":1000}`)
	require.Equal(t, 201, code)
	for _, b := range []struct{ method, path, body string }{
		{"POST", "/management/failed-notifications", `{"notificationToken":"wbh-a","retryCounter":1001}`},
		{"PUT", "/management/failed-notifications/wbh-9", `{"retryCounter":99999999999}`},
		{"PUT", "/management/failed-notifications/wbh-9", `{"retryCounter":-1}`},
		{"PUT", "/management/failed-notifications", `[{"notificationToken":"wbh-b","retryCounter":9223372036854775807}]`},
		{"PUT", "/management/failed-notifications", `[{"notificationToken":"wbh-b","retryCounter":2147483648}]`},
	} {
		code, body := do(t, svc, b.method, b.path, b.body)
		require.Equal(t, 400, code, "%s %s: %s", b.method, b.body, body)
		require.Contains(t, body, "retryCounter")
	}
	require.Equal(t, 1000, mustGet(t, st, "wbh-9").RetryCounter)
}

// D10: PROVIDER_API_URL with a query keeps it after the path.
func TestD10ProviderURLJoin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Write([]byte(`{"token":"x"}`))
	}))
	t.Cleanup(provider.Close)
	m := newMarketplace(t)
	cfg := testConfig()
	cfg.MarketplaceURL = m.URL
	cfg.ProviderAPIURL = provider.URL + "/api/v4/?program=prg-1"
	st := openStore(t)
	svc := newService(t, cfg, st)
	require.NoError(t, st.Insert(context.Background(), &notifications.Record{WebhookToken: "wbh/10 x", Status: notifications.StatusFailed}))
	_, err := st.Requeue(context.Background(), "wbh/10 x")
	require.NoError(t, err)
	_, err = svc.RunProcessing(context.Background())
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"/api/v4/webhook-notifications/wbh/10 x?program=prg-1"}, got)
}

// D11: unknown methods on known paths are 405 JSON with Allow; header
// errors quote values and never echo raw bytes.
func TestD11MethodNotAllowedAndHeaderErrors(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.ManagementAPI = true
	svc := newService(t, cfg, openStore(t))
	url := startService(t, svc)
	for _, c := range []struct{ method, path, allow string }{
		{"PATCH", "/webhooks/notifications", "DELETE, GET, POST"},
		{"PUT", "/health", "GET"},
		{"GET", "/job/process-notifications", "POST"},
		{"PROPFIND", "/management/failed-notifications/tok", "DELETE, GET, PUT"},
		{"DELETE", "/management/failed-notifications/tok/retry", "POST"},
	} {
		req, err := http.NewRequest(c.method, url+c.path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, 405, resp.StatusCode, "%s %s: %s", c.method, c.path, b)
		require.Equal(t, c.allow, resp.Header.Get("Allow"), "%s %s", c.method, c.path)
		require.True(t, json.Valid(b), string(b))
		require.Contains(t, string(b), `"errorMessage"`)
	}
	// A bad Authorization value is named, quoted, never echoed raw.
	cfg2 := testConfig()
	cfg2.APIToken = "tok"
	svc2 := newService(t, cfg2, openStore(t))
	code, body := do(t, svc2, "GET", "/metrics", "", "Authorization", "Bearer \x01\x7fevil<script>")
	require.Equal(t, 401, code)
	require.True(t, json.Valid([]byte(body)), body)
	require.NotContains(t, body, "\x01")
	require.NotContains(t, body, "<script>")
	// A request that does not parse is answered without its bytes.
	for _, raw := range []string{"GARBAGE<x>\r\n\r\n", "POST /webhooks/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: z<x>\r\n\r\n"} {
		conn, err := net.DialTimeout("tcp", svc.Addr(), 10*time.Second)
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
		_, err = io.WriteString(conn, raw)
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		conn.Close()
		require.Equal(t, 400, resp.StatusCode)
		require.True(t, json.Valid(b), string(b))
		require.NotContains(t, string(b), "<x>")
	}
	// A bad Content-Encoding value is quoted as JSON text.
	code, body = do(t, svc, "POST", "/webhooks/notifications", `{"token":"x"}`, "Content-Encoding", "x\x7f<b>")
	require.Equal(t, 415, code, body)
	require.True(t, json.Valid([]byte(body)), body)
	require.NotContains(t, body, "\x7f")
}

// storeCase opens one kind of store for a test.
type storeCase struct {
	name string
	open func(t *testing.T) notifications.Store
}

// storeCases are SQLite always and Postgres when SLUICE_TEST_POSTGRES_DSN is set.
func storeCases(t *testing.T) []storeCase {
	cases := []storeCase{{"sqlite", func(t *testing.T) notifications.Store { return openStore(t) }}}
	if os.Getenv("SLUICE_TEST_POSTGRES_DSN") != "" {
		cases = append(cases, storeCase{"postgres", openPostgres})
	} else {
		t.Log("SLUICE_TEST_POSTGRES_DSN not set: Postgres case skipped")
	}
	return cases
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// failingStore fails every write like a full disk while fail is set.
type failingStore struct {
	notifications.Store
	fail atomic.Bool
}

var errDiskFull = fmt.Errorf("enqueue: %w: database or disk is full (13)", notifications.ErrUnavailable)

func (s *failingStore) Enqueue(ctx context.Context, r *notifications.Record) (notifications.EnqueueResult, error) {
	if s.fail.Load() {
		return notifications.EnqueueResult{}, errDiskFull
	}
	return s.Store.Enqueue(ctx, r)
}

// D2: connections that announce a body within the limit and send it
// slowly hold only what they sent, not the announced length. Not parallel:
// it measures the heap.
func TestD2SlowClientsHoldLittleMemory(t *testing.T) {
	cfg := testConfig()
	cfg.MaxBodyBytes = 1 << 20
	svc := newService(t, cfg, openStore(t))
	startService(t, svc)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 200
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range n {
		c, err := net.DialTimeout("tcp", svc.Addr(), 10*time.Second)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = fmt.Fprintf(c, "POST /webhooks/notifications HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n{\"token\":\"", 1<<20)
		require.NoError(t, err)
	}
	// A request answered after them shows the server is serving; the
	// pause lets it reach every connection's body (the figure is a bound
	// on memory, not on time).
	code, _ := post(t, "http://"+svc.Addr()+"/webhooks/notifications", []byte(webhook("wbh-probe", "usr-1", "")))
	require.Equal(t, 200, code)
	time.Sleep(500 * time.Millisecond)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapInuse) - int64(before.HeapInuse)
	require.Less(t, grown, int64(64<<20), "%d connections announcing 1 MiB grew the heap by %d MiB", n, grown>>20)
}

// D6: a secret echoed by a downstream is masked even when the excerpt
// would cut it in two, or when it comes back URL-encoded or JSON-escaped.
func TestD6ExcerptRedaction(t *testing.T) {
	t.Parallel()
	const secret = "tok/en+with=specials&more"
	for _, tc := range []struct {
		name string
		echo func() string
	}{
		{"cut at the excerpt boundary", func() string { return strings.Repeat("x", 500) + secret + strings.Repeat("y", 100) }},
		{"URL-encoded", func() string { return "refused ?key=" + url.QueryEscape(secret) }},
		{"JSON-escaped", func() string { b, _ := json.Marshal(map[string]string{"key": secret + "\u2028"}); return string(b) }},
		{"path-escaped", func() string { return "GET /x/" + url.PathEscape(secret) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(502)
				io.WriteString(w, tc.echo())
			}))
			t.Cleanup(srv.Close)
			cfg := testConfig()
			cfg.MarketplaceURL = srv.URL + "/hook?key=" + url.QueryEscape(secret)
			st := openStore(t)
			svc := newService(t, cfg, st, notifications.WithLogger(jsonLogger(&logs)))
			deliver(t, svc, "wbh-d6", "usr-1", "")
			_, err := svc.RunProcessing(context.Background())
			require.NoError(t, err)
			require.Contains(t, logs.String(), "marketplace answered 502")
			for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), secret[:12], "en+with=spec"} {
				require.NotContains(t, logs.String(), form)
			}
		})
	}
}
