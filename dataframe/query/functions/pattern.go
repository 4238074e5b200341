package functions

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Spark's datetime patterns (the letters of Java's DateTimeFormatter as
// Spark 3 accepts them), compiled once into fields that format and parse
// directly. See docs/sql-functions.md#datetime-patterns.

// dtField is one element of a pattern: a letter repeated count times, a
// literal text, or an optional section.
type dtField struct {
	letter   byte // 0 for a literal
	count    int
	lit      string
	optional []dtField
}

// dtPattern is a compiled datetime pattern.
type dtPattern struct {
	src    string
	fields []dtField
}

// DefaultPattern is the format of unix_timestamp and from_unixtime.
const DefaultPattern = "yyyy-MM-dd HH:mm:ss"

// maxCount is the longest run Spark accepts for each letter: Java's
// DateTimeFormatter limits, less the five-letter (narrow) text forms of
// G, M, L, E, Q and q and years of seven digits or more, which Spark 3
// refuses (DateTimeFormatterHelper.unsupportedPatternLengths).
var maxCount = map[byte]int{
	'G': 4, 'y': 6, 'D': 3, 'M': 4, 'L': 4, 'd': 2, 'Q': 4, 'q': 4, 'E': 4, 'a': 1,
	'h': 2, 'K': 2, 'k': 2, 'H': 2, 'm': 2, 's': 2, 'S': 9, 'V': 2, 'z': 4, 'O': 4,
	'X': 5, 'x': 5, 'Z': 5,
}

// parseOnlyRefused are the letters Spark formats with but refuses in a
// pattern that parses (to_timestamp, unix_timestamp, from_json, from_csv):
// day of week, aligned week and quarter.
const parseOnlyRefused = "EFqQ"

// compilePattern checks a Spark datetime pattern that formats
// (date_format, from_unixtime, to_json, to_csv) and compiles it.
func compilePattern(p string) (*dtPattern, error) {
	fields, rest, err := compileFields(p, 0, false)
	if err != nil {
		return nil, err
	}
	if rest != len(p) {
		return nil, fmt.Errorf("datetime pattern %q: unmatched ']' at %d", p, rest+1)
	}
	return &dtPattern{src: p, fields: fields}, nil
}

// compileParsePattern checks and compiles a pattern that parses: Spark
// refuses a few letters there that it formats with.
func compileParsePattern(p string) (*dtPattern, error) {
	c, err := compilePattern(p)
	if err != nil {
		return nil, err
	}
	if l := refusedLetter(c.fields); l != 0 {
		return nil, fmt.Errorf("datetime pattern %q: pattern letter '%c' cannot be used to parse, only to format", p, l)
	}
	return c, nil
}

// patternCompiler is compileParsePattern for a pattern that parses, else
// compilePattern.
func patternCompiler(parsing bool) func(string) (*dtPattern, error) {
	if parsing {
		return compileParsePattern
	}
	return compilePattern
}

// refusedLetter is the first letter of fields (optional sections included)
// that parseOnlyRefused names, or 0.
func refusedLetter(fields []dtField) byte {
	for _, f := range fields {
		if f.letter != 0 && strings.IndexByte(parseOnlyRefused, f.letter) >= 0 {
			return f.letter
		}
		if l := refusedLetter(f.optional); l != 0 {
			return l
		}
	}
	return 0
}

