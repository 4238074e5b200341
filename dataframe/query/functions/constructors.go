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
	register(bindArray, "array")
	register(bindMap, "map")
	register(bindNamedStruct, "named_struct")
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
		return array.MakeArrayOfNull(mem, elem, 0), nil
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
	if !isAtomic(kt) {
		return fn.Bound{}, fmt.Errorf("map keys must be atomic, got %s", sparkName(kt))
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
				if allK.IsNull(int(p)) {
					return nil, fmt.Errorf("cannot use NULL as a map key (argument %d)", 2*j+1)
				}
				for _, q := range idx[start:] {
					if equalAt(allK, int(q), allK, int(p)) {
						return nil, fmt.Errorf("duplicate map key %s (argument %d)", fn.AppendSparkString(nil, allK, int(p)), 2*j+1)
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
