package sparktype

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// Spark's interval types (docs/sql.md#intervals) and the Arrow types Sluice
// stores them as:
//
//   - a year-month interval (`interval year`, `interval year to month`,
//     `interval month`) is Arrow's month interval: a count of months
//     (int32);
//   - a day-time interval (`interval day`, `interval day to second`,
//     `interval hour`, …) is an Arrow duration in microseconds (int64);
//   - Spark's legacy CalendarIntervalType (`interval`, what a literal that
//     mixes year-month and day-time units gives) is Arrow's month-day-nano
//     interval.
//
// An interval's start and end fields are part of the Spark type (they
// decide how it prints) but not of Arrow's: each of the ten day-time pairs
// is one *arrow.DurationType value of this package (DayTimeIntervalType),
// each of the three year-month pairs one *arrow.MonthIntervalType
// (YearMonthIntervalType), and DayTimeFields and YearMonthFields tell
// which a type is. A type made elsewhere (a file read back, an Arrow
// builder's) is Spark's default, `interval day to second` or `interval year
// to month`. Arrow compares all of one kind equal: they hold the same
// values.

// The fields of a day-time interval, Spark's DayTimeIntervalType.DAY…SECOND.
const (
	FieldDay byte = iota
	FieldHour
	FieldMinute
	FieldSecond
)

// The fields of a year-month interval, Spark's YearMonthIntervalType.YEAR
// and MONTH.
const (
	FieldYear byte = iota
	FieldMonth
)

var dayTimeFieldNames = [...]string{"day", "hour", "minute", "second"}

var yearMonthFieldNames = [...]string{"year", "month"}

// Microseconds per unit of a day-time field.
const (
	MicrosPerSecond = int64(1_000_000)
	MicrosPerMinute = 60 * MicrosPerSecond
	MicrosPerHour   = 60 * MicrosPerMinute
	MicrosPerDay    = 24 * MicrosPerHour
)

var dayTimeTypes = func() (t [4][4]*arrow.DurationType) {
	for s := range t {
		for e := s; e < 4; e++ {
			t[s][e] = &arrow.DurationType{Unit: arrow.Microsecond}
		}
	}
	return t
}()

// DayTimeIntervalType is Spark's DayTimeIntervalType(start, end) (fields
// FieldDay…FieldSecond, start ≤ end): an Arrow duration in microseconds.
func DayTimeIntervalType(start, end byte) arrow.DataType {
	if start > FieldSecond || end > FieldSecond || start > end {
		panic(fmt.Sprintf("sparktype: no day-time interval type from field %d to %d", start, end))
	}
	return dayTimeTypes[start][end]
}

// DefaultDayTimeInterval is `interval day to second`.
var DefaultDayTimeInterval = DayTimeIntervalType(FieldDay, FieldSecond)

// DayTimeFields is the start and end field of a day-time interval type;
// ok is false when dt is not one. A duration type that is not one of
// DayTimeIntervalType's is `interval day to second`.
func DayTimeFields(dt arrow.DataType) (start, end byte, ok bool) {
	d, isDur := dt.(*arrow.DurationType)
	if !isDur {
		return 0, 0, false
	}
	for s := range dayTimeTypes {
		for e := s; e < 4; e++ {
			if dayTimeTypes[s][e] == d {
				return byte(s), byte(e), true
			}
		}
	}
	return FieldDay, FieldSecond, true
}

// ymTypes are the three year-month interval types, each an Arrow month
// interval at its own address. Arrow's type is an empty struct, and
// separate empty variables may share one address; fields of one struct
// kept apart by a byte do not.
var ymTypes struct {
	year        arrow.MonthIntervalType
	_           byte
	yearToMonth arrow.MonthIntervalType
	_           byte
	month       arrow.MonthIntervalType
	_           byte
}

