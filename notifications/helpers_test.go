package notifications_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/sqlstore"
)

// quietLogger keeps test output readable; failures show through require.
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// openStore opens a real SQLite store in a fresh temp dir.
func openStore(t testing.TB, opts ...sqlstore.Option) notifications.Store {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "notifications.db")
	st, err := sqlstore.Open(context.Background(), dsn, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// clock is a settable clock for back-off tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testConfig is the default config with schedules off (tests run jobs
// explicitly) and a loopback address.
func testConfig() notifications.Config {
	cfg := notifications.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.ProcessingCron = notifications.Off
	cfg.CleanupCron = notifications.Off
	cfg.DownstreamTimeout = 5 * time.Second
	return cfg
}

func newService(t testing.TB, cfg notifications.Config, st notifications.Store, opts ...notifications.Option) *notifications.Service {
	t.Helper()
	opts = append([]notifications.Option{notifications.WithLogger(quietLogger())}, opts...)
	svc, err := notifications.New(cfg, st, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = svc.Stop(ctx)
	})
	return svc
}

// do runs one request through the app in-process.
func do(t testing.TB, svc *notifications.Service, method, path, body string, header ...string) (int, string) {
	t.Helper()
	code, out, _ := doH(t, svc, method, path, body, header...)
	return code, out
}

// doH is do answering the response headers too.
func doH(t testing.TB, svc *notifications.Service, method, path, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := svc.App().Test(req, -1)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), resp.Header
}

// webhook builds a provider webhook body.
func webhook(token, objectToken, createdOn string) string {
	m := map[string]any{"token": token, "type": "USERS.UPDATED.STATUS.ACTIVATED"}
	if createdOn != "" {
		m["createdOn"] = createdOn
	}
	if objectToken != "" {
		m["object"] = map[string]any{"token": objectToken, "programToken": "prg-1", "status": "ACTIVATED"}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// deliver posts a webhook and requires 200.
func deliver(t testing.TB, svc *notifications.Service, token, objectToken, createdOn string) {
	t.Helper()
	code, body := do(t, svc, "POST", "/webhooks/notifications", webhook(token, objectToken, createdOn))
	require.Equal(t, 200, code, body)
}

// marketplace is a real HTTP server receiving processed notifications.
type marketplace struct {
	*httptest.Server
	mu       sync.Mutex
	calls    []marketCall
	status   func(token string) int // nil: 200
	active   map[string]int         // concurrent calls per objectToken
	overlaps int
}

type marketCall struct {
	Notification notifications.Record
	Payload      json.RawMessage
}

func newMarketplace(t testing.TB) *marketplace {
	t.Helper()
	m := &marketplace{active: map[string]int{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c marketCall
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		obj := c.Notification.ObjectToken
		m.mu.Lock()
		m.active[obj]++
		if m.active[obj] > 1 {
			m.overlaps++
		}
		m.calls = append(m.calls, c)
		status := 200
		if m.status != nil {
			status = m.status(c.Notification.WebhookToken)
		}
		m.mu.Unlock()
		time.Sleep(time.Millisecond) // widen the window in which an overlap would show
		m.mu.Lock()
		m.active[obj]--
		m.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *marketplace) setStatus(f func(token string) int) {
	m.mu.Lock()
	m.status = f
	m.mu.Unlock()
}

func (m *marketplace) tokens() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.calls))
	for i, c := range m.calls {
		out[i] = c.Notification.WebhookToken
	}
	return out
}

// smtpServer is a small real SMTP server on loopback (EHLO, optional
// STARTTLS and AUTH PLAIN, MAIL, RCPT, DATA, QUIT) that keeps what it got.
type smtpServer struct {
	ln       net.Listener
	tlsConf  *tls.Config // non-nil: offers STARTTLS
	wantAuth string      // "user\x00pass": offers AUTH PLAIN and checks it
	mu       sync.Mutex
	msgs     []smtpMessage
	wg       sync.WaitGroup
}

type smtpMessage struct {
	From string
	To   []string
	Data string
	TLS  bool
	Auth string
}

func newSMTPServer(t testing.TB, withTLS bool, auth string) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &smtpServer{ln: ln, wantAuth: auth}
	if withTLS {
		s.tlsConf = &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}
	}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *smtpServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *smtpServer) messages() []smtpMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMessage(nil), s.msgs...)
}

func (s *smtpServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.session(c)
		}()
	}
}

func (s *smtpServer) session(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(l string) { w.WriteString(l + "\r\n"); w.Flush() }
	reply("220 test.local ESMTP")
	var msg smtpMessage
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.SplitN(line, " ", 2)[0])
		switch verb {
		case "EHLO", "HELO":
			lines := []string{"250-test.local"}
			if s.tlsConf != nil && !msg.TLS {
				lines = append(lines, "250-STARTTLS")
			}
			if s.wantAuth != "" {
				lines = append(lines, "250-AUTH PLAIN")
			}
			lines = append(lines, "250 8BITMIME")
			for _, l := range lines {
				w.WriteString(l + "\r\n")
			}
			w.Flush()
		case "STARTTLS":
			reply("220 go ahead")
			tc := tls.Server(c, s.tlsConf)
			if tc.Handshake() != nil {
				return
			}
			c = tc
			r, w = bufio.NewReader(tc), bufio.NewWriter(tc)
			msg.TLS = true
		case "AUTH":
			parts := strings.Fields(line)
			if len(parts) < 3 || parts[1] != "PLAIN" {
				reply("504 unsupported")
				continue
			}
			raw, _ := base64.StdEncoding.DecodeString(parts[2])
			if strings.TrimPrefix(string(raw), "\x00") != s.wantAuth {
				reply("535 authentication failed")
				continue
			}
			msg.Auth = s.wantAuth
			reply("235 ok")
		case "MAIL":
			msg.From = strings.Trim(strings.TrimPrefix(line[5:], "FROM:"), "<> ")
			if i := strings.Index(msg.From, ">"); i >= 0 {
				msg.From = msg.From[:i]
			}
			reply("250 ok")
		case "RCPT":
			to := strings.Trim(strings.TrimPrefix(line[5:], "TO:"), "<> ")
			msg.To = append(msg.To, to)
			reply("250 ok")
		case "DATA":
			reply("354 end with .")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			msg.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, msg)
			s.mu.Unlock()
			msg = smtpMessage{TLS: msg.TLS, Auth: msg.Auth}
			reply("250 queued")
		case "RSET", "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 unknown command")
		}
	}
}

func selfSigned(t testing.TB) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// certPool trusts the SMTP server's certificate.
func (s *smtpServer) certPool() *x509.CertPool {
	p := x509.NewCertPool()
	cert, _ := x509.ParseCertificate(s.tlsConf.Certificates[0].Certificate[0])
	p.AddCert(cert)
	return p
}

// eventually polls cond for up to 10 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 10*time.Second, what, cond)
}

func eventuallyWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func mustGet(t testing.TB, st notifications.Store, token string) notifications.Record {
	t.Helper()
	r, err := st.Get(context.Background(), token)
	require.NoError(t, err, "get %s", token)
	return r
}

var _ = fmt.Sprintf
