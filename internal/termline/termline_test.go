package termline

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLineRedrawsAndErases(t *testing.T) {
	t.Parallel()
	var out syncBuf
	ticks := make(chan int, 100)
	l := Start(&out, time.Millisecond, func(tick int) string {
		select {
		case ticks <- tick:
		default:
		}
		return "status"
	})
	// Wait (bounded) for two redraws.
	deadline := time.After(10 * time.Second)
	for seen := 0; seen < 2; {
		select {
		case <-ticks:
			seen++
		case <-deadline:
			t.Fatal("no redraw within 10s")
		}
	}
	l.Stop()
	l.Stop()
	s := out.String()
	require.True(t, strings.HasPrefix(s, "\r\x1b[Kstatus"), "%q", s)
	require.True(t, strings.HasSuffix(s, "\r\x1b[K"), "the line is erased at the end: %q", s)
}

func TestFormat(t *testing.T) {
	t.Parallel()
	require.Equal(t, "3,700", Count(3700))
	require.Equal(t, "-1,234,567", Count(-1234567))
	require.Equal(t, "12", Count(12))
	require.Equal(t, "512 B", Bytes(512))
	require.Equal(t, "1.5 KiB", Bytes(1536))
	require.Equal(t, "1.2 MiB", Bytes(1258291))
}
