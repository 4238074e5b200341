package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Window functions (docs/sql.md#window-functions): the analyser gathers a
// SELECT block's `f(…) OVER (…)` calls (window_analyze.go), one lWindow node
// per distinct PARTITION BY + ORDER BY computes them between HAVING and the
// projection, and its operator (window_exec.go) sorts its input by
// partition then order keys and evaluates one run of whole partitions at a
// time.

// winOrder is one ORDER BY key of a window, over the window's input.
type winOrder struct {
	x          rex
	desc       bool
	nullsFirst bool
}

// Window function kinds: the ranking functions by their own name, lag and
// lead as "offset", nth_value/first_value/last_value (and first, last,
// any_value over a window) as "nth", every other aggregate as "agg".
const (
	wRowNumber   = "row_number"
	wRank        = "rank"
	wDenseRank   = "dense_rank"
	wPercentRank = "percent_rank"
	wCumeDist    = "cume_dist"
	wNtile       = "ntile"
	wOffset      = "offset"
	wNth         = "nth"
	wAgg         = "agg"
)

// winBound is one end of a frame.
type winBound struct {
	kind string // UnboundedPreceding, CurrentRow, UnboundedFollowing, or "value"
	// off is a ROWS frame's offset in rows (preceding negative).
	off int64
	// val is a RANGE frame's bound for each row: the order key moved by
	// the offset (toward the start for PRECEDING), over the window's
	// input.
	val rex
	sql string // as Spark prints it: "1 PRECEDING", "-1 FOLLOWING"
}

// winFrame is the rows of a partition a function sees for each row.
type winFrame struct {
	rows   bool // ROWS; false: RANGE
	lo, hi winBound
}

func (f winFrame) sql() string {
	kind := "RANGE"
	if f.rows {
		kind = "ROWS"
	}
	return kind + " BETWEEN " + f.lo.sql + " AND " + f.hi.sql
}

func (f winFrame) equal(g winFrame) bool {
	return f.rows == g.rows && f.lo.sql == g.lo.sql && f.hi.sql == g.hi.sql
}

// wholePartition says whether every row's frame is its whole partition.
func (f winFrame) wholePartition(ordered bool) bool {
	if f.lo.kind != UnboundedPreceding {
		return false
	}
	return f.hi.kind == UnboundedFollowing || !f.rows && !ordered && f.hi.kind == CurrentRow
}

func boundOf(kind string) winBound { return winBound{kind: kind, sql: kind} }

// winFunc is one window function call.
type winFunc struct {
	kind string
	agg  *aggCall // wAgg: the aggregate computed over each row's frame
	// args: offset functions: the value and the default; nth: the value.
	args []rex
	// n: ntile's buckets; an offset function's offset in rows (lag
	// negative); nth_value's position (from 1).
	n           int64
	ignoreNulls bool
	fromEnd     bool // last_value: the n-th row from the frame's end
	frame       winFrame
	typ         arrow.DataType
	name        string // the generated column name
}

// exprs are every expression f reads, in a fixed order.
func (f *winFunc) exprs() []rex {
	var out []rex
	if f.agg != nil {
		out = append(out, f.agg.args...)
	}
	out = append(out, f.args...)
	for _, b := range []winBound{f.frame.lo, f.frame.hi} {
		if b.val != nil {
			out = append(out, b.val)
		}
	}
	return out
}

// withExprs is a copy of f over new expressions (the order of exprs).
func (f *winFunc) withExprs(xs []rex) *winFunc {
	c := *f
	if f.agg != nil {
		a := *f.agg
		a.args = append([]rex(nil), xs[:len(a.args)]...)
		xs = xs[len(a.args):]
		c.agg = &a
	}
	c.args = append([]rex(nil), xs[:len(f.args)]...)
	xs = xs[len(f.args):]
	if c.frame.lo.val != nil {
		c.frame.lo.val, xs = xs[0], xs[1:]
	}
	if c.frame.hi.val != nil {
		c.frame.hi.val = xs[0]
	}
	return &c
}

// mapExprs is f with every expression mapped by m.
func (f *winFunc) mapExprs(m func(rex) (rex, error)) (*winFunc, error) {
	xs := f.exprs()
	for i, x := range xs {
		y, err := m(x)
		if err != nil {
			return nil, err
		}
		xs[i] = y
	}
	return f.withExprs(xs), nil
}

// lWindow computes window functions over one window: its output is its
// input's columns, then one column per function.
type lWindow struct {
	in    lnode
	part  []rex
	order []winOrder
	funcs []*winFunc
}

func (n *lWindow) fields() []field {
	out := append([]field(nil), n.in.fields()...)
	for _, f := range n.funcs {
		out = append(out, field{f.name, f.typ})
	}
	return out
}
func (n *lWindow) inputs() []lnode { return []lnode{n.in} }
func (n *lWindow) withInputs(in []lnode) lnode {
	c := *n
	c.in = in[0]
	return &c
}
func (n *lWindow) describe() string {
	s := "Window"
	if len(n.part) > 0 {
		s += " partition by " + sqlList(n.part)
	}
	if len(n.order) > 0 {
		s += " order by " + winOrderSQL(n.order)
	}
	names := make([]string, len(n.funcs))
	for i, f := range n.funcs {
		names[i] = f.name
	}
	return s + ": " + strings.Join(names, ", ")
}

// specSQL is a window's `(PARTITION BY … ORDER BY … frame)` as Spark prints
// it.
func specSQL(part []rex, order []winOrder, frame winFrame) string {
	var parts []string
	if len(part) > 0 {
		parts = append(parts, "PARTITION BY "+sqlList(part))
	}
	if len(order) > 0 {
		parts = append(parts, "ORDER BY "+winOrderSQL(order))
	}
	parts = append(parts, frame.sql())
	return "(" + strings.Join(parts, " ") + ")"
}

func winOrderSQL(order []winOrder) string {
	s := make([]string, len(order))
	for i, o := range order {
		s[i] = o.x.sql()
		if o.desc {
			s[i] += " DESC"
		} else {
			s[i] += " ASC"
		}
		if o.nullsFirst {
			s[i] += " NULLS FIRST"
		} else {
			s[i] += " NULLS LAST"
		}
	}
	return strings.Join(s, ", ")
}

// rWin stands for window function i of the block being analysed, until the
// block's plan puts the window's output column in its place.
type rWin struct {
	i    int
	t    arrow.DataType
	name string
}

func (e *rWin) Type() arrow.DataType { return e.t }
func (e *rWin) sql() string          { return e.name }
func (e *rWin) kids() []rex          { return nil }
func (e *rWin) with([]rex) rex       { c := *e; return &c }

// winKey identifies a window function call for deduplication.
func winKey(part []rex, order []winOrder, f *winFunc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%d|%v|%v", f.name, f.kind, f.n, f.ignoreNulls, f.fromEnd)
	for _, x := range part {
		b.WriteString("|" + rexKey(x))
	}
	for _, o := range order {
		fmt.Fprintf(&b, "|%s:%v:%v", rexKey(o.x), o.desc, o.nullsFirst)
	}
	for _, x := range f.exprs() {
		b.WriteString("|" + rexKey(x))
	}
	return b.String()
}
