package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/internal/termline"
)

// readProgress counts the pages of the REST reads made under its context
// and, when stderr is a terminal, redraws one line with them (see
// docs/incremental.md#progress-output). Off a terminal it prints nothing:
// -o's summary line is the only output.
type readProgress struct {
	label               string
	start               time.Time
	pages, rows, nbytes atomic.Int64
	line                *termline.Line
}

// progressInterval is how often the line is redrawn.
const progressInterval = 200 * time.Millisecond

// startReadProgress returns ctx with the page counter attached, and the
// progress to stop when the read is done. Off a terminal it returns ctx
// unchanged.
func startReadProgress(ctx context.Context, env *cliEnv, label string) (context.Context, *readProgress) {
	p := &readProgress{label: label, start: time.Now()}
	if !stderrIsTerminal(env) {
		return ctx, p
	}
	ctx = restapi.WithReadOptions(ctx, restapi.ReadOptions{OnPage: p.onPage})
	p.line = termline.Start(env.stderr, progressInterval, func(int) string { return p.String() })
	return ctx, p
}

// onPage may run on several goroutines at once (a fan-out's children).
func (p *readProgress) onPage(pg restapi.PageInfo) error {
	p.pages.Add(1)
	p.nbytes.Add(int64(len(pg.Body)))
	if pg.Records > 0 {
		p.rows.Add(int64(pg.Records))
	}
	return nil
}

// String is the line: `reading api.tickets: 37 pages, 3,700 rows, 1.2 MiB, 18.4 pages/s`.
func (p *readProgress) String() string {
	pages := p.pages.Load()
	rate := 0.0
	if s := time.Since(p.start).Seconds(); s > 0 {
		rate = float64(pages) / s
	}
	return fmt.Sprintf("%s: %s pages, %s rows, %s, %.1f pages/s",
		p.label, termline.Count(pages), termline.Count(p.rows.Load()), termline.Bytes(p.nbytes.Load()), rate)
}

// logWriter is w for log and warning lines (CONSOLE logging, fan-out
// skips): the live line is erased first so they do not run into it, and
// drawn again on the next tick.
func (p *readProgress) logWriter(w io.Writer) io.Writer {
	if p.line == nil {
		return w
	}
	return clearingWriter{line: p.line, w: w}
}

type clearingWriter struct {
	line *termline.Line
	w    io.Writer
}

func (c clearingWriter) Write(b []byte) (int, error) {
	c.line.Clear()
	return c.w.Write(b)
}

// stop erases the line.
func (p *readProgress) stop() {
	if p != nil && p.line != nil {
		p.line.Stop()
	}
}
