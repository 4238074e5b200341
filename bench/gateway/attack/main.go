// Command attack measures the notification sidecar's reliability figures
// against a real `sluice serve` process (see bench/gateway/reliability.sh
// and docs/http-api.md): kill -9 under intake load, a gzip bomb, slow
// connections and malformed bodies. It prints one line per figure and
// exits 1 when a figure misses its bound.
//
//	attack -bin ./sluice -store sqlite:/tmp/n.db kill9|bomb|slow|malformed
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	bin   = flag.String("bin", "./sluice", "the sluice binary")
	store = flag.String("store", "", "store DSN (sqlite:<path> or postgres://…)")
)

func main() {
	flag.Parse()
	if flag.NArg() != 1 || *store == "" {
		fmt.Fprintln(os.Stderr, "usage: attack -bin BIN -store DSN kill9|bomb|slow|malformed")
		os.Exit(2)
	}
	var err error
	switch flag.Arg(0) {
	case "kill9":
		err = kill9()
	case "bomb":
		err = bomb()
	case "slow":
		err = slow()
	case "malformed":
		err = malformed()
	default:
		err = fmt.Errorf("unknown attack %q", flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "attack:", err)
		os.Exit(1)
	}
}

// sidecar is a running `sluice serve`.
type sidecar struct {
	cmd  *exec.Cmd
	addr string
}

func start(env ...string) (*sidecar, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(*bin, "serve", "--addr", addr, "--store", *store)
	cmd.Env = append(os.Environ(), "PROVIDER_NOTIFICATIONS_PROCESSING_CRON_EXPRESSION=off",
		"PROVIDER_NOTIFICATIONS_CLEANUP_CRON_EXPRESSION=off", "CONN_TOGGLE_FEATURES_MANAGEMENT_API=true")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{cmd: cmd, addr: addr}
	for range 400 {
		if resp, err := http.Get(s.url("/health")); err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	s.kill()
	return nil, errors.New("sluice serve did not come up in 10 s")
}

func (s *sidecar) url(p string) string { return "http://" + s.addr + p }

func (s *sidecar) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
}

func (s *sidecar) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(70 * time.Second):
		s.kill()
	}
}

// rss reads the process's resident set (current and peak) in MiB.
func (s *sidecar) rss() (now, peak float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return -1, -1
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			now = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return now, peak
}

func body(tok string) string {
	return `{"token":"` + tok + `","type":"USERS.UPDATED","createdOn":"2024-05-01T10:00:00Z","object":{"token":"usr-` +
		tok + `","programToken":"prg-1"}}`
}

// kill9: 32 clients post unique deliveries; the sidecar is killed with
// SIGKILL after 3 s; after a restart every delivery answered 200 must be
// there.
func kill9() error {
	s, err := start()
	if err != nil {
		return err
	}
	var (
		mu    sync.Mutex
		acked []string
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	run := time.Now().UnixNano()
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				tok := fmt.Sprintf("k9-%d-%d-%d", run, g, i)
				resp, err := client.Post(s.url("/webhooks/notifications"), "application/json", strings.NewReader(body(tok)))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, tok)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(3 * time.Second)
	s.kill()
	stop.Store(true)
	wg.Wait()
	s2, err := start()
	if err != nil {
		return err
	}
	defer s2.stop()
	lost := 0
	for _, tok := range acked {
		resp, err := client.Get(s2.url("/management/failed-notifications/" + tok))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == 404 {
			lost++
		} else if resp.StatusCode != 200 {
			return fmt.Errorf("checking %s: status %d", tok, resp.StatusCode)
		}
	}
	fmt.Printf("kill9     %-9s acknowledged before SIGKILL %6d   lost after restart %d\n", kind(), len(acked), lost)
	if lost > 0 || len(acked) == 0 {
		return fmt.Errorf("%d acknowledged deliveries lost (of %d)", lost, len(acked))
	}
	return nil
}

// bomb: a gzip body of a few hundred KiB that expands to 1 GiB.
func bomb() error {
	s, err := start()
	if err != nil {
		return err
	}
	defer s.stop()
	var packed bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&packed, gzip.BestCompression)
	_, _ = io.WriteString(zw, `{"token":"wbh-bomb","pad":"`)
	zero := make([]byte, 1<<20)
	for range 1024 {
		_, _ = zw.Write(zero)
	}
	_, _ = io.WriteString(zw, `"}`)
	_ = zw.Close()
	_, before := s.rss()
	codes := map[int]int{}
	for range 5 {
		req, _ := http.NewRequest("POST", s.url("/webhooks/notifications"), bytes.NewReader(packed.Bytes()))
		req.Header.Set("Content-Encoding", "gzip")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes[resp.StatusCode]++
	}
	_, peak := s.rss()
	fmt.Printf("bomb      %-9s %d KiB gzip → 1 GiB, 5 posts: statuses %v   peak RSS %.0f MiB (before %.0f MiB)\n",
		kind(), packed.Len()>>10, codes, peak, before)
	if codes[413] != 5 || peak >= 100 {
		return fmt.Errorf("want five 413 and peak RSS < 100 MiB")
	}
	return nil
}

