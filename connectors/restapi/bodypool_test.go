package restapi

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

func same(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

func TestBodyCache(t *testing.T) {
	t.Parallel()
	const big = 1 << 20
	tests := []struct {
		name  string
		run   func(c *bodyCache) bool // reports whether the buffer was reused
		reuse bool
	}{
		{"same size is reused", func(c *bodyCache) bool {
			b := c.get(big)
			c.put(b)
			return same(c.get(big), b)
		}, true},
		{"smaller body reuses a buffer up to twice its size", func(c *bodyCache) bool {
			b := c.get(big)
			c.put(b)
			got := c.get(big/2 + 1)
			return same(got, b) && len(got) == big/2+1
		}, true},
		{"much smaller body does not take a large buffer", func(c *bodyCache) bool {
			b := c.get(big)
			c.put(b)
			return same(c.get(big/4), b)
		}, false},
		{"larger body is not given a small buffer", func(c *bodyCache) bool {
			b := c.get(big)
			c.put(b)
			return same(c.get(big+1), b)
		}, false},
		{"small bodies are not kept", func(c *bodyCache) bool {
			b := c.get(minPooledBody - 1)
			c.put(b)
			return len(c.free) != 0 || same(c.get(minPooledBody-1), b)
		}, false},
		{"the least recently freed goes first", func(c *bodyCache) bool {
			first := c.get(big)
			c.put(first)
			for range maxPooledBufs {
				c.put(make([]byte, big))
			}
			for range maxPooledBufs {
				if same(c.get(big), first) {
					return true
				}
			}
			return false
		}, false},
		{"a buffer over the byte bound is not kept", func(c *bodyCache) bool {
			c.maxBytes = big
			b := make([]byte, big+1)
			c.put(b)
			return len(c.free) != 0 || same(c.get(big+1), b)
		}, false},
		{"the byte bound drops the least recently freed", func(c *bodyCache) bool {
			c.maxBytes = 2 * big
			first := c.get(big)
			c.put(first)
			c.put(make([]byte, big))
			c.put(make([]byte, big))
			return len(c.free) != 2 || same(c.get(big), first) || same(c.get(big), first)
		}, false},
		{"drop empties the list", func(c *bodyCache) bool {
			b := c.get(big)
			c.put(b)
			c.drop()
			return len(c.free) != 0 || c.bytes != 0 || same(c.get(big), b)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c bodyCache
			require.Equal(t, tt.reuse, tt.run(&c))
			c.mu.Lock()
			var sum int64
			for _, b := range c.free {
				sum += int64(cap(b))
			}
			require.Equal(t, sum, c.bytes, "bytes must match the buffers kept")
			require.LessOrEqual(t, len(c.free), maxPooledBufs)
			c.mu.Unlock()
		})
	}
}

// TestReadDoesNotAliasRecycledBodies reads two different large bodies of
// the same size; the second is read into the first's buffer, and the
// first frame must be unchanged: frames and errors may never point into a
// body. Not parallel: it checks the shared list, which other tests' reads
// would use too.
func TestReadDoesNotAliasRecycledBodies(t *testing.T) {
	doc := func(fill byte) []byte {
		var b bytes.Buffer
		b.WriteString(`{"items":[`)
		for i := 0; b.Len() < 4*minPooledBody; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":"` + strings.Repeat(string(fill), 40) + `","n` + string(fill) + `":` + strconv.Itoa(i) + `}`)
		}
		b.WriteString(`]}`)
		return b.Bytes()
	}
	a, z := doc('a'), doc('z')
	ids := func(d []byte, fill byte) []string {
		out := make([]string, bytes.Count(d, []byte(`"id"`)))
		for i := range out {
			out[i] = strings.Repeat(string(fill), 40)
		}
		return out
	}
	require.Equal(t, len(a), len(z))
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := a
		if hits.Add(1)%2 == 0 {
			body = z
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	read := func(t *testing.T, props connectors.Props) (*dataframe.Frame, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return (&Connector{}).Read(ctx, &connectors.Dataset{Name: "big", Props: props})
	}
	for _, parsed := range []string{"false", "true"} {
		t.Run("parse.payload="+parsed, func(t *testing.T) {
			bodyPool.drop()
			props := connectors.Props{
				"svc.restapi.url":           srv.URL,
				"svc.restapi.parse.payload": parsed,
				"svc.restapi.records.path":  "items",
			}
			col := "payload"
			wantFirst, wantSecond := []string{string(a)}, []string{string(z)}
			if parsed == "true" {
				col = "id"
				wantFirst, wantSecond = ids(a, 'a'), ids(z, 'z')
			}
			first, err := read(t, props)
			require.NoError(t, err)
			defer first.Release()
			bodyPool.mu.Lock()
			kept := len(bodyPool.free)
			bodyPool.mu.Unlock()
			require.Equal(t, 1, kept, "the first body's buffer is kept for the next read")

			second, err := read(t, props)
			require.NoError(t, err)
			defer second.Release()
			got, _, err := first.StringValues(col)
			require.NoError(t, err)
			require.Equal(t, wantFirst, got, "the second read must not change the first frame")
			got, _, err = second.StringValues(col)
			require.NoError(t, err)
			require.Equal(t, wantSecond, got)
			if parsed == "true" {
				require.Equal(t, []string{"id", "na"}, first.ColumnNames(), "column names must not point into a body either")
				require.Equal(t, []string{"id", "nz"}, second.ColumnNames())
			}
		})
	}
}
