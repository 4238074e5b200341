package restapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
	"github.com/sluicedata/sluice/internal/jsontext"
)

// A streamed read (ReadStream) spools its pages to a temporary file as they
// arrive and drops them, then reads the file back in two passes (infer,
// then build) as a stream of record batches, so memory does not grow with
// the pages (see docs/restapi.md#memory):
//
//   - parsed JSON: each page's records (the array at records.path, or the
//     body) become JSON lines — one line per record when every record is
//     an object, else the page's array on one line (writeLines) — read back by
//     jsonframe.OpenNDJSON, which gives what the in-memory read's
//     jsonframe.ReadDocuments gives for the pages;
//   - ndjson: the pages' lines, read back by jsonframe.OpenNDJSON as the
//     in-memory read's ReadNDJSON reads them joined;
//   - csv with parse.payload: the header once and every page's rows, read
//     back by csvframe.Open as the in-memory read's csvframe.Read;
//   - payload mode: the bodies, length-prefixed, read back into batches of
//     the `payload` column.
//
// The file is removed when the stream ends or is released, and at once
// when the read fails or is cancelled.

// spoolBatchBytes bounds the bodies of one payload-mode batch.
const spoolBatchBytes = 8 << 20

// spoolBlockBytes is the lines one worker of the JSON stream takes at a
// time: a quarter of a file stream's default, which on 2 cores builds as
// fast and holds 40 % less (bench/restapi/spool.sh).
const spoolBlockBytes = 1 << 20

