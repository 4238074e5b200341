package query

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// ectx is what evaluating a compiled expression needs.
type ectx struct {
	mem  memory.Allocator
	fctx *fn.Ctx
}

// cexpr is a compiled expression: a closure from a record batch to one
// result array. The caller releases the result.
type cexpr struct {
	typ   arrow.DataType
	eval  func(c *ectx, rec arrow.Record) (arrow.Array, error)
	konst bool
	val   any // the value when konst
	src   Expr
	col   int // 1 + the input column it is, unchanged; 0 for other expressions
}

// scol is one column visible to expressions: its name and the qualifiers
// (table name, alias, ns.table) that may prefix it.
type scol struct {
	quals  []string
	name   string
	typ    arrow.DataType
	hidden bool // not part of SELECT * (the right side's USING columns)
}

type scope struct{ cols []scol }

func (s *scope) names() []string {
	out := make([]string, 0, len(s.cols))
	for _, c := range s.cols {
		out = append(out, c.name)
	}
	return out
}

// resolve finds the column a path starts with: qualified (`t.a`, `ns.t.a`)
// first, then bare. It returns the column and the struct fields after it.
func (s *scope) resolve(path []string, pos Pos) (int, []string, error) {
	for k := min(2, len(path)-1); k >= 1; k-- {
		qual := strings.Join(path[:k], ".")
		found := -1
		for i, c := range s.cols {
			if strings.EqualFold(c.name, path[k]) && hasQual(c.quals, qual) {
				if found >= 0 {
					return 0, nil, errorf(pos, "column %s is ambiguous", strings.Join(path[:k+1], "."))
				}
				found = i
			}
		}
		if found >= 0 {
			return found, path[k+1:], nil
		}
	}
	found := -1
	var quals []string
	for i, c := range s.cols {
		if strings.EqualFold(c.name, path[0]) {
			if found >= 0 && !c.hidden && !s.cols[found].hidden {
				return 0, nil, errorf(pos, "column %s is ambiguous (it is in %s and %s); qualify it", path[0], qualName(s.cols[found]), qualName(c))
			}
			if found < 0 || s.cols[found].hidden {
				found = i
			}
			quals = append(quals, c.quals...)
		}
	}
	if found < 0 {
		return 0, nil, errorf(pos, "unknown column %s%s", strings.Join(path, "."), didYouMean(path[len(path)-1], s.names()))
	}
	return found, path[1:], nil
}

func qualName(c scol) string {
	if len(c.quals) > 0 {
		return c.quals[0] + "." + c.name
	}
	return c.name
}

func hasQual(quals []string, q string) bool {
	for _, x := range quals {
		if strings.EqualFold(x, q) {
			return true
		}
	}
	return false
}

// compiler turns expressions into closures over one input scope.
type compiler struct {
	sc  *scope
	now time.Time
	// subst maps expressions computed by an aggregation below (group keys
	// and aggregate calls) to columns of sc; with grouped set, any other
	// column reference is an error.
	subst   map[string]int
	grouped bool
	inner   *scope // the scope below the aggregation, to resolve keys
	// where names the clause, for "not allowed in WHERE" errors.
	where string
	// aliases are the select list's aliases (lower-case), which HAVING
	// may name as Spark allows (`HAVING n > 1` for `count(*) AS n`).
	aliases map[string]Expr
}

var aggregateNames = map[string]bool{
	"count": true, "sum": true, "avg": true, "mean": true, "min": true, "max": true,
	"collect_list": true, "collect_set": true, "first": true, "last": true,
	"first_value": true, "last_value": true,
}

var generatorNames = map[string]bool{"explode": true, "posexplode": true, "explode_outer": true, "posexplode_outer": true}

func isAggregate(e Expr) bool {
	c, ok := e.(*Call)
	return ok && aggregateNames[strings.ToLower(c.Name)]
}

func isGenerator(e Expr) bool {
	c, ok := e.(*Call)
	return ok && generatorNames[strings.ToLower(c.Name)]
}

