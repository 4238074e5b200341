package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
)

// Higher-order functions (Spark's transform, filter, exists, forall,
// aggregate/reduce, zip_with, map_filter, transform_keys,
// transform_values, map_zip_with and array_sort with a comparator): calls
// with lambda arguments, resolved by the analyser (their lambdas are
// scoped expressions, not values) and evaluated over whole batches: a
// lambda's body runs once over every bound element of the batch, with the
// outer columns it reads repeated by the element's row (see
// docs/sql.md#higher-order-functions).

// rHOF is a higher-order function call; its lambdas are rLambda
// arguments.
type rHOF struct {
	name   string
	args   []rex
	t      arrow.DataType
	pretty string
}

func (e *rHOF) Type() arrow.DataType { return e.t }
func (e *rHOF) sql() string          { return e.pretty }
func (e *rHOF) kids() []rex          { return e.args }
func (e *rHOF) with(k []rex) rex {
	c := *e
	c.args = append([]rex(nil), k...)
	return &c
}
func (e *rHOF) key() string { return "hof<" + e.name + ">" }

var hofBinders map[string]func(r *exprResolver, x *Call) (rex, error)

func init() {
	hofBinders = map[string]func(r *exprResolver, x *Call) (rex, error){
		"transform":        bindArrayLambda,
		"filter":           bindArrayLambda,
		"exists":           bindArrayLambda,
		"forall":           bindArrayLambda,
		"aggregate":        bindAggregate,
		"reduce":           bindAggregate,
		"zip_with":         bindZipWith,
		"map_filter":       bindMapLambda,
		"transform_keys":   bindMapLambda,
		"transform_values": bindMapLambda,
		"map_zip_with":     bindMapZipWith,
		"array_sort":       bindArraySort,
	}
}

// isHOF says whether x is a higher-order function call (array_sort only
// with its comparator: without, it is a scalar function).
func isHOF(x *Call) bool {
	name := strings.ToLower(x.Name)
	if hofBinders[name] == nil {
		return false
	}
	return name != "array_sort" || len(x.Args) == 2
}

// hofNames lists the higher-order functions, for did-you-mean.
func hofNames() []string {
	out := make([]string, 0, len(hofBinders))
	for n := range hofBinders {
		out = append(out, n)
	}
	return out
}

func (r *exprResolver) hof(x *Call) (rex, error) {
	if x.Star || x.Distinct {
		return nil, errorf(x.Pos, "%s: * and DISTINCT are only for aggregate functions", x)
	}
	return hofBinders[strings.ToLower(x.Name)](r, x)
}

func wantArgs(x *Call, lo, hi int) error {
	if len(x.Args) < lo || len(x.Args) > hi {
		want := fmt.Sprint(lo)
		if hi > lo {
			want = fmt.Sprintf("%d or %d", lo, hi)
		}
		return errorf(x.Pos, "%s takes %s arguments, got %d", strings.ToLower(x.Name), want, len(x.Args))
	}
	return nil
}

// bindLambda resolves a lambda argument whose parameters take the types
// given (a prefix of them: as many as it names, which must be one of
// counts). Any other expression is a lambda without parameters.
func (r *exprResolver) bindLambda(x *Call, e Expr, types []arrow.DataType, counts ...int) (*rLambda, error) {
	lam, ok := e.(*Lambda)
	if !ok {
		body, err := r.resolve(e)
		if err != nil {
			return nil, err
		}
		return &rLambda{body: body}, nil
	}
	n := len(lam.Params)
	okCount := false
	for _, c := range counts {
		okCount = okCount || n == c
	}
	if !okCount {
		want := make([]string, len(counts))
		for i, c := range counts {
			want[i] = fmt.Sprint(c)
		}
		return nil, errorf(lam.Pos, "%s: the lambda function has %d argument(s), %s expects %s", x.Name, n, strings.ToLower(x.Name), strings.Join(want, " or "))
	}
	inner := *r
	inner.aggs, inner.clause, inner.aliases = nil, "a lambda function", nil
	l := &rLambda{}
	seen := map[string]bool{}
	for i, p := range lam.Params {
		if seen[strings.ToLower(p)] {
			return nil, errorf(lam.Pos, "%s: the lambda function's arguments must have distinct names (%s twice)", x.Name, p)
		}
		seen[strings.ToLower(p)] = true
		v := &rLambdaVar{name: p, t: types[i], id: subqueryIDs.Add(1), src: lam, i: i}
		l.params = append(l.params, v)
		inner.lambdas = &lambdaScope{v: v, next: inner.lambdas}
	}
	body, err := inner.resolve(lam.Body)
	if err != nil {
		return nil, err
	}
	l.body = body
	return l, nil
}