// ReadStream reads the dataset as a stream of record batches
// (connectors.StreamReader), with the same schema, rows and errors as Read.
// The pages are spooled to a temporary file (ReadOptions.SpoolDir, else
// the system's temporary directory) that the stream removes; the caller
// releases the stream. Reads the spool cannot serve — CSV without
// parse.payload (string columns), and JSON read with sampling or a
// malformed-record mode (jsonframe.WithReadSettings) — are read whole and
// streamed from memory. See docs/restapi.md#memory.
func (c *Connector) ReadStream(ctx context.Context, ds *connectors.Dataset) (dataframe.Stream, error) {
	sp, err := c.ReadSpool(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer sp.Release() // the stream keeps what it reads
	return sp.Open(ctx)
}

var _ connectors.SpoolReader = (*Connector)(nil)

// ReadSpool reads the dataset once — every page, one request each — into a
// spool (connectors.SpoolReader) that streams it as often as asked without
// another request: the session serves every read a SQL statement makes of
// the table from it (docs/restapi.md#one-read-per-statement). Reads the
// spool file cannot serve (see ReadStream) are held in memory.
func (*Connector) ReadSpool(ctx context.Context, ds *connectors.Dataset) (connectors.Spool, error) {
	r, name, err := startRead(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer r.close()
	red := r.red
	if !r.spools(ctx) {
		f, err := r.readWhole(ctx, name)
		if err != nil {
			return nil, err
		}
		return &frameSpool{f: f}, nil
	}
	sp, err := newSpool(r, name)
	if err != nil {
		return nil, red.Error(fmt.Errorf("reading %s: spooling the pages: %w", name, err))
	}
	r.done = sp.add
	if err := r.readPages(ctx); err != nil {
		sp.remove()
		if pe := (*pageDataError)(nil); errors.As(err, &pe) {
			return nil, red.Error(fmt.Errorf("reading %s: %w", name, pe.err))
		}
		return nil, red.Error(fmt.Errorf("reading %s %w", name, err))
	}
	if err := sp.finish(); err != nil {
		sp.remove()
		return nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	return sp, nil
}

// frameSpool is a read held in memory, streamed as often as asked.
type frameSpool struct{ f *dataframe.Frame }

func (s *frameSpool) Open(context.Context) (dataframe.Stream, error) { return s.f.Stream(), nil }
func (s *frameSpool) Release()                                       { s.f.Release() }

// spools reports whether the read can be spooled (see ReadStream).
func (r *reader) spools(ctx context.Context) bool {
	if r.rc.format == "csv" {
		return r.rc.parse
	}
	if !r.rc.parse {
		return true // payload mode
	}
	rs := jsonframe.ReadSettingsFrom(ctx, jsonframe.Options{})
	return rs.SampleRows <= 0 && (rs.Mode == "" || strings.EqualFold(rs.Mode, jsonframe.ModeFailFast))
}

// spool is the temporary file of one streamed read. It is removed once
// the spool (ReadSpool's caller) and every stream opened from it are
// released, or at once when the read fails.
type spool struct {
	r     *reader
	name  string // the dataset, for errors
	kind  string // json, ndjson, csv or payload
	path  string
	file  *os.File
	w     *bufio.Writer
	size  int64
	pages []spooledPage // where each page starts, for error messages
	// json: whether any page has records.path, and the first non-blank
	// page's fields for the error when none has.
	found  bool
	fields string
	blank  bool // json: no page had a body
	header []string
	cw     *csv.Writer
	buf    []byte   // payload: a length
	elems  [][]byte // json: the records of a page
	err    error    // the first write error
	once   sync.Once
	refs   atomic.Int64     // the spool's own and one per open stream
	empty  *dataframe.Frame // csv without a row: what the in-memory read gives
}

type spooledPage struct {
	start  int64
	number int
	url    string // redacted
}

func newSpool(r *reader, name string) (*spool, error) {
	kind := r.rc.format
	if !r.rc.parse {
		kind = "payload"
	}
	f, err := os.CreateTemp(r.opts.SpoolDir, "sluice-restapi-*."+kind)
	if err != nil {
		return nil, err
	}
	sp := &spool{r: r, name: name, kind: kind, path: f.Name(), file: f, w: bufio.NewWriterSize(f, 256<<10), blank: true}
	sp.refs.Store(1)
	if kind == "csv" {
		sp.cw = csv.NewWriter(sp.w)
	}
	return sp, nil
}

// remove closes and deletes the file; it may run more than once.
func (sp *spool) remove() {
	sp.once.Do(func() {
		sp.file.Close()
		os.Remove(sp.path)
		if sp.empty != nil {
			sp.empty.Release()
		}
	})
}

// unref drops one reference; the last removes the file.
func (sp *spool) unref() {
	if sp.refs.Add(-1) == 0 {
		sp.remove()
	}
}

// Release drops the spool's own reference (connectors.Spool): the file
// goes once the streams opened from it are released too.
func (sp *spool) Release() { sp.unref() }

// Open streams the spooled pages (connectors.Spool), in two passes over
// the file (infer, then build); no request is made.
func (sp *spool) Open(ctx context.Context) (dataframe.Stream, error) {
	if sp.empty != nil {
		return sp.empty.Stream(), nil
	}
	sp.refs.Add(1)
	st, err := sp.open(ctx)
	if err != nil {
		sp.unref()
		return nil, sp.r.red.Error(fmt.Errorf("reading %s: %w", sp.name, err))
	}
	return st, nil
}

func (sp *spool) write(b []byte) {
	n, err := sp.w.Write(b)
	sp.size += int64(n)
	if err != nil && sp.err == nil {
		sp.err = fmt.Errorf("spooling the pages: %w", err)
	}
}

// add writes a page out (see the comment at the top of the file).
func (sp *spool) add(p *page) error {
	sp.pages = append(sp.pages, spooledPage{start: sp.size, number: p.number, url: sp.r.red.String(p.url)})
	var err error
	switch sp.kind {
	case "payload":
		sp.buf = binary.AppendUvarint(sp.buf[:0], uint64(len(p.body)))
		sp.write(sp.buf)
		sp.write(p.body)
	case "ndjson":
		sp.write(p.body)
		sp.write([]byte{'\n'})
	case "csv":
		err = sp.addCSV(p)
	default:
		err = sp.addJSON(p)
	}
	if err != nil {
		return &pageDataError{fmt.Errorf("page %d (%s): %w", p.number, sp.r.red.String(p.url), err)}
	}
	return sp.err
}

// pageDataError is a page whose records do not read; the in-memory read
// finds it after the last page and words it "reading NAME: page N …".
type pageDataError struct{ err error }

func (e *pageDataError) Error() string { return e.err.Error() }
func (e *pageDataError) Unwrap() error { return e.err }

// addJSON writes a parsed JSON page's records as JSON lines.
func (sp *spool) addJSON(p *page) error {
	body := trimJSONSpace(p.body)
	if len(body) == 0 {
		return nil
	}
	doc := body
	if first := sp.blank; !sp.r.rc.recordsPath.isZero() {
		recs, err := p.records()
		if err != nil {
			return err
		}
		sp.found = sp.found || recs.found
		if first && !recs.found {
			sp.fields = topFields(body)
		}
		sp.blank = false
		if recs.raw == nil {
			return nil
		}
		doc = recs.raw
	}
	sp.blank = false
	if err := sp.writeLines(doc); err != nil {
		return sp.syntaxError(p, err)
	}
	return nil
}

// writeLines writes a JSON document's records as JSON lines: one line per
// element when it is an array of objects (an array of other values reads
// differently from its elements read alone), else the document on one
// line. The document is checked as the JSON reader checks it
// (internal/jsontext); invalid JSON is an error and writes nothing.
func (sp *spool) writeLines(doc []byte) error {
	s := jsontext.Scanner{Data: doc, MaxDepth: jsontext.DefaultMaxDepth}
	pos := s.SkipWS(0)
	if pos < len(doc) && doc[pos] == '[' {
		sp.elems = sp.elems[:0]
		objects := true
		err := eachElement(doc[pos:], func(elem []byte) {
			objects = objects && elem[0] == '{'
			sp.elems = append(sp.elems, elem)
		})
		if err != nil {
			return err
		}
		if !objects {
			sp.writeLine(doc[pos:])
			return nil
		}
		for _, e := range sp.elems {
			sp.writeLine(e)
		}
		return nil
	}
	end := s.SkipValue(pos, 0)
	if end < 0 {
		return s.Err
	}
	if rest := s.SkipWS(end); rest < len(doc) {
		s.Fail(rest, "unexpected %s after the JSON value", s.Describe(rest))
		return s.Err
	}
	sp.writeLine(doc[pos:end])
	return nil
}

// writeLine writes checked JSON as one line. Checked JSON has line breaks
// only between tokens (never inside a string), so they become spaces.
func (sp *spool) writeLine(b []byte) {
	for {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			break
		}
		sp.write(b[:i])
		sp.write(space)
		b = b[i+1:]
	}
	sp.write(b)
	sp.write(newline)
}

var space, newline = []byte{' '}, []byte{'\n'}

// syntaxError words invalid JSON on a page as the in-memory read does, by
// asking its reader about the page alone.
func (sp *spool) syntaxError(p *page, cerr error) error {
	docs, path := [][]byte{p.body}, sp.r.rc.recordsPath.text
	if recs := p.recs; recs != nil && recs.raw != nil && !recs.plain {
		docs, path = [][]byte{recs.raw}, ""
	}
	f, err := jsonframe.ReadDocuments(docs, jsonframe.Options{RecordsPath: path})
	if err != nil {
		_, perr, _ := pageSyntaxError(err)
		return perr
	}
	f.Release()
	return fmt.Errorf("invalid JSON: %w", cerr)
}

// addCSV appends a CSV page's rows, checking its header against the first.
func (sp *spool) addCSV(p *page) error {
	if len(trimJSONSpace(p.body)) == 0 {
		return nil
	}
	cr := csv.NewReader(bytes.NewReader(p.body))
	cr.ReuseRecord = true
	first := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("invalid CSV: %w", err)
		}
		if first {
			first = false
			if sp.header == nil {
				sp.header = slices.Clone(rec)
			} else if !slices.Equal(sp.header, rec) {
				return fmt.Errorf("the CSV header %q differs from page 1's %q", rec, sp.header)
			} else {
				continue
			}
		}
		if err := sp.cw.Write(rec); err != nil {
			return err
		}
	}
}

