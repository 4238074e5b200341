package query

import (
	"fmt"
	"sort"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/sluicedata/sluice/dataframe"
)

// How higher-order functions run: each lambda is compiled once, and each
// call evaluates its body once per batch over every element the batch
// binds it to (see hof.go and docs/sql.md#higher-order-functions).

// lambdaC is a lambda compiled to run over a batch of bound values: its
// body reads a record of the outer columns it uses (repeated by each
// value's row), then one column per parameter.
type lambdaC struct {
	body    *cexpr
	outer   []int
	schema  *arrow.Schema
	nparams int
	t       arrow.DataType
}

func compileLambda(e rex) (*lambdaC, error) {
	lam, ok := e.(*rLambda)
	if !ok {
		return nil, fmt.Errorf("query: %T where a lambda was expected (a planner bug)", e)
	}
	pos := map[int]int{}
	var outer []int
	var fields []arrow.Field
	walkRex(lam.body, func(x rex) bool {
		if c, ok := x.(*rCol); ok {
			if _, seen := pos[c.idx]; !seen {
				pos[c.idx] = len(outer)
				outer = append(outer, c.idx)
				fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", c.idx), Type: c.t, Nullable: true})
			}
		}
		return true
	})
	params := map[*rLambdaVar]int{}
	for i, p := range lam.params {
		params[p] = len(outer) + i
		fields = append(fields, arrow.Field{Name: p.name, Type: p.t, Nullable: true})
	}
	body, _ := mapRex(lam.body, func(x rex) (rex, error) {
		switch v := x.(type) {
		case *rCol:
			n := *v
			n.idx = pos[v.idx]
			return &n, nil
		case *rLambdaVar:
			if i, ok := params[v]; ok {
				return &rCol{idx: i, t: v.t, name: v.name}, nil
			}
		}
		return x, nil
	})
	cb, err := compile(body)
	if err != nil {
		return nil, err
	}
	return &lambdaC{body: cb, outer: outer, schema: arrow.NewSchema(fields, nil), nparams: len(lam.params), t: lam.body.Type()}, nil
}

// eval runs the body over m bound values: vars holds (at least) one array
// of m values per parameter; parent is each value's row of rec (nil: value
// i is row i).
func (l *lambdaC) eval(ec *ectx, rec arrow.Record, parent []int64, vars []arrow.Array, m int) (arrow.Array, error) {
	cols := make([]arrow.Array, 0, len(l.outer)+l.nparams)
	defer func() { releaseAll(cols) }()
	for _, c := range l.outer {
		col := rec.Column(c)
		if parent == nil {
			col.Retain()
			cols = append(cols, col)
			continue
		}
		t, err := dataframe.Take(ec.mem, col, parent)
		if err != nil {
			return nil, err
		}
		cols = append(cols, t)
	}
	for _, v := range vars[:l.nparams] {
		v.Retain()
		cols = append(cols, v)
	}
	in := array.NewRecord(l.schema, cols, int64(m))
	defer in.Release()
	return l.body.eval(ec, in)
}

