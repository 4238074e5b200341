package sparktype

import (
	"errors"
	"strings"
	"time"
)

// Sluice reads timestamp text one way everywhere (see
// docs/inference.md#timestamps): Spark's CAST(string AS TIMESTAMP). Text
// without a zone is a wall-clock time in the session time zone — UTC
// outside SQL (partition values, connector bounds, the sidecar's ISO-8601
// dates), spark.sql.session.timeZone in SQL (docs/sql.md#time-zone).

const microsPerDay = 86_400_000_000

var errNotTimestamp = errors.New("not a timestamp")

// ParseTimestamp reads a timestamp as Spark's CAST does (ParseTimestampMicros):
// `2024-05-01`, `2024-05-01 10:00`, `2024-05-01T10:00:00.123+02:00`,
// `2024-05-01 10:00:00 Europe/Paris`, … The result is in UTC, to the
// microsecond.
func ParseTimestamp(s string) (time.Time, error) {
	us, ok := ParseTimestampMicros(s)
	if !ok {
		return time.Time{}, errNotTimestamp
	}
	return time.UnixMicro(us).UTC(), nil
}

// ParseISODateTime reads only ISO-8601 date-times among those forms: the
// full date, 'T', and at least hours and minutes (`2024-05-01T10:00`,
// `2024-05-01T10:00:00.5+0200`); no bare date, no space before the time.
func ParseISODateTime(s string) (time.Time, error) {
	if len(s) < 16 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' {
		return time.Time{}, errNotTimestamp
	}
	return ParseTimestamp(s)
}

// TrimSpaceControl drops leading and trailing bytes Spark's UTF8String
// trimAll drops: whitespace and ISO control characters (≤ 0x20, 0x7f).
func TrimSpaceControl(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] <= ' ' || s[i] == 0x7f) {
		i++
	}
	for j > i && (s[j-1] <= ' ' || s[j-1] == 0x7f) {
		j--
	}
	return s[i:j]
}

// digitsRun reads 1..max ASCII digits from s at i; it returns the value,
// the position after them and how many there were.
func digitsRun(s string, i, max int) (v, next, n int) {
	for next = i; next < len(s) && next-i < max && s[next] >= '0' && s[next] <= '9'; next++ {
		v = v*10 + int(s[next]-'0')
	}
	return v, next, next - i
}

// ParseDateDays is Spark's string → date: `yyyy`, `yyyy-[m]m`,
// `yyyy-[m]m-[d]d`, optionally followed by a space or `T` and anything. It
// returns days since the epoch.
func ParseDateDays(str string) (int32, bool) {
	s := TrimSpaceControl(str)
	y, m, d, rest, ok := parseDatePart(s)
	if !ok {
		return 0, false
	}
	if rest != "" && rest[0] != ' ' && rest[0] != 'T' {
		return 0, false
	}
	return CivilDays(y, m, d)
}

// parseDatePart reads `[+-]yyyy[-[m]m[-[d]d]]` and returns what follows.
func parseDatePart(s string) (y, m, d int, rest string, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	y, i, n := digitsRun(s, i, 7)
	if n < 4 {
		return 0, 0, 0, "", false
	}
	if neg {
		y = -y
	}
	m, d = 1, 1
	if i < len(s) && s[i] == '-' {
		if m, i, n = digitsRun(s, i+1, 2); n == 0 {
			return 0, 0, 0, "", false
		}
		if i < len(s) && s[i] == '-' {
			if d, i, n = digitsRun(s, i+1, 2); n == 0 {
				return 0, 0, 0, "", false
			}
		} else if i < len(s) {
			return 0, 0, 0, "", false
		}
	} else if i < len(s) {
		return 0, 0, 0, "", false
	}
	return y, m, d, s[i:], true
}

// CivilDays is the day number of y-m-d since 1970-01-01 in the proleptic
// Gregorian calendar, false if the date does not exist (2021-02-30).
func CivilDays(y, m, d int) (int32, bool) {
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	// Howard Hinnant's days_from_civil.
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int32(era*146097 + doe - 719468), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ParseTimestampMicros is Spark's string → timestamp (stringToTimestamp)
// in the UTC session time zone: `yyyy[-[m]m[-[d]d]]`, then optionally ` ` or `T` and
// `[h]h[:[m]m[:[s]s[.fraction]]]` and a zone (`Z`, `+hh[:mm]`, `-hhmm`,
// `UTC`, `GMT+h`, a region such as `Europe/Paris`). It returns microseconds
// since the epoch.
func ParseTimestampMicros(str string) (int64, bool) { return ParseTimestampMicrosIn(str, time.UTC) }

// ParseTimestampMicrosIn is ParseTimestampMicros with session time zone
// zone: text without a zone of its own is a wall-clock time there (nil is
// UTC).
func ParseTimestampMicrosIn(str string, zone *time.Location) (int64, bool) {
	s := TrimSpaceControl(str)
	y, mo, d, rest, ok := parseDatePart(s)
	if !ok {
		// The date part may end where a zone starts: "2020-01-01Z".
		return 0, false
	}
	days, ok := CivilDays(y, mo, d)
	if !ok {
		return 0, false
	}
	var h, mi, sec, frac int
	loc := zone
	if loc == nil {
		loc = time.UTC
	}
	if rest != "" {
		if rest[0] != ' ' && rest[0] != 'T' {
			return 0, false
		}
		rest = rest[1:]
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			var n, i int
			if h, i, n = digitsRun(rest, 0, 2); n == 0 {
				return 0, false
			}
			if i < len(rest) && rest[i] == ':' {
				if mi, i, n = digitsRun(rest, i+1, 2); n == 0 {
					return 0, false
				}
				if i < len(rest) && rest[i] == ':' {
					if sec, i, n = digitsRun(rest, i+1, 2); n == 0 {
						return 0, false
					}
					if i < len(rest) && rest[i] == '.' {
						var fd int
						frac, i, fd = digitsRun(rest, i+1, 9)
						for ; fd < 6; fd++ {
							frac *= 10
						}
						for ; fd > 6; fd-- {
							frac /= 10
						}
					}
				}
			}
			if h > 23 || mi > 59 || sec > 59 {
				return 0, false
			}
			rest = rest[i:]
		}
		if rest != "" {
			if loc, ok = ParseZone(rest); !ok {
				return 0, false
			}
		}
	}
	return FromWallMicros(int64(days)*microsPerDay+int64(h*3600+mi*60+sec)*1_000_000+int64(frac), loc), true
}

