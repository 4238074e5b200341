package jsonframe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/internal/batchmem"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// Streaming JSON lines from a file: two passes over the file (see
// docs/frames.md#streams). Pass 1 reads the file in blocks cut at line ends
// and infers the schema of every line on all cores; pass 2 reads it again
// and builds one or more record batches per block, on all cores, handed out
// in file order. Memory is bounded by the block size times the blocks in
// flight, not by the file.

// blockSize is the bytes of input one worker takes at a time. A line longer
// than a block makes its block as long as the line.
const blockSize = 4 << 20

// block is a run of whole lines of the file.
type block struct {
	seq  int
	data []byte
	base int64 // file offset of data[0]
	line int   // 1-based line number of data[0]
}

// blockReader cuts a file into blocks of whole lines, recycling buffers.
type blockReader struct {
	r     io.Reader
	size  int
	tail  []byte // a partial line carried into the next block
	off   int64
	line  int
	seq   int
	eof   bool
	free  chan []byte
	lines bool // count line numbers (pass 1 reports them in errors)
}

func newBlockReader(r io.Reader, size, buffers int) *blockReader {
	return &blockReader{r: r, size: size, line: 1, free: make(chan []byte, buffers)}
}

// recycle gives a block's buffer back for a later block.
func (br *blockReader) recycle(b *block) {
	select {
	case br.free <- b.data[:0]:
	default:
	}
}

// next returns the next block, or nil at the end of the file.
func (br *blockReader) next() (*block, error) {
	if br.eof && len(br.tail) == 0 {
		return nil, nil
	}
	var buf []byte
	select {
	case buf = <-br.free:
	default:
	}
	if cap(buf) < br.size+len(br.tail) {
		// Room for the usual tail (a partial line) saves reallocating.
		buf = make([]byte, 0, br.size+br.size/8+len(br.tail))
	}
	buf = append(buf[:0], br.tail...)
	br.tail = br.tail[:0]
	cut := -1
	for {
		if !br.eof && len(buf) < cap(buf) {
			n, err := br.r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				br.eof = true
			} else if err != nil {
				return nil, err
			}
			if n > 0 && len(buf) < cap(buf) && !br.eof {
				continue
			}
		}
		if br.eof {
			if len(buf) == 0 {
				br.recycle(&block{data: buf})
				return nil, nil
			}
			cut = len(buf)
			break
		}
		// A record ends at "\n", "\r\n" or a lone "\r" (see
		// docs/inference.md#json-lines): cut after the last "\n", else after
		// a "\r" that is seen not to start a "\r\n".
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			cut = i + 1
			break
		}
		if len(buf) > 1 {
			if i := bytes.LastIndexByte(buf[:len(buf)-1], '\r'); i >= 0 {
				cut = i + 1
				break
			}
		}
		// One line fills the buffer: grow it.
		grown := make([]byte, len(buf), 2*cap(buf))
		copy(grown, buf)
		buf = grown
	}
	br.tail = append(br.tail, buf[cut:]...)
	b := &block{seq: br.seq, data: buf[:cut], base: br.off, line: br.line}
	br.seq++
	br.off += int64(cut)
	if br.lines {
		br.line += jsontext.LineOf(b.data, int64(len(b.data))) - 1
	}
	return b, nil
}

// ndjsonFile is what pass 1 learned about a file.
type ndjsonFile struct {
	block   int // bytes per block
	path    string
	size    int64
	mtime   int64
	row     *typeNode
	rows    int64
	schema  *arrow.Schema
	structs bool // the rows are objects
	// invalidUTF8 holds the blocks (by seq) with a line that is not valid
	// UTF-8; pass 2 cuts the same blocks and checks only those.
	invalidUTF8 map[int]bool
	// mode is the malformed-record mode ("" for FAILFAST): pass 2 finds the
	// malformed records of each block again and keeps them in the corrupt
	// column (corrupt, "" when the schema has none) or leaves them out.
	mode      string
	corrupt   string
	malformed int64
	// sampled says the schema came from the first sampleRows records
	// (Options.SampleRows, which covered sampledBytes of the file): pass 2
	// fits every record to it, values that do not fit become null, and it
	// checks the syntax of the lines the sample did not read.
	sampled      bool
	sampleRows   int64
	sampledBytes int
}

// openFile opens path for one pass, with the size and modification time
// of the file opened (the passes compare them: ErrStreamChanged).
func openFile(path string) (fh *os.File, size, mtime int64, err error) {
	fh, err = os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, 0, err
	}
	return fh, st.Size(), st.ModTime().UnixNano(), nil
}