func compileHOF(x *rHOF) (*cexpr, error) {
	args := make([]*cexpr, 0, len(x.args))
	var lams []*lambdaC
	for _, a := range x.args {
		if _, ok := a.(*rLambda); ok {
			l, err := compileLambda(a)
			if err != nil {
				return nil, err
			}
			lams = append(lams, l)
			continue
		}
		c, err := compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, c)
	}
	var f func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error)
	switch x.name {
	case "transform", "filter", "exists", "forall":
		f = func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error) {
			return evalArrayLambda(ec, x, rec, vals[0].(*array.List), lams[0])
		}
	case "aggregate", "reduce":
		f = func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error) {
			return evalAggregate(ec, x, rec, vals[0].(*array.List), vals[1], lams[0], lams[1])
		}
	case "zip_with":
		f = func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error) {
			return evalZipWith(ec, x, rec, vals[0].(*array.List), vals[1].(*array.List), lams[0])
		}
	case "map_filter", "transform_keys", "transform_values":
		f = func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error) {
			return evalMapLambda(ec, x, rec, vals[0].(*array.Map), lams[0])
		}
	case "map_zip_with":
		f = func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error) {
			return evalMapZipWith(ec, x, rec, vals[0].(*array.Map), vals[1].(*array.Map), lams[0])
		}
	case "array_sort":
		f = func(ec *ectx, rec arrow.Record, vals []arrow.Array) (arrow.Array, error) {
			return evalArraySort(ec, x, rec, vals[0].(*array.List), lams[0])
		}
	default:
		return nil, fmt.Errorf("query: no evaluation of %s (a planner bug)", x.name)
	}
	return &cexpr{typ: x.t, eval: func(ec *ectx, rec arrow.Record) (arrow.Array, error) {
		vals, err := evalExprs(ec, args, rec)
		if err != nil {
			return nil, err
		}
		defer releaseAll(vals)
		out, err := f(ec, rec, vals)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x.name, err)
		}
		return out, nil
	}}, nil
}

// flat is the elements of the non-NULL rows of a list (or map) array, in
// order: for each its position in the child array, its row and its index
// in its row; offsets are the rows' new offsets.
type flat struct {
	idx, parent []int64
	pos         []int32
	offsets     []int32
}

func flatten(l *array.List) flat {
	return flattenRows(l.Len(), l.IsNull, l.ValueOffsets)
}

func flattenMap(m *array.Map) flat {
	return flattenRows(m.Len(), m.IsNull, m.ValueOffsets)
}

func flattenRows(n int, isNull func(int) bool, offs func(int) (int64, int64)) flat {
	f := flat{offsets: make([]int32, n+1)}
	for i := 0; i < n; i++ {
		f.offsets[i+1] = f.offsets[i]
		if isNull(i) {
			continue
		}
		s, e := offs(i)
		for j := s; j < e; j++ {
			f.idx = append(f.idx, j)
			f.parent = append(f.parent, int64(i))
			f.pos = append(f.pos, int32(j-s))
		}
		f.offsets[i+1] += int32(e - s)
	}
	return f
}

// kept is the elements a predicate b (one per element of rows with
// offsets) is true for, and the rows' offsets over them.
func kept(b *array.Boolean, offsets []int32) ([]int64, []int32) {
	var keep []int64
	out := make([]int32, len(offsets))
	for i := 0; i+1 < len(offsets); i++ {
		out[i+1] = out[i]
		for j := offsets[i]; j < offsets[i+1]; j++ {
			if b.IsValid(int(j)) && b.Value(int(j)) {
				keep = append(keep, int64(j))
				out[i+1]++
			}
		}
	}
	return keep, out
}

// gather is the elements of child at f's positions (a slice when they are
// contiguous).
func gather(ec *ectx, child arrow.Array, idx []int64) (arrow.Array, error) {
	contiguous := len(idx) > 0
	for j, k := range idx {
		if k != idx[0]+int64(j) {
			contiguous = false
			break
		}
	}
	if contiguous {
		return array.NewSlice(child, idx[0], idx[0]+int64(len(idx))), nil
	}
	return dataframe.Take(ec.mem, child, idx)
}

func int32Array(mem memory.Allocator, vs []int32) arrow.Array {
	buf, out := allocFixed[int32](mem, len(vs))
	copy(out, vs)
	return fixedArray(arrow.PrimitiveTypes.Int32, len(vs), nil, buf)
}

