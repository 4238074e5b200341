package query

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// exprResolver resolves expressions written over one scope into rexes:
// names to columns, functions to their bound form, Spark's implicit casts
// made explicit, constants folded.
type exprResolver struct {
	a  *analyzer
	sc *scope
	// clause names where the expression is, for "not allowed in WHERE".
	clause string
	// aggs, when set, collects aggregate calls (a select list, HAVING or
	// ORDER BY of a grouped query): each becomes an rAgg.
	aggs *aggCollector
	// aliases are select-list aliases (lower-case) a name may stand for
	// when no column has it: HAVING n > 1 for count(*) AS n, GROUP BY alias.
	aliases map[string]Expr
	// wins, when set, collects window function calls (a select list or
	// ORDER BY): each becomes an rWin (window_analyze.go).
	wins *winCollector
	// lambdas are the lambda variables in scope, innermost first (lambda.go).
	lambdas *lambdaScope
	// local keeps names to sc: a first try before another scope, where a
	// name must not resolve in an outer query (subquery_analyze.go).
	local bool
}

// isAggregate says whether e is a call of an aggregate function (not over
// a window).
func isAggregate(e Expr) bool {
	c, ok := e.(*Call)
	return ok && c.Over == nil && aggregateDef(c.Name) != nil
}

func containsAgg(e Expr) bool {
	found := false
	visit(e, func(x Expr) bool {
		found = found || isAggregate(x)
		return !found
	})
	return found
}

func (r *exprResolver) resolve(e Expr) (rex, error) {
	switch x := e.(type) {
	case *Literal:
		return r.a.literalRex(x)
	case *boundColumn:
		c := r.sc.cols[x.idx]
		return &rCol{idx: x.idx, t: c.typ, name: c.name, pos: x.pos}, nil
	case *Column:
		return r.column(x)
	case *Field:
		in, err := r.resolve(x.X)
		if err != nil {
			return nil, err
		}
		return r.field(in, x.Name, x.Pos, x.X)
	case *Index:
		return r.index(x)
	case *Unary:
		return r.unary(x)
	case *Binary:
		return r.binary(x)
	case *IsNull:
		in, err := r.resolve(x.X)
		if err != nil {
			return nil, err
		}
		return r.a.fold(&rIsNull{x: in, not: x.Not}), nil
	case *In:
		return r.in(x)
	case *Between:
		var b Expr = &Binary{Op: "AND", L: &Binary{Op: ">=", L: x.X, R: x.Lo, Pos: x.Pos}, R: &Binary{Op: "<=", L: x.X, R: x.Hi, Pos: x.Pos}, Pos: x.Pos}
		if x.Not {
			b = &Unary{Op: "NOT", X: b, Pos: x.Pos}
		}
		return r.resolve(b)
	case *Like:
		return r.like(x)
	case *Case:
		return r.caseExpr(x)
	case *Cast:
		in, err := r.resolve(x.X)
		if err != nil {
			return nil, err
		}
		if !fn.CanCast(plainType(in.Type()), x.To) {
			return nil, errorf(x.Pos, "%s: cannot cast %s to %s", x, typeName(in.Type()), typeName(x.To))
		}
		return r.a.fold(&rCast{x: in, to: x.To, user: true, pos: x.Pos, src: x.String()}), nil
	case *Call:
		return r.call(x)
	case *Star:
		return nil, errorf(x.Pos, "* is only allowed in the select list and count(*)")
	case *ScalarSubquery:
		return r.scalarSubquery(x)
	case *Exists:
		return r.exists(x)
	case *InSubquery:
		return r.inSubquery(x)
	case *Tuple:
		return r.tuple(x)
	case *Lambda:
		return nil, errorf(x.Pos, "%s: a lambda function is only allowed as an argument of a higher-order function", x)
	}
	return nil, unsupported(e.Position(), fmt.Sprintf("the expression %s", e))
}

