package sparktype

import (
	"errors"
	"strings"
	"time"
)

// layout is one text form of a timestamp.
type layout struct {
	text   string
	offset bool // carries a zone offset (Z, +hh:mm, +hhmm, +hh)
	iso    bool // ISO-8601 date-time: 'T' separator and a time of day
}

// layouts is the one list of timestamp forms Sluice reads (see
// docs/inference.md#timestamps): RFC 3339 with any fraction, the offset as
// Z, +hh:mm, +hhmm or +hh, seconds optional, 'T' or a space between date
// and time, and a bare date. Without an offset the time is UTC. Forms with
// an offset come first so the usual input parses at the first try (a
// failed time.Parse allocates its error).
var layouts = []layout{
	{time.RFC3339Nano, true, true},
	{"2006-01-02T15:04:05.999999999Z0700", true, true},
	{"2006-01-02T15:04:05.999999999Z07", true, true},
	{"2006-01-02T15:04Z07:00", true, true},
	{"2006-01-02 15:04:05.999999999Z07:00", true, false},
	{"2006-01-02 15:04:05.999999999Z0700", true, false},
	{"2006-01-02T15:04:05.999999999", false, true},
	{"2006-01-02T15:04", false, true},
	{"2006-01-02 15:04:05.999999999", false, false},
	{"2006-01-02 15:04", false, false},
	{"2006-01-02", false, false},
}

var errNotTimestamp = errors.New("not a timestamp")

// ParseTimestamp reads a timestamp in any of the forms Sluice accepts (a
// SQL literal, a partition value, a cast from string, a connector bound);
// the result is in UTC.
func ParseTimestamp(s string) (time.Time, error) {
	return parse(strings.TrimSpace(s), false)
}

// ParseISODateTime reads only the ISO-8601 date-times among those forms:
// a 'T' between date and time, no bare date. The result is in UTC.
func ParseISODateTime(s string) (time.Time, error) {
	return parse(s, true)
}

func parse(s string, iso bool) (time.Time, error) {
	offset := len(s) > 11 && strings.ContainsAny(s[11:], "Z+-")
	for _, l := range layouts {
		if l.offset != offset || iso && !l.iso {
			continue
		}
		if t, err := time.Parse(l.text, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errNotTimestamp
}
