package functions

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Map functions: see docs/sql-functions.md#map-functions. A map never
// holds a NULL key or a key twice (spark.sql.mapKeyDedupPolicy=EXCEPTION).

func defMaps() {
	def(fn.Scalar{Name: "map_concat", Group: gMap, Signature: "map_concat(map, …)", Returns: "map", Bind: bindMapConcat,
		Doc:      "The entries of all maps; NULL when one is NULL. A key in two maps is an error.",
		Examples: ex("map_concat(map(1, 'a', 2, 'b'), map(3, 'c'))", `{1:"a",2:"b",3:"c"}`)})
	def(fn.Scalar{Name: "map_contains_key", Group: gMap, Signature: "map_contains_key(map, key)", Returns: "boolean", Bind: bindMapContainsKey,
		Doc: "Whether `map` has `key`. The key must meet the map's key type without becoming a string " +
			"(`map_contains_key(map('1', 'a'), 1)` is an error) and cannot be NULL.",
		Examples: ex("map_contains_key(map(1, 'a', 2, 'b'), 1)", "true", "map_contains_key(map(1, 'a', 2, 'b'), 3)", "false")})
	def(fn.Scalar{Name: "map_entries", Group: gMap, Signature: "map_entries(map)", Returns: "array<struct<key, value>>", Bind: bindMapEntries,
		Doc:      "The entries of `map` as an array of `key`/`value` structs.",
		Examples: ex("map_entries(map(1, 'a', 2, 'b'))", `[{"key":1,"value":"a"},{"key":2,"value":"b"}]`)})
	def(fn.Scalar{Name: "map_from_arrays", Group: gMap, Signature: "map_from_arrays(keys, values)", Returns: "map", Bind: bindMapFromArrays,
		Doc:      "The map pairing `keys` with `values` (arrays of one length). A NULL or repeated key is an error.",
		Examples: ex("map_from_arrays(array(1.0, 3.0), array('2', '4'))", `{1.0:"2",3.0:"4"}`)})
	def(fn.Scalar{Name: "map_from_entries", Group: gMap, Signature: "map_from_entries(arrayOfEntries)", Returns: "map", Bind: bindMapFromEntries,
		Doc:      "The map of an array of two-field structs (key, value); NULL when an entry is NULL. A NULL or repeated key is an error.",
		Examples: ex("map_from_entries(array(struct(1, 'a'), struct(2, 'b')))", `{1:"a",2:"b"}`)})
	def(fn.Scalar{Name: "map_keys", Group: gMap, Signature: "map_keys(map)", Returns: "array of the key type", Bind: bindMapPart(true),
		Doc: "The keys of `map`, in its order.", Examples: ex("map_keys(map(1, 'a', 2, 'b'))", "[1,2]")})
	def(fn.Scalar{Name: "map_values", Group: gMap, Signature: "map_values(map)", Returns: "array of the value type", Bind: bindMapPart(false),
		Doc: "The values of `map`, in its order.", Examples: ex("map_values(map(1, 'a', 2, 'b'))", `["a","b"]`)})
	def(fn.Scalar{Name: "str_to_map", Group: gMap, Signature: "str_to_map(text[, pairDelim[, keyValueDelim]])", Returns: "map<string,string>",
		Bind: bindStrToMap,
		Doc: "`text` split into pairs at `pairDelim` (default `,`) and each pair into key and value at `keyValueDelim` (default `:`); " +
			"both delimiters are regular expressions. A pair without a delimiter has a NULL value; a repeated key is an error.",
		Examples: ex("str_to_map('a:1,b:2,c:3', ',', ':')", `{"a":"1","b":"2","c":"3"}`, "str_to_map('a')", `{"a":null}`)},
		pretty(withDefaults(3, ",", ":")))
}

func mapArg(args []fn.Arg, i int) (*arrow.MapType, error) {
	switch t := args[i].Type.(type) {
	case *arrow.MapType:
		return t, nil
	case *arrow.NullType:
		return arrow.MapOf(stringType, stringType), nil
	}
	return nil, argErr(i, args[i], "a map")
}

// dupKey checks keys[p] against keys[idx[from:]].
func dupKey(keys arrow.Array, idx []int64, from int, p int64) error {
	if nullAt(keys, int(p)) {
		return fmt.Errorf("cannot use NULL as a map key")
	}
	for _, q := range idx[from:] {
		if equalAt(keys, int(q), keys, int(p)) {
			return fmt.Errorf("duplicate map key %s", fn.AppendSparkString(nil, keys, int(p), nil))
		}
	}
	return nil
}

