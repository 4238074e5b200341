package jsonframe

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// The fused path reads most inputs in one pass instead of two: the schema
// is inferred from a sample (the first rows), then one pass checks the
// syntax, checks that every value leaves the sampled schema unchanged, and
// appends to the builders at once. Any surprise — a new field, a widening,
// a syntax error — abandons it for the two-pass path, which gives the
// canonical result and errors. So the result is the same either way; only
// the time differs.

const (
	sampleRows  = 1000
	sampleBytes = 1 << 20
)

// readFused tries the one-pass read; ok is false when the caller must use
// the two-pass path. With opts.SampleRows the schema is that of the first
// SampleRows rows and values that do not fit it become null, counted in
// stats (which must then not be nil).
func readFused(spans []docSpan, lines bool, opts Options, sp splitting, path []string, stats *ReadStats) (*dataframe.Frame, bool) {
	maxDepth := opts.maxDepth()
	limitRows, limitBytes := int64(sampleRows), sampleBytes
	lenient := opts.SampleRows > 0
	if lenient {
		limitRows, limitBytes = int64(opts.SampleRows), 0
	} else if lines {
		limitRows = math.MaxInt64 // every line in the first sampleBytes
	}
	row, rows, sampled, arrayAt := sampleSchema(spans, lines, path, maxDepth, limitRows, limitBytes)
	if rows == 0 || sampled == 0 {
		// With no sampled rows a schema cannot be guessed; an all-null
		// sample could not tell a later null from a value either way.
		return nil, false
	}
	if row.kind == kindNone {
		return nil, false
	}
	schema := rowSchema(row, rows)
	structs := row.kind == kindStruct
	mem := opts.allocator()
	if !lines && len(spans) == 1 && arrayAt >= 0 && sp.workers > 1 && len(spans[0].data) >= sp.minParallel {
		// One large document: its rows array is shared out instead.
		n := max(2, min(2*sp.workers, len(spans[0].data)/sp.chunkMin))
		if cuts, arrayEnd := cutArray(spans[0].data, arrayAt, n); arrayEnd >= 0 && len(cuts) > 0 {
			return readFusedSplit(spans[0].data, cuts, arrayEnd, opts, sp, path, schema, structs, row, rows, sampled, stats)
		}
	}
	chunks := splitChunks(spans, lines, sp)
	runChunks(chunks, sp.workers, func(c *chunk) {
		if c.lines {
			c.spans = splitLines(c.spans[0])
			c.lines = false
		}
		c.recs, c.err = fuseChunk(c, mem, schema, structs, row, rows, sampled, path, maxDepth, lenient)
	})
	pieces := make([]fusedPiece, len(chunks))
	for i, c := range chunks {
		pieces[i] = fusedPiece{recs: c.recs, ok: c.err == nil, misfits: c.misfits, first: c.first}
	}
	return fusedFrame(schema, pieces, stats, opts)
}

// fusedPiece is what one worker of a one-pass read built.
type fusedPiece struct {
	recs    []arrow.Record
	ok      bool
	misfits int64
	first   *Misfit
}

// fusedFrame puts the workers' records together, in order, into one frame
// and adds their misfits to stats; when any worker failed it releases them
// all and reports false (the caller falls back to two passes).
func fusedFrame(schema *arrow.Schema, pieces []fusedPiece, stats *ReadStats, opts Options) (*dataframe.Frame, bool) {
	var recs []arrow.Record
	ok := true
	for _, p := range pieces {
		ok = ok && p.ok
		recs = append(recs, p.recs...)
		if stats != nil {
			stats.add(p.misfits, p.first)
		}
	}
	if !ok {
		for _, r := range recs {
			r.Release()
		}
		return nil, false
	}
	f, err := dataframe.New(schema, recs...)
	if err != nil {
		return nil, false
	}
	f.SetAllocator(opts.Allocator)
	return f, true
}

