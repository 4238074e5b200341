package jsonframe

import (
	"sort"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// kind is an inferred JSON type (see docs/inference.md). kindNone is
// Spark's NullType: only nulls or empty strings were seen.
type kind = sparktype.Kind

const (
	kindNone    = sparktype.Null
	kindBool    = sparktype.Boolean
	kindLong    = sparktype.Long
	kindDecimal = sparktype.Decimal
	kindDouble  = sparktype.Double
	kindString  = sparktype.String
	kindStruct  = sparktype.Struct
	kindList    = sparktype.Array
)

// typeNode is the inferred type of one position in the documents (a
// column, a struct field, a list's elements). Pass 1 merges every value
// into it.
type typeNode struct {
	kind   kind
	prec   uint8            // decimal precision
	fields []*typeField     // struct fields in first-seen order
	index  map[string]int32 // struct: field name → position in fields
	hint   []int32          // struct: field of the k-th key of the last object
	elem   *typeNode        // list elements

	// Sizes for reserving builder memory in pass 2.
	vals     int64 // values seen, nulls included
	strBytes int64 // bytes of the values of a string node
}

type typeField struct {
	name string
	node *typeNode
}

// seeScalar merges a scalar of kind k (not a decimal) into n.
func (n *typeNode) seeScalar(k kind) {
	if n.kind == k || n.kind == kindString {
		return
	}
	n.widen(sparktype.Scalar{Kind: k})
}

// widen merges the type s into n by Spark's rules (sparktype.Widen).
func (n *typeNode) widen(s sparktype.Scalar) {
	w := sparktype.Widen(n.scalar(), s)
	if w.Kind == kindString {
		n.toString()
		return
	}
	n.kind, n.prec = w.Kind, w.Prec
}

func (n *typeNode) scalar() sparktype.Scalar { return sparktype.Scalar{Kind: n.kind, Prec: n.prec} }

// toString widens n to string after a conflict; its children are dropped.
func (n *typeNode) toString() {
	n.kind, n.prec = kindString, 0
	n.fields, n.index, n.hint, n.elem = nil, nil, nil, nil
}

// field returns the child for key, the k-th key of the current object,
// creating it when new.
func (n *typeNode) field(key []byte, k int) *typeField {
	if k < len(n.hint) {
		if i := n.hint[k]; i >= 0 && n.fields[i].name == string(key) {
			return n.fields[i]
		}
	}
	i, ok := n.index[string(key)]
	if !ok {
		i = int32(len(n.fields))
		name := string(key)
		n.fields = append(n.fields, &typeField{name: name, node: &typeNode{}})
		n.index[name] = i
	}
	for len(n.hint) <= k {
		n.hint = append(n.hint, -1)
	}
	n.hint[k] = i
	return n.fields[i]
}

// mergeNode merges src into dst by the inference rules. src must not be
// used afterwards: dst may take its children.
func mergeNode(dst, src *typeNode) {
	if dst.kind != kindNone {
		dst.vals += src.vals
		dst.strBytes += src.strBytes
	}
	switch {
	case src.kind == kindNone || dst.kind == kindString:
	case dst.kind == kindNone:
		vals, strBytes := dst.vals, dst.strBytes
		*dst = *src
		dst.vals += vals
		dst.strBytes += strBytes
	case src.kind == kindString:
		dst.toString()
	case dst.kind == kindStruct && src.kind == kindStruct:
		for _, sf := range src.fields {
			if i, ok := dst.index[sf.name]; ok {
				mergeNode(dst.fields[i].node, sf.node)
				continue
			}
			dst.index[sf.name] = int32(len(dst.fields))
			dst.fields = append(dst.fields, sf)
		}
	case dst.kind == kindList && src.kind == kindList:
		mergeNode(dst.elem, src.elem)
	case dst.kind <= kindString && src.kind <= kindString:
		dst.widen(src.scalar())
	default:
		dst.toString()
	}
}

// arrowType is the Arrow type of n after Spark's canonicalisation: only
// nulls → string, struct fields sorted in Spark's order, fields with an
// empty name and structs without fields dropped (ok is false for a dropped
// type).
func (n *typeNode) arrowType() (dt arrow.DataType, ok bool) {
	switch n.kind {
	case kindStruct:
		fields := n.arrowFields()
		if len(fields) == 0 {
			return nil, false
		}
		return arrow.StructOf(fields...), true
	case kindList:
		et, ok := n.elem.arrowType()
		if !ok {
			return nil, false
		}
		return arrow.ListOf(et), true
	}
	return n.scalar().ArrowType(), true
}

func (n *typeNode) arrowFields() []arrow.Field {
	sorted := make([]*typeField, 0, len(n.fields))
	for _, f := range n.fields {
		if f.name != "" {
			sorted = append(sorted, f)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sparktype.Less(sorted[i].name, sorted[j].name) })
	fields := make([]arrow.Field, 0, len(sorted))
	for _, f := range sorted {
		if dt, ok := f.node.arrowType(); ok {
			fields = append(fields, arrow.Field{Name: f.name, Type: dt, Nullable: true})
		}
	}
	return fields
}

// rowSchema is the frame schema for rows whose merged type is row: the
// fields of a struct, else one column `value`. rows is how many rows
// there are; with none the schema is empty.
func rowSchema(row *typeNode, rows int64) *arrow.Schema {
	switch {
	case row.kind == kindStruct:
		return arrow.NewSchema(row.arrowFields(), nil)
	case rows == 0 && row.kind == kindNone:
		return arrow.NewSchema(nil, nil)
	}
	dt, ok := row.arrowType()
	if !ok {
		return arrow.NewSchema(nil, nil)
	}
	return arrow.NewSchema([]arrow.Field{{Name: "value", Type: dt, Nullable: true}}, nil)
}

// inferValue merges the value at pos into n and returns the position after
// it.
func (s *scanner) inferValue(pos int, n *typeNode, depth int) int {
	end := s.inferType(pos, n, depth)
	n.vals++
	if n.kind == kindString && end > pos {
		n.strBytes += int64(end - pos)
	}
	return end
}

func (s *scanner) inferType(pos int, n *typeNode, depth int) int {
	d := s.Data
	if pos >= len(d) {
		return s.Fail(pos, "unexpected end of input, expected a value")
	}
	switch c := d[pos]; c {
	case '"':
		end, _ := s.ScanString(pos)
		if end > pos+2 {
			// An empty string is Spark's NullType: it takes the type of
			// the other values (see docs/inference.md#empty-strings).
			n.seeScalar(kindString)
		}
		return end
	case '{':
		if n.kind == kindNone {
			n.kind = kindStruct
			n.index = make(map[string]int32)
		}
		if n.kind != kindStruct {
			n.toString()
			return s.SkipValue(pos, depth)
		}
		if depth >= s.MaxDepth {
			return s.Fail(pos, "nesting deeper than %d levels", s.MaxDepth)
		}
		var more bool
		k := 0
		for pos, more = s.First(pos, '}'); more; pos, more = s.Next(pos, '}', true) {
			if pos >= len(d) || d[pos] != '"' {
				return s.Fail(pos, "expected a field name: %s", s.Describe(pos))
			}
			end, flags := s.ScanKey(pos)
			if end < 0 {
				return -1
			}
			key := jsontext.StringBody(d, pos, end, flags, &s.KeyBuf)
			pos = s.SkipWS(end)
			if pos >= len(d) || d[pos] != ':' {
				return s.Fail(pos, "expected ':' after field name: %s", s.Describe(pos))
			}
			f := n.field(key, k)
			k++
			if pos = s.inferValue(s.SkipWS(pos+1), f.node, depth+1); pos < 0 {
				return -1
			}
		}
		return pos
	case '[':
		if n.kind == kindNone {
			n.kind = kindList
			n.elem = &typeNode{}
		}
		if n.kind != kindList {
			n.toString()
			return s.SkipValue(pos, depth)
		}
		if depth >= s.MaxDepth {
			return s.Fail(pos, "nesting deeper than %d levels", s.MaxDepth)
		}
		var more bool
		for pos, more = s.First(pos, ']'); more; pos, more = s.Next(pos, ']', true) {
			if pos = s.inferValue(pos, n.elem, depth+1); pos < 0 {
				return -1
			}
		}
		return pos
	case 't':
		n.seeScalar(kindBool)
		return s.ScanLiteral(pos, "true")
	case 'f':
		n.seeScalar(kindBool)
		return s.ScanLiteral(pos, "false")
	case 'n':
		return s.ScanLiteral(pos, "null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			end, class := s.ScanNumber(pos)
			switch class {
			case jsontext.NumLong:
				n.seeScalar(kindLong)
			case jsontext.NumDouble:
				n.seeScalar(kindDouble)
			case jsontext.NumDecimal:
				n.widen(sparktype.Scalar{Kind: kindDecimal, Prec: uint8(sparktype.IntegerPrecision(s.Data[pos:end]))})
			}
			return end
		}
		return s.Fail(pos, "%s, expected a value", s.Describe(pos))
	}
}