// exprKey identifies an expression for matching GROUP BY keys and
// aggregates: columns by what they resolve to, the rest by their text.
func (c *compiler) exprKey(e Expr, sc *scope) string {
	if col, ok := e.(*Column); ok {
		if sc != nil {
			if i, rest, err := sc.resolve(col.Path, col.Pos); err == nil {
				return fmt.Sprintf("#%d.%s", i, strings.ToLower(strings.Join(rest, ".")))
			}
		}
		return strings.ToLower(col.String())
	}
	var b strings.Builder
	walkKey(&b, e, sc, c)
	return b.String()
}

func walkKey(b *strings.Builder, e Expr, sc *scope, c *compiler) {
	// Columns inside larger expressions resolve too, so that `t.k + 1`
	// matches `k + 1`; everything else keys by its SQL text.
	s := e.String()
	if sc != nil {
		s = columnsResolved(e, sc, c)
	}
	b.WriteString(s)
}

func columnsResolved(e Expr, sc *scope, c *compiler) string {
	s := e.String()
	var cols []*Column
	visit(e, func(x Expr) bool {
		if col, ok := x.(*Column); ok {
			cols = append(cols, col)
		}
		return true
	})
	for _, col := range cols {
		s = strings.Replace(s, col.String(), c.exprKey(col, sc), 1)
	}
	return s
}

// visit calls f on e and its sub-expressions (depth first) while f
// returns true.
func visit(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch x := e.(type) {
	case *Binary:
		visit(x.L, f)
		visit(x.R, f)
	case *Unary:
		visit(x.X, f)
	case *IsNull:
		visit(x.X, f)
	case *In:
		visit(x.X, f)
		for _, y := range x.List {
			visit(y, f)
		}
	case *Between:
		visit(x.X, f)
		visit(x.Lo, f)
		visit(x.Hi, f)
	case *Like:
		visit(x.X, f)
		visit(x.Pattern, f)
	case *Case:
		visit(x.Operand, f)
		for _, w := range x.Whens {
			visit(w.Cond, f)
			visit(w.Then, f)
		}
		visit(x.Else, f)
	case *Cast:
		visit(x.X, f)
	case *Index:
		visit(x.X, f)
		visit(x.Index, f)
	case *Field:
		visit(x.X, f)
	case *Call:
		for _, y := range x.Args {
			visit(y, f)
		}
	}
}

func (c *compiler) compile(e Expr) (*cexpr, error) {
	if c.subst != nil {
		if i, ok := c.subst[c.exprKey(e, c.inner)]; ok {
			return c.column(i, e), nil
		}
	}
	ce, err := c.compile1(e)
	if err != nil {
		return nil, err
	}
	ce.src = e
	return ce, nil
}

func (c *compiler) column(i int, e Expr) *cexpr {
	return &cexpr{typ: c.sc.cols[i].typ, src: e, col: i + 1, eval: func(_ *ectx, rec arrow.Record) (arrow.Array, error) {
		a := rec.Column(i)
		a.Retain()
		return a, nil
	}}
}

