package pipelines

import (
	"fmt"
	"io"
	"time"

	"github.com/sluicedata/sluice/internal/termline"
)

// startSpinner redraws `label <frame> <elapsed>` while a step runs; only
// used when the progress stream is a terminal, so logs and pipes get plain
// lines.
func startSpinner(w io.Writer, label string) *termline.Line {
	start := time.Now()
	frames := `|/-\`
	return termline.Start(w, 120*time.Millisecond, func(i int) string {
		return fmt.Sprintf("%s %c %s", label, frames[i%len(frames)], time.Since(start).Round(100*time.Millisecond))
	})
}
