// Package termline redraws one status line on a terminal while work runs:
// a pipeline step's spinner, a REST read's progress. Callers decide whether
// the stream is a terminal; logs and pipes get no live line at all.
//
//	l := termline.Start(os.Stderr, 120*time.Millisecond, func(tick int) string { return "working…" })
//	defer l.Stop()
package termline

import (
	"io"
	"sync"
	"time"
)

// Line is a status line redrawn every interval until Stop.
type Line struct {
	w      io.Writer
	render func(tick int) string
	stopc  chan struct{}
	done   sync.WaitGroup
	mu     sync.Mutex
	drawn  bool
	once   sync.Once
}

// Start draws render's text on w every interval (tick counts the redraws
// from 0) until Stop.
func Start(w io.Writer, interval time.Duration, render func(tick int) string) *Line {
	l := &Line{w: w, render: render, stopc: make(chan struct{})}
	l.done.Add(1)
	go l.loop(interval)
	return l
}

func (l *Line) loop(interval time.Duration) {
	defer l.done.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-l.stopc:
			return
		case <-t.C:
			text := l.render(i)
			l.mu.Lock()
			_, _ = io.WriteString(l.w, "\r\x1b[K"+text)
			l.drawn = true
			l.mu.Unlock()
		}
	}
}

// Clear erases the line so a normal line can be printed; the next tick
// draws it again.
func (l *Line) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drawn {
		_, _ = io.WriteString(l.w, "\r\x1b[K")
		l.drawn = false
	}
}

// Stop ends the redraws and erases the line. It may be called more than once.
func (l *Line) Stop() {
	l.once.Do(func() {
		close(l.stopc)
		l.done.Wait()
		l.Clear()
	})
}
