package parquet

import "github.com/apache/arrow/go/v17/arrow/memory"

// SetStreamAllocator makes ReadStream allocate with mem until the returned
// function restores the default.
func SetStreamAllocator(mem memory.Allocator) func() {
	streamAllocator = mem
	return func() { streamAllocator = nil }
}
