package fn

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// castToInterval is CAST(x AS interval …) (docs/sql.md#intervals): another
// interval of the same kind keeps its value; a string reads as the type's
// own form ('1 02:03:04' for day to second, '1-2' for year to month) or its
// full literal (INTERVAL '1-2' YEAR TO MONTH). Text that is neither is
// NULL, as Spark with ANSI off.
func castToInterval(mem memory.Allocator, arr arrow.Array, to arrow.DataType) (arrow.Array, error) {
	if arr.DataType().ID() == to.ID() {
		d := array.NewData(to, arr.Len(), arr.Data().Buffers(), nil, arr.NullN(), arr.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	strs, ok := arr.(*array.String)
	if !ok {
		return nil, fmt.Errorf("cannot cast %s to %s", sparktype.Name(arr.DataType()), sparktype.Name(to))
	}
	n := arr.Len()
	if to.ID() == arrow.INTERVAL_MONTHS {
		b := array.NewMonthIntervalBuilder(mem)
		defer b.Release()
		for i := 0; i < n; i++ {
			if strs.IsNull(i) {
				b.AppendNull()
				continue
			}
			text := intervalBody(strs.Value(i), "YEAR TO MONTH")
			m, err := sparktype.ParseYearMonthInterval(text)
			if err != nil {
				b.AppendNull()
				continue
			}
			b.Append(arrow.MonthInterval(m))
		}
		out := b.NewArray()
		defer out.Release()
		return castToInterval(mem, out, to) // the column's own type
	}
	s, e, _ := sparktype.DayTimeFields(to)
	unit := sparktype.FieldName(true, s)
	if e != s {
		unit += " TO " + sparktype.FieldName(true, e)
	}
	b := array.NewDurationBuilder(mem, to.(*arrow.DurationType))
	defer b.Release()
	for i := 0; i < n; i++ {
		if strs.IsNull(i) {
			b.AppendNull()
			continue
		}
		us, err := sparktype.ParseDayTimeInterval(intervalBody(strs.Value(i), unit), s, e)
		if err != nil {
			b.AppendNull()
			continue
		}
		b.Append(arrow.Duration(us))
	}
	return b.NewArray(), nil
}

// intervalBody is the quoted text of `INTERVAL [+|-]'text' unit` when s is
// that literal for unit, else s.
func intervalBody(s, unit string) string {
	t := strings.TrimSpace(s)
	up := strings.ToUpper(t)
	if !strings.HasPrefix(up, "INTERVAL") || !strings.HasSuffix(up, " "+unit) {
		return s
	}
	body := strings.TrimSpace(t[len("INTERVAL") : len(t)-len(unit)])
	neg := false
	if strings.HasPrefix(body, "-") || strings.HasPrefix(body, "+") {
		neg, body = body[0] == '-', strings.TrimSpace(body[1:])
	}
	if len(body) < 2 || body[0] != '\'' || body[len(body)-1] != '\'' {
		return s
	}
	body = body[1 : len(body)-1]
	if neg {
		if strings.HasPrefix(body, "-") {
			return body[1:]
		}
		return "-" + strings.TrimPrefix(body, "+")
	}
	return body
}