// makeNested builds a list (or map) array of n rows over child, NULL where
// null says, with offsets.
func makeNested(mem memory.Allocator, t arrow.DataType, n int, null func(int) bool, offsets []int32, child arrow.ArrayData) arrow.Array {
	offBuf, offs := allocFixed[int32](mem, n+1)
	copy(offs, offsets)
	var valid *memory.Buffer
	nulls := 0
	for i := 0; i < n; i++ {
		if null(i) {
			if valid == nil {
				valid = newValidity(mem, n)
			}
			valid.Bytes()[i/8] &^= 1 << (i % 8)
			nulls++
		}
	}
	d := array.NewData(t, n, []*memory.Buffer{valid, offBuf}, []arrow.ArrayData{child}, nulls, 0)
	offBuf.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// makeMap builds a map array of n rows over parallel keys and items.
func makeMap(mem memory.Allocator, t *arrow.MapType, n int, null func(int) bool, offsets []int32, keys, items arrow.Array) arrow.Array {
	entries := array.NewData(t.Elem(), keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), items.Data()}, 0, 0)
	defer entries.Release()
	return makeNested(mem, t, n, null, offsets, entries)
}

// relabel gives an array a structurally equal type (struct field names
// differ): the aggregate's accumulator keeps its initial value's names.
func relabel(a arrow.Array, t arrow.DataType) arrow.Array {
	if arrow.TypeEqual(a.DataType(), t) {
		a.Retain()
		return a
	}
	d := relabelData(a.Data(), t)
	defer d.Release()
	return array.MakeFromData(d)
}

func relabelData(d arrow.ArrayData, t arrow.DataType) arrow.ArrayData {
	var kids []arrow.ArrayData
	switch x := t.(type) {
	case *arrow.StructType:
		for i, c := range d.Children() {
			kids = append(kids, relabelData(c, x.Field(i).Type))
		}
	case *arrow.MapType:
		kids = []arrow.ArrayData{relabelData(d.Children()[0], x.Elem())}
	case *arrow.ListType:
		kids = []arrow.ArrayData{relabelData(d.Children()[0], x.Elem())}
	default:
		kids = d.Children()
		for _, k := range kids {
			k.Retain()
		}
		defer func() {
			for _, k := range kids {
				k.Release()
			}
		}()
		return array.NewData(t, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset())
	}
	defer func() {
		for _, k := range kids {
			k.Release()
		}
	}()
	return array.NewData(t, d.Len(), d.Buffers(), kids, d.NullN(), d.Offset())
}

func evalArrayLambda(ec *ectx, x *rHOF, rec arrow.Record, l *array.List, lam *lambdaC) (arrow.Array, error) {
	n := l.Len()
	f := flatten(l)
	vals, err := gather(ec, l.ListValues(), f.idx)
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	pos := int32Array(ec.mem, f.pos)
	defer pos.Release()
	out, err := lam.eval(ec, rec, f.parent, []arrow.Array{vals, pos}, len(f.idx))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	switch x.name {
	case "transform":
		return makeNested(ec.mem, x.t, n, l.IsNull, f.offsets, out.Data()), nil
	case "filter":
		keep, offsets := kept(out.(*array.Boolean), f.offsets)
		sel, err := dataframe.Take(ec.mem, vals, keep)
		if err != nil {
			return nil, err
		}
		defer sel.Release()
		return makeNested(ec.mem, x.t, n, l.IsNull, offsets, sel.Data()), nil
	}
	// exists: true if one is true, else NULL if one is NULL, else false;
	// forall: false if one is false, else NULL if one is NULL, else true.
	b := out.(*array.Boolean)
	all := x.name == "forall"
	valid := newValidity(ec.mem, n)
	vb := valid.Bytes()
	return boolArray(ec.mem, n, valid, func(i int) bool {
		if l.IsNull(i) {
			vb[i/8] &^= 1 << (i % 8)
			return false
		}
		sawNull := false
		for j := f.offsets[i]; j < f.offsets[i+1]; j++ {
			if b.IsNull(int(j)) {
				sawNull = true
			} else if b.Value(int(j)) != all {
				return !all
			}
		}
		if sawNull {
			vb[i/8] &^= 1 << (i % 8)
			return false
		}
		return all
	}), nil
}

