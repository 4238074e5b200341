package restapi

import (
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// linkPaginator follows the rel="next" target of the RFC 8288 Link header
// (every Link field of the response is read). See docs/restapi.md#link.
type linkPaginator struct {
	hasMoreAttr string // stop when this attribute of the next link is false
}

func init() {
	paginatorTypes["link"] = paginatorType{
		uses: []string{PropLinkHasMoreAttr},
		build: func(p connectors.Props, _ *readConfig) (paginator, error) {
			return &linkPaginator{hasMoreAttr: strings.ToLower(Properties.Value(p, PropLinkHasMoreAttr))}, nil
		},
	}
}

func (*linkPaginator) start(*request) error { return nil }

func (l *linkPaginator) next(p *page, r *request) (bool, string, string, error) {
	for _, lk := range parseLinks(headerOf(p).Values("Link")) {
		if !lk.hasRel("next") {
			continue
		}
		if l.hasMoreAttr != "" && strings.EqualFold(lk.params[l.hasMoreAttr], "false") {
			return false, "", "", nil
		}
		if lk.target == "" {
			return false, "", "", nil
		}
		u, err := resolveNext(p.url, lk.target)
		if err != nil {
			return false, "", "", fmt.Errorf("Link rel=next: %w", err)
		}
		r.url = u
		return true, u, "next page URL", nil
	}
	return false, "", "", nil
}