// sampleFull stops pass 1 once the sample has enough rows.
type sampleFull struct{}

func (sampleFull) Error() string { return "sample complete" }

// sampleSchema infers the row type of the first rows: up to limitRows,
// and for JSON lines with limitBytes > 0 only the lines in the first
// limitBytes. sampled is how many bytes the sample covered (for sizing
// builders); rows is 0 when the sample found none or the input has an
// error (the two-pass path reports it).
func sampleSchema(spans []docSpan, lines bool, path []string, maxDepth int, limitRows int64, limitBytes int) (row *typeNode, rows int64, sampled, arrayAt int) {
	row = &typeNode{}
	arrayAt = -1
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: maxDepth}, recordsPath: strings.Join(path, ".")}
	if lines {
		data := spans[0].data
		end := len(data)
		if limitBytes > 0 && end > limitBytes {
			nl := jsontext.LineBreak(data[limitBytes:], true)
			if nl >= 0 {
				end = limitBytes + nl + 1
			}
		}
		for pos := 0; pos < end; {
			brk := jsontext.LineBreak(data[pos:end], true)
			next := end
			if brk >= 0 {
				next = pos + brk + 1
			}
			for _, sp := range splitLines(docSpan{data: data[pos:next], base: int64(pos)}) {
				s.Data, s.Base = sp.data, sp.base
				s.rowLimit = limitRows - rows
				err := s.inferDoc(path, row, &sp)
				rows += sp.rows
				if _, full := err.(sampleFull); full {
					return row, rows, next, -1
				}
				if err != nil {
					return nil, 0, 0, -1
				}
			}
			pos = next
			if rows >= limitRows {
				return row, rows, next, -1
			}
		}
		return row, rows, end, -1
	}
	for i := range spans {
		sp := spans[i]
		s.Data, s.Base, s.Doc = sp.data, sp.base, sp.doc
		s.rowLimit = limitRows - rows
		err := s.inferDoc(path, row, &sp)
		rows += sp.rows
		if i == 0 && sp.array {
			arrayAt = sp.start
		}
		if _, full := err.(sampleFull); full {
			return row, rows, sampled + s.stopAt, arrayAt
		}
		if err != nil {
			return nil, 0, 0, -1
		}
		sampled += len(sp.data)
		if rows >= limitRows {
			break
		}
	}
	return row, rows, sampled, arrayAt
}

// attachTypes links each builder node to the sampled type it stands for.
func (n *buildNode) attachTypes(t *typeNode) {
	n.t = t
	switch n.kind {
	case kindStruct:
		for i, name := range n.names {
			if j, ok := t.index[name]; ok {
				n.fields[i].attachTypes(t.fields[j].node)
			}
		}
	case kindList:
		n.elem.attachTypes(t.elem)
	}
}

// mismatch abandons the fused pass.
type mismatch struct{}

func (mismatch) Error() string { return "input does not fit the sampled schema" }

func fuseChunk(c *chunk, mem memory.Allocator, schema *arrow.Schema, structs bool, row *typeNode, sampledRows int64, sampled int, path []string, maxDepth int, lenient bool) ([]arrow.Record, error) {
	rb, err := newRowBuilder(mem, schema, structs)
	if err != nil {
		return nil, err
	}
	defer rb.release()
	size := 0
	for _, sp := range c.spans {
		size += len(sp.data)
	}
	if rb.root != nil {
		rb.root.attachTypes(row)
		frac := float64(size) / float64(sampled)
		if est := int64(float64(sampledRows) * frac); est <= maxBatchRows {
			rb.root.reserve(row, est, frac)
		}
	}
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: maxDepth}, lenient: lenient}
	defer func() { c.misfits, c.first = s.misfits, s.firstMisfit }()
	for i := range c.spans {
		sp := &c.spans[i]
		s.Data, s.Base, s.Doc, s.Err = sp.data, sp.base, sp.doc, nil
		// One check of the document is cheaper than one per string.
		s.TrustUTF8 = utf8.Valid(sp.data)
		pos := s.SkipWS(0)
		if pos >= len(s.Data) {
			return nil, mismatch{}
		}
		pos = s.fusePath(pos, path, 0, rb, row)
		if pos < 0 {
			return nil, mismatch{}
		}
		if pos = s.SkipWS(pos); pos < len(s.Data) {
			return nil, mismatch{}
		}
	}
	return rb.finish(), nil
}