func compileFields(p string, i int, inOptional bool) ([]dtField, int, error) {
	var out []dtField
	addLit := func(s string) {
		if n := len(out); n > 0 && out[n-1].letter == 0 && out[n-1].optional == nil {
			out[n-1].lit += s
			return
		}
		out = append(out, dtField{lit: s})
	}
	for i < len(p) {
		c := p[i]
		switch {
		case c == '\'':
			end := i + 1
			var lit strings.Builder
			for {
				if end >= len(p) {
					return nil, 0, fmt.Errorf("datetime pattern %q: unterminated quote at %d", p, i+1)
				}
				if p[end] == '\'' {
					if end+1 < len(p) && p[end+1] == '\'' {
						lit.WriteByte('\'')
						end += 2
						continue
					}
					break
				}
				lit.WriteByte(p[end])
				end++
			}
			if end == i+1 {
				addLit("'") // '' is a quote
			} else {
				addLit(lit.String())
			}
			i = end + 1
		case c == '[':
			sub, next, err := compileFields(p, i+1, true)
			if err != nil {
				return nil, 0, err
			}
			if next >= len(p) || p[next] != ']' {
				return nil, 0, fmt.Errorf("datetime pattern %q: unterminated '[' at %d", p, i+1)
			}
			out = append(out, dtField{optional: sub})
			i = next + 1
		case c == ']':
			if !inOptional {
				return nil, 0, fmt.Errorf("datetime pattern %q: unmatched ']' at %d", p, i+1)
			}
			return out, i, nil
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			n := 1
			for i+n < len(p) && p[i+n] == c {
				n++
			}
			limit, ok := maxCount[c]
			switch {
			case strings.IndexByte("YwWuec", c) >= 0:
				return nil, 0, fmt.Errorf("datetime pattern %q: week-based letter '%c' is not supported (Spark 3 rejects it too)", p, c)
			case !ok:
				return nil, 0, fmt.Errorf("datetime pattern %q: unknown pattern letter '%c'", p, c)
			case n > limit:
				return nil, 0, fmt.Errorf("datetime pattern %q: too many pattern letters: %s", p, strings.Repeat(string(c), n))
			case c == 'V' && n != 2:
				return nil, 0, fmt.Errorf("datetime pattern %q: pattern letter count must be 2: V", p)
			case c == 'O' && n != 1 && n != 4:
				return nil, 0, fmt.Errorf("datetime pattern %q: pattern letter count must be 1 or 4: O", p)
			}
			out = append(out, dtField{letter: c, count: n})
			i += n
		case c == '#' || c == '{' || c == '}':
			return nil, 0, fmt.Errorf("datetime pattern %q: reserved character '%c' (quote it: '%c')", p, c, c)
		default:
			addLit(string(c))
			i++
		}
	}
	if inOptional {
		return out, i, nil
	}
	return out, i, nil
}

var (
	shortMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	shortDays   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
)

