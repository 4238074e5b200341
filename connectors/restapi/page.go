package restapi

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/sluicedata/sluice/internal/jsontext"
)

// page is one answer of a read, as the paginators and the frame builder
// see it.
type page struct {
	number      int // 1-based
	url         string
	status      int
	header      http.Header
	body        []byte
	format      string   // json, ndjson or csv
	recordsPath jsonPath // zero: the body itself when it is an array

	recs *pageRecords // computed once, by records
}

// pageRecords is what a page holds at the records path.
type pageRecords struct {
	found bool   // the path is there (null counts), or the body is an array / lines
	raw   []byte // json: the array (nil when null)
	plain bool   // json: found as plain dotted keys (dataframe reads the page with the path itself)
	n     int    // records on the page; -1 until counted (json arrays are counted only when a paginator asks)
	last  []byte // json/ndjson: the last record's JSON
}

// records finds the page's records: the array at records.path (or the
// body when it is an array) for json, the lines for ndjson, the rows after
// the header for csv. A value at the path that is not an array is an error.
func (p *page) records() (*pageRecords, error) {
	if p.recs != nil {
		return p.recs, nil
	}
	r := &pageRecords{}
	body := trimJSONSpace(p.body)
	switch {
	case len(body) == 0:
	case p.format == "ndjson":
		r.found = true
		for line := range bytes.SplitSeq(body, []byte{'\n'}) {
			if l := trimJSONSpace(line); len(l) > 0 {
				r.n++
				r.last = l
			}
		}
	case p.format == "csv":
		r.found = true
		cr := csv.NewReader(bytes.NewReader(body))
		cr.ReuseRecord = true
		cr.FieldsPerRecord = -1
		for {
			_, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("invalid CSV: %w", err)
			}
			r.n++
		}
		if r.n > 0 {
			r.n-- // the header row
		}
	case p.recordsPath.isZero():
		if body[0] == '[' {
			r.found, r.raw = true, body
		}
	default:
		raw, found, plain, err := p.recordsPath.lookupKeyed(body)
		if err != nil {
			return nil, err
		}
		r.found, r.plain = found, plain
		if found {
			raw = trimJSONSpace(raw)
			switch raw[0] {
			case '[':
				r.raw = raw
			case 'n':
			default:
				return nil, fmt.Errorf("%s %q holds %s, not an array", PropRecordsPath, p.recordsPath.text, describeJSON(raw))
			}
		}
	}
	if r.raw != nil {
		r.n = -1
	}
	p.recs = r
	return r, nil
}

// count fills in the number of records of a json array and the last one,
// checking the array as the JSON reader does.
func (r *pageRecords) count() error {
	if r.n >= 0 {
		return nil
	}
	n := 0
	err := eachElement(r.raw, func(elem []byte) {
		n++
		r.last = elem
	})
	if err != nil {
		return err
	}
	r.n = n
	return nil
}

// eachElement calls fn with each element of the JSON array arr (which
// starts with '['), checking it as the JSON reader does (internal/jsontext:
// same rules, same nesting limit); invalid JSON is a *jsonframe.SyntaxError.
func eachElement(arr []byte, fn func(elem []byte)) error {
	s := jsontext.Scanner{Data: arr, MaxDepth: jsontext.DefaultMaxDepth}
	pos := s.SkipWS(1)
	if pos < len(arr) && arr[pos] == ']' {
		pos++
	} else {
		for {
			start := pos
			if pos = s.SkipValue(pos, 1); pos < 0 {
				return s.Err
			}
			fn(arr[start:pos])
			pos = s.SkipWS(pos)
			if pos < len(arr) && arr[pos] == ',' {
				pos = s.SkipWS(pos + 1)
				continue
			}
			if pos < len(arr) && arr[pos] == ']' {
				pos++
				break
			}
			s.Fail(pos, "expected ',' or ']' in array: %s", s.Describe(pos))
			return s.Err
		}
	}
	if end := s.SkipWS(pos); end < len(arr) {
		s.Fail(end, "unexpected %s after the JSON value", s.Describe(end))
		return s.Err
	}
	return nil
}

// needRecords is the records of a page for a paginator that counts them.
// A first page with neither records.path nor a top-level array is an
// error; a later page without them has no records (it ends the listing).
func (p *page) needRecords(typ string) (*pageRecords, error) {
	r, err := p.records()
	if err != nil {
		return nil, err
	}
	if !r.found && p.number == 1 && len(trimJSONSpace(p.body)) > 0 {
		if p.recordsPath.isZero() {
			return nil, fmt.Errorf("%w: %s=%s counts records: set %s (the response has: %s)", ErrPagination, PropPaginateType, typ, PropRecordsPath, topFields(p.body))
		}
		return nil, &RecordsPathError{Path: p.recordsPath.text, Fields: topFields(p.body)}
	}
	if err := r.count(); err != nil {
		return nil, err
	}
	return r, nil
}

// ErrRecordsPathNotFound matches (errors.Is) every *RecordsPathError.
var ErrRecordsPathNotFound = errors.New("records.path not found")

// RecordsPathError is a records.path that no page of a read has.
type RecordsPathError struct {
	Path   string
	Fields string // the first page's fields, objects expanded one level
}

func (e *RecordsPathError) Error() string {
	return fmt.Sprintf("records.path %q not found; the response has: %s", e.Path, e.Fields)
}

// Is makes errors.Is(err, ErrRecordsPathNotFound) true.
func (e *RecordsPathError) Is(target error) bool { return target == ErrRecordsPathNotFound }
