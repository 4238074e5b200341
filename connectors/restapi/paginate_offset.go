package restapi

import (
	"fmt"
	"strconv"

	"github.com/sluicedata/sluice/connectors"
)

// offsetPaginator pages with offset and limit parameters: offset += the
// page's records. Without total.field a short page is the last; with it,
// the read stops when offset ≥ total or a page is empty (APIs such as
// Jira return short pages mid-way). See docs/restapi.md#offset.
type offsetPaginator struct {
	offsetParam, limitParam string
	limit, offset           int64
	total                   jsonPath
	same                    sameAsLast
	base                    string
}

func init() {
	paginatorTypes["offset"] = paginatorType{
		uses: []string{PropOffsetParam, PropLimitParam, PropLimit, PropTotalField, PropOffsetStart},
		build: func(p connectors.Props, _ *readConfig) (paginator, error) {
			o := &offsetPaginator{offsetParam: Properties.Value(p, PropOffsetParam), limitParam: Properties.Value(p, PropLimitParam)}
			o.limit, _ = Properties.Int(p, PropLimit)
			o.offset, _ = Properties.Int(p, PropOffsetStart)
			var err error
			o.total, err = pathProp(p, PropTotalField)
			return o, err
		},
	}
}

func (o *offsetPaginator) start(r *request) error {
	o.base = r.url
	r.url = o.url()
	return nil
}

func (o *offsetPaginator) url() string {
	return withQueryParam(withQueryParam(o.base, o.offsetParam, strconv.FormatInt(o.offset, 10)), o.limitParam, strconv.FormatInt(o.limit, 10))
}

func (o *offsetPaginator) next(p *page, r *request) (bool, string, string, error) {
	recs, err := p.needRecords("offset")
	if err != nil {
		return false, "", "", err
	}
	if err := o.same.check(p, PropOffsetParam); err != nil {
		return false, "", "", err
	}
	if recs.n == 0 {
		return false, "", "", nil
	}
	o.offset += int64(recs.n)
	if o.total.isZero() {
		if int64(recs.n) < o.limit {
			return false, "", "", nil
		}
	} else {
		text, _, ok, err := o.total.lookupScalar(p.body)
		if err != nil {
			return false, "", "", fmt.Errorf("%s: %w", PropTotalField, err)
		}
		if !ok {
			return false, "", "", fmt.Errorf("%s: page %d has no %s", PropTotalField, p.number, o.total.text)
		}
		total, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return false, "", "", fmt.Errorf("%s: %q is not a number", PropTotalField, text)
		}
		if float64(o.offset) >= total {
			return false, "", "", nil
		}
	}
	r.url = o.url()
	return true, "", "", nil
}