func (c *compiler) compile1(e Expr) (*cexpr, error) {
	switch x := e.(type) {
	case *Literal:
		return literal(x.Value, x.Type), nil
	case *Column:
		if c.grouped {
			if a, ok := c.aliases[strings.ToLower(x.Path[0])]; ok && len(x.Path) == 1 {
				// The alias's expression, without aliases (no recursion).
				inner := *c
				inner.aliases = nil
				return inner.compile(a)
			}
			return nil, errorf(x.Pos, "column %s is neither in GROUP BY nor inside an aggregate function", x)
		}
		i, rest, err := c.sc.resolve(x.Path, x.Pos)
		if err != nil {
			return nil, err
		}
		ce := c.column(i, e)
		for k, f := range rest {
			prefix := &Column{Path: x.Path[:len(x.Path)-len(rest)+k], Pos: x.Pos}
			if ce, err = c.field(ce, f, x.Pos, prefix); err != nil {
				return nil, err
			}
		}
		return ce, nil
	case *Field:
		inner, err := c.compile(x.X)
		if err != nil {
			return nil, err
		}
		return c.field(inner, x.Name, x.Pos, x)
	case *Index:
		return c.index(x)
	case *Unary:
		return c.unary(x)
	case *Binary:
		return c.binary(x)
	case *IsNull:
		in, err := c.compile(x.X)
		if err != nil {
			return nil, err
		}
		return c.fold(&cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				return isNullArray(ec.mem, a, x.Not), nil
			})
		}}, in)
	case *In:
		if len(x.List) == 0 {
			return nil, errorf(x.Pos, "IN needs at least one value")
		}
		var or Expr
		for _, v := range x.List {
			eq := &Binary{Op: "=", L: x.X, R: v, Pos: x.Pos}
			if or == nil {
				or = eq
			} else {
				or = &Binary{Op: "OR", L: or, R: eq, Pos: x.Pos}
			}
		}
		if x.Not {
			or = &Unary{Op: "NOT", X: or, Pos: x.Pos}
		}
		return c.compile(or)
	case *Between:
		var b Expr = &Binary{Op: "AND", L: &Binary{Op: ">=", L: x.X, R: x.Lo, Pos: x.Pos}, R: &Binary{Op: "<=", L: x.X, R: x.Hi, Pos: x.Pos}, Pos: x.Pos}
		if x.Not {
			b = &Unary{Op: "NOT", X: b, Pos: x.Pos}
		}
		return c.compile(b)
	case *Like:
		return c.like(x)
	case *Case:
		return c.caseExpr(x)
	case *Cast:
		in, err := c.compile(x.X)
		if err != nil {
			return nil, err
		}
		return c.cast(in, x.To, x.Pos, x)
	case *Call:
		return c.call(x)
	case *Star:
		return nil, errorf(x.Pos, "* is only allowed in the select list and count(*)")
	}
	return nil, errorf(e.Position(), "%s is not supported", e)
}

// literal is a constant expression.
func literal(v any, dt arrow.DataType) *cexpr {
	if dt == nil {
		dt = arrow.Null
	}
	return &cexpr{typ: dt, konst: true, val: v, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return broadcast(ec.mem, v, dt, int(rec.NumRows()))
	}}
}

var oneRow = arrow.NewSchema(nil, nil)

// fold replaces ce by a constant when every input is constant, evaluating
// it once (on a one-row batch) at compile time.
func (c *compiler) fold(ce *cexpr, inputs ...*cexpr) (*cexpr, error) {
	for _, in := range inputs {
		if !in.konst {
			return ce, nil
		}
	}
	rec := array.NewRecord(oneRow, nil, 1)
	defer rec.Release()
	a, err := ce.eval(&ectx{mem: memory.DefaultAllocator, fctx: &fn.Ctx{Mem: memory.DefaultAllocator, Now: c.now}}, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	v := valueAt(a, 0)
	switch v.(type) {
	case nil, bool, int32, int64, float64, string, time.Time:
		lit := literal(v, ce.typ)
		lit.src = ce.src
		return lit, nil
	}
	return ce, nil // nested constants stay computed
}

func (c *compiler) field(in *cexpr, name string, pos Pos, e Expr) (*cexpr, error) {
	dt := in.typ
	list, isList := dt.(*arrow.ListType)
	if isList {
		dt = list.Elem()
	}
	st, ok := dt.(*arrow.StructType)
	if !ok {
		return nil, errorf(pos, "cannot take field %s of %s: it is %s, not a struct", name, e, typeName(in.typ))
	}
	k := -1
	for i, f := range st.Fields() {
		if strings.EqualFold(f.Name, name) {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, errorf(pos, "%s has no field %s%s", e, name, didYouMean(name, fieldNames(st.Fields())))
	}
	ft := st.Field(k).Type
	if isList {
		lt := arrow.ListOf(ft)
		return &cexpr{typ: lt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				l := a.(*array.List)
				vals := l.ListValues().(*array.Struct)
				child := withValidity(ec.mem, vals.Field(k), andValidity(ec.mem, vals.Len(), vals))
				defer child.Release()
				d := l.Data()
				nd := array.NewData(lt, l.Len(), d.Buffers(), []arrow.ArrayData{child.Data()}, l.NullN(), d.Offset())
				defer nd.Release()
				return array.MakeFromData(nd), nil
			})
		}}, nil
	}
	return &cexpr{typ: ft, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			s := a.(*array.Struct)
			return withValidity(ec.mem, s.Field(k), andValidity(ec.mem, s.Len(), s)), nil
		})
	}}, nil
}

