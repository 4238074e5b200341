package catalog_test

// How Spark's golden files print a result (see docs/sql.md#spark-compatibility):
// the schema as StructType.catalogString and each row as
// HiveResult.hiveResultString does, columns joined by a tab. These
// functions print a Sluice frame the same way so the two can be compared
// as text.

import (
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// sparkSchemaString is a frame's schema as a golden file's
// `-- !query schema` line prints it.
func sparkSchemaString(s *arrow.Schema) string {
	return sparktype.CatalogString(arrow.StructOf(s.Fields()...))
}

// hiveRows prints every row of f as Spark's hiveResultString does, with
// timestamps shown in loc (the session time zone).
func hiveRows(f *dataframe.Frame, loc *time.Location) []string {
	var rows []string
	for _, rec := range f.Records() {
		cols := rec.Columns()
		for i := 0; i < int(rec.NumRows()); i++ {
			var b strings.Builder
			for c, col := range cols {
				if c > 0 {
					b.WriteByte('\t')
				}
				writeHive(&b, col, i, false, loc)
			}
			rows = append(rows, b.String())
		}
	}
	return rows
}

// writeHive is HiveResult.toHiveString for one value: NULL at the top,
// null inside a collection; strings quoted only when nested; map entries
// sorted as text.
func writeHive(b *strings.Builder, arr arrow.Array, i int, nested bool, loc *time.Location) {
	if arr.IsNull(i) {
		if nested {
			b.WriteString("null")
		} else {
			b.WriteString("NULL")
		}
		return
	}
	switch a := arr.(type) {
	case *array.Null:
		if nested {
			b.WriteString("null")
		} else {
			b.WriteString("NULL")
		}
	case *array.Boolean:
		b.WriteString(strconv.FormatBool(a.Value(i)))
	case *array.Int8:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int16:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int32:
		b.WriteString(strconv.FormatInt(int64(a.Value(i)), 10))
	case *array.Int64:
		b.WriteString(strconv.FormatInt(a.Value(i), 10))
	case *array.Uint8:
		b.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint16:
		b.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint32:
		b.WriteString(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint64:
		b.WriteString(strconv.FormatUint(a.Value(i), 10))
	case *array.Float16:
		b.WriteString(dataframe.JavaDouble(float64(a.Value(i).Float32()), 32))
	case *array.Float32:
		b.WriteString(dataframe.JavaDouble(float64(a.Value(i)), 32))
	case *array.Float64:
		b.WriteString(dataframe.JavaDouble(a.Value(i), 64))
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		b.WriteString(plainDecimal(a.Value(i).BigInt(), scale))
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		b.WriteString(plainDecimal(a.Value(i).BigInt(), scale))
	case *array.String:
		writeHiveString(b, a.Value(i), nested)
	case *array.LargeString:
		writeHiveString(b, a.Value(i), nested)
	case *array.StringView:
		writeHiveString(b, a.Value(i), nested)
	case *array.Binary:
		b.WriteString(javaUTF8String(a.Value(i)))
	case *array.LargeBinary:
		b.WriteString(javaUTF8String(a.Value(i)))
	case *array.FixedSizeBinary:
		b.WriteString(javaUTF8String(a.Value(i)))
	case *array.BinaryView:
		b.WriteString(javaUTF8String(a.Value(i)))
	case *array.Date32:
		b.WriteString(sparkDate(time.Unix(int64(a.Value(i))*86400, 0).UTC()))
	case *array.Date64:
		b.WriteString(sparkDate(time.UnixMilli(int64(a.Value(i))).UTC()))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		t := timestampOf(int64(a.Value(i)), tt.Unit)
		if tt.TimeZone == "" { // timestamp_ntz: the wall clock as stored
			b.WriteString(sparkTimestamp(t.UTC()))
		} else {
			b.WriteString(sparkTimestamp(t.In(loc)))
		}
	case *array.Duration: // a day-time interval
		b.WriteString(sparktype.HiveDayTimeInterval(int64(a.Value(i))))
	case *array.MonthInterval: // a year-month interval
		b.WriteString(sparktype.HiveYearMonthInterval(int32(a.Value(i))))
	case *array.MonthDayNanoInterval: // a calendar interval
		v := a.Value(i)
		b.WriteString(sparktype.FormatCalendarInterval(v.Months, v.Days, v.Nanoseconds/1000))
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		b.WriteByte('{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(st.Field(f).Name)
			b.WriteString(`":`)
			writeHive(b, a.Field(f), i, true, loc)
		}
		b.WriteByte('}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		entries := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			var e strings.Builder
			writeHive(&e, keys, int(j), true, loc)
			e.WriteByte(':')
			writeHive(&e, items, int(j), true, loc)
			entries = append(entries, e.String())
		}
		sort.Slice(entries, func(x, y int) bool { return sparktype.Compare(entries[x], entries[y]) < 0 })
		b.WriteByte('{')
		b.WriteString(strings.Join(entries, ","))
		b.WriteByte('}')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		b.WriteByte('[')
		for j := start; j < end; j++ {
			if j > start {
				b.WriteByte(',')
			}
			writeHive(b, vals, int(j), true, loc)
		}
		b.WriteByte(']')
	case *array.Dictionary:
		writeHive(b, a.Dictionary(), a.GetValueIndex(i), nested, loc)
	default:
		b.WriteString(arr.ValueStr(i))
	}
}

func writeHiveString(b *strings.Builder, s string, nested bool) {
	if nested {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	b.WriteString(s)
}

// javaUTF8String is Java's new String(bytes, UTF_8): each byte that is
// not part of a valid sequence becomes U+FFFD. Spark 3.5 prints binary
// values that way.
func javaUTF8String(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	var b strings.Builder
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune(utf8.RuneError)
			p = p[1:]
			continue
		}
		b.Write(p[:n])
		p = p[n:]
	}
	return b.String()
}

func timestampOf(v int64, unit arrow.TimeUnit) time.Time {
	switch unit {
	case arrow.Second:
		return time.Unix(v, 0)
	case arrow.Millisecond:
		return time.UnixMilli(v)
	case arrow.Microsecond:
		return time.UnixMicro(v)
	default:
		return time.Unix(0, v)
	}
}

func sparkDate(t time.Time) string {
	return sparkYear(t.Year()) + t.Format("-01-02")
}

// sparkTimestamp is Spark's default timestamp text: seconds always, the
// fraction only as far as it is not zero.
func sparkTimestamp(t time.Time) string {
	s := sparkYear(t.Year()) + t.Format("-01-02 15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		frac := strings.TrimRight(strconv.Itoa(1_000_000_000 + ns)[1:], "0")
		s += "." + frac
	}
	return s
}

func sparkYear(y int) string {
	switch {
	case y > 9999:
		return "+" + strconv.Itoa(y)
	case y < 0:
		return "-" + leftPad(strconv.Itoa(-y), 4)
	}
	return leftPad(strconv.Itoa(y), 4)
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// plainDecimal is BigDecimal.toPlainString of unscaled × 10^-scale.
func plainDecimal(unscaled *big.Int, scale int32) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if scale <= 0 {
		if unscaled.Sign() != 0 {
			digits += strings.Repeat("0", int(-scale))
		}
	} else {
		if len(digits) <= int(scale) {
			digits = strings.Repeat("0", int(scale)-len(digits)+1) + digits
		}
		cut := len(digits) - int(scale)
		digits = digits[:cut] + "." + digits[cut:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}
