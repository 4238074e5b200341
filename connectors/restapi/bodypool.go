package restapi

import (
	"sync"
	"time"
)

// Large 2xx bodies are read into recycled buffers. A fresh buffer must be
// zeroed (or its pages faulted in) before the socket fills it, which for a
// 50 MB listing costs about a third of the loopback transfer; a recycled
// one is simply overwritten. Small bodies (most paginated APIs) are
// cheaper to allocate than to keep.
//
// A plain mutex-guarded list rather than a sync.Pool: a Pool keeps a
// buffer in the per-CPU slot of the goroutine that freed it, where a read
// resumed on another CPU does not look, and it drops everything after two
// garbage collections, which a parse allocating as much as it reads
// triggers; either way the next read zeroed a fresh buffer about half of
// the time. The list is bounded and emptied once reads stop.
const (
	minPooledBody  = 64 << 10         // smaller bodies are not kept
	maxPooledBytes = 512 << 20        // at most this much kept in all
	maxPooledBufs  = 4                // at most this many buffers kept
	bodyPoolIdle   = 30 * time.Second // kept this long after the last read
)

// bodyPool is the list every read and write shares.
var bodyPool bodyCache

type bodyCache struct {
	maxBytes int64 // 0: maxPooledBytes

	mu    sync.Mutex
	free  [][]byte // capacity in use; most recently freed last
	bytes int64    // sum of the capacities in free
	timer *time.Timer
}

// getBody returns a buffer of length n. Its bytes are not zeroed: the
// caller must overwrite all of them (io.ReadFull) or give it back.
func getBody(n int64) []byte { return bodyPool.get(n) }

// putBody recycles a buffer from getBody. Nothing may use b afterwards:
// the caller must hold no slice, string view or error text pointing into
// it (frames copy their values; errors quote copies).
func putBody(b []byte) { bodyPool.put(b) }

func (p *bodyCache) get(n int64) []byte {
	if n < minPooledBody {
		return make([]byte, n)
	}
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		// A buffer more than twice the size would sit mostly unused
		// while a later, larger body allocates its own.
		if c := int64(cap(b)); c >= n && c <= 2*n && (best < 0 || c < int64(cap(p.free[best]))) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		p.free = append(p.free[:best], p.free[best+1:]...)
		p.bytes -= int64(cap(b))
		p.mu.Unlock()
		return b[:n]
	}
	p.mu.Unlock()
	return make([]byte, n)
}

func (p *bodyCache) put(b []byte) {
	c, limit := int64(cap(b)), p.maxBytes
	if limit == 0 {
		limit = maxPooledBytes
	}
	if c < minPooledBody || c > limit {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, b[:0])
	p.bytes += c
	for len(p.free) > maxPooledBufs || p.bytes > limit {
		p.bytes -= int64(cap(p.free[0])) // the least recently freed goes
		p.free[0] = nil
		p.free = p.free[1:]
	}
	if p.timer == nil {
		p.timer = time.AfterFunc(bodyPoolIdle, p.drop)
	} else {
		p.timer.Reset(bodyPoolIdle)
	}
}

// drop empties the list; it runs once no read has freed a buffer for
// bodyPoolIdle, so an idle process does not keep its last listing.
func (p *bodyCache) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free, p.bytes = nil, 0
}
