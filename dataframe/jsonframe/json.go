package jsonframe

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// Options control how JSON becomes a frame.
type Options struct {
	// RecordsPath is the dotted path of an array ("items",
	// "data.results"); each element becomes a row. Defaults to "" (the
	// document itself: an object is one row, an array one row per element).
	RecordsPath string
	// Allocator holds the frame's memory. Defaults to memory.DefaultAllocator.
	Allocator memory.Allocator
	// MaxDepth bounds the nesting of objects and arrays; deeper input is an
	// error rather than a stack overflow. Defaults to 512.
	MaxDepth int
	// BlockBytes is how many bytes of lines one worker of a file stream
	// (OpenNDJSON) takes at a time; memory holds a few blocks. Ignored by
	// the in-memory readers. Defaults to 4 MiB.
	BlockBytes int
	// SampleRows > 0 infers the schema from the first SampleRows rows only
	// (Spark's samplingRatio analogue; see docs/inference.md#sampling).
	// Later values that do not fit it become null and fields it lacks are
	// dropped, both counted in Stats. Defaults to 0: the whole input.
	SampleRows int
	// Strict makes a value that does not fit the sampled schema an error
	// (*MisfitError naming the record, field and value) instead of a null.
	Strict bool
	// Stats, when not nil, receives what the read counted.
	Stats *ReadStats
	// Mode is what a malformed record does, as Spark's `mode` option (see
	// docs/inference.md#malformed-records). A record is a line of JSON
	// lines or a whole document; it is malformed when it is not valid JSON
	// or its rows are not objects. ModeFailFast ("" too, the default): the
	// read fails (*SyntaxError). ModePermissive: the record is one row whose
	// column CorruptColumn holds its text, every other column null.
	// ModeDropMalformed: the record is left out. Not with SampleRows.
	Mode string
	// CorruptColumn names the column of malformed records in
	// ModePermissive. Defaults to "_corrupt_record".
	CorruptColumn string
}

// The Options.Mode values (Spark's names; any case is accepted).
const (
	ModeFailFast      = "FAILFAST"
	ModePermissive    = "PERMISSIVE"
	ModeDropMalformed = "DROPMALFORMED"
)

// DefaultCorruptColumn is Spark's columnNameOfCorruptRecord.
const DefaultCorruptColumn = "_corrupt_record"

// mode is o.Mode in upper case, "" for FAILFAST.
func (o Options) mode() string {
	m := strings.ToUpper(o.Mode)
	if m == ModeFailFast {
		return ""
	}
	return m
}

func (o Options) corruptColumn() string {
	if o.CorruptColumn == "" {
		return DefaultCorruptColumn
	}
	return o.CorruptColumn
}

// RecordsPathError is a records path that holds something other than an
// array (or null) in a document.
type RecordsPathError struct {
	Path  string // Options.RecordsPath
	Found string // what is there instead: "an object", "a string", …
	Doc   int    // 0-based document index
	Docs  int    // how many documents were read
}

func (e *RecordsPathError) Error() string {
	s := fmt.Sprintf("dataframe: records path %q holds %s, not an array", e.Path, e.Found)
	if e.Docs > 1 {
		s += fmt.Sprintf(" in document %d", e.Doc)
	}
	return s
}

func (o Options) validate() (path []string, err error) {
	if o.MaxDepth < 0 {
		return nil, fmt.Errorf("dataframe: Options.MaxDepth is %d, must be 0 (default) or more", o.MaxDepth)
	}
	if o.SampleRows < 0 {
		return nil, fmt.Errorf("dataframe: Options.SampleRows is %d, must be 0 (all rows) or more", o.SampleRows)
	}
	switch o.mode() {
	case "", ModePermissive, ModeDropMalformed:
	default:
		return nil, fmt.Errorf("dataframe: Options.Mode %q: want %s, %s or %s", o.Mode, ModeFailFast, ModePermissive, ModeDropMalformed)
	}
	if o.mode() != "" && o.SampleRows > 0 {
		return nil, fmt.Errorf("dataframe: Options.Mode %s does not combine with SampleRows", o.Mode)
	}
	if o.RecordsPath == "" {
		return nil, nil
	}
	path = strings.Split(o.RecordsPath, ".")
	for _, p := range path {
		if p == "" {
			return nil, fmt.Errorf("dataframe: Options.RecordsPath %q has an empty segment", o.RecordsPath)
		}
	}
	return path, nil
}

func (o Options) allocator() memory.Allocator {
	if o.Allocator == nil {
		return memory.DefaultAllocator
	}
	return o.Allocator
}

func (o Options) maxDepth() int {
	if o.MaxDepth == 0 {
		return jsontext.DefaultMaxDepth
	}
	return o.MaxDepth
}