// YearMonthIntervalType is Spark's YearMonthIntervalType(start, end)
// (FieldYear, FieldMonth; start ≤ end): an Arrow month interval.
func YearMonthIntervalType(start, end byte) arrow.DataType {
	switch {
	case start == FieldYear && end == FieldYear:
		return &ymTypes.year
	case start == FieldYear && end == FieldMonth:
		return &ymTypes.yearToMonth
	case start == FieldMonth && end == FieldMonth:
		return &ymTypes.month
	}
	panic(fmt.Sprintf("sparktype: no year-month interval type from field %d to %d", start, end))
}

// DefaultYearMonthInterval is `interval year to month`.
var DefaultYearMonthInterval = YearMonthIntervalType(FieldYear, FieldMonth)

// YearMonthFields is the start and end field of a year-month interval
// type; ok is false when dt is not one. A month interval type that is not
// one of YearMonthIntervalType's is `interval year to month`.
func YearMonthFields(dt arrow.DataType) (start, end byte, ok bool) {
	m, isYM := dt.(*arrow.MonthIntervalType)
	switch {
	case !isYM:
		return 0, 0, false
	case m == &ymTypes.year:
		return FieldYear, FieldYear, true
	case m == &ymTypes.month:
		return FieldMonth, FieldMonth, true
	}
	return FieldYear, FieldMonth, true
}

// CalendarIntervalType is Spark's legacy CalendarIntervalType (`interval`):
// months, days and microseconds, stored as Arrow's month-day-nano interval.
var CalendarIntervalType arrow.DataType = arrow.FixedWidthTypes.MonthDayNanoInterval

// IsInterval says whether dt is one of the interval types.
func IsInterval(dt arrow.DataType) bool {
	if dt == nil {
		return false
	}
	switch dt.ID() {
	case arrow.DURATION, arrow.INTERVAL_MONTHS, arrow.INTERVAL_MONTH_DAY_NANO:
		return true
	}
	return false
}

// intervalName is the simpleString of an interval type, "" for others.
func intervalName(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.DURATION:
		s, e, _ := DayTimeFields(dt)
		return "interval " + fieldRange(dayTimeFieldNames[s], dayTimeFieldNames[e])
	case arrow.INTERVAL_MONTHS:
		s, e, _ := YearMonthFields(dt)
		return "interval " + fieldRange(yearMonthFieldNames[s], yearMonthFieldNames[e])
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return "interval"
	}
	return ""
}

func fieldRange(from, to string) string {
	if from == to {
		return from
	}
	return from + " to " + to
}

// parseIntervalType reads what follows `interval` in a type name:
// `year [to month]`, `month`, `day [to hour|minute|second]`, … or nothing
// (CalendarIntervalType).
func (p *sparkTypeParser) parseIntervalType() (arrow.DataType, error) {
	save := p.pos
	from := strings.ToLower(p.ident())
	if from == "" {
		p.pos = save
		return CalendarIntervalType, nil
	}
	to := from
	save = p.pos
	if strings.EqualFold(p.ident(), "to") {
		to = strings.ToLower(p.ident())
	} else {
		p.pos = save
	}
	if ys, ok := fieldIndex(yearMonthFieldNames[:], from); ok {
		ye, ok := fieldIndex(yearMonthFieldNames[:], to)
		if !ok || ye < ys {
			return nil, p.errorf("interval %s is not a type", fieldRange(from, to))
		}
		return YearMonthIntervalType(ys, ye), nil
	}
	ds, ok1 := fieldIndex(dayTimeFieldNames[:], from)
	de, ok2 := fieldIndex(dayTimeFieldNames[:], to)
	if !ok1 || !ok2 || de < ds {
		return nil, p.errorf("interval %s is not a type", fieldRange(from, to))
	}
	return DayTimeIntervalType(ds, de), nil
}

func fieldIndex(names []string, s string) (byte, bool) {
	for i, n := range names {
		if n == s {
			return byte(i), true
		}
	}
	return 0, false
}

// DayTimeFieldByName is the field a unit word names (day, hour, minute,
// second; case-insensitive, a plural s allowed).
func DayTimeFieldByName(s string) (byte, bool) {
	return fieldIndex(dayTimeFieldNames[:], strings.TrimSuffix(strings.ToLower(s), "s"))
}

