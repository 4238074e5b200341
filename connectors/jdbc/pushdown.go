package jdbc

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sluicedata/sluice/dataframe/scan"
)

// where translates a query's filters (scan.Expr) into the dialect's SQL
// with bound arguments. It translates only what the database evaluates
// exactly as Spark does (docs/jdbc.md#pushdown): comparisons between
// columns and literals of one type family, strings compared byte by byte,
// NULL's three-valued logic, which SQL shares.
type where struct {
	d    dialect
	cols []column
	args []any
}

// arg binds v and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return w.d.param(len(w.args))
}

func (w *where) column(name string) (column, bool) {
	for _, c := range w.cols {
		if c.Name == name {
			return c, true
		}
	}
	var found column
	n := 0
	for _, c := range w.cols {
		if strings.EqualFold(c.Name, name) {
			found, n = c, n+1
		}
	}
	return found, n == 1
}

// translate returns the SQL of e, or false when it is not exact in the
// database; the arguments bound by a failed translation are dropped.
func (w *where) translate(e scan.Expr) (string, bool) {
	mark := len(w.args)
	s, ok := w.expr(e)
	if !ok {
		w.args = w.args[:mark]
	}
	return s, ok
}

func (w *where) expr(e scan.Expr) (string, bool) {
	switch x := e.(type) {
	case scan.Column:
		c, ok := w.column(x.Name)
		if !ok || c.Spark != "boolean" {
			return "", false
		}
		return w.d.exactOperand(w.d.quote(c.Name), c)
	case scan.Compare:
		return w.compare(x)
	case scan.In:
		col, ok := x.Expr.(scan.Column)
		if !ok || len(x.List) == 0 {
			return "", false
		}
		c, op, ok := w.operand(col)
		if !ok {
			return "", false
		}
		parts := make([]string, len(x.List))
		for i, l := range x.List {
			p, ok := w.literal(l, c)
			if !ok {
				return "", false
			}
			parts[i] = p
		}
		not := ""
		if x.Not {
			not = "NOT "
		}
		return fmt.Sprintf("(%s %sIN (%s))", op, not, strings.Join(parts, ", ")), true
	case scan.IsNull:
		col, ok := x.Expr.(scan.Column)
		if !ok {
			return "", false
		}
		c, ok := w.column(col.Name)
		if !ok {
			return "", false
		}
		if x.Not {
			return "(" + w.d.quote(c.Name) + " IS NOT NULL)", true
		}
		return "(" + w.d.quote(c.Name) + " IS NULL)", true
	case scan.Between:
		col, ok := x.Expr.(scan.Column)
		lo, ok1 := x.Lo.(scan.Literal)
		hi, ok2 := x.Hi.(scan.Literal)
		if !ok || !ok1 || !ok2 {
			return "", false
		}
		c, op, ok := w.operand(col)
		if !ok {
			return "", false
		}
		l, ok1 := w.literal(lo, c)
		if !ok1 {
			return "", false
		}
		h, ok2 := w.literal(hi, c)
		if !ok2 {
			return "", false
		}
		not := ""
		if x.Not {
			not = "NOT "
		}
		return fmt.Sprintf("(%s %sBETWEEN %s AND %s)", op, not, l, h), true
	case scan.And:
		return w.binary("AND", x.Left, x.Right)
	case scan.Or:
		return w.binary("OR", x.Left, x.Right)
	case scan.Not:
		s, ok := w.expr(x.Expr)
		if !ok {
			return "", false
		}
		return "(NOT " + s + ")", true
	}
	return "", false
}

func (w *where) binary(op string, l, r scan.Expr) (string, bool) {
	a, ok := w.expr(l)
	if !ok {
		return "", false
	}
	b, ok := w.expr(r)
	if !ok {
		return "", false
	}
	return "(" + a + " " + op + " " + b + ")", true
}

var compareOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "<=>": true}