// ReadDocument reads one JSON document: an object is one row, an array one row
// per element (an array of non-objects gives the column `value`), with
// the schema inferred by Spark's rules. With RecordsPath the rows are the
// elements of the array there; a missing or null path gives no rows.
// Invalid JSON is a *SyntaxError. A large document's rows are read on all
// cores, one record batch per part.
func ReadDocument(doc []byte, opts Options) (*dataframe.Frame, error) {
	return readJSON([]docSpan{{data: doc}}, false, opts)
}

// ReadDocuments reads several documents (API pages) into one frame:
// schemas merged, rows in document order. Each document is read as by
// ReadDocument.
func ReadDocuments(docs [][]byte, opts Options) (*dataframe.Frame, error) {
	spans := make([]docSpan, len(docs))
	for i, d := range docs {
		spans[i] = docSpan{data: d, doc: i}
	}
	return readJSON(spans, false, opts)
}

// ReadNDJSON reads JSON lines: each non-blank line is a document read as
// by ReadDocument (RecordsPath applies per line). Large inputs are split on
// line boundaries and read on all cores, one record batch per part.
// SyntaxError offsets count from the start of data.
func ReadNDJSON(data []byte, opts Options) (*dataframe.Frame, error) {
	return readJSON([]docSpan{{data: data}}, true, opts)
}

// docSpan is one JSON document and, after pass 1, where its rows are.
type docSpan struct {
	data  []byte
	base  int64 // offset of data in the caller's input (NDJSON)
	doc   int
	start int // position of the rows value in data; -1: no rows
	array bool
	rows  int64
	utf8  bool // data is valid UTF-8
	bad   bool // a malformed record (Mode PERMISSIVE or DROPMALFORMED)
}

// chunk is a share of the input read by one goroutine.
type chunk struct {
	spans []docSpan
	lines bool // spans[0] is a block of JSON lines still to split
	row   typeNode
	rows  int64
	recs  []arrow.Record
	err   error

	misfits   int64 // values that did not fit and became null
	first     *Misfit
	malformed int64 // records left out of inference (Mode)
}

// splitting decides how input is shared among goroutines.
type splitting struct {
	minParallel int // inputs smaller than this are read on one goroutine
	chunkMin    int // smallest share
	workers     int
	twoPass     bool // skip the fused one-pass attempt (tests compare both)
}

func defaultSplitting() splitting {
	return splitting{minParallel: 8 << 20, chunkMin: 4 << 20, workers: runtime.GOMAXPROCS(0)}
}

func readJSON(spans []docSpan, lines bool, opts Options) (*dataframe.Frame, error) {
	return readJSONSplit(spans, lines, opts, defaultSplitting())
}

func readJSONSplit(spans []docSpan, lines bool, opts Options, sp splitting) (f *dataframe.Frame, err error) {
	path, err := opts.validate()
	if err != nil {
		return nil, err
	}
	var stats ReadStats
	defer func() {
		if opts.Stats != nil {
			*opts.Stats = stats
		}
	}()
	mode := opts.mode()
	if (!sp.twoPass || opts.SampleRows > 0) && mode == "" {
		if f, ok := readFused(spans, lines, opts, sp, path, &stats); ok {
			if err := stats.check(opts, spans, lines); err != nil {
				f.Release()
				return nil, err
			}
			return f, nil
		}
		// The two-pass path reports the error that stopped the fused one
		// (or, for a sample without rows or types, infers from everything).
		stats = ReadStats{}
	}
	chunks := splitChunks(spans, lines, sp)
	docs := len(spans)
	if lines {
		docs = 0
	}
	runChunks(chunks, sp.workers, func(c *chunk) { c.err = inferChunk(c, path, opts.maxDepth(), docs, mode) })
	row := &typeNode{}
	var rows, malformed int64
	for _, c := range chunks {
		if c.err != nil {
			if se, ok := c.err.(*SyntaxError); ok && lines {
				se.Line = jsontext.LineOf(spans[0].data, se.Offset)
			}
			return nil, c.err
		}
		mergeNode(row, &c.row)
		rows += c.rows
		malformed += c.malformed
	}
	stats.Malformed = malformed
	schema, structs, corrupt := inferredSchema(row, rows, opts, malformed)
	mem := opts.allocator()
	total := 0
	for _, sp := range spans {
		total += len(sp.data)
	}
	runChunks(chunks, sp.workers, func(c *chunk) {
		size := 0
		for _, sp := range c.spans {
			size += len(sp.data)
		}
		frac := 1.0
		if total > 0 && len(chunks) > 1 {
			frac = float64(size) / float64(total)
		}
		c.recs, c.err = buildChunk(c, mem, schema, structs, opts.maxDepth(), row, frac, corrupt)
	})
	var recs []arrow.Record
	for _, c := range chunks {
		if c.err != nil && err == nil {
			err = c.err
		}
		recs = append(recs, c.recs...)
		stats.add(c.misfits, c.first)
	}
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, err
	}
	f, err = dataframe.New(schema, recs...)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(opts.Allocator)
	return f, nil
}