// fusePath walks the records path as inferPath does (jsontext's
// WalkPath, checking everything it skips) and reads the rows at its end.
func (s *scanner) fusePath(pos int, path []string, depth int, rb *rowBuilder, row *typeNode) int {
	return s.WalkPath(pos, path, depth, func(pos, depth int) int { return s.fuseRows(pos, depth, rb, row) })
}

func (s *scanner) fuseRows(pos, depth int, rb *rowBuilder, row *typeNode) int {
	d := s.Data
	switch d[pos] {
	case '[':
		if depth >= s.MaxDepth {
			return -1
		}
		pos = s.SkipWS(pos + 1)
		if pos < len(d) && d[pos] == ']' {
			return pos + 1
		}
		for {
			if pos = s.fuseRow(pos, depth+1, rb, row); pos < 0 {
				return -1
			}
			pos = s.SkipWS(pos)
			if pos < len(d) && d[pos] == ',' {
				pos = s.SkipWS(pos + 1)
				if s.cutAt > 0 && pos == s.cutAt {
					// The other parts read the rest of the array.
					return s.cutTo + 1
				}
				continue
			}
			if pos < len(d) && d[pos] == ']' {
				return pos + 1
			}
			return -1
		}
	case 'n':
		return s.ScanLiteral(pos, "null")
	}
	if depth > 0 {
		return -1 // not an array at the records path: the two-pass path says so
	}
	return s.fuseRow(pos, depth, rb, row)
}

func (s *scanner) fuseRow(pos, depth int, rb *rowBuilder, row *typeNode) int {
	rb.rows++
	if rb.root == nil {
		return s.fitsValue(pos, row, depth)
	}
	end := s.fuseValue(pos, rb.root, depth)
	if end >= 0 {
		rb.rowDone(end - pos)
	}
	return end
}

// fuseValue checks the value at pos, checks it fits n's sampled type, and
// appends it to n. -1 means a syntax error or a misfit (in a sampled read a
// misfit becomes null instead).
func (s *scanner) fuseValue(pos int, n *buildNode, depth int) int {
	d := s.Data
	if pos >= len(d) {
		return -1
	}
	c := d[pos]
	if c == 'n' {
		end := s.ScanLiteral(pos, "null")
		if end >= 0 {
			n.appendNull()
		}
		return end
	}
	switch n.kind {
	case kindString:
		if c == '"' {
			end, flags := s.ScanString(pos)
			if end < 0 {
				return -1
			}
			if n.t.kind != kindString && end != pos+2 && !s.lenient {
				return -1 // only nulls were sampled
			}
			n.bin.Append(s.Body(pos, end, flags, &s.Buf))
			return end
		}
		if n.t.kind != kindString && !s.lenient {
			return -1
		}
		end := s.SkipValue(pos, depth)
		if end < 0 {
			return -1
		}
		s.Buf, _ = jsontext.AppendCompact(s.Buf[:0], d, pos)
		n.bin.Append(s.Buf)
		return end
	case kindLong:
		if c == '-' || c >= '0' && c <= '9' {
			end, class := s.ScanNumber(pos)
			if end < 0 {
				return -1
			}
			if class == jsontext.NumLong {
				n.i64.Append(jsontext.ParseLong(d[pos:end]))
				return end
			}
		}
	case kindDouble:
		if c == '-' || c >= '0' && c <= '9' {
			end, _ := s.ScanNumber(pos)
			if end < 0 {
				return -1
			}
			n.f64.Append(jsontext.ParseDouble(d[pos:end]))
			return end
		}
	case kindDecimal:
		if c == '-' || c >= '0' && c <= '9' {
			end, class := s.ScanNumber(pos)
			if end < 0 {
				return -1
			}
			if class != jsontext.NumDouble && n.appendDecimal(d[pos:end]) {
				return end
			}
		}
	case kindBool:
		if c == 't' {
			end := s.ScanLiteral(pos, "true")
			if end >= 0 {
				n.boo.Append(true)
			}
			return end
		}
		if c == 'f' {
			end := s.ScanLiteral(pos, "false")
			if end >= 0 {
				n.boo.Append(false)
			}
			return end
		}
	case kindStruct:
		if c == '{' {
			return s.fuseObject(pos, n, depth)
		}
	case kindList:
		if c == '[' {
			if depth >= s.MaxDepth {
				return -1
			}
			n.lst.Append(true)
			var more bool
			for pos, more = s.First(pos, ']'); more; pos, more = s.Next(pos, ']', false) {
				if pos = s.fuseValue(pos, n.elem, depth+1); pos < 0 {
					return -1
				}
			}
			return pos
		}
	}
	return s.fuseMisfit(pos, n, depth)
}