// format writes the instant us (microseconds since the epoch) as its
// wall-clock time in loc (nil is UTC; a date's or a timestamp_ntz's own
// wall-clock time is formatted with nil).
func (p *dtPattern) format(dst []byte, us int64, loc *time.Location) []byte {
	if loc == nil {
		loc = time.UTC
	}
	wall := sparktype.WallMicros(us, loc)
	secs := floorDivInt(wall, 1_000_000)
	t := time.Unix(secs, (wall-secs*1_000_000)*1000).UTC()
	c := civilOf(t)
	c.loc = loc
	c.offset = int((wall - us) / 1_000_000)
	return formatFields(dst, p.fields, c)
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func pad(dst []byte, v, width int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	if v < 100 && width <= 2 {
		if v >= 10 || width == 2 {
			dst = append(dst, byte('0'+v/10))
		}
		return append(dst, byte('0'+v%10))
	}
	if v >= 1000 && v < 10000 && width <= 4 {
		return append(dst, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], int64(v), 10)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// civil is an instant's calendar fields, computed once for all the
// fields of a pattern.
type civil struct {
	t                         time.Time
	year, day, hour, min, sec int
	month                     time.Month
	loc                       *time.Location // the zone, for its letters
	offset                    int            // its offset from UTC, in seconds
}

func civilOf(t time.Time) civil {
	c := civil{t: t}
	secs := t.Unix()
	days := floorDivInt(secs, 86400)
	c.year, c.month, c.day = civilFromDays(days)
	rest := int(secs - days*86400)
	c.hour, c.min, c.sec = rest/3600, rest/60%60, rest%60
	return c
}

// civilFromDays is the proleptic Gregorian date of a day number (days
// since 1970-01-01), Howard Hinnant's civil_from_days.
func civilFromDays(z int64) (int, time.Month, int) {
	z += 719468
	era := floorDivInt(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return int(y), time.Month(m), int(d)
}

func formatFields(dst []byte, fields []dtField, c civil) []byte {
	t := c.t
	for _, f := range fields {
		switch f.letter {
		case 0:
			if f.optional != nil {
				dst = formatFields(dst, f.optional, c)
			} else {
				dst = append(dst, f.lit...)
			}
		case 'G':
			if f.count == 4 {
				dst = append(dst, "Anno Domini"...)
			} else {
				dst = append(dst, "AD"...)
			}
		case 'y':
			y := c.year
			if f.count == 2 {
				dst = pad(dst, y%100, 2)
			} else {
				dst = pad(dst, y, f.count)
			}
		case 'D':
			dst = pad(dst, t.YearDay(), f.count)
		case 'M', 'L':
			switch f.count {
			case 1, 2:
				dst = pad(dst, int(c.month), f.count)
			case 3:
				dst = append(dst, shortMonths[c.month-1]...)
			case 4:
				dst = append(dst, c.month.String()...)
			default:
				dst = append(dst, c.month.String()[0])
			}
		case 'd':
			dst = pad(dst, c.day, f.count)
		case 'Q', 'q':
			q := (int(c.month)-1)/3 + 1
			switch f.count {
			case 1, 2:
				dst = pad(dst, q, f.count)
			case 3:
				dst = append(dst, 'Q')
				dst = strconv.AppendInt(dst, int64(q), 10)
			default:
				dst = append(dst, []string{"1st", "2nd", "3rd", "4th"}[q-1]+" quarter"...)
			}
		case 'E':
			if f.count == 4 {
				dst = append(dst, t.Weekday().String()...)
			} else {
				dst = append(dst, shortDays[t.Weekday()]...)
			}
		case 'a':
			if c.hour < 12 {
				dst = append(dst, "AM"...)
			} else {
				dst = append(dst, "PM"...)
			}
		case 'h':
			h := c.hour % 12
			if h == 0 {
				h = 12
			}
			dst = pad(dst, h, f.count)
		case 'K':
			dst = pad(dst, c.hour%12, f.count)
		case 'k':
			h := c.hour
			if h == 0 {
				h = 24
			}
			dst = pad(dst, h, f.count)
		case 'H':
			dst = pad(dst, c.hour, f.count)
		case 'm':
			dst = pad(dst, c.min, f.count)
		case 's':
			dst = pad(dst, c.sec, f.count)
		case 'S':
			var buf [12]byte
			nanos := pad(buf[:0], t.Nanosecond(), 9)
			dst = append(dst, nanos[:f.count]...)
		case 'V':
			dst = append(dst, zoneID(c.loc)...)
		case 'z':
			dst = append(dst, zoneName(c, f.count == 4)...)
		case 'O':
			dst = appendGMT(dst, c.offset, f.count == 4)
		case 'X':
			if c.offset == 0 {
				dst = append(dst, 'Z')
			} else {
				dst = appendOffset(dst, c.offset, f.count)
			}
		case 'x':
			dst = appendOffset(dst, c.offset, f.count)
		case 'Z':
			switch f.count {
			case 4:
				dst = appendGMT(dst, c.offset, true)
			case 5:
				if c.offset == 0 {
					dst = append(dst, 'Z')
				} else {
					dst = appendOffset(dst, c.offset, 3)
				}
			default:
				dst = appendOffset(dst, c.offset, 2)
			}
		}
	}
	return dst
}

// zoneID is the zone's id as Java prints it (pattern letters VV):
// `America/Los_Angeles`, `UTC`, `+08:00`.
func zoneID(loc *time.Location) string {
	if loc == nil || loc == time.UTC {
		return "UTC"
	}
	return loc.String()
}

// zoneName is the zone's name (pattern letter z): Go's abbreviation
// (`PST`), `UTC`, or for a fixed offset the offset; full (zzzz) names only
// UTC by Java's long name, others keep the abbreviation.
func zoneName(c civil, full bool) string {
	if c.loc == nil || c.loc == time.UTC {
		if full {
			return "Coordinated Universal Time"
		}
		return "UTC"
	}
	name, _ := time.Unix(c.t.Unix()-int64(c.offset), 0).In(c.loc).Zone()
	return name
}

// appendOffset writes an offset in seconds as pattern letters X and x do
// for count letters: +hh[mm] (1), +hhmm (2, 4), +hh:mm (3, 5).
func appendOffset(dst []byte, off, count int) []byte {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	h, m := off/3600, off/60%60
	dst = append(dst, sign, byte('0'+h/10), byte('0'+h%10))
	switch {
	case count == 1:
		if m != 0 {
			dst = append(dst, byte('0'+m/10), byte('0'+m%10))
		}
	case count == 3 || count == 5:
		dst = append(dst, ':', byte('0'+m/10), byte('0'+m%10))
	default:
		dst = append(dst, byte('0'+m/10), byte('0'+m%10))
	}
	return dst
}

// appendGMT writes the localized offset of pattern letter O (GMT-8, or
// GMT-08:00 when full); GMT alone for UTC.
func appendGMT(dst []byte, off int, full bool) []byte {
	dst = append(dst, "GMT"...)
	if off == 0 {
		return dst
	}
	if full {
		return appendOffset(dst, off, 3)
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	dst = append(dst, sign)
	dst = strconv.AppendInt(dst, int64(off/3600), 10)
	if m := off / 60 % 60; m != 0 {
		dst = append(dst, ':', byte('0'+m/10), byte('0'+m%10))
	}
	return dst
}

// parsed collects the fields a parse finds.
type parsed struct {
	year, month, day, doy int
	hour, minute, second  int
	nanos                 int
	pm, hasAmPm, hour12   bool
	loc                   *time.Location
	// got maps a letter already read to its value: a second field of the
	// same letter must agree (java.time refuses a conflict).
	got map[byte]int
}

// agree records the value v of letter l; false when an earlier field of
// the same letter read another value.
func (st *parsed) agree(l byte, v int) bool {
	if prev, ok := st.got[l]; ok {
		return prev == v
	}
	if st.got == nil {
		st.got = map[byte]int{}
	}
	st.got[l] = v
	return true
}

// parse reads s with the pattern; the whole text must match. It returns
// microseconds since the epoch: a wall-clock time in the text's zone, or
// in loc when it has none (nil is UTC).
func (p *dtPattern) parse(s string, loc *time.Location) (int64, bool) {
	if loc == nil {
		loc = time.UTC
	}
	st := parsed{year: 1970, month: 1, day: 1, loc: loc}
	i, ok := parseFields(p.fields, s, 0, &st)
	if !ok || i != len(s) {
		return 0, false
	}
	if st.hasAmPm && st.hour12 {
		st.hour %= 12
		if st.pm {
			st.hour += 12
		}
	}
	if st.hour > 23 || st.minute > 59 || st.second > 59 {
		return 0, false
	}
	if st.doy > 0 {
		t := time.Date(st.year, 1, st.doy, 0, 0, 0, 0, time.UTC)
		if t.Year() != st.year {
			return 0, false
		}
		st.month, st.day = int(t.Month()), t.Day()
	}
	days, ok := fn.CivilDays(st.year, st.month, st.day)
	if !ok {
		return 0, false
	}
	us := (int64(days)*86400+int64(st.hour*3600+st.minute*60+st.second))*1_000_000 + int64(st.nanos/1000)
	return sparktype.FromWallMicros(us, st.loc), true
}

// nextIsNumber reports whether the field after fields[k] is a number that
// directly follows (adjacent value parsing: "yyyyMMdd").
func nextIsNumber(fields []dtField, k int) bool {
	if k+1 >= len(fields) {
		return false
	}
	f := fields[k+1]
	switch f.letter {
	case 'y', 'D', 'd', 'H', 'h', 'K', 'k', 'm', 's', 'S':
		return true
	case 'M', 'L', 'Q', 'q':
		return f.count <= 2
	}
	return false
}

func parseFields(fields []dtField, s string, i int, st *parsed) (int, bool) {
	for k, f := range fields {
		if f.letter == 0 {
			if f.optional != nil {
				saved := *st
				saved.got = maps.Clone(st.got)
				if j, ok := parseFields(f.optional, s, i, st); ok {
					i = j
				} else {
					*st = saved
				}
				continue
			}
			if !strings.HasPrefix(s[i:], f.lit) {
				return 0, false
			}
			i += len(f.lit)
			continue
		}
		// Numbers: count digits exactly when count is 2 or the next field
		// is an adjacent number; otherwise count (at least 1) up to a max.
		num := func(min, max int) (int, bool) {
			if nextIsNumber(fields, k) || f.count == 2 && f.letter != 'y' {
				min, max = f.count, f.count
			}
			j := i
			v := 0
			for j < len(s) && j-i < max && s[j] >= '0' && s[j] <= '9' {
				v = v*10 + int(s[j]-'0')
				j++
			}
			if j-i < min {
				return 0, false
			}
			i = j
			return v, true
		}
		var ok bool
		switch f.letter {
		case 'G':
			for _, era := range []string{"Anno Domini", "AD"} {
				if strings.HasPrefix(s[i:], era) {
					i += len(era)
					ok = true
					break
				}
			}
		case 'y':
			neg := false
			if f.count != 2 && i < len(s) && (s[i] == '-' || s[i] == '+') && f.count > 4 {
				neg = s[i] == '-'
				i++
			}
			if f.count == 2 {
				var v int
				if v, ok = num(2, 2); ok {
					st.year = 2000 + v
				}
			} else if st.year, ok = num(f.count, max(f.count, 6)); ok && neg {
				st.year = -st.year
			}
		case 'D':
			st.doy, ok = num(f.count, 3)
		case 'M', 'L':
			switch f.count {
			case 1, 2:
				st.month, ok = num(f.count, 2)
			case 3:
				st.month, ok = parseName(s, &i, shortMonths)
			default:
				st.month, ok = parseName(s, &i, fullMonths)
			}
		case 'd':
			st.day, ok = num(f.count, 2)
		case 'Q', 'q':
			switch f.count {
			case 1, 2:
				_, ok = num(f.count, 2)
			case 3:
				if ok = i < len(s) && s[i] == 'Q'; ok {
					i++
					_, ok = num(1, 1)
				}
			}
		case 'E':
			if f.count == 4 {
				_, ok = parseName(s, &i, fullDays)
			} else {
				_, ok = parseName(s, &i, shortDays)
			}
		case 'a':
			if len(s)-i >= 2 {
				switch strings.ToUpper(s[i : i+2]) {
				case "AM":
					st.hasAmPm, ok = true, true
				case "PM":
					st.hasAmPm, st.pm, ok = true, true, true
				}
				i += 2
			}
		case 'h', 'K':
			st.hour12 = true
			st.hour, ok = num(f.count, 2)
		case 'k':
			if st.hour, ok = num(f.count, 2); ok && st.hour == 24 {
				st.hour = 0
			}
		case 'H':
			st.hour, ok = num(f.count, 2)
		case 'm':
			st.minute, ok = num(f.count, 2)
		case 's':
			st.second, ok = num(f.count, 2)
		case 'S':
			start := i
			var v int
			if v, ok = num(1, f.count); ok {
				for d := i - start; d < 9; d++ {
					v *= 10
				}
				st.nanos = v
			}
		case 'V', 'z', 'O', 'X', 'x', 'Z':
			j := i
			for j < len(s) && s[j] != ' ' {
				j++
			}
			if k+1 < len(fields) && fields[k+1].letter == 0 && fields[k+1].optional == nil && fields[k+1].lit != "" {
				if at := strings.Index(s[i:], fields[k+1].lit); at >= 0 {
					j = i + at
				}
			}
			st.loc, ok = fn.ParseZone(s[i:j])
			i = j
		}
		if !ok {
			return 0, false
		}
		if v, numeric := fieldValue(f.letter, st); numeric && !st.agree(f.letter, v) {
			return 0, false
		}
	}
	return i, true
}

// fieldValue is the value a numeric letter just read into st.
func fieldValue(l byte, st *parsed) (int, bool) {
	switch l {
	case 'y':
		return st.year, true
	case 'M', 'L':
		return st.month, true
	case 'd':
		return st.day, true
	case 'D':
		return st.doy, true
	case 'H', 'k', 'h', 'K':
		return st.hour, true
	case 'm':
		return st.minute, true
	case 's':
		return st.second, true
	case 'S':
		return st.nanos, true
	}
	return 0, false
}

var (
	fullMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	fullDays   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
)

// parseName matches one of names (case-insensitively) at s[*i:]; the
// result is its 1-based index.
func parseName(s string, i *int, names []string) (int, bool) {
	for k, n := range names {
		if len(s)-*i >= len(n) && strings.EqualFold(s[*i:*i+len(n)], n) {
			*i += len(n)
			return k + 1, true
		}
	}
	return 0, false
}