// lambdaBool makes a lambda's body a boolean (NULL: a NULL boolean).
func (r *exprResolver) lambdaBool(x *Call, l *rLambda) error {
	switch t := l.body.Type(); {
	case t.ID() == arrow.BOOL:
		return nil
	case isNull(t):
		l.body = &rCast{x: l.body, to: tBool}
		return nil
	}
	return errorf(x.Pos, "%s: the lambda function must give a boolean, it gives %s", x, typeName(l.body.Type()))
}

func (r *exprResolver) arrayArg(x *Call, i int) (rex, *arrow.ListType, error) {
	a, err := r.resolve(x.Args[i])
	if err != nil {
		return nil, nil, err
	}
	lt, ok := a.Type().(*arrow.ListType)
	if !ok {
		return nil, nil, errorf(x.Args[i].Position(), "%s: argument %d must be an array, got %s", x, i+1, typeName(a.Type()))
	}
	return a, lt, nil
}

func (r *exprResolver) mapArg(x *Call, i int) (rex, *arrow.MapType, error) {
	a, err := r.resolve(x.Args[i])
	if err != nil {
		return nil, nil, err
	}
	mt, ok := a.Type().(*arrow.MapType)
	if !ok {
		return nil, nil, errorf(x.Args[i].Position(), "%s: argument %d must be a map, got %s", x, i+1, typeName(a.Type()))
	}
	return a, mt, nil
}

func newHOF(x *Call, t arrow.DataType, args ...rex) *rHOF {
	name := strings.ToLower(x.Name)
	return &rHOF{name: name, args: args, t: t, pretty: name + "(" + sqlList(args) + ")"}
}

// transform(a, (x[, i]) -> y), filter(a, (x[, i]) -> bool), exists(a, x ->
// bool), forall(a, x -> bool).
func bindArrayLambda(r *exprResolver, x *Call) (rex, error) {
	if err := wantArgs(x, 2, 2); err != nil {
		return nil, err
	}
	a, lt, err := r.arrayArg(x, 0)
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(x.Name)
	counts := []int{1, 2}
	if name == "exists" || name == "forall" {
		counts = []int{1}
	}
	l, err := r.bindLambda(x, x.Args[1], []arrow.DataType{lt.Elem(), tInt}, counts...)
	if err != nil {
		return nil, err
	}
	switch name {
	case "transform":
		return newHOF(x, arrow.ListOf(l.body.Type()), a, l), nil
	case "filter":
		if err := r.lambdaBool(x, l); err != nil {
			return nil, err
		}
		return newHOF(x, a.Type(), a, l), nil
	}
	if err := r.lambdaBool(x, l); err != nil {
		return nil, err
	}
	return newHOF(x, tBool, a, l), nil
}

// aggregate(a, zero, (acc, x) -> acc[, acc -> result]): the merge must
// give zero's type (Spark compares them ignoring struct field names).
func bindAggregate(r *exprResolver, x *Call) (rex, error) {
	if err := wantArgs(x, 3, 4); err != nil {
		return nil, err
	}
	a, lt, err := r.arrayArg(x, 0)
	if err != nil {
		return nil, err
	}
	zero, err := r.resolve(x.Args[1])
	if err != nil {
		return nil, err
	}
	merge, err := r.bindLambda(x, x.Args[2], []arrow.DataType{zero.Type(), lt.Elem()}, 2)
	if err != nil {
		return nil, err
	}
	if !sameStructure(merge.body.Type(), zero.Type()) {
		return nil, errorf(x.Pos, "%s: the merge function gives %s, the initial value is %s; they must be of one type (cast the initial value)", x, typeName(merge.body.Type()), typeName(zero.Type()))
	}
	var finish *rLambda
	if len(x.Args) == 4 {
		if finish, err = r.bindLambda(x, x.Args[3], []arrow.DataType{zero.Type()}, 1); err != nil {
			return nil, err
		}
	} else {
		v := &rLambdaVar{name: "id", t: zero.Type(), id: subqueryIDs.Add(1)}
		finish = &rLambda{params: []*rLambdaVar{v}, body: v}
	}
	return newHOF(x, finish.body.Type(), a, zero, merge, finish), nil
}

