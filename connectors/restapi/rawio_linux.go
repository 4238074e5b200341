//go:build linux && !race

package restapi

import (
	"io"
	"net"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// rawIO reads and writes a TCP connection of the sync path with raw
// system calls (see docs/restapi.md#connections). The socket is
// non-blocking (Go's poller owns it), so a read or a write never blocks in
// the kernel: when nothing can be read or written, the goroutine waits in
// the poller as net.Conn's own Read and Write do. What it saves is the
// runtime's bookkeeping around a system call that may block: each one
// wakes the runtime's monitor thread when it sleeps, and on a small virtual
// machine those wake-ups cost more than the page being read. A read that
// finds nothing yet may first spin (spinPolicy), so that the CPU does not go
// idle just before the answer comes.
type rawIO struct {
	raw syscall.RawConn
	// The read and the write in progress (one of each at a time, as
	// net.Conn allows): buffer and outcome, and the functions handed to
	// raw, made once so that a call allocates nothing.
	rbuf, wbuf     []byte
	rn, wn         uintptr
	rerrno, werrno syscall.Errno
	readFn         func(fd uintptr) bool
	writeFn        func(fd uintptr) bool
	spin           spinPolicy
}

// newRawIO is nc's rawIO, or nc itself when it has no file descriptor.
func newRawIO(nc net.Conn) io.ReadWriter {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nc
	}
	r := &rawIO{raw: raw}
	r.readFn, r.writeFn = r.read, r.write
	return r
}

func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.rbuf = p
	err := r.raw.Read(r.readFn)
	r.rbuf = nil
	switch {
	case err != nil:
		return 0, renameOp(err, "read")
	case r.rerrno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: r.rerrno}
	case r.rn == 0:
		return 0, io.EOF
	}
	return int(r.rn), nil
}

// read is one attempt of Read: false when nothing can be read yet (the
// poller waits for the answer). Before it gives up, it may spin: try again
// for up to spinBudget, as r.spin decides.
func (r *rawIO) read(fd uintptr) bool {
	var spinUntil time.Time // zero while not spinning
	for {
		r.rn, _, r.rerrno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.rbuf[0])), uintptr(len(r.rbuf)))
		switch {
		case r.rerrno == syscall.EINTR: // again
		case r.rerrno != syscall.EAGAIN:
			if !spinUntil.IsZero() {
				r.spin.done(true)
			}
			return true
		case spinUntil.IsZero():
			if !r.spin.next() {
				return false
			}
			spinUntil = time.Now().Add(spinBudget)
		case !time.Now().Before(spinUntil):
			r.spin.done(false)
			return false
		}
	}
}

func (r *rawIO) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		r.wbuf = p[written:]
		err := r.raw.Write(r.writeFn)
		r.wbuf = nil
		switch {
		case err != nil:
			return written, renameOp(err, "write")
		case r.werrno != 0:
			return written, &net.OpError{Op: "write", Net: "tcp", Err: r.werrno}
		case r.wn == 0:
			// write(2) on a socket never takes nothing without an error;
			// should it, the loop must still end.
			return written, io.ErrShortWrite
		}
		written += int(r.wn)
	}
	return written, nil
}

// write is one attempt of Write: false when the socket has no room (the
// poller waits for it).
func (r *rawIO) write(fd uintptr) bool {
	for {
		r.wn, _, r.werrno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&r.wbuf[0])), uintptr(len(r.wbuf)))
		switch r.werrno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		return true
	}
}

// renameOp names a failed raw read or write ("raw-read tcp …: i/o
// timeout") as net.Conn's own would ("read tcp …: i/o timeout").
func renameOp(err error, op string) error {
	if oe, ok := err.(*net.OpError); ok {
		oe.Op = op
	}
	return err
}

// spinBudget is how long a read that finds nothing yet keeps trying before
// the goroutine waits in the poller (docs/restapi.md#connections).
const spinBudget = 100 * time.Microsecond

// maxSpinSkip bounds how many waits in a row skip spinning after spins that
// found nothing.
const maxSpinSkip = 255

// canSpin: spinning needs a second CPU for the peer to answer on (a server
// on the same machine), and a second P for a server in the same process.
func canSpin() bool {
	return runtime.NumCPU() > 1 && runtime.GOMAXPROCS(0) > 1
}

// spinPolicy decides whether a read that finds nothing yet spins: it does
// while answers keep arriving within spinBudget, and backs off
// exponentially when they don't (after n spins in a row that found nothing,
// the next 2^n-1 waits go straight to the poller, up to maxSpinSkip), so an
// API that answers in milliseconds costs one spin in hundreds of waits.
type spinPolicy struct {
	skip, backoff int
}

// next reports whether this wait spins.
func (s *spinPolicy) next() bool {
	if s.skip > 0 {
		s.skip--
		return false
	}
	return canSpin()
}

// done records a spin's outcome: whether the answer came within the budget.
func (s *spinPolicy) done(found bool) {
	if found {
		s.backoff = 0
		return
	}
	s.backoff = min(2*s.backoff+1, maxSpinSkip)
	s.skip = s.backoff
}
