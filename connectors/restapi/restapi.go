package restapi

import (
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/connectors"
)

// Type is the connector's registered name, the value of svc.storage.type.
const Type = "RESTAPI"

func init() { connectors.Register(Type, &Connector{}) }

// Connector reads and writes REST APIs. It keeps no state between calls:
// each Read or Write resolves its URL, opens one connection pool and closes
// it when done. The zero value is ready to use.
type Connector struct{}

var (
	_ connectors.Connector = (*Connector)(nil)
	_ connectors.Writer    = (*Connector)(nil)
	_ connectors.Validator = (*Connector)(nil)
)

// Validate checks a table definition at CREATE: the columns are exactly
// `payload string` (or none, and the catalog stores that column), and the
// properties are known, typed and consistent (pagination, auth). The URL is not resolved here: its tokens may come
// from session settings made later. A ${env:…}/${file:…} reference is not
// resolved either (docs/catalog.md#secret-references): a referenced typed
// value counts as its default, and when it has none only the names are
// checked; the values are checked at read.
func (*Connector) Validate(fields []connectors.Field, props connectors.Props) error {
	red := connectors.NewRedactor(props)
	if err := checkColumns(fields); err != nil {
		return red.Error(err)
	}
	props, complete := Properties.Unresolved(props)
	if !complete {
		if err := Properties.Validate(props); err != nil {
			return red.Error(fmt.Errorf("RESTAPI table: %w", err))
		}
		return nil
	}
	cfg, err := parseConfig(props)
	if err == nil {
		_, err = parseReadConfig(props, cfg)
	}
	if err != nil {
		return red.Error(fmt.Errorf("RESTAPI table: %w", err))
	}
	if _, err := parseIncremental(props); err != nil {
		return red.Error(fmt.Errorf("RESTAPI table: %w", err))
	}
	if _, _, err := parseFanout(props); err != nil {
		return red.Error(fmt.Errorf("RESTAPI table: %w", err))
	}
	return nil
}

func checkColumns(fields []connectors.Field) error {
	if len(fields) == 0 {
		return nil
	}
	if len(fields) == 1 && strings.EqualFold(fields[0].Name, PayloadColumn) && strings.EqualFold(strings.TrimSpace(fields[0].Type), "string") {
		return nil
	}
	cols := make([]string, len(fields))
	for i, f := range fields {
		cols[i] = f.Name + " " + f.Type
	}
	return fmt.Errorf("RESTAPI tables have exactly one column, payload string (or none, which means the same); got (%s)", strings.Join(cols, ", "))
}

// datasetName names the dataset in errors.
func datasetName(ds *connectors.Dataset) string {
	if ds.Name != "" {
		return ds.Name
	}
	return "RESTAPI dataset"
}
