package functions

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Constructors of nested values: see docs/sql-functions.md#constructors.

func init() {
	def(fn.Scalar{Name: "map", Group: gMap, Signature: "map(key0, value0, key1, value1, …)", Returns: "map of the keys' and values' common types",
		Bind:     bindMap,
		Doc:      "A map of the given pairs. A NULL key, or a key given twice, is an error.",
		Examples: ex("map(1.0, '2', 3.0, '4')", `{1.0:"2",3.0:"4"}`, "map('a', 1, 'b', NULL)", `{"a":1,"b":null}`)})
	def(fn.Scalar{Name: "named_struct", Group: gStruct, Signature: "named_struct(name1, val1, name2, val2, …)", Returns: "struct",
		Bind:     bindNamedStruct,
		Doc:      "A struct with the given field names (string literals) and values.",
		Examples: ex(`named_struct("a", 1, "b", 2, "c", 3)`, `{"a":1,"b":2,"c":3}`)})
	def(fn.Scalar{Name: "struct", Group: gStruct, Signature: "struct(col1, col2, col3, …)", Returns: "struct",
		Bind:     bindStruct,
		Doc:      "A struct of the values; a field is named after its argument when that is a column, otherwise `col1`, `col2`, ….",
		Examples: ex("struct(1, 2, 3)", `{"col1":1,"col2":2,"col3":3}`, "struct('a', NULL)", `{"col1":"a","col2":null}`)})
	defMaps()
}

func bindStruct(args []fn.Arg) (fn.Bound, error) {
	if len(args) == 0 {
		return fn.Bound{}, fmt.Errorf("takes at least 1 argument, got 0")
	}
	named := make([]fn.Arg, 0, 2*len(args))
	for i, a := range args {
		name := a.Name
		if name == "" {
			name = fmt.Sprintf("col%d", i+1)
		}
		named = append(named, fn.Arg{Type: stringType, Const: true, Value: name}, a)
	}
	b, err := bindNamedStruct(named)
	if err != nil {
		return b, err
	}
	eval := b.Eval
	b.Eval = func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		pairs := make([]arrow.Array, 0, 2*len(a))
		for _, x := range a {
			pairs = append(pairs, nil, x)
		}
		return eval(ctx, pairs, n)
	}
	return b, nil
}

// rowMajor is the position, in the concatenation of k arrays of n rows,
// of row i of array j: j*n + i.
func rowMajor(j, n, i int) int64 { return int64(j)*int64(n) + int64(i) }

func bindArray(args []fn.Arg) (fn.Bound, error) {
	elem, in, err := sameTypeArgs(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	return fn.Bound{Type: arrow.ListOf(elem), Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		all, err := concatOrNull(ctx.Mem, elem, a)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		lb := newListOf(ctx, elem, n)
		idx := make([]int64, 0, n*len(a))
		for i := 0; i < n; i++ {
			for j := range a {
				idx = append(idx, rowMajor(j, n, i))
			}
			lb.appendLen(len(a))
		}
		return lb.finish(all, idx)
	}}, nil
}

// concatOrNull concatenates arrays of one type (an empty array of elem for
// none).
func concatOrNull(mem memory.Allocator, elem arrow.DataType, a []arrow.Array) (arrow.Array, error) {
	if len(a) == 0 {
		return fn.NullArray(mem, elem, 0), nil
	}
	return array.Concatenate(a, mem)
}

func bindMap(args []fn.Arg) (fn.Bound, error) {
	if len(args)%2 != 0 {
		return fn.Bound{}, fmt.Errorf("takes an even number of arguments (key, value, …), got %d", len(args))
	}
	var keys, vals []fn.Arg
	for i := 0; i < len(args); i += 2 {
		keys, vals = append(keys, args[i]), append(vals, args[i+1])
	}
	kt, err := commonOf(keys, 0)
	if err != nil {
		return fn.Bound{}, fmt.Errorf("keys: %w", err)
	}
	vt, err := commonOf(vals, 0)
	if err != nil {
		return fn.Bound{}, fmt.Errorf("values: %w", err)
	}
	if isNull(kt) {
		kt = stringType
	}
	if hasMap(kt) {
		return fn.Bound{}, fmt.Errorf("map keys cannot be or hold maps, got %s", sparkName(kt))
	}
	in := make([]arrow.DataType, len(args))
	for i := range in {
		in[i] = map[bool]arrow.DataType{true: kt, false: vt}[i%2 == 0]
	}
	mt := arrow.MapOf(kt, vt)
	return fn.Bound{Type: mt, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var ka, va []arrow.Array
		for i := 0; i < len(a); i += 2 {
			ka, va = append(ka, a[i]), append(va, a[i+1])
		}
		allK, err := concatOrNull(ctx.Mem, kt, ka)
		if err != nil {
			return nil, err
		}
		defer allK.Release()
		allV, err := concatOrNull(ctx.Mem, vt, va)
		if err != nil {
			return nil, err
		}
		defer allV.Release()
		lb := newListOf(ctx, kt, n)
		idx := make([]int64, 0, n*len(ka))
		for i := 0; i < n; i++ {
			start := len(idx)
			for j := range ka {
				p := rowMajor(j, n, i)
				if nullAt(allK, int(p)) {
					return nil, fmt.Errorf("cannot use NULL as a map key (argument %d)", 2*j+1)
				}
				for _, q := range idx[start:] {
					if equalAt(allK, int(q), allK, int(p)) {
						return nil, fmt.Errorf("duplicate map key %s (argument %d)", fn.AppendSparkString(nil, allK, int(p), ctx.Loc()), 2*j+1)
					}
				}
				idx = append(idx, p)
			}
			lb.appendLen(len(idx) - start)
		}
		return lb.finishMap(mt, allK, allV, idx)
	}}, nil
}

func bindNamedStruct(args []fn.Arg) (fn.Bound, error) {
	if len(args) == 0 || len(args)%2 != 0 {
		return fn.Bound{}, fmt.Errorf("takes pairs of a field name and a value, got %d arguments", len(args))
	}
	fields := make([]arrow.Field, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		name, null, ok := constString(args[i])
		if !ok || null || !isStringType(args[i].Type) {
			return fn.Bound{}, fmt.Errorf("argument %d must be a field name literal, got %s", i+1, sparkName(args[i].Type))
		}
		fields = append(fields, arrow.Field{Name: name, Type: args[i+1].Type, Nullable: true})
	}
	st := arrow.StructOf(fields...)
	return fn.Bound{Type: st, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		children := make([]arrow.ArrayData, 0, len(fields))
		for i := 1; i < len(a); i += 2 {
			children = append(children, a[i].Data())
		}
		data := array.NewData(st, n, []*memory.Buffer{nil}, children, 0, 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	}}, nil
}
