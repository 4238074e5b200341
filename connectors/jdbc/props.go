package jdbc

import (
	"fmt"
	"strings"
	"time"

	"github.com/sluicedata/sluice/connectors"
)

// Property names (see docs/jdbc.md and docs/properties.md). Keys are
// case-sensitive.
const (
	PropPrefix            = "svc.jdbc."
	PropURL               = "svc.jdbc.url"
	PropUser              = "svc.jdbc.user"
	PropPassword          = "svc.jdbc.password"
	PropDBTable           = "svc.jdbc.dbtable"
	PropQuery             = "svc.jdbc.query"
	PropFetchSize         = "svc.jdbc.fetchsize"
	PropPartitionColumn   = "svc.jdbc.partition.column"
	PropNumPartitions     = "svc.jdbc.num.partitions"
	PropLowerBound        = "svc.jdbc.lower.bound"
	PropUpperBound        = "svc.jdbc.upper.bound"
	PropMode              = "svc.jdbc.mode"
	PropMergeKey          = "svc.jdbc.merge.key"
	PropCreateTable       = "svc.jdbc.create.table"
	PropSchemaEvolution   = "svc.jdbc.schema.evolution"
	PropBatchRows         = "svc.jdbc.batch.rows"
	PropIncrementalCursor = "svc.jdbc.incremental.cursor"
	PropIncrementalKey    = "svc.jdbc.incremental.key"
	PropConnectTimeout    = "svc.jdbc.connect.timeout"
)

// Write modes.
const (
	ModeAppend    = "append"
	ModeOverwrite = "overwrite"
	ModeMerge     = "merge"
)

// Type is the connector's registered name.
const Type = "JDBC"

// Properties declares every svc.jdbc.* property: validation, redaction,
// DESCRIBE and docs/properties.md all read it.
var Properties = &connectors.PropertySet{
	Connector: Type,
	Prefix:    PropPrefix,
	Specs: []connectors.PropertySpec{
		{Name: PropURL, Doc: "Required. `postgres://…`/`postgresql://…`, `mysql://user@host:port/db`, or Spark's `jdbc:postgresql://…`/`jdbc:mysql://…` spellings (`jdbc:mariadb://` too); a password in it is a secret. See docs/jdbc.md#urls."},
		{Name: PropUser, Doc: "User name; defaults to the URL's."},
		{Name: PropPassword, Secret: true, Doc: "Password; defaults to the URL's."},
		{Name: PropDBTable, Doc: "`[schema.]table` to read or write, taken literally (case included); each `.`-separated part is quoted as written."},
		{Name: PropQuery, Doc: "A SELECT the database runs (reads only); exactly one of `dbtable` and `query` for a read."},
		{Name: PropFetchSize, Kind: connectors.KindInt, Min: 1, Default: "10000", Doc: "Rows per batch streamed from the database."},
		{Name: PropPartitionColumn, Doc: "A numeric, date or timestamp column: the read runs in `num.partitions` ranges at once (Spark's `partitionColumn`)."},
		{Name: PropNumPartitions, Kind: connectors.KindInt, Min: 1, Doc: "Number of ranges of a partitioned read (with `partition.column`, `lower.bound`, `upper.bound`)."},
		{Name: PropLowerBound, Doc: "Partitioned read: a number, `YYYY-MM-DD` date or RFC 3339 timestamp; with `upper.bound` it sets the stride only, every row is read once."},
		{Name: PropUpperBound, Doc: "Partitioned read: the upper end of the stride (see `lower.bound`)."},
		{Name: PropMode, Kind: connectors.KindEnum, Enum: []string{ModeAppend, ModeOverwrite, ModeMerge}, Default: ModeAppend, Doc: "Write mode: append rows, overwrite (all rows replaced; definition, indexes and grants stay), or merge (upsert by `merge.key`). See docs/jdbc.md#writes."},
		{Name: PropMergeKey, Kind: connectors.KindList, Doc: "Comma list of key columns of `mode=merge`; defaults to the table's primary key. A created table gets it as its primary key."},
		{Name: PropCreateTable, Kind: connectors.KindBool, Default: "true", Doc: "A missing table is created from the frame's schema (docs/jdbc.md#types)."},
		{Name: PropSchemaEvolution, Kind: connectors.KindEnum, Enum: []string{"add", "fail"}, Default: "add", Doc: "`add`: a frame column the table lacks is added as a nullable column; `fail`: an error naming it."},
		{Name: PropBatchRows, Kind: connectors.KindInt, Min: 1, Default: "50000", Doc: "Rows per bulk-load batch (the memory bound of a write)."},
		{Name: PropIncrementalCursor, Doc: "A column: each read returns the rows whose value is ≥ the stored one, less those already delivered at it. See docs/jdbc.md#incremental-reads."},
		{Name: PropIncrementalKey, Kind: connectors.KindList, Doc: "Incremental reads: the columns that identify a row delivered at the last cursor value; defaults to the primary key."},
		{Name: PropConnectTimeout, Kind: connectors.KindDuration, Default: "10s", Doc: "Bound on opening a connection (the host and port are named when it runs out)."},
	},
}