// YearMonthFieldByName is the field a unit word names (year, month).
func YearMonthFieldByName(s string) (byte, bool) {
	return fieldIndex(yearMonthFieldNames[:], strings.TrimSuffix(strings.ToLower(s), "s"))
}

// FieldName is the upper-case name of a day-time (dayTime) or year-month
// field, as interval literals print it.
func FieldName(dayTime bool, f byte) string {
	if dayTime {
		return strings.ToUpper(dayTimeFieldNames[f])
	}
	return strings.ToUpper(yearMonthFieldNames[f])
}

// FormatDayTimeInterval is Spark's ANSI text of a day-time interval
// (toDayTimeIntervalString, ANSI_STYLE): `INTERVAL '1 02:03:04.5' DAY TO
// SECOND`. It is what CAST(… AS STRING) gives and how a literal is named.
// Fields below end are not shown; the start field takes what is above it.
func FormatDayTimeInterval(us int64, start, end byte) string {
	var b strings.Builder
	b.WriteString("INTERVAL '")
	if us < 0 {
		b.WriteByte('-')
	}
	rest := new(big.Int).Abs(big.NewInt(us)) // |MinInt64| does not fit an int64
	part := func(per int64) int64 {
		q, m := new(big.Int).QuoRem(rest, big.NewInt(per), new(big.Int))
		rest = m
		return q.Int64()
	}
	secs := func() string {
		q, m := new(big.Int).QuoRem(rest, big.NewInt(MicrosPerSecond), new(big.Int))
		s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%s.%06d", q, m.Int64()), "0"), ".")
		if q.Cmp(big.NewInt(10)) < 0 {
			s = "0" + s
		}
		return s
	}
	switch start {
	case FieldDay:
		b.WriteString(strconv.FormatInt(part(MicrosPerDay), 10))
	case FieldHour:
		fmt.Fprintf(&b, "%02d", part(MicrosPerHour))
	case FieldMinute:
		fmt.Fprintf(&b, "%02d", part(MicrosPerMinute))
	case FieldSecond:
		b.WriteString(secs())
	}
	if start < FieldHour && FieldHour <= end {
		fmt.Fprintf(&b, " %02d", part(MicrosPerHour))
	}
	if start < FieldMinute && FieldMinute <= end {
		fmt.Fprintf(&b, ":%02d", part(MicrosPerMinute))
	}
	if start < FieldSecond && FieldSecond <= end {
		b.WriteString(":" + secs())
	}
	b.WriteString("' ")
	b.WriteString(strings.ToUpper(fieldRange(dayTimeFieldNames[start], dayTimeFieldNames[end])))
	return b.String()
}

// FormatYearMonthInterval is Spark's ANSI text of a year-month interval:
// `INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL '14' MONTH`, `INTERVAL '1' YEAR`.
func FormatYearMonthInterval(months int32, start, end byte) string {
	sign := ""
	abs := int64(months)
	if abs < 0 {
		sign, abs = "-", -abs
	}
	var v string
	switch {
	case start == FieldYear && end == FieldMonth:
		v = fmt.Sprintf("%d-%d", abs/12, abs%12)
	case start == FieldYear:
		v = strconv.FormatInt(abs/12, 10)
	default:
		v = strconv.FormatInt(abs, 10)
	}
	return "INTERVAL '" + sign + v + "' " + strings.ToUpper(fieldRange(yearMonthFieldNames[start], yearMonthFieldNames[end]))
}

// HiveDayTimeInterval is a day-time interval as Spark's result rows print
// it (HIVE_STYLE): `3 00:00:00.000000000`, `-86 13:48:47.654322000`.
func HiveDayTimeInterval(us int64) string {
	sign := ""
	rest := new(big.Int).Abs(big.NewInt(us))
	if us < 0 {
		sign = "-"
	}
	q, micros := new(big.Int).QuoRem(rest, big.NewInt(MicrosPerSecond), new(big.Int))
	secs := q.Int64()
	return fmt.Sprintf("%s%d %02d:%02d:%02d.%09d", sign, secs/86400, secs%86400/3600, secs%3600/60, secs%60, micros.Int64()*1000)
}

