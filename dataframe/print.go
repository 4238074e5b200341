package dataframe

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/mattn/go-runewidth"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// TableOptions tune WriteTable.
type TableOptions struct {
	// MaxRows is the number of rows shown; a negative value shows them all.
	// Defaults to 20 (when 0), as Spark's show().
	MaxRows int
	// Truncate is the widest a cell may be, in characters; longer cells are
	// cut and end with "...". 0 means no truncation, and then cells are
	// left-aligned as in Spark's show(truncate = false). The CLI uses 20.
	// Defaults to 0.
	Truncate int
	// Location is the time zone timestamps are shown in, as Spark shows
	// them in the session time zone (sluice sql passes
	// spark.sql.session.timeZone). Defaults to UTC (when nil).
	Location *time.Location
}

// WriteTable prints f the way Spark's Dataset.show does: a +---+ bordered
// grid, the column names as header, cells right-aligned (left-aligned
// without truncation), null as "null", and an "only showing top N rows" line
// when rows were cut.
//
// Nested cells print as Spark prints them, not as JSON: a list as
// "[a, b, null]", a struct as "{x, 1}" (values only, in field order), a map
// as "{k -> v}". Doubles print like Java ("1.0", "1.0E10"), timestamps as
// "2006-01-02 15:04:05" in o.Location, UTC by default (with a fraction when there is one), binary
// as "[0A FF]". Control characters in strings are escaped ("\n") so a cell
// stays on one line.
func WriteTable(w io.Writer, f *Frame, o TableOptions) error {
	maxRows := o.MaxRows
	if maxRows == 0 {
		maxRows = 20
	}
	shown := f.NumRows()
	if maxRows > 0 && int64(maxRows) < shown {
		shown = int64(maxRows)
	}
	names := f.ColumnNames()
	ncol := len(names)
	rows := make([][]string, 0, shown+1)
	header := make([]string, ncol)
	for c, n := range names {
		header[c] = TruncateCell(escapeMeta(n), o.Truncate)
	}
	rows = append(rows, header)
	var sb strings.Builder
	for _, rec := range f.Records() {
		if int64(len(rows)-1) >= shown {
			break
		}
		n := int(rec.NumRows())
		for i := 0; i < n && int64(len(rows)-1) < shown; i++ {
			row := make([]string, ncol)
			for c := 0; c < ncol; c++ {
				sb.Reset()
				writeSparkCell(&sb, rec.Column(c), i, o.Location)
				row[c] = TruncateCell(sb.String(), o.Truncate)
			}
			rows = append(rows, row)
		}
	}

	widths := make([]int, ncol)
	for c := range widths {
		widths[c] = 3 // Spark's minimum column width
	}
	for _, row := range rows {
		for c, cell := range row {
			if wd := runewidth.StringWidth(cell); wd > widths[c] {
				widths[c] = wd
			}
		}
	}

	bw := bufio.NewWriter(w)
	sep := make([]byte, 0, 64)
	sep = append(sep, '+')
	for _, wd := range widths {
		sep = append(sep, strings.Repeat("-", wd)...)
		sep = append(sep, '+')
	}
	sep = append(sep, '\n')
	writeRow := func(row []string) {
		bw.WriteByte('|')
		for c, cell := range row {
			pad := strings.Repeat(" ", widths[c]-runewidth.StringWidth(cell))
			if o.Truncate > 0 {
				bw.WriteString(pad)
				bw.WriteString(cell)
			} else {
				bw.WriteString(cell)
				bw.WriteString(pad)
			}
			bw.WriteByte('|')
		}
		bw.WriteByte('\n')
	}
	bw.Write(sep)
	writeRow(rows[0])
	bw.Write(sep)
	for _, row := range rows[1:] {
		writeRow(row)
	}
	bw.Write(sep)
	if shown < f.NumRows() {
		word := "rows"
		if shown == 1 {
			word = "row"
		}
		bw.WriteString("only showing top " + strconv.FormatInt(shown, 10) + " " + word + "\n")
	}
	return bw.Flush()
}

