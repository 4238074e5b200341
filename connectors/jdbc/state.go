package jdbc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sluicedata/sluice/connectors"
)

// LoadState returns the state of source kept in the sluice_state table of
// ds's schema (docs/jdbc.md#exactly-once); nil when there is none.
func (c *Connector) LoadState(ctx context.Context, ds *connectors.Dataset, source string) (*connectors.State, error) {
	cfg, cn, st, err := c.stateConn(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer cn.close()
	info, err := cn.tableInfo(ctx, st)
	if err != nil || info == nil {
		return nil, err
	}
	d := cfg.Target.dialect
	rows, err := cn.texts(ctx, fmt.Sprintf("SELECT state FROM %s WHERE table_name = %s", st.quoted(d), d.param(1)), source)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	var s connectors.State
	if err := json.Unmarshal([]byte(rows[0][0]), &s); err != nil {
		return nil, fmt.Errorf("the state of %s in %s is not a state (sluice state reset %s starts over): %w", source, st, source, err)
	}
	return &s, nil
}

// ResetState deletes the state of source kept in ds's schema.
func (c *Connector) ResetState(ctx context.Context, ds *connectors.Dataset, source string) (bool, error) {
	cfg, cn, st, err := c.stateConn(ctx, ds)
	if err != nil {
		return false, err
	}
	defer cn.close()
	info, err := cn.tableInfo(ctx, st)
	if err != nil || info == nil {
		return false, err
	}
	d := cfg.Target.dialect
	n, err := cn.exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE table_name = %s", st.quoted(d), d.param(1)), source)
	return n > 0, err
}

func (c *Connector) stateConn(ctx context.Context, ds *connectors.Dataset) (*config, conn, tableName, error) {
	cfg, err := parseConfig(ds.Props)
	if err != nil {
		return nil, nil, tableName{}, err
	}
	if cfg.Table == "" {
		return nil, nil, tableName{}, fmt.Errorf("property %s is required to hold states", PropDBTable)
	}
	cn, err := connect(ctx, ds, cfg)
	if err != nil {
		return nil, nil, tableName{}, err
	}
	return cfg, cn, parseTableName(cfg.Table).sibling(stateTableName), nil
}
