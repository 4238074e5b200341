package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unsafe"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// ErrTooManyPages is returned (wrapped) when the last page allowed by
// svc.restapi.paginate.max.pages still has a next-page token.
var ErrTooManyPages = errors.New("too many pages")

// ErrRepeatedToken is returned (wrapped) when a next-page token comes back
// a second time: following it would loop for ever.
var ErrRepeatedToken = errors.New("repeated next-page token")

// Read GETs the dataset's URL and the pages after it. Payload mode gives one
// row per page with the body text in `payload`; parsed mode
// (svc.restapi.parse.payload=true) parses the pages into one frame with
// merged schemas, one row per element of svc.restapi.records.path when set.
func (*Connector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	red := connectors.NewRedactor(ds.Props)
	name := datasetName(ds)
	cfg, err := parseConfig(ds.Props)
	if err != nil {
		return nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	base, err := ResolveURL(ds.Props)
	if err != nil {
		return nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	cl := newClient(cfg, ds, red)
	defer cl.close()

	var pages [][]byte
	var urls []string
	// The frame copies every value out of the bodies and errors quote
	// copies, so the buffers are free for the next read once we return.
	defer func() {
		for _, p := range pages {
			putBody(p)
		}
	}()
	seen := map[string]int{} // token → the page that returned it
	next := base
	for page := 1; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s page %d: %w", name, page, err)
		}
		_, body, err := cl.do(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, red.Error(fmt.Errorf("reading %s page %d: %w", name, page, err))
		}
		pages = append(pages, body)
		urls = append(urls, next)
		if !cfg.paginated() {
			break
		}
		tok, ok, err := nextToken(body, cfg.NextField)
		if err != nil {
			return nil, red.Error(fmt.Errorf("reading %s page %d (%s): %w", name, page, red.String(next), err))
		}
		if !ok {
			break
		}
		if first, dup := seen[tok]; dup {
			return nil, red.Error(fmt.Errorf("reading %s page %d: %w: %s %q was already returned by page %d",
				name, page, ErrRepeatedToken, cfg.NextField, tok, first))
		}
		seen[tok] = page
		if int64(page) >= cfg.MaxPages {
			return nil, red.Error(fmt.Errorf("reading %s: %w: more than %d pages (page %d still has %s; raise %s)",
				name, ErrTooManyPages, cfg.MaxPages, page, cfg.NextField, PropMaxPages))
		}
		next = withQueryParam(base, cfg.NextParam, tok)
	}

	if !cfg.ParsePayload {
		vals := make([]string, len(pages))
		for i, p := range pages {
			// The builder copies the text; the page buffer is ours alone and
			// never written again, so a view saves a copy of every body.
			vals[i] = unsafe.String(unsafe.SliceData(p), len(p))
		}
		return dataframe.Strings(nil, PayloadColumn, vals), nil
	}
	// A blank body (a 204, an empty list answered as nothing) is a page
	// without rows, as Spark reads blank JSON input; it is not invalid JSON.
	docs := make([][]byte, 0, len(pages))
	pageOf := make([]int, 0, len(pages))
	for i, p := range pages {
		if len(trimJSONSpace(p)) == 0 {
			continue
		}
		docs = append(docs, p)
		pageOf = append(pageOf, i)
	}
	f, err := readPages(ctx, docs, cfg.RecordsPath)
	if err != nil {
		if doc, perr, ok := pageSyntaxError(err); ok && doc >= 0 && doc < len(pageOf) {
			page := pageOf[doc]
			return nil, red.Error(fmt.Errorf("reading %s page %d (%s): %w", name, page+1, red.String(urls[page]), perr))
		}
		return nil, red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	return f, nil
}

// nextToken finds the next-page token at the dotted path field. Absent,
// null and "" mean the last page, as does a blank body. Numbers are used as written.
func nextToken(doc []byte, field string) (string, bool, error) {
	if len(trimJSONSpace(doc)) == 0 {
		return "", false, nil // a blank page (a 204) ends the listing
	}
	raw, found, err := jsonLookup(doc, field)
	if err != nil {
		return "", false, fmt.Errorf("looking for the next-page token %s: %w", field, err)
	}
	raw = trimJSONSpace(raw)
	if !found || len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, fmt.Errorf("next-page token %s: %w", field, err)
		}
		return s, s != "", nil
	case c == '-' || ('0' <= c && c <= '9'):
		return string(raw), true, nil
	default:
		return "", false, fmt.Errorf("next-page token %s is %s, not a string or a number", field, describeJSON(raw))
	}
}

func describeJSON(raw []byte) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "not a JSON value"
}

func trimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// withQueryParam sets query parameter param to value: it replaces the
// parameter where the URL already has it (every other part of the URL is
// kept byte for byte, as the pattern pre-encodes) and appends it otherwise.
func withQueryParam(rawURL, param, value string) string {
	frag := ""
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL, frag = rawURL[:i], rawURL[i:]
	}
	base, query, hasQuery := strings.Cut(rawURL, "?")
	pair := url.QueryEscape(param) + "=" + url.QueryEscape(value)
	var parts []string
	replaced := false
	if hasQuery && query != "" {
		for _, seg := range strings.Split(query, "&") {
			key, _, _ := strings.Cut(seg, "=")
			if k, err := url.QueryUnescape(key); err == nil {
				key = k
			}
			if key == param {
				if !replaced {
					parts = append(parts, pair)
					replaced = true
				}
				continue
			}
			parts = append(parts, seg)
		}
	}
	if !replaced {
		parts = append(parts, pair)
	}
	return base + "?" + strings.Join(parts, "&") + frag
}
