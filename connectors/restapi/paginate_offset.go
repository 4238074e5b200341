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

	// Of the first page, for a concurrent read: its record count (the
	// step of the planned offsets) and the total it gave.
	step       int64
	firstTotal float64
	known      bool // firstTotal was read
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
		if p.number == 1 {
			o.step, o.firstTotal, o.known = int64(recs.n), total, true
		}
		if float64(o.offset) >= total {
			return false, "", "", nil
		}
	}
	r.url = o.url()
	return true, "", "", nil
}

// plan lists the offsets after the first page up to the first page's
// total, stepping by the first page's record count.
func (o *offsetPaginator) plan(next request) ([]request, bool) {
	if !o.known || o.step <= 0 {
		return nil, false
	}
	var reqs []request
	for off := o.offset; float64(off) < o.firstTotal; off += o.step {
		r := next
		r.url = withQueryParam(withQueryParam(o.base, o.offsetParam, strconv.FormatInt(off, 10)), o.limitParam, strconv.FormatInt(o.limit, 10))
		reqs = append(reqs, r)
	}
	return reqs, len(reqs) > 0
}

// checkPlanned checks a planned page: it must hold the first page's count
// of records, or the rest of the total on the last page. Fewer records
// before the total is reached would leave records unread (the offsets are
// planned), more would read some twice: either is an error naming both
// counts.
func (o *offsetPaginator) checkPlanned(p *page) (bool, error) {
	recs, err := p.needRecords("offset")
	if err != nil {
		return false, err
	}
	if err := o.same.check(p, PropOffsetParam); err != nil {
		return false, err
	}
	start := o.offset - o.step + int64(p.number-1)*o.step // the page's offset
	n := int64(recs.n)
	end := float64(start + n)
	switch {
	case n > o.step:
		return false, fmt.Errorf("page %d has %d records, more than page 1's %d: the offsets read concurrently step by page 1's count, so records would be read twice (set %s=1 to read page by page)",
			p.number, n, o.step, PropConcurrency)
	case n < o.step && end < o.firstTotal:
		return false, fmt.Errorf("page %d has %d records, fewer than page 1's %d, before the total %s=%s is reached: the offsets read concurrently step by page 1's count, so records would be skipped (set %s=1 to read page by page)",
			p.number, n, o.step, o.total.text, strconv.FormatFloat(o.firstTotal, 'f', -1, 64), PropConcurrency)
	}
	return end >= o.firstTotal, nil
}
