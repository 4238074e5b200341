package catalog

import (
	"context"
	"fmt"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// ReadScan reads the dataset name as a stream under a query's request
// (docs/sql.md#pushdown): a connector that implements
// connectors.ScanReader takes the columns, filters, limit and row
// positions it can and says which it applied; other reads — and
// incremental and fan-out reads, which need every row — are ReadStream,
// with nothing applied. The caller releases the stream.
func (s *Session) ReadScan(ctx context.Context, name string, props map[string]any, req scan.Request) (st dataframe.Stream, applied scan.Applied, err error) {
	applied.Filters = make([]bool, len(req.Filters))
	r, err := s.resolve(ctx, name, props)
	if err != nil {
		return nil, applied, fmt.Errorf("reading %s: %w", name, err)
	}
	sr, ok := r.conn.(connectors.ScanReader)
	if _, inc := s.streamsIncremental(r); !ok || inc || s.needsWholeRead(r) {
		st, err = s.ReadStream(ctx, name, props)
		return st, applied, err
	}
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, fmt.Errorf("reading %s: %s connector panicked: %s", r.ds.Name, r.typ, r.red.String(fmt.Sprint(p)))
		}
	}()
	st, got, err := sr.ReadScan(ctx, r.ds, req)
	if err != nil {
		return nil, applied, doing("reading", r.ds.Name, r.red.Error(err))
	}
	if len(got.Filters) == len(req.Filters) {
		applied.Filters = got.Filters
	}
	applied.Limit, applied.Order, applied.Rows, applied.RowPositions = got.Limit, got.Order, got.Rows, got.RowPositions
	return st, applied, nil
}