// evalAggregate folds every row's elements into its accumulator, one
// element position at a time over all the rows that still have one.
func evalAggregate(ec *ectx, x *rHOF, rec arrow.Record, l *array.List, zero arrow.Array, merge, finish *lambdaC) (arrow.Array, error) {
	n := l.Len()
	accType := zero.DataType()
	var active []int64 // rows still folding, in order
	for i := 0; i < n; i++ {
		if !l.IsNull(i) {
			active = append(active, int64(i))
		}
	}
	acc, err := dataframe.Take(ec.mem, zero, active)
	if err != nil {
		return nil, err
	}
	var pieces []arrow.Array // acc of the rows finished at each step
	defer func() { releaseAll(pieces) }()
	if len(active) == 0 {
		pieces = append(pieces, acc)
	}
	where := make([]int64, n) // a row's final accumulator in pieces
	base := int64(0)
	values := l.ListValues()
	for k := int64(0); len(active) > 0; k++ {
		var cont []int64 // positions in active of the rows with element k
		var elems, rows []int64
		for p, i := range active {
			s, e := l.ValueOffsets(int(i))
			if s+k < e {
				cont = append(cont, int64(p))
				elems = append(elems, s+k)
				rows = append(rows, i)
			} else {
				where[i] = base + int64(p)
			}
		}
		pieces = append(pieces, acc)
		base += int64(len(active))
		if len(cont) == 0 {
			break
		}
		accK, err := dataframe.Take(ec.mem, acc, cont)
		if err != nil {
			return nil, err
		}
		elemK, err := dataframe.Take(ec.mem, values, elems)
		if err != nil {
			accK.Release()
			return nil, err
		}
		next, err := merge.eval(ec, rec, rows, []arrow.Array{accK, elemK}, len(rows))
		accK.Release()
		elemK.Release()
		if err != nil {
			return nil, err
		}
		acc = relabel(next, accType)
		next.Release()
		active = rows
	}
	all, err := concatArrays(ec.mem, accType, pieces)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	valid := make([]bool, n)
	for i := range valid {
		valid[i] = !l.IsNull(i)
	}
	final, err := takeNullable(ec.mem, all, where, valid)
	if err != nil {
		return nil, err
	}
	defer final.Release()
	out, err := finish.eval(ec, rec, nil, []arrow.Array{final}, n)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	return takeNullable(ec.mem, out, idx, valid)
}

func evalZipWith(ec *ectx, x *rHOF, rec arrow.Record, a, b *array.List, lam *lambdaC) (arrow.Array, error) {
	n := a.Len()
	null := func(i int) bool { return a.IsNull(i) || b.IsNull(i) }
	offsets := make([]int32, n+1)
	var ia, ib, parent []int64
	var va, vb []bool
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if null(i) {
			continue
		}
		as, ae := a.ValueOffsets(i)
		bs, be := b.ValueOffsets(i)
		m := max(ae-as, be-bs)
		for j := int64(0); j < m; j++ {
			ia, va = append(ia, as+j), append(va, as+j < ae)
			ib, vb = append(ib, bs+j), append(vb, bs+j < be)
			parent = append(parent, int64(i))
		}
		offsets[i+1] += int32(m)
	}
	xa, err := takeNullable(ec.mem, a.ListValues(), ia, va)
	if err != nil {
		return nil, err
	}
	defer xa.Release()
	xb, err := takeNullable(ec.mem, b.ListValues(), ib, vb)
	if err != nil {
		return nil, err
	}
	defer xb.Release()
	out, err := lam.eval(ec, rec, parent, []arrow.Array{xa, xb}, len(parent))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return makeNested(ec.mem, x.t, n, null, offsets, out.Data()), nil
}

