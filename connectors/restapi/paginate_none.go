package restapi

import "github.com/sluicedata/sluice/connectors"

// nonePaginator reads one page.
type nonePaginator struct{}

func init() {
	paginatorTypes["none"] = paginatorType{build: func(connectors.Props, *readConfig) (paginator, error) {
		return nonePaginator{}, nil
	}}
}

func (nonePaginator) start(*request) error { return nil }

func (nonePaginator) next(*page, *request) (bool, string, string, error) { return false, "", "", nil }