// sameStructure is Spark's DataType.equalsStructurally: equal types but
// for struct field names.
func sameStructure(a, b arrow.DataType) bool {
	switch x := a.(type) {
	case *arrow.StructType:
		y, ok := b.(*arrow.StructType)
		if !ok || x.NumFields() != y.NumFields() {
			return false
		}
		for i := 0; i < x.NumFields(); i++ {
			if !sameStructure(x.Field(i).Type, y.Field(i).Type) {
				return false
			}
		}
		return true
	case *arrow.ListType:
		y, ok := b.(*arrow.ListType)
		return ok && sameStructure(x.Elem(), y.Elem())
	case *arrow.MapType:
		y, ok := b.(*arrow.MapType)
		return ok && sameStructure(x.KeyType(), y.KeyType()) && sameStructure(x.ItemType(), y.ItemType())
	}
	return arrow.TypeEqual(a, b)
}

// zip_with(a, b, (x, y) -> z): the longer array's length, the shorter one
// padded with NULLs.
func bindZipWith(r *exprResolver, x *Call) (rex, error) {
	if err := wantArgs(x, 3, 3); err != nil {
		return nil, err
	}
	a, at, err := r.arrayArg(x, 0)
	if err != nil {
		return nil, err
	}
	b, bt, err := r.arrayArg(x, 1)
	if err != nil {
		return nil, err
	}
	l, err := r.bindLambda(x, x.Args[2], []arrow.DataType{at.Elem(), bt.Elem()}, 2)
	if err != nil {
		return nil, err
	}
	return newHOF(x, arrow.ListOf(l.body.Type()), a, b, l), nil
}

// map_filter(m, (k, v) -> bool), transform_keys(m, (k, v) -> k2),
// transform_values(m, (k, v) -> v2).
func bindMapLambda(r *exprResolver, x *Call) (rex, error) {
	if err := wantArgs(x, 2, 2); err != nil {
		return nil, err
	}
	m, mt, err := r.mapArg(x, 0)
	if err != nil {
		return nil, err
	}
	l, err := r.bindLambda(x, x.Args[1], []arrow.DataType{mt.KeyType(), mt.ItemType()}, 2)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(x.Name) {
	case "map_filter":
		if err := r.lambdaBool(x, l); err != nil {
			return nil, err
		}
		return newHOF(x, m.Type(), m, l), nil
	case "transform_keys":
		if isNull(l.body.Type()) {
			return nil, errorf(x.Pos, "%s: map keys cannot be NULL", x)
		}
		return newHOF(x, arrow.MapOf(l.body.Type(), mt.ItemType()), m, l), nil
	}
	return newHOF(x, arrow.MapOf(mt.KeyType(), l.body.Type()), m, l), nil
}

// map_zip_with(m1, m2, (k, v1, v2) -> v): every key of either map (m1's
// first, in order), the value missing from a map NULL.
func bindMapZipWith(r *exprResolver, x *Call) (rex, error) {
	if err := wantArgs(x, 3, 3); err != nil {
		return nil, err
	}
	m1, t1, err := r.mapArg(x, 0)
	if err != nil {
		return nil, err
	}
	m2, t2, err := r.mapArg(x, 1)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(t1.KeyType(), t2.KeyType()) {
		return nil, errorf(x.Pos, "%s: the maps' keys are %s and %s; they must be of one type", x, typeName(t1.KeyType()), typeName(t2.KeyType()))
	}
	l, err := r.bindLambda(x, x.Args[2], []arrow.DataType{t1.KeyType(), t1.ItemType(), t2.ItemType()}, 3)
	if err != nil {
		return nil, err
	}
	return newHOF(x, arrow.MapOf(t1.KeyType(), l.body.Type()), m1, m2, l), nil
}

// array_sort(a, (l, r) -> int): sorted by the comparator (negative: l
// first), which must give an int and never NULL.
func bindArraySort(r *exprResolver, x *Call) (rex, error) {
	a, lt, err := r.arrayArg(x, 0)
	if err != nil {
		return nil, err
	}
	l, err := r.bindLambda(x, x.Args[1], []arrow.DataType{lt.Elem(), lt.Elem()}, 2)
	if err != nil {
		return nil, err
	}
	if l.body.Type().ID() != arrow.INT32 {
		return nil, errorf(x.Pos, "%s: the comparator must give an int, it gives %s", x, typeName(l.body.Type()))
	}
	return newHOF(x, a.Type(), a, l), nil
}