// slow: 1,000 connections announce a 1 MiB body and trickle it.
func slow() error {
	s, err := start()
	if err != nil {
		return err
	}
	defer s.stop()
	const n = 1000
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range n {
		c, err := net.DialTimeout("tcp", s.addr, 10*time.Second)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /webhooks/notifications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"token\":\"slow-%d\",\"pad\":\"", 1<<20, i)
	}
	// Trickle 4 KiB more on each, twice, then measure.
	chunk := bytes.Repeat([]byte("x"), 4096)
	for range 2 {
		for _, c := range conns {
			_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			_, _ = c.Write(chunk)
		}
		time.Sleep(time.Second)
	}
	// The server still answers others meanwhile.
	resp, err := http.Post(s.url("/webhooks/notifications"), "application/json", strings.NewReader(body(fmt.Sprintf("probe-%d", time.Now().UnixNano()))))
	if err != nil {
		return err
	}
	resp.Body.Close()
	now, peak := s.rss()
	fmt.Printf("slow      %-9s %d connections announcing 1 MiB, 8 KiB sent each: RSS %.0f MiB (peak %.0f MiB), a fresh delivery → %d\n",
		kind(), n, now, peak, resp.StatusCode)
	if peak >= 300 || resp.StatusCode != 200 {
		return fmt.Errorf("want peak RSS < 300 MiB and the fresh delivery answered 200")
	}
	return nil
}

// malformed: 2,000 bodies of 20 broken shapes; none may be a 5xx.
func malformed() error {
	s, err := start()
	if err != nil {
		return err
	}
	defer s.stop()
	shapes := []func(i int) (string, string){
		func(int) (string, string) { return "", "" },
		func(int) (string, string) { return "{", "" },
		func(int) (string, string) { return "null", "" },
		func(int) (string, string) { return "[]", "" },
		func(int) (string, string) { return `"text"`, "" },
		func(int) (string, string) { return `{"token":null}`, "" },
		func(int) (string, string) { return `{"token":12}`, "" },
		func(i int) (string, string) { return fmt.Sprintf(`{"token":"m-%d","createdOn":"yesterday"}`, i), "" },
		func(i int) (string, string) { return fmt.Sprintf(`{"token":"m-%d\u0000x"}`, i), "" },
		func(i int) (string, string) { return fmt.Sprintf("{\"token\":\"m-%d-\xff\xfe\"}", i), "" },
		func(i int) (string, string) {
			return `{"token":"` + strings.Repeat("t", 3000) + fmt.Sprint(i) + `"}`, ""
		},
		func(i int) (string, string) {
			return fmt.Sprintf(`{"token":"m-o-%d","object":{"token":"`+strings.Repeat("o", 3000)+`"}}`, i), ""
		},
		func(i int) (string, string) { return fmt.Sprintf(`{"token":"m-d-%d","object":"usr-1"}`, i), "" },
		func(i int) (string, string) { return fmt.Sprintf(`{"token":"m-c-%d\u0001\u007f"}`, i), "" },
		func(int) (string, string) { return strings.Repeat("[", 100000), "" },
		func(int) (string, string) { return `{"token":"x"`, "gzip" },
		func(int) (string, string) { return `{"token":"x"}`, "compress" },
		func(i int) (string, string) { return fmt.Sprintf(`{"token":"m-g-%d"}`, i), "br" },
		func(int) (string, string) { return "\xef\xbb\xbf{}", "" },
		func(i int) (string, string) { return fmt.Sprintf(`{"token":"m-t-%d","token":{"a":1}}`, i), "" },
	}
	codes := map[int]int{}
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range 2000 {
		b, enc := shapes[i%len(shapes)](i)
		req, _ := http.NewRequestWithContext(context.Background(), "POST", s.url("/webhooks/notifications"), strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		if enc != "" {
			req.Header.Set("Content-Encoding", enc)
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("body %d: %w", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes[resp.StatusCode]++
	}
	fivexx := 0
	for c, n := range codes {
		if c >= 500 {
			fivexx += n
		}
	}
	fmt.Printf("malformed %-9s 2000 bodies (%d shapes): statuses %v   5xx %d\n", kind(), len(shapes), codes, fivexx)
	if fivexx > 0 {
		return fmt.Errorf("%d answers were 5xx", fivexx)
	}
	return nil
}

func kind() string {
	if strings.HasPrefix(*store, "postgres") {
		return "postgres"
	}
	return "sqlite"
}
