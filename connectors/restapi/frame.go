package restapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/csvframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

// ErrResponseError is returned (wrapped) for a 2xx page that reports an
// error in its body (svc.restapi.response.ok.field, response.error.field).
var ErrResponseError = errors.New("the API reported an error")

func jsonValid(b []byte) bool { return json.Valid(b) }

// frame builds the read's frame from its pages (see
// docs/restapi.md#response-formats).
func (r *reader) frame(ctx context.Context) (*dataframe.Frame, error) {
	if !r.rc.parse && r.rc.format != "csv" {
		vals := make([][]byte, len(r.pages))
		for i, p := range r.pages {
			vals[i] = p.body // copied once, into the column
		}
		return dataframe.Strings(r.opts.Allocator, PayloadColumn, vals), nil
	}
	switch r.rc.format {
	case "ndjson":
		return r.ndjsonFrame(ctx)
	case "csv":
		return r.csvFrame()
	}
	return r.jsonFrame(ctx)
}

// jsonFrame parses JSON pages: the records arrays (records.path) or the
// bodies. A blank body (a 204, an empty list answered as nothing) is a page
// without rows, as Spark reads blank JSON input.
func (r *reader) jsonFrame(ctx context.Context) (*dataframe.Frame, error) {
	docs := make([][]byte, 0, len(r.pages))
	pageOf := make([]*page, 0, len(r.pages))
	var firstBody []byte
	found := false
	// Pages whose records path is plain dotted keys are read whole with the
	// path, so byte offsets in messages count from the page's start; a
	// whole-key or escaped match passes the array itself.
	plain := !r.rc.recordsPath.isZero()
	for _, p := range r.pages {
		body := trimJSONSpace(p.body)
		if len(body) == 0 {
			continue
		}
		if firstBody == nil {
			firstBody = body
		}
		if r.rc.recordsPath.isZero() {
			docs = append(docs, body)
			pageOf = append(pageOf, p)
			continue
		}
		recs, err := p.records()
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", p.number, err)
		}
		found = found || recs.found
		if recs.raw != nil {
			docs = append(docs, recs.raw)
			pageOf = append(pageOf, p)
			plain = plain && recs.plain
		}
	}
	path := ""
	if plain {
		path = r.rc.recordsPath.text
		for i, p := range pageOf {
			docs[i] = p.body
		}
	}
	if !r.rc.recordsPath.isZero() && !found && firstBody != nil {
		return nil, &RecordsPathError{Path: r.rc.recordsPath.text, Fields: topFields(firstBody)}
	}
	f, err := readPages(ctx, docs, path, r.opts.Allocator)
	if err != nil {
		if doc, perr, ok := pageSyntaxError(err); ok && doc >= 0 && doc < len(pageOf) {
			p := pageOf[doc]
			return nil, fmt.Errorf("page %d (%s): %w", p.number, r.red.String(p.url), perr)
		}
		return nil, err
	}
	return f, nil
}

// ndjsonFrame reads the pages' lines as one JSON-lines input, with the
// JSON read settings ctx carries (see docs/inference.md#sampling).
func (r *reader) ndjsonFrame(ctx context.Context) (*dataframe.Frame, error) {
	var buf bytes.Buffer
	starts := make([]int64, len(r.pages))
	for i, p := range r.pages {
		starts[i] = int64(buf.Len())
		buf.Write(p.body)
		buf.WriteByte('\n')
	}
	f, err := jsonframe.ReadNDJSON(buf.Bytes(), jsonframe.ReadSettingsFrom(ctx, jsonframe.Options{Allocator: r.opts.Allocator}))
	if err != nil {
		var se *jsonframe.SyntaxError
		if errors.As(err, &se) {
			i, _ := slices.BinarySearch(starts, se.Offset+1)
			i-- // the last page starting at or before the offset
			if i >= 0 {
				one := *se
				one.Offset -= starts[i]
				one.Line, one.Docs = 0, 1
				p := r.pages[i]
				return nil, fmt.Errorf("page %d (%s): %w", p.number, r.red.String(p.url), &one)
			}
		}
		return nil, err
	}
	return f, nil
}

// csvFrame reads CSV pages, each with the same header row: string columns,
// or with parse.payload=true columns typed as they look (long, double,
// boolean, else string).
func (r *reader) csvFrame() (*dataframe.Frame, error) {
	var header []string
	var rows [][]string
	for _, p := range r.pages {
		if len(trimJSONSpace(p.body)) == 0 {
			continue
		}
		cr := csv.NewReader(bytes.NewReader(p.body))
		recs, err := cr.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("page %d (%s): invalid CSV: %w", p.number, r.red.String(p.url), err)
		}
		if len(recs) == 0 {
			continue
		}
		if header == nil {
			header = recs[0]
		} else if !slices.Equal(header, recs[0]) {
			return nil, fmt.Errorf("page %d (%s): the CSV header %q differs from page 1's %q", p.number, r.red.String(p.url), recs[0], header)
		}
		rows = append(rows, recs[1:]...)
	}
	if header == nil {
		return jsonframe.FromValues([]string{PayloadColumn}, nil)
	}
	if r.rc.parse {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		_ = w.Write(header)
		_ = w.WriteAll(rows) // a bytes.Buffer does not fail
		return csvframe.Read(&buf, csvframe.Options{Allocator: r.opts.Allocator})
	}
	vals := make([][]any, len(rows))
	for i, row := range rows {
		v := make([]any, len(header))
		for j := range header {
			if j < len(row) && row[j] != "" {
				v[j] = row[j]
			}
		}
		vals[i] = v
	}
	if r.opts.Allocator != nil {
		return jsonframe.FromValuesWithAllocator(r.opts.Allocator, header, vals)
	}
	return jsonframe.FromValues(header, vals)
}