func (w *where) compare(x scan.Compare) (string, bool) {
	if !compareOps[x.Op] {
		return "", false
	}
	op := x.Op
	if op == "<=>" {
		op = w.d.nullSafeEqual()
	}
	lc, lIsCol := x.Left.(scan.Column)
	rc, rIsCol := x.Right.(scan.Column)
	switch {
	case lIsCol && rIsCol:
		a, la, ok1 := w.operand(lc)
		b, lb, ok2 := w.operand(rc)
		if !ok1 || !ok2 || family(a.Spark) != family(b.Spark) || family(a.Spark) == "" {
			return "", false
		}
		return "(" + la + " " + op + " " + lb + ")", true
	case lIsCol:
		lit, ok := x.Right.(scan.Literal)
		if !ok {
			return "", false
		}
		c, col, ok := w.operand(lc)
		if !ok {
			return "", false
		}
		p, ok := w.literal(lit, c)
		if !ok {
			return "", false
		}
		return "(" + col + " " + op + " " + p + ")", true
	case rIsCol:
		lit, ok := x.Left.(scan.Literal)
		if !ok {
			return "", false
		}
		c, col, ok := w.operand(rc)
		if !ok {
			return "", false
		}
		p, ok := w.literal(lit, c)
		if !ok {
			return "", false
		}
		return "(" + p + " " + op + " " + col + ")", true
	}
	return "", false
}

// operand is a column as a comparison operand.
func (w *where) operand(col scan.Column) (column, string, bool) {
	c, ok := w.column(col.Name)
	if !ok || family(c.Spark) == "" {
		return column{}, "", false
	}
	s, ok := w.d.exactOperand(w.d.quote(c.Name), c)
	return c, s, ok
}

// family groups the Spark types that compare with each other exactly in
// both Spark and the database.
func family(spark string) string {
	switch spark {
	case "byte", "short", "integer", "long", "float", "double":
		return "number"
	case "string", "binary", "boolean", "date", "timestamp":
		return spark
	}
	if strings.HasPrefix(spark, "decimal(") {
		return "number"
	}
	return ""
}

// literal binds l compared with column c, when their types compare
// exactly.
func (w *where) literal(l scan.Literal, c column) (string, bool) {
	if l.Value == nil {
		return "", false
	}
	lf := family(l.Type)
	if lf == "" && strings.HasPrefix(l.Type, "decimal") {
		lf = "number"
	}
	if lf != family(c.Spark) {
		return "", false
	}
	var v any
	switch x := l.Value.(type) {
	case int64:
		v = x
	case int32:
		v = int64(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		v = x
	case string:
		if strings.HasPrefix(l.Type, "decimal") {
			if _, scale, ok := splitDecimal(x); !ok || scale > 30 {
				return "", false
			}
			w.args = append(w.args, x)
			return w.d.decimalParam(len(w.args)), true
		}
		if l.Type != "string" {
			return "", false
		}
		v = x
	case bool:
		v = x
	case []byte:
		v = x
	case time.Time:
		if l.Type == "date" {
			v = time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, time.UTC)
		} else {
			v = x.UTC()
		}
	default:
		return "", false
	}
	w.args = append(w.args, v)
	return w.d.typedParam(len(w.args), v, c), true
}

// splitDecimal checks decimal text and returns its scale.
func splitDecimal(s string) (string, int, bool) {
	_, scale, ok := cellsDecimal(s)
	return s, scale, ok
}

// orderBy is the ORDER BY list of a top-N (docs/jdbc.md#pushdown), or
// false when a key's column does not sort in the database exactly as Spark
// sorts it: only columns whose comparisons are pushed (numbers, strings and
// binaries byte by byte, booleans, dates, timestamps), which the dialect
// orders by the same operand, with NULLs placed as the key says.
func orderBy(d dialect, cols []column, keys []scan.SortKey) (string, bool) {
	w := &where{d: d, cols: cols}
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		c, ok := w.column(k.Column)
		if !ok || family(c.Spark) == "" {
			return "", false
		}
		op, ok := d.orderOperand(d.quote(c.Name), c)
		if !ok {
			return "", false
		}
		parts = append(parts, d.orderKey(op, c.Nullable, k.Desc, k.NullsFirst))
	}
	return strings.Join(parts, ", "), true
}