// fuseMisfit handles a value at pos that n's type does not take: an empty
// string is null (Spark's NullType); in a sampled read any other value
// becomes null and is counted; otherwise the fused pass ends.
func (s *scanner) fuseMisfit(pos int, n *buildNode, depth int) int {
	if s.Data[pos] == '"' {
		end, _ := s.ScanString(pos)
		if end == pos+2 {
			n.appendNull()
			return end
		}
	}
	if !s.lenient {
		return -1
	}
	end := s.SkipValue(pos, depth)
	if end < 0 {
		return -1
	}
	n.appendNull()
	s.misfit(n, pos, end)
	return end
}

// fusedKey reads the member name at pos and the ':' after it: the name and
// where the value starts, or -1 for anything else (the fused pass then
// gives way to the two-pass read, which reports it).
func (s *scanner) fusedKey(pos int) ([]byte, int) {
	d := s.Data
	if pos >= len(d) || d[pos] != '"' {
		return nil, -1
	}
	end, flags := s.ScanKey(pos)
	if end < 0 {
		return nil, -1
	}
	key := s.Body(pos, end, flags, &s.KeyBuf)
	pos = s.SkipWS(end)
	if pos >= len(d) || d[pos] != ':' {
		return nil, -1
	}
	return key, s.SkipWS(pos + 1)
}

func (s *scanner) fuseObject(pos int, n *buildNode, depth int) int {
	if depth >= s.MaxDepth {
		return -1
	}
	n.st.Append(true)
	n.gen++
	if n.gen == 0 {
		clear(n.seen)
		n.gen = 1
	}
	var more bool
	k := 0
	for pos, more = s.First(pos, '}'); more; pos, more = s.Next(pos, '}', false) {
		var key []byte
		if key, pos = s.fusedKey(pos); pos < 0 {
			return -1
		}
		i := n.lookup(key, k)
		switch {
		case i >= 0 && n.seen[i] != n.gen:
			n.seen[i] = n.gen
			pos = s.fuseValue(pos, n.fields[i], depth+1)
		case i >= 0:
			// A repeated key: the first occurrence wins.
			pos = s.fitsOrSkip(pos, n.fields[i].t, depth+1, n, key)
		default:
			// A field the schema drops (empty struct, empty name)
			// must stay droppable; an unknown one ends the fused pass
			// (is dropped and counted in a sampled read).
			j, ok := n.t.index[string(key)]
			if !ok {
				pos = s.fitsOrSkip(pos, nil, depth+1, n, key)
			} else {
				pos = s.fitsOrSkip(pos, n.t.fields[j].node, depth+1, n, key)
			}
		}
		k++
		if pos < 0 {
			return -1
		}
	}
	if pos < 0 {
		return -1
	}
	for i, f := range n.fields {
		if n.seen[i] != n.gen {
			f.appendNull()
		}
	}
	return pos
}