// inferredSchema is the schema of a full inference: the row type, and with
// a malformed-record mode the rows are objects (the others were malformed)
// and in PERMISSIVE mode the corrupt-record column joins them when a record
// needed it (corrupt is then its name). structs says the rows are objects.
func inferredSchema(row *typeNode, rows int64, opts Options, malformed int64) (schema *arrow.Schema, structs bool, corrupt string) {
	mode := opts.mode()
	if mode == "" {
		return rowSchema(row, rows), row.kind == kindStruct, ""
	}
	schema = arrow.NewSchema(nil, nil)
	if row.kind == kindStruct {
		schema = arrow.NewSchema(row.arrowFields(), nil)
	}
	if mode == ModePermissive && malformed > 0 {
		corrupt = opts.corruptColumn()
		schema = withCorruptField(schema, corrupt)
	}
	return schema, true, corrupt
}

// splitChunks shares the input out for the goroutines: JSON lines by byte
// ranges cut at newlines, documents by count.
func splitChunks(spans []docSpan, lines bool, sp splitting) []*chunk {
	total := 0
	for _, s := range spans {
		total += len(s.data)
	}
	n := 1
	if sp.workers > 1 && total >= sp.minParallel {
		n = max(1, min(4*sp.workers, total/sp.chunkMin))
	}
	if lines {
		data := spans[0].data
		var chunks []*chunk
		start := 0
		for i := 0; i < n && start < len(data); i++ {
			end := len(data)
			if i < n-1 {
				end = start + (len(data)-start)/(n-i)
				if nl := jsontext.LineBreak(data[end:], true); nl >= 0 {
					end += nl + 1
				} else {
					end = len(data)
				}
			}
			chunks = append(chunks, &chunk{lines: true, spans: []docSpan{{data: data[start:end], base: int64(start)}}})
			start = end
		}
		if len(chunks) == 0 {
			chunks = append(chunks, &chunk{lines: true, spans: []docSpan{{data: nil}}})
		}
		return chunks
	}
	if n > len(spans) {
		n = len(spans)
	}
	if n <= 1 {
		return []*chunk{{spans: spans}}
	}
	chunks := make([]*chunk, 0, n)
	per := total / n
	start, size := 0, 0
	for i := range spans {
		size += len(spans[i].data)
		if size >= per && len(chunks) < n-1 {
			chunks = append(chunks, &chunk{spans: spans[start : i+1]})
			start, size = i+1, 0
		}
	}
	if start < len(spans) {
		chunks = append(chunks, &chunk{spans: spans[start:]})
	}
	return chunks
}

func runChunks(chunks []*chunk, workers int, fn func(*chunk)) {
	runIndexed(len(chunks), workers, func(i int) { fn(chunks[i]) })
}

// runIndexed calls fn(0) … fn(n-1) on up to workers goroutines.
func runIndexed(n, workers int, fn func(i int)) {
	if n == 1 || workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(i)
		}()
	}
	wg.Wait()
}

// splitLines turns a block of JSON lines into one span per non-blank line.
func splitLines(block docSpan) []docSpan {
	var spans []docSpan
	d := block.data
	hasCR := bytes.IndexByte(d, '\r') >= 0
	for pos := 0; pos < len(d); {
		end := jsontext.LineBreak(d[pos:], hasCR)
		if end < 0 {
			end = len(d)
		} else {
			end += pos
		}
		line := d[pos:end]
		blank := true
		for _, c := range line {
			if !jsontext.Space[c] {
				blank = false
				break
			}
		}
		if !blank {
			spans = append(spans, docSpan{data: line, base: block.base + int64(pos)})
		}
		pos = end + 1
	}
	return spans
}

// inferChunk is pass 1: it checks the syntax of every document of c,
// merges the types of their rows into c.row and notes where the rows are.
// With a mode (PERMISSIVE, DROPMALFORMED) a malformed document is marked
// bad instead of failing, and leaves c.row as it was.
func inferChunk(c *chunk, path []string, maxDepth, docs int, mode string) error {
	if c.lines {
		c.spans = splitLines(c.spans[0])
	}
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: maxDepth}, recordsPath: strings.Join(path, ".")}
	for i := range c.spans {
		sp := &c.spans[i]
		s.Data, s.Base, s.Doc = sp.data, sp.base, sp.doc
		if mode != "" {
			// Each record on its own, so a malformed one adds nothing.
			one := &typeNode{}
			err := s.inferDoc(path, one, sp)
			_, pathErr := err.(*RecordsPathError)
			if err == nil && (one.kind == kindNone || one.kind == kindStruct) {
				mergeNode(&c.row, one)
				c.rows += sp.rows
				continue
			}
			if err != nil && pathErr {
				e := err.(*RecordsPathError)
				e.Docs, e.Doc = docs, sp.doc
				return err
			}
			sp.bad, sp.start, sp.rows = true, -1, 0
			c.malformed++
			if mode == ModePermissive {
				sp.rows = 1
				c.rows++
			}
			continue
		}
		if err := s.inferDoc(path, &c.row, sp); err != nil {
			switch e := err.(type) {
			case *SyntaxError:
				e.Docs = docs
			case *RecordsPathError:
				e.Docs = docs
				e.Doc = sp.doc
			}
			return err
		}
		c.rows += sp.rows
	}
	return nil
}

