package csvframe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe"
)

// Options tune Read and Open.
type Options struct {
	// Delimiter separates fields. Defaults to ','.
	Delimiter rune
	// Allocator backs the frame's buffers. Defaults to memory.DefaultAllocator.
	Allocator memory.Allocator
}

// csvBatchRows is the row count of one record batch built by Read and Open.
const csvBatchRows = 64 * 1024

// Write writes f as CSV: a header row of column names, then one line per
// row. Fields are quoted per RFC 4180 when they hold the delimiter, a quote,
// a line break or leading/trailing space. A null is an empty field and an
// empty string is "" so the two stay apart for readers that care (Spark,
// DuckDB). Nested cells (structs, lists, maps) are their JSON text;
// timestamps are RFC 3339 UTC; binary is base64. Lines end with "\n".
func Write(w io.Writer, f *dataframe.Frame) error {
	cw, err := NewWriter(w, f.Schema())
	if err != nil {
		return err
	}
	for _, rec := range f.Records() {
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	return cw.Flush()
}

// Writer writes CSV one record batch at a time, as Write does; it buffers,
// so the caller ends with Flush.
type Writer struct {
	bw         *bufio.Writer
	line, cell []byte
	loc        *time.Location
}

// InZone makes the writer write timestamps as their wall-clock time in loc
// with its offset (dataframe.AppendJSONValueIn); nil is UTC.
func (cw *Writer) InZone(loc *time.Location) { cw.loc = loc }

// NewWriter writes the header row of schema to w and returns the writer of
// its batches.
func NewWriter(w io.Writer, schema *arrow.Schema) (*Writer, error) {
	cw := &Writer{bw: bufio.NewWriterSize(w, 256<<10)}
	for c, fd := range schema.Fields() {
		if c > 0 {
			cw.line = append(cw.line, ',')
		}
		cw.line = appendCSVField(cw.line, fd.Name, false)
	}
	cw.line = append(cw.line, '\n')
	_, err := cw.bw.Write(cw.line)
	return cw, err
}

// Write appends the rows of rec, whose schema is the writer's.
func (cw *Writer) Write(rec arrow.Record) error {
	cols := rec.Columns()
	n := int(rec.NumRows())
	line, cell := cw.line, cw.cell
	defer func() { cw.line, cw.cell = line, cell }()
	for i := 0; i < n; i++ {
		line = line[:0]
		for c, col := range cols {
			if c > 0 {
				line = append(line, ',')
			}
			if dataframe.IsNull(col, i) {
				if len(cols) == 1 {
					// A lone empty field is a blank line, which CSV
					// readers skip: quote it so the row survives.
					line = append(line, `""`...)
				}
				continue
			}
			switch a := col.(type) {
			case *array.String:
				line = appendCSVField(line, a.Value(i), true)
			case *array.LargeString:
				line = appendCSVField(line, a.Value(i), true)
			case *array.StringView:
				line = appendCSVField(line, a.Value(i), true)
			case *array.Int64:
				line = strconv.AppendInt(line, a.Value(i), 10)
			case *array.Int32:
				line = strconv.AppendInt(line, int64(a.Value(i)), 10)
			default:
				cell = dataframe.AppendJSONValueIn(cell[:0], col, i, cw.loc)
				if !dataframe.IsNested(col.DataType()) && len(cell) >= 2 && cell[0] == '"' {
					// Scalars JSON quotes (timestamps, base64, NaN) hold
					// no escapes: their bare text is the CSV value.
					cell = cell[1 : len(cell)-1]
				}
				line = appendCSVField(line, string(cell), false)
			}
		}
		line = append(line, '\n')
		if _, err := cw.bw.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes what is buffered to the underlying writer.
func (cw *Writer) Flush() error { return cw.bw.Flush() }

// appendCSVField appends s, quoted when RFC 4180 needs it; quoteEmpty quotes
// the empty string so it differs from a null.
func appendCSVField(dst []byte, s string, quoteEmpty bool) []byte {
	if s == "" {
		if quoteEmpty {
			return append(dst, `""`...)
		}
		return dst
	}
	need := s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t'
	if !need {
		need = strings.ContainsAny(s, ",\"\r\n")
	}
	if !need {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '"')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// csvKind is an inferred CSV column type, from narrowest to widest.
type csvKind int

const (
	csvNull csvKind = iota // only empty fields so far
	csvBool
	csvLong
	csvDouble
	csvString
)

// Read reads CSV with a header row into a frame. Column types are
// inferred over all rows: long when every non-empty field is an integer,
// double when every one is a number (also NaN, Infinity, Inf), boolean for
// true/false (any case), else string. Empty fields are null; a column with
// only empty fields is string. Empty header names become _c0, _c1, …
// (Spark's names); a repeated name gets its column index appended. Every
// row must have as many fields as the header. r is read into memory once
// and passed over twice (Open streams a file instead). The caller
// releases the frame.
func Read(r io.Reader, opts Options) (*dataframe.Frame, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("csv: %w", err)
	}
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	s, err := openCSV(context.Background(), open, opts)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	f, err := dataframe.Collect(s)
	if err != nil {
		return nil, err
	}
	if opts.Allocator != nil {
		f.SetAllocator(opts.Allocator)
	}
	return f, nil
}

// Open streams a CSV file in two passes: the column types are inferred
// now over every row (as Read does), and the returned stream reads the
// file again, csvBatchRows rows per batch. The caller releases the stream.
func Open(ctx context.Context, path string, opts Options) (dataframe.Stream, error) {
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	s, err := openCSV(ctx, open, opts)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return s, nil
}

// csvRows reads the header and then calls fn with each row.
func csvRows(r io.Reader, opts Options, header func([]string) error, fn func([]string) error) error {
	cr := csv.NewReader(bufio.NewReaderSize(r, 256<<10))
	if opts.Delimiter != 0 {
		cr.Comma = opts.Delimiter
	}
	cr.ReuseRecord = true
	h, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return errors.New("csv: no header row (empty input)")
	}
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	if err := header(h); err != nil {
		return err
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("csv: %w", err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

func openCSV(ctx context.Context, open func() (io.ReadCloser, error), opts Options) (dataframe.Stream, error) {
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	// Pass 1: the column names and kinds.
	r, err := open()
	if err != nil {
		return nil, err
	}
	var names []string
	var kinds []csvKind
	err = csvRows(r, opts, func(h []string) error {
		names = csvColumnNames(h)
		kinds = make([]csvKind, len(names))
		return nil
	}, func(row []string) error {
		for c, v := range row {
			if k := kinds[c]; k != csvString && v != "" {
				kinds[c] = mergeCSVKind(k, csvKindOf(v))
			}
		}
		return ctx.Err()
	})
	r.Close()
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(names))
	for c, n := range names {
		var dt arrow.DataType
		switch kinds[c] {
		case csvBool:
			dt = arrow.FixedWidthTypes.Boolean
		case csvLong:
			dt = arrow.PrimitiveTypes.Int64
		case csvDouble:
			dt = arrow.PrimitiveTypes.Float64
		default:
			dt = arrow.BinaryTypes.String
		}
		fields[c] = arrow.Field{Name: n, Type: dt, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	// Pass 2: the batches.
	return dataframe.NewStream(ctx, schema, 1, func(ctx context.Context, emit func(arrow.Record) bool) error {
		r, err := open()
		if err != nil {
			return err
		}
		defer r.Close()
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		n := 0
		flush := func() bool {
			n = 0
			return emit(b.NewRecord())
		}
		err = csvRows(r, opts, func([]string) error { return nil }, func(row []string) error {
			if len(row) != len(names) {
				return fmt.Errorf("%w: a row has %d fields, the header %d", dataframe.ErrStreamChanged, len(row), len(names))
			}
			for c, v := range row {
				fb := b.Field(c)
				if v == "" {
					fb.AppendNull()
					continue
				}
				switch bb := fb.(type) {
				case *array.BooleanBuilder:
					bb.Append(strings.EqualFold(v, "true"))
				case *array.Int64Builder:
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						return fmt.Errorf("%w: %q is no longer a long", dataframe.ErrStreamChanged, v)
					}
					bb.Append(n)
				case *array.Float64Builder:
					bb.Append(parseCSVFloat(v))
				case *array.StringBuilder:
					bb.Append(v)
				}
			}
			if n++; n == csvBatchRows && !flush() {
				return ctx.Err()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n > 0 && !flush() {
			return ctx.Err()
		}
		return nil
	}), nil
}

func csvColumnNames(header []string) []string {
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	names := make([]string, len(header))
	count := map[string]int{}
	for _, h := range header {
		count[h]++
	}
	for c, h := range header {
		switch {
		case h == "":
			names[c] = "_c" + strconv.Itoa(c)
		case count[h] > 1:
			names[c] = h + strconv.Itoa(c)
		default:
			names[c] = h
		}
	}
	return names
}

// mergeCSVKind widens long to double; booleans mixed with anything else,
// like any other conflict, give string.
func mergeCSVKind(a, b csvKind) csvKind {
	switch {
	case a == csvNull || a == b:
		return b
	case a == csvBool || b == csvBool:
		return csvString
	}
	return max(a, b)
}

func csvKindOf(v string) csvKind {
	if strings.EqualFold(v, "true") || strings.EqualFold(v, "false") {
		return csvBool
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return csvLong
	}
	switch v {
	case "NaN", "Infinity", "-Infinity", "+Infinity", "Inf", "-Inf", "+Inf":
		return csvDouble
	}
	// ParseFloat also takes hex floats, underscores and "inf": only plain
	// decimal notation counts as a number here.
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E':
		default:
			return csvString
		}
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return csvDouble
	}
	return csvString
}

func parseCSVFloat(v string) float64 {
	switch v {
	case "Infinity", "+Infinity", "Inf", "+Inf":
		v = "+Inf"
	case "-Infinity", "-Inf":
		v = "-Inf"
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}