// TruncateCell cuts s to width characters as Spark's show() does: the last
// three become "..." unless width is under 4.
func TruncateCell(s string, width int) string {
	if width <= 0 || len(s) <= width {
		return s
	}
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width < 4 {
		return string(r[:width])
	}
	return string(r[:width-3]) + "..."
}

// escapeMeta escapes the characters that would break the grid, as Spark's
// SchemaUtils.escapeMetaCharacters.
func escapeMeta(s string) string { return sparktype.EscapeName(s) }

// writeSparkCell writes cell i of arr as Spark's show() renders it; nulls,
// also inside nested values, print as "null".
func writeSparkCell(sb *strings.Builder, arr arrow.Array, i int, loc *time.Location) {
	if IsNull(arr, i) {
		sb.WriteString("null")
		return
	}
	switch a := arr.(type) {
	case *array.String:
		sb.WriteString(escapeMeta(a.Value(i)))
	case *array.LargeString:
		sb.WriteString(escapeMeta(a.Value(i)))
	case *array.StringView:
		sb.WriteString(escapeMeta(a.Value(i)))
	case *array.Float64:
		sb.WriteString(javaDouble(a.Value(i), 64))
	case *array.Float32:
		sb.WriteString(javaDouble(float64(a.Value(i)), 32))
	case *array.Float16:
		sb.WriteString(javaDouble(float64(a.Value(i).Float32()), 32))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		t := a.Value(i).ToTime(tt.Unit).UTC()
		if loc != nil && tt.TimeZone != "" { // timestamp_ntz: as stored
			t = t.In(loc)
		}
		sb.WriteString(t.Format("2006-01-02 15:04:05.999999999"))
	case *array.Date32:
		sb.WriteString(a.Value(i).ToTime().UTC().Format("2006-01-02"))
	case *array.Duration, *array.MonthInterval, *array.MonthDayNanoInterval:
		s, _ := sparktype.IntervalText(arr, i) // docs/sql.md#intervals
		sb.WriteString(s)
	case *array.Date64:
		sb.WriteString(a.Value(i).ToTime().UTC().Format("2006-01-02"))
	case *array.Binary:
		writeSparkBinary(sb, a.Value(i))
	case *array.LargeBinary:
		writeSparkBinary(sb, a.Value(i))
	case *array.FixedSizeBinary:
		writeSparkBinary(sb, a.Value(i))
	case *array.Struct:
		sb.WriteByte('{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				sb.WriteString(", ")
			}
			writeSparkCell(sb, a.Field(k), i, loc)
		}
		sb.WriteByte('}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		sb.WriteByte('{')
		for j := start; j < end; j++ {
			if j > start {
				sb.WriteString(", ")
			}
			writeSparkCell(sb, keys, int(j), loc)
			sb.WriteString(" -> ")
			writeSparkCell(sb, items, int(j), loc)
		}
		sb.WriteByte('}')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		sb.WriteByte('[')
		for j := start; j < end; j++ {
			if j > start {
				sb.WriteString(", ")
			}
			writeSparkCell(sb, vals, int(j), loc)
		}
		sb.WriteByte(']')
	case *array.Decimal128, *array.Decimal256:
		var buf [80]byte
		sb.Write(appendDecimal(buf[:0], a, i)) // with its scale: 19.90
	case *array.Dictionary:
		writeSparkCell(sb, a.Dictionary(), a.GetValueIndex(i), loc)
	default:
		// Integers, booleans: Arrow's text is Spark's.
		sb.WriteString(escapeMeta(arr.ValueStr(i)))
	}
}

func writeSparkBinary(sb *strings.Builder, b []byte) {
	const hex = "0123456789ABCDEF"
	sb.WriteByte('[')
	for k, c := range b {
		if k > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&0xf])
	}
	sb.WriteByte(']')
}

// javaDouble formats f as Java's Double.toString (and so Spark) does:
// "1.0", "0.001", "1.0E7", "1.234E-5", "NaN", "Infinity".
func javaDouble(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits) // 1.5E+07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}