// literalRex checks a literal's value against its type. A timestamp is
// read (from its text) and named in the session time zone.
func (a *analyzer) literalRex(x *Literal) (rex, error) {
	t := x.Type
	if t == nil {
		t = tNull
	}
	ok := false
	switch v := x.Value.(type) {
	case nil:
		ok = true
	case bool:
		ok = t.ID() == arrow.BOOL
	case int8:
		ok = t.ID() == arrow.INT8
	case int16:
		ok = t.ID() == arrow.INT16
	case int32:
		ok = t.ID() == arrow.INT32
	case int64:
		ok = t.ID() == arrow.INT64
	case float32:
		ok = t.ID() == arrow.FLOAT32
	case float64:
		ok = t.ID() == arrow.FLOAT64
	case string:
		ok = isString(t)
		t = tString
	case []byte:
		ok = isBinary(t)
		t = tBinary
	case decimal128.Num:
		ok = t.ID() == arrow.DECIMAL128
	case time.Time:
		ok = t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP
		if t.ID() == arrow.TIMESTAMP {
			t = plainType(t)
		}
		_ = v
	case arrow.Duration:
		ok = t.ID() == arrow.DURATION
	case arrow.MonthInterval:
		ok = t.ID() == arrow.INTERVAL_MONTHS
	case arrow.MonthDayNanoInterval:
		ok = t.ID() == arrow.INTERVAL_MONTH_DAY_NANO
	}
	if ok && sparktype.IsInterval(t) && x.Raw != "" {
		// An interval literal keeps the name its own fields give it
		// (INTERVAL '2' MONTH, not the column type's YEAR TO MONTH).
		return &rLit{v: x.Value, t: t, name: x.Raw}, nil
	}
	if !ok {
		return nil, errorf(x.Pos, "the literal %s: a Go %T is not a %s", x, x.Value, typeName(t))
	}
	if tt, isTS := t.(*arrow.TimestampType); isTS && tt.TimeZone != "" && x.Value != nil {
		v := x.Value
		if x.Text != "" {
			if us, ok := sparktype.ParseTimestampMicrosIn(x.Text, a.zone); ok {
				v = time.UnixMicro(us).UTC()
			}
		}
		return &rLit{v: v, t: t, name: prettyLiteralIn(v, t, a.zone)}, nil
	}
	return &rLit{v: x.Value, t: t}, nil
}

// niladic are the functions Spark calls when written without parentheses
// and no column has the name (resolveLiteralFunction).
var niladic = map[string]bool{"current_date": true, "current_timestamp": true, "current_user": true, "user": true, "session_user": true}

