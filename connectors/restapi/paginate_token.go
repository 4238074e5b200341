package restapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// tokenPaginator follows a next-page token found in the body
// (next.field), a response header (next.header) or the page's last record
// (next.record.field, e.g. Stripe's id for starting_after), and sends it in
// a query parameter (next.param) or a field of the POST body
// (next.body.field). See docs/restapi.md#token.
type tokenPaginator struct {
	field, record jsonPath
	header        string
	param         string
	bodyField     jsonPath
	source        string // the property the token comes from, for errors

	base request // the first request: each next one changes only the token
}

func init() {
	paginatorTypes["token"] = paginatorType{
		uses:  []string{PropNextField, PropNextHeader, PropNextRecordField, PropNextParam, PropNextBodyField},
		build: newTokenPaginator,
	}
}

func newTokenPaginator(p connectors.Props, rc *readConfig) (paginator, error) {
	t := &tokenPaginator{header: Properties.Value(p, PropNextHeader), param: Properties.Value(p, PropNextParam)}
	var sources, targets []string
	for _, k := range []string{PropNextField, PropNextHeader, PropNextRecordField} {
		if isSet(p, k) {
			sources = append(sources, k)
		}
	}
	for _, k := range []string{PropNextParam, PropNextBodyField} {
		if isSet(p, k) {
			targets = append(targets, k)
		}
	}
	switch {
	case len(sources) == 0 && len(targets) == 0:
		return nil, fmt.Errorf("%w: %s=token needs where the token is (%s, %s or %s) and where it goes (%s or %s)",
			ErrPagination, PropPaginateType, PropNextField, PropNextHeader, PropNextRecordField, PropNextParam, PropNextBodyField)
	case len(sources) == 0:
		return nil, fmt.Errorf("%w: %s is set but not where the token is: set %s, %s or %s too",
			ErrPagination, targets[0], PropNextField, PropNextHeader, PropNextRecordField)
	case len(targets) == 0:
		return nil, fmt.Errorf("%w: %s is set but not where the token goes: set %s (or %s for a POST read) too",
			ErrPagination, sources[0], PropNextParam, PropNextBodyField)
	case len(sources) > 1:
		return nil, fmt.Errorf("%w: %s are both set: the token comes from one place", ErrPagination, strings.Join(sources, " and "))
	case len(targets) > 1:
		return nil, fmt.Errorf("%w: %s are both set: the token goes to one place", ErrPagination, strings.Join(targets, " and "))
	}
	t.source = sources[0]
	var err error
	if t.field, err = pathProp(p, PropNextField); err != nil {
		return nil, err
	}
	if t.record, err = pathProp(p, PropNextRecordField); err != nil {
		return nil, err
	}
	if t.bodyField, err = pathProp(p, PropNextBodyField); err != nil {
		return nil, err
	}
	if !t.bodyField.isZero() && rc.method != http.MethodPost {
		return nil, fmt.Errorf("%w: %s needs %s=POST", ErrPagination, PropNextBodyField, PropReadMethod)
	}
	if !t.record.isZero() && rc.format == "csv" {
		return nil, fmt.Errorf("%w: %s reads a JSON record, but %s=csv", ErrPagination, PropNextRecordField, PropResponseFormat)
	}
	return t, nil
}

func (t *tokenPaginator) start(r *request) error {
	t.base = *r
	return nil
}

func (t *tokenPaginator) next(p *page, r *request) (bool, string, string, error) {
	var tok string
	var raw []byte
	switch {
	case t.header != "":
		tok = strings.TrimSpace(headerOf(p).Get(t.header))
		raw, _ = json.Marshal(tok)
	case !t.record.isZero():
		recs, err := p.needRecords("token")
		if err != nil {
			return false, "", "", err
		}
		if recs.n == 0 {
			return false, "", "", nil // no records: nothing after the last one
		}
		var ok bool
		var err2 error
		if tok, raw, ok, err2 = t.record.lookupScalar(recs.last); err2 != nil {
			return false, "", "", fmt.Errorf("%s in the last record: %w", PropNextRecordField, err2)
		} else if !ok {
			return false, "", "", fmt.Errorf("%s: the page's last record has no %s", PropNextRecordField, t.record.text)
		}
	default:
		if len(trimJSONSpace(p.body)) == 0 {
			return false, "", "", nil // a blank page (a 204) ends the listing
		}
		var ok bool
		var err error
		if tok, raw, ok, err = t.field.lookupScalar(p.body); err != nil {
			return false, "", "", fmt.Errorf("looking for the next-page token %s: %w", t.field.text, err)
		} else if !ok {
			return false, "", "", nil
		}
	}
	if tok == "" {
		return false, "", "", nil
	}
	*r = t.base
	if t.param != "" {
		r.url = withQueryParam(t.base.url, t.param, tok)
	} else {
		body, err := setJSONPath(t.base.body, t.bodyField, raw)
		if err != nil {
			return false, "", "", fmt.Errorf("%s: %w", PropNextBodyField, err)
		}
		r.body = body
	}
	return true, tok, t.source, nil
}