func evalMapLambda(ec *ectx, x *rHOF, rec arrow.Record, m *array.Map, lam *lambdaC) (arrow.Array, error) {
	n := m.Len()
	f := flattenMap(m)
	keys, err := gather(ec, m.Keys(), f.idx)
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	items, err := gather(ec, m.Items(), f.idx)
	if err != nil {
		return nil, err
	}
	defer items.Release()
	out, err := lam.eval(ec, rec, f.parent, []arrow.Array{keys, items}, len(f.idx))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	mt := x.t.(*arrow.MapType)
	switch x.name {
	case "transform_values":
		return makeMap(ec.mem, mt, n, m.IsNull, f.offsets, keys, out), nil
	case "transform_keys":
		if err := checkMapKeys(out, f.offsets); err != nil {
			return nil, err
		}
		return makeMap(ec.mem, mt, n, m.IsNull, f.offsets, out, items), nil
	}
	keep, offsets := kept(out.(*array.Boolean), f.offsets)
	k2, err := dataframe.Take(ec.mem, keys, keep)
	if err != nil {
		return nil, err
	}
	defer k2.Release()
	v2, err := dataframe.Take(ec.mem, items, keep)
	if err != nil {
		return nil, err
	}
	defer v2.Release()
	return makeMap(ec.mem, mt, n, m.IsNull, offsets, k2, v2), nil
}

// checkMapKeys refuses a NULL key and a key twice in one map, as Spark
// (spark.sql.mapKeyDedupPolicy=EXCEPTION, its default).
func checkMapKeys(keys arrow.Array, offsets []int32) error {
	enc := keyEncoder(keys)
	for i := 0; i+1 < len(offsets); i++ {
		seen := map[string]bool{}
		for j := int(offsets[i]); j < int(offsets[i+1]); j++ {
			if isNullAt(keys, j) {
				return fmt.Errorf("cannot use NULL as a map key")
			}
			k := string(enc(nil, j))
			if seen[k] {
				return fmt.Errorf("duplicate map key %s (Spark's DUPLICATED_MAP_KEY)", dataframe.AppendJSONValue(nil, keys, j))
			}
			seen[k] = true
		}
	}
	return nil
}

func evalMapZipWith(ec *ectx, x *rHOF, rec arrow.Record, m1, m2 *array.Map, lam *lambdaC) (arrow.Array, error) {
	n := m1.Len()
	null := func(i int) bool { return m1.IsNull(i) || m2.IsNull(i) }
	k1, k2 := m1.Keys(), m2.Keys()
	enc1, enc2 := keyEncoder(k1), keyEncoder(k2)
	offsets := make([]int32, n+1)
	var kidx, i1, i2, parent []int64
	var v1, v2 []bool
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if null(i) {
			continue
		}
		s1, e1 := m1.ValueOffsets(i)
		s2, e2 := m2.ValueOffsets(i)
		in2 := map[string]int64{}
		for j := s2; j < e2; j++ {
			in2[string(enc2(nil, int(j)))] = j
		}
		used := map[int64]bool{}
		add := func(k, a, b int64, va, vb bool) {
			kidx, i1, i2 = append(kidx, k), append(i1, a), append(i2, b)
			v1, v2 = append(v1, va), append(v2, vb)
			parent = append(parent, int64(i))
			offsets[i+1]++
		}
		for j := s1; j < e1; j++ {
			b, ok := in2[string(enc1(nil, int(j)))]
			used[b] = ok
			add(j, j, b, true, ok)
		}
		for j := s2; j < e2; j++ {
			if !used[j] {
				add(int64(k1.Len())+j, 0, j, false, true)
			}
		}
	}
	allKeys, err := concatArrays(ec.mem, k1.DataType(), []arrow.Array{k1, k2})
	if err != nil {
		return nil, err
	}
	defer allKeys.Release()
	keys, err := dataframe.Take(ec.mem, allKeys, kidx)
	if err != nil {
		return nil, err
	}
	defer keys.Release()
	a, err := takeNullable(ec.mem, m1.Items(), i1, v1)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	b, err := takeNullable(ec.mem, m2.Items(), i2, v2)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	out, err := lam.eval(ec, rec, parent, []arrow.Array{keys, a, b}, len(parent))
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return makeMap(ec.mem, x.t.(*arrow.MapType), n, null, offsets, keys, out), nil
}

