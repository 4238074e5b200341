package fileio

import (
	"errors"
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// Definition and repetition levels of Parquet leaf columns.
//
// A nested Arrow column (structs, lists, maps) is stored in Parquet as one
// column chunk per leaf, each with the Dremel levels that say where its
// values sit in the nesting. pqarrow computes them inside its FileWriter,
// one column after the other; the column-parallel stream writer
// (parquet_columns.go) computes them itself so that each leaf can be
// encoded on its own goroutine. The levels are pqarrow's exactly (the
// tests compare the files byte for byte): nullable nodes add a definition
// level, lists and maps add a definition and a repetition level, list
// elements count as nullable, map entries do not, and a leaf's nulls count
// whatever its field says.

// stepKind is what a node on the path from a top-level column to a leaf is.
type stepKind uint8

const (
	stepStruct stepKind = iota // descend into child field
	stepList                   // a list or a map: descend into its values
	stepLeaf                   // the leaf array itself
)

// leafStep is one node on a leaf's path.
type leafStep struct {
	kind     stepKind
	nullable bool // a null here is a null (not ignored) and presence adds a level
	field    int  // stepStruct: the child's index
}

// leafPlan is how one Parquet leaf column is reached from its top-level
// Arrow column; plans come in Parquet column order.
type leafPlan struct {
	column int // top-level column index
	steps  []leafStep
	maxDef int16
	maxRep int16
	inner  int // index in steps of the innermost list, -1 without one
}

// planLeaves returns the leaf plans of schema, or false when a field has a
// type the column-parallel writer does not handle (fixed-size, large and
// view lists, extension and union types): those files are written by
// pqarrow's own writer.
func planLeaves(schema *arrow.Schema) ([]leafPlan, bool) {
	var plans []leafPlan
	for i, f := range schema.Fields() {
		if !planType(&plans, leafPlan{column: i, inner: -1}, f.Type, f.Nullable) {
			return nil, false
		}
	}
	return plans, true
}

func planType(out *[]leafPlan, p leafPlan, dt arrow.DataType, nullable bool) bool {
	if nullable {
		p.maxDef++
	}
	step := leafStep{nullable: nullable}
	switch dt.ID() {
	case arrow.STRUCT:
		st := dt.(*arrow.StructType)
		if st.NumFields() == 0 {
			return false
		}
		step.kind = stepStruct
		for k, cf := range st.Fields() {
			step.field = k
			q := p
			q.steps = append(slices.Clip(p.steps), step)
			if !planType(out, q, cf.Type, cf.Nullable) {
				return false
			}
		}
		return true
	case arrow.LIST, arrow.MAP:
		p.maxDef++
		p.maxRep++
		step.kind = stepList
		p.inner = len(p.steps)
		p.steps = append(slices.Clip(p.steps), step)
		if mt, ok := dt.(*arrow.MapType); ok {
			return planType(out, p, mt.ValueType(), false)
		}
		return planType(out, p, dt.(*arrow.ListType).Elem(), true)
	case arrow.DICTIONARY:
		if _, nested := dt.(*arrow.DictionaryType).ValueType.(arrow.NestedType); nested {
			return false
		}
	case arrow.EXTENSION:
		return false
	default:
		if _, nested := dt.(arrow.NestedType); nested {
			return false
		}
	}
	step.kind = stepLeaf
	p.steps = append(slices.Clip(p.steps), step)
	*out = append(*out, p)
	return true
}

// leafLevels is one leaf's share of a record: the leaf values (a slice of
// the leaf array), their levels (nil when the column has none) and
// whether the leaf is written as nullable.
type leafLevels struct {
	values   arrow.Array
	def, rep []int16
	nullable bool
}

// levelBuilder computes leaf levels; its buffers are reused from one call
// to the next, so one builder serves one goroutine.
type levelBuilder struct {
	arrs    []arrow.Array
	offsets [][]int32
	def     []int16
	rep     []int16
	reps    []int16 // repetition level of each list step's elements
	first   int64   // the innermost list's first visited element, -1 before any
	next    int64   // the element after the last visited one
	gap     bool    // visited elements are not contiguous
}

// isNull reports whether element j of a is null, counting a column all of
// nulls (the Null type has no bitmap) as nulls.
func isNull(a arrow.Array, j int) bool {
	switch n := a.NullN(); {
	case n == 0:
		return false
	case n == a.Len():
		return true
	}
	return a.IsNull(j)
}

// levels computes p's levels for col, the top-level column of a record.
// The result's buffers belong to b until its next call; values is a new
// reference the caller releases.
func (b *levelBuilder) levels(p *leafPlan, col arrow.Array) (leafLevels, error) {
	// The arrays along the path.
	b.arrs = append(b.arrs[:0], col)
	b.offsets = b.offsets[:0]
	b.reps = b.reps[:0]
	var rep int16
	for k, st := range p.steps[:len(p.steps)-1] {
		var offs []int32
		if st.kind == stepList {
			l := listOf(b.arrs[k])
			offs = l.Offsets()[l.Data().Offset():]
			rep++
		}
		b.offsets = append(b.offsets, offs)
		b.reps = append(b.reps, rep)
		b.arrs = append(b.arrs, stepInto(b.arrs[k], st))
	}
	leaf := b.arrs[len(b.arrs)-1]
	last := p.steps[len(p.steps)-1]
	out := leafLevels{nullable: last.nullable && leaf.NullN() > 0}
	n := col.Len()
	switch {
	case p.maxDef == 0:
		leaf.Retain()
		out.values = leaf
		return out, nil
	case p.inner < 0:
		b.flatLevels(p, n)
		leaf.Retain()
		out.values = leaf
		out.def = b.def
		return out, nil
	}
	b.def, b.rep = b.def[:0], b.rep[:0]
	b.first, b.next, b.gap = -1, 0, false
	for j := 0; j < n; j++ {
		b.visit(p, 0, j, 0, 0)
	}
	if b.gap {
		return leafLevels{}, errors.New("lists with non-zero length null components are not supported")
	}
	if b.first < 0 {
		b.first, b.next = 0, 0
	}
	out.values = array.NewSlice(leaf, b.first, b.next)
	out.def, out.rep = b.def, b.rep
	return out, nil
}

// flatLevels fills b.def for a path of structs and a leaf (no list): every
// row is at the deepest level unless a node on the path is null there, and
// then at the level above the shallowest null node.
func (b *levelBuilder) flatLevels(p *leafPlan, n int) {
	b.def = slices.Grow(b.def[:0], n)[:n]
	for j := range b.def {
		b.def[j] = p.maxDef
	}
	var d int16 // the level above step k
	for k, st := range p.steps {
		lvl := d
		if st.nullable {
			d++
		}
		if st.kind == stepLeaf {
			lvl = p.maxDef - 1 // a leaf's nulls count whatever its field says
		} else if !st.nullable {
			continue
		}
		a := b.arrs[k]
		switch nulls := a.NullN(); {
		case nulls == 0:
		case nulls == a.Len():
			for j := range b.def {
				b.def[j] = min(b.def[j], lvl)
			}
		default:
			for j := range b.def {
				if a.IsNull(j) {
					b.def[j] = min(b.def[j], lvl)
				}
			}
		}
	}
}

// visit emits the levels of element j of step k's array, d and r being the
// definition and repetition levels reached so far.
func (b *levelBuilder) visit(p *leafPlan, k, j int, d, r int16) {
	st := p.steps[k]
	a := b.arrs[k]
	if (st.nullable || st.kind == stepLeaf) && isNull(a, j) {
		if st.kind == stepLeaf {
			d = p.maxDef - 1
		}
		b.def = append(b.def, d)
		b.rep = append(b.rep, r)
		return
	}
	if st.nullable {
		d++
	}
	switch st.kind {
	case stepLeaf:
		b.def = append(b.def, d)
		b.rep = append(b.rep, r)
	case stepStruct:
		b.visit(p, k+1, j, d, r)
	case stepList:
		offs := b.offsets[k]
		s, e := int64(offs[j]), int64(offs[j+1])
		if s == e {
			b.def = append(b.def, d)
			b.rep = append(b.rep, r)
			return
		}
		if k == p.inner {
			if b.first < 0 {
				b.first = s
			} else if s != b.next {
				b.gap = true
			}
			b.next = e
		}
		for x := s; x < e; x++ {
			b.visit(p, k+1, int(x), d+1, r)
			r = b.reps[k]
		}
	}
}

// stepInto returns the array below a along st: a struct's child, a list's
// or a map's values.
func stepInto(a arrow.Array, st leafStep) arrow.Array {
	switch st.kind {
	case stepStruct:
		return a.(*array.Struct).Field(st.field)
	case stepList:
		return listOf(a).ListValues()
	}
	return a
}

// listOf is a list array, or the list of a map's entries.
func listOf(a arrow.Array) *array.List {
	if m, ok := a.(*array.Map); ok {
		return m.List
	}
	return a.(*array.List)
}
