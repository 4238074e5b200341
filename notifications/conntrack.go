package notifications

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// trackingListener remembers the connections it accepted and whether each
// has sent a byte. fasthttp marks a fresh connection active before its first
// request arrives, so a graceful shutdown waits for ReadTimeout (30 s) on
// every connection a client opened but did not use yet (Go's transport
// opens spares). Stop closes those: no request is in flight on them.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

func newTrackingListener(ln net.Listener) *trackingListener {
	return &trackingListener{Listener: ln, conns: make(map[*trackedConn]struct{})}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l, accepted: time.Now()}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// closeUnused closes the connections that have not sent a byte and were
// accepted more than grace ago.
func (l *trackingListener) closeUnused(grace time.Duration) {
	l.mu.Lock()
	var idle []*trackedConn
	for c := range l.conns {
		if !c.used.Load() && time.Since(c.accepted) >= grace {
			idle = append(idle, c)
		}
	}
	l.mu.Unlock()
	for _, c := range idle {
		_ = c.Close()
	}
}

type trackedConn struct {
	net.Conn
	l        *trackingListener
	accepted time.Time
	used     atomic.Bool
	once     sync.Once
}

func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.used.Load() {
		c.used.Store(true)
	}
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