// HiveYearMonthInterval is a year-month interval as Spark's result rows
// print it: `1-8`, `-2-2`.
func HiveYearMonthInterval(months int32) string {
	m := int64(months)
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d-%d", sign, m/12, m%12)
}

// FormatCalendarInterval is Spark's CalendarInterval.toString:
// `1 years 2 months 3 days 4 hours 5.5 seconds`, `0 seconds`.
func FormatCalendarInterval(months, days int32, us int64) string {
	if months == 0 && days == 0 && us == 0 {
		return "0 seconds"
	}
	var parts []string
	unit := func(v int64, name string) {
		if v != 0 {
			parts = append(parts, strconv.FormatInt(v, 10)+" "+name)
		}
	}
	unit(int64(months/12), "years")
	unit(int64(months%12), "months")
	unit(int64(days), "days")
	if us != 0 {
		unit(us/MicrosPerHour, "hours")
		rest := us % MicrosPerHour
		unit(rest/MicrosPerMinute, "minutes")
		rest %= MicrosPerMinute
		if rest != 0 {
			neg := rest < 0
			if neg {
				rest = -rest
			}
			s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%d.%06d", rest/MicrosPerSecond, rest%MicrosPerSecond), "0"), ".")
			if neg {
				s = "-" + s
			}
			parts = append(parts, s+" seconds")
		}
	}
	return strings.Join(parts, " ")
}

// Calendar is a value of Spark's CalendarIntervalType.
type Calendar struct {
	Months, Days int32
	Micros       int64
}

// ParseYearMonthInterval reads the text of `INTERVAL 'y-m' YEAR TO MONTH`
// (Spark's fromYearMonthString): `[+|-]y-m`, months 0…11.
func ParseYearMonthInterval(s string) (int32, error) {
	m := ymPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("interval string does not match year-month format of 'y-m': %s", s)
	}
	y, err1 := strconv.ParseInt(m[2], 10, 32)
	mo, err2 := strconv.ParseInt(m[3], 10, 32)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("interval %s is out of range", s)
	}
	if mo > 11 {
		return 0, fmt.Errorf("interval %s: month %d outside range [0, 11]", s, mo)
	}
	v := y*12 + mo
	if v > math.MaxInt32 {
		return 0, fmt.Errorf("interval %s is out of range", s)
	}
	if m[1] == "-" {
		v = -v
	}
	return int32(v), nil
}

var ymPattern = regexp.MustCompile(`^([+-])?(\d+)-(\d+)$`)

// dayTimePatterns are the texts `INTERVAL '…' start TO end` reads (Spark's
// castStringToDTInterval), with the form its error message names.
var dayTimePatterns = map[[2]byte]struct {
	re   *regexp.Regexp
	form string
}{
	{FieldDay, FieldDay}:       {regexp.MustCompile(`^([+-])?(\d+)$`), "[+|-]d"},
	{FieldDay, FieldHour}:      {regexp.MustCompile(`^([+-])?(\d+) (\d{1,2})$`), "[+|-]d h"},
	{FieldDay, FieldMinute}:    {regexp.MustCompile(`^([+-])?(\d+) (\d{1,2}):(\d{1,2})$`), "[+|-]d h:m"},
	{FieldDay, FieldSecond}:    {regexp.MustCompile(`^([+-])?(\d+) (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d{1,9})?$`), "[+|-]d h:m:s.n"},
	{FieldHour, FieldHour}:     {regexp.MustCompile(`^([+-])?(\d+)$`), "[+|-]h"},
	{FieldHour, FieldMinute}:   {regexp.MustCompile(`^([+-])?(\d+):(\d{1,2})$`), "[+|-]h:m"},
	{FieldHour, FieldSecond}:   {regexp.MustCompile(`^([+-])?(\d+):(\d{1,2}):(\d{1,2})(\.\d{1,9})?$`), "[+|-]h:m:s.n"},
	{FieldMinute, FieldMinute}: {regexp.MustCompile(`^([+-])?(\d+)$`), "[+|-]m"},
	{FieldMinute, FieldSecond}: {regexp.MustCompile(`^([+-])?(\d+):(\d{1,2})(\.\d{1,9})?$`), "[+|-]m:s.n"},
	{FieldSecond, FieldSecond}: {regexp.MustCompile(`^([+-])?(\d+)(\.\d{1,9})?$`), "[+|-]s.n"},
}