func (r *exprResolver) column(x *Column) (rex, error) {
	if v, ok, err := r.lambdaVar(x); ok || err != nil {
		return v, err
	}
	i, rest, err := r.sc.resolve(x.Path, x.Pos)
	if err != nil {
		if g := r.groupingIDColumn(x); g != nil {
			return g, nil
		}
		if a, ok := r.aliases[strings.ToLower(x.Path[0])]; ok && len(x.Path) == 1 && !r.sc.has(x.Path) {
			// The alias's expression, without aliases (no recursion).
			inner := *r
			inner.aliases = nil
			return inner.resolve(a)
		}
		if name := strings.ToLower(x.Path[0]); len(x.Path) == 1 && niladic[name] && !r.sc.has(x.Path) {
			if _, ok := fn.Lookup(name); ok {
				return r.resolve(&Call{Name: name, Pos: x.Pos})
			}
		}
		if !r.local && !r.sc.has(x.Path) {
			if o, ok := r.a.outerColumn(x); ok {
				return o, nil
			}
		}
		return nil, err
	}
	c := r.sc.cols[i]
	var e rex = &rCol{idx: i, t: c.typ, name: c.name, pos: x.Pos}
	for k, f := range rest {
		prefix := &Column{Path: x.Path[:len(x.Path)-len(rest)+k], Pos: x.Pos}
		if e, err = r.field(e, f, x.Pos, prefix); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (r *exprResolver) field(in rex, name string, pos Pos, of Expr) (rex, error) {
	dt := in.Type()
	list, isList := dt.(*arrow.ListType)
	if isList {
		dt = list.Elem()
	}
	st, ok := dt.(*arrow.StructType)
	if !ok {
		return nil, errorf(pos, "cannot take field %s of %s: it is %s, not a struct", name, of, typeName(in.Type()))
	}
	k := -1
	for i, f := range st.Fields() {
		if strings.EqualFold(f.Name, name) {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, errorf(pos, "%s has no field %s%s", of, name, didYouMean(name, fieldNames(st.Fields())))
	}
	ft := st.Field(k).Type
	if isList {
		ft = arrow.ListOf(ft)
	}
	return r.a.fold(&rField{x: in, idx: k, name: st.Field(k).Name, t: ft}), nil
}

func fieldNames(fs []arrow.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func (r *exprResolver) index(x *Index) (rex, error) {
	in, err := r.resolve(x.X)
	if err != nil {
		return nil, err
	}
	idx, err := r.resolve(x.Index)
	if err != nil {
		return nil, err
	}
	switch t := in.Type().(type) {
	case *arrow.StructType:
		lit, ok := idx.(*rLit)
		name, isStr := "", false
		if ok {
			name, isStr = lit.v.(string)
		}
		if !isStr {
			return nil, errorf(x.Pos, "%s: a struct field is named by a string literal", x)
		}
		return r.field(in, name, x.Pos, x.X)
	case *arrow.MapType:
		s, ok := fn.Lookup("element_at")
		if !ok {
			return nil, unsupported(x.Pos, "a map lookup m[k]")
		}
		ct := comparisonType(t.KeyType(), idx.Type())
		if ct == nil || !sameType(ct, t.KeyType()) {
			if idx, err = r.implicitCast(idx, t.KeyType(), x.Index); err != nil {
				return nil, err
			}
		}
		return r.bindCall(s, []rex{in, idx}, x.X.Position(), x.String(), in.sql()+"["+idx.sql()+"]")
	case *arrow.ListType:
		if isNull(idx.Type()) || isString(idx.Type()) {
			if idx, err = r.implicitCast(idx, tInt, x.Index); err != nil {
				return nil, err
			}
		}
		if !isIntegral(idx.Type()) {
			return nil, errorf(x.Index.Position(), "%s: the index must be an integer, got %s", x, typeName(idx.Type()))
		}
		return r.a.fold(&rIndex{x: in, i: idx, t: t.Elem()}), nil
	}
	return nil, errorf(x.Pos, "%s: cannot index %s", x, typeName(in.Type()))
}

// implicitCast is Spark's implicit cast of e to dt (nothing when it has
// that type already).
func (r *exprResolver) implicitCast(e rex, dt arrow.DataType, src Expr) (rex, error) {
	if sameArrowType(e.Type(), dt) {
		return e, nil
	}
	if !fn.CanCast(plainType(e.Type()), dt) {
		return nil, errorf(src.Position(), "%s: cannot convert %s to %s", src, typeName(e.Type()), typeName(dt))
	}
	return r.a.fold(&rCast{x: e, to: dt, pos: src.Position(), src: src.String()}), nil
}

// boolOperand resolves a condition: a boolean, or NULL, or a string (which
// Spark casts to boolean).
func (r *exprResolver) boolOperand(e Expr) (rex, error) {
	x, err := r.resolve(e)
	if err != nil {
		return nil, err
	}
	return r.asBool(x, e)
}

func (r *exprResolver) asBool(x rex, e Expr) (rex, error) {
	switch t := x.Type(); {
	case t.ID() == arrow.BOOL:
		return x, nil
	case isNull(t):
		return r.implicitCast(x, tBool, e)
	}
	return nil, errorf(e.Position(), "%s is %s, not a boolean", e, typeName(x.Type()))
}

// bitwise is & | ^ over integers of their common type, and the shifts
// << >> >>> of an int or bigint by an int (Java's shifts: the count is
// taken modulo the width).
func (r *exprResolver) bitwise(op string, l, rr rex, x *Binary) (rex, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	if isNull(lt) {
		lt = rt
	}
	if isNull(rt) {
		rt = lt
	}
	if isNull(lt) {
		lt, rt = tLong, tLong
	}
	if !isIntegral(lt) || !isIntegral(rt) {
		return nil, errorf(x.Pos, "%s: %s needs integers, got %s and %s", x, op, typeName(l.Type()), typeName(rr.Type()))
	}
	var err error
	if op == "<<" || op == ">>" || op == ">>>" {
		if numRank(lt) < 3 {
			lt = tInt
		}
		rt = tInt
	} else {
		lt = tightestType(lt, rt)
		rt = lt
	}
	if l, err = r.implicitCast(l, lt, x.L); err != nil {
		return nil, err
	}
	if rr, err = r.implicitCast(rr, rt, x.R); err != nil {
		return nil, err
	}
	return r.a.fold(&rArith{op: op, l: l, r: rr, t: lt}), nil
}

func (r *exprResolver) unary(x *Unary) (rex, error) {
	if x.Op == "~" {
		in, err := r.resolve(x.X)
		if err != nil {
			return nil, err
		}
		if isNull(in.Type()) {
			in, _ = r.implicitCast(in, tLong, x.X)
		}
		if !isIntegral(plainType(in.Type())) {
			return nil, errorf(x.Pos, "%s: ~ needs an integer, got %s", x, typeName(in.Type()))
		}
		if in, err = r.implicitCast(in, plainType(in.Type()), x.X); err != nil {
			return nil, err
		}
		return r.a.fold(&rArith{op: "~", l: in, r: in, t: in.Type()}), nil
	}
	if x.Op == "NOT" {
		in, err := r.boolOperand(x.X)
		if err != nil {
			return nil, err
		}
		return r.a.fold(&rNot{x: in}), nil
	}
	in, err := r.resolve(x.X)
	if err != nil {
		return nil, err
	}
	if isInterval(plainType(in.Type())) {
		return r.intervalUnary(in, x)
	}
	if isString(in.Type()) || isNull(in.Type()) {
		if in, err = r.implicitCast(in, tDouble, x.X); err != nil {
			return nil, err
		}
	}
	if !isNumeric(in.Type()) {
		if x.Op == "+" {
			return nil, errorf(x.Pos, "%s: unary + needs a number, got %s", x, typeName(in.Type()))
		}
		return nil, errorf(x.Pos, "%s: cannot negate %s", x, typeName(in.Type()))
	}
	if in, err = r.implicitCast(in, plainType(in.Type()), x.X); err != nil {
		return nil, err
	}
	return r.a.fold(&rNeg{x: in, plus: x.Op == "+"}), nil
}

func (r *exprResolver) binary(x *Binary) (rex, error) {
	op := strings.ToUpper(x.Op)
	if op == "AND" || op == "OR" {
		l, err := r.boolOperand(x.L)
		if err != nil {
			return nil, err
		}
		rr, err := r.boolOperand(x.R)
		if err != nil {
			return nil, err
		}
		return r.a.fold(&rLogic{and: op == "AND", l: l, r: rr}), nil
	}
	l, err := r.resolve(x.L)
	if err != nil {
		return nil, err
	}
	rr, err := r.resolve(x.R)
	if err != nil {
		return nil, err
	}
	switch op {
	case "=", "==", "!=", "<>", "<", "<=", ">", ">=", "<=>":
		return r.compare(op, l, rr, x)
	case "||":
		if s, ok := fn.Lookup("concat"); ok {
			return r.bindCall(s, []rex{l, rr}, x.Pos, x.String(), "concat("+l.sql()+", "+rr.sql()+")")
		}
		return nil, unsupported(x.Pos, "||")
	case "+", "-", "*", "/", "%":
		return r.arith(op, l, rr, x)
	case "DIV":
		return r.intDiv(l, rr, x)
	case "&", "|", "^", "<<", ">>", ">>>":
		return r.bitwise(op, l, rr, x)
	}
	return nil, unsupported(x.Pos, "the operator "+x.Op)
}

func (r *exprResolver) compare(op string, l, rr rex, x *Binary) (rex, error) {
	switch op {
	case "==":
		op = "="
	case "<>":
		op = "!="
	}
	ct := comparisonType(l.Type(), rr.Type())
	if ct == nil {
		return nil, errorf(x.Pos, "%s: cannot compare %s with %s", x, typeName(l.Type()), typeName(rr.Type()))
	}
	var err error
	if l, err = r.implicitCast(l, ct, x.L); err != nil {
		return nil, err
	}
	if rr, err = r.implicitCast(rr, ct, x.R); err != nil {
		return nil, err
	}
	return r.a.fold(&rCmp{op: op, l: l, r: rr}), nil
}

func (r *exprResolver) arith(op string, l, rr rex, x *Binary) (rex, error) {
	if op == "+" || op == "-" {
		if e, ok, err := r.intervalArith(op, l, rr, x); ok || err != nil {
			return e, err
		}
		if e, ok, err := r.dateArith(op, l, rr, x); ok || err != nil {
			return e, err
		}
	} else if e, ok, err := r.intervalScale(op, l, rr, x); ok || err != nil {
		return e, err
	}
	lt, rt, res, err := arithTypes(op, l, rr)
	if err != nil {
		return nil, errorf(x.Pos, "%s: %w", x, err)
	}
	if l, err = r.implicitCast(l, lt, x.L); err != nil {
		return nil, err
	}
	if rr, err = r.implicitCast(rr, rt, x.R); err != nil {
		return nil, err
	}
	return r.a.fold(&rArith{op: op, l: l, r: rr, t: res}), nil
}

// intDiv is a DIV b: the integral quotient as a bigint (Spark's
// IntegralDivide): integers (and floats) divide as bigints, decimals
// exactly; by zero NULL.
func (r *exprResolver) intDiv(l, rr rex, x *Binary) (rex, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	for _, t := range []arrow.DataType{lt, rt} {
		if !isNumeric(t) && !isNull(t) && !isString(t) {
			return nil, errorf(x.Pos, "%s: div needs numbers, got %s and %s", x, typeName(l.Type()), typeName(rr.Type()))
		}
	}
	var ct arrow.DataType = tLong
	if isDecimal(lt) || isDecimal(rt) {
		p1, s1, _ := decimalParts(lt)
		p2, s2, _ := decimalParts(rt)
		if !isDecimal(lt) && !isIntegral(lt) || !isDecimal(rt) && !isIntegral(rt) {
			ct = tDouble
		} else {
			ct = widerDecimal(p1, s1, p2, s2)
		}
	}
	if ct == tDouble {
		ct = tLong
	}
	var err error
	if l, err = r.implicitCast(l, ct, x.L); err != nil {
		return nil, err
	}
	if rr, err = r.implicitCast(rr, ct, x.R); err != nil {
		return nil, err
	}
	return r.a.fold(&rArith{op: "div", l: l, r: rr, t: tLong}), nil
}

// dateArith is Spark's date arithmetic: date ± days (also days + date) is
// date_add / date_sub (differences of dates or timestamps and interval
// sums are intervalArith's). ok is false for other operands.
func (r *exprResolver) dateArith(op string, l, rr rex, x *Binary) (rex, bool, error) {
	lt, rt := plainType(l.Type()), plainType(rr.Type())
	isDate := func(t arrow.DataType) bool { return t.ID() == arrow.DATE32 }
	days := func(t arrow.DataType) bool { return isIntegral(t) || isNull(t) }
	date, n := l, rr
	switch {
	case isDate(lt) && days(rt):
	case op == "+" && days(lt) && isDate(rt):
		date, n = rr, l
	default:
		return nil, false, nil
	}
	name := map[string]string{"+": "date_add", "-": "date_sub"}[op]
	s, ok := fn.Lookup(name)
	if !ok {
		return nil, false, nil
	}
	if isNull(n.Type()) {
		n, _ = r.implicitCast(n, tInt, x)
	}
	e, err := r.bindCall(s, []rex{date, n}, x.Pos, x.String(), name+"("+date.sql()+", "+n.sql()+")")
	return e, true, err
}

// in is x [NOT] IN (list): every operand cast to their wider common type
// (strings included: '1' IN (1) compares strings, as Spark's InConversion).
func (r *exprResolver) in(x *In) (rex, error) {
	if len(x.List) == 0 {
		return nil, errorf(x.Pos, "IN needs at least one value")
	}
	v, err := r.resolve(x.X)
	if err != nil {
		return nil, err
	}
	list := make([]rex, len(x.List))
	types := []arrow.DataType{v.Type()}
	for i, e := range x.List {
		if list[i], err = r.resolve(e); err != nil {
			return nil, err
		}
		types = append(types, list[i].Type())
	}
	ct := widerTypes(types, true)
	if ct == nil {
		return nil, errorf(x.Pos, "%s: the values have types that do not compare (%s)", x, typeNames(types))
	}
	if isNull(ct) {
		ct = tString
	}
	if v, err = r.implicitCast(v, ct, x.X); err != nil {
		return nil, err
	}
	for i := range list {
		if list[i], err = r.implicitCast(list[i], ct, x.List[i]); err != nil {
			return nil, err
		}
	}
	var out rex = r.a.fold(&rIn{x: v, list: list})
	if x.Not {
		out = r.a.fold(&rNot{x: out})
	}
	return out, nil
}

func typeNames(ts []arrow.DataType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = typeName(t)
	}
	return strings.Join(s, ", ")
}

func (r *exprResolver) stringOperand(e Expr) (rex, error) {
	x, err := r.resolve(e)
	if err != nil {
		return nil, err
	}
	if !isAtomic(x.Type()) && !isNull(x.Type()) {
		return nil, errorf(e.Position(), "%s is %s, not a string", e, typeName(x.Type()))
	}
	return r.implicitCast(x, tString, e)
}

func (r *exprResolver) like(x *Like) (rex, error) {
	in, err := r.stringOperand(x.X)
	if err != nil {
		return nil, err
	}
	if x.Quantifier != "" {
		return r.likeAll(x, in)
	}
	pat, err := r.stringOperand(x.Pattern)
	if err != nil {
		return nil, err
	}
	if x.Regex {
		// RLIKE and REGEXP are the rlike function (Java's regular
		// expressions: RE2, else a backtracking engine), named `a RLIKE b`.
		s, _ := fn.Lookup("rlike")
		out, err := r.bindCall(s, []rex{in, pat}, x.Pos, x.String(), in.sql()+" RLIKE "+pat.sql())
		if err != nil {
			return nil, err
		}
		if x.Not {
			out = r.a.fold(&rNot{x: out})
		}
		return out, nil
	}
	l := &rLike{x: in, pat: pat, esc: '\\', fold: x.ILike}
	if x.Escape != 0 {
		l.esc, l.escSet = x.Escape, true
	}
	if lit, ok := pat.(*rLit); ok {
		if p, isStr := lit.v.(string); isStr {
			if _, err := l.compilePattern(p); err != nil {
				return nil, errorf(x.Pattern.Position(), "%s: %w", x, err)
			}
		}
	}
	var out rex = r.a.fold(l)
	if x.Not {
		out = r.a.fold(&rNot{x: out})
	}
	return out, nil
}

// likeAll is LIKE|ILIKE ANY|ALL (patterns…), Spark's LikeAny/LikeAll.
func (r *exprResolver) likeAll(x *Like, in rex) (rex, error) {
	if len(x.Patterns) == 0 {
		return nil, errorf(x.Pos, "%s: LIKE %s needs at least one pattern", x, x.Quantifier)
	}
	l := &rLikeAll{x: in, any: x.Quantifier == "ANY", not: x.Not, fold: x.ILike}
	names := make([]string, len(x.Patterns))
	for i, pe := range x.Patterns {
		p, err := r.stringOperand(pe)
		if err != nil {
			return nil, err
		}
		if lit, ok := p.(*rLit); ok && lit.v != nil {
			if _, err := fn.LikeRegexp(lit.v.(string), '\\', x.ILike); err != nil {
				return nil, errorf(pe.Position(), "%s: %w", x, err)
			}
		}
		l.pats = append(l.pats, p)
		names[i] = p.sql()
	}
	kind := "LIKE"
	if x.ILike {
		kind = "ILIKE"
	}
	not := ""
	if x.Not {
		not = "NOT "
	}
	q := strings.ToLower(x.Quantifier)
	l.name = in.sql() + " " + not + kind + " " + q + " (" + strings.Join(names, ", ") + ")"
	return r.a.fold(l), nil
}

func (r *exprResolver) caseExpr(x *Case) (rex, error) {
	var conds, vals []rex
	var types []arrow.DataType
	var srcs []Expr
	var operand rex
	if x.Operand != nil {
		var err error
		if operand, err = r.resolve(x.Operand); err != nil {
			return nil, err
		}
	}
	for _, w := range x.Whens {
		var c rex
		var err error
		if operand != nil {
			wv, err := r.resolve(w.Cond)
			if err != nil {
				return nil, err
			}
			if c, err = r.compare("=", operand, wv, &Binary{Op: "=", L: x.Operand, R: w.Cond, Pos: w.Cond.Position()}); err != nil {
				return nil, err
			}
		} else if c, err = r.boolOperand(w.Cond); err != nil {
			return nil, err
		}
		v, err := r.resolve(w.Then)
		if err != nil {
			return nil, err
		}
		conds, vals, types, srcs = append(conds, c), append(vals, v), append(types, v.Type()), append(srcs, w.Then)
	}
	var els rex = &rLit{t: tNull}
	if x.Else != nil {
		var err error
		if els, err = r.resolve(x.Else); err != nil {
			return nil, err
		}
	}
	types = append(types, els.Type())
	rt := widerTypes(types, true)
	if rt == nil {
		return nil, errorf(x.Pos, "%s: the branches have types that do not mix (%s)", x, typeNames(types))
	}
	var err error
	for i := range vals {
		if vals[i], err = r.implicitCast(vals[i], rt, srcs[i]); err != nil {
			return nil, err
		}
	}
	if els, err = r.implicitCast(els, rt, x); err != nil {
		return nil, err
	}
	return r.a.fold(&rCase{conds: conds, vals: vals, els: els, t: rt, noElse: x.Else == nil}), nil
}

func (r *exprResolver) call(x *Call) (rex, error) {
	if x.Over != nil {
		return r.windowCall(x)
	}
	x = unitCall(x)
	name := strings.ToLower(x.Name)
	if winFuncs[name] {
		return nil, errorf(x.Pos, "%s is a window function: it needs OVER (…)", x)
	}
	if name == "grouping" || name == "grouping_id" {
		return r.groupingCall(x, name)
	}
	if def := aggregateDef(name); def != nil {
		if o, ok, err := r.outerAggregate(x); ok || err != nil {
			return o, err
		}
		if r.aggs == nil {
			if r.clause != "" {
				return nil, errorf(x.Pos, "aggregate function %s is not allowed in %s", x.Name, r.clause)
			}
			return nil, errorf(x.Pos, "aggregate function %s is not allowed here", x.Name)
		}
		return r.aggs.add(r, def, x)
	}
	if generatorNames[name] {
		return nil, errorf(x.Pos, "%s is only allowed as a select item or in LATERAL VIEW", x.Name)
	}
	if to, ok := castAliases[name]; ok {
		// int(x), date(x), …: Spark's cast functions, a cast its
		// generated name leaves out.
		if len(x.Args) != 1 || x.Star || x.Distinct {
			return nil, errorf(x.Pos, "%s takes one argument, got %d", x.Name, len(x.Args))
		}
		in, err := r.resolve(x.Args[0])
		if err != nil {
			return nil, err
		}
		if !fn.CanCast(plainType(in.Type()), to) {
			return nil, errorf(x.Pos, "%s: cannot cast %s to %s", x, typeName(in.Type()), typeName(to))
		}
		return r.a.fold(&rCast{x: in, to: to, pos: x.Pos, src: x.String()}), nil
	}
	if isHOF(x) {
		return r.hof(x)
	}
	s, ok := fn.Lookup(name)
	if !ok {
		return nil, errorf(x.Pos, "unknown function %s%s", x.Name, didYouMean(name, functionNames()))
	}
	if x.Star || x.Distinct || x.Filter != nil {
		return nil, errorf(x.Pos, "%s: *, DISTINCT and FILTER are only for aggregate functions", x)
	}
	if x.Nulls != "" {
		return nil, errorf(x.Pos, "%s: the function %s does not take %s NULLS", x, name, x.Nulls)
	}
	argExprs, fieldNames, err := r.expandStarsNamed(x.Args, x.ArgNames)
	if err != nil {
		return nil, err
	}
	args := make([]rex, len(argExprs))
	names := make([]string, len(argExprs))
	for i, a := range argExprs {
		ce, err := r.resolve(a)
		if err != nil {
			return nil, err
		}
		args[i], names[i] = ce, ce.sql()
	}
	pretty := name + "(" + strings.Join(names, ", ") + ")"
	if s.Pretty != nil {
		pretty = s.Pretty(names)
	}
	if fieldNames != nil {
		// struct(x AS a, …): the fields take the names given.
		for i, n := range fieldNames {
			if n != "" {
				names[i] += " AS " + n
			}
		}
		pretty = name + "(" + strings.Join(names, ", ") + ")"
	}
	return r.bindCallNamed(s, args, fieldNames, x.Pos, x.String(), pretty)
}

// unitCalls are the functions whose first argument is a datetime unit
// keyword (Spark's grammar: DATEADD(DAY, 1, d)), and the function each
// is: Spark names them after it.
var unitCalls = map[string]string{
	"timestampadd": "timestampadd", "dateadd": "timestampadd", "date_add": "timestampadd",
	"timestampdiff": "timestampdiff", "datediff": "timestampdiff", "date_diff": "timestampdiff",
}

// datetimeUnits are the unit keywords of unitCalls.
var datetimeUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "DAYOFYEAR": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true,
}

// unitCall reads DATEADD(DAY, n, d) and its kind — a unit keyword, which
// the parser sees as a column name — as timestampadd('DAY', n, d); other
// calls are returned as they are.
func unitCall(x *Call) *Call {
	fn, ok := unitCalls[strings.ToLower(x.Name)]
	if !ok || len(x.Args) != 3 {
		return x
	}
	col, ok := x.Args[0].(*Column)
	if !ok || len(col.Path) != 1 || !datetimeUnits[strings.ToUpper(col.Path[0])] {
		return x
	}
	unit := strings.ToUpper(col.Path[0])
	c := *x
	c.Name = fn
	c.Args = append([]Expr{&Literal{Value: unit, Type: tString, Raw: unit, Pos: col.Pos}}, x.Args[1:]...)
	return &c
}

// expandStarsNamed is expandStars keeping names (struct's AS names, nil
// for none) in step with the arguments: an expanded star's are "".
func (r *exprResolver) expandStarsNamed(args []Expr, names []string) ([]Expr, []string, error) {
	if names == nil {
		out, err := r.expandStars(args)
		return out, nil, err
	}
	var outArgs []Expr
	var outNames []string
	for i, a := range args {
		ex, err := r.expandStars([]Expr{a})
		if err != nil {
			return nil, nil, err
		}
		outArgs = append(outArgs, ex...)
		for range ex {
			outNames = append(outNames, "")
		}
		if len(ex) == 1 && i < len(names) {
			outNames[len(outNames)-1] = names[i]
		}
	}
	return outArgs, outNames, nil
}

// expandStars replaces `*` and `t.*` among a call's arguments by the
// columns they name (count(t.*) is count(a, b)).
func (r *exprResolver) expandStars(args []Expr) ([]Expr, error) {
	var out []Expr
	for _, a := range args {
		st, ok := a.(*Star)
		if !ok {
			out = append(out, a)
			continue
		}
		found := false
		for i, c := range r.sc.cols {
			if st.Qualifier == "" && c.hidden || st.Qualifier != "" && !hasQual(c.quals, st.Qualifier) {
				continue
			}
			found = true
			out = append(out, &boundColumn{idx: i, name: c.name, pos: st.Pos})
		}
		if !found && st.Qualifier != "" {
			fields, ok, err := r.structStar(st)
			if err != nil {
				return nil, err
			}
			found = ok
			out = append(out, fields...)
		}
		if !found {
			return nil, errorf(st.Pos, "%s matches no column", st)
		}
	}
	return out, nil
}

// structStar expands `s.*` where s names a struct column (not a table):
// its fields, as Spark expands a struct's star. ok is false when the
// qualifier is no column.
func (r *exprResolver) structStar(st *Star) ([]Expr, bool, error) {
	path := strings.Split(st.Qualifier, ".")
	if _, _, err := r.sc.resolve(path, st.Pos); err != nil {
		return nil, false, nil
	}
	col := &Column{Path: path, Pos: st.Pos}
	e, err := r.resolve(col)
	if err != nil {
		return nil, false, err
	}
	t, ok := e.Type().(*arrow.StructType)
	if !ok {
		return nil, false, errorf(st.Pos, "%s: %s is %s, not a struct or a table", st, st.Qualifier, typeName(e.Type()))
	}
	out := make([]Expr, t.NumFields())
	for i, f := range t.Fields() {
		out[i] = &Field{X: col, Name: f.Name, Pos: st.Pos}
	}
	return out, true, nil
}

// bindCall binds a scalar function to its arguments, casting them as Bind
// asks. A call of a non-deterministic function (fn.Scalar.Nondeterministic:
// rand, uuid, shuffle) is never folded nor moved.
func (r *exprResolver) bindCall(s fn.Scalar, args []rex, pos Pos, src, pretty string) (rex, error) {
	return r.bindCallNamed(s, args, nil, pos, src, pretty)
}

// bindCallNamed is bindCall with names for the arguments (struct's AS
// names; "" or a nil slice: the argument's own, argName).
func (r *exprResolver) bindCallNamed(s fn.Scalar, args []rex, names []string, pos Pos, src, pretty string) (rex, error) {
	fargs := make([]fn.Arg, len(args))
	for i, a := range args {
		fargs[i] = fn.Arg{Type: a.Type(), Name: argName(a)}
		if i < len(names) && names[i] != "" {
			fargs[i].Name = names[i]
		}
		if lit, ok := a.(*rLit); ok {
			fargs[i].Const, fargs[i].Value = true, lit.v
		}
	}
	b, err := s.Bind(fargs)
	if err != nil {
		return nil, errorf(pos, "%s: %w", src, err)
	}
	if b.Args != nil {
		if len(b.Args) != len(args) {
			return nil, errorf(pos, "%s: the function asks for %d argument types for %d arguments", src, len(b.Args), len(args))
		}
		for i, t := range b.Args {
			if t == nil || arrow.TypeEqual(args[i].Type(), t) {
				continue
			}
			if !fn.CanCast(plainType(args[i].Type()), t) {
				return nil, errorf(pos, "%s: argument %d cannot be converted from %s to %s", src, i+1, typeName(args[i].Type()), typeName(t))
			}
			args[i] = r.a.fold(&rCast{x: args[i], to: t, pos: pos, src: src})
		}
	}
	c := &rCall{name: s.Name, pretty: pretty, b: b, args: args, volatile: s.Nondeterministic, pos: pos, src: src}
	if c.volatile {
		return c, nil
	}
	return r.a.fold(c), nil
}

// argName is the name Spark gives an argument that is a named expression
// (a column, a struct field, a lambda variable, an outer column): struct(a,
// s.f) has fields a and f. Other arguments have none.
func argName(a rex) string {
	switch x := a.(type) {
	case *rCol:
		return x.name
	case *rField:
		return x.name
	case *rLambdaVar:
		return x.name
	case *rOuter:
		return x.name
	}
	return ""
}

// castAliases are Spark's cast functions (FunctionRegistry.castAlias).
var castAliases = map[string]arrow.DataType{
	"boolean": tBool, "tinyint": tByte, "smallint": tShort, "int": tInt, "bigint": tLong,
	"float": tFloat, "double": tDouble, "decimal": decimalType(10, 0), "date": tDate,
	"timestamp": tTime, "binary": tBinary, "string": tString,
}

// functionNames lists every function name a query may call.
func functionNames() []string {
	names := fn.Names()
	for n := range castAliases {
		names = append(names, n)
	}
	names = append(names, aggregateNames()...)
	for n := range generatorNames {
		names = append(names, n)
	}
	names = append(names, hofNames()...)
	return names
}
