package jsonframe

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// buildNode appends JSON values to the Arrow builder of one position in
// the schema. Typed builder fields avoid an interface call per value.
type buildNode struct {
	kind kind
	b    array.Builder
	bin  *array.BinaryBuilder
	i64  *array.Int64Builder
	f64  *array.Float64Builder
	boo  *array.BooleanBuilder
	dec  *array.Decimal128Builder
	st   *array.StructBuilder
	lst  *array.ListBuilder

	// struct
	fields []*buildNode
	names  []string
	index  map[string]int32
	hint   []int32  // field of the k-th key of the last object
	seen   []uint32 // gen of the object that last set the field
	gen    uint32

	elem *buildNode // list
	prec int        // decimal precision

	t    *typeNode // the sampled type, in the fused pass
	path string    // dotted path of the column, for misfit reports
}

// newBuildNode wraps b, whose type must be one JSON inference produces:
// string, long, decimal(p,0), double, boolean, struct or list of those.
func newBuildNode(b array.Builder) (*buildNode, error) {
	return newBuildNodeAt(b, "")
}

func newBuildNodeAt(b array.Builder, path string) (*buildNode, error) {
	n := &buildNode{b: b, path: path}
	switch bb := b.(type) {
	case *array.StringBuilder:
		n.kind, n.bin = kindString, bb.BinaryBuilder
	case *array.Int64Builder:
		n.kind, n.i64 = kindLong, bb
	case *array.Float64Builder:
		n.kind, n.f64 = kindDouble, bb
	case *array.BooleanBuilder:
		n.kind, n.boo = kindBool, bb
	case *array.Decimal128Builder:
		dt := bb.Type().(*arrow.Decimal128Type)
		if dt.Scale != 0 {
			return nil, fmt.Errorf("dataframe: cannot build JSON into %s", sparktype.Name(dt))
		}
		n.kind, n.dec, n.prec = kindDecimal, bb, int(dt.Precision)
	case *array.StructBuilder:
		n.kind, n.st = kindStruct, bb
		st := bb.Type().(*arrow.StructType)
		n.index = make(map[string]int32, st.NumFields())
		for i := 0; i < st.NumFields(); i++ {
			name := st.Field(i).Name
			child, err := newBuildNodeAt(bb.FieldBuilder(i), joinPath(path, name))
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, child)
			n.names = append(n.names, name)
			if _, dup := n.index[name]; !dup {
				n.index[name] = int32(i)
			}
		}
		n.seen = make([]uint32, len(n.fields))
	case *array.ListBuilder:
		n.kind, n.lst = kindList, bb
		child, err := newBuildNodeAt(bb.ValueBuilder(), joinPath(path, "element"))
		if err != nil {
			return nil, err
		}
		n.elem = child
	default:
		return nil, fmt.Errorf("dataframe: cannot build JSON into %s", sparktype.Name(b.Type()))
	}
	return n, nil
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// appendDecimal appends the integer literal lit to a decimal column; false
// when it is not an integer of at most the column's precision.
func (n *buildNode) appendDecimal(lit []byte) bool {
	if sparktype.IntegerPrecision(lit) > n.prec {
		return false
	}
	v, ok := sparktype.ParseDecimal(lit)
	if ok {
		n.dec.Append(v)
	}
	return ok
}

// appendNull appends a null; StructBuilder appends nulls to its children
// itself.
func (n *buildNode) appendNull() { n.b.AppendNull() }

func (n *buildNode) lookup(key []byte, k int) int32 {
	if k < len(n.hint) {
		if i := n.hint[k]; i >= 0 && n.names[i] == string(key) {
			return i
		}
	}
	i, ok := n.index[string(key)]
	if !ok {
		i = -1
	}
	for len(n.hint) <= k {
		n.hint = append(n.hint, -1)
	}
	n.hint[k] = i
	return i
}

// numberEnd finds the end of a validated number literal.
func numberEnd(d []byte, pos int) int {
	for pos < len(d) {
		switch d[pos] {
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '+', '.', 'e', 'E':
			pos++
			continue
		}
		break
	}
	return pos
}

