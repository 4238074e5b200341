package restapi

import (
	"fmt"

	"github.com/sluicedata/sluice/connectors"
)

// nextURLPaginator follows the URL found at next.url.field (relative URLs
// resolve against the page's URL). See docs/restapi.md#next_url.
type nextURLPaginator struct{ field jsonPath }

func init() {
	paginatorTypes["next_url"] = paginatorType{
		uses: []string{PropNextURLField},
		build: func(p connectors.Props, _ *readConfig) (paginator, error) {
			f, err := pathProp(p, PropNextURLField)
			return &nextURLPaginator{field: f}, err
		},
	}
}

func (*nextURLPaginator) start(*request) error { return nil }

func (n *nextURLPaginator) next(p *page, r *request) (bool, string, string, error) {
	if len(trimJSONSpace(p.body)) == 0 {
		return false, "", "", nil
	}
	next, _, ok, err := n.field.lookupScalar(p.body)
	if err != nil {
		return false, "", "", fmt.Errorf("looking for the next-page URL %s: %w", n.field.text, err)
	}
	if !ok {
		return false, "", "", nil
	}
	u, err := resolveNext(p.url, next)
	if err != nil {
		return false, "", "", fmt.Errorf("%s: %w", PropNextURLField, err)
	}
	r.url = u
	return true, u, "next page URL", nil
}
