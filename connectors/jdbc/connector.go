package jdbc

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/scan"
)

func init() { connectors.Register(Type, &Connector{}) }

// Connector reads and writes tables of PostgreSQL and MySQL/MariaDB
// databases (docs/jdbc.md). It implements connectors.Connector, Writer,
// StreamReader, StreamWriter, ScanReader, IncrementalStreamReader,
// StateStore and Validator.
type Connector struct {
	// Allocator allocates the batches read; nil is Arrow's default. Tests
	// set a checked allocator.
	Allocator dataframe.Allocator
}

var (
	_ connectors.Connector               = (*Connector)(nil)
	_ connectors.Writer                  = (*Connector)(nil)
	_ connectors.StreamReader            = (*Connector)(nil)
	_ connectors.StreamWriter            = (*Connector)(nil)
	_ connectors.ScanReader              = (*Connector)(nil)
	_ connectors.IncrementalStreamReader = (*Connector)(nil)
	_ connectors.StateStore              = (*Connector)(nil)
	_ connectors.Validator               = (*Connector)(nil)
	_ connectors.Describer               = (*Connector)(nil)
	_ connectors.SchemaReader            = (*Connector)(nil)
)

// Validate checks a table definition's properties (at CREATE TABLE): the
// declared names and kinds, the URL, one of dbtable and query.
func (*Connector) Validate(_ []connectors.Field, props connectors.Props) error {
	cfg, err := parseProps(props, true)
	if err != nil {
		return fmt.Errorf("JDBC: %w", err)
	}
	if cfg.Table == "" && cfg.Query == "" {
		return fmt.Errorf("JDBC: property %s (or %s) is required", PropDBTable, PropQuery)
	}
	return nil
}

// Read reads the whole dataset into a frame.
func (c *Connector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	s, err := c.ReadStream(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	return dataframe.Collect(s)
}

// ReadStream streams the dataset in batches of fetchsize rows.
func (c *Connector) ReadStream(ctx context.Context, ds *connectors.Dataset) (dataframe.Stream, error) {
	s, _, err := c.ReadScan(ctx, ds, scan.Request{})
	return s, err
}

// ReadScan streams the columns req asks for, with the filters the
// database evaluates exactly pushed into its WHERE clause and the limit
// when every filter is (docs/jdbc.md#pushdown). The schema is known when
// it returns; the SELECT is sent on the stream's first Next, so a stream
// a query's planning opens for the schema alone sends no statement.
func (c *Connector) ReadScan(ctx context.Context, ds *connectors.Dataset, req scan.Request) (dataframe.Stream, scan.Applied, error) {
	if err := ctx.Err(); err != nil {
		return nil, scan.Applied{}, err
	}
	p, applied, err := c.plan(ctx, ds, req, nil)
	if err != nil {
		return nil, scan.Applied{}, err
	}
	return p.deferred(ctx), applied, nil
}

// Incremental reports whether the properties name a cursor column.
func (*Connector) Incremental(p connectors.Props) bool {
	return strings.TrimSpace(p[PropIncrementalCursor]) != ""
}

// ReadIncremental reads the rows after prev into a frame and returns the
// state after them (see ReadIncrementalStream).
func (c *Connector) ReadIncremental(ctx context.Context, ds *connectors.Dataset, prev *connectors.State) (*dataframe.Frame, *connectors.State, error) {
	s, state, err := c.ReadIncrementalStream(ctx, ds, prev)
	if err != nil {
		return nil, nil, err
	}
	defer s.Release()
	f, err := dataframe.Collect(s)
	if err != nil {
		return nil, nil, err
	}
	return f, state(), nil
}

// logger is the dataset's CONSOLE log of statements sent.
func logger(ds *connectors.Dataset, t target) func(string) {
	return func(s string) { ds.Logf("JDBC %s %s: %s", t.dialect.Name(), t.addr(), s) }
}

// connect opens a connection for ds.
func connect(ctx context.Context, ds *connectors.Dataset, cfg *config) (conn, error) {
	return cfg.Target.dialect.open(ctx, cfg.Target, cfg.ConnectTimeout, logger(ds, cfg.Target))
}

// ReadSchema returns the columns of the dataset's table (or query) as the
// connector reads them (docs/jdbc.md#types).
func (c *Connector) ReadSchema(ctx context.Context, ds *connectors.Dataset) ([]connectors.Field, error) {
	p, _, err := c.plan(ctx, ds, scan.Request{}, nil)
	if err != nil {
		return nil, err
	}
	p.c.close()
	out := make([]connectors.Field, len(p.cols))
	for i, col := range p.cols {
		out[i] = connectors.Field{Name: col.Name, Type: col.Spark, Nullable: col.Nullable}
	}
	return out, nil
}