// ParseDayTimeInterval reads the text of `INTERVAL '…' start TO end` (Spark's
// castStringToDTInterval): `[+|-]d h:m:s.n` and its parts, the start field
// unbounded, the others within their range (hour 0…23, minute and second
// 0…59). Digits of a second beyond the microsecond are dropped.
func ParseDayTimeInterval(s string, start, end byte) (int64, error) {
	p, ok := dayTimePatterns[[2]byte{start, end}]
	if !ok {
		return 0, fmt.Errorf("no day-time interval from %s to %s", dayTimeFieldNames[start], dayTimeFieldNames[end])
	}
	text := strings.TrimSpace(s)
	m := p.re.FindStringSubmatch(text)
	if m == nil {
		unit := strings.ToUpper(fieldRange(dayTimeFieldNames[start], dayTimeFieldNames[end]))
		return 0, fmt.Errorf("interval string does not match day-time format of `%s`, `INTERVAL [+|-]'%s' %s` when cast to interval %s: %s",
			p.form, p.form, unit, strings.ToLower(unit), s)
	}
	total := new(big.Int)
	field := start
	for _, g := range m[2:] {
		if strings.HasPrefix(g, ".") {
			frac := (g[1:] + "000000")[:6]
			n, _ := strconv.ParseInt(frac, 10, 64)
			total.Add(total, big.NewInt(n))
			continue
		}
		if g == "" {
			continue
		}
		n, err := strconv.ParseInt(g, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("interval %s: %s is out of range", s, g)
		}
		if field != start {
			limit := map[byte]int64{FieldHour: 23, FieldMinute: 59, FieldSecond: 59}[field]
			if n > limit {
				return 0, fmt.Errorf("interval %s: %s %d outside range [0, %d]", s, dayTimeFieldNames[field], n, limit)
			}
		}
		per := [...]int64{MicrosPerDay, MicrosPerHour, MicrosPerMinute, MicrosPerSecond}[field]
		total.Add(total, new(big.Int).Mul(big.NewInt(n), big.NewInt(per)))
		field++
	}
	if m[1] == "-" {
		total.Neg(total)
	}
	if !total.IsInt64() {
		return 0, fmt.Errorf("interval %s is out of range", s)
	}
	return total.Int64(), nil
}

