package pipelines

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinner redraws one status line while a step runs; only used when the
// progress stream is a terminal, so logs and pipes get plain lines.
type spinner struct {
	w     io.Writer
	label string
	start time.Time
	stopc chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex
	drawn bool
}

func startSpinner(w io.Writer, label string) *spinner {
	s := &spinner{w: w, label: label, start: time.Now(), stopc: make(chan struct{})}
	s.done.Add(1)
	go s.loop()
	return s
}

func (s *spinner) loop() {
	defer s.done.Done()
	frames := `|/-\`
	t := time.NewTicker(120 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-s.stopc:
			return
		case <-t.C:
			s.mu.Lock()
			fmt.Fprintf(s.w, "\r\x1b[K%s %c %s", s.label, frames[i%len(frames)], time.Since(s.start).Round(100*time.Millisecond))
			s.drawn = true
			s.mu.Unlock()
		}
	}
}

// clear erases the status line so a normal line can be printed.
func (s *spinner) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.drawn = false
	}
}

func (s *spinner) stop() {
	close(s.stopc)
	s.done.Wait()
	s.clear()
}