func fieldNames(fs []arrow.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func (c *compiler) index(x *Index) (*cexpr, error) {
	in, err := c.compile(x.X)
	if err != nil {
		return nil, err
	}
	idx, err := c.compile(x.Index)
	if err != nil {
		return nil, err
	}
	if _, ok := in.typ.(*arrow.StructType); ok {
		name, ok := idx.val.(string)
		if !idx.konst || !ok {
			return nil, errorf(x.Pos, "%s: a struct field is named by a string literal", x)
		}
		return c.field(in, name, x.Pos, x.X)
	}
	lt, ok := in.typ.(*arrow.ListType)
	if !ok {
		return nil, errorf(x.Pos, "%s: cannot index %s", x, typeName(in.typ))
	}
	if !isNumeric(idx.typ) || numRank(idx.typ) > 4 {
		return nil, errorf(x.Index.Position(), "%s: the index must be an integer, got %s", x, typeName(idx.typ))
	}
	return &cexpr{typ: lt.Elem(), eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			ia, err := idx.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			defer ia.Release()
			il, err := fn.Cast(ec.mem, ia, tLong)
			if err != nil {
				return nil, err
			}
			defer il.Release()
			iv := il.(*array.Int64)
			l := a.(*array.List)
			offs := l.Offsets()
			n := l.Len()
			take := make([]int64, n)
			valid := make([]bool, n)
			for r := 0; r < n; r++ {
				if l.IsNull(r) || iv.IsNull(r) {
					continue
				}
				k, lo, hi := iv.Value(r), int64(offs[r]), int64(offs[r+1])
				if k < 0 || lo+k >= hi {
					continue // past the end: NULL, as Spark without ANSI mode
				}
				take[r], valid[r] = lo+k, true
			}
			return takeNullable(ec.mem, l.ListValues(), take, valid)
		})
	}}, nil
}

// takeNullable takes arr at idx where valid, NULL elsewhere.
func takeNullable(mem memory.Allocator, arr arrow.Array, idx []int64, valid []bool) (arrow.Array, error) {
	all := true
	for _, v := range valid {
		all = all && v
	}
	if arr.Len() == 0 {
		return array.MakeArrayOfNull(mem, arr.DataType(), len(idx)), nil
	}
	if !all {
		for i, v := range valid {
			if !v {
				idx[i] = 0
			}
		}
	}
	out, err := dataframe.Take(mem, arr, idx)
	if err != nil || all {
		return out, err
	}
	defer out.Release()
	vb := newValidity(mem, len(idx))
	defer vb.Release()
	for i, v := range valid {
		if !v {
			vb.Bytes()[i/8] &^= 1 << (i % 8)
		}
	}
	return withValidity(mem, out, vb), nil
}

func (c *compiler) boolOperand(e Expr) (*cexpr, error) {
	ce, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	switch {
	case ce.typ.ID() == arrow.BOOL:
		return ce, nil
	case isNull(ce.typ):
		return c.cast(ce, tBool, e.Position(), e)
	}
	return nil, errorf(e.Position(), "%s is %s, not a boolean", e, typeName(ce.typ))
}

func (c *compiler) unary(x *Unary) (*cexpr, error) {
	if x.Op == "NOT" {
		in, err := c.boolOperand(x.X)
		if err != nil {
			return nil, err
		}
		return c.fold(&cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
				return notArray(ec.mem, a.(*array.Boolean)), nil
			})
		}}, in)
	}
	in, err := c.compile(x.X)
	if err != nil {
		return nil, err
	}
	if isString(in.typ) || isNull(in.typ) {
		if in, err = c.cast(in, tDouble, x.Pos, x.X); err != nil {
			return nil, err
		}
	}
	if !isNumeric(in.typ) {
		return nil, errorf(x.Pos, "%s: cannot negate %s", x, typeName(in.typ))
	}
	kt := kernelNumeric(in.typ)
	if in, err = c.cast(in, kt, x.Pos, x.X); err != nil {
		return nil, err
	}
	return c.fold(&cexpr{typ: kt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			switch kt.ID() {
			case arrow.INT32:
				return negate[int32](ec.mem, kt, a), nil
			case arrow.INT64:
				return negate[int64](ec.mem, kt, a), nil
			}
			return negate[float64](ec.mem, kt, a), nil
		})
	}}, in)
}