// finish completes the file once the last page is in.
func (sp *spool) finish() error {
	if sp.cw != nil {
		sp.cw.Flush()
	}
	if err := sp.w.Flush(); err != nil {
		return fmt.Errorf("spooling the pages: %w", err)
	}
	if err := sp.file.Close(); err != nil {
		return fmt.Errorf("spooling the pages: %w", err)
	}
	if sp.kind == "json" && !sp.r.rc.recordsPath.isZero() && !sp.found && !sp.blank {
		return &RecordsPathError{Path: sp.r.rc.recordsPath.text, Fields: sp.fields}
	}
	if sp.kind == "csv" && sp.header == nil {
		// No page had a row: what the in-memory read gives.
		f, err := jsonframe.FromValues([]string{PayloadColumn}, nil)
		if err != nil {
			return err
		}
		sp.empty = f
	}
	return nil
}

// open opens a stream over the finished file; the caller holds a
// reference for it, which the stream drops at its end or release.
func (sp *spool) open(ctx context.Context) (dataframe.Stream, error) {
	mem := sp.r.opts.Allocator
	var st dataframe.Stream
	var err error
	switch sp.kind {
	case "payload":
		st = sp.payloadStream(ctx, mem)
	case "csv":
		st, err = csvframe.Open(ctx, sp.path, csvframe.Options{Allocator: mem})
	default:
		opts := jsonframe.ReadSettingsFrom(ctx, jsonframe.Options{Allocator: mem, BlockBytes: spoolBlockBytes})
		st, err = jsonframe.OpenNDJSON(ctx, sp.path, opts)
	}
	if err != nil {
		return nil, sp.wordError(err)
	}
	s := &spoolStream{Stream: st, sp: sp}
	s.refs.Store(1)
	return s, nil
}

