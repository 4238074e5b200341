package dataframe

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// CSVOptions tune ReadCSV.
type CSVOptions struct {
	// Delimiter separates fields. Defaults to ','.
	Delimiter rune
	// Allocator backs the frame's buffers. Defaults to memory.DefaultAllocator.
	Allocator memory.Allocator
}

// csvBatchRows is the row count of one record batch built by ReadCSV.
const csvBatchRows = 64 * 1024

// WriteCSV writes f as CSV: a header row of column names, then one line per
// row. Fields are quoted per RFC 4180 when they hold the delimiter, a quote,
// a line break or leading/trailing space. A null is an empty field and an
// empty string is "" so the two stay apart for readers that care (Spark,
// DuckDB). Nested cells (structs, lists, maps) are their JSON text;
// timestamps are RFC 3339 UTC; binary is base64. Lines end with "\n".
func WriteCSV(w io.Writer, f *Frame) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	for c, name := range f.ColumnNames() {
		if c > 0 {
			line = append(line, ',')
		}
		line = appendCSVField(line, name, false)
	}
	line = append(line, '\n')
	if _, err := bw.Write(line); err != nil {
		return err
	}
	var cell []byte
	for _, rec := range f.Records() {
		cols := rec.Columns()
		n := int(rec.NumRows())
		for i := 0; i < n; i++ {
			line = line[:0]
			for c, col := range cols {
				if c > 0 {
					line = append(line, ',')
				}
				if col.IsNull(i) {
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
					cell = AppendJSONValue(cell[:0], col, i)
					if !isNested(col.DataType()) && len(cell) >= 2 && cell[0] == '"' {
						// Scalars JSON quotes (timestamps, base64, NaN) hold
						// no escapes: their bare text is the CSV value.
						cell = cell[1 : len(cell)-1]
					}
					line = appendCSVField(line, string(cell), false)
				}
			}
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

func isNested(dt arrow.DataType) bool {
	switch dt.(type) {
	case *arrow.StructType, *arrow.MapType, arrow.ListLikeType:
		return true
	}
	return false
}

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

// ReadCSV reads CSV with a header row into a frame. Column types are
// inferred over all rows: long when every non-empty field is an integer,
// double when every one is a number (also NaN, Infinity, Inf), boolean for
// true/false (any case), else string. Empty fields are null; a column with
// only empty fields is string. Empty header names become _c0, _c1, …
// (Spark's names); a repeated name gets its column index appended. Every
// row must have as many fields as the header.
func ReadCSV(r io.Reader, opts CSVOptions) (*Frame, error) {
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cr := csv.NewReader(bufio.NewReaderSize(r, 256<<10))
	if opts.Delimiter != 0 {
		cr.Comma = opts.Delimiter
	}
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("csv: no header row (empty input)")
	}
	if err != nil {
		return nil, fmt.Errorf("csv: %w", err)
	}
	names := csvColumnNames(header)
	var rows [][]string
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("csv: %w", err)
		}
		rows = append(rows, rec)
	}

	kinds := make([]csvKind, len(names))
	for c := range names {
		k := csvNull
		for _, row := range rows {
			if k == csvString {
				break
			}
			if v := row[c]; v != "" {
				k = mergeCSVKind(k, csvKindOf(v))
			}
		}
		if k == csvNull {
			k = csvString
		}
		kinds[c] = k
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
	var recs []arrow.Record
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for start := 0; start < len(rows); start += csvBatchRows {
		end := min(start+csvBatchRows, len(rows))
		for c := range names {
			fb := b.Field(c)
			fb.Reserve(end - start)
			for _, row := range rows[start:end] {
				v := row[c]
				if v == "" {
					fb.AppendNull()
					continue
				}
				switch bb := fb.(type) {
				case *array.BooleanBuilder:
					bb.Append(strings.EqualFold(v, "true"))
				case *array.Int64Builder:
					n, _ := strconv.ParseInt(v, 10, 64)
					bb.Append(n)
				case *array.Float64Builder:
					bb.Append(parseCSVFloat(v))
				case *array.StringBuilder:
					bb.Append(v)
				}
			}
		}
		recs = append(recs, b.NewRecord())
	}
	f, err := New(schema, recs...)
	if err != nil {
		return nil, err
	}
	f.SetAllocator(mem)
	return f, nil
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