// cast wraps in in a conversion to dt (nothing when it has that type).
func (c *compiler) cast(in *cexpr, dt arrow.DataType, pos Pos, e Expr) (*cexpr, error) {
	if arrow.TypeEqual(in.typ, dt) {
		return in, nil
	}
	out := &cexpr{typ: dt, src: e, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return in.apply(ec, rec, func(a arrow.Array) (arrow.Array, error) {
			r, err := fn.Cast(ec.mem, a, dt)
			if err != nil {
				return nil, errorf(pos, "%s: %v", e, err)
			}
			return r, nil
		})
	}}
	return c.fold(out, in)
}

func (c *compiler) binary(x *Binary) (*cexpr, error) {
	op := strings.ToUpper(x.Op)
	if op == "AND" || op == "OR" {
		l, err := c.boolOperand(x.L)
		if err != nil {
			return nil, err
		}
		r, err := c.boolOperand(x.R)
		if err != nil {
			return nil, err
		}
		return c.fold(&cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				return andOr(ec.mem, op == "AND", a.(*array.Boolean), b.(*array.Boolean)), nil
			})
		}}, l, r)
	}
	l, err := c.compile(x.L)
	if err != nil {
		return nil, err
	}
	r, err := c.compile(x.R)
	if err != nil {
		return nil, err
	}
	switch op {
	case "=", "==", "!=", "<>", "<", "<=", ">", ">=", "<=>":
		ct := comparisonType(l.typ, r.typ)
		if ct == nil {
			return nil, errorf(x.Pos, "%s: cannot compare %s with %s", x, typeName(l.typ), typeName(r.typ))
		}
		if l, err = c.cast(l, ct, x.L.Position(), x.L); err != nil {
			return nil, err
		}
		if r, err = c.cast(r, ct, x.R.Position(), x.R); err != nil {
			return nil, err
		}
		return c.fold(&cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				return compareArrays(ec.mem, op, a, b), nil
			})
		}}, l, r)
	case "||":
		if l, err = c.cast(l, tString, x.L.Position(), x.L); err != nil {
			return nil, err
		}
		if r, err = c.cast(r, tString, x.R.Position(), x.R); err != nil {
			return nil, err
		}
		return c.fold(&cexpr{typ: tString, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				return concatStrings(ec.mem, a.(*array.String), b.(*array.String)), nil
			})
		}}, l, r)
	case "+", "-", "*", "/", "%":
		lt, rt := l.typ, r.typ
		if isString(lt) || isNull(lt) {
			lt = tDouble
		}
		if isString(rt) || isNull(rt) {
			rt = tDouble
		}
		if isNull(l.typ) && isNumeric(r.typ) {
			lt = r.typ
		}
		if isNull(r.typ) && isNumeric(l.typ) {
			rt = l.typ
		}
		if !isNumeric(lt) || !isNumeric(rt) {
			return nil, errorf(x.Pos, "%s: %s needs numbers, got %s and %s", x, op, typeName(l.typ), typeName(r.typ))
		}
		kt := widerNumeric(lt, rt)
		if op == "/" {
			kt = tDouble
		}
		if l, err = c.cast(l, kt, x.L.Position(), x.L); err != nil {
			return nil, err
		}
		if r, err = c.cast(r, kt, x.R.Position(), x.R); err != nil {
			return nil, err
		}
		return c.fold(&cexpr{typ: kt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
			return eval2(ec, rec, l, r, func(a, b arrow.Array) (arrow.Array, error) {
				switch kt.ID() {
				case arrow.INT32:
					return arith[int32](ec.mem, kt, op, a, b), nil
				case arrow.INT64:
					return arith[int64](ec.mem, kt, op, a, b), nil
				}
				return arith[float64](ec.mem, kt, op, a, b), nil
			})
		}}, l, r)
	}
	return nil, unsupported(x.Pos, "operator "+x.Op)
}

