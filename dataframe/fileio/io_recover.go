package fileio

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow/memory"
)

// recoverAs turns a panic inside a third-party decoder or encoder into an
// error, so corrupt input fails the call instead of the process.
func recoverAs(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: %v (recovered panic)", what, r)
	}
}

// boundedAllocator refuses, by panicking where recoverAs catches it, an
// allocation larger than max. Corrupt IPC or Parquet input can declare a
// buffer of petabytes; the Go runtime's answer to that is a fatal,
// unrecoverable out-of-memory, so the reader must never ask for it.
type boundedAllocator struct {
	memory.Allocator
	max  int
	what string
}

func (b boundedAllocator) check(size int) {
	if size < 0 || size > b.max {
		panic(fmt.Sprintf("corrupt input: a %s buffer of %d bytes is declared, more than is possible (%d)", b.what, size, b.max))
	}
}

func (b boundedAllocator) Allocate(size int) []byte {
	b.check(size)
	return b.Allocator.Allocate(size)
}

func (b boundedAllocator) Reallocate(size int, old []byte) []byte {
	b.check(size)
	return b.Allocator.Reallocate(size, old)
}

// physicalMemory is the machine's RAM in bytes (Linux), else 1 TiB: no
// single buffer larger than it can ever be allocated.
var physicalMemory = sync.OnceValue(func() int {
	const fallback = 1 << 40
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return fallback
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return fallback
})
