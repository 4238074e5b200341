//go:build linux && !race

package restapi

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// rawIO reads and writes a TCP connection of the sync path with raw
// system calls (see docs/restapi.md#connections). The socket is
// non-blocking (Go's poller owns it), so a read or a write never blocks in
// the kernel: when nothing can be read or written, the goroutine waits in
// the poller as net.Conn's own Read and Write do. What it saves is the
// runtime's bookkeeping around a system call that may block: each one
// wakes the runtime's monitor thread when it sleeps, and on a small virtual
// machine those wake-ups cost more than the page being read.
type rawIO struct {
	raw syscall.RawConn
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
	return &rawIO{raw: raw}
}

func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var (
		n     uintptr
		errno syscall.Errno
	)
	err := r.raw.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the poller waits for the answer
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, renameOp(err, "read")
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (r *rawIO) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		var (
			n     uintptr
			errno syscall.Errno
		)
		err := r.raw.Write(func(fd uintptr) bool {
			for {
				rest := p[written:]
				n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
				switch errno {
				case syscall.EINTR:
					continue
				case syscall.EAGAIN:
					return false // the poller waits for room
				}
				return true
			}
		})
		switch {
		case err != nil:
			return written, renameOp(err, "write")
		case errno != 0:
			return written, &net.OpError{Op: "write", Net: "tcp", Err: errno}
		}
		written += int(n)
	}
	return written, nil
}

// renameOp names a failed raw read or write ("raw-read tcp …: i/o
// timeout") as net.Conn's own would ("read tcp …: i/o timeout").
func renameOp(err error, op string) error {
	if oe, ok := err.(*net.OpError); ok {
		oe.Op = op
	}
	return err
}