// fitsOrSkip is fitsValue for a value that is not built (a repeated key, a
// dropped field; t nil for a field the sample did not see): in a sampled
// read a misfit is skipped and counted instead of ending the fused pass.
func (s *scanner) fitsOrSkip(pos int, t *typeNode, depth int, parent *buildNode, key []byte) int {
	if t != nil {
		if end := s.fitsValue(pos, t, depth); end >= 0 || !s.lenient {
			return end
		}
	} else if !s.lenient {
		return -1
	}
	end := s.SkipValue(pos, depth)
	if end >= 0 {
		s.unknownField(parent, key, pos)
	}
	return end
}

// fitsValue checks the value at pos and that merging it into t would not
// change t (sparktype.Fits), without building anything.
func (s *scanner) fitsValue(pos int, t *typeNode, depth int) int {
	d := s.Data
	if pos >= len(d) {
		return -1
	}
	c := d[pos]
	switch {
	case c == 'n':
		return s.ScanLiteral(pos, "null")
	case t.kind == kindString:
		return s.SkipValue(pos, depth)
	case c == '"':
		// Only an empty string (NullType) fits a type other than string.
		if end, _ := s.ScanString(pos); end == pos+2 {
			return end
		}
		return -1
	case c == 't' && t.kind == kindBool:
		return s.ScanLiteral(pos, "true")
	case c == 'f' && t.kind == kindBool:
		return s.ScanLiteral(pos, "false")
	case c == 't', c == 'f':
		return -1
	case c == '-' || c >= '0' && c <= '9':
		end, class := s.ScanNumber(pos)
		if end < 0 || !sparktype.Fits(t.scalar(), numberType(class, d[pos:end])) {
			return -1
		}
		return end
	case c == '{':
		if t.kind != kindStruct || depth >= s.MaxDepth {
			return -1
		}
		var more bool
		for pos, more = s.First(pos, '}'); more; pos, more = s.Next(pos, '}', false) {
			var key []byte
			if key, pos = s.fusedKey(pos); pos < 0 {
				return -1
			}
			j, ok := t.index[string(key)]
			if !ok {
				return -1
			}
			if pos = s.fitsValue(pos, t.fields[j].node, depth+1); pos < 0 {
				return -1
			}
		}
		return pos
	case c == '[':
		if t.kind != kindList || depth >= s.MaxDepth {
			return -1
		}
		var more bool
		for pos, more = s.First(pos, ']'); more; pos, more = s.Next(pos, ']', false) {
			if pos = s.fitsValue(pos, t.elem, depth+1); pos < 0 {
				return -1
			}
		}
		return pos
	}
	return -1
}

// numberType is the inferred type of a number literal of class.
func numberType(class int, lit []byte) sparktype.Scalar {
	switch class {
	case jsontext.NumLong:
		return sparktype.Scalar{Kind: kindLong}
	case jsontext.NumDecimal:
		return sparktype.Scalar{Kind: kindDecimal, Prec: uint8(sparktype.IntegerPrecision(lit))}
	}
	return sparktype.Scalar{Kind: kindDouble}
}