func bindMapConcat(args []fn.Arg) (fn.Bound, error) {
	if len(args) == 0 {
		mt := arrow.MapOf(stringType, stringType)
		return fn.Bound{Type: mt, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			lb := newListOf(ctx, stringType, n)
			for i := 0; i < n; i++ {
				lb.appendLen(0)
			}
			empty := fn.NullArray(ctx.Mem, stringType, 0)
			defer empty.Release()
			return lb.finishMap(mt, empty, empty, nil)
		}}, nil
	}
	var kt, vt arrow.DataType = arrow.Null, arrow.Null
	for i := range args {
		mt, err := mapArg(args, i)
		if err != nil {
			return fn.Bound{}, err
		}
		var ok1, ok2 bool
		kt, ok1 = commonType(kt, mt.KeyType())
		vt, ok2 = commonType(vt, mt.ItemType())
		if !ok1 || !ok2 {
			return fn.Bound{}, fmt.Errorf("argument %d (%s) does not fit the other maps", i+1, sparkName(args[i].Type))
		}
	}
	mt := arrow.MapOf(kt, vt)
	in := make([]arrow.DataType, len(args))
	for i := range in {
		in[i] = mt
	}
	return fn.Bound{Type: mt, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		var ks, vs []arrow.Array
		var base []int64
		total := int64(0)
		for _, x := range a {
			m := x.(*array.Map)
			ks, vs = append(ks, m.Keys()), append(vs, m.Items())
			base = append(base, total)
			total += int64(m.Keys().Len())
		}
		keys, err := array.Concatenate(ks, ctx.Mem)
		if err != nil {
			return nil, err
		}
		defer keys.Release()
		items, err := array.Concatenate(vs, ctx.Mem)
		if err != nil {
			return nil, err
		}
		defer items.Release()
		lb, idx, err := gatherLists(ctx, kt, n, a, func(i int, idx []int64) ([]int64, bool, error) {
			k := len(idx)
			for m, x := range a {
				s, e := x.(*array.Map).ValueOffsets(i)
				for j := s; j < e; j++ {
					if err := dupKey(keys, idx, k, base[m]+j); err != nil {
						return nil, false, err
					}
					idx = append(idx, base[m]+j)
				}
			}
			return idx, true, nil
		})
		if err != nil {
			return nil, err
		}
		return lb.finishMap(mt, keys, items, idx)
	}}, nil
}

func bindMapContainsKey(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	mt, err := mapArg(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	// Spark's map_contains_key is array_contains(map_keys(m), key): a NULL
	// key is refused, and the key meets the map's key type without turning
	// either into a string.
	if isNull(args[1].Type) {
		return fn.Bound{}, fmt.Errorf("argument 2 (the key) cannot be NULL")
	}
	kt, ok := widerWithoutString(mt.KeyType(), args[1].Type)
	if !ok {
		return fn.Bound{}, fmt.Errorf("argument 2 must be of the map's key type %s, got %s", sparkName(mt.KeyType()), sparkName(args[1].Type))
	}
	cast := arrow.MapOf(kt, mt.ItemType())
	return fn.Bound{Type: boolType, Args: []arrow.DataType{cast, kt}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		m := a[0].(*array.Map)
		keys := m.Keys()
		return rowsOf(ctx, boolType, a, n, func(r row) (bool, bool) {
			s, e := m.ValueOffsets(r.i)
			for j := s; j < e; j++ {
				if equalAt(keys, int(j), a[1], r.i) {
					return true, true
				}
			}
			return false, true
		}), nil
	}}, nil
}

func bindMapEntries(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 1, 1); err != nil {
		return fn.Bound{}, err
	}
	mt, err := mapArg(args, 0)
	if err != nil {
		return fn.Bound{}, err
	}
	st := arrow.StructOf(arrow.Field{Name: "key", Type: mt.KeyType()}, arrow.Field{Name: "value", Type: mt.ItemType(), Nullable: true})
	out := arrow.ListOf(st)
	return fn.Bound{Type: out, Args: []arrow.DataType{mt}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		m := a[0].(*array.Map)
		entries := array.NewData(st, m.Keys().Len(), []*memory.Buffer{nil}, []arrow.ArrayData{m.Keys().Data(), m.Items().Data()}, 0, 0)
		defer entries.Release()
		ea := array.MakeFromData(entries)
		defer ea.Release()
		return listsOf(ctx, st, ea, n, []arrow.Array{m}, func(i int, idx []int64) ([]int64, bool, error) {
			s, e := m.ValueOffsets(i)
			return appendRange(idx, s, e), true, nil
		})
	}}, nil
}

func bindMapFromArrays(args []fn.Arg) (fn.Bound, error) {
	if err := arity(args, 2, 2); err != nil {
		return fn.Bound{}, err
	}
	kl, err := listArg(args[:1], 0, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	vl, err := listArg(args[1:], 0, 1)
	if err != nil {
		return fn.Bound{}, fmt.Errorf("argument 2 must be an array, got %s", sparkName(args[1].Type))
	}
	mt := arrow.MapOf(kl.Elem(), vl.Elem())
	return fn.Bound{Type: mt, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		keys, items := listValues(a[0]), listValues(a[1])
		lb := newListOf(ctx, kl.Elem(), n)
		var kidx, vidx []int64
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				lb.appendNull()
				continue
			}
			s1, e1 := listPos(a[0], i)
			s2, e2 := listPos(a[1], i)
			if e1-s1 != e2-s2 {
				return nil, fmt.Errorf("the key array and the value array differ in length (%d and %d)", e1-s1, e2-s2)
			}
			k := len(kidx)
			for j := int64(0); j < e1-s1; j++ {
				if err := dupKey(keys, kidx, k, s1+j); err != nil {
					return nil, err
				}
				kidx = append(kidx, s1+j)
				vidx = append(vidx, s2+j)
			}
			lb.appendLen(int(e1 - s1))
		}
		return finishMapPairs(ctx, lb, mt, keys, kidx, items, vidx)
	}}, nil
}