// wordError keeps the spool's path out of an error: a JSON syntax error
// names the page it is on, as the in-memory read does.
func (sp *spool) wordError(err error) error {
	if err == nil {
		return nil
	}
	var se *jsonframe.SyntaxError
	if errors.As(err, &se) && len(sp.pages) > 0 {
		i, _ := slices.BinarySearchFunc(sp.pages, se.Offset+1, func(p spooledPage, off int64) int {
			return int(p.start - off)
		})
		if i--; i >= 0 {
			one := *se
			one.Offset -= sp.pages[i].start
			one.Line, one.Docs = 0, 1
			return fmt.Errorf("page %d (%s): %w", sp.pages[i].number, sp.pages[i].url, &one)
		}
	}
	return &spoolError{msg: strings.ReplaceAll(err.Error(), sp.path, "the spooled pages"), err: err}
}

type spoolError struct {
	msg string
	err error
}

func (e *spoolError) Error() string { return e.msg }
func (e *spoolError) Unwrap() error { return e.err }

// payloadStream reads the spooled bodies back as batches of the payload
// column, each up to spoolBatchBytes of bodies.
func (sp *spool) payloadStream(ctx context.Context, mem dataframe.Allocator) dataframe.Stream {
	schema := dataframe.Strings[string](nil, PayloadColumn, nil).Schema()
	return dataframe.NewStream(ctx, schema, 2, func(ctx context.Context, emit func(dataframe.Record) bool) error {
		fh, err := os.Open(sp.path)
		if err != nil {
			return err
		}
		defer fh.Close()
		br := bufio.NewReaderSize(fh, 256<<10)
		var vals []string
		var b []byte
		size := 0
		flush := func() bool {
			if len(vals) == 0 {
				return true
			}
			f := dataframe.Strings(mem, PayloadColumn, vals)
			defer f.Release()
			vals, size = vals[:0], 0
			for _, rec := range f.Records() {
				rec.Retain()
				if !emit(rec) {
					return false
				}
			}
			return true
		}
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			n, err := binary.ReadUvarint(br)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			b = slices.Grow(b[:0], int(n))[:n]
			if _, err := io.ReadFull(br, b); err != nil {
				return err
			}
			vals = append(vals, string(b))
			if size += int(n); size >= spoolBatchBytes && !flush() {
				return ctx.Err()
			}
		}
		if !flush() {
			return ctx.Err()
		}
		return nil
	})
}

// spoolStream is a stream over a spool: it drops its reference to the
// file at the end of the data or when released, and words errors without
// the file's path.
type spoolStream struct {
	dataframe.Stream
	sp   *spool
	refs atomic.Int64
	done sync.Once // the spool reference is dropped
}

func (s *spoolStream) Next() bool {
	if s.Stream.Next() {
		return true
	}
	s.done.Do(s.sp.unref) // the stream's readers have closed the file
	return false
}

func (s *spoolStream) Err() error { return s.sp.wordError(s.Stream.Err()) }

func (s *spoolStream) Retain() { s.refs.Add(1) }

func (s *spoolStream) Release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	s.Stream.Release()
	s.done.Do(s.sp.unref)
}