// buildValue appends the value at pos, validated by pass 1, to n and
// returns the position after it.
func (s *scanner) buildValue(pos int, n *buildNode, depth int) int {
	d := s.Data
	c := d[pos]
	if c == 'n' {
		n.appendNull()
		return pos + 4
	}
	switch n.kind {
	case kindString:
		if c == '"' {
			end := jsontext.StringEnd(d, pos)
			n.bin.Append(s.ValidBody(pos, end, &s.Buf))
			return end
		}
		// A value in a column widened to string keeps its JSON text.
		var end int
		s.Buf, end = jsontext.AppendCompact(s.Buf[:0], d, pos)
		n.bin.Append(s.Buf)
		return end
	case kindLong:
		// Pass 1 inferred long for this column: every number in it is one
		// (a sampled read builds in the fused pass, which checks).
		if c == '-' || c >= '0' && c <= '9' {
			end := numberEnd(d, pos)
			n.i64.Append(jsontext.ParseLong(d[pos:end]))
			return end
		}
	case kindDouble:
		if c == '-' || c >= '0' && c <= '9' {
			end := numberEnd(d, pos)
			n.f64.Append(jsontext.ParseDouble(d[pos:end]))
			return end
		}
	case kindDecimal:
		if c == '-' || c >= '0' && c <= '9' {
			end := numberEnd(d, pos)
			if n.appendDecimal(d[pos:end]) {
				return end
			}
		}
	case kindBool:
		if c == 't' {
			n.boo.Append(true)
			return pos + 4
		}
		if c == 'f' {
			n.boo.Append(false)
			return pos + 5
		}
	case kindStruct:
		if c == '{' {
			return s.buildObject(pos, n, depth)
		}
	case kindList:
		if c == '[' {
			n.lst.Append(true)
			pos = s.SkipWS(pos + 1)
			if d[pos] == ']' {
				return pos + 1
			}
			for {
				pos = s.SkipWS(s.buildValue(pos, n.elem, depth+1))
				if d[pos] == ',' {
					pos = s.SkipWS(pos + 1)
					continue
				}
				return pos + 1
			}
		}
	}
	// An empty string is null in any column but a string one (Spark's
	// NullType); anything else only reaches here when the schema does not
	// come from these documents' inference (a sample): the value does not
	// fit and becomes null.
	n.appendNull()
	end := s.SkipValue(pos, depth)
	if c != '"' || end != pos+2 {
		s.misfit(n, pos, end)
	}
	return end
}

func (s *scanner) buildObject(pos int, n *buildNode, depth int) int {
	d := s.Data
	n.st.Append(true)
	n.gen++
	if n.gen == 0 {
		clear(n.seen)
		n.gen = 1
	}
	pos = s.SkipWS(pos + 1)
	if d[pos] == '}' {
		pos++
	} else {
		for k := 0; ; k++ {
			end, escaped := jsontext.KeyEnd(d, pos)
			key := d[pos+1 : end-1]
			if escaped || (!s.TrustUTF8 && !asciiOrValid(key)) {
				key = s.ValidBody(pos, end, &s.KeyBuf)
			}
			pos = s.SkipWS(s.SkipWS(end) + 1)
			if i := n.lookup(key, k); i >= 0 && n.seen[i] != n.gen {
				n.seen[i] = n.gen
				pos = s.buildValue(pos, n.fields[i], depth+1)
			} else {
				// Dropped (empty struct, empty name) or a repeated key:
				// the first occurrence wins.
				pos = s.SkipValue(pos, depth+1)
			}
			pos = s.SkipWS(pos)
			if d[pos] == ',' {
				pos = s.SkipWS(pos + 1)
				continue
			}
			pos++
			break
		}
	}
	for i, f := range n.fields {
		if n.seen[i] != n.gen {
			f.appendNull()
		}
	}
	return pos
}

// rowBuilder builds rows of a frame schema: the fields of a struct (rows
// are objects) or the single column `value`.
type rowBuilder struct {
	schema  *arrow.Schema
	mem     memory.Allocator
	b       array.Builder
	root    *buildNode
	structs bool // rows are objects whose fields are the columns
	rows    int64
	records []arrow.Record
	batchN  int64 // rows in the open batch
	batchB  int64 // input bytes behind the open batch
}

