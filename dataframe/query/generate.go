package query

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// Generators (Spark's explode, posexplode, inline, stack and their _outer
// forms) turn each input row into zero or more rows, in the select list or
// in LATERAL VIEW; each is one lGenerate over an array: explode of a map
// explodes its entries, stack(n, …) inlines an array of n structs. See
// docs/sql.md#generators.

var generatorNames = map[string]bool{
	"explode": true, "posexplode": true, "explode_outer": true, "posexplode_outer": true,
	"inline": true, "inline_outer": true, "stack": true,
}

func isGenerator(e Expr) bool {
	c, ok := e.(*Call)
	return ok && generatorNames[strings.ToLower(c.Name)]
}

// generate appends a generator's columns to in's, named names (nil:
// Spark's names — col, pos, key and value, the struct's fields, col0…)
// and qualified by alias. It returns the new relation and the index of its
// first new column.
func (a *analyzer) generate(in rel, gen *Call, outer bool, alias string, names []string, pos Pos, hidden bool) (rel, int, error) {
	name := strings.ToLower(gen.Name)
	if strings.HasSuffix(name, "_outer") {
		outer, name = true, strings.TrimSuffix(name, "_outer")
	}
	if !generatorNames[name] {
		return rel{}, 0, errorf(gen.Pos, "%s is not a generator (explode, posexplode, inline, stack and their _outer forms are)", gen.Name)
	}
	if containsAgg(gen) {
		return rel{}, 0, unsupported(gen.Pos, gen.String()+": a generator over an aggregate; aggregate in a subquery: SELECT explode(l) FROM (SELECT collect_list(x) AS l FROM …)")
	}
	r := &exprResolver{a: a, sc: in.sc, clause: "a generator"}
	var list rex
	var err error
	if name == "stack" {
		list, err = r.stack(gen)
	} else {
		if len(gen.Args) != 1 {
			return rel{}, 0, errorf(gen.Pos, "%s takes one argument, got %d", gen.Name, len(gen.Args))
		}
		list, err = r.resolve(gen.Args[0])
	}
	if err != nil {
		return rel{}, 0, err
	}
	g := &lGenerate{in: in.n, list: list, outer: outer, pos: name == "posexplode",
		label: strings.ToLower(gen.Name) + "(" + list.sql() + ")"}
	var want []field
	if g.pos {
		want = append(want, field{"pos", tInt})
	}
	switch t := list.Type().(type) {
	case *arrow.ListType:
		st, isStruct := t.Elem().(*arrow.StructType)
		switch {
		case name == "inline" || name == "stack":
			if !isStruct {
				return rel{}, 0, errorf(gen.Pos, "%s: the argument is %s, not an array of structs", gen, typeName(list.Type()))
			}
			g.split = true
			for _, f := range st.Fields() {
				want = append(want, field{f.Name, f.Type})
			}
		default:
			want = append(want, field{"col", t.Elem()})
		}
	case *arrow.MapType:
		if name == "inline" {
			return rel{}, 0, errorf(gen.Pos, "%s: the argument is %s, not an array of structs", gen, typeName(list.Type()))
		}
		g.split = true
		want = append(want, field{"key", t.KeyType()}, field{"value", t.ItemType()})
	default:
		what := "an array or a map"
		if name == "inline" {
			what = "an array of structs"
		}
		return rel{}, 0, errorf(gen.Pos, "%s: the argument is %s, not %s", gen, typeName(list.Type()), what)
	}
	if names != nil && len(names) != len(want) {
		return rel{}, 0, errorf(pos, "%s gives %d column(s), the aliases name %d (%s): Spark's UDTF_ALIAS_NUMBER_MISMATCH",
			gen.Name, len(want), len(names), strings.Join(names, ", "))
	}
	var quals []string
	if alias != "" {
		quals = []string{alias}
	}
	sc := &scope{cols: append([]scol(nil), in.sc.cols...)}
	first := len(sc.cols)
	for i, f := range want {
		if names != nil {
			f.name = names[i]
		}
		sc.cols = append(sc.cols, scol{quals: quals, name: f.name, typ: f.typ, hidden: hidden, ord: len(sc.cols)})
		g.out = append(g.out, f)
	}
	return rel{g, sc}, first, nil
}

// stack(n, v1, …, vk) is inline(array(struct(v1, …, vm), …)): n rows of
// m = ⌈k/n⌉ columns col0…, the last row padded with NULLs; the values of a
// column are of one type (NULLs take it).
func (r *exprResolver) stack(gen *Call) (rex, error) {
	if len(gen.Args) < 2 {
		return nil, errorf(gen.Pos, "stack takes the number of rows and at least one value, got %d argument(s)", len(gen.Args))
	}
	nr, err := r.resolve(gen.Args[0])
	if err != nil {
		return nil, err
	}
	lit, ok := nr.(*rLit)
	n := int64(0)
	if ok {
		switch v := lit.v.(type) {
		case int8:
			n = int64(v)
		case int16:
			n = int64(v)
		case int32:
			n = int64(v)
		case int64:
			n = v
		}
	}
	if n < 1 {
		return nil, errorf(gen.Args[0].Position(), "%s: the number of rows must be a constant integer of 1 or more", gen)
	}
	vals := make([]rex, len(gen.Args)-1)
	for i, e := range gen.Args[1:] {
		if vals[i], err = r.resolve(e); err != nil {
			return nil, err
		}
	}
	m := (len(vals) + int(n) - 1) / int(n)
	types := make([]arrow.DataType, m)
	for i, v := range vals {
		j := i % m
		t := v.Type()
		switch {
		case isNull(t):
		case types[j] == nil || isNull(types[j]):
			types[j] = t
		case !arrow.TypeEqual(types[j], t):
			return nil, errorf(gen.Pos, "%s: column col%d has values of types %s and %s (Spark's STACK_COLUMN_DIFF_TYPES)", gen, j, typeName(types[j]), typeName(t))
		}
	}
	structFn, ok1 := fn.Lookup("named_struct")
	arrayFn, ok2 := fn.Lookup("array")
	if !ok1 || !ok2 {
		return nil, unsupported(gen.Pos, "stack")
	}
	rows := make([]rex, n)
	for i := range rows {
		var args []rex
		for j := 0; j < m; j++ {
			t := types[j]
			if t == nil {
				t = tNull
			}
			var v rex = &rLit{t: t}
			if k := i*m + j; k < len(vals) {
				v = vals[k]
				if !arrow.TypeEqual(v.Type(), t) {
					v = &rCast{x: v, to: t, src: gen.Args[k+1].String()}
				}
			}
			args = append(args, &rLit{v: fmt.Sprintf("col%d", j), t: tString}, v)
		}
		if rows[i], err = r.bindCall(structFn, args, gen.Pos, gen.String(), "named_struct("+sqlList(args)+")"); err != nil {
			return nil, err
		}
	}
	return r.bindCall(arrayFn, rows, gen.Pos, gen.String(), "array("+sqlList(rows)+")")
}