// Properties returns the connector's property declaration.
func (*Connector) Properties() *connectors.PropertySet { return Properties }

// config is the typed form of a dataset's svc.jdbc.* properties.
type config struct {
	// Target is where the database is and who logs in.
	Target target
	// Table is the dbtable as written; empty for a query read.
	Table string
	// Query is the SELECT of a query read.
	Query string
	// FetchSize is the rows per batch read. Defaults to 10000.
	FetchSize int
	// Partition is the partitioned read's layout; nil for one read.
	Partition *partitioning
	// Mode is the write mode. Defaults to append.
	Mode string
	// MergeKey are the key columns of a merge. Defaults to the primary key.
	MergeKey []string
	// CreateTable creates a missing table. Defaults to true.
	CreateTable bool
	// AddColumns adds missing columns (schema.evolution=add). Defaults to true.
	AddColumns bool
	// BatchRows is the rows per bulk-load batch. Defaults to 50000.
	BatchRows int
	// Cursor is the incremental cursor column; empty for full reads.
	Cursor string
	// IncrementalKey identifies rows at the last cursor value. Defaults to
	// the primary key.
	IncrementalKey []string
	// ConnectTimeout bounds opening a connection. Defaults to 10s.
	ConnectTimeout time.Duration
}

// partitioning is Spark's partitionColumn/lowerBound/upperBound/numPartitions.
type partitioning struct {
	Column       string
	N            int
	Lower, Upper string
}

func parseConfig(p connectors.Props) (*config, error) { return parseProps(p, false) }

