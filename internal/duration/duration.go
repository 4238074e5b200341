// Package duration parses the durations users write in properties and
// environment variables: Go's (`1m30s`) and ISO-8601's (`PT1M`, `P1DT2H`).
package duration

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var isoDuration = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// Parse accepts Go durations (`1m30s`) and ISO-8601 durations of
// days, hours, minutes and seconds (`PT1M`, `P1DT2H`, `PT0.5S`). Negative
// values are rejected.
func Parse(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if t[0] == 'P' || t[0] == 'p' {
		m := isoDuration.FindStringSubmatch(strings.ToUpper(t))
		if u := strings.ToUpper(t); m == nil || u == "P" || strings.HasSuffix(u, "T") {
			return 0, fmt.Errorf("%q is not a duration (use 10s or PT10S)", s)
		}
		var total float64
		units := []float64{float64(24 * time.Hour), float64(time.Hour), float64(time.Minute), float64(time.Second)}
		for i, part := range m[1:] {
			if part == "" {
				continue
			}
			f, err := strconv.ParseFloat(part, 64)
			if err != nil {
				return 0, fmt.Errorf("%q is not a duration (use 10s or PT10S)", s)
			}
			total += f * units[i]
		}
		if total > float64(1<<62) {
			return 0, fmt.Errorf("%q is too long a duration", s)
		}
		return time.Duration(total), nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (use 10s or PT10S)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}
