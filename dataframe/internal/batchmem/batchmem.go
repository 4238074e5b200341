// Package batchmem is the recycling Arrow allocator Sluice's streams use
// when the caller gives none (see docs/frames.md#memory).
package batchmem

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow/memory"
)

// poolAllocator recycles Arrow buffers: a streaming read builds and a writer
// drops batch after batch of the same shapes, and with Go's allocator each
// one is fresh garbage the collector must find (a quarter of a convert's
// time). Buffers from 4 KiB to 256 MiB come in power-of-two classes, 64-byte
// aligned, zeroed like Go's; Free (Arrow calls it once a buffer's last
// reference is released) returns one to its class. Smaller and larger
// buffers are plain Go memory.
type poolAllocator struct {
	classes [poolMaxShift + 1]sync.Pool
}

const (
	poolMinShift = 12 // 4 KiB
	poolMaxShift = 28 // 256 MiB
	poolAlign    = 64
)

var shared memory.Allocator = &poolAllocator{}

// Allocator is the process's recycling allocator. Buffers from it are
// returned to it when their last reference is released.
func Allocator() memory.Allocator { return shared }

func (p *poolAllocator) Allocate(size int) []byte {
	shift := bits.Len(uint(size - 1))
	if size <= 0 || shift < poolMinShift || shift > poolMaxShift {
		return memory.DefaultAllocator.Allocate(size)
	}
	if v := p.classes[shift].Get(); v != nil {
		b := *(v.(*[]byte))
		clear(b[:cap(b)])
		return b[:size]
	}
	class := 1 << shift
	raw := make([]byte, class+poolAlign)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % poolAlign); r != 0 {
		off = poolAlign - r
	}
	return raw[off : off+size : off+class]
}

func (p *poolAllocator) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *poolAllocator) Free(b []byte) {
	c := cap(b)
	if c == 0 || c&(c-1) != 0 {
		return // not one of ours
	}
	shift := bits.Len(uint(c)) - 1
	if shift < poolMinShift || shift > poolMaxShift {
		return
	}
	b = b[:0:c]
	p.classes[shift].Put(&b)
}