// readFusedSplit reads one large document on several goroutines: a quick
// structural scan cuts its rows array at element boundaries; the first
// part walks the whole document (checking all of it but the other parts'
// elements), every other part reads its own elements.
func readFusedSplit(d []byte, cuts []int, arrayEnd int, opts Options, sp splitting, path []string, schema *arrow.Schema, structs bool, row *typeNode, sampledRows int64, sampled int, stats *ReadStats) (*dataframe.Frame, bool) {
	trust := utf8.Valid(d)
	mem := opts.allocator()
	type part struct {
		from, to int // element start (0: the whole document); next part's start or arrayEnd
		fusedPiece
	}
	parts := make([]*part, len(cuts)+1)
	parts[0] = &part{from: 0, to: cuts[0]}
	for i, c := range cuts {
		to := arrayEnd
		if i+1 < len(cuts) {
			to = cuts[i+1]
		}
		parts[i+1] = &part{from: c, to: to}
	}
	depth := len(path) + 1
	runIndexed(len(parts), sp.workers, func(i int) {
		p := parts[i]
		rb, err := newRowBuilder(mem, schema, structs)
		if err != nil {
			return
		}
		defer rb.release()
		if rb.root != nil {
			rb.root.attachTypes(row)
			frac := float64(p.to-p.from) / float64(sampled)
			if est := int64(float64(sampledRows) * frac); est <= maxBatchRows {
				rb.root.reserve(row, est, frac)
			}
		}
		s := &scanner{Scanner: jsontext.Scanner{Data: d, MaxDepth: opts.maxDepth(), TrustUTF8: trust}, lenient: opts.SampleRows > 0}
		defer func() { p.misfits, p.first = s.misfits, s.firstMisfit }()
		if i == 0 {
			s.cutAt, s.cutTo = p.to, arrayEnd
			pos := s.SkipWS(0)
			if pos >= len(d) {
				return
			}
			if pos = s.fusePath(pos, path, 0, rb, row); pos < 0 {
				return
			}
			if pos = s.SkipWS(pos); pos < len(d) {
				return
			}
		} else if !s.fuseRange(p.from, p.to, p.to == arrayEnd, depth, rb, row) {
			return
		}
		p.recs, p.ok = rb.finish(), true
	})
	pieces := make([]fusedPiece, len(parts))
	for i, p := range parts {
		pieces[i] = p.fusedPiece
	}
	return fusedFrame(schema, pieces, stats, opts)
}

// fuseRange reads the rows array elements from from up to to: the next
// part's first element, or, for the last part, the array's ']'.
func (s *scanner) fuseRange(from, to int, last bool, depth int, rb *rowBuilder, row *typeNode) bool {
	d := s.Data
	pos := from
	for {
		if pos = s.fuseRow(pos, depth, rb, row); pos < 0 {
			return false
		}
		pos = s.SkipWS(pos)
		if pos < len(d) && d[pos] == ',' && !(last && pos >= to) {
			pos = s.SkipWS(pos + 1)
			if pos == to && !last {
				return true
			}
			if pos >= to {
				return false
			}
			continue
		}
		return last && pos == to && pos < len(d) && d[pos] == ']'
	}
}

// cutArray scans the array at pos without checking it and returns up to
// n-1 element starts that cut it into parts of similar size, and the
// position of its closing ']'. arrayEnd is -1 when the scan runs off the
// input (the caller then reads in one part, which reports any error).
func cutArray(d []byte, pos, n int) (cuts []int, arrayEnd int) {
	size := len(d) - pos
	next := pos + size/n
	depth := 0
	for i := pos + 1; i < len(d); i++ {
		switch d[i] {
		case '"':
			e := stringEndSafe(d, i)
			if e < 0 {
				return nil, -1
			}
			i = e - 1
		case '{', '[':
			depth++
		case '}':
			depth--
		case ']':
			if depth == 0 {
				return cuts, i
			}
			depth--
		case ',':
			if depth == 0 && i >= next && len(cuts) < n-1 {
				j := i + 1
				for j < len(d) && jsontext.Space[d[j]] {
					j++
				}
				cuts = append(cuts, j)
				next = pos + size*(len(cuts)+1)/n
			}
		}
		if depth < 0 {
			return nil, -1
		}
	}
	return nil, -1
}

// stringEndSafe is stringEnd for input not yet checked: -1 when the string
// does not end.
func stringEndSafe(d []byte, pos int) int {
	i := pos + 1
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		k := i - 1
		for k > pos && d[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
		i++
	}
}
