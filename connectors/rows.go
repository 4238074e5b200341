package connectors

import (
	"context"
	"sync/atomic"
)

// RowsHint asks a StreamReader for some rows only, by position (0-based,
// ascending, in the order the full stream gives them): a query's top-N
// reads the winning rows' other columns this way (see
// docs/sql.md#performance). A connector that honours it calls Apply; one
// that does not ignores it, and the caller then reads every row.
type RowsHint struct {
	Rows    []int64
	applied atomic.Bool
}

type rowsKey struct{}

// WithRows returns a context carrying a RowsHint for rows.
func WithRows(ctx context.Context, rows []int64) (context.Context, *RowsHint) {
	h := &RowsHint{Rows: rows}
	return context.WithValue(ctx, rowsKey{}, h), h
}

// RowsFrom is the RowsHint of ctx, or nil.
func RowsFrom(ctx context.Context) *RowsHint {
	h, _ := ctx.Value(rowsKey{}).(*RowsHint)
	return h
}

// Apply says the stream holds only the hinted rows.
func (h *RowsHint) Apply() { h.applied.Store(true) }

// Applied reports whether the connector honoured the hint.
func (h *RowsHint) Applied() bool { return h.applied.Load() }