// parseProps reads the properties; forCreate checks a table definition,
// whose references are not resolved yet.
func parseProps(p connectors.Props, forCreate bool) (c *config, err error) {
	if err := Properties.Validate(p); err != nil {
		return nil, err
	}
	c = &config{}
	raw := strings.TrimSpace(p.String(PropURL, ""))
	if raw == "" {
		return nil, fmt.Errorf("property %s is required (postgres://…, mysql://…, jdbc:postgresql://…)", PropURL)
	}
	var t target
	if strings.Contains(raw, "${") {
		// A reference (${env:…}) is resolved by each read and write, never
		// at CREATE: only a resolved URL is parsed.
		if !forCreate {
			return nil, fmt.Errorf("property %s holds an unresolved reference", PropURL)
		}
	} else if t, err = parseURL(raw); err != nil {
		return nil, err
	}
	if u := strings.TrimSpace(p.String(PropUser, "")); u != "" {
		t.User = u
	}
	if pw, ok := p[PropPassword]; ok && pw != "" {
		t.Password = pw
	}
	c.Target = t
	c.Table = strings.TrimSpace(p.String(PropDBTable, ""))
	if c.Table != "" && t.dialect != nil {
		if c.Table, err = tableParts(c.Table, t); err != nil {
			return nil, err
		}
	}
	c.Query = strings.TrimSpace(p.String(PropQuery, ""))
	if c.Table != "" && c.Query != "" {
		return nil, fmt.Errorf("properties %s and %s are both set: a dataset reads one of them", PropDBTable, PropQuery)
	}
	n, err := Properties.Int(p, PropFetchSize)
	if err != nil {
		return nil, err
	}
	c.FetchSize = int(n)
	if n, err = Properties.Int(p, PropBatchRows); err != nil {
		return nil, err
	}
	c.BatchRows = int(n)
	if c.Mode, err = Properties.Enum(p, PropMode); err != nil {
		return nil, err
	}
	c.MergeKey = list(p[PropMergeKey])
	if c.CreateTable, err = Properties.Bool(p, PropCreateTable); err != nil {
		return nil, err
	}
	evo, err := Properties.Enum(p, PropSchemaEvolution)
	if err != nil {
		return nil, err
	}
	c.AddColumns = evo == "add"
	c.Cursor = strings.TrimSpace(p[PropIncrementalCursor])
	c.IncrementalKey = list(p[PropIncrementalKey])
	if len(c.IncrementalKey) > 0 && c.Cursor == "" {
		return nil, fmt.Errorf("property %s is set without %s", PropIncrementalKey, PropIncrementalCursor)
	}
	if c.ConnectTimeout, err = Properties.Duration(p, PropConnectTimeout); err != nil {
		return nil, err
	}
	if c.Partition, err = parsePartitioning(p); err != nil {
		return nil, err
	}
	return c, nil
}

func parsePartitioning(p connectors.Props) (*partitioning, error) {
	names := []string{PropPartitionColumn, PropNumPartitions, PropLowerBound, PropUpperBound}
	var set, unset []string
	for _, n := range names {
		if strings.TrimSpace(p[n]) != "" {
			set = append(set, n)
		} else {
			unset = append(unset, n)
		}
	}
	if len(set) == 0 {
		return nil, nil
	}
	if len(unset) > 0 {
		return nil, fmt.Errorf("property %s is set without %s (a partitioned read needs all four)", set[0], strings.Join(unset, ", "))
	}
	n, err := Properties.Int(p, PropNumPartitions)
	if err != nil {
		return nil, err
	}
	pt := &partitioning{Column: strings.TrimSpace(p[PropPartitionColumn]), N: int(n),
		Lower: strings.TrimSpace(p[PropLowerBound]), Upper: strings.TrimSpace(p[PropUpperBound])}
	if _, err := parseBound(PropLowerBound, pt.Lower); err != nil {
		return nil, err
	}
	if _, err := parseBound(PropUpperBound, pt.Upper); err != nil {
		return nil, err
	}
	return pt, nil
}

// list splits a comma list, dropping blanks.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// tableParts checks dbtable's `.`-separated parts against what the database
// names: PostgreSQL [[database.]schema.]table, the database the URL's (it
// is dropped), MySQL [database.]table.
func tableParts(table string, t target) (string, error) {
	parts := strings.Split(table, ".")
	_, pg := t.dialect.(postgres)
	switch {
	case len(parts) <= 2:
		return table, nil
	case pg && len(parts) == 3:
		if parts[0] != t.Database {
			return "", fmt.Errorf("property %s %s names database %s, not the URL's %s", PropDBTable, table, parts[0], t.Database)
		}
		return parts[1] + "." + parts[2], nil
	case pg:
		return "", fmt.Errorf("property %s %s: PostgreSQL names a table [[database.]schema.]table", PropDBTable, table)
	}
	return "", fmt.Errorf("property %s %s: %s names a table [database.]table", PropDBTable, table, t.dialect.Name())
}