// finishMapPairs wraps the entries keys[kidx[k]] → items[vidx[k]].
func finishMapPairs(ctx *fn.Ctx, lb *listOut, mt *arrow.MapType, keys arrow.Array, kidx []int64, items arrow.Array, vidx []int64) (arrow.Array, error) {
	k, err := takeValues(ctx.Mem, keys, kidx)
	if err != nil {
		return nil, err
	}
	defer k.Release()
	v, err := takeValues(ctx.Mem, items, vidx)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	identity := make([]int64, len(kidx))
	for j := range identity {
		identity[j] = int64(j)
	}
	return lb.finishMap(mt, k, v, identity)
}

func bindMapFromEntries(args []fn.Arg) (fn.Bound, error) {
	lt, err := listArg(args, 0, 1)
	if err != nil {
		return fn.Bound{}, err
	}
	st, ok := lt.Elem().(*arrow.StructType)
	if !ok || st.NumFields() != 2 {
		return fn.Bound{}, argErr(0, args[0], "an array of two-field structs")
	}
	mt := arrow.MapOf(st.Field(0).Type, st.Field(1).Type)
	return fn.Bound{Type: mt, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		entries := listValues(a[0]).(*array.Struct)
		keys, items := entries.Field(0), entries.Field(1)
		lb, idx, err := gatherLists(ctx, st.Field(0).Type, n, a, func(i int, idx []int64) ([]int64, bool, error) {
			s, e := listPos(a[0], i)
			k := len(idx)
			for j := s; j < e; j++ {
				if nullAt(entries, int(j)) {
					return idx, false, nil
				}
				if err := dupKey(keys, idx, k, j); err != nil {
					return nil, false, err
				}
				idx = append(idx, j)
			}
			return idx, true, nil
		})
		if err != nil {
			return nil, err
		}
		return lb.finishMap(mt, keys, items, idx)
	}}, nil
}

func bindMapPart(keys bool) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		if err := arity(args, 1, 1); err != nil {
			return fn.Bound{}, err
		}
		mt, err := mapArg(args, 0)
		if err != nil {
			return fn.Bound{}, err
		}
		elem := mt.ItemType()
		if keys {
			elem = mt.KeyType()
		}
		return fn.Bound{Type: arrow.ListOf(elem), Args: []arrow.DataType{mt}, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			m := a[0].(*array.Map)
			vals := m.Items()
			if keys {
				vals = m.Keys()
			}
			return listsOf(ctx, elem, vals, n, []arrow.Array{m}, func(i int, idx []int64) ([]int64, bool, error) {
				s, e := m.ValueOffsets(i)
				idx = appendRange(idx, s, e)
				return idx, true, nil
			})
		}}, nil
	}
}

func bindStrToMap(args []fn.Arg) (fn.Bound, error) {
	in, err := signature(args, "s|ss")
	if err != nil {
		return fn.Bound{}, err
	}
	pairs, err := newCache(args, 1, ",", compileRegex)
	if err != nil {
		return fn.Bound{}, err
	}
	kvs, err := newCache(args, 2, ":", compileRegex)
	if err != nil {
		return fn.Bound{}, err
	}
	mt := arrow.MapOf(stringType, stringType)
	return fn.Bound{Type: mt, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		pc, kc := pairs.forEval(), kvs.forEval()
		b := array.NewMapBuilder(ctx.Mem, stringType, stringType, false)
		defer b.Release()
		kb, vb := b.KeyBuilder().(*array.StringBuilder), b.ItemBuilder().(*array.StringBuilder)
		for i := 0; i < n; i++ {
			if anyNull(a, i) {
				b.AppendNull()
				continue
			}
			pre, kre := pc.fixed, kc.fixed
			if !pc.hasFixed {
				if pre, err = pc.at(a, i); err != nil {
					return nil, err
				}
			}
			if !kc.hasFixed {
				if kre, err = kc.at(a, i); err != nil {
					return nil, err
				}
			}
			b.Append(true)
			seen := map[string]bool{}
			text := a[0].(*array.String).Value(i)
			entries, err := splitJava(text, pre.String(), pre, -1)
			if err != nil {
				return nil, err
			}
			for _, kv := range entries {
				parts, err := splitJava(kv, kre.String(), kre, 2)
				if err != nil {
					return nil, err
				}
				if seen[parts[0]] {
					return nil, fmt.Errorf("duplicate map key %s", parts[0])
				}
				seen[parts[0]] = true
				kb.Append(parts[0])
				if len(parts) == 2 {
					vb.Append(parts[1])
				} else {
					vb.AppendNull()
				}
			}
		}
		return b.NewArray(), nil
	}}, nil
}