// WallMicros is the wall-clock time in zone of the instant us (both in
// microseconds since the epoch, the wall-clock time read as UTC): how
// Spark shows a timestamp in the session time zone. nil is UTC.
func WallMicros(us int64, zone *time.Location) int64 {
	if zone == nil || zone == time.UTC {
		return us
	}
	return us + int64(offsetAt(floorDiv(us, 1_000_000), zone))*1_000_000
}

// FromWallMicros is the instant whose wall-clock time in zone is wall (read
// as UTC), resolved as java.time's ZonedDateTime.ofLocal, and so Spark,
// resolves it: in an overlap (clocks turned back) the earlier instant, in a
// gap (clocks turned forward) the wall-clock time moved forward by the
// gap's length. nil is UTC.
func FromWallMicros(wall int64, zone *time.Location) int64 {
	if zone == nil || zone == time.UTC {
		return wall
	}
	secs := floorDiv(wall, 1_000_000)
	frac := wall - secs*1_000_000
	// The offsets in force around the wall-clock time: before and after a
	// transition near it (transitions are months apart in every zone).
	before := offsetAt(secs-86400, zone)
	after := offsetAt(secs+86400, zone)
	best, found := int64(0), false
	for _, off := range [...]int{before, offsetAt(secs, zone), after} {
		at := secs - int64(off)
		if offsetAt(at, zone) == off && (!found || at < best) {
			best, found = at, true
		}
	}
	if !found { // a gap: the offset before it, as Java's plusSeconds(gap)
		best = secs - int64(before)
	}
	return best*1_000_000 + frac
}

// offsetAt is zone's offset from UTC in seconds at the instant secs.
func offsetAt(secs int64, zone *time.Location) int {
	_, off := time.Unix(secs, 0).In(zone).Zone()
	return off
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ParseZone reads a time zone as Spark's timestamp texts write it: Z, UTC,
// GMT, UT, an offset (+h, +hh, +hh:mm, +hhmm, optionally after UTC/GMT/UT)
// or a region id (Europe/Paris), or one of Java's three-letter ids (PST,
// CST, EST: ZoneId.SHORT_IDS). A leading space is allowed.
func ParseZone(z string) (*time.Location, bool) {
	z = strings.TrimPrefix(z, " ")
	if z == "" {
		return nil, false
	}
	if z == "Z" {
		return time.UTC, true
	}
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(z, p) {
			rest := z[len(p):]
			if rest == "" {
				return time.UTC, true
			}
			if rest[0] == '+' || rest[0] == '-' {
				return parseOffset(rest)
			}
		}
	}
	if z[0] == '+' || z[0] == '-' {
		return parseOffset(z)
	}
	if id, ok := shortZoneIDs[z]; ok {
		z = id
		if id[0] == '-' {
			return parseOffset(id)
		}
	}
	loc, err := time.LoadLocation(z)
	if err != nil || z == "Local" {
		return nil, false
	}
	return loc, true
}

// shortZoneIDs are the three-letter zone names Java's ZoneId.SHORT_IDS
// maps, which Spark accepts wherever it reads a zone (`PST`, `CST`).
var shortZoneIDs = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
	"CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
	"EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
	"PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
	"EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
}

func parseOffset(z string) (*time.Location, bool) {
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	h, i, n := digitsRun(z, 1, 2)
	if n == 0 {
		return nil, false
	}
	m := 0
	if i < len(z) {
		if z[i] == ':' {
			i++
		}
		if m, i, n = digitsRun(z, i, 2); n != 2 {
			return nil, false
		}
		if i < len(z) && z[i] == ':' {
			if _, i, n = digitsRun(z, i+1, 2); n != 2 {
				return nil, false
			}
		}
	}
	if i != len(z) || h > 18 || m > 59 {
		return nil, false
	}
	return time.FixedZone(z, sign*(h*3600+m*60)), true
}
