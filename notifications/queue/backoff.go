package queue

import "time"

// maxBackoff caps a back-off delay: a hundred years is "never" for a queue.
const maxBackoff = 100 * 365 * 24 * time.Hour

// Backoff is the delay before the next attempt after the attempt-th failed
// one: initial × multiplier^(attempt−1), saturating at a hundred years
// instead of overflowing (see docs/environment.md#retries). It is the one
// back-off formula of the sidecar.
func Backoff(initial time.Duration, multiplier float64, attempt int) time.Duration {
	d := float64(initial)
	for i := 1; i < attempt; i++ {
		d *= multiplier
		if d > float64(maxBackoff) {
			return maxBackoff
		}
	}
	return time.Duration(d)
}