func eval2(ec *ectx, rec arrow.Record, l, r *cexpr, f func(a, b arrow.Array) (arrow.Array, error)) (arrow.Array, error) {
	a, err := l.eval(ec, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	b, err := r.eval(ec, rec)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return f(a, b)
}

// likeRegexp translates a LIKE pattern (% any run, _ any one character,
// esc quoting the next %, _ or itself) into an anchored regular expression.
func likeRegexp(pat string, esc rune, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		ch := rs[i]
		switch {
		case ch == esc:
			if i+1 >= len(rs) {
				return nil, fmt.Errorf("the pattern %q ends with the escape character", pat)
			}
			i++
			if rs[i] != '%' && rs[i] != '_' && rs[i] != esc {
				return nil, fmt.Errorf("the escape character in %q may only precede %%, _ or itself", pat)
			}
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case ch == '%':
			b.WriteString(".*")
		case ch == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func (c *compiler) like(x *Like) (*cexpr, error) {
	in, err := c.compile(x.X)
	if err != nil {
		return nil, err
	}
	pat, err := c.compile(x.Pattern)
	if err != nil {
		return nil, err
	}
	if in, err = c.cast(in, tString, x.X.Position(), x.X); err != nil {
		return nil, err
	}
	if pat, err = c.cast(pat, tString, x.Pattern.Position(), x.Pattern); err != nil {
		return nil, err
	}
	esc := x.Escape
	if esc == 0 {
		esc = '\\'
	}
	var fixed *regexp.Regexp
	if p, ok := pat.val.(string); pat.konst && ok {
		if fixed, err = likeRegexp(p, esc, x.ILike); err != nil {
			return nil, errorf(x.Pattern.Position(), "%s: %v", x, err)
		}
	}
	var mu sync.Mutex
	cache := map[string]*regexp.Regexp{}
	return c.fold(&cexpr{typ: tBool, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		return eval2(ec, rec, in, pat, func(a, b arrow.Array) (arrow.Array, error) {
			s, p := a.(*array.String), b.(*array.String)
			var bad error
			out := boolArray(ec.mem, a.Len(), andValidity(ec.mem, a.Len(), a, b), func(i int) bool {
				if s.IsNull(i) || p.IsNull(i) {
					return false
				}
				re := fixed
				if re == nil {
					mu.Lock()
					re = cache[p.Value(i)]
					if re == nil {
						var err error
						if re, err = likeRegexp(p.Value(i), esc, x.ILike); err != nil {
							bad = err
							mu.Unlock()
							return false
						}
						cache[p.Value(i)] = re
					}
					mu.Unlock()
				}
				return re.MatchString(s.Value(i)) != x.Not
			})
			if bad != nil {
				out.Release()
				return nil, errorf(x.Pos, "%s: %v", x, bad)
			}
			return out, nil
		})
	}}, in, pat)
}

func (c *compiler) caseExpr(x *Case) (*cexpr, error) {
	var conds, vals []*cexpr
	var types []arrow.DataType
	for _, w := range x.Whens {
		var cond Expr = w.Cond
		if x.Operand != nil {
			cond = &Binary{Op: "=", L: x.Operand, R: w.Cond, Pos: w.Cond.Position()}
		}
		ce, err := c.boolOperand(cond)
		if err != nil {
			return nil, err
		}
		v, err := c.compile(w.Then)
		if err != nil {
			return nil, err
		}
		conds, vals, types = append(conds, ce), append(vals, v), append(types, v.typ)
	}
	var els Expr = x.Else
	if els == nil {
		els = &Literal{Value: nil, Type: arrow.Null, Raw: "NULL", Pos: x.Pos}
	}
	ev, err := c.compile(els)
	if err != nil {
		return nil, err
	}
	vals, types = append(vals, ev), append(types, ev.typ)
	rt := commonType(types)
	if rt == nil {
		return nil, errorf(x.Pos, "%s: the branches have types that do not mix (%s)", x, typeNames(types))
	}
	for i := range vals {
		if vals[i], err = c.cast(vals[i], rt, x.Pos, x); err != nil {
			return nil, err
		}
	}
	inputs := append(append([]*cexpr(nil), conds...), vals...)
	return c.fold(&cexpr{typ: rt, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		n := int(rec.NumRows())
		var arrs []arrow.Array
		defer func() {
			for _, a := range arrs {
				a.Release()
			}
		}()
		choice := make([]int64, n)
		for i := range choice {
			choice[i] = -1
		}
		for k, ce := range conds {
			a, err := ce.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			b := a.(*array.Boolean)
			for i := 0; i < n; i++ {
				if choice[i] < 0 && b.IsValid(i) && b.Value(i) {
					choice[i] = int64(k)
				}
			}
			a.Release()
		}
		for _, v := range vals {
			a, err := v.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			arrs = append(arrs, a)
		}
		idx := make([]int64, n)
		for i := range idx {
			k := choice[i]
			if k < 0 {
				k = int64(len(conds))
			}
			idx[i] = k*int64(n) + int64(i)
		}
		all, err := concatArrays(ec.mem, rt, arrs)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		return dataframe.Take(ec.mem, all, idx)
	}}, inputs...)
}

func typeNames(ts []arrow.DataType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = typeName(t)
	}
	return strings.Join(s, ", ")
}

