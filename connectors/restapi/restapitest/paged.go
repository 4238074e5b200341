// Package restapitest serves fake paginated REST listings on loopback, one
// per paginator type of the RESTAPI connector, for its tests, benchmarks
// and bench/restapi/paginators.sh. See docs/restapi.md#pagination.
package restapitest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

// Kinds are the paginator shapes a Listing serves.
var Kinds = []string{"token-body", "token-header", "token-record", "next_url", "link", "offset", "page"}

// Listing serves pages of small JSON records under {"data":[…]}, navigated
// the way Kind says. Sizes[i] is the record count of page i (-1: the page
// has no data array). Loop makes page 2 point back at itself (a token or
// URL seen twice), or, for offset and page, makes the server ignore the
// paging parameter.
type Listing struct {
	Kind  string
	Sizes []int
	Loop  bool
	// Total adds the listing's size to every page of offset and page
	// listings ("total": records, "pages": pages), and to their Props
	// (total.field, total.pages.field): pages addressable after the first,
	// so a read may request them concurrently (docs/restapi.md#concurrency).
	Total bool
}

// Uniform is a listing of pages of per records each, the last one short
// when total does not divide.
func Uniform(kind string, total, per int) *Listing {
	l := &Listing{Kind: kind}
	for total > 0 {
		l.Sizes = append(l.Sizes, min(per, total))
		total -= per
	}
	return l
}

// Per is the page size the listing's props ask for (the first page's size).
func (l *Listing) Per() int {
	if len(l.Sizes) == 0 || l.Sizes[0] <= 0 {
		return 10
	}
	return l.Sizes[0]
}

// index is the 0-based page a request asks for; query returns a query
// parameter of the request.
func (l *Listing) index(query func(string) string) int {
	n := 0
	switch l.Kind {
	case "token-body", "token-header":
		n, _ = strconv.Atoi(strings.TrimPrefix(query("cursor"), "c"))
	case "token-record":
		if a := query("after"); a != "" {
			p, _ := strconv.Atoi(strings.TrimPrefix(strings.Split(a, "-")[0], "r"))
			n = p + 1
		}
	case "next_url", "link":
		n, _ = strconv.Atoi(query("p"))
	case "offset":
		off, _ := strconv.Atoi(query("offset"))
		n = off / l.Per()
	case "page":
		p, _ := strconv.Atoi(query("page"))
		n = p - 1
	}
	if l.Loop && (l.Kind == "offset" || l.Kind == "page") {
		return 0
	}
	return n
}

// answer is the JSON body and the header fields (name, value pairs; never
// Content-Type or Content-Length) of the page a request asks for. host is
// the request's Host.
func (l *Listing) answer(query func(string) string, host string) (body []byte, header []string) {
	idx := l.index(query)
	if idx < 0 || idx >= len(l.Sizes) {
		return []byte(`{"data":[]}`), nil
	}
	recIdx := idx
	if l.Loop && l.Kind == "token-record" && idx == 1 {
		recIdx = 0 // page 2 repeats page 1: its last id is the same token
	}
	next := idx + 1
	if l.Loop && idx == 1 {
		next = 1
	}
	hasNext := idx < len(l.Sizes)-1
	b := make([]byte, 0, 64*max(l.Sizes[idx], 1)+64)
	b = append(b, '{')
	if l.Sizes[idx] >= 0 {
		b = append(b, `"data":[`...)
		for j := 0; j < l.Sizes[idx]; j++ {
			if j > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"id":"r%d-%d","n":%d}`, recIdx, j, recIdx*l.Per()+j)
		}
		b = append(b, ']')
	} else {
		b = append(b, `"meta":{}`...)
	}
	if l.Total && (l.Kind == "offset" || l.Kind == "page") {
		records := 0
		for _, n := range l.Sizes {
			records += max(n, 0)
		}
		b = fmt.Appendf(b, `,"total":%d,"pages":%d`, records, len(l.Sizes))
	}
	if hasNext {
		switch l.Kind {
		case "token-body":
			b = fmt.Appendf(b, `,"next":"c%d"`, next)
		case "token-header":
			header = []string{"X-Next", "c" + strconv.Itoa(next)}
		case "next_url":
			b = fmt.Appendf(b, `,"next":"/items?p=%d"`, next)
		case "link":
			header = []string{"Link", fmt.Sprintf(`<http://%s/items?p=%d>; rel="next"`, host, next)}
		}
	}
	return append(b, '}'), header
}

// ServeHTTP answers one page (net/http; the tests' httptest servers).
func (l *Listing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	body, header := l.answer(q.Get, r.Host)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	for i := 0; i < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// ServeFast answers one page with the same status, header fields and body
// as ServeHTTP, on fasthttp (bench/restapi/fakeapi: see
// docs/restapi.md#speed for why the benchmark's server is fasthttp).
func (l *Listing) ServeFast(ctx *fasthttp.RequestCtx) {
	args := ctx.QueryArgs()
	body, header := l.answer(func(name string) string { return string(args.Peek(name)) }, string(ctx.Host()))
	ctx.SetContentType("application/json")
	for i := 0; i < len(header); i += 2 {
		ctx.Response.Header.Set(header[i], header[i+1])
	}
	ctx.SetBody(body)
}

// Props are the RESTAPI properties that read the listing at base in
// parsed mode.
func (l *Listing) Props(base string) map[string]string {
	p := map[string]string{
		"svc.restapi.url":                base + "/items",
		"svc.restapi.parse.payload":      "true",
		"svc.restapi.records.path":       "data",
		"svc.restapi.retry.max":          "0",
		"svc.restapi.paginate.max.pages": strconv.Itoa(len(l.Sizes) + 2),
	}
	set := func(kv ...string) {
		for i := 0; i < len(kv); i += 2 {
			p["svc.restapi.paginate."+kv[i]] = kv[i+1]
		}
	}
	switch l.Kind {
	case "token-body":
		set("next.field", "next", "next.param", "cursor")
	case "token-header":
		set("type", "token", "next.header", "X-Next", "next.param", "cursor")
	case "token-record":
		set("next.record.field", "id", "next.param", "after")
	case "next_url":
		set("type", "next_url")
	case "link":
		set("type", "link")
	case "offset":
		set("type", "offset", "limit", strconv.Itoa(l.Per()))
		if l.Total {
			set("total.field", "total")
		}
	case "page":
		set("type", "page")
		if l.Total {
			set("total.pages.field", "pages")
		}
	}
	return p
}

// Requests is the number of requests a full read of the listing takes:
// token-record and page stop on an empty page, so they ask once more after
// a non-empty last page; offset does after a full last page.
func (l *Listing) Requests() int {
	n := len(l.Sizes)
	last := l.Sizes[n-1]
	if l.Total && (l.Kind == "offset" || l.Kind == "page") {
		return n // the total says where the listing ends
	}
	switch l.Kind {
	case "token-record", "page":
		if last > 0 {
			return n + 1
		}
	case "offset":
		if last == l.Per() {
			return n + 1
		}
	}
	return n
}