// ParseMultiUnitInterval reads Spark's interval text of value-unit pairs
// (stringToInterval): `1 day 2 hours`, `-3 months`, `1.5 seconds`,
// optionally after the word `interval`. Units are year, month, week, day,
// hour, minute, second, millisecond, microsecond (a plural s allowed);
// only seconds take a fraction. units are the unit words, singular and
// lower-case, in the order given.
func ParseMultiUnitInterval(s string) (v Calendar, units []string, err error) {
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) > 0 && fields[0] == "interval" {
		fields = fields[1:]
	}
	bad := func(why string) (Calendar, []string, error) {
		return Calendar{}, nil, fmt.Errorf("cannot parse the interval %q: %s", s, why)
	}
	if len(fields) == 0 {
		return bad("it is empty")
	}
	var months, days, micros big.Int
	for i := 0; i < len(fields); i++ {
		num := fields[i]
		var unit string
		// A number and its unit may be written together: 1day.
		if j := strings.IndexFunc(num, func(r rune) bool { return r >= 'a' && r <= 'z' }); j > 0 {
			num, unit = num[:j], num[j:]
		} else {
			if i+1 >= len(fields) {
				return bad(fmt.Sprintf("%s has no unit", num))
			}
			i++
			unit = fields[i]
		}
		unit = strings.TrimSuffix(unit, "s")
		neg := false
		if strings.HasPrefix(num, "-") || strings.HasPrefix(num, "+") {
			neg = num[0] == '-'
			num = num[1:]
		}
		whole, frac, hasFrac := strings.Cut(num, ".")
		if whole == "" && !hasFrac || !allDigits(whole) || hasFrac && (!allDigits(frac) || len(frac) > 9) {
			return bad(fmt.Sprintf("%s is not a number", fields[i-1]))
		}
		if hasFrac && unit != "second" {
			return bad(fmt.Sprintf("only seconds take a fraction (%s %s)", num, unit))
		}
		w, ok := new(big.Int).SetString("0"+whole, 10)
		if !ok {
			return bad(fmt.Sprintf("%s is not a number", num))
		}
		if neg {
			w.Neg(w)
		}
		mul := func(dst *big.Int, per int64) { dst.Add(dst, new(big.Int).Mul(w, big.NewInt(per))) }
		switch unit {
		case "year":
			mul(&months, 12)
		case "month":
			mul(&months, 1)
		case "week":
			mul(&days, 7)
		case "day":
			mul(&days, 1)
		case "hour":
			mul(&micros, MicrosPerHour)
		case "minute":
			mul(&micros, MicrosPerMinute)
		case "second":
			mul(&micros, MicrosPerSecond)
			if hasFrac {
				f, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
				if neg {
					f = -f
				}
				micros.Add(&micros, big.NewInt(f))
			}
		case "millisecond":
			mul(&micros, 1000)
		case "microsecond":
			mul(&micros, 1)
		default:
			return bad(fmt.Sprintf("%s is not an interval unit", unit))
		}
		units = append(units, unit)
	}
	if !months.IsInt64() || months.Int64() != int64(int32(months.Int64())) ||
		!days.IsInt64() || days.Int64() != int64(int32(days.Int64())) || !micros.IsInt64() {
		return bad("it is out of range")
	}
	return Calendar{Months: int32(months.Int64()), Days: int32(days.Int64()), Micros: micros.Int64()}, units, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// AddMonthsToDays is the date days (since 1970-01-01) plus months, the day
// clamped to the end of the month it lands in (java.time's plusMonths:
// 2020-01-31 + 1 month is 2020-02-29); ok is false beyond the int32 range.
func AddMonthsToDays(days int32, months int64) (int32, bool) {
	t := time.Unix(int64(days)*86400, 0).UTC()
	y, m, d := t.Date()
	total := int64(y)*12 + int64(m-1) + months
	if total/12 > math.MaxInt32/366 || total/12 < -math.MaxInt32/366 {
		return 0, false
	}
	ny, nm := int(floorDiv(total, 12)), int(total-floorDiv(total, 12)*12)+1
	if dm := daysIn(ny, nm); d > dm {
		d = dm
	}
	out, ok := CivilDays(ny, nm, d)
	return out, ok
}

// IntervalText is element i (not null) of an interval array as its ANSI
// text (CAST(… AS STRING), show()): `INTERVAL '3' DAY`, `INTERVAL '1-2'
// YEAR TO MONTH`, `1 years 2 days`; ok is false for other arrays.
func IntervalText(arr arrow.Array, i int) (string, bool) {
	switch a := arr.(type) {
	case *array.Duration:
		s, e, _ := DayTimeFields(a.DataType())
		return FormatDayTimeInterval(int64(a.Value(i)), s, e), true
	case *array.MonthInterval:
		s, e, _ := YearMonthFields(a.DataType())
		return FormatYearMonthInterval(int32(a.Value(i)), s, e), true
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return FormatCalendarInterval(v.Months, v.Days, v.Nanoseconds/1000), true
	}
	return "", false
}
