package restapi

import (
	"fmt"
	"strconv"

	"github.com/sluicedata/sluice/connectors"
)

// pagePaginator pages with a page number: page + 1 until a page has no
// records or the page number reaches total.pages.field. See
// docs/restapi.md#page.
type pagePaginator struct {
	pageParam, sizeParam string
	page, first, size    int64
	totalPages           jsonPath
	same                 sameAsLast
	base                 string

	firstTotal int64 // total.pages.field of the first page; 0: unknown
}

func init() {
	paginatorTypes["page"] = paginatorType{
		uses: []string{PropPageParam, PropPageStart, PropSizeParam, PropSize, PropTotalPagesField},
		build: func(p connectors.Props, _ *readConfig) (paginator, error) {
			pg := &pagePaginator{pageParam: Properties.Value(p, PropPageParam), sizeParam: Properties.Value(p, PropSizeParam)}
			pg.page, _ = Properties.Int(p, PropPageStart)
			pg.first = pg.page
			pg.size, _ = Properties.Int(p, PropSize)
			if (pg.sizeParam == "") != (pg.size == 0) {
				return nil, fmt.Errorf("%w: %s and %s go together: set both or neither", ErrPagination, PropSizeParam, PropSize)
			}
			var err error
			pg.totalPages, err = pathProp(p, PropTotalPagesField)
			return pg, err
		},
	}
}

func (pg *pagePaginator) start(r *request) error {
	pg.base = r.url
	r.url = pg.url()
	return nil
}

func (pg *pagePaginator) url() string {
	u := withQueryParam(pg.base, pg.pageParam, strconv.FormatInt(pg.page, 10))
	if pg.sizeParam != "" {
		u = withQueryParam(u, pg.sizeParam, strconv.FormatInt(pg.size, 10))
	}
	return u
}

func (pg *pagePaginator) next(p *page, r *request) (bool, string, string, error) {
	recs, err := p.needRecords("page")
	if err != nil {
		return false, "", "", err
	}
	if err := pg.same.check(p, PropPageParam); err != nil {
		return false, "", "", err
	}
	if recs.n == 0 {
		return false, "", "", nil
	}
	if !pg.totalPages.isZero() {
		text, _, ok, err := pg.totalPages.lookupScalar(p.body)
		if err != nil {
			return false, "", "", fmt.Errorf("%s: %w", PropTotalPagesField, err)
		}
		if !ok {
			return false, "", "", fmt.Errorf("%s: page %d has no %s", PropTotalPagesField, p.number, pg.totalPages.text)
		}
		total, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return false, "", "", fmt.Errorf("%s: %q is not an integer", PropTotalPagesField, text)
		}
		if p.number == 1 {
			pg.firstTotal = total
		}
		if pg.page-pg.first+1 >= total { // pages counted from page.start
			return false, "", "", nil
		}
	}
	pg.page++
	r.url = pg.url()
	return true, "", "", nil
}

// plan lists the page numbers after the first up to the first page's
// total.pages.field.
func (pg *pagePaginator) plan(next request) ([]request, bool) {
	if pg.firstTotal <= 1 {
		return nil, false
	}
	reqs := []request{next}
	for n := pg.first + 2; n-pg.first+1 <= pg.firstTotal; n++ {
		r := next
		u := withQueryParam(pg.base, pg.pageParam, strconv.FormatInt(n, 10))
		if pg.sizeParam != "" {
			u = withQueryParam(u, pg.sizeParam, strconv.FormatInt(pg.size, 10))
		}
		r.url = u
		reqs = append(reqs, r)
	}
	return reqs, true
}

// checkPlanned applies next's rules to a planned page: a page with no
// records ends the listing.
func (pg *pagePaginator) checkPlanned(p *page) (bool, error) {
	recs, err := p.needRecords("page")
	if err != nil {
		return false, err
	}
	if err := pg.same.check(p, PropPageParam); err != nil {
		return false, err
	}
	return recs.n == 0 || int64(p.number) >= pg.firstTotal, nil
}
