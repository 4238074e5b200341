package connectors

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/internal/duration"
)

// Props are a dataset's effective properties (exact, case-sensitive keys).
type Props map[string]string

// TypeProperty is the table property that names a table's connector type.
const TypeProperty = "svc.storage.type"

// Get returns the value of key and whether it is set.
func (p Props) Get(key string) (string, bool) {
	v, ok := p[key]
	return v, ok
}

// String returns the value of key, or def when it is unset or empty.
func (p Props) String(key, def string) string {
	if v, ok := p[key]; ok && v != "" {
		return v
	}
	return def
}

// Bool parses key as a boolean; unset gives def.
func (p Props) Bool(key string, def bool) (bool, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("property %s: %q is not a boolean (true or false)", key, v)
	}
	return b, nil
}

// Int parses key as an integer no smaller than min; unset gives def.
func (p Props) Int(key string, def, min int64) (int64, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("property %s: %q is not an integer", key, v)
	}
	if n < min {
		return 0, fmt.Errorf("property %s: %d is below the minimum %d", key, n, min)
	}
	return n, nil
}

// Duration parses key as a Go (`10s`) or ISO-8601 (`PT10S`) duration; unset
// gives def. Negative durations are an error.
func (p Props) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	d, err := duration.Parse(v)
	if err != nil {
		return 0, fmt.Errorf("property %s: %w", key, err)
	}
	return d, nil
}

// WithPrefix returns the keys that start with prefix, sorted.
func (p Props) WithPrefix(prefix string) []string {
	var keys []string
	for k := range p {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// Clone returns a copy.
func (p Props) Clone() Props {
	c := make(Props, len(p))
	for k, v := range p {
		c[k] = v
	}
	return c
}
