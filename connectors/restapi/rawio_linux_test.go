//go:build linux && !race

package restapi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// loopbackPair is a connected TCP pair on 127.0.0.1: the client side as
// rawIO, the server side as it is.
func loopbackPair(t *testing.T) (*rawIO, net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	var srv net.Conn
	select {
	case srv = <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("no connection accepted")
	}
	require.NotNil(t, srv)
	t.Cleanup(func() { srv.Close() })
	rw, ok := newRawIO(nc).(*rawIO)
	require.True(t, ok, "a TCP connection gets raw reads and writes")
	return rw, nc, srv
}

// TestRawIOWritesAndReadsWhole: a write far larger than the socket buffers
// (the poller waits for room in between) arrives whole and in order, an
// answer is read back, and the peer's close is io.EOF.
func TestRawIOWritesAndReadsWhole(t *testing.T) {
	t.Parallel()
	rw, _, srv := loopbackPair(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(srv, int64(len(payload))))
		got <- b
		srv.Write([]byte("done"))
		srv.Close()
	}()
	n, err := rw.Write(payload)
	require.NoError(t, err)
	require.Equal(t, len(payload), n)
	select {
	case b := <-got:
		require.True(t, bytes.Equal(payload, b), "the peer read %d bytes", len(b))
	case <-time.After(30 * time.Second):
		t.Fatal("the peer did not read the payload")
	}
	answer, err := io.ReadAll(rw)
	require.NoError(t, err)
	require.Equal(t, "done", string(answer))
	n, err = rw.Read(make([]byte, 8))
	require.Equal(t, 0, n)
	require.ErrorIs(t, err, io.EOF)
}

// TestRawIODeadline: a read past the connection's deadline fails as
// net.Conn's own read does (a timeout named "read"), and so does a read
// interrupted by a deadline set from another goroutine (cancellation).
func TestRawIODeadline(t *testing.T) {
	t.Parallel()
	rw, nc, _ := loopbackPair(t)
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(50*time.Millisecond)))
	_, err := rw.Read(make([]byte, 8))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout())
	require.Contains(t, err.Error(), "read tcp ")
	require.NotContains(t, err.Error(), "raw-read")

	require.NoError(t, nc.SetReadDeadline(time.Time{}))
	go func() {
		time.Sleep(50 * time.Millisecond)
		nc.SetDeadline(aLongTimeAgo)
	}()
	done := make(chan error, 1)
	go func() {
		_, err := rw.Read(make([]byte, 8))
		done <- err
	}()
	select {
	case err = <-done:
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	case <-time.After(10 * time.Second):
		t.Fatal("the read was not interrupted by the deadline")
	}
}

// TestSpinPolicyBacksOff: a wait spins while answers come within the
// budget; after n spins in a row that found nothing, the next 2^n-1 waits
// (at most maxSpinSkip) go straight to the poller; an answer found while
// spinning starts over.
func TestSpinPolicyBacksOff(t *testing.T) {
	if !canSpin() {
		t.Skip("one CPU or GOMAXPROCS=1: reads never spin")
	}
	var s spinPolicy
	pattern := func(waits int) string {
		var b []byte
		for i := 0; i < waits; i++ {
			if s.next() {
				s.done(false)
				b = append(b, 'S')
			} else {
				b = append(b, '.')
			}
		}
		return string(b)
	}
	require.Equal(t, "S.S...S.......S", pattern(15))
	for i := 0; i < 20; i++ {
		pattern(600)
	}
	require.Equal(t, maxSpinSkip, s.backoff)
	for s.skip > 0 {
		require.False(t, s.next())
	}
	period := "S" + strings.Repeat(".", maxSpinSkip)
	require.Equal(t, period+period, pattern(2*(maxSpinSkip+1)), "the back-off stops growing at maxSpinSkip")

	s = spinPolicy{}
	pattern(7) // S.S...S: three spins found nothing
	require.True(t, s.skip > 0)
	for s.skip > 0 {
		require.False(t, s.next())
	}
	require.True(t, s.next())
	s.done(true)
	require.Equal(t, "S.S", pattern(3), "an answer found while spinning starts the back-off over")
}

// TestRawIOSpinsAndWaits: answers that come at once (found while spinning)
// and answers that come after the spin budget (found by the poller, and
// then fewer spins) are all read whole and in order.
func TestRawIOSpinsAndWaits(t *testing.T) {
	t.Parallel()
	rw, _, srv := loopbackPair(t)
	const rounds = 40
	go func() {
		buf := make([]byte, 1)
		for i := 0; i < rounds; i++ {
			if _, err := io.ReadFull(srv, buf); err != nil {
				return
			}
			if i%2 == 1 {
				time.Sleep(2 * time.Millisecond) // far past spinBudget
			}
			srv.Write([]byte{'a' + byte(i%26), '\n'})
		}
	}()
	br := bufio.NewReader(rw)
	for i := 0; i < rounds; i++ {
		_, err := rw.Write([]byte{'?'})
		require.NoError(t, err)
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, string([]byte{'a' + byte(i%26), '\n'}), line, "answer %d", i)
	}
}