// maxSortPairs bounds the comparisons array_sort evaluates at once.
const maxSortPairs = 1 << 16

// evalArraySort sorts each row with the comparator: the comparisons of a
// short row are all evaluated in one batch (with other rows'), a long
// row's one at a time as the sort asks for them.
func evalArraySort(ec *ectx, x *rHOF, rec arrow.Record, l *array.List, lam *lambdaC) (arrow.Array, error) {
	n := l.Len()
	values := l.ListValues()
	// compare evaluates the comparator on pairs of elements (of row
	// rows[k]).
	compare := func(rows, left, right []int64) ([]int32, error) {
		a, err := dataframe.Take(ec.mem, values, left)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		b, err := dataframe.Take(ec.mem, values, right)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		out, err := lam.eval(ec, rec, rows, []arrow.Array{a, b}, len(rows))
		if err != nil {
			return nil, err
		}
		defer out.Release()
		c := out.(*array.Int32)
		res := make([]int32, len(rows))
		for i := range res {
			if c.IsNull(i) {
				return nil, fmt.Errorf("the comparator gave NULL (Spark's COMPARATOR_RETURNS_NULL)")
			}
			res[i] = c.Value(i)
		}
		return res, nil
	}
	order := make([]int64, 0, values.Len())
	offsets := make([]int32, n+1)
	var batch []int // rows whose comparisons are batched
	pairs := 0
	sortRows := func() error {
		var rows, left, right []int64
		for _, i := range batch {
			s, e := l.ValueOffsets(i)
			for p := s; p < e; p++ {
				for q := s; q < e; q++ {
					if p != q {
						rows, left, right = append(rows, int64(i)), append(left, p), append(right, q)
					}
				}
			}
		}
		res, err := compare(rows, left, right)
		if err != nil {
			return err
		}
		k := 0
		for _, i := range batch {
			s, e := l.ValueOffsets(i)
			L := int(e - s)
			m := make([]int32, L*L)
			for p := 0; p < L; p++ {
				for q := 0; q < L; q++ {
					if p != q {
						m[p*L+q] = res[k]
						k++
					}
				}
			}
			idx := make([]int, L)
			for j := range idx {
				idx[j] = j
			}
			sort.SliceStable(idx, func(a, b int) bool { return m[idx[a]*L+idx[b]] < 0 })
			at := offsets[i]
			for j, p := range idx {
				order[int(at)+j] = s + int64(p)
			}
		}
		batch, pairs = batch[:0], 0
		return nil
	}
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if l.IsNull(i) {
			continue
		}
		s, e := l.ValueOffsets(i)
		L := int(e - s)
		offsets[i+1] += int32(L)
		for j := s; j < e; j++ {
			order = append(order, j)
		}
		if L < 2 {
			continue
		}
		if L*(L-1) <= maxSortPairs {
			if pairs+L*(L-1) > maxSortPairs {
				if err := sortRows(); err != nil {
					return nil, err
				}
			}
			batch = append(batch, i)
			pairs += L * (L - 1)
			continue
		}
		// A long row: one comparison at a time.
		idx := make([]int64, L)
		for j := range idx {
			idx[j] = s + int64(j)
		}
		var cerr error
		sort.SliceStable(idx, func(a, b int) bool {
			if cerr != nil {
				return false
			}
			res, err := compare([]int64{int64(i)}, []int64{idx[a]}, []int64{idx[b]})
			if err != nil {
				cerr = err
				return false
			}
			return res[0] < 0
		})
		if cerr != nil {
			return nil, cerr
		}
		copy(order[offsets[i]:], idx)
	}
	if len(batch) > 0 {
		if err := sortRows(); err != nil {
			return nil, err
		}
	}
	sorted, err := dataframe.Take(ec.mem, values, order)
	if err != nil {
		return nil, err
	}
	defer sorted.Release()
	return makeNested(ec.mem, x.t, n, l.IsNull, offsets, sorted.Data()), nil
}