// streamWorkers is how many goroutines parse blocks: every CPU.
func streamWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// inferNDJSONFile is pass 1: the schema of every line of the file, checked
// for syntax, on all cores. The first error in file order is returned, with
// its line number.
func inferNDJSONFile(ctx context.Context, path string, opts Options, path0 []string, blockBytes int) (*ndjsonFile, error) {
	fh, size, mtime, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	workers := streamWorkers()
	br := newBlockReader(fh, blockBytes, workers+1)
	br.lines = true
	type result struct {
		row       typeNode
		rows      int64
		malformed int64
		err       error
		seq       int
		invalid   []int // blocks with a line that is not valid UTF-8
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *block, workers)
	results := make([]result, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(res *result) {
			defer wg.Done()
			res.seq = -1
			for b := range work {
				if res.err != nil {
					continue
				}
				c := &chunk{lines: true, spans: []docSpan{{data: b.data, base: b.base}}}
				err := inferChunk(c, path0, opts.maxDepth(), 0, opts.mode())
				if se, ok := err.(*SyntaxError); ok {
					se.Line = b.line + jsontext.LineOf(b.data, se.Offset-b.base) - 1
				}
				if err != nil {
					res.err, res.seq = err, b.seq
					cancel()
				} else {
					mergeNode(&res.row, &c.row)
					res.rows += c.rows
					res.malformed += c.malformed
					for _, sp := range c.spans {
						if !sp.utf8 {
							res.invalid = append(res.invalid, b.seq)
							break
						}
					}
				}
				br.recycle(b)
			}
		}(&results[w])
	}
	var readErr error
	for ctx.Err() == nil {
		b, err := br.next()
		if err != nil {
			readErr = err
			break
		}
		if b == nil {
			break
		}
		select {
		case work <- b:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	// The first error in file order wins: it is the one a sequential read
	// would have reported.
	var first *result
	for i := range results {
		if r := &results[i]; r.err != nil && (first == nil || r.seq < first.seq) {
			first = r
		}
	}
	switch {
	case first != nil:
		return nil, first.err
	case readErr != nil:
		return nil, readErr
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	}
	nf := &ndjsonFile{block: blockBytes, path: path, size: size, mtime: mtime, row: &typeNode{}, invalidUTF8: map[int]bool{}}
	for i := range results {
		for _, seq := range results[i].invalid {
			nf.invalidUTF8[seq] = true
		}
		mergeNode(nf.row, &results[i].row)
		nf.rows += results[i].rows
		nf.malformed += results[i].malformed
	}
	nf.mode = opts.mode()
	nf.schema, nf.structs, nf.corrupt = inferredSchema(nf.row, nf.rows, opts, nf.malformed)
	return nf, nil
}

// OpenNDJSON streams a file of JSON lines in two passes: it infers the
// schema now (every line, on all cores) and returns a stream whose batches
// are built by a second pass as they are read. RecordsPath applies per line
// as in ReadNDJSON, and the batches hold what ReadNDJSON would: with
// SampleRows the schema comes from the first SampleRows records only (read
// now, from the start of the file) and pass 2 fits every record to it; with
// a malformed-record Mode, malformed lines are kept as corrupt records or
// left out. Stats, when set, is complete once the stream has ended: a
// misfit found by pass 2 is counted as its block is handed out, and with
// Strict the first one ends the stream with a *MisfitError. The caller
// releases the stream; cancelling ctx stops it.
func OpenNDJSON(ctx context.Context, path string, opts Options) (dataframe.Stream, error) {
	blockBytes := opts.BlockBytes
	if blockBytes <= 0 {
		blockBytes = blockSize
	}
	p, err := opts.validate()
	if err != nil {
		return nil, err
	}
	var nf *ndjsonFile
	if opts.SampleRows > 0 && opts.mode() == "" {
		// As ReadNDJSON: a sample without rows or types (nf nil) infers
		// from everything instead.
		nf, err = sampleNDJSONFile(ctx, path, opts, p, blockBytes)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	if nf == nil {
		nf, err = inferNDJSONFile(ctx, path, opts, p, blockBytes)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	if opts.Stats != nil {
		*opts.Stats = ReadStats{Malformed: nf.malformed}
	}
	mem := opts.Allocator
	if mem == nil {
		mem = batchmem.Allocator()
	}
	return dataframe.NewStream(ctx, nf.schema, 2, func(ctx context.Context, emit func(arrow.Record) bool) error {
		err := nf.build(ctx, mem, p, opts, emit)
		if err != nil && !errors.Is(err, context.Canceled) {
			err = fmt.Errorf("reading %s: %w", path, err)
		}
		return err
	}), nil
}

// build is pass 2: blocks are built on all cores and their batches emitted
// in file order.
func (nf *ndjsonFile) build(ctx context.Context, mem memory.Allocator, path []string, opts Options, emit func(arrow.Record) bool) error {
	maxDepth := opts.maxDepth()
	fh, size, mtime, err := openFile(nf.path)
	if err != nil {
		return err
	}
	defer fh.Close()
	if size != nf.size || mtime != nf.mtime {
		return dataframe.ErrStreamChanged
	}
	workers := streamWorkers()
	br := newBlockReader(fh, nf.block, 2*workers+2)
	br.lines = nf.sampled // pass 2 may find misfits and syntax errors: name their lines
	type built struct {
		recs    []arrow.Record
		misfits int64
		first   *Misfit
		err     error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// order holds one result channel per block in file order; its capacity
	// bounds the blocks being built or waiting to be emitted.
	order := make(chan chan built, workers+1)
	work := make(chan func(), workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for fn := range work {
				fn()
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(work)
		for ctx.Err() == nil {
			b, err := br.next()
			res := make(chan built, 1)
			if err != nil || b == nil {
				if err != nil {
					res <- built{err: err}
					order <- res
				}
				return
			}
			select {
			case order <- res:
			case <-ctx.Done():
				return
			}
			frac := 1.0
			if nf.size > 0 {
				frac = float64(len(b.data)) / float64(nf.size)
			}
			work <- func() {
				c, err := buildBlock(b, mem, nf, path, maxDepth, frac)
				br.recycle(b)
				res <- built{c.recs, c.misfits, c.first, err}
			}
		}
	}()
	defer func() {
		cancel()
		for res := range order {
			for _, r := range (<-res).recs {
				r.Release()
			}
		}
		wg.Wait()
	}()
	var rows int64
	var stats ReadStats
	stats.Malformed = nf.malformed
	defer func() {
		if opts.Stats != nil {
			*opts.Stats = stats
		}
	}()
	for res := range order {
		// A block's build always ends (and is released here or in the
		// cleanup), so wait for it even when cancelled.
		b := <-res
		if err := ctx.Err(); err != nil {
			releaseAll(b.recs)
			return err
		}
		stats.add(b.misfits, b.first)
		if opts.Strict && stats.First != nil && (b.err == nil || misfitFirst(stats.First, b.err)) {
			// The first problem in file order ends a strict read.
			releaseAll(b.recs)
			return &MisfitError{Misfit: *stats.First, SampleRows: opts.SampleRows, Count: stats.Misfits}
		}
		if b.err != nil {
			releaseAll(b.recs)
			return b.err
		}
		for i, r := range b.recs {
			rows += r.NumRows()
			if !emit(r) {
				for _, r := range b.recs[i+1:] {
					r.Release()
				}
				return ctx.Err()
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !nf.sampled && rows != nf.rows {
		return fmt.Errorf("%w: %d rows now, %d when the schema was inferred", dataframe.ErrStreamChanged, rows, nf.rows)
	}
	return nil
}

// buildBlock builds the rows of one block of lines against the inferred
// schema into c.recs (c.misfits and c.first: what did not fit a sampled
// schema). Pass 1 checked the syntax, so it only finds where each line's
// rows start; a panic means the file changed under us. With a mode it
// finds the malformed lines again; with a sampled schema it checks and
// fits every line (the fused path of ReadNDJSON), and its errors name the
// line.
func buildBlock(b *block, mem memory.Allocator, nf *ndjsonFile, path []string, maxDepth int, frac float64) (c *chunk, err error) {
	c = &chunk{}
	defer func() {
		if r := recover(); r != nil {
			releaseAll(c.recs)
			c.recs, err = nil, fmt.Errorf("%w (%v at byte %d)", dataframe.ErrStreamChanged, r, b.base)
		}
	}()
	switch {
	case nf.sampled:
		c.spans = splitLines(docSpan{data: b.data, base: b.base})
		c.recs, err = fuseChunk(c, mem, nf.schema, nf.structs, nf.row, nf.sampleRows, nf.sampledBytes, path, maxDepth, true)
		if c.first != nil {
			c.first.Line = b.line + jsontext.LineOf(b.data, c.first.Offset-b.base) - 1
		}
		if err == nil {
			return c, nil
		}
		// Fitting stopped: say why, as pass 1 would have.
		check := &chunk{lines: true, spans: []docSpan{{data: b.data, base: b.base}}}
		err = inferChunk(check, path, maxDepth, 0, "")
		if se, ok := err.(*SyntaxError); ok {
			se.Line = b.line + jsontext.LineOf(b.data, se.Offset-b.base) - 1
		}
		if err == nil {
			err = fmt.Errorf("line %d or after: a record does not fit the schema sampled from the first %d records", b.line, nf.sampleRows)
		}
		return c, err
	case nf.mode != "":
		c.lines, c.spans = true, []docSpan{{data: b.data, base: b.base}}
		if err := inferChunk(c, path, maxDepth, 0, nf.mode); err != nil {
			return c, err
		}
		c.recs, err = buildChunk(c, mem, nf.schema, nf.structs, maxDepth, nf.row, frac, nf.corrupt)
		return c, err
	}
	c.spans = splitLines(docSpan{data: b.data, base: b.base})
	blockUTF8 := !nf.invalidUTF8[b.seq]
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: maxDepth}}
	for i := range c.spans {
		sp := &c.spans[i]
		s.Data, s.Base = sp.data, sp.base
		if !s.locateRows(path, sp) {
			return c, fmt.Errorf("%w (at byte %d)", dataframe.ErrStreamChanged, sp.base)
		}
		sp.utf8 = blockUTF8 || utf8.Valid(sp.data)
	}
	c.rows = int64(float64(nf.rows) * frac)
	c.recs, err = buildChunk(c, mem, nf.schema, nf.structs, maxDepth, nf.row, frac, "")
	return c, err
}

// sampleNDJSONFile is pass 1 of a sampled read: the schema of the first
// opts.SampleRows records, read from the start of the file. It returns nil
// when the sample has no rows or no types (the caller infers from every
// line, as ReadNDJSON does).
func sampleNDJSONFile(ctx context.Context, path string, opts Options, p []string, blockBytes int) (*ndjsonFile, error) {
	fh, size, mtime, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	br := newBlockReader(fh, blockBytes, 1)
	br.lines = true
	limit := int64(opts.SampleRows)
	row := &typeNode{}
	var rows int64
	sampled := 0
	s := &scanner{Scanner: jsontext.Scanner{MaxDepth: opts.maxDepth()}, recordsPath: strings.Join(p, ".")}
read:
	for rows < limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := br.next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		for _, sp := range splitLines(docSpan{data: b.data, base: b.base}) {
			s.Data, s.Base = sp.data, sp.base
			s.rowLimit = limit - rows
			err := s.inferDoc(p, row, &sp)
			rows += sp.rows
			sampled = int(sp.base) + len(sp.data)
			if _, full := err.(sampleFull); full {
				break read
			}
			if se, ok := err.(*SyntaxError); ok {
				se.Line = b.line + jsontext.LineOf(b.data, se.Offset-b.base) - 1
			}
			if err != nil {
				return nil, err
			}
			if rows >= limit {
				break read
			}
		}
		br.recycle(b)
	}
	if rows == 0 || row.kind == kindNone {
		return nil, nil
	}
	schema := rowSchema(row, rows)
	return &ndjsonFile{block: blockBytes, path: path, size: size, mtime: mtime, row: row, rows: rows, schema: schema,
		structs: row.kind == kindStruct, sampled: true, sampleRows: rows, sampledBytes: max(sampled, 1)}, nil
}

// locateRows finds where the rows of a document checked by pass 1 start
// (sp.start, sp.array; -1 for none) without checking it again.
func (s *scanner) locateRows(path []string, sp *docSpan) bool {
	sp.start, sp.array = -1, false
	pos := s.SkipWS(0)
	if pos >= len(s.Data) {
		return false
	}
	leaf := func(pos, depth int) int {
		switch s.Data[pos] {
		case '[':
			sp.start, sp.array = pos, true
		case 'n':
		default:
			sp.start = pos
		}
		return -1 // found: stop walking
	}
	if len(path) == 0 {
		leaf(pos, 0)
		return true
	}
	s.Err = nil
	s.WalkPath(pos, path, 0, leaf)
	return s.Err == nil
}

// misfitFirst says the misfit m comes before the syntax error err.
func misfitFirst(m *Misfit, err error) bool {
	var se *SyntaxError
	return errors.As(err, &se) && m.Offset < se.Offset
}

func releaseAll(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}