func (c *compiler) call(x *Call) (*cexpr, error) {
	name := strings.ToLower(x.Name)
	if aggregateNames[name] {
		if c.where != "" {
			return nil, errorf(x.Pos, "aggregate function %s is not allowed in %s", x.Name, c.where)
		}
		return nil, errorf(x.Pos, "aggregate function %s is not allowed here", x.Name)
	}
	if generatorNames[name] {
		return nil, errorf(x.Pos, "%s is only allowed as a select item or in LATERAL VIEW", x.Name)
	}
	s, ok := fn.Lookup(name)
	if !ok {
		return nil, errorf(x.Pos, "unknown function %s%s", x.Name, didYouMean(name, functionNames()))
	}
	if x.Star || x.Distinct {
		return nil, errorf(x.Pos, "%s: * and DISTINCT are only for aggregate functions", x)
	}
	args := make([]*cexpr, len(x.Args))
	fargs := make([]fn.Arg, len(x.Args))
	for i, a := range x.Args {
		ce, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = ce
		fargs[i] = fn.Arg{Type: ce.typ, Const: ce.konst, Value: ce.val}
	}
	b, err := s.Bind(fargs)
	if err != nil {
		return nil, errorf(x.Pos, "%s: %v", x, err)
	}
	if b.Args != nil {
		if len(b.Args) != len(args) {
			return nil, errorf(x.Pos, "%s: the function asks for %d argument types for %d arguments", x, len(b.Args), len(args))
		}
		for i, t := range b.Args {
			if t == nil {
				continue
			}
			if args[i], err = c.cast(args[i], t, x.Args[i].Position(), x.Args[i]); err != nil {
				return nil, err
			}
		}
	}
	out := &cexpr{typ: b.Type, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		vals := make([]arrow.Array, len(args))
		defer func() {
			for _, v := range vals {
				if v != nil {
					v.Release()
				}
			}
		}()
		for i, a := range args {
			v, err := a.eval(ec, rec)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		r, err := b.Eval(ec.fctx, vals, int(rec.NumRows()))
		if err != nil {
			return nil, errorf(x.Pos, "%s: %v", x, err)
		}
		return r, nil
	}}
	if name == "rand" || name == "random" || name == "uuid" {
		return out, nil
	}
	return c.fold(out, args...)
}

// functionNames lists every function name a query may call.
func functionNames() []string {
	names := fn.Names()
	for n := range aggregateNames {
		names = append(names, n)
	}
	for n := range generatorNames {
		names = append(names, n)
	}
	return names
}

// apply evaluates e over rec and hands the array to f, releasing it after:
// the one "evaluate, check, release" step of a unary expression.
func (e *cexpr) apply(ec *ectx, rec arrow.Record, f func(arrow.Array) (arrow.Array, error)) (arrow.Array, error) {
	a, err := e.eval(ec, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return f(a)
}