func (s *scanner) inferDoc(path []string, row *typeNode, sp *docSpan) error {
	s.Err = nil
	s.BadUTF8 = false
	sp.start = -1
	pos := s.SkipWS(0)
	if pos >= len(s.Data) {
		s.Fail(pos, "empty document")
		return s.Err
	}
	var pathErr error
	pos = s.inferPath(pos, path, 0, row, sp, &pathErr)
	if s.stopped {
		s.stopped = false
		return sampleFull{}
	}
	if pathErr != nil {
		return pathErr
	}
	if pos < 0 {
		return s.Err
	}
	if pos = s.SkipWS(pos); pos < len(s.Data) {
		s.Fail(pos, "%s after the JSON value", s.Describe(pos))
		return s.Err
	}
	// Pass 1 checked every string with a non-ASCII byte: a valid document
	// spares pass 2 a check per string.
	sp.utf8 = !s.BadUTF8
	return nil
}

// inferPath walks the path from the value at pos; at its end it infers the
// rows. Everything else is skipped but still checked.
func (s *scanner) inferPath(pos int, path []string, depth int, row *typeNode, sp *docSpan, pathErr *error) int {
	return s.WalkPath(pos, path, depth, func(pos, depth int) int {
		return s.inferRows(pos, depth, row, sp, pathErr)
	})
}

// inferRows infers the rows held by the value at pos: the elements of an
// array, nothing for null, else the value itself (an error at the end of
// a records path).
func (s *scanner) inferRows(pos, depth int, row *typeNode, sp *docSpan, pathErr *error) int {
	d := s.Data
	switch d[pos] {
	case '[':
		if depth >= s.MaxDepth {
			return s.Fail(pos, "nesting deeper than %d levels", s.MaxDepth)
		}
		sp.start, sp.array = pos, true
		var more bool
		for pos, more = s.First(pos, ']'); more; pos, more = s.Next(pos, ']', true) {
			if pos = s.inferValue(pos, row, depth+1); pos < 0 {
				return -1
			}
			sp.rows++
			if s.rowLimit > 0 && sp.rows >= s.rowLimit {
				s.stopped, s.stopAt = true, pos
				return -1
			}
		}
		return pos
	case 'n':
		return s.ScanLiteral(pos, "null")
	}
	if depth > 0 {
		// Check the value first so invalid JSON is still reported as such.
		if end := s.SkipValue(pos, depth); end < 0 {
			return -1
		}
		*pathErr = &RecordsPathError{Path: s.recordsPath, Found: jsontext.KindName(d[pos]), Doc: s.Doc}
		return -1
	}
	sp.start = pos
	sp.rows = 1
	return s.inferValue(pos, row, depth)
}

// buildChunk is pass 2: it appends the rows found by pass 1 to builders of
// the final schema.
func buildChunk(c *chunk, mem memory.Allocator, schema *arrow.Schema, structs bool, maxDepth int, row *typeNode, frac float64, corrupt string) ([]arrow.Record, error) {
	rb, err := newRowBuilder(mem, schema, structs)
	if err != nil {
		return nil, err
	}
	defer rb.release()
	if rb.root != nil && c.rows <= maxBatchRows {
		rb.root.reserve(row, c.rows, frac)
	}
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: maxDepth}}
	defer func() { c.misfits, c.first = s.misfits, s.firstMisfit }()
	for i := range c.spans {
		sp := &c.spans[i]
		if sp.bad && corrupt != "" {
			rb.addCorrupt(corrupt, sp.data)
			continue
		}
		if sp.start < 0 {
			continue
		}
		s.Doc = sp.doc
		s.Data, s.Base, s.TrustUTF8 = sp.data, sp.base, sp.utf8
		if !sp.array {
			rb.add(s, sp.start, 0)
			continue
		}
		d := s.Data
		pos := s.SkipWS(sp.start + 1)
		if d[pos] == ']' {
			continue
		}
		for {
			pos = s.SkipWS(rb.add(s, pos, 1))
			if d[pos] == ',' {
				pos = s.SkipWS(pos + 1)
				continue
			}
			break
		}
	}
	return rb.finish(), nil
}
