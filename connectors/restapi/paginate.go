package restapi

import (
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// ErrTooManyPages is returned (wrapped) when the last page allowed by
// svc.restapi.paginate.max.pages still has a page after it.
var ErrTooManyPages = errors.New("too many pages")

// ErrRepeatedToken is returned (wrapped) when a next-page token or URL comes
// back a second time: following it would loop for ever.
var ErrRepeatedToken = errors.New("repeated next-page token")

// ErrRepeatedPage is returned (wrapped) when an offset or page listing
// returns the same page twice in a row: the server ignores the parameter.
var ErrRepeatedPage = errors.New("repeated page")

// ErrPagination is returned (wrapped) for a pagination configuration that
// cannot work: a missing property, one the type does not use, a half-set pair.
var ErrPagination = errors.New("pagination configuration")

// request is what one page request sends.
type request struct {
	url  string
	body []byte // JSON body of a POST read; nil for GET
}

// paginator is one pagination strategy (see docs/restapi.md#pagination), in
// the shape of dlt's paginators: start prepares the first request, next
// reads an answer and turns the request into the next one.
type paginator interface {
	// start prepares the first request (offset and page add their
	// parameters).
	start(r *request) error
	// next reads page p, the answer to r. When a page follows, it changes r
	// into that page's request and returns more=true with the key the
	// repeat guard tracks (a token or a URL; "" for none) and what the key
	// is, for the error (svc.restapi.paginate.next.field).
	next(p *page, r *request) (more bool, key, what string, err error)
}

// addressable is a paginator whose later pages are known once the first
// is in — offset with total.field, page with total.pages.field — so they
// may be requested concurrently (see docs/restapi.md#concurrency).
type addressable interface {
	// plan returns the requests of pages 2, 3, … up to the total the first
	// page gave, next being page 2's (from next); ok is false when no
	// total is known (the read stays page by page).
	plan(next request) (reqs []request, ok bool)
	// checkPlanned checks planned page p (2, 3, …) as next would, in page
	// order; stop is true when the listing ends with p.
	checkPlanned(p *page) (stop bool, err error)
}

// paginatorType describes one value of svc.restapi.paginate.type: the
// paginate.* properties it uses and how to build it.
type paginatorType struct {
	uses  []string
	build func(p connectors.Props, rc *readConfig) (paginator, error)
}

// paginatorTypes maps svc.restapi.paginate.type values to their types; the
// files paginate_<type>.go fill it in.
var paginatorTypes = map[string]paginatorType{}

// commonPaginateProps apply to every type.
var commonPaginateProps = []string{PropPaginateType, PropMaxPages, PropHasMoreField, PropLastPageField}

// bodyFieldProps read the response body: they need response.format=json.
var bodyFieldProps = []string{PropNextField, PropNextURLField, PropHasMoreField, PropLastPageField,
	PropTotalField, PropTotalPagesField, PropResponseOKField, PropResponseErrorField}

// paging is the pagination of one read: the strategy plus the stop
// conditions and limits every type shares.
type paging struct {
	typ      string
	p        paginator
	maxPages int64
	hasMore  jsonPath // stop after a page where it is false
	lastPage jsonPath // stop after a page where it is true
}

// paginationType returns the configured type: svc.restapi.paginate.type,
// else token when a token property is set, else none.
func paginationType(p connectors.Props) string {
	if t, _ := Properties.Enum(p, PropPaginateType); t != "" {
		return t
	}
	for _, k := range []string{PropNextField, PropNextHeader, PropNextRecordField, PropNextParam, PropNextBodyField} {
		if isSet(p, k) {
			return "token"
		}
	}
	return "none"
}

func isSet(p connectors.Props, name string) bool { return strings.TrimSpace(p[name]) != "" }

// newPaging checks the paginate.* properties against the type and builds
// the paginator. Every error names the properties at fault.
func newPaging(p connectors.Props, rc *readConfig) (*paging, error) {
	typ := paginationType(p)
	pt, ok := paginatorTypes[typ]
	if !ok {
		return nil, fmt.Errorf("%w: %s=%s is not implemented", ErrPagination, PropPaginateType, typ)
	}
	used := map[string]bool{}
	for _, k := range append(append([]string(nil), commonPaginateProps...), pt.uses...) {
		used[k] = true
	}
	var unused []string
	for _, k := range p.WithPrefix("svc.restapi.paginate.") {
		if !used[k] && isSet(p, k) {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return nil, fmt.Errorf("%w: %s %s not used by %s=%s (it uses %s)", ErrPagination,
			strings.Join(unused, ", "), plural(len(unused), "is", "are"), PropPaginateType, typ, usesList(pt.uses))
	}
	if rc.format != "json" {
		for _, k := range bodyFieldProps {
			if isSet(p, k) || (k == PropNextURLField && typ == "next_url") {
				return nil, fmt.Errorf("%w: %s reads a field of a JSON body, but %s=%s", ErrPagination, k, PropResponseFormat, rc.format)
			}
		}
	}
	pg := &paging{typ: typ}
	pg.maxPages, _ = Properties.Int(p, PropMaxPages)
	var err error
	if pg.hasMore, err = pathProp(p, PropHasMoreField); err != nil {
		return nil, err
	}
	if pg.lastPage, err = pathProp(p, PropLastPageField); err != nil {
		return nil, err
	}
	if pg.p, err = pt.build(p, rc); err != nil {
		return nil, err
	}
	return pg, nil
}

func usesList(uses []string) string {
	if len(uses) == 0 {
		return "only the common " + strings.Join(shortNames(commonPaginateProps[1:]), ", ")
	}
	return strings.Join(shortNames(uses), ", ")
}

func shortNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimPrefix(n, "svc.restapi.paginate.")
	}
	sort.Strings(out)
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// pathProp parses a dotted-path property; unset gives the zero path.
func pathProp(p connectors.Props, name string) (jsonPath, error) {
	v := Properties.Value(p, name)
	if v == "" {
		return jsonPath{}, nil
	}
	jp, err := parsePath(v)
	if err != nil {
		return jsonPath{}, fmt.Errorf("property %s: %w", name, err)
	}
	return jp, nil
}

// stopsAfter applies the stop conditions every type shares.
func (pg *paging) stopsAfter(p *page) (bool, error) {
	if !pg.hasMore.isZero() {
		v, set, err := pg.hasMore.lookupBool(p.body)
		if err != nil {
			return false, fmt.Errorf("%s: %w", PropHasMoreField, err)
		}
		if set && !v {
			return true, nil
		}
	}
	if !pg.lastPage.isZero() {
		v, set, err := pg.lastPage.lookupBool(p.body)
		if err != nil {
			return false, fmt.Errorf("%s: %w", PropLastPageField, err)
		}
		if set && v {
			return true, nil
		}
	}
	return false, nil
}

// resolveNext resolves a next-page URL found in a page against the page's
// URL and checks that it is an http(s) URL.
func resolveNext(pageURL, next string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(next))
	if err != nil {
		return "", fmt.Errorf("the next-page URL %q does not parse: %w", next, urlCause(err))
	}
	if !u.IsAbs() {
		base, err := url.Parse(pageURL)
		if err != nil {
			return "", err
		}
		u = base.ResolveReference(u)
	}
	s := u.String()
	if err := checkAbsoluteHTTP(s); err != nil {
		return "", fmt.Errorf("the next-page URL %q: %w", s, err)
	}
	return s, nil
}

// sameAsLast detects an offset or page listing whose server ignores the
// paging parameter: the same non-empty body twice in a row.
type sameAsLast struct {
	seed maphash.Seed
	last uint64
	n    int
}

func (s *sameAsLast) check(p *page, param string) error {
	if s.seed == (maphash.Seed{}) {
		s.seed = maphash.MakeSeed()
	}
	h := maphash.Bytes(s.seed, p.body)
	defer func() { s.last, s.n = h, len(p.body) }()
	if p.number > 1 && h == s.last && len(p.body) == s.n && len(trimJSONSpace(p.body)) > 0 {
		return fmt.Errorf("%w: page %d is the same as page %d (does the server ignore %s?)", ErrRepeatedPage, p.number, p.number-1, param)
	}
	return nil
}

// headerOf is a page's response header (nil-safe).
func headerOf(p *page) http.Header {
	if p.header == nil {
		return http.Header{}
	}
	return p.header
}

// urlCause is a *url.Error's cause: its message repeats the URL.
func urlCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