func newRowBuilder(mem memory.Allocator, schema *arrow.Schema, structs bool) (*rowBuilder, error) {
	rb := &rowBuilder{schema: schema, mem: mem, structs: structs}
	if structs && schema.NumFields() > 0 {
		rb.b = array.NewStructBuilder(mem, arrow.StructOf(schema.Fields()...))
	} else if !structs && schema.NumFields() == 1 {
		rb.b = array.NewBuilder(mem, schema.Field(0).Type)
	}
	if rb.b != nil {
		root, err := newBuildNode(rb.b)
		if err != nil {
			rb.b.Release()
			return nil, err
		}
		rb.root = root
	}
	return rb, nil
}

// maxBatchRows bounds a record batch so string offsets (int32) cannot
// overflow on ordinary rows and later steps can stream.
const maxBatchRows = 1 << 17

func (rb *rowBuilder) add(s *scanner, pos, depth int) int {
	rb.rows++
	if rb.root == nil {
		// No columns: only the row count matters.
		return s.SkipValue(pos, depth)
	}
	// A null row among objects becomes a row of nulls.
	end := s.buildValue(pos, rb.root, depth)
	rb.rowDone(end - pos)
	return end
}

// addCorrupt adds a row for a malformed record: its text in the column
// named corrupt, null everywhere else.
func (rb *rowBuilder) addCorrupt(corrupt string, text []byte) {
	rb.rows++
	n := rb.root
	n.st.Append(true)
	for i, f := range n.fields {
		if n.names[i] == corrupt && f.kind == kindString {
			f.bin.Append(jsontext.AppendValidUTF8(nil, text))
			continue
		}
		f.appendNull()
	}
	rb.rowDone(len(text))
}

// maxBatchBytes bounds the input behind one batch: decoded strings are
// never longer than their JSON text, so string offsets (int32) stay in
// range however long the rows are.
const maxBatchBytes = 1 << 30

func (rb *rowBuilder) rowDone(inputBytes int) {
	rb.batchN++
	rb.batchB += int64(inputBytes)
	if rb.batchN >= maxBatchRows || rb.batchB >= maxBatchBytes {
		rb.flush()
	}
}

func (rb *rowBuilder) flush() {
	n := rb.rows - rb.flushedRows()
	rb.batchN, rb.batchB = 0, 0
	if n == 0 {
		return
	}
	if rb.b == nil {
		rb.records = append(rb.records, array.NewRecord(rb.schema, nil, n))
		return
	}
	arr := rb.b.NewArray()
	defer arr.Release()
	if rb.structs {
		rb.records = append(rb.records, array.RecordFromStructArray(arr.(*array.Struct), rb.schema))
		return
	}
	rb.records = append(rb.records, array.NewRecord(rb.schema, []arrow.Array{arr}, n))
}

func (rb *rowBuilder) flushedRows() int64 {
	var n int64
	for _, r := range rb.records {
		n += r.NumRows()
	}
	return n
}

// finish returns the records built so far; the caller owns them.
func (rb *rowBuilder) finish() []arrow.Record {
	rb.flush()
	recs := rb.records
	rb.records = nil
	return recs
}

// release frees the builder and any records not handed out.
func (rb *rowBuilder) release() {
	if rb.b != nil {
		rb.b.Release()
		rb.b = nil
	}
	for _, r := range rb.records {
		r.Release()
	}
	rb.records = nil
}

func asciiOrValid(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return utf8.Valid(b)
		}
	}
	return true
}

// reserve sizes the builders from pass 1's counts, scaled by frac (this
// chunk's share of the input), so they do not grow by doubling.
func (n *buildNode) reserve(t *typeNode, entries int64, frac float64) {
	if t == nil || entries <= 0 {
		return
	}
	switch n.kind {
	case kindString:
		n.bin.Reserve(int(entries))
		n.bin.ReserveData(int(float64(t.strBytes) * frac))
	case kindStruct:
		if t.kind != kindStruct {
			return
		}
		for i, name := range n.names {
			if j, ok := t.index[name]; ok {
				n.fields[i].reserve(t.fields[j].node, entries, frac)
			}
		}
	case kindList:
		n.b.Reserve(int(entries))
		if t.kind == kindList {
			n.elem.reserve(t.elem, int64(float64(t.elem.vals)*frac), frac)
		}
	default:
		n.b.Reserve(int(entries))
	}
}
