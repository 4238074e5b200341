package batchmem

import (
	"bytes"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/stretchr/testify/require"
)

func TestAllocateClasses(t *testing.T) {
	t.Parallel()
	p := &poolAllocator{}
	for _, tc := range []struct{ size, cap int }{
		{4096, 4096}, {4097, 8192}, {5000, 8192}, {1 << 20, 1 << 20}, {(1 << 20) + 1, 2 << 20},
	} {
		b := p.Allocate(tc.size)
		require.Len(t, b, tc.size)
		require.Equal(t, tc.cap, cap(b), "size %d", tc.size)
		require.Zero(t, uintptr(unsafe.Pointer(&b[0]))%poolAlign, "size %d is 64-byte aligned", tc.size)
		p.Free(b)
	}
	// Below and above the classes: plain Go memory, which Free ignores.
	for _, size := range []int{1, 64, 4095} {
		b := p.Allocate(size)
		require.Len(t, b, size)
		p.Free(b)
	}
	require.Empty(t, p.Allocate(0))
}

// TestRecycledBuffersAreZeroed: a buffer handed out again is zeroed like
// fresh Go memory (Arrow's validity bitmaps rely on it), also beyond len.
func TestRecycledBuffersAreZeroed(t *testing.T) {
	t.Parallel()
	p := &poolAllocator{}
	for i := 0; i < 100; i++ {
		b := p.Allocate(6000)
		full := b[:cap(b)]
		require.Equal(t, -1, bytes.IndexFunc(full, func(r rune) bool { return r != 0 }), "round %d: a recycled buffer is not zeroed", i)
		for k := range full {
			full[k] = 0xAB
		}
		p.Free(b)
	}
}

func TestReallocate(t *testing.T) {
	t.Parallel()
	p := &poolAllocator{}
	b := p.Allocate(5000)
	for i := range b {
		b[i] = byte(i)
	}
	same := p.Reallocate(8000, b) // fits the 8 KiB class
	require.Len(t, same, 8000)
	require.Equal(t, &b[0], &same[0])
	grown := p.Reallocate(20000, same)
	require.Len(t, grown, 20000)
	require.Equal(t, 32768, cap(grown))
	for i := 0; i < 5000; i++ {
		require.Equal(t, byte(i), grown[i])
	}
	shrunk := p.Reallocate(100, grown)
	require.Len(t, shrunk, 100)
	p.Free(shrunk)
}

// TestArraysOverRecycledMemory builds Arrow arrays batch after batch with
// the shared allocator, as a stream does, releasing each: values and nulls
// are always the ones appended, never a previous batch's.
func TestArraysOverRecycledMemory(t *testing.T) {
	t.Parallel()
	mem := Allocator()
	for round := 0; round < 50; round++ {
		b := array.NewInt64Builder(mem)
		n := 3000 + round*17
		for i := 0; i < n; i++ {
			if (i+round)%3 == 0 {
				b.AppendNull()
			} else {
				b.Append(int64(i * round))
			}
		}
		a := b.NewInt64Array()
		b.Release()
		require.Equal(t, n, a.Len())
		for i := 0; i < n; i++ {
			if (i+round)%3 == 0 && !a.IsNull(i) {
				t.Fatalf("round %d row %d: want null", round, i)
			} else if (i+round)%3 != 0 && (!a.IsValid(i) || a.Value(i) != int64(i*round)) {
				t.Fatalf("round %d row %d: got valid=%v %d, want %d", round, i, a.IsValid(i), a.Value(i), i*round)
			}
		}
		a.Release()
	}
}

// TestConcurrentUse: buffers held at the same time never overlap, with
// many goroutines allocating and freeing.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	p := &poolAllocator{}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				b := p.Allocate(4096 + i%3*4096)
				for k := range b {
					b[k] = byte(g)
				}
				for k := range b {
					if b[k] != byte(g) {
						errs <- "a buffer was shared between goroutines"
						return
					}
				}
				p.Free(b)
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
